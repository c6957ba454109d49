#!/bin/bash
# I/O and allocation faults, every one in turn (SQLite's anomaly tests): a
# preloaded shim (tests/faults/iofault.c) fails the n-th write, fsync,
# rename or close (ENOSPC, or EIO) or the n-th malloc/calloc/realloc of a
# run; a run is made for each n up to the number of such calls the clean
# run made (malloc: 100 n spread over the run), and every allocation made
# after the output was renamed into place (the shim's PP_IOFAULT_AFTER=rename:
# none may fail the run then, the result being there). Every format and
# every reader is covered: each case is one command writing one output.
#
# A run ends well when it
#   - exits 0 and writes exactly the clean run's output, or
#   - exits with a documented failure code (3 input, 4 stage, 5 output,
#     7 memory), says so in a "perfpipe: ..." line, and leaves no partial
#     result: a new output is absent, a replaced one (and a CSV directory's
#     older files) unchanged; exit 4 may write a document whose failed
#     stage says so;
# and in every case leaves no temporary file behind, is not killed by a
# signal and does not hang. Anything else is a bad outcome.
#
# Usage: inject.sh [--smoke | --full] [PERFPIPE]   (PERFPIPE from the
# environment otherwise). --smoke (tests/check-all.sh) samples a few
# seconds' worth; --full covers every n (bench/faults.sh records it).
# A run may also exit 0 with a result that says it is not whole: the stage
# "partial" with result.out_of_memory (a frame the symbolizer could not
# name) and that warning on stderr ("degraded", counted apart).
# Prints "runs R, faults injected F, bad outcomes B (degraded, said: D)"
# last; exit 1 if B > 0.
set -u
mode=smoke
case ${1:-} in --smoke) shift ;; --full) mode=full; shift ;; esac
PERFPIPE=${1:-${PERFPIPE:?}}
SRC=${PP_SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DATA=${PP_TESTDATA:-$SRC/tests/data}
if ldd "$PERFPIPE" 2>/dev/null | grep -q 'libasan'; then
  echo "SKIP: an ASan build cannot take a preloaded allocator"; exit 77
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
${CC:-cc} -O1 -shared -fPIC -o "$tmp/iofault.so" "$SRC/tests/faults/iofault.c" -ldl 2>"$tmp/cc.err" ||
  { cat "$tmp/cc.err"; echo "SKIP: cannot build the fault shim"; exit 77; }
export PERFPIPE_PLUGIN_PATH=${PERFPIPE_PLUGIN_PATH:-}

runs=0 injected=0 bad=0 degraded=0 late=0
AFTER=
say_bad() { bad=$((bad + 1)); echo "BAD: $*"; }

# The cases: NAME|OUTPUT|ARGS... (OUTPUT ending in / is a CSV directory).
# The smoke takes three (a document, a set of files, a second reader).
cases() {
  local t=$DATA/alloc-exact.nettrace
  if [ "$mode" = smoke ]; then
    echo "json|out.json|alloc $t --format json"
    echo "csvdir|csv/|alloc $t --format csv"
    echo "counters|counters.json|counters-csv $DATA/churn-counters.csv --format json"
    return
  fi
  echo "json|out.json|alloc $t --format json"
  echo "table|out.txt|alloc $t --format table"
  echo "markdown|out.md|alloc $t --format markdown"
  echo "csvdir|csv/|alloc $t --format csv"
  echo "html|out.html|alloc $t --format html"
  echo "folded|out.folded|alloc $t --format folded"
  echo "speedscope|out.speedscope.json|alloc $t --format speedscope"
  echo "svg|out.svg|alloc $t --format svg"
  echo "pprof|out.pb.gz|alloc $t --format pprof"
  echo "counters|counters.json|counters-csv $DATA/churn-counters.csv --format json"
  echo "spans|spans.json|spans $DATA/web-spans.otlp.json --format json"
  echo "gcdump|gcdump.json|gcdump $DATA/leak-before.gcdump --format json"
}

# digest DIR: what is under DIR (names and contents), for "unchanged".
digest() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 -r sha1sum) | sha1sum; }

# temps DIR OUT: temporary names (OUT.XXXXXX, or a CSV file's) under DIR.
temps() {
  local base=${2%/}
  find "$1" -mindepth 1 | grep -E "/$base\.[A-Za-z0-9]{6}\$|\.csv\.[A-Za-z0-9]{6}\$"
}

# same A B: the same file, or directories with the same files.
same() { if [ -d "$2" ]; then [ -d "$1" ] && [ "$(digest "$1")" = "$(digest "$2")" ]; else cmp -s "$1" "$2"; fi; }

# one CASE-DIR OP N ERRNO ARGS...: a run with the n-th OP failed.
one() {
  local w=$1 op=$2 n=$3 e=$4 out=$5; shift 5
  local before after rc
  before=$(digest "$w")
  rm -f "$tmp/log"
  (cd "$w" && timeout 60 env PP_IOFAULT_OP="$op" PP_IOFAULT_N="$n" PP_IOFAULT_ERRNO="$e" PP_IOFAULT_AFTER="$AFTER" \
    PP_IOFAULT_LOG="$tmp/log" LD_PRELOAD="$tmp/iofault.so" "$PERFPIPE" "$@" -o "$out" >/dev/null 2>"$tmp/err")
  rc=$?
  runs=$((runs + 1))
  local hit; hit=$(awk '{print $3}' "$tmp/log" 2>/dev/null); hit=${hit:-0}
  injected=$((injected + hit))
  local what="$op #$n${AFTER:+ after the $AFTER} ($e) on '$*' -o $out: exit $rc"
  if temps "$w" "$out" | grep -q .; then say_bad "$what: a temporary file is left"; fi
  case $rc in
    0)
      if ! same "$w/$out" "$tmp/ref.$CASE"; then
        # Degraded and said so: the warning on stderr, and where the
        # format carries the status (JSON), the stage partial with the
        # finding. Anything else is a result posing as whole.
        if grep -q "^perfpipe: .*could not be made for want of memory" "$tmp/err" &&
           { case $CASE in json|counters|spans|gcdump) grep -q '"result.out_of_memory"' "$w/$out" &&
                                  grep -q '"status": "partial"' "$w/$out" ;; *) true ;; esac; }; then
          degraded=$((degraded + 1))
        else
          say_bad "$what: exit 0 with another result"
        fi
      fi ;;
    3|4|5|7)
      grep -q '^perfpipe: ' "$tmp/err" || say_bad "$what: no 'perfpipe:' line says why"
      after=$(digest "$w")
      if [ "$rc" != 4 ] && [ "$before" != "$after" ]; then
        say_bad "$what: the outputs changed"
      fi ;;
    124) say_bad "$what: hung (60 s)" ;;
    *) say_bad "$what"; sed 's/^/    /' "$tmp/err" | head -3 ;;
  esac
  # Back to the case's starting state.
  rm -rf "${w:?}/${out%/}"
  [ -d "$w.seed" ] && cp -a "$w.seed/." "$w/"
  temps "$w" "$out" | xargs -r rm -rf
  return 0
}

start=$SECONDS
while IFS='|' read -r CASE out args; do
  # shellcheck disable=SC2086
  set -- $args
  w=$tmp/w.$CASE; mkdir -p "$w"
  (cd "$w" && "$PERFPIPE" "$@" -o "$out" >/dev/null 2>&1) ||
    { say_bad "$CASE: the clean run fails"; continue; }
  cp -a "$w/${out%/}" "$tmp/ref.$CASE"
  rm -rf "${w:?}/${out%/}"
  for op in write fsync rename close malloc; do
    rm -f "$tmp/log"
    (cd "$w" && PP_IOFAULT_OP=$op PP_IOFAULT_N=0 PP_IOFAULT_LOG=$tmp/log LD_PRELOAD=$tmp/iofault.so \
      "$PERFPIPE" "$@" -o "$out" >/dev/null 2>&1)
    rm -rf "${w:?}/${out%/}"
    total=$(awk '{print $2}' "$tmp/log" 2>/dev/null); total=${total:-0}
    step=1
    # malloc: 100 points spread over the run (3 in the smoke); the others:
    # every call (a few in the smoke).
    if [ "$op" = malloc ]; then div=3; [ "$mode" = full ] && div=100; step=$(( total / div + 1 )); fi
    if [ "$mode" = smoke ] && [ "$op" != malloc ]; then step=$(( total / 3 + 1 )); fi
    for ((n = 1; n <= total; n += step)); do
      e=ENOSPC; [ $((n % 2)) = 0 ] && e=EIO
      one "$w" "$op" "$n" "$e" "$out" "$@"
    done
  done
  # Every allocation after the commit (the last rename) in turn: the
  # result is in place, so the run must end 0 with it (or, had the commit
  # not been the last step, non-zero with nothing new).
  rm -f "$tmp/log"
  (cd "$w" && PP_IOFAULT_OP=malloc PP_IOFAULT_N=0 PP_IOFAULT_AFTER=rename PP_IOFAULT_LOG=$tmp/log \
    LD_PRELOAD=$tmp/iofault.so "$PERFPIPE" "$@" -o "$out" >/dev/null 2>&1)
  rm -rf "${w:?}/${out%/}"
  total=$(awk '{print $2}' "$tmp/log" 2>/dev/null); total=${total:-0}
  late=$((late + total))
  AFTER=rename
  for ((n = 1; n <= total; n++)); do one "$w" malloc "$n" ENOMEM "$out" "$@"; done
  AFTER=
  # An existing CSV directory with older files: they stay, or all are new.
  if [ "$CASE" = csvdir ] && [ "$mode" = full ]; then
    mkdir -p "$w.seed/csv"; echo old >"$w.seed/csv/by_type.csv"; echo mine >"$w.seed/csv/notes.txt"
    cp -a "$w.seed/." "$w/"
    # A whole set there: this run's files beside the user's own notes.
    cp "$w.seed/csv/notes.txt" "$tmp/ref.$CASE/"
    for op in write fsync rename; do
      for n in 1 2 3 4 5 6 7 8 9 10 11 12; do one "$w" "$op" "$n" ENOSPC "csv/" "$@"; done
    done
    rm -rf "$w.seed"
  fi
done < <(cases)
echo "mode $mode: $((SECONDS - start)) s"
echo "allocations after an output's commit, all cases: $late"
echo "runs $runs, faults injected $injected, bad outcomes $bad (degraded, said: $degraded)"
[ "$bad" = 0 ]
