#!/usr/bin/env bash
# Make the bench heap snapshots (never committed): dotnet-gcdump collect on `BenchWorkload heap`
# (bench/workload/HeapScenario.cs: a category tree with parent pointers, customers held by a
# dictionary and a list, order chains, order lines into a shared catalog, a ~400 k-deep journal
# list, a cache, 48 generic payload types).
#
#   bench/gen-gcdump.sh [OBJECTS] [GROW_PERCENT]     (default 5200000 12)
#
# Writes $PP_BENCH_DIR/heap-base.gcdump (about OBJECTS objects) and heap-grown.gcdump (the same
# process after GROW_PERCENT % more customers and payloads: a leak, for gcdump-diff).
# PP_BENCH_DIR defaults to /tmp/perfpipe-bench and must be outside the repository.
# PP_GEN_TOOL=perfpipe takes the snapshots with `perfpipe collect --gcdump` (PERFPIPE, default
# _build/perfpipe) instead: dotnet-gcdump stops at 10,000,000 nodes (docs/limits.md), so heaps past
# that are perfpipe's captures.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../tests/capture/env.sh"
OBJECTS=${1:-5200000}
GROW=${2:-12}
OUT=${PP_BENCH_DIR:-/tmp/perfpipe-bench}
case "$(cd "$(dirname "$OUT")" && pwd)/$(basename "$OUT")/" in
  "$(cd "$HERE/.." && pwd)"/*) echo "PP_BENCH_DIR must be outside the repository" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
pp_install_tool dotnet-gcdump >/dev/null
BW_DLL="$PP_BUILD_DIR/bench-workload/bin/BenchWorkload/release/BenchWorkload.dll"
flock /tmp/pp-dotnet-build.lock dotnet build "$HERE/workload/BenchWorkload.csproj" -c Release -nologo -v q -m:1 >&2
PERFPIPE=${PERFPIPE:-$HERE/../_build/perfpipe}
snap() { # PID OUT
  if [ "${PP_GEN_TOOL:-dotnet-gcdump}" = perfpipe ]; then
    /usr/bin/time -f "perfpipe collect: %e s wall, %M KB peak RSS" "$PERFPIPE" collect --gcdump -p "$1" -o "$2" -q --timeout 600s >&2
  else
    "$PP_GCDUMP" collect -p "$1" -o "$2" --timeout 600 >&2
  fi
}
SIG=$(mktemp -d /tmp/pp-gen-gcdump.XXXXXX)
WL=
trap '[ -n "$WL" ] && kill "$WL" 2>/dev/null; rm -rf "$SIG"' EXIT
wait_for() { for _ in $(seq 3000); do [ -e "$SIG/$1" ] && return 0; kill -0 "$WL" 2>/dev/null || return 1; sleep 0.1; done; return 1; }
dotnet "$BW_DLL" heap --objects "$OBJECTS" --grow "$GROW" --signal-dir "$SIG" >&2 &
WL=$!
wait_for ready1 || { echo "the heap workload did not get ready" >&2; exit 1; }
PID=$(cat "$SIG/ready1")
snap "$PID" "$OUT/heap-base.gcdump"
touch "$SIG/go1"
wait_for ready2 || { echo "the heap workload did not grow" >&2; exit 1; }
# perfpipe's first snapshot may have needed a second session with a big buffer (1.3 GB for a
# 21 M-object heap), which the runtime is still freeing: its next IPC command can time out.
[ "${PP_GEN_TOOL:-dotnet-gcdump}" = perfpipe ] && sleep 20
snap "$PID" "$OUT/heap-grown.gcdump"
touch "$SIG/go2"
wait "$WL"
WL=
ls -l "$OUT"/heap-base.gcdump "$OUT"/heap-grown.gcdump >&2
