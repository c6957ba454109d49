#!/bin/bash
# Install into a DESTDIR, build the example plugin there against the
# installed headers with pkg-config (as a third party would), and check the
# installed perfpipe loads it, and lists an ABI-2 plugin as refused naming
# both versions.
set -u
BUILDDIR=${PP_BUILDDIR:?}
SRC=${PP_SRCDIR:?}
ABI_MINOR=$(awk '$2=="PP_ABI_MINOR"{print $3}' "$SRC/include/perfpipe/plugin.h")
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
command -v "${CC:-cc}" >/dev/null || { echo "SKIP: no C compiler"; exit 77; }

dest=$tmp/root
if ${MAKE:-make} -s -C "$BUILDDIR" install DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
  ok "make install DESTDIR"
else
  bad "make install DESTDIR"; tail -20 "$tmp/install.log"; echo "$pass passed, $fail failed"; exit 1
fi
pcdir=$(dirname "$(find "$dest" -name perfpipe-plugin.pc | head -1)")
export PKG_CONFIG_PATH=$pcdir PKG_CONFIG_SYSROOT_DIR=$dest
perfpipe=$(find "$dest" -type f -name perfpipe -perm -u+x | head -1)
plugindir=$dest$(PKG_CONFIG_SYSROOT_DIR= pkg-config --variable=plugindir perfpipe-plugin)
[ -x "$perfpipe" ] && ok "perfpipe installed" || bad "no installed perfpipe"
[ -f "$plugindir/alloc.so" ] && ok "analyzers installed in the versioned plugindir ($plugindir)" ||
  bad "alloc.so not in $plugindir"
[ -f "$(dirname "$pcdir")/../include/perfpipe/plugin.h" ] || [ -n "$(find "$dest" -path '*include/perfpipe/plugin.h')" ] &&
  ok "public headers installed" || bad "plugin.h not installed"
[ -n "$(find "$dest" -path '*perfpipe/pipelines/alloc.yaml')" ] && ok "shipped pipelines installed" ||
  bad "pipelines not installed"

# The layout a distro expects: shipped pipelines under the data dir (not
# /etc, the administrator's), docs, completion for bash and zsh.
[ -n "$(find "$dest" -path '*/share/perfpipe/pipelines/alloc.yaml')" ] &&
  ok "shipped pipelines in \$(pkgdatadir)/pipelines" || bad "no share/perfpipe/pipelines/alloc.yaml"
[ -z "$(find "$dest" -path '*/etc/*' -type f)" ] && ok "nothing installed under sysconfdir (the administrator's)" ||
  bad "files under etc: $(find "$dest" -path '*/etc/*' -type f | head -3)"
[ -n "$(find "$dest" -path '*/share/doc/perfpipe/README.md')" ] && ok "README installed as doc" || bad "no doc/perfpipe/README.md"
[ -n "$(find "$dest" -path '*/share/doc/perfpipe/examples/count-events/count-events.c')" ] &&
  ok "examples installed as doc" || bad "no doc/perfpipe/examples/count-events"
[ -n "$(find "$dest" -path '*/bash-completion/completions/perfpipe')" ] && ok "bash completion installed" ||
  bad "no bash-completion/completions/perfpipe"
[ -n "$(find "$dest" -name _perfpipe -path '*/zsh/*')" ] && ok "zsh completion installed" || bad "no zsh _perfpipe"
[ -z "$(find "$dest" -name .perfpipe-build-tree)" ] && ok "no build-tree marker installed" || bad "marker installed"

# A static link through pkg-config: the whole of libperfpipe (the objects the
# shared library is made of, from the build's convenience archive) linked
# into a program with only what `pkg-config --static --libs perfpipe` adds.
# It fails when perfpipe.pc's Requires.private/Libs.private miss a library.
mkdir -p "$tmp/static"
cp "$BUILDDIR/core/.libs/libppcore.a" "$tmp/static/libperfpipe.a"
cat >"$tmp/use-static.c" <<'C'
#include <stdio.h>
#include <perfpipe/perfpipe.h>
int main(void) { printf("libperfpipe %s\n", pp_version()); return 0; }
C
# A sanitizer build's objects need its runtime, which no .pc names.
san=
nm "$tmp/static/libperfpipe.a" 2>/dev/null | grep -q ' U __asan_' && san="$san -fsanitize=address"
nm "$tmp/static/libperfpipe.a" 2>/dev/null | grep -q ' U __ubsan_' && san="$san -fsanitize=undefined"
if ${CC:-cc} -std=c11 $san $(pkg-config --cflags perfpipe) -o "$tmp/use-static" "$tmp/use-static.c" \
     -L"$tmp/static" -Wl,--whole-archive -lperfpipe -Wl,--no-whole-archive \
     $(pkg-config --static --libs perfpipe) >"$tmp/static.log" 2>&1 && "$tmp/use-static" | grep -q '^libperfpipe '; then
  ok "static link with pkg-config --static --libs perfpipe ($(pkg-config --static --libs-only-l perfpipe | xargs))"
else
  bad "static link through perfpipe.pc"; head -8 "$tmp/static.log"
fi
pkg-config --print-requires-private perfpipe | grep -q '^yaml-0.1' && ok "perfpipe.pc: Requires.private lists yaml-0.1" ||
  bad "perfpipe.pc has no Requires.private"

# The third party's build: a copy of the example, outside any perfpipe tree.
cp -r "$SRC/examples/count-events" "$tmp/ext"
chmod -R u+w "$tmp/ext"
if make -s -C "$tmp/ext" CFLAGS="-O2 -Werror" >"$tmp/ext.log" 2>&1; then
  ok "example plugin builds against installed headers"
else
  bad "example plugin build"; cat "$tmp/ext.log"
fi
make -s -C "$tmp/ext" install PLUGINDIR="$plugindir" >/dev/null 2>&1 && ok "example installed into plugindir" ||
  bad "example install"

# An ABI-2 plugin beside it: listed, refused, both versions named.
sed 's/PP_ANALYZER_HEADER,/.struct_size = sizeof(pp_analyzer), .abi_major = 2, .abi_minor = 0,/; s/"count-events"/"future-abi"/' \
  "$tmp/ext/count-events.c" >"$tmp/ext/future-abi.c"
cc -std=c11 $(pkg-config --cflags perfpipe-plugin) -fPIC -shared -o "$plugindir/future-abi.so" "$tmp/ext/future-abi.c" &&
  ok "ABI-2 plugin built" || bad "ABI-2 plugin build"

# The installed perfpipe only knows its configured plugindir, which lives
# under DESTDIR here: point it there as a packager's test would.
unset PERFPIPE_PLUGIN_PATH
"$perfpipe" plugins --plugin-dir "$plugindir" >"$tmp/plugins.txt" 2>&1
grep -q '^count-events *1.0.0' "$tmp/plugins.txt" && ok "perfpipe plugins lists count-events" ||
  { bad "count-events not listed"; cat "$tmp/plugins.txt"; }
grep -q "future-abi .*plugin ABI 2.0, host ABI 1.$ABI_MINOR" "$tmp/plugins.txt" &&
  ok "ABI-2 plugin listed as refused, both versions named" || { bad "ABI-2 refusal"; cat "$tmp/plugins.txt"; }

"$perfpipe" count-events "$DATA/cpu-sampled.nettrace" --plugin-dir "$plugindir" --format json \
  -o "$tmp/count.json" 2>"$tmp/count.err" && ok "installed perfpipe runs the example" ||
  { bad "running the example"; cat "$tmp/count.err"; }
grep -q '"Microsoft-DotNETCore-SampleProfiler"' "$tmp/count.json" 2>/dev/null &&
  ok "example counts the sample profiler's events" || bad "no SampleProfiler row"

# An analyzer that describes its table (ABI 1.5), built the same way: its
# declaration reaches the result document, a user rule file naming its
# columns is valid and matches its rows, its rows are ranked candidates and
# compare gates its results, with no edit to perfpipe.
cp -r "$SRC/examples/hot-methods" "$tmp/hot"
chmod -R u+w "$tmp/hot"
if make -s -C "$tmp/hot" CFLAGS="-O2 -Werror" >"$tmp/hot.log" 2>&1 &&
   make -s -C "$tmp/hot" install PLUGINDIR="$plugindir" >>"$tmp/hot.log" 2>&1; then
  ok "hot-methods builds against the installed headers and installs"
else
  bad "hot-methods build"; cat "$tmp/hot.log"
fi
mkdir -p "$tmp/home/.config/perfpipe/rules"
sed -n '/^version: 1$/,/^```$/p' "$SRC/examples/hot-methods/README.md" | sed '$d' \
  >"$tmp/home/.config/perfpipe/rules/hot.yaml"
HOME=$tmp/home PERFPIPE_PLUGIN_PATH=$plugindir env -u XDG_CONFIG_HOME -u PERFPIPE_RULES_PATH \
  "$perfpipe" rules validate "$tmp/home/.config/perfpipe/rules/hot.yaml" >"$tmp/rv.out" 2>&1 &&
  ok "the README's rule on hot-methods/hot is valid against its declaration" ||
  { bad "rules validate hot.yaml"; cat "$tmp/rv.out"; }
sed 's/ms: { min: 100 }/msec: { min: 100 }/' "$tmp/home/.config/perfpipe/rules/hot.yaml" >"$tmp/typo.yaml"
HOME=$tmp/home PERFPIPE_PLUGIN_PATH=$plugindir env -u XDG_CONFIG_HOME -u PERFPIPE_RULES_PATH \
  "$perfpipe" rules validate "$tmp/typo.yaml" \
  >/dev/null 2>"$tmp/rv.err"
grep -q "unknown column 'msec' of hot-methods/hot; expected one of: method, samples, ms" "$tmp/rv.err" &&
  ok "a rule naming a column hot-methods does not declare is refused" ||
  { bad "typo rule"; cat "$tmp/rv.err"; }
HOME=$tmp/home env -u XDG_CONFIG_HOME -u PERFPIPE_RULES_PATH "$perfpipe" hot-methods "$DATA/cpu-sampled.nettrace" --plugin-dir "$plugindir" \
  --format json -o "$tmp/hot.json" 2>"$tmp/hot.err" && ok "installed perfpipe runs hot-methods" ||
  { bad "running hot-methods"; cat "$tmp/hot.err"; }
if python3 - "$tmp/hot.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
st = d["stages"][0]
t = st["tables"][0]
assert t["name"] == "hot", t["name"]
assert t["decl"] == {"subject": "method", "key": ["method"],
                     "figures": {"ms": {"unit": "ms", "axis": "time"},
                                 "samples": {"unit": "samples", "axis": "time"}},
                     "candidate": {"cost": "ms"}}, t["decl"]
# The workload's hot loop (tests/workload CpuScenario) is on top of its
# thread's stack; threads blocked in waits have the wait on top.
hot = [r for r in t["rows"] if r[0] == "Workload.CpuScenario.HotA"]
assert hot and hot[0][2] >= 100, t["rows"][:5]
f = [x for x in st["findings"] if x["code"] == "rule.team.hot-loop"]
assert f and f[0]["severity"] == "warning" and "Workload.CpuScenario.Hot" in f[0]["message"], st["findings"]
print("HotA: %d samples; finding: %s" % (hot[0][1], f[0]["message"]))
PY
  ok "hot-methods' declaration is in the result and the user rule matched its rows"
else
  bad "hot-methods' declaration or rule"
fi
# Candidates from its declaration alone: its subject rows, ranked by their
# time figure per unit of work (the capture's seconds: no Hosting events).
"$perfpipe" candidates "$tmp/hot.json" --no-rules --format json -o "$tmp/hot-cand.json" 2>"$tmp/hot-cand.err" &&
python3 - "$tmp/hot.json" "$tmp/hot-cand.json" <<'PY' && ok "hot-methods gets ranked candidates: its methods by ms per second of capture" ||
import json, sys
res, cand = (json.load(open(f)) for f in sys.argv[1:3])
secs = res["work"]["seconds"]
hot = {r[0]: r[2] for r in res["stages"][0]["tables"][0]["rows"]}
t = [x for x in cand["stages"][0]["tables"] if x["name"] == "candidates"][0]
cols = [c["name"] for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
assert res["work"]["unit"] == "second" and secs > 0, res["work"]
assert len(rows) == min(10, len(hot)), len(rows)
costs = [r["cost"] for r in rows]
assert costs == sorted(costs, reverse=True), costs
for r in rows:
    assert r["axis"] == "time" and r["cost_unit"].startswith("ms per second"), r
    assert abs(r["cost"] - hot[r["target"]] / secs) < 0.01, (r["target"], r["cost"], hot[r["target"]])
    assert "table hot" in r["evidence"], r["evidence"]
a = [r for r in rows if r["target"] == "Workload.CpuScenario.HotA"]
assert a and a[0]["cost"] > 50, rows
PY
  { bad "hot-methods candidates"; cat "$tmp/hot-cand.err"; }
# A compare gate on its results: equal ones pass; the same capture with one
# row grown threefold (a derived document: the rate test needs no second
# capture) fails --fail-on regression, one grown by 5 samples (noise) not.
python3 - "$tmp/hot.json" "$tmp/hot-grown.json" "$tmp/hot-noise.json" <<'PY'
import json, sys
for out, grow in ((sys.argv[2], lambda n: 3 * n), (sys.argv[3], lambda n: n + 5)):
    d = json.load(open(sys.argv[1]))
    for r in d["stages"][0]["tables"][0]["rows"]:
        if r[0] == "Workload.CpuScenario.HotA":
            r[1], r[2] = grow(r[1]), float(grow(r[1]))
    json.dump(d, open(out, "w"))
PY
"$perfpipe" compare "$tmp/hot.json" "$tmp/hot.json" --fail-on regression >"$tmp/cmp-eq.out" 2>&1 &&
  ok "compare: two equal hot-methods results exit 0" || { bad "compare equal hot-methods"; head -5 "$tmp/cmp-eq.out"; }
"$perfpipe" compare "$tmp/hot.json" "$tmp/hot-noise.json" --fail-on regression >"$tmp/cmp-noise.out" 2>&1 &&
  ok "compare: a hot-methods row grown within noise exits 0" || { bad "compare noise"; head -5 "$tmp/cmp-noise.out"; }
"$perfpipe" compare "$tmp/hot.json" "$tmp/hot-grown.json" --fail-on regression >"$tmp/cmp-grown.out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "^REGRESSED.*hot-methods hot 'Workload.CpuScenario.HotA'" "$tmp/cmp-grown.out" &&
  ok "compare --fail-on regression: a hot-methods row grown past noise exits 1, the row named" ||
  { bad "compare grown hot-methods: exit $rc"; head -5 "$tmp/cmp-grown.out"; }
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
