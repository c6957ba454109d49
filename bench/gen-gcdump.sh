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
dotnet build "$HERE/workload/BenchWorkload.csproj" -c Release -nologo -v q -m:1 >&2
SIG=$(mktemp -d /tmp/pp-gen-gcdump.XXXXXX)
WL=
trap '[ -n "$WL" ] && kill "$WL" 2>/dev/null; rm -rf "$SIG"' EXIT
wait_for() { for _ in $(seq 3000); do [ -e "$SIG/$1" ] && return 0; kill -0 "$WL" 2>/dev/null || return 1; sleep 0.1; done; return 1; }
dotnet "$BW_DLL" heap --objects "$OBJECTS" --grow "$GROW" --signal-dir "$SIG" >&2 &
WL=$!
wait_for ready1 || { echo "the heap workload did not get ready" >&2; exit 1; }
PID=$(cat "$SIG/ready1")
"$PP_GCDUMP" collect -p "$PID" -o "$OUT/heap-base.gcdump" --timeout 600 >&2
touch "$SIG/go1"
wait_for ready2 || { echo "the heap workload did not grow" >&2; exit 1; }
"$PP_GCDUMP" collect -p "$PID" -o "$OUT/heap-grown.gcdump" --timeout 600 >&2
touch "$SIG/go2"
wait "$WL"
WL=
ls -l "$OUT"/heap-base.gcdump "$OUT"/heap-grown.gcdump >&2
