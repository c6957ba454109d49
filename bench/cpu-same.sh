#!/usr/bin/env bash
# cpu-same.sh: the cpu analyzer's results of two builds, byte for byte.
#
#   bench/cpu-same.sh BASE_BUILD NEW_BUILD [TRACE...]
#
# BASE_BUILD and NEW_BUILD are build directories (each with ./perfpipe and
# plugins/.libs). Without TRACE arguments: every tests/data and corpus
# nettrace, plus the bench traces cpu-deep-{s,m,l} in $PP_BENCH_DIR (default
# ~/.cache/perfpipe-bench) that exist. For each trace the two builds run the
# same commands, and the outputs are compared with cmp:
#   cpu --format json                    (the whole document: every table)
#   cpu --format json with view=managed, top=0, top-stacks=7, focus on the
#       hottest method, a window         (traces under 50 MB)
#   cpu --format folded / speedscope     (traces under 50 MB)
# Not the table format: the quick path's table holds fewer stacks since
# cli/quick_options.c (by design; see bench/RESULTS.md).
# The tool version and input paths are the same in both, so the documents
# must be identical. Exit 1 on the first difference (the files are kept in
# $OUT), 0 when all agree. Used as the "before/after" proof of a change that
# must not move a byte (issue 22).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
[ $# -ge 2 ] || { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
BASE=$1 NEW=$2; shift 2
PP_BENCH_DIR="${PP_BENCH_DIR:-$HOME/.cache/perfpipe-bench}"
OUT="${OUT:-$(mktemp -d /tmp/cpu-same.XXXXXX)}"
traces=("$@")
if [ ${#traces[@]} = 0 ]; then
  traces=("$REPO"/tests/data/*.nettrace "$REPO"/tests/data/*.nettrace.zst /work/shared/corpus/*.nettrace)
  for s in s m l; do [ -s "$PP_BENCH_DIR/cpu-deep-$s.nettrace" ] && traces+=("$PP_BENCH_DIR/cpu-deep-$s.nettrace"); done
fi
run() {   # run BUILD OUTFILE ARGS...
  local b=$1 o=$2; shift 2
  PERFPIPE_PLUGIN_PATH="$b/plugins/.libs" nice -n 10 "$b/perfpipe" cpu "$@" > "$o" 2> "$o.err" || echo "exit $?" >> "$o"
}
n=0 bad=0
for t in "${traces[@]}"; do
  [ -s "$t" ] || continue
  variants=("--format json")
  if [ "$(stat -c %s "$t")" -lt 50000000 ]; then
    hot=$(PERFPIPE_PLUGIN_PATH="$BASE/plugins/.libs" "$BASE/perfpipe" cpu --format json "$t" 2>/dev/null |
          python3 -c 'import json,sys
d=json.load(sys.stdin)
for s in d["stages"]:
  for t in s.get("tables",[]):
    if t["name"]=="by_method" and t["rows"]: print(t["rows"][0][0].split(".")[-1]); sys.exit()' || true)
    variants+=("--format json --option view=managed" "--format json --option top=0"
               "--format json --option top-stacks=7" "--format json --from 100 --to 900"
               "--format folded" "--format speedscope")
    [ -z "$hot" ] || variants+=("--format json --option focus=$hot")
  fi
  for v in "${variants[@]}"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    run "$BASE" "$OUT/$n.base" $v "$t"
    # shellcheck disable=SC2086
    run "$NEW" "$OUT/$n.new" $v "$t"
    if cmp -s "$OUT/$n.base" "$OUT/$n.new"; then
      printf 'same  %-60s %s (%s bytes)\n' "$(basename "$t")" "$v" "$(stat -c %s "$OUT/$n.new")"
      rm -f "$OUT/$n.base" "$OUT/$n.new" "$OUT/$n.base.err" "$OUT/$n.new.err"
    else
      printf 'DIFF  %-60s %s: %s %s\n' "$(basename "$t")" "$v" "$OUT/$n.base" "$OUT/$n.new"
      bad=1
    fi
  done
done
[ $bad = 0 ] && echo "cpu-same: all $n outputs identical" || { echo "cpu-same: differences kept in $OUT"; exit 1; }
