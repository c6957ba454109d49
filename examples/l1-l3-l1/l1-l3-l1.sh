#!/bin/bash
# L1 -> L3 -> L1: a benchmark says THAT a method allocates, a trace says WHERE and WHY, and the
# same benchmark proves the fix — one perfpipe compare gate at each end.
#
#   examples/l1-l3-l1/l1-l3-l1.sh BEFORE-report-full.json TRACE.nettrace AFTER-report-full.json \
#       BENCHMARK [COVERS]
#   examples/l1-l3-l1/l1-l3-l1.sh tests/data/bench-alloc.report-full.json \
#       tests/data/alloc-gcverbose.nettrace tests/data/bench-noalloc.report-full.json \
#       Perfpipe.Benchmarks.KeyBench.FormatKeys MakeStrings
#
# BEFORE/AFTER: BenchmarkDotNet's JsonExporter.Full output of the benchmark run before and after
# the change (same job, same machine). TRACE: dotnet-trace --profile gc-verbose of the scenario the
# benchmark stands for. BENCHMARK: the benchmark that covers it; COVERS: frames/commands it covers
# (comma-separated; default: all). Writes everything into ${L1L3_DIR:-l1-l3-l1}/.
# Exit status: 0 when the fix holds at L1 (no case allocates more or got slower), 1 when it does not.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,16p' "$0" >&2; exit 2; }
before=$1 trace=$2 after=$3 bench=$4 covers=${5:-}
out=${L1L3_DIR:-l1-l3-l1}
perfpipe=${PERFPIPE:-perfpipe}
mkdir -p "$out"

echo "== L1: what the benchmark says before the change" >&2
"$perfpipe" bench "$before" --format json -o "$out/l1-before.json"
"$perfpipe" render "$out/l1-before.json" --table benchmarks >&2

echo "== L3: where the allocations come from, and what to change" >&2
set -- --set benchmark="$bench"
[ -z "$covers" ] || set -- "$@" --set benchmark_covers="$covers"
"$perfpipe" run alloc --input trace="$trace" "$@" --format json -o "$out/l3-alloc.json"
"$perfpipe" candidates "$out/l3-alloc.json" --top 5 --format markdown -o "$out/candidates.md"
echo "candidates (each with its verification plan, the benchmark step last): $out/candidates.md" >&2

echo "== L1 again: the same benchmark after the change" >&2
"$perfpipe" bench "$after" --format json -o "$out/l1-after.json"
set +e
"$perfpipe" compare "$out/l1-before.json" "$out/l1-after.json" --fail-on regression
status=$?
set -e
"$perfpipe" compare "$out/l1-before.json" "$out/l1-after.json" --format markdown -o "$out/l1-compare.md"
echo "evidence in $out/ (l1-before.json, l3-alloc.json, candidates.md, l1-after.json, l1-compare.md)" >&2
exit $status
