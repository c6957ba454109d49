#!/usr/bin/env bash
# perfpipe collect vs dotnet-trace collect, side by side in one run, on the same workload under load:
# events and bytes kept up per second, and events dropped by the runtime (sequence-number gaps,
# counted by perfpipe's reader on both files, and TraceEvent's EventsLost on both).
#
#   bench/capture/bench-capture.sh [ROUNDS]      (default 2; prints a markdown table)
#
# Load: the test bed's `churn` scenario at MB_PER_SEC (default 400 MB/s of byte[1000]) for SECONDS
# (default 6) with gc-verbose + dotnet-sampled-thread-time: ~4,000 AllocationTicks/s and the sampler's
# thread samples with stacks. Each round runs the tools one after the other on fresh processes, in
# alternating order. Needs the .NET SDK (dotnet-trace from tests/capture/env.sh) and a built perfpipe.
set -euo pipefail
ROUNDS=${1:-2}
SECONDS_RUN=${SECONDS_RUN:-6}
MB_PER_SEC=${MB_PER_SEC:-400}
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/../../tests/capture/env.sh"
PERFPIPE=${PERFPIPE:-$HERE/../../_build/perfpipe}
[ -x "$PERFPIPE" ] || { echo "PERFPIPE ($PERFPIPE) is not executable" >&2; exit 2; }
pp_install_tool dotnet-trace >/dev/null
pp_build >/dev/null
WORK=$(mktemp -d /tmp/pp-bench-capture.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
PROFILE=gc-verbose,dotnet-sampled-thread-time

# one TOOL ROUND: start the workload at its gate, attach, release, wait for the end of the capture.
one() {
  local tool=$1 r=$2 out="$1-$2.nettrace" pid
  mkfifo gate-$tool-$r
  dotnet "$PP_WORKLOAD_DLL" churn --seconds "$SECONDS_RUN" --mb-per-sec "$MB_PER_SEC" --wait-for-attach \
    < gate-$tool-$r > wl-$tool-$r.out 2>&1 &
  local wl=$!
  exec {g}>gate-$tool-$r
  for _ in $(seq 100); do pid=$(awk '/^PID /{print $2; exit}' wl-$tool-$r.out); [ -n "$pid" ] && break; sleep 0.1; done
  local t0 t1
  if [ "$tool" = perfpipe ]; then
    "$PERFPIPE" collect -p "$pid" --profile "$PROFILE" -o "$out" -q &
  else
    "$PP_TRACE" collect -p "$pid" --profile "$PROFILE" -o "$out" > /dev/null &
  fi
  local c=$!
  sleep 1.5
  t0=$(date +%s.%N)
  echo go >&$g; exec {g}>&-
  wait $wl || true
  wait $c || true
  t1=$(date +%s.%N)
  local stats
  stats=$("$PERFPIPE" inspect --format json "$out" | python3 -c '
import json, sys
t = {k: v["value"] for k, v in json.load(sys.stdin)["stages"][0]["totals"].items()}
print(t["events"], t["bytes"], t["dropped_events"], t["duration"] / 1e9)')
  local lost
  lost=$(dotnet "$PP_ORACLE_DLL" --no-tracelog "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["trace"]["events_lost"])')
  echo "$tool $r $stats $lost"
}

echo "# $(date -u +%FT%TZ) churn --seconds $SECONDS_RUN --mb-per-sec $MB_PER_SEC, profile $PROFILE, $ROUNDS rounds" >&2
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then one perfpipe "$r"; one dotnet-trace "$r"; else one dotnet-trace "$r"; one perfpipe "$r"; fi
done > results.txt
python3 - "$SECONDS_RUN" "$MB_PER_SEC" <<'EOF'
import sys
print(f"| tool | round | events | MB | trace span s | events/s | MB/s | dropped (seq gaps) | TraceEvent EventsLost |")
print("|---|---|---|---|---|---|---|---|---|")
for line in open("results.txt"):
    tool, r, ev, b, drop, span, lost = line.split()
    ev, b, span = int(ev), int(b), float(span)
    print(f"| {tool} | {r} | {ev:,} | {b/1e6:.1f} | {span:.2f} | {ev/span:,.0f} | {b/1e6/span:.1f} | {drop} | {lost} |")
EOF
