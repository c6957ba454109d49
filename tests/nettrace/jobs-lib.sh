# Helpers of the --jobs tests (sourced): a reader split into regions on
# several threads must give the serial document, stderr and exit code byte
# for byte. The sourcing script defines run_jobs J FILE (the command under
# test with --jobs J, document on stdout) and may set SPLITS (default 4:
# every/balanced x 2/3 threads). Real captures are small, so the test-only
# knob PERFPIPE_INSPECT_SPLIT forces splits below the size threshold:
# "every" starts a region at every sequence point, "balanced" cuts at the
# points nearest equal byte shares. PERFPIPE_INSPECT_SPLIT_LOG records
# whether a read was split and folded, or fell back to serial, so a
# comparison that never split cannot pass for one that did.
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
CORPUS=${PP_CORPUS:-}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to damage the fixtures"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
mutate() { python3 "$SRC/tests/faults/mutate-nettrace.py" "$@"; }
# The compressed fixtures (*.nettrace.zst) as plain files: a split reads a
# file at offsets, and a compressed input is read serially through a pipe.
command -v zstd >/dev/null || { echo "SKIP: zstd is needed to unpack the compressed fixtures"; exit 77; }
UNPACKED=$tmp/unpacked; mkdir -p "$UNPACKED"
for z in "$DATA"/*.nettrace.zst; do zstd -q -d -c "$z" >"$UNPACKED/$(basename "$z" .zst)" || exit 1; done
TRACES=("$DATA"/*.nettrace "$UNPACKED"/*.nettrace)
log=$tmp/split.log

# same FILE: serial vs every split mode at 2 and 3 threads; leaves the
# split log lines of FILE's parallel reads in $log.
same() {
  local f=$1 mode j rs rp
  run_jobs 1 "$f" >"$tmp/s.json" 2>"$tmp/s.err"; rs=$?
  : >"$log"
  for mode in every balanced; do
    for j in 2 3; do
      PERFPIPE_INSPECT_SPLIT=$mode PERFPIPE_INSPECT_SPLIT_LOG=$log \
        run_jobs $j "$f" >"$tmp/p.json" 2>"$tmp/p.err"; rp=$?
      if [ "$rs" = "$rp" ] && cmp -s "$tmp/s.json" "$tmp/p.json" && cmp -s "$tmp/s.err" "$tmp/p.err"; then
        ok "$(basename "$f") $mode --jobs $j: as --jobs 1 (exit $rs)"
      else
        ko "$(basename "$f") $mode --jobs $j: differs from --jobs 1 (exit $rs vs $rp)"
        diff "$tmp/s.json" "$tmp/p.json" | head -5
        diff "$tmp/s.err" "$tmp/p.err" | head -5
      fi
    done
  done
}
# folded NAME [N]: N (default 4) parallel reads of the last `same` were
# split and folded.
folded() {
  local n want=${2:-4}; n=$(grep -c " folded$" "$log")
  if [ "$n" = "$want" ]; then ok "$1: split into regions and folded ($want reads)"; else ko "$1: folded $n of $want reads"; cat "$log"; fi
}
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# every_trace: same() over every committed, malformed and corpus capture;
# at least the 25 committed ones with a sequence point split (the malformed
# ones have none).
every_trace() {
  local files f split=0
  files=("${TRACES[@]}" "$SRC"/tests/malformed/nettrace/*.nettrace)
  [ -n "$CORPUS" ] && [ -d "$CORPUS" ] && files+=("$CORPUS"/*.nettrace)
  for f in "${files[@]}"; do
    same "$f"
    grep -q " folded$" "$log" && split=$((split + 1))
  done
  if [ "$split" -ge 25 ]; then ok "$split traces were split"; else ko "only $split traces were split"; fi
}

# point_per_block: a region per block: every committed capture with a
# sequence point before each of its blocks splits and folds; with the
# capture's last point copied there instead (numbers ahead of the events),
# the fold cannot derive the serial answer, so the file is read serially.
# Both equal --jobs 1.
point_per_block() {
  local f b nfold=0 nser=0 ncap=0
  for f in "${TRACES[@]}"; do
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
}

# damaged T: T (three sequence points) clean, then damaged inside its second
# region: a block missing (then the sourcing script's after_drop, if any,
# looks at $tmp/s.json and $tmp/s.err), the block right after a point
# missing, a block repeated, two blocks swapped (read serially), and cut
# copies.
damaged() {
  local t=$1 sp st size cut
  same "$t"; folded "clean, 4 regions"
  sp=$(mutate "$t" /dev/null list | awk '$2=="EventBlock"{e++} $2=="SPBlock"{print e - 1; exit}')
  mutate "$t" "$tmp/drop.nettrace" drop $((sp + 20))
  same "$tmp/drop.nettrace"; folded "a block missing in region 2"
  if declare -F after_drop >/dev/null; then after_drop; fi
  mutate "$t" "$tmp/first.nettrace" drop $((sp + 1))
  same "$tmp/first.nettrace"; folded "the block right after a sequence point missing"
  # A StackBlock missing inside region 2, and the first one after the
  # point: the stack checks are per region, so the fold is exact.
  st=$(mutate "$t" /dev/null list | awk '$2=="StackBlock"{s++} $2=="SPBlock"{print s - 1; exit}')
  mutate "$t" "$tmp/dropstack.nettrace" drop-stack $((st + 5))
  same "$tmp/dropstack.nettrace"; folded "a stack block missing in region 2"
  grep -q "missing" "$tmp/s.err" && ok "the missing stack block is told on stderr" ||
    ko "no missing stack block on stderr"
  mutate "$t" "$tmp/dropstack1.nettrace" drop-stack $((st + 1))
  same "$tmp/dropstack1.nettrace"; folded "the stack block right after a sequence point missing"
  mutate "$t" "$tmp/repeat.nettrace" repeat $((sp + 20))
  same "$tmp/repeat.nettrace"; folded "a repeated block in region 2"
  # The first block broken (its end tag): region 1 fails on the host's own
  # reader before it counts anything, which must not stop the serial redo.
  mutate "$t" "$tmp/bad1.nettrace" bad-end 1
  same "$tmp/bad1.nettrace"
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
}
