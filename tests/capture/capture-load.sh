#!/bin/sh
# The L2 load fixtures (tests/data/load/): wrk and hey, the Debian packages,
# against tests/capture/load-server.py on loopback: its /api endpoint in the
# bad build (20 ms a request, every 10th a 500) and in the fixed one. Each
# output gets a .truth.json: the tool's own printed figures, parsed by
# load-truth.py (independently of perfpipe's reader). About 25 s.
# Usage: tests/capture/capture-load.sh [PORT]   (default 5400, loopback only)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out="$here/../data/load"
port=${1:-5400}
command -v wrk >/dev/null || { echo "capture-load: wrk is not installed (apt-get install wrk)" >&2; exit 77; }
command -v hey >/dev/null || { echo "capture-load: hey is not installed (apt-get install hey)" >&2; exit 77; }
mkdir -p "$out"
url="http://127.0.0.1:$port/api"
lua="$here/../../examples/wrk-json/wrk-json.lua"
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null || true' EXIT INT TERM

for build in bad fixed; do
    python3 "$here/load-server.py" "$port" "$build" &
    server=$!
    sleep 1
    wrk -t2 -c8 -d3s --latency "$url" > "$out/wrk-$build.txt"
    WRK_JSON="$out/wrk-$build.json" wrk -t2 -c8 -d3s --latency -s "$lua" "$url" -- c=8 d=3s \
        > "$out/wrk-$build.json.txt"
    hey -n 400 -c 8 "$url" > "$out/hey-$build.txt"
    if [ "$build" = fixed ]; then
        # Other knobs: twice the connections (compare refuses to judge).
        wrk -t2 -c16 -d3s --latency "$url" > "$out/wrk-fixed-c16.txt"
        hey -n 200 -c 8 -o csv "$url" > "$out/hey-fixed.csv"
    fi
    kill "$server"
    wait "$server" 2>/dev/null || true
    server=
done

for f in "$out"/wrk-bad.txt "$out"/wrk-fixed.txt "$out"/wrk-fixed-c16.txt "$out"/hey-bad.txt \
         "$out"/hey-fixed.txt "$out"/wrk-bad.json.txt "$out"/wrk-fixed.json.txt; do
    python3 "$here/load-truth.py" "$f" > "${f%.txt}.truth.json"
done
echo "capture-load: wrote $(ls "$out" | wc -l) files to $out"
