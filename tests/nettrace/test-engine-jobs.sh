#!/bin/bash
# Pipelines with --jobs N: a nettrace input whose every reading stage can
# merge (plugin.h, ABI 1.3 fork/merge: alloc, the fork fixtures) is read as
# regions on N threads into forked children, merged in file order; the
# document, stderr and exit code must be --jobs 1's byte for byte
# (jobs-lib.sh: how splits are forced and told apart). A stage that cannot
# merge (cpu, an ABI 1.2 plugin) keeps the whole input serial.
set -u
FIXTURES=${PP_BUILDDIR:?}/tests/plugins/.libs
# Every row (no top-N cut) so that no difference hides below a cut.
run_jobs() { "$PERFPIPE" alloc --format json --top 0 --option top-stacks=0 --jobs "$1" "$2"; }
. "${PP_SRCDIR:?}/tests/nettrace/jobs-lib.sh"

every_trace
point_per_block

# The shipped cuts (top 25, top-stacks 1000) happen after the merge.
run_jobs() { "$PERFPIPE" alloc --format json --jobs "$1" "$2"; }
for f in "$DATA"/alloc-gcverbose.nettrace "$UNPACKED"/web-sampled-db.nettrace; do
  same "$f"; folded "$(basename "$f") with the default cuts"
done
run_jobs() { "$PERFPIPE" alloc --format json --top 0 --option top-stacks=0 --jobs "$1" "$2"; }

# Damaged copies, as inspect's test.
after_drop() {
  grep -q "dropped" "$tmp/s.err" && ok "the missing block is told on stderr" || ko "no damage on stderr"
}
t=$UNPACKED/web-sampled-db.nettrace
damaged "$t"

# pipeline FILE STAGES...: a two-input pipeline over trace and other.
pipeline() {
  local out=$1; shift
  {
    printf 'version: 1\nname: jobs\ninputs:\n'
    printf '  trace: { kind: nettrace, path: "%s" }\n' "$t"
    printf '  other: { kind: nettrace, path: "%s" }\n' "$DATA/alloc-gcverbose.nettrace"
    printf 'stages:\n'
    for s in "$@"; do printf '  - %s\n' "$s"; done
    printf 'outputs:\n  - { format: json }\n'
  } >"$out"
}
# From here the file same() is given is a pipeline.
run_jobs() { "$PERFPIPE" run "$2" --plugin-dir "$FIXTURES" --jobs "$1"; }

# Two forkable stages, one of them over both inputs: both inputs split.
pipeline "$tmp/fork.yaml" "{ id: alloc, analyzer: alloc, input: trace, options: { top: 0, top-stacks: 0 } }" \
  "{ id: count, analyzer: fixture-fork, inputs: [trace, other] }"
same "$tmp/fork.yaml"; folded "alloc and a fork fixture over two inputs" 8
recs=$(q "$tmp/p.json" '[r for r in [s for s in d["stages"] if s["id"]=="count"][0]["tables"][0]["rows"]]')
case "$recs" in *first*second*) ok "the fork fixture counted both inputs: $recs" ;; *) ko "fixture rows: $recs" ;; esac
# A stage without fork (cpu) beside alloc: the trace is read serially.
pipeline "$tmp/mixed.yaml" "{ id: alloc, analyzer: alloc, input: trace }" "{ id: cpu, analyzer: cpu, input: trace }"
same "$tmp/mixed.yaml"
[ "$(grep -c "$t" "$log")" = 0 ] && ok "alloc beside cpu: the trace read serially" || { ko "alloc beside cpu split"; cat "$log"; }
# An ABI 1.2 plugin (its descriptor ends before fork): loads, runs serially,
# counts as the forked one does.
pipeline "$tmp/abi12.yaml" "{ id: count, analyzer: fixture-abi12, inputs: [trace, other] }"
same "$tmp/abi12.yaml"
[ "$(grep -c "$t" "$log")" = 0 ] && ok "an ABI 1.2 plugin: read serially" || { ko "an ABI 1.2 plugin split"; cat "$log"; }
pipeline "$tmp/fork1.yaml" "{ id: count, analyzer: fixture-fork, inputs: [trace, other] }"
"$PERFPIPE" run "$tmp/fork1.yaml" --plugin-dir "$FIXTURES" --jobs 1 >"$tmp/f1.json"
"$PERFPIPE" run "$tmp/abi12.yaml" --plugin-dir "$FIXTURES" --jobs 1 >"$tmp/a12.json"
tf=$(q "$tmp/f1.json" 'd["stages"][0]["tables"]'); ta=$(q "$tmp/a12.json" 'd["stages"][0]["tables"]')
[ -n "$tf" ] && [ "$tf" = "$ta" ] && ok "the ABI 1.2 plugin counts as the ABI 1.3 one" || ko "ABI 1.2 counts differ"
# A forkable stage that crashes: the isolated run redoes the parallel
# attempt serially, so the blame (record count, offset) is --jobs 1's.
pipeline "$tmp/crash.yaml" "{ id: alloc, analyzer: alloc, input: trace }" \
  "{ id: crash, analyzer: fixture-forkcrash, inputs: [trace, other] }"
same "$tmp/crash.yaml"
grep -q "stage 'crash' (analyzer fixture-forkcrash) was killed by signal" "$tmp/p.err" \
  && ok "the crash is blamed on its stage" || { ko "crash blame"; cat "$tmp/p.err"; }

# A forkable stage that never returns: the watchdog still fails it (the
# parallel attempt times out, the serial one is blamed), as with --jobs 1.
pipeline "$tmp/hang.yaml" "{ id: alloc, analyzer: alloc, input: trace }" \
  "{ id: hang, analyzer: fixture-forkhang, inputs: [trace, other], timeout: 1 }"
same "$tmp/hang.yaml"
grep -q "stage 'hang' (analyzer fixture-forkhang) made no progress for 1 s" "$tmp/p.err" \
  && ok "the hung stage times out" || { ko "hang blame"; cat "$tmp/p.err"; }

# --jobs is checked; PERFPIPE_JOBS is the default; --jobs 1 wins.
"$PERFPIPE" alloc --jobs 0 "$t" >/dev/null 2>"$tmp/e"; rc=$?
[ "$rc" = 2 ] && grep -q "jobs" "$tmp/e" && ok "--jobs 0: usage error" || ko "--jobs 0: exit $rc"
: >"$log"
PERFPIPE_JOBS=2 PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log "$PERFPIPE" alloc "$t" >/dev/null
grep -q folded "$log" && ok "PERFPIPE_JOBS=2: split" || ko "PERFPIPE_JOBS=2: not split"
: >"$log"
PERFPIPE_JOBS=2 PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log "$PERFPIPE" alloc --jobs 1 "$t" >/dev/null
[ ! -s "$log" ] && ok "--jobs 1 wins over PERFPIPE_JOBS: serial" || ko "--jobs 1 split"
: >"$log"
(unset PERFPIPE_JOBS; PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log "$PERFPIPE" alloc "$t" >/dev/null)
[ ! -s "$log" ] && ok "unasked: serial (twice the memory is opt-in)" || ko "no --jobs, no PERFPIPE_JOBS: split"
: >"$log"
PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG=$log "$PERFPIPE" alloc --no-isolate --jobs 2 "$t" >/dev/null
grep -q folded "$log" && ok "--no-isolate: split too" || ko "--no-isolate: not split"
"$PERFPIPE" alloc --help | grep -q -- "--jobs N" && ok "alloc --help names --jobs" || ko "alloc --help lacks --jobs"
"$PERFPIPE" run --help | grep -q -- "--jobs N" && ok "run --help names --jobs" || ko "run --help lacks --jobs"

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
