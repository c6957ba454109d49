#!/bin/bash
# Out of memory in the CLI's own documents never poses as a whole one
# (issue 41): compare's and candidates' documents (and verify's) are built
# in the CLI, not by the engine, with jansson calls whose failures went
# unchecked one by one. The allocation fault injector (iofault.c) fails the
# n-th malloc of each command, for n across the whole run; every run must end
# with the clean document (and the clean exit code), or with exit 7, one
# line saying out of memory and no output file at all. Never another exit
# code, never a document that differs from the clean one. On main (51a49fc)
# a failed allocation while the document was built dropped its member and
# the command ended 0 with the shorter document (compare and candidates),
# or ended with exit 2 "usage".
#
# Which allocations a sweep fails: every STEP-th of the run's (STEP: the
# run's count over PP_OOM_RUNS, 120, or PP_OOM_RUNS_STDOUT, 40), starting at
# an offset drawn from a seed, so over many CI runs every allocation gets its
# turn. The seed is printed first and on every failure line; PP_OOM_SEED=S
# (same build, same PP_OOM_RUNS*) runs the same allocations again. One
# failure line's malloc #n alone is replayed with
#   PP_IOFAULT_OP=malloc PP_IOFAULT_N=n LD_PRELOAD=iofault.so perfpipe ARGS
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$SRC/tests/faults/lib.sh"
shim_or_skip
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
seed=${PP_OOM_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (PP_OOM_SEED=$seed runs the same allocations again)"
# first NAME STEP: the sweep's first allocation, 1 to STEP, from the seed and
# the sweep's name (cksum: the same number on every machine and shell).
first() { echo $((1 + $(printf '%s %s' "$seed" "$1" | cksum | cut -d' ' -f1) % $2)); }

"$PERFPIPE" alloc "$DATA/alloc-exact.nettrace" --format json -o "$tmp/a.json" 2>/dev/null &&
  "$PERFPIPE" alloc "$DATA/alloc-envvar.nettrace" --format json -o "$tmp/b.json" 2>/dev/null ||
  { ko "the two alloc results"; exit 1; }

# sweep NAME ARGS...: the command (with -o OUT appended) under a failed n-th malloc.
sweep() {
  local name=$1; shift
  local out=$tmp/$name.out clean=$tmp/$name.clean crc rc total step start n runs=0 nomem=0 same=0 bad=0
  "$PERFPIPE" "$@" -o "$clean" 2>/dev/null; crc=$?
  [ -s "$clean" ] || { ko "$name: the clean run wrote nothing (exit $crc)"; return; }
  env PP_IOFAULT_OP=malloc PP_IOFAULT_N=0 PP_IOFAULT_LOG="$tmp/log" LD_PRELOAD="$tmp/iofault.so" \
    "$PERFPIPE" "$@" -o "$out" 2>/dev/null
  total=$(awk '$2 > t {t = $2} END {print t}' "$tmp/log"); rm -f "$out" "$tmp/log"
  [ "${total:-0}" -gt 1000 ] || { echo "SKIP: the shim counted no allocations"; exit 77; }
  step=$((total / ${PP_OOM_RUNS:-120} + 1))
  start=$(first "$name" "$step")
  for ((n = start; n <= total; n += step)); do
    env PP_IOFAULT_OP=malloc PP_IOFAULT_N="$n" LD_PRELOAD="$tmp/iofault.so" \
      "$PERFPIPE" "$@" -o "$out" >"$tmp/stdout" 2>"$tmp/err"; rc=$?
    runs=$((runs + 1))
    if [ "$rc" = 7 ] && [ ! -e "$out" ] && [ ! -s "$tmp/stdout" ] &&
       grep -q 'out of memory' "$tmp/err"; then
      nomem=$((nomem + 1))
    elif [ "$rc" = "$crc" ] && cmp -s "$out" "$clean"; then
      same=$((same + 1))
    else
      bad=$((bad + 1))
      [ "$bad" -le ${PP_OOM_SHOW:-5} ] && { echo "  $name, malloc #$n of $total (PP_OOM_SEED=$seed): exit $rc, $( [ -e "$out" ] && { cmp -s "$out" "$clean" && echo "the clean document" || echo "ANOTHER document"; } || echo "no document")"
        head -2 "$tmp/err" | sed 's/^/    /'; }
    fi
    rm -f "$out"
  done
  echo "$name: $runs runs (malloc #n every $step of $total from #$start): $same clean, $nomem out of memory (exit 7, nothing written), $bad otherwise"
  [ "$bad" = 0 ] && ok "$name: every failed allocation is the clean document or exit 7 with nothing written" ||
    ko "$name: $bad runs ended otherwise (PP_OOM_SEED=$seed)"
  [ "$nomem" -gt 0 ] && ok "$name: the sweep reached failures ($nomem)" || ko "$name: no run failed (the shim does not reach the command?)"
}
# sweep_stdout NAME ARGS...: the same for a command that writes its JSON on
# standard output (no -o): the clean text, or exit 7 with nothing on stdout.
sweep_stdout() {
  local name=$1; shift
  local clean=$tmp/$name.clean crc rc total step start n runs=0 nomem=0 same=0 bad=0
  "$PERFPIPE" "$@" >"$clean" 2>/dev/null; crc=$?
  [ -s "$clean" ] || { ko "$name: the clean run wrote nothing (exit $crc)"; return; }
  env PP_IOFAULT_OP=malloc PP_IOFAULT_N=0 PP_IOFAULT_LOG="$tmp/log" LD_PRELOAD="$tmp/iofault.so" \
    "$PERFPIPE" "$@" >/dev/null 2>&1
  total=$(awk '$2 > t {t = $2} END {print t}' "$tmp/log"); rm -f "$tmp/log"
  step=$((total / ${PP_OOM_RUNS_STDOUT:-40} + 1))
  start=$(first "$name" "$step")
  for ((n = start; n <= total; n += step)); do
    env PP_IOFAULT_OP=malloc PP_IOFAULT_N="$n" LD_PRELOAD="$tmp/iofault.so" \
      "$PERFPIPE" "$@" >"$tmp/stdout" 2>"$tmp/err"; rc=$?
    runs=$((runs + 1))
    if [ "$rc" = 7 ] && [ ! -s "$tmp/stdout" ] && grep -q 'out of memory' "$tmp/err"; then
      nomem=$((nomem + 1))
    elif [ "$rc" = "$crc" ] && cmp -s "$tmp/stdout" "$clean"; then
      same=$((same + 1))
    else
      bad=$((bad + 1))
      [ "$bad" -le ${PP_OOM_SHOW:-5} ] && { echo "  $name, malloc #$n of $total (PP_OOM_SEED=$seed): exit $rc, $(cmp -s "$tmp/stdout" "$clean" && echo "the clean text" || echo "ANOTHER text ($(wc -c <"$tmp/stdout") bytes)")"
        head -2 "$tmp/err" | sed 's/^/    /'; }
    fi
  done
  echo "$name: $runs runs (malloc #n every $step of $total from #$start): $same clean, $nomem out of memory, $bad otherwise"
  [ "$bad" = 0 ] && ok "$name: every failed allocation is the clean text or exit 7 with nothing on stdout" ||
    ko "$name: $bad runs ended otherwise (PP_OOM_SEED=$seed)"
}
sweep compare compare "$tmp/a.json" "$tmp/b.json" --format json
sweep candidates candidates "$tmp/a.json" "$tmp/b.json" --format json
sweep_stdout rules-list rules list --format json
echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
