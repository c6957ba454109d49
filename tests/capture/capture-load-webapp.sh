#!/usr/bin/env bash
# Per-request load fixtures (issue #36: compare's quantile test on the tool's own sample):
# hey -o csv (one line per request) against tests/webapp's /shop/checkout in its bad build
# (InvoiceChurn + DigestNaive) and its fixed build (--fixed 1: InvoicePooled + DigestTable):
# the same URL and knobs, so compare judges them without --map. `bad2` is a second run of the
# bad build in a fresh process: the A/A pair. Each variant: a fresh app, 2 s of hey warm-up,
# then `hey -n N -c C -o csv`. Then tests/capture/k6-from-hey.py writes its first 250 requests
# as k6 `--out json` lines and vegeta-from-hey.py as vegeta results lines (`vegeta encode --to
# json`): neither tool can be installed here; their formats, the real latencies.
#   capture-load-webapp.sh [PORT]   (default 5250, loopback only)
set -euo pipefail
. "$(dirname "$0")/env.sh"
DLL="$PP_BUILD_DIR/webapp/bin/WebApp/release/WebApp.dll"
PORT=${1:-5250}
N=${PP_HEY_N:-1000}
C=${PP_HEY_C:-4}
OUT="$PP_DATA/load"
STAGE=$(mktemp -d)
app=
trap '[ -z "$app" ] || kill "$app" 2>/dev/null || true; rm -rf "$STAGE"' EXIT INT TERM
command -v hey >/dev/null || { echo "capture-load-webapp: hey is not installed (apt-get install hey)" >&2; exit 77; }
[ -f "$DLL" ] || flock /tmp/pp-dotnet-build.lock dotnet build "$PP_TESTS/webapp/WebApp.csproj" -c Release >&2
url="http://127.0.0.1:$PORT/shop/checkout"
for v in bad fixed bad2; do
  fixed=(); [ "$v" = fixed ] && fixed=(--fixed 1)
  rm -f "$STAGE/ready"
  dotnet "$DLL" --port "$PORT" --ready "$STAGE/ready" --db "$STAGE/shop.db" "${fixed[@]}" >/dev/null 2>"$STAGE/app.err" &
  app=$!
  for _ in $(seq 300); do [ -s "$STAGE/ready" ] && break; sleep 0.1; done
  [ -s "$STAGE/ready" ] || { echo "the app did not start: $(cat "$STAGE/app.err")" >&2; exit 1; }
  hey -z 2s -c "$C" "$url" >/dev/null
  hey -n "$N" -c "$C" -o csv "$url" > "$OUT/hey-checkout-$v.csv"
  kill "$app"; wait "$app" 2>/dev/null || true; app=
  python3 "$PP_TESTS/capture/k6-from-hey.py" "$OUT/hey-checkout-$v.csv" "$url" "$C" 250 \
    > "$OUT/k6-checkout-$v.ndjson"
  python3 "$PP_TESTS/capture/vegeta-from-hey.py" "$OUT/hey-checkout-$v.csv" "$url" 250 \
    > "$OUT/vegeta-checkout-$v.ndjson"
done
echo "capture-load-webapp: hey -n $N -c $C -o csv $url (bad, fixed, bad2) into $OUT"
