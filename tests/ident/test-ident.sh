#!/usr/bin/env bash
# Issue #44 live: which build a trace measured. tests/ident/IdentApp is built twice (variant 1,
# and variant 2 whose Work() is changed), each into its own dir; then, with `perfpipe collect -p`
# (gc-verbose, 1 s each):
#   1. run A of build 1: inputs[].nettrace.modules names IdentApp with the PDB GUID the .pdb
#      itself holds (tests/ident/pdbid.py reads the portable PDB's #Pdb stream, not the .dll: an
#      oracle apart from perfpipe's PE reader), its age 1, its build path; the file matches;
#      no stale finding;
#   2. run B, the same process again: compare A -> B warns compare.same_build beside its
#      verdict (the verdict is still given: exit 0);
#   3. build 2 is copied over build 1's dir (the rebuild on disk) and the SAME process captured
#      again: input.stale_process, the file's GUID differs (file.same_build false);
#      run A read again now: input.rebuilt_since (information: the rebuild came after that trace);
#   4. a fresh process of build 2: compare A -> it has no same_build warning.
# The verify seam (pp_buildid_verify_deployed) is checked on these documents by
# tests/unit/check_buildid when run with IDENT_DOCS (this script passes them).
# Exit: 0 pass, 1 fail, 77 skip (no dotnet, no python3, PP_LIVE=0). About 20 s once built.
set -uo pipefail
if [ "${PP_LIVE:-1}" = 0 ]; then echo "SKIP: live capture (PP_LIVE=0)"; exit 77; fi
command -v dotnet >/dev/null 2>&1 || { echo "SKIP: no dotnet"; exit 77; }
PERFPIPE=${PERFPIPE:?}
SRC="$(cd "$(dirname "$0")" && pwd)"
. "$SRC/../lib/checks.sh"
export PP_BUILD_DIR="${PP_BUILD_DIR:-$HOME/.cache/perfpipe-build}"
unset PERFPIPE_BUILD_CHECK   # this test is about the files on this machine
APPS=()
trap 'for p in "${APPS[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT

build() { # variant dir
  flock /tmp/pp-dotnet-build.lock dotnet build "$SRC/IdentApp.csproj" -c Release -nologo -v q \
    -p:IdentVariant="$1" -o "$2" >"$tmp/build.log" 2>&1 ||
    { echo "FAIL: dotnet build of IdentApp variant $1"; tail -5 "$tmp/build.log"; exit 1; }
}
start() { # dir -> pid in $pid
  rm -f "$tmp/pid"
  dotnet "$1/IdentApp.dll" "$tmp/pid" 60 >/dev/null 2>&1 &
  APPS+=($!)
  for _ in $(seq 100); do [ -s "$tmp/pid" ] && break; sleep 0.1; done
  [ -s "$tmp/pid" ] || { echo "FAIL: IdentApp did not start"; exit 1; }
  pid=$(cat "$tmp/pid")
}
capture() { # pid name
  timeout 60 "$PERFPIPE" collect -p "$1" --profile gc-verbose --duration 1s -q -o "$tmp/$2.nettrace" ||
    { echo "FAIL: perfpipe collect -p $1"; exit 1; }
  "$PERFPIPE" run alloc --input trace="$tmp/$2.nettrace" --format json -o "$tmp/$2.json" ||
    { echo "FAIL: perfpipe run alloc on $2"; exit 1; }
}

build 1 "$tmp/b1"
build 2 "$tmp/b2"
g1=$(python3 "$SRC/pdbid.py" "$tmp/b1/IdentApp.pdb") && g2=$(python3 "$SRC/pdbid.py" "$tmp/b2/IdentApp.pdb") ||
  { echo "FAIL: cannot read the PDB ids"; exit 1; }
[ "$g1" != "$g2" ] || { echo "FAIL: the two variants built to one identity ($g1): the test proves nothing"; exit 1; }
cp -r "$tmp/b1" "$tmp/app"        # the deployed dir the running process loads
start "$tmp/app"
p1=$pid
capture "$p1" runA
check "run A: IdentApp's identity is build 1's, the file matches, not stale" "$tmp/runA.json" "$g1" "$tmp/app" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); g1, app = sys.argv[2], sys.argv[3]
inp = d['inputs'][0]
mods = inp['nettrace']['modules']
assert [m['name'] for m in mods] == ['IdentApp'], mods      # the framework's assemblies are not the app's
m = mods[0]
assert m['path'] == app + '/IdentApp.dll', m['path']
assert m['pdb_guid'] == g1 and m['pdb_age'] == 1, m
assert m['build_path'].endswith('IdentApp.pdb'), m
f = m['file']
assert f['exists'] and f['same_build'] and f['pdb_guid'] == g1 and not f['newer_than_trace_start'], f
codes = [x['code'] for x in inp.get('findings', [])]
assert 'input.stale_process' not in codes, codes
print(g1)
EOF
capture "$p1" runB
expect 0 "compare A -> B (same process, same build) gives its verdict" -- \
  "$PERFPIPE" compare "$tmp/runA.json" "$tmp/runB.json" --format json -o "$tmp/AB.json"
check "compare A -> B: compare.same_build beside the verdict" "$tmp/AB.json" "$g1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
w = [f for s in d['stages'] for f in s.get('findings', []) if f['code'] == 'compare.same_build']
assert w and w[0]['severity'] == 'warning', d['stages'][0].get('findings')
assert 'IdentApp (' + sys.argv[2] + '/1)' in w[0]['message'], w[0]['message']
assert d['compared']['verdict'] != 'cannot judge', d['compared']['verdict']
assert 'IdentApp' in d['compared']['same_build']
print(w[0]['message'][:120])
EOF
sleep 1.1   # the rebuild is written after the trace started, as a redeploy would be
# A new file renamed over the old (as a deploy does): writing into the mapped file would crash it.
for f in IdentApp.dll IdentApp.pdb; do cp "$tmp/b2/$f" "$tmp/app/$f.new" && mv "$tmp/app/$f.new" "$tmp/app/$f"; done
capture "$p1" runC
check "run C (same process after the rebuild on disk): stale, the file is build 2" "$tmp/runC.json" "$g1" "$g2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); g1, g2 = sys.argv[2], sys.argv[3]
inp = d['inputs'][0]
m = inp['nettrace']['modules'][0]
assert m['pdb_guid'] == g1, m                               # what the process runs
assert m['file']['pdb_guid'] == g2 and m['file']['same_build'] is False, m['file']
st = [f for f in inp.get('findings', []) if f['code'] == 'input.stale_process']
assert st and st[0]['severity'] == 'warning', inp.get('findings')
assert 'IdentApp' in st[0]['message'] and 'Restart the process' in st[0]['message'], st[0]['message']
print(st[0]['message'][:160])
EOF
"$PERFPIPE" run alloc --input trace="$tmp/runA.nettrace" --format json -o "$tmp/runA2.json" 2>/dev/null ||
  { echo "FAIL: perfpipe run alloc on runA again"; exit 1; }
check "run A read again after the rebuild: rebuilt since (information), not a stale process" "$tmp/runA2.json" <<'EOF'
import json, sys
inp = json.load(open(sys.argv[1]))['inputs'][0]
codes = {f['code']: f['severity'] for f in inp.get('findings', [])}
assert codes.get('input.rebuilt_since') == 'info' and 'input.stale_process' not in codes, codes
assert inp['nettrace']['modules'][0]['file']['same_build'] is False
EOF
start "$tmp/b2"
capture "$pid" runD
expect 0 "compare A -> D (build 1 -> build 2)" -- \
  "$PERFPIPE" compare "$tmp/runA.json" "$tmp/runD.json" --format json -o "$tmp/AD.json"
check "compare A -> D: no same_build warning" "$tmp/AD.json" "$g2" "$tmp/runD.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
codes = [f['code'] for s in d['stages'] for f in s.get('findings', [])]
assert 'compare.same_build' not in codes, codes
assert 'same_build' not in d['compared']
D = json.load(open(sys.argv[3]))
assert D['inputs'][0]['nettrace']['modules'][0]['pdb_guid'] == sys.argv[2]
EOF
if [ -x "${PP_BUILDDIR:-}/tests/unit/check_buildid" ]; then
  expect 0 "verify seam on the live documents: A->B cannot judge, A->D judged, --config-only judged" -- \
    env IDENT_SAME_A="$tmp/runA.json" IDENT_SAME_B="$tmp/runB.json" IDENT_OTHER="$tmp/runD.json" \
    "$PP_BUILDDIR/tests/unit/check_buildid"
fi
finish "ident: "
