#!/bin/sh
# The fuzz smoke of tests/check-all.sh: build a fuzz tree in OUTDIR, seed it
# and run every target of fuzz/run-fuzz.sh for SECONDS each, JOBS at a time.
#   fuzz/smoke.sh OUTDIR [SECONDS [JOBS]]
# Prints one line per target (verdict, runs, exec/s, cov/ft) and a closing
# "N passed, N failed, N skipped" line. Exit 0 when every target ran clean,
# 1 when one found a crash, leak, UB report, hang (> 10 s) or OOM (> 2 GiB)
# -- its reproducer is named, under OUTDIR/fuzz/artifacts/TARGET/ -- or the
# build failed (a clang without the libFuzzer runtime too), 77 with one
# SKIP line when there is no clang on PATH.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fuzz/smoke.sh OUTDIR [SECONDS [JOBS]]}
secs=${2:-30}
jobs=${3:-2}
targets="nettrace gcdump counters spans pipeline pdb load-wrk load-hey load-heycsv load-k6lines load-vegetalines load-json load-wrkjson load-k6summary load-k6export load-bombardier load-vegeta load-oha run-nettrace run-gcdump run-counters run-spans run-bench run-load run-pipeline run-packed"

cc=
for c in clang clang-14 clang-15 clang-16; do command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }; done
mkdir -p "$out" && cd "$out"
# Skipped only when there is no clang at all; a clang that cannot build the
# targets (no libFuzzer runtime, a compile error) is a failure, so a CI that
# meant to fuzz never passes quietly without fuzzing.
if [ -z "$cc" ]; then
    echo "SKIP: fuzz smoke: no clang on PATH (Debian 12: apt-get install clang-14 libclang-rt-14-dev)"
    exit 77
fi
if ! "$src/configure" -q CC="$cc" --enable-fuzz --enable-werror >configure-fuzz.log 2>&1; then
    echo "FAIL: fuzz smoke: $cc cannot configure --enable-fuzz (no libFuzzer runtime? apt-get install libclang-rt-14-dev); $out/configure-fuzz.log:"
    tail -3 configure-fuzz.log
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
fi
make -s -j"$jobs" fuzz >build-fuzz.log 2>&1 || { tail -40 build-fuzz.log; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
[ -d fuzz/corpus ] || "$src/fuzz/seed-corpus.sh" "$out/fuzz/corpus" >/dev/null

passed=0 failed=0
set -- $targets
while [ $# -gt 0 ]; do
    pids=
    for _ in $(seq "$jobs"); do
        [ $# -gt 0 ] || break
        rm -rf "fuzz/artifacts/$1"
        PP_FUZZ_NICE=${PP_FUZZ_NICE:-0} "$src/fuzz/run-fuzz.sh" "$out" "$1" "$secs" &
        pids="$pids $!:$1"
        shift
    done
    for p in $pids; do
        t=${p#*:} log=$out/fuzz/${p#*:}.log
        if wait "${p%%:*}"; then
            passed=$((passed + 1)) verdict=ok
        else
            failed=$((failed + 1)) verdict=FAILED
        fi
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
        eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
        cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1 || true)
        printf '  %-13s %-6s %8s runs %6s exec/s  %s\n' "$t" "$verdict" "${runs:-?}" "${eps:-?}" "$cov"
        if [ "$verdict" = FAILED ]; then
            # the target's own contract checks (fuzz_run.c's fail()) say why they
            # aborted on a line of their own, before libFuzzer's "deadly signal"
            grep -E '^fuzz_|ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -12 || true
            for a in "$out/fuzz/artifacts/$t"/*; do
                [ -f "$a" ] || continue
                echo "  reproducer: $a"
                # a CI log is often all one sees of a CI machine: a small
                # reproducer is printed whole, to rebuild with base64 -d
                if [ "$(wc -c < "$a")" -le 8192 ]; then
                    echo "  reproducer as base64 ($(wc -c < "$a") bytes; fuzz/README.md says how to replay):"
                    base64 -w 76 "$a" | sed 's/^/    /'
                fi
            done
        fi
    done
done
echo "$passed passed, $failed failed, 0 skipped"
[ "$failed" -eq 0 ]
