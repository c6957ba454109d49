#!/usr/bin/env bash
# perfpipe gcdump (retained sizes on: dominator tree, retained bytes per type, a path to the root
# per top type; and off: what the report computes) against `dotnet-gcdump report` (the GCHeapDump
# reader plus a count/size histogram by type: no dominators, no retained sizes, no paths),
# interleaved, on the heaps of bench/gen-gcdump.sh; then perfpipe gcdump-diff of the two heaps.
#
#   bench/bench-gcdump.sh [--runs N]          (default 3; markdown rows on stdout)
#
# Env: PERFPIPE (default _build/perfpipe), PP_BENCH_BEFORE=PERFPIPE_BINARY adds an older build as
# a third, interleaved tool; PP_BENCH_DIR (default /tmp/perfpipe-bench) holds heap-base.gcdump and
# heap-grown.gcdump. Wall = elapsed; CPU = user + sys (perfpipe's gcdump uses a second thread for
# the paths' search and the file hash, for halves of the dominator pass and of the
# retained sizes' walk, and for jobs beside its serial steps, so its CPU exceeds its wall
# time); peak RSS from
# /usr/bin/time (the largest process: perfpipe runs its stages in one child). Output goes to /dev/null for every tool (dotnet-gcdump report
# prints to stdout; perfpipe writes its JSON document).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../tests/capture/env.sh"
RUNS=3
while [ $# -gt 0 ]; do
  case $1 in
    --runs) RUNS=$2; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
PERFPIPE=${PERFPIPE:-$HERE/../_build/perfpipe}
DIR=${PP_BENCH_DIR:-/tmp/perfpipe-bench}
BASE=$DIR/heap-base.gcdump GROWN=$DIR/heap-grown.gcdump
[ -x "$PERFPIPE" ] || { echo "PERFPIPE ($PERFPIPE) is not executable" >&2; exit 2; }
[ -f "$BASE" ] && [ -f "$GROWN" ] || { echo "no $BASE / $GROWN: run bench/gen-gcdump.sh first" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
pp_install_tool dotnet-gcdump >/dev/null
TMP=$(mktemp -d /tmp/pp-bench-gcdump.XXXXXX); trap 'rm -rf "$TMP"' EXIT

nodes=$("$PERFPIPE" gcdump "$BASE" --option retained=false --format json -q |
        python3 -c 'import json,sys; g=json.load(sys.stdin)["inputs"][0]["gcdump"]; print(g["nodes"], g["edges"])')
echo "heap-base.gcdump: $(stat -c %s "$BASE") bytes, nodes edges = $nodes; load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# one LABEL ARGS...: "label wall_s cpu_s rss_mb" on stdout
one() {
  local label=$1; shift
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/t" "$@" >/dev/null 2>"$TMP/err" ||
    { echo "$label failed:" >&2; cat "$TMP/err" >&2; exit 1; }
  read -r e u s m < "$TMP/t"
  python3 -c "import sys; print(sys.argv[1], sys.argv[2], f'{float(sys.argv[3]) + float(sys.argv[4]):.2f}', f'{int(sys.argv[5]) / 1024:.0f}')" "$label" "$e" "$u" "$s" "$m"
}
tools=(perfpipe perfpipe-noret dotnet-gcdump-report)
[ -n "${PP_BENCH_BEFORE:-}" ] && tools+=(before before-noret)
run_tool() {
  case $1 in
    perfpipe) one "perfpipe gcdump (retained)" "$PERFPIPE" gcdump "$BASE" --option retained=true --stage-timeout 600 --format json -o "$TMP/pp.json" -q ;;
    before) one "before gcdump (retained)" "$PP_BENCH_BEFORE" gcdump "$BASE" --option retained=true --stage-timeout 600 --format json -o "$TMP/before.json" -q ;;
    perfpipe-noret) one "perfpipe gcdump (retained=false)" "$PERFPIPE" gcdump "$BASE" --option retained=false --stage-timeout 600 --format json -o "$TMP/ppn.json" -q ;;
    before-noret) one "before gcdump (retained=false)" "$PP_BENCH_BEFORE" gcdump "$BASE" --option retained=false --stage-timeout 600 --format json -o "$TMP/beforen.json" -q ;;
    dotnet-gcdump-report) one "dotnet-gcdump report" "$PP_GCDUMP" report "$BASE" ;;
    diff) one "perfpipe gcdump-diff" "$PERFPIPE" gcdump-diff "$BASE" "$GROWN" --stage-timeout 600 --format json -o "$TMP/diff.json" -q ;;
    diff-before) one "before gcdump-diff" "$PP_BENCH_BEFORE" gcdump-diff "$BASE" "$GROWN" --stage-timeout 600 --format json -o "$TMP/diffb.json" -q ;;
  esac
}
for r in $(seq "$RUNS"); do
  order=("${tools[@]}")
  [ $((r % 2)) = 0 ] && order=($(printf '%s\n' "${tools[@]}" | tac))
  for t in "${order[@]}"; do echo "$r $(run_tool "$t")"; done
  echo "$r $(run_tool diff)"
  [ -n "${PP_BENCH_BEFORE:-}" ] && echo "$r $(run_tool diff-before)"
done > "$TMP/rows"
echo "load after the rounds: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
[ -n "${PP_BENCH_BEFORE:-}" ] && { cmp "$TMP/pp.json" "$TMP/before.json" >/dev/null && cmp "$TMP/ppn.json" "$TMP/beforen.json" >/dev/null &&
  cmp "$TMP/diff.json" "$TMP/diffb.json" >/dev/null &&
  echo "before and after: identical JSON (cmp)" >&2 || echo "before and after: JSON DIFFERS" >&2; }
python3 - "$TMP/rows" ${nodes%% *} <<'PY'
import sys, collections
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
nodes = int(sys.argv[2])
# peak RSS per object of heap-base (gcdump-diff reads both heaps: per base object too)
print("| round | tool | wall s | CPU s | peak RSS MB | peak RSS B / object |")
print("|---:|---|---:|---:|---:|---:|")
by = collections.defaultdict(list)
for f in rows:
    tool = " ".join(f[1:-3]); by[tool].append((float(f[-3]), float(f[-2]), int(f[-1])))
    print(f"| {f[0]} | {tool} | {f[-3]} | {f[-2]} | {f[-1]} | {int(f[-1]) * 1048576 / nodes:.1f} |")
for k, v in by.items():
    w = sorted(x[0] for x in v); c = sorted(x[1] for x in v)
    print(f"{k}: median wall {w[len(w) // 2]:.2f} s (range {w[0]:.2f}-{w[-1]:.2f}), "
          f"median CPU {c[len(c) // 2]:.2f} s (range {c[0]:.2f}-{c[-1]:.2f}), "
          f"max RSS {max(x[2] for x in v)} MB", file=sys.stderr)
one, diff = by.get("perfpipe gcdump (retained)"), by.get("perfpipe gcdump-diff")
if one and diff:
    print(f"\ngcdump-diff peak RSS / gcdump (retained) peak RSS: "
          f"{max(x[2] for x in diff) / max(x[2] for x in one):.2f} (max over rounds)")
PY
