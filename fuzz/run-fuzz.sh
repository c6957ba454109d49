#!/bin/sh
# Run one fuzz target for SECONDS in ONE process (no -jobs/-fork: the machine
# is shared; equivalent to -jobs=1 -workers=1 but logs to stdout).
#   fuzz/run-fuzz.sh BUILDDIR TARGET SECONDS
# TARGET: nettrace gcdump counters spans pipeline pdb, load-wrk load-hey
# load-heycsv load-k6lines load-vegetalines load-json load-wrkjson load-k6summary
# load-k6export load-bombardier load-vegeta load-oha (the readers' own APIs) or
# run-nettrace run-gcdump run-counters run-spans run-bench run-load run-pipeline
# run-packed (the
# `perfpipe run` path: engine, sources, shipped analyzers, renderers; binary
# fuzz/fuzz_run_KIND). The working corpus is
# BUILDDIR/fuzz/work/TARGET (seeded from BUILDDIR/fuzz/corpus/TARGET, made by
# fuzz/seed-corpus.sh); crashes land in BUILDDIR/fuzz/artifacts/TARGET/; the
# log in BUILDDIR/fuzz/TARGET.log (its last lines have cov:, ft:, exec/s).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
b=${1:?usage: run-fuzz.sh BUILDDIR TARGET SECONDS}
t=${2:?target}
secs=${3:-600}
case $t in
    nettrace)              maxlen=1048576 ;;
    run-nettrace)          maxlen=65536 ;;
    run-packed)            maxlen=65536 ;;
    gcdump|run-gcdump)     maxlen=${PP_FUZZ_MAX_LEN:-1048576} ;;
    counters|run-counters) maxlen=65536 ;;
    spans|run-spans)       maxlen=65536 ;;
    run-bench)             maxlen=65536 ;;
    load-*|run-load)       maxlen=65536 ;;
    pipeline|run-pipeline) maxlen=8192 ;;
    pdb)                   maxlen=65536 ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
esac
bin=$b/fuzz/fuzz_$(echo "$t" | tr - _)
[ -d "$b/fuzz/corpus/$t" ] || "$here/fuzz/seed-corpus.sh" "$b/fuzz/corpus"
mkdir -p "$b/fuzz/work/$t" "$b/fuzz/artifacts/$t"
dict=
[ -f "$here/fuzz/${t#run-}.dict" ] && dict="-dict=$here/fuzz/${t#run-}.dict"
# PP_FUZZ_STACK_KB: a bigger stack, to fuzz past a filed unbounded-recursion
# bug (ASan reports stack-overflow and cannot suppress it).
[ -n "${PP_FUZZ_STACK_KB:-}" ] && ulimit -s "$PP_FUZZ_STACK_KB"
# detect_leaks stays on: a leak is a bug. -timeout: a hang is a bug too.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:suppressions=$here/fuzz/ubsan.supp} \
exec nice -n "${PP_FUZZ_NICE:-10}" "$bin" -max_len=$maxlen -timeout=10 \
    -rss_limit_mb=2048 -max_total_time="$secs" -print_final_stats=1 $dict \
    -artifact_prefix="$b/fuzz/artifacts/$t/" \
    "$b/fuzz/work/$t" "$b/fuzz/corpus/$t" > "$b/fuzz/$t.log" 2>&1
