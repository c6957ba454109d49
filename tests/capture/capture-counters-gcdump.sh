#!/usr/bin/env bash
# dotnet-counters (csv + json) on a steady-churn run and on the leak run; dotnet-gcdump before/after the leak.
#   capture-counters-gcdump.sh [churn|leak]...   (default: churn leak)
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'
RT=$(pp_runtime_version)
SIG=$(mktemp -d /tmp/pp-sig.XXXXXX)
trap 'rm -rf "$SIG"' EXIT

manifest() { # file kind scenario knobs truth tool command [oracle]
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  local oracle=${8:-${1%.*}.oracle.json}
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$oracle" "$RT" "$6" "$PP_TOOL_VERSION" "$7" > "$PP_MANIFEST_DIR/$1"
}

wait_file() { local f=$1 n=0; while [ ! -e "$f" ]; do sleep 0.05; n=$((n+1)); [ $n -lt 600 ] || { pp_log "timeout waiting for $f"; return 1; }; done; }

# churn run with counters in one format: churn_counters FORMAT
churn_counters() {
  local fmt=$1 out=churn-counters.$1 truth=churn-counters.$1.truth.json
  local knobs="--seconds 6 --mb-per-sec 50"
  rm -f "$out" "$truth" "$SIG"/*
  dotnet "$PP_WORKLOAD_DLL" churn $knobs --wait-file "$SIG/start" --truth "$truth" >/dev/null &
  local wpid=$!
  sleep 0.3
  pp_log "dotnet-counters collect --format $fmt -> $out (pid $wpid)"
  "$PP_COUNTERS" collect -p "$wpid" --format "$fmt" --refresh-interval 1 --duration 00:00:00:06 -o "$out" >/dev/null &
  local cpid=$!
  sleep 1.5; touch "$SIG/start"
  wait "$cpid" || true
  wait "$wpid"
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  manifest "$out" "counters-$fmt" churn "$knobs" "$truth" dotnet-counters \
    "dotnet $W churn $knobs --wait-file START --truth $truth & dotnet-counters collect -p PID --format $fmt --refresh-interval 1 --duration 00:00:00:06 -o $out" "$out.oracle.json"
}

# leak run: counters in FORMAT; with_gcdump=1 also takes leak-before/after.gcdump
leak_run() {
  local fmt=$1 with_gcdump=$2 out=leak-counters.$1 truth
  local knobs="--initial 1000 --leak 10000 --churn-per-ms 50"
  if [ "$with_gcdump" = 1 ]; then truth=leak.truth.json; else truth=leak-counters.$fmt.truth.json; fi
  rm -f "$out" "$truth" "$SIG"/*
  [ "$with_gcdump" = 1 ] && rm -f leak-before.gcdump leak-after.gcdump
  dotnet "$PP_WORKLOAD_DLL" leak $knobs --signal-dir "$SIG" --truth "$truth" >/dev/null &
  local wpid=$!
  wait_file "$SIG/snapshot1.ready"
  pp_log "dotnet-counters collect --format $fmt -> $out (pid $wpid)"
  "$PP_COUNTERS" collect -p "$wpid" --format "$fmt" --refresh-interval 1 --duration 00:00:00:07 -o "$out" >/dev/null &
  local cpid=$!
  sleep 1.5
  if [ "$with_gcdump" = 1 ]; then pp_log "dotnet-gcdump collect -> leak-before.gcdump"; "$PP_GCDUMP" collect -p "$wpid" -o leak-before.gcdump >/dev/null; else sleep 1; fi
  touch "$SIG/snapshot1.go"
  wait_file "$SIG/snapshot2.ready"
  sleep 1.5
  if [ "$with_gcdump" = 1 ]; then pp_log "dotnet-gcdump collect -> leak-after.gcdump"; "$PP_GCDUMP" collect -p "$wpid" -o leak-after.gcdump >/dev/null; else sleep 1; fi
  wait "$cpid" || true
  touch "$SIG/snapshot2.go"
  wait "$wpid"
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  local base="dotnet $W leak $knobs --signal-dir SIG --truth $truth &"
  manifest "$out" "counters-$fmt" leak "$knobs" "$truth" dotnet-counters \
    "$base dotnet-counters collect -p PID --format $fmt --refresh-interval 1 --duration 00:00:00:07 -o $out" "$out.oracle.json"
  if [ "$with_gcdump" = 1 ]; then
    [ -s leak-before.gcdump ] && [ -s leak-after.gcdump ] || { pp_log "gcdump capture failed"; return 1; }
    manifest leak-before.gcdump gcdump leak "$knobs phase=before" "$truth" dotnet-gcdump \
      "$base (after SIG/snapshot1.ready) dotnet-gcdump collect -p PID -o leak-before.gcdump"
    manifest leak-after.gcdump gcdump leak "$knobs phase=after" "$truth" dotnet-gcdump \
      "$base (after SIG/snapshot2.ready) dotnet-gcdump collect -p PID -o leak-after.gcdump"
  fi
}

[ $# -gt 0 ] || set -- churn leak
for c in "$@"; do
  case $c in
    churn) churn_counters csv; churn_counters json ;;
    leak) leak_run csv 1; leak_run json 0 ;;
    *) echo "unknown capture: $c" >&2; exit 2 ;;
  esac
done
