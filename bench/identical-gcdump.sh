#!/usr/bin/env bash
# identical-gcdump.sh: the heap analyzers of two perfpipe builds, byte for byte.
#
#   bench/identical-gcdump.sh OLD_BUILD NEW_BUILD GCDUMP...
#
# OLD_BUILD and NEW_BUILD are build directories (perfpipe and plugins/.libs inside). For each
# .gcdump: gcdump with retained on and off, top=0, merged size buckets, the table and json
# formats, `inspect`; for each consecutive pair (A B): gcdump-diff both ways, top=0 and paths=50.
# Outputs, stderr and exit status are `cmp`ed; one line per difference, exit 1 if there was one.
# Run it after any change to core/gcdump or plugins/gcdump*, on tests/data and the bench heaps.
set -uo pipefail
[ $# -ge 3 ] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
OLD=$1 NEW=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
diffs=0 n=0
one() {
  # inspect has no stages (and no --stage-timeout): it used to stop at the usage error.
  local limit=(--stage-timeout 600)
  [ "$1" = inspect ] && limit=()
  PERFPIPE_PLUGIN_PATH="$OLD/plugins/.libs" "$OLD/perfpipe" "$@" "${limit[@]}" > "$tmp/old" 2> "$tmp/old.err"; a=$?
  PERFPIPE_PLUGIN_PATH="$NEW/plugins/.libs" "$NEW/perfpipe" "$@" "${limit[@]}" > "$tmp/new" 2> "$tmp/new.err"; b=$?
  n=$((n + 1))
  if [ $a != $b ] || ! cmp -s "$tmp/old" "$tmp/new" || ! cmp -s "$tmp/old.err" "$tmp/new.err"; then
    echo "DIFFERS: $* (exit $a vs $b)"; diffs=$((diffs + 1))
  fi
}
prev=
for f in "$@"; do
  one inspect "$f" --format json
  for o in "retained=true" "retained=false" "retained=true --option top=0" \
           "retained=true --option merge_size_buckets=true --option top=0"; do
    read -r -a extra <<< "--option $o"
    one gcdump "$f" --format json "${extra[@]}"
  done
  one gcdump "$f" --option retained=true
  if [ -n "$prev" ]; then
    one gcdump-diff "$prev" "$f" --format json
    one gcdump-diff "$f" "$prev" --format json
    one gcdump-diff "$prev" "$f" --format json --option top=0 --option paths=50
    one gcdump-diff "$prev" "$f"
  fi
  prev=$f
done
echo "$n runs, $diffs differ"
[ $diffs = 0 ]
