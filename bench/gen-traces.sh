#!/usr/bin/env bash
# gen-traces.sh: generate (once) the production-shaped bench traces from bench/workload.
#
#   bench/gen-traces.sh [--only alloc|cpu] [--force]
#
# Into $PP_BENCH_DIR (default ~/.cache/perfpipe-bench; refused inside the repo), never committed:
#   alloc-deep.nettrace     dotnet-trace --profile gc-verbose on `BenchWorkload alloc`: deep,
#                           varied stacks (6..66 service frames + framework frames), >= 1 GB
#                           ($PP_BENCH_ALLOC_MB, default 1100). A 10 s probe capture measures the
#                           trace rate; the capture is repeated longer until it passes the target.
#   cpu-deep-{s,m,l}.nettrace  --profile dotnet-sampled-thread-time on `BenchWorkload cpu` for
#                           $PP_BENCH_CPU_SECONDS (default "30 60 120") seconds: 2 busy threads,
#                           48 sleepers that block at the end of a fresh path every 1-6 ms, so
#                           the distinct stacks grow with the run (the largest has >= 300 k).
# Each trace gets a .command file with the exact capture command and a .log.
# Needs the .NET 10 SDK and the test bed's dotnet-trace (tests/capture/env.sh installs it).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
. "$REPO/tests/capture/env.sh"

ONLY="" FORCE=0
while [ $# -gt 0 ]; do
  case $1 in
    --only) ONLY=$2; shift ;;
    --force) FORCE=1 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "gen-traces.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done

PP_BENCH_DIR="${PP_BENCH_DIR:-$HOME/.cache/perfpipe-bench}"
PP_BENCH_ALLOC_MB="${PP_BENCH_ALLOC_MB:-1100}"
PP_BENCH_CPU_SECONDS="${PP_BENCH_CPU_SECONDS:-30 60 120}"
# 6..66 service frames a stack (about 45 frames with the framework's), 200 k paths.
ALLOC_KNOBS=(--depth 60 --paths 200000)
mkdir -p "$PP_BENCH_DIR"
PP_BENCH_DIR="$(cd "$PP_BENCH_DIR" && pwd)"
case "$PP_BENCH_DIR/" in "$REPO"/*) echo "gen-traces.sh: PP_BENCH_DIR must be outside the repo" >&2; exit 2 ;; esac

BW_DLL="$PP_BUILD_DIR/bench-workload/bin/BenchWorkload/release/BenchWorkload.dll"
[ -x "$PP_TRACE" ] || pp_install_tools
if [ ! -f "$BW_DLL" ] || [ "$HERE/workload/Program.cs" -nt "$BW_DLL" ]; then
  pp_log "building bench/workload"
  dotnet build "$HERE/workload/BenchWorkload.csproj" -c Release -nologo -v q -m:1 >&2
fi

# capture OUT PROFILE ARGS...: one dotnet-trace capture of BenchWorkload, with its .command.
capture() {
  local out=$1 profile=$2; shift 2
  rm -f "$out"
  printf '%s collect --profile %s -o %s -- dotnet %s %s\n' "$PP_TRACE" "$profile" "$out" "$BW_DLL" "$*" \
    > "${out%.nettrace}.command"
  "$PP_TRACE" collect --profile "$profile" -o "$out" -- dotnet "$BW_DLL" "$@" > "${out%.nettrace}.log" 2>&1
  [ -s "$out" ] || { pp_log "capture failed: see ${out%.nettrace}.log"; exit 1; }
  pp_log "$(basename "$out"): $(stat -c %s "$out") bytes"
}

if [ -z "$ONLY" ] || [ "$ONLY" = alloc ]; then
  T="$PP_BENCH_DIR/alloc-deep.nettrace"
  if [ "$FORCE" = 1 ] || [ ! -s "$T" ]; then
    capture "$PP_BENCH_DIR/probe-alloc.nettrace" gc-verbose alloc "${ALLOC_KNOBS[@]}" --seconds 10
    s=$(stat -c %s "$PP_BENCH_DIR/probe-alloc.nettrace")
    secs=$(( (PP_BENCH_ALLOC_MB * 1000000 / (s / 10)) * 12 / 10 + 1 ))
    rm -f "$PP_BENCH_DIR"/probe-alloc.*
    # The rate follows the machine's load: capture again, longer, until the target is passed.
    for attempt in 1 2 3; do
      pp_log "alloc capture $attempt: $secs s for $PP_BENCH_ALLOC_MB MB"
      capture "$T" gc-verbose alloc "${ALLOC_KNOBS[@]}" --seconds "$secs"
      s=$(stat -c %s "$T")
      [ "$s" -lt $((PP_BENCH_ALLOC_MB * 1000000)) ] || break
      secs=$(( secs * (PP_BENCH_ALLOC_MB * 1000000 / (s / 100)) / 100 * 12 / 10 + 1 ))
    done
  fi
fi
if [ -z "$ONLY" ] || [ "$ONLY" = cpu ]; then
  set -- s m l
  for secs in $PP_BENCH_CPU_SECONDS; do
    T="$PP_BENCH_DIR/cpu-deep-$1.nettrace"; shift || true
    if [ "$FORCE" = 1 ] || [ ! -s "$T" ]; then
      capture "$T" dotnet-sampled-thread-time cpu --seconds "$secs"
    fi
  done
fi
