#!/bin/bash
# A diagnosis session's wall time against the durations asked for, and its drop count, on
# tests/webapp under wrk (issue #38: "wall time = the durations + under 10 s; drop count 0").
#   session-wall.sh [AXES] [SECONDS] [ROUTE] [CONNECTIONS]
#   (default alloc,cpu,db,gc,heap 5 /shop/checkout 4)
# Prints, per capture, its seconds, events, events per second and dropped events (session.json),
# then the session's wall time, the time asked for (counters + one trace per capture) and the
# overhead. Figures on a shared machine are noisy: say so beside them (bench/RESULTS.md).
set -euo pipefail
PERFPIPE=${PERFPIPE:-$(dirname "$0")/../../_build/perfpipe}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
AXES=${1:-alloc,cpu,db,gc,heap} D=${2:-5} ROUTE=${3:-/shop/checkout} C=${4:-4}
export PP_BUILD_DIR=${PP_BUILD_DIR:-$HOME/.cache/perfpipe-build}
DLL=$PP_BUILD_DIR/webapp/bin/WebApp/release/WebApp.dll
[ -f "$DLL" ] || flock /tmp/pp-dotnet-build.lock dotnet build "$SRC/tests/webapp/WebApp.csproj" -c Release >&2
tmp=$(mktemp -d); app=
trap '[ -n "$app" ] && kill $app; rm -rf "$tmp"' EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
dotnet "$DLL" --port "$port" --ready "$tmp/ready" --db "$tmp/shop.db" >/dev/null 2>&1 &
app=$!
for _ in $(seq 300); do [ -s "$tmp/ready" ] && break; sleep 0.1; done
url=http://127.0.0.1:$port$ROUTE
wrk -t1 -c"$C" -d2s "$url" >/dev/null          # warm-up: JIT, the database's seed
t0=$(date +%s.%N)
"$PERFPIPE" diagnose -p "$app" -o "$tmp/ev" --axes "$AXES" --duration "$D" \
  --load "wrk -t1 -c$C -d${D}s $url"
t1=$(date +%s.%N)
python3 - "$tmp/ev/session.json" "$t0" "$t1" "$D" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); wall = float(sys.argv[3]) - float(sys.argv[2]); d = float(sys.argv[4])
asked = d * len([c for c in s["captures"] if "events" in c])
for c in s["captures"]:
    if "events" in c:
        print("%-10s %6.2f s %9d events %9.0f events/s %d dropped" % (c["name"], c["elapsed_s"], c["events"],
              c["events"] / c["elapsed_s"], c["dropped_events"]))
    else:
        print("%-10s %6.2f s heap snapshot, %d objects" % (c["name"], c["elapsed_s"], c["objects"]))
print("wall %.1f s for %.0f s of traces asked for: %.1f s over (%s); %d events dropped" %
      (wall, asked, wall - asked, ", ".join("%s %.2f s" % kv for kv in s["times"].items()), s["dropped_events"]))
PY
