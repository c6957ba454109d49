#!/bin/bash
# `perfpipe inspect --jobs N` reads a V4/V5 trace as regions between
# sequence points on N threads; its document (and stderr, and exit code)
# must be the serial one byte for byte (jobs-lib.sh: how splits are forced
# and told apart).
set -u
run_jobs() { "$PERFPIPE" inspect --format json --jobs "$1" "$2"; }
. "${PP_SRCDIR:?}/tests/nettrace/jobs-lib.sh"

every_trace
point_per_block
after_drop() {
  local d; d=$(q "$tmp/s.json" 'd["stages"][0]["totals"]["dropped_events"]["value"]')
  if [ "${d:-0}" -gt 0 ]; then ok "the missing block shows as $d dropped events"; else ko "no dropped events: $d"; fi
}
t=$UNPACKED/web-sampled-db.nettrace
damaged "$t"

# --jobs is checked; PERFPIPE_JOBS is the default.
"$PERFPIPE" inspect --jobs 0 "$t" >/dev/null 2>"$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "jobs" "$tmp/e" && ok "--jobs 0: usage error" || ko "--jobs 0: exit $rc"
: >"$log"
PERFPIPE_JOBS=2 PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log "$PERFPIPE" inspect "$t" >/dev/null
grep -q folded "$log" && ok "PERFPIPE_JOBS=2: split" || ko "PERFPIPE_JOBS=2: not split"
: >"$log"
PERFPIPE_JOBS=2 PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log "$PERFPIPE" inspect --jobs 1 "$t" >/dev/null
[ ! -s "$log" ] && ok "--jobs 1 wins over PERFPIPE_JOBS: serial" || ko "--jobs 1 split"
: >"$log"
"$PERFPIPE" inspect --format json --jobs 1 "$t" >"$tmp/s.json"
cat "$t" | PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log \
  "$PERFPIPE" inspect --format json --jobs 2 /dev/stdin >"$tmp/p.json"
# the document names the path it read: /dev/stdin instead of the file
sed "s|$t|/dev/stdin|" "$tmp/s.json" >"$tmp/s2.json"
[ ! -s "$log" ] && cmp -s "$tmp/s2.json" "$tmp/p.json" && ok "a pipe: read serially, same document" \
  || ko "a pipe: split or differs"
"$PERFPIPE" inspect --help | grep -q -- "--jobs N" && ok "--help names --jobs" || ko "--help lacks --jobs"

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
