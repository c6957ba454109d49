#!/usr/bin/env bash
# perfpipe collect --gcdump vs dotnet-gcdump collect, side by side in one run, on the same live
# process: wall time, CPU seconds (user+sys) and peak RSS of the tool, per million heap objects.
#
#   bench/capture/bench-gcdump-collect.sh [SESSIONS...]   (default: 250000 1000000; markdown table)
#
# Heap: the test bed's leak scenario at its first gate with --initial SESSIONS (each LeakedSession
# holds a byte[256]: two objects per session, plus the runtime's few thousand), quiet churn. For
# each size one process is started; after one warm-up snapshot (the first EventPipe sessions of a
# process make objects of their own) the tools take ROUNDS (default 2) snapshots each, in
# alternating order, of the same unchanging heap. Objects = nodes of the written .gcdump (read by
# perfpipe). Peak RSS and CPU from /usr/bin/time. Needs the .NET SDK and a built perfpipe.
set -euo pipefail
ROUNDS=${ROUNDS:-2}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../tests/capture/env.sh"
PERFPIPE=${PERFPIPE:-$HERE/../../_build/perfpipe}
[ -x "$PERFPIPE" ] || { echo "PERFPIPE ($PERFPIPE) is not executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
pp_install_tool dotnet-gcdump >/dev/null
flock /tmp/pp-dotnet-build.lock dotnet build "$PP_TESTS/workload/Workload.csproj" -c Release -nologo -v q -m:1 >/dev/null
WORK=$(mktemp -d /tmp/pp-bench-gcdump.XXXXXX)
WL=
trap '[ -n "$WL" ] && kill $WL 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"
[ $# -gt 0 ] || set -- 250000 1000000

# measure TOOL OUT: one snapshot, "wall user sys maxrss_kb" appended to OUT.time
measure() {
  local tool=$1 out=$2
  if [ "$tool" = perfpipe ]; then
    /usr/bin/time -f "%e %U %S %M" -o "$out.time" "$PERFPIPE" collect --gcdump -p "$PID" -o "$out" -q --timeout 300s
  else
    /usr/bin/time -f "%e %U %S %M" -o "$out.time" "$PP_GCDUMP" collect -p "$PID" -o "$out" --timeout 300 > /dev/null
  fi
}

echo "| heap objects | tool | wall s | CPU s | CPU s / M objects | peak RSS MB | RSS MB / M objects | file MB |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in "$@"; do
  rm -rf sig; mkdir sig
  dotnet "$PP_WORKLOAD_DLL" leak --initial "$n" --leak 0 --churn-per-ms 1 --signal-dir sig > wl.out 2>&1 &
  WL=$!
  for _ in $(seq 1200); do [ -e sig/snapshot1.ready ] && break; sleep 0.1; done
  PID=$(cat sig/snapshot1.ready)
  measure perfpipe warm.gcdump
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then order="perfpipe dotnet-gcdump"; else order="dotnet-gcdump perfpipe"; fi
    for t in $order; do measure "$t" "$t-$n-$r.gcdump"; done
  done
  touch sig/snapshot1.go sig/snapshot2.go
  wait "$WL" || true
  WL=
  for t in perfpipe dotnet-gcdump; do
    for r in $(seq "$ROUNDS"); do
      f="$t-$n-$r.gcdump"
      nodes=$("$PERFPIPE" gcdump "$f" --format json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["inputs"][0]["gcdump"]["nodes"])')
      read -r wall user sys rss < "$f.time"
      python3 - "$nodes" "$t" "$wall" "$user" "$sys" "$rss" "$(stat -c %s "$f")" <<'EOF'
import sys
nodes, tool, wall, user, sys_, rss, size = sys.argv[1:]
nodes, wall, cpu, rss, size = int(nodes), float(wall), float(user) + float(sys_), int(rss) / 1024, int(size) / 1e6
m = nodes / 1e6
print(f"| {nodes:,} | {tool} | {wall:.2f} | {cpu:.2f} | {cpu / m:.2f} | {rss:.0f} | {rss / m:.0f} | {size:.1f} |")
EOF
    done
  done
done
