#!/usr/bin/env bash
# BenchmarkDotNet exports of tests/benchmarks (issue #23): the L1 fixtures of the bench reader,
# analyzer and compare. KeyBench runs in BenchmarkDotNet's ShortRun job (1 launch, 3 warm-up and
# 3 measured iterations per case; about 35 s per run on 2 cores) twice:
#   alloc   -> bench-alloc.report-full.json (+ .report-github.md, .report.csv)   FormatKeys builds strings
#   noalloc -> bench-noalloc.report-full.json (...)                               FormatKeys formats into a stack buffer
# Checksum is the same code in both runs. BenchmarkDotNet's markdown table is kept beside each JSON
# export: the tests check perfpipe's allocated bytes/op against it. Not part of CI (too slow):
# the outputs are committed fixtures. Writes into $PP_DATA; MANIFEST rows to $PP_MANIFEST_DIR if set.
#   capture-bench.sh [alloc|noalloc]...   (default: both)
set -euo pipefail
. "$(dirname "$0")/env.sh"
PP_BENCH_VERSION=0.15.8            # BenchmarkDotNet (tests/benchmarks/Benchmarks.csproj)
PP_BENCH_DLL="$PP_BUILD_DIR/benchmarks/bin/Benchmarks/release/Benchmarks.dll"
RT=$(pp_runtime_version)

pp_log "building tests/benchmarks (BenchmarkDotNet $PP_BENCH_VERSION)"
dotnet build "$PP_TESTS/benchmarks/Benchmarks.csproj" -c Release -nologo -v q -m:1 >&2

bench_run() { # variant
  local v=$1 out; out=$(mktemp -d /tmp/pp-bench.XXXXXX)
  pp_log "BenchmarkDotNet ShortRun, PP_BENCH_VARIANT=$v"
  # BenchmarkDotNet finds the project to build its runner from the current directory.
  ( cd "$PP_TESTS/benchmarks" && PP_BENCH_VARIANT=$v dotnet "$PP_BENCH_DLL" "$out" >"$out/run.log" 2>&1 ) ||
    { pp_log "benchmark run failed: see $out/run.log"; return 1; }
  local base="$out/results/Perfpipe.Benchmarks.KeyBench-report"
  for ext in full.json github.md; do [ -s "$base-$ext" ] || { pp_log "missing $base-$ext"; return 1; }; done
  cp "$base-full.json" "$PP_DATA/bench-$v.report-full.json"
  cp "$base-github.md" "$PP_DATA/bench-$v.report-github.md"
  cp "$base.csv" "$PP_DATA/bench-$v.report.csv"
  rm -rf "$out"
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  # BenchmarkDotNet's own markdown table is the reference ("truth" column) of both exports.
  local f
  for f in bench-$v.report-full.json bench-$v.report.csv; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$f" bench "KeyBench" "PP_BENCH_VARIANT=$v job=ShortRun" \
      "bench-$v.report-github.md" - \
      "$RT" BenchmarkDotNet "$PP_BENCH_VERSION" \
      "cd tests/benchmarks && PP_BENCH_VARIANT=$v dotnet \$BENCHMARKS ARTIFACTS (JsonExporter.Full, CsvExporter, MarkdownExporter.GitHub)" \
      > "$PP_MANIFEST_DIR/$f"
  done
}

[ $# -gt 0 ] || set -- alloc noalloc
for v in "$@"; do
  case $v in
    alloc|noalloc) bench_run "$v" ;;
    *) echo "unknown variant: $v (alloc or noalloc)" >&2; exit 2 ;;
  esac
done
