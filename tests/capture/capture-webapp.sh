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
# GC mode (issue #45): PP_WEBAPP_GC=ws (the default: Workstation GC, as the app ships) or svr
# (Server GC, set both ways a deployment sets it: DOTNET_gcServer=1 in the environment and
# System.GC.Server=true in the runtimeconfig the app runs with). A svr capture is named
# webapp-svr-SHAPE-cN-VARIANT, its truth says "gc": "server" and how many ".NET Server GC"
# threads the process ran (read from /proc, one per heap), there is no bad2 (the A/A pairs are
# the Workstation set's), and its traces are a second solid archive, webapp-svr.tar.xz.
set -euo pipefail
. "$(dirname "$0")/env.sh"
export PERFPIPE=${PERFPIPE:-$PP_TESTS/../_build/perfpipe}
DLL="$PP_BUILD_DIR/webapp/bin/WebApp/release/WebApp.dll"
PORT=${PP_WEBAPP_PORT:-5710}
OUT="$PP_DATA/webapp"
# The traces before packing (kept across runs: capture one shape again, pack all).
STAGE="$PP_BUILD_DIR/webapp-captures"
GC=${PP_WEBAPP_GC:-ws}
case $GC in
  ws)  PFX=webapp VARIANTS="bad good bad2" ;;
  svr) PFX=webapp-svr VARIANTS="bad good" ;;
  *) echo "PP_WEBAPP_GC: ws or svr, not $GC" >&2; exit 2 ;;
esac
mkdir -p "$STAGE"

[ -f "$DLL" ] || flock /tmp/pp-dotnet-build.lock dotnet build "$PP_TESTS/webapp/WebApp.csproj" -c Release >&2
RUNCFG="${DLL%.dll}.runtimeconfig.json"
if [ "$GC" = svr ]; then   # the app's own runtimeconfig with System.GC.Server turned on
  RUNCFG="$STAGE/WebApp.svr.runtimeconfig.json"
  python3 - "${DLL%.dll}.runtimeconfig.json" "$RUNCFG" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c["runtimeOptions"].setdefault("configProperties", {})["System.GC.Server"] = True
json.dump(c, open(sys.argv[2], "w"), indent=2)
PY
fi

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

# The Server GC set's cap on the responses of a window (tests/capture/wrk-cap.lua; 0: none): the
# database and gc-verbose profiles record every command or allocation tick with its stack, so a
# capped window keeps nplus1 at 4 connections and churn inside the set's 4 MB (uncapped, nplus1
# alone packed to 4.1 MB: 25-32 MB a trace).
svr_cap() {
  case $1 in nplus1) echo 400 ;; churn) echo 3000 ;; *) echo 0 ;; esac
}

capture_one() { # shape connections variant(bad|good|bad2)
  local s=$1 c=$2 v=$3 prof an br gr bm gm D aa route method name app col cap=0 lua
  read -r prof an br gr bm gm D aa < <(shape "$s")
  if [ "$v" = bad2 ] && [ "$c" != 1 ] && [ "${aa:-}" = c1 ]; then rm -f "$STAGE/webapp-$s-c$c-$v".* "$OUT/webapp-$s-c$c-$v".*; return 0; fi
  if [ "$v" = good ]; then route=$gr method=$gm; else route=$br method=$bm; fi
  name="$PFX-$s-c$c-$v"
  rm -f "$STAGE/ready"
  if [ "$GC" = svr ]; then
    DOTNET_gcServer=1 dotnet exec --runtimeconfig "$RUNCFG" "$DLL" --port "$PORT" --ready "$STAGE/ready" \
      --db "$STAGE/shop.db" >/dev/null 2>"$STAGE/app.err" &
  else
    dotnet "$DLL" --port "$PORT" --ready "$STAGE/ready" --db "$STAGE/shop.db" >/dev/null 2>"$STAGE/app.err" &
  fi
  app=$!
  for _ in $(seq 300); do [ -s "$STAGE/ready" ] && break; sleep 0.1; done
  [ -s "$STAGE/ready" ] || { pp_log "the app did not start: $(cat "$STAGE/app.err")"; kill "$app"; return 1; }
  # the runtime names each Server GC thread ".NET Server GC" (one per heap); Workstation GC has none
  gcthreads=$(cat /proc/"$app"/task/*/comm 2>/dev/null | grep -c '^\.NET Server GC$' || true)
  if [ "$GC" = svr ] && [ "$gcthreads" -lt 1 ]; then pp_log "$name: no Server GC thread"; kill "$app"; return 1; fi
  local url="http://127.0.0.1:$PORT/shop/$route"
  wrk -t1 -c"$c" -d2s "$url" >/dev/null
  pp_log "$name: perfpipe collect -p $app --profile $prof; wrk -t1 -c$c -d${D}s $url"
  "$PERFPIPE" collect -p "$app" --profile "$prof" -q -o "$STAGE/$name.nettrace" 2>"$STAGE/col.err" &
  col=$!
  # the session is up in ms on a quiet machine; on a loaded one the file's first bytes say so.
  # The database profile's DiagnosticSource listener subscribes later still (at load 20 on 2
  # cores, windows of 0 and 1048 of 1600 commands were seen after 1 s): 3 s for it.
  for _ in $(seq 100); do [ -s "$STAGE/$name.nettrace" ] && break; sleep 0.1; done
  if [ "$prof" = database ]; then sleep 3; else sleep 1; fi
  [ "$GC" = ws ] || cap=$(svr_cap "$s")
  lua="$PP_TESTS/../examples/wrk-json/wrk-json.lua"
  if [ "$cap" -gt 0 ]; then
    WRK_JSON_LUA="$lua" wrk -t1 -c"$c" -d"${D}s" --latency -s "$PP_TESTS/capture/wrk-cap.lua" "$url" \
      -- c="$c" d="${D}s" max="$cap" > "$STAGE/$name.wrk.txt"
  else
    wrk -t1 -c"$c" -d"${D}s" --latency -s "$lua" "$url" -- c="$c" d="${D}s" > "$STAGE/$name.wrk.txt"
  fi
  kill -INT "$col"
  wait "$col" || { pp_log "collect failed: $(cat "$STAGE/col.err")"; kill "$app"; return 1; }
  kill "$app"; wait "$app" || true
  rm -f "$STAGE/$name.nettrace.maps" "$STAGE"/shop.db*
  python3 - "$STAGE/$name" "$s" "$c" "$v" "$route" "$method" "$prof" "$an" "$bm" "$gm" "$D" "$app" "$GC" "$gcthreads" "$cap" <<'PY'
import json, sys
base, s, c, v, route, method, prof, an, bm, gm, d, pid, gc, gct, cap = sys.argv[1:]
txt = open(base + ".wrk.txt").read()
w = json.loads(txt[txt.rindex('{"tool":"wrk"'):])
t = {"shape": s, "connections": int(c), "variant": v, "route": "/shop/" + route, "method": "WebApp." + method,
     "bad_method": "WebApp." + bm, "fixed_method": "WebApp." + gm, "profile": prof, "analyzer": an,
     "wrk_seconds": int(d), "requests": w["requests"], "status_codes": w["status_codes"], "pid": int(pid)}
if gc == "svr":   # the Workstation set's truths predate the switch and carry no gc field
    t["gc"] = "server"
    t["gc_set_by"] = ["DOTNET_gcServer=1", "runtimeconfig System.GC.Server=true"]
    t["gc_server_threads"] = int(gct)
if int(cap):      # wrk stopped after this many responses (wrk-cap.lua), inside its -d window
    t["wrk_max_responses"] = int(cap)
if s == "nplus1":   # Shop.Customers = 3: the lazy route runs 1 + 3 queries per request, the joined one 1
    t["queries_per_request"] = 4 if v != "good" else 1
    t["repeated_per_request"] = 3 if v != "good" else 0
    # The trace must hold every command of the requests wrk counted (up to the c requests in
    # flight at the end more): a loaded machine once gave a window whose DiagnosticSource
    # listener was not yet subscribed (0 commands for 42 requests). Counted by perfpipe db.
    import os, subprocess
    d = json.loads(subprocess.run([os.environ["PERFPIPE"], "db", base + ".nettrace", "--format", "json",
                                   "--top", "0"], check=True, capture_output=True).stdout)
    bc = next((x for x in d["stages"][0]["tables"] if x["name"] == "by_command"), None)
    n = sum(r[[c["name"] for c in bc["columns"]].index("count")] for r in bc["rows"]) if bc else 0
    want = t["queries_per_request"] * w["requests"]
    if not want <= n <= want + t["queries_per_request"] * int(c):
        print("%s: %d commands in the trace for %d requests (want %d)" % (base, n, w["requests"], want))
        sys.exit(3)
json.dump(t, open(base + ".truth.json", "w"), indent=1)
# a window with no response counted (seen once on the loaded 2-core VM: the app served the
# capped requests, wrk reported none) is no capture
sys.exit(0 if w["requests"] > 0 else 3)
PY
  [ $? = 0 ] || { pp_log "$name: wrk counted no request, or the trace lacks commands"; return 1; }
  cp "$STAGE/$name.wrk.txt" "$STAGE/$name.truth.json" "$OUT"/
}

[ $# -gt 0 ] || set -- nplus1 churn hotpath syncasync exceptions
mkdir -p "$OUT"
for s in "$@"; do
  shape "$s" >/dev/null || { echo "unknown shape: $s" >&2; exit 2; }
  for c in 1 4; do for v in $VARIANTS; do
    capture_one "$s" "$c" "$v" || { pp_log "once more: $s c$c $v"; capture_one "$s" "$c" "$v"; }
  done; done
done
# Solid, sorted by name. In the Workstation set nplus1 at 4 connections stays out (60 + 31 MB of
# database events in its 1 s windows, ~2 MB packed: the 6 MB budget); its wrk results and truths
# are kept. The Server GC set has it (PACK_SVR below).
if [ "$GC" = ws ]; then
  (cd "$STAGE" && ls webapp-*.nettrace | grep -v -- '-nplus1-c4-' | grep -v '^webapp-svr-' | sort |
    tar -cf - --owner=0 --group=0 --mtime=@0 -T - | xz -9 -T1 > "$OUT/webapp.tar.xz.tmp")
  mv "$OUT/webapp.tar.xz.tmp" "$OUT/webapp.tar.xz"
  ls -l "$OUT/webapp.tar.xz" >&2
  exit 0
fi
# The Server GC set: its own solid archive (webapp-svr.tar.xz, 20 traces, ~3.7 MB; zstd -19 per
# file packs the same traces to 7.1 MB: the rundowns are shared only in a solid archive).
(cd "$STAGE" && ls webapp-svr-*.nettrace | sort |
  tar -cf - --owner=0 --group=0 --mtime=@0 -T - | xz -9 -T1 > "$OUT/webapp-svr.tar.xz.tmp")
mv "$OUT/webapp-svr.tar.xz.tmp" "$OUT/webapp-svr.tar.xz"
ls -l "$OUT/webapp-svr.tar.xz" >&2

