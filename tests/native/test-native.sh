#!/usr/bin/env bash
# Native frame names on a real capture, against the runtime and the modules' own symbols:
# - `perfpipe collect` of the test bed's blocking scenario (its I/O thread sits in a socket wait
#   that the runtime never names) keeps FILE.nettrace.maps beside the trace, with the trace's mode;
# - of the frames the trace alone leaves unresolved (?!0x...), >= 90 % get a module and >= 60 % a
#   function name from the map;
# - every ReadyToRun method name the map gives for an address the runtime did name agrees with the
#   runtime's own method events (same address, same method), so the names it adds are trusted;
# - ELF names (libcoreclr, libclrjit, libSystem.Native, libc as mapped in the workload) agree with
#   `nm` of the same files: each function's address in the process, named from the map, is that
#   function (or an alias at the same address);
# - a damaged sidecar is a warning in the cpu result, never a silent loss of names.
# Exit: 0 pass, 1 fail, 77 skip (no dotnet, python3 or nm; PP_LIVE=0). About 15 s warm.
set -uo pipefail
if [ "${PP_LIVE:-1}" = 0 ]; then echo "SKIP: native names (PP_LIVE=0)"; exit 77; fi
for t in dotnet python3 nm readelf; do
  command -v $t >/dev/null 2>&1 || { echo "SKIP: native names (no $t)"; exit 77; }
done
HERE=$(cd "$(dirname "$0")" && pwd)
export PP_BUILD_DIR="${PP_BUILD_DIR:-$HOME/.cache/perfpipe-build}-native"
. "$HERE/../capture/env.sh"
PERFPIPE=${PERFPIPE:-$PWD/perfpipe}
NAMES=${NATIVE_NAMES:-$PWD/tests/native/native-names}
for x in "$PERFPIPE" "$NAMES"; do
  [ -x "$x" ] || { echo "FAIL: $x is not executable"; exit 1; }
done
WORK=$(mktemp -d /tmp/pp-native.XXXXXX)
WL=
cleanup() { [ -n "$WL" ] && kill "$WL" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
[ -n "${PP_KEEP_WORK:-}" ] || trap cleanup EXIT
passed=0 failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }
check() { local name=$1; shift; if "$@"; then pass "$name"; else fail "$name"; fi; }

pp_build >/dev/null 2>&1 || { echo "FAIL: build of the workload"; exit 1; }
cd "$WORK"
umask 022

# ---- capture: the workload waits at its gate until collect is attached
mkfifo gate
dotnet "$PP_WORKLOAD_DLL" blocking --seconds 2 --wait-for-attach < gate > wl.out 2>&1 &
WL=$!
exec 7>gate
PID=
for _ in $(seq 100); do
  PID=$(awk '/^PID /{print $2; exit}' wl.out 2>/dev/null); [ -n "$PID" ] && break; sleep 0.1
done
[ -n "$PID" ] || { echo "FAIL: workload did not start: $(cat wl.out)"; exit 1; }
"$PERFPIPE" collect -p "$PID" -o blk.nettrace -q 2> collect.err &
C=$!
sleep 1; echo go >&7; exec 7>&-
wait $WL; WL=
wait $C; rc=$?
check "collect: exit 0" [ $rc = 0 ]
check "collect: keeps blk.nettrace.maps beside the trace" [ -s blk.nettrace.maps ]
check "collect: the sidecar has the trace's mode ($(stat -c %a blk.nettrace))" \
  [ "$(stat -c %a blk.nettrace.maps)" = "$(stat -c %a blk.nettrace)" ]

# ---- names with the map and without it
"$NAMES" blk.nettrace > with.tsv || fail "native-names with the map"
mv blk.nettrace.maps keep.maps
"$NAMES" blk.nettrace > without.tsv || fail "native-names without the map"
mv keep.maps blk.nettrace.maps

python3 - with.tsv without.tsv <<'EOF' && pass "coverage and ReadyToRun names (see figures above)" || fail "coverage or ReadyToRun names"
import sys
def load(p):
    d = {}
    for l in open(p):
        ip, n, name, mapname = l.rstrip("\n").split("\t")
        d[ip] = (int(n), name, mapname)
    return d
w, wo = load(sys.argv[1]), load(sys.argv[2])
unres = [ip for ip, (n, name, _) in wo.items() if name.startswith("?!0x")]
frames = sum(wo[ip][0] for ip in unres)
assert frames > 0, "the trace alone left no frame unresolved: the scenario no longer tests anything"
mod = sum(w[ip][0] for ip in unres if not w[ip][1].startswith("?!0x") and not w[ip][1].startswith("?(unmapped)"))
fn = sum(w[ip][0] for ip in unres if "!?" not in w[ip][1] and not w[ip][1].startswith("?"))
print("  unresolved without the map: %d frames at %d addresses; with it: %.1f %% get a module, %.1f %% a function"
      % (frames, len(unres), 100.0 * mod / frames, 100.0 * fn / frames))
for ip in sorted(unres, key=lambda i: -wo[i][0])[:5]:
    print("    %s x%d -> %s" % (ip, wo[ip][0], w[ip][1]))
ok = mod >= 0.9 * frames and fn >= 0.6 * frames
# ReadyToRun names against the runtime's: addresses the trace named and the map names too.
agree = disagree = 0
for ip, (n, name, mapname) in w.items():
    if name.startswith("?") or "!" in name or mapname == "-" or "!" in mapname:
        continue
    if mapname == name:
        agree += 1
    else:
        disagree += 1
        print("    disagree at %s: runtime %s, image %s" % (ip, name, mapname))
print("  ReadyToRun names: %d addresses agree with the runtime's method events, %d disagree" % (agree, disagree))
ok = ok and agree >= 20 and disagree == 0
sys.exit(0 if ok else 1)
EOF

# ---- ELF names against nm, at real addresses of the workload's mapped modules
python3 - blk.nettrace.maps > probes.txt <<'EOF'
import subprocess, sys, os
maps = []
for l in open(sys.argv[1]):
    if l.startswith("#"):
        continue
    rng, perms, off, bid, path = l.rstrip("\n").split(" ", 4)
    s, e = (int(x, 16) for x in rng.split("-"))
    maps.append((s, e, int(off, 16), perms, path))
want = ("libcoreclr.so", "libclrjit.so", "libSystem.Native.so", "libc.so.6")
for base in want:
    paths = {m[4] for m in maps if os.path.basename(m[4]) == base}
    if not paths:
        continue
    path = paths.pop()
    loads = []
    for l in subprocess.run(["readelf", "-lW", path], capture_output=True, text=True).stdout.splitlines():
        f = l.split()
        if f and f[0] == "LOAD":
            loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))   # offset, vaddr, filesz
    syms = []
    for l in subprocess.run(["nm", "-D", "--defined-only", "-S", path], capture_output=True, text=True).stdout.splitlines():
        f = l.split()
        if len(f) == 4 and f[2] in "Tt" and int(f[1], 16) > 8:
            syms.append((int(f[0], 16), int(f[1], 16), f[3].split("@")[0]))
    at = {}
    for a, _, n in syms:
        at.setdefault(a, set()).add(n)
    for a, size, n in syms[:: max(1, len(syms) // 25)]:
        for o, v, fsz in loads:
            if v <= a < v + fsz:
                foff = a - v + o
                for s, e, moff, perms, p in maps:
                    if p == path and "x" in perms and moff <= foff < moff + (e - s):
                        ip = s + foff - moff + size // 2
                        print("%x %s %s" % (ip, base, ",".join(sorted(at[a]))))
EOF
if [ -s probes.txt ]; then
  "$NAMES" --name blk.nettrace.maps $(awk '{print $1}' probes.txt) > named.txt
  python3 - probes.txt named.txt <<'EOF' && pass "ELF names agree with nm ($(wc -l < probes.txt) functions)" || fail "ELF names against nm"
import sys
probes = [l.split() for l in open(sys.argv[1])]
named = dict(l.rstrip("\n").split(" ", 1) for l in open(sys.argv[2]))
bad = 0
for ip, base, names in probes:
    got = named.get(ip, "-")
    mod, _, fn = got.partition("!")
    if mod != base or fn not in names.split(","):
        bad += 1
        print("    %s: nm says %s!%s, perfpipe %s" % (ip, base, names, got))
mods = sorted({p[1] for p in probes})
print("  %d functions of %s checked, %d wrong" % (len(probes), ", ".join(mods), bad))
sys.exit(1 if bad or len(mods) < 2 else 0)
EOF
else
  fail "ELF names against nm: no probe addresses (no ELF modules in the map?)"
fi

# ---- a damaged sidecar is said, in the result
cp blk.nettrace bad.nettrace
printf '# perfpipe-maps/1 pid=1\nzz-yy r-xp 0 - /x\n' > bad.nettrace.maps
"$PERFPIPE" cpu bad.nettrace --format json -q > bad.json; rc=$?
check "damaged sidecar: cpu still exits 0" [ $rc = 0 ]
python3 - bad.json <<'EOF' && pass "damaged sidecar: a warning naming FILE:LINE:COLUMN in inputs[].warnings" || fail "damaged sidecar warning"
import json, sys
d = json.load(open(sys.argv[1]))
w = [x for i in d["inputs"] for x in i.get("warnings", [])]
assert any("bad.nettrace.maps:2:" in x and "left unnamed" in x for x in w), w
EOF

echo "native: $passed passed, $failed failed"
[ $failed = 0 ]
