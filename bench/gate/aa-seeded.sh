#!/usr/bin/env bash
# The compare gate measured (issue #34): how often two captures of the same code are judged
# "no change" (A/A), and how often a seeded +25 % on one method's work is judged "regressed".
#   aa-seeded.sh [--pairs N] [--out DIR]       (default 20 pairs; needs dotnet, see tests/capture/env.sh)
# Each pair captures the workload's `alloc` scenario three times under dotnet-trace --profile
# gc-verbose: A and A' with --mb-strings 100, B with --mb-strings 125 (MakeStrings allocates 25 %
# more; MakeBuffers and the list unchanged), all --mb-buffers 50 --list-items 100000. Then
#   perfpipe compare A A' --per run --fail-on regression   -> expected exit 0, "no change"
#   perfpipe compare A B  --per run --fail-on regression   -> expected exit 1, MakeStrings grew
# (--per run: the scenario does fixed work per run, so the run is the unit of work.) It prints
# one line per pair and the two rates; record them in README.md with the date and the machine.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
PAIRS=20 OUT=${TMPDIR:-/tmp}/pp-gate-bench
while [ $# -gt 0 ]; do
  case $1 in
    --pairs) PAIRS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "aa-seeded.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
PERFPIPE=${PERFPIPE:-$(command -v perfpipe || true)}
[ -x "$PERFPIPE" ] || { echo "aa-seeded.sh: set PERFPIPE to a built perfpipe" >&2; exit 2; }
. "$SRC/tests/capture/env.sh"
[ -f "$PP_WORKLOAD_DLL" ] || { pp_install_tools; flock /tmp/pp-dotnet-build.lock bash -c ". '$SRC/tests/capture/env.sh'; pp_build"; }
mkdir -p "$OUT"
KNOBS="--mb-buffers 50 --list-items 100000"
capture() { # name mb-strings
  "$PP_TRACE" collect --profile gc-verbose -o "$OUT/$1.nettrace" -- \
    dotnet "$PP_WORKLOAD_DLL" alloc --mb-strings "$2" $KNOBS >/dev/null 2>&1
  "$PERFPIPE" alloc "$OUT/$1.nettrace" --format json -o "$OUT/$1.json"
}
aa_ok=0 seed_ok=0
for i in $(seq 1 "$PAIRS"); do
  capture "a$i" 100; capture "a2$i" 100; capture "b$i" 125
  set +e
  "$PERFPIPE" compare "$OUT/a$i.json" "$OUT/a2$i.json" --per run --fail-on regression --format json -o "$OUT/aa$i.json" 2>/dev/null
  aa=$?
  "$PERFPIPE" compare "$OUT/a$i.json" "$OUT/b$i.json" --per run --fail-on regression --format json -o "$OUT/ab$i.json" 2>/dev/null
  ab=$?
  set -e
  grew=$(python3 - "$OUT/ab$i.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(int(any("MakeStrings" in x and "regressed" in x for x in d["verdict"]["decided_by"])))
PY
)
  [ "$aa" = 0 ] && aa_ok=$((aa_ok + 1))
  [ "$ab" = 1 ] && [ "$grew" = 1 ] && seed_ok=$((seed_ok + 1))
  printf 'pair %2d: A/A exit %d (%s); +25%% exit %d, MakeStrings named %d\n' "$i" "$aa" \
    "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["overall"])' "$OUT/aa$i.json")" "$ab" "$grew"
  rm -f "$OUT"/a"$i".nettrace "$OUT"/a2"$i".nettrace "$OUT"/b"$i".nettrace
done
echo "A/A no change: $aa_ok/$PAIRS; seeded +25% found: $seed_ok/$PAIRS"
