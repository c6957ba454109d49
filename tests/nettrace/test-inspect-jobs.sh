#!/bin/bash
# `perfpipe inspect --jobs N` reads a V4/V5 trace as regions between
# sequence points on N threads; its document (and stderr, and exit code)
# must be the serial one byte for byte (jobs-lib.sh: how splits are forced
# and told apart).
set -u
run_jobs() { "$PERFPIPE" inspect --format json --jobs "$1" "$2"; }
. "${PP_SRCDIR:?}/tests/nettrace/jobs-lib.sh"

files=("$DATA"/*.nettrace "$SRC"/tests/malformed/nettrace/*.nettrace)
[ -n "$CORPUS" ] && [ -d "$CORPUS" ] && files+=("$CORPUS"/*.nettrace)
split=0
for f in "${files[@]}"; do
  same "$f"
  grep -q " folded$" "$log" && split=$((split + 1))
done
# Every real capture with a sequence point splits (the malformed ones have
# none); at least the 25 committed ones.
if [ "$split" -ge 25 ]; then ok "$split traces were split"; else ko "only $split traces were split"; fi

# A region per block: every committed capture with a sequence point before
# each of its blocks splits and folds; with the capture's last point copied
# there instead (numbers ahead of the events), the fold cannot derive the
# serial answer, so the file is read serially. Both equal --jobs 1.
nfold=0; nser=0; ncap=0
for f in "$DATA"/*.nettrace; do
  b=$(basename "$f")
  mutate "$f" "$tmp/$b.points" points 2>/dev/null || continue
  ncap=$((ncap + 1))
  same "$tmp/$b.points"
  [ "$(grep -c " folded$" "$log")" = 4 ] && nfold=$((nfold + 1))
  if mutate "$f" "$tmp/$b.seq" points-seq 2>/dev/null; then
    same "$tmp/$b.seq"
    [ "$(grep -c " serial$" "$log")" = 4 ] && nser=$((nser + 1))
  fi
  rm -f "$tmp/$b.points" "$tmp/$b.seq"
done
if [ "$ncap" -ge 25 ] && [ "$nfold" = "$ncap" ]; then ok "a point before every block: $nfold of $ncap captures split and folded"
else ko "a point before every block: $nfold of $ncap captures folded"; fi
if [ "$nser" -ge 20 ]; then ok "points ahead of the events: $nser captures read serially"
else ko "points ahead of the events: only $nser captures read serially"; fi

# A trace with three sequence points, damaged inside the second region.
t=$DATA/web-sampled-db.nettrace
same "$t"; folded "clean, 4 regions"
sp=$(mutate "$t" /dev/null list | awk '$2=="EventBlock"{e++} $2=="SPBlock"{print e - 1; exit}')
mutate "$t" "$tmp/drop.nettrace" drop $((sp + 20))
same "$tmp/drop.nettrace"; folded "a block missing in region 2"
d=$(q "$tmp/s.json" 'd["stages"][0]["totals"]["dropped_events"]["value"]')
if [ "${d:-0}" -gt 0 ]; then ok "the missing block shows as $d dropped events"; else ko "no dropped events: $d"; fi
mutate "$t" "$tmp/first.nettrace" drop $((sp + 1))
same "$tmp/first.nettrace"; folded "the block right after a sequence point missing"
mutate "$t" "$tmp/repeat.nettrace" repeat $((sp + 20))
same "$tmp/repeat.nettrace"; folded "a repeated block in region 2"
mutate "$t" "$tmp/swap.nettrace" swap $((sp + 20))
same "$tmp/swap.nettrace"
# (balanced cuts after the swapped pair: region 1 holds it, which is exact)
if [ "$(grep -c "regions=4 serial" "$log")" = 2 ]; then
  ok "blocks out of order in region 2: read serially"
else
  ko "blocks out of order in region 2: not read serially"; cat "$log"
fi
# Cut copies: inside the last region, just past a sequence point, inside
# the first region (no whole point: one region, serial).
size=$(stat -c %s "$t")
for cut in $((size - 500)) $((size * 9 / 10)) $((size / 2)) 40000; do
  head -c "$cut" "$t" >"$tmp/cut.nettrace"
  same "$tmp/cut.nettrace"
done
grep -q "truncated" "$tmp/s.err" && ok "a cut copy warns as serially" || ko "no truncation warning"

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
