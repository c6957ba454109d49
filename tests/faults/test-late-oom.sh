#!/bin/bash
# A result in place is the run's result (issue 43): exit 7 (out of memory)
# leaves nothing new, and a run whose output was renamed into place ends 0
# (or 4, its document saying which stage failed), never 7 with the file
# there.
#
# The allocation fault injector (iofault.c) with PP_IOFAULT_AFTER=rename
# fails the n-th allocation made after the output's rename, whichever
# process makes it: found from the code path, not by scanning. On 51a49fc
# the parent read the stages' process's message into a buffer it
# allocated then, after that process had written the result: the first
# two allocations after the rename failed the run ("out of memory reading
# the result document", exit 7) with the complete file left in place, in
# every format (inject.sh --full met it once, alloc --format folded, malloc
# #26755). Then the parent's /proc walk (fopen per process) allocated
# about 200 more times; a failure there left a plugin's stray process
# running, said nowhere.
#
# Also: with --no-isolate (one process), a stage that failed "out of
# memory" beside an ok one wrote the document (exit 4's contract) and then
# exited 7; it is 4, as in an isolated run.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
FAULTS=${PP_BUILDDIR:?}/tests/faults/.libs
command -v python3 >/dev/null || { echo "SKIP: python3 reads the documents"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$SRC/tests/faults/lib.sh"
shim_or_skip
export PERFPIPE_PLUGIN_PATH=
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
trace=$DATA/alloc-exact.nettrace

# late N OUT ARGS...: the run with the n-th allocation after the rename
# failed (N=0: counted only); the shim's log says "malloc CALLS INJECTED".
late() {
  local n=$1 out=$2; shift 2
  rm -f "$tmp/log"
  (cd "$tmp/w" && PP_IOFAULT_OP=malloc PP_IOFAULT_N="$n" PP_IOFAULT_AFTER=rename \
    PP_IOFAULT_LOG="$tmp/log" LD_PRELOAD="$tmp/iofault.so" timeout 60 "$PERFPIPE" "$@" -o "$out" \
    >/dev/null 2>"$tmp/err")
}
reset() { rm -rf "$tmp/w"; cp -a "$tmp/w.seed" "$tmp/w"; }
same() { if [ -d "$1" ]; then diff -r "$1" "$2" >/dev/null; else cmp -s "$1" "$2"; fi; }
# digest DIR: the names and contents under DIR.
digest() { (cd "$1" && find . -print0 | sort -z | xargs -0 -r sha1sum 2>/dev/null; find . | sort) | sha1sum; }

# The cases: one per output format and reader, a CSV set new and over an
# existing directory, and the unisolated run.
while IFS='|' read -r name out args; do
  # shellcheck disable=SC2086
  set -- $args
  rm -rf "$tmp/w"; mkdir -p "$tmp/w"
  [ "$name" = csv-existing ] && { mkdir "$tmp/w/csv"; echo mine >"$tmp/w/csv/notes.txt"; }
  cp -a "$tmp/w" "$tmp/w.seed"
  (cd "$tmp/w" && "$PERFPIPE" "$@" -o "$out" >/dev/null 2>&1) || { ko "$name: the clean run"; continue; }
  rm -rf "$tmp/ref"; cp -a "$tmp/w/${out%/}" "$tmp/ref"
  reset
  late 0 "$out" "$@"
  read -r _ after _ renames <"$tmp/log" 2>/dev/null
  [ "${renames:-0}" -ge 1 ] || { ko "$name: the shim saw no rename (the output is not renamed into place?)"; continue; }
  # Every allocation after the commit in turn, and at least the first two
  # (where 51a49fc failed); with none made, the run is the clean one.
  bad=0 runs=0
  for ((n = 1; n <= (after > 2 ? after : 2); n++)); do
    reset
    late "$n" "$out" "$@"; rc=$?; runs=$((runs + 1))
    if find "$tmp/w" -mindepth 1 | grep -qE "/${out%/}\.[A-Za-z0-9]{6}\$|\.csv\.[A-Za-z0-9]{6}\$"; then
      bad=$((bad + 1)); echo "  allocation #$n after the rename: a temporary file is left"
    fi
    if [ "$(digest "$tmp/w")" != "$(digest "$tmp/w.seed")" ]; then
      # Something new is in place: the whole result, and exit 0.
      if [ "$rc" != 0 ] || ! same "$tmp/ref" "$tmp/w/${out%/}"; then
        bad=$((bad + 1)); echo "  allocation #$n after the rename: exit $rc with the output in place"
        sed 's/^/    /' "$tmp/err" | head -2
      fi
    elif [ "$rc" = 0 ]; then
      bad=$((bad + 1)); echo "  allocation #$n after the rename: exit 0 and no output"
    fi
  done
  [ "$bad" = 0 ] &&
    ok "$name: $after allocations after the output's rename; $runs runs with the n-th failed: a result in place always exits 0" ||
    ko "$name: $bad of $runs runs failed a run whose result was in place"
  rm -rf "$tmp/w.seed"
done <<EOF
json|out.json|alloc $trace --format json
table|out.txt|alloc $trace --format table
markdown|out.md|alloc $trace --format markdown
html|out.html|alloc $trace --format html
folded|out.folded|alloc $trace --format folded
speedscope|out.speedscope.json|alloc $trace --format speedscope
svg|out.svg|alloc $trace --format svg
pprof|out.pb.gz|alloc $trace --format pprof
csv-new|csv/|alloc $trace --format csv
csv-existing|csv/|alloc $trace --format csv
counters|counters.json|counters-csv $DATA/churn-counters.csv --format json
spans|spans.json|spans $DATA/web-spans.otlp.json --format json
gcdump|gcdump.json|gcdump $DATA/leak-before.gcdump --format json
no-isolate|out.folded|alloc $trace --format folded --no-isolate
EOF

# A stage that ran out of memory beside an ok one: exit 4 and the document
# (the ok stage's result, the failed one's error), isolated or not.
beside_alloc nomem "$trace" >"$tmp/nomem.yaml"
for iso in "" --no-isolate; do
  rm -f "$tmp/n.json"
  "$PERFPIPE" run "$tmp/nomem.yaml" --plugin-dir "$FAULTS" $iso --format json -o "$tmp/n.json" 2>"$tmp/n.err"
  rc=$?
  st=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(s["status"] for s in d["stages"]))' \
       "$tmp/n.json" 2>/dev/null)
  if [ "$rc" = 4 ] && [ "$st" = "ok failed" ] && grep -q "out of memory" "$tmp/n.err"; then
    ok "a stage out of memory ${iso:-isolated}: exit 4, the document written with alloc ok and the stage failed"
  else
    ko "a stage out of memory ${iso:-isolated}: exit $rc, stages '${st:-no document}' (expected 4, 'ok failed')"
  fi
done
echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
