#!/usr/bin/env bash
# Request-aware N+1 fixtures (issue #16) and the wrong-process fixture.
#   capture-webdb.sh [webdb|wrapper]...   (default: both)
#     webdb   -> webdb-{one,nplus1}-c{1,4}[-hosting].nettrace: the `webdb` scenario's /one endpoint (one query
#                per request) and /nplus1 (1 + K queries per request), 1 and 4 virtual users, each with
#                `--profile database` alone (no request boundaries) and with Microsoft.AspNetCore.Hosting added
#                (RequestStart/RequestStop: boundaries). --rundown false keeps each file under 1 MB
#                (rundown would add ~5 MB of method names; the db analyzer needs none to count per request).
#     wrapper -> run-wrapper-gcverbose.nettrace: gc-verbose of `dotnet run` (the SDK host, not the app),
#                attached by pid as users do; --rundown false (the SDK's rundown alone is 3 MB).
# Writes into $PP_DATA, plus the oracle of each file; MANIFEST rows to $PP_MANIFEST_DIR (one file per fixture) if set.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'   # how the workload path is written in MANIFEST commands
RT=$(pp_runtime_version)
REQUESTS=20 BLOGS=12

manifest() { # file scenario knobs truth command
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" nettrace "$2" "$3" "$4" "${1%.*}.oracle.json" "$RT" \
    dotnet-trace "$PP_TOOL_VERSION" "$5" > "$PP_MANIFEST_DIR/$1"
}

small_enough() { local sz; sz=$(stat -c %s "$1"); [ "$sz" -lt 2097152 ] || { pp_log "capture too big: $1 ($sz bytes)"; return 1; }; }

webdb_one() { # endpoint concurrency hosting(0|1)
  local ep=$1 c=$2 h=$3 out truth prov="" suffix=""
  if [ "$h" = 1 ]; then prov="--providers Microsoft.AspNetCore.Hosting"; suffix=-hosting; fi
  out="webdb-$ep-c$c$suffix.nettrace"
  truth="${out%.nettrace}.truth.json"
  local knobs="--endpoint $ep --requests $REQUESTS --concurrency $c --blogs $BLOGS"
  rm -f "$out" "$truth"
  pp_log "dotnet-trace collect --profile database $prov -> $out"
  # shellcheck disable=SC2086
  "$PP_TRACE" collect --profile database $prov --rundown false -o "$out" -- \
    dotnet "$PP_WORKLOAD_DLL" webdb $knobs --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  small_enough "$out"
  pp_oracle -o "${out%.nettrace}.oracle.json" "$out"
  manifest "$out" webdb "$knobs" "$truth" \
    "dotnet-trace collect --profile database ${prov:+$prov }--rundown false -o $out -- dotnet $W webdb $knobs --truth $truth"
}

cap_webdb() {
  local ep c h
  for ep in one nplus1; do for c in 1 4; do for h in 0 1; do webdb_one "$ep" "$c" "$h"; done; done; done
}

cap_wrapper() {
  # The mistake users make: `dotnet run` starts the SDK (dotnet.dll run), which starts the app as a
  # child; `dotnet-trace ps` lists both as "dotnet", and tracing the first one records the wrapper.
  # (dotnet-trace collect -- dotnet run ... cannot make this file: the suspended-start variable is
  # inherited by the app, which then waits for a tool forever.) The app waits at its start gate until
  # the session on the wrapper is up.
  local out=run-wrapper-gcverbose.nettrace truth=run-wrapper-gcverbose.truth.json start
  local knobs="--mb-strings 20 --mb-buffers 10 --list-items 10000"
  start=$(mktemp -u /tmp/perfpipe-wrapper-start.XXXXXX)
  rm -f "$out" "$truth"
  pp_log "dotnet-trace collect --profile gc-verbose -p <dotnet run> -> $out"
  # shellcheck disable=SC2086
  dotnet run --project "$PP_TESTS/workload/Workload.csproj" -c Release --no-build -- \
    alloc $knobs --wait-file "$start" --truth "$PP_DATA/$truth" >/dev/null &
  local run=$!
  sleep 2
  "$PP_TRACE" collect --profile gc-verbose --rundown false -p "$run" -o "$out" >/dev/null &
  local tr=$!
  sleep 3
  touch "$start"
  wait "$run"
  wait "$tr" || true
  rm -f "$start"
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  small_enough "$out"
  pp_oracle -o "${out%.nettrace}.oracle.json" "$out"
  manifest "$out" alloc "$knobs (through dotnet run)" "$truth" \
    "dotnet run --project tests/workload/Workload.csproj -c Release --no-build -- alloc $knobs --wait-file START --truth $truth & dotnet-trace collect --profile gc-verbose --rundown false -p PID(dotnet run) -o $out"
}

[ $# -gt 0 ] || set -- webdb wrapper
for c in "$@"; do
  case $c in
    webdb) cap_webdb ;; wrapper) cap_wrapper ;;
    *) echo "unknown capture: $c" >&2; exit 2 ;;
  esac
done
