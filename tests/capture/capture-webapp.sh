#!/usr/bin/env bash
# Closed-loop fixtures for the compare gate (issues #34, #36): tests/webapp (a shop written for the
# purpose, five planted problems with fixed twins) under wrk, captured by `perfpipe collect -p PID`.
#   capture-webapp.sh [SHAPE]...   (default: all of nplus1 churn hotpath syncasync exceptions)
# Per shape, per connections N in 1 4, per variant bad, good, bad2 (a second capture of the bad
# route: the A/A pair): a fresh app, 2 s of warm-up on the route, then the capture runs for exactly
# wrk's window of a few seconds (collect starts, the session is up, wrk -t1 -cN -dD, then SIGINT: StopTracing and the
# rundown) so every request wrk counts was served inside the trace. wrk's report (with the JSON of
# examples/wrk-json/wrk-json.lua) is kept beside each trace as NAME.wrk.txt, and NAME.truth.json
# says the shape's truth (route, the bad/fixed method, queries per request) and wrk's request count.
# The traces are ~5 MB each, nearly all of it the same rundown (11 k method names): they are
# committed as ONE solid xz archive, tests/data/webapp/webapp.tar.xz, where the rundowns share.
set -euo pipefail
. "$(dirname "$0")/env.sh"
PERFPIPE=${PERFPIPE:-$PP_TESTS/../_build/perfpipe}
DLL="$PP_BUILD_DIR/webapp/bin/WebApp/release/WebApp.dll"
PORT=${PP_WEBAPP_PORT:-5710}
OUT="$PP_DATA/webapp"
# The traces before packing (kept across runs: capture one shape again, pack all).
STAGE="$PP_BUILD_DIR/webapp-captures"
mkdir -p "$STAGE"

[ -f "$DLL" ] || flock /tmp/pp-dotnet-build.lock dotnet build "$PP_TESTS/webapp/WebApp.csproj" -c Release >&2

# shape: profile analyzer bad-route good-route bad-method good-method seconds [c1: A/A at 1 connection only]
# (the database profile records every command with its stack, gc-verbose every GC and allocation
# tick: 10-40 MB a second under closed loop, so those windows are 1 s and their 4-connection second
# bad capture is dropped, to keep the archive within its 6 MB; the sampler's 4 s are ~2 MB)
shape() {
  case $1 in
    nplus1)     echo "database db totals/lazy totals/joined Shop.TotalsLazy Shop.TotalsJoined 1 c1" ;;
    churn)      echo "gc-verbose alloc invoice/churn invoice/pooled Shop.InvoiceChurn Shop.InvoicePooled 1 c1" ;;
    hotpath)    echo "dotnet-sampled-thread-time cpu digest/naive digest/table Shop.DigestNaive Shop.DigestTable 4" ;;
    syncasync)  echo "dotnet-sampled-thread-time cpu stock/blocking stock/awaited Shop.StockBlocking Shop.StockAwaited 4" ;;
    exceptions) echo "dotnet-sampled-thread-time cpu coupons/throwing coupons/trying Shop.CouponsThrowing Shop.CouponsTrying 4" ;;
    *) return 1 ;;
  esac
}

capture_one() { # shape connections variant(bad|good|bad2)
  local s=$1 c=$2 v=$3 prof an br gr bm gm D aa route method name app col
  read -r prof an br gr bm gm D aa < <(shape "$s")
  if [ "$v" = bad2 ] && [ "$c" != 1 ] && [ "${aa:-}" = c1 ]; then rm -f "$STAGE/webapp-$s-c$c-$v".* "$OUT/webapp-$s-c$c-$v".*; return 0; fi
  if [ "$v" = good ]; then route=$gr method=$gm; else route=$br method=$bm; fi
  name="webapp-$s-c$c-$v"
  rm -f "$STAGE/ready"
  dotnet "$DLL" --port "$PORT" --ready "$STAGE/ready" --db "$STAGE/shop.db" >/dev/null 2>"$STAGE/app.err" &
  app=$!
  for _ in $(seq 300); do [ -s "$STAGE/ready" ] && break; sleep 0.1; done
  [ -s "$STAGE/ready" ] || { pp_log "the app did not start: $(cat "$STAGE/app.err")"; kill "$app"; return 1; }
  local url="http://127.0.0.1:$PORT/shop/$route"
  wrk -t1 -c"$c" -d2s "$url" >/dev/null
  pp_log "$name: perfpipe collect -p $app --profile $prof; wrk -t1 -c$c -d${D}s $url"
  "$PERFPIPE" collect -p "$app" --profile "$prof" -q -o "$STAGE/$name.nettrace" 2>"$STAGE/col.err" &
  col=$!
  sleep 1   # the session is up well before this (EventPipe answers in ms)
  wrk -t1 -c"$c" -d"${D}s" --latency -s "$PP_TESTS/../examples/wrk-json/wrk-json.lua" "$url" -- c="$c" d="${D}s" \
    > "$STAGE/$name.wrk.txt"
  kill -INT "$col"
  wait "$col" || { pp_log "collect failed: $(cat "$STAGE/col.err")"; kill "$app"; return 1; }
  kill "$app"; wait "$app" || true
  rm -f "$STAGE/$name.nettrace.maps" "$STAGE"/shop.db*
  python3 - "$STAGE/$name" "$s" "$c" "$v" "$route" "$method" "$prof" "$an" "$bm" "$gm" "$D" "$app" <<'PY'
import json, sys
base, s, c, v, route, method, prof, an, bm, gm, d, pid = sys.argv[1:]
txt = open(base + ".wrk.txt").read()
w = json.loads(txt[txt.rindex('{"tool":"wrk"'):])
t = {"shape": s, "connections": int(c), "variant": v, "route": "/shop/" + route, "method": "WebApp." + method,
     "bad_method": "WebApp." + bm, "fixed_method": "WebApp." + gm, "profile": prof, "analyzer": an,
     "wrk_seconds": int(d), "requests": w["requests"], "status_codes": w["status_codes"], "pid": int(pid)}
if s == "nplus1":   # Shop.Customers = 3: the lazy route runs 1 + 3 queries per request, the joined one 1
    t["queries_per_request"] = 4 if v != "good" else 1
    t["repeated_per_request"] = 3 if v != "good" else 0
json.dump(t, open(base + ".truth.json", "w"), indent=1)
PY
  cp "$STAGE/$name.wrk.txt" "$STAGE/$name.truth.json" "$OUT"/
}

[ $# -gt 0 ] || set -- nplus1 churn hotpath syncasync exceptions
mkdir -p "$OUT"
for s in "$@"; do
  shape "$s" >/dev/null || { echo "unknown shape: $s" >&2; exit 2; }
  for c in 1 4; do for v in bad good bad2; do capture_one "$s" "$c" "$v"; done; done
done
# Solid, sorted by name. nplus1 at 4 connections stays out (60 + 31 MB of database events in its
# 1 s windows, ~2 MB packed: the 6 MB budget); its wrk results and truths are kept.
(cd "$STAGE" && ls webapp-*.nettrace | grep -v -- '-nplus1-c4-' | sort |
  tar -cf - --owner=0 --group=0 --mtime=@0 -T - | xz -9 -T1 > "$OUT/webapp.tar.xz.tmp")
mv "$OUT/webapp.tar.xz.tmp" "$OUT/webapp.tar.xz"
ls -l "$OUT/webapp.tar.xz" >&2
