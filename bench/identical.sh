#!/usr/bin/env bash
# identical.sh: the results of two perfpipe builds, byte for byte, on every trace given.
#
#   bench/identical.sh OLD_BUILD NEW_BUILD TRACE...
#
# OLD_BUILD and NEW_BUILD are build directories (perfpipe and plugins/.libs inside). For each
# trace, runs inspect, alloc and cpu (json, plus alloc/cpu with options that change which rows
# are emitted and how: top=0, top-stacks=7 and 0, focus, fold-generated=false, the table, folded and
# speedscope formats), and `cmp`s the two outputs. The input path is the same for both, so the
# documents must be identical. Prints one line per difference and exits 1 if there was one.
# Run it after any change to the reader, the engine or an analyzer's aggregation (bench/README.md).
set -uo pipefail
[ $# -ge 3 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
OLD=$1 NEW=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
runs=(
  "inspect --format json"
  "alloc --format json"
  "alloc --format json --option top=0 --option top-stacks=7"
  "alloc --format json --option top-stacks=0"
  "alloc --format json --option focus=Bench. --option fold-generated=false"
  "alloc"
  "alloc --format folded"
  "cpu --format json"
  "cpu --format speedscope"
)
diffs=0 n=0
for t in "$@"; do
  for r in "${runs[@]}"; do
    read -r -a argv <<< "$r"
    PERFPIPE_PLUGIN_PATH="$OLD/plugins/.libs" "$OLD/perfpipe" "${argv[0]}" "$t" "${argv[@]:1}" > "$tmp/old" 2> "$tmp/old.err"; a=$?
    PERFPIPE_PLUGIN_PATH="$NEW/plugins/.libs" "$NEW/perfpipe" "${argv[0]}" "$t" "${argv[@]:1}" > "$tmp/new" 2> "$tmp/new.err"; b=$?
    n=$((n + 1))
    if [ $a != $b ] || ! cmp -s "$tmp/old" "$tmp/new" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
      echo "DIFFERS: $r $t (exit $a vs $b)"; diffs=$((diffs + 1))
    fi
  done
done
echo "$n runs, $diffs differ"
[ $diffs = 0 ]
