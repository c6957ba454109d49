#!/usr/bin/env bash
# Captures the .nettrace fixtures the way users do, each with its workload ground truth.
#   capture-nettrace.sh [alloc|alloc-skip|cpu|db|envvar|web]...   (default: alloc alloc-skip cpu db envvar)
# Writes into $PP_DATA; appends MANIFEST rows to $PP_MANIFEST_DIR (one file per fixture) if set.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'   # how the workload path is written in MANIFEST commands
RT=$(pp_runtime_version)

manifest() { # file kind scenario knobs truth tool command
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  local tool=$6 tv=$PP_TOOL_VERSION
  [ "$tool" = "none" ] && tv="-"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "${1%.nettrace*}.oracle.json" "$RT" "$tool" "$tv" "$7" > "$PP_MANIFEST_DIR/$1"
}

trace_collect() { # out profile scenario knobs... (an out ending in .zst is compressed with zstd -19)
  local out=${1%.zst} profile=$2 scen=$3 packed=; shift 3
  local truth="${out%.nettrace}.truth.json"
  [ "$out" = "$1" ] || packed=1
  rm -f "$out" "$out.zst" "$truth"
  pp_log "dotnet-trace collect --profile $profile -> $out${packed:+.zst}"
  "$PP_TRACE" collect --profile "$profile" -o "$out" -- dotnet "$PP_WORKLOAD_DLL" "$scen" "$@" --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  [ -z "$packed" ] || zstd -q -19 --rm -f "$out"
  manifest "$out${packed:+.zst}" nettrace "$scen" "$*" "$truth" dotnet-trace \
    "dotnet-trace collect --profile $profile -o $out -- dotnet $W $scen $* --truth $truth${packed:+ && zstd -19 --rm $out}"
}

cap_alloc()      { trace_collect alloc-gcverbose.nettrace gc-verbose alloc --mb-strings 200 --mb-buffers 100 --list-items 300000; }
cap_alloc_skip() { trace_collect alloc-gcverbose-skip-buffers.nettrace gc-verbose alloc --mb-strings 200 --mb-buffers 100 --list-items 300000 --skip MakeBuffers; }
cap_cpu()        { trace_collect cpu-sampled.nettrace dotnet-common,dotnet-sampled-thread-time cpu --seconds 4; }
cap_db()         { trace_collect db-database.nettrace.zst database db --blogs 20 --posts-per-blog 5; }
cap_web()        { trace_collect web-sampled-db.nettrace.zst dotnet-sampled-thread-time,database web --requests 150 --concurrency 4; }

cap_envvar() {
  # No tool at all: the runtime writes the file itself (EventPipe file session configured by env vars).
  local out=alloc-envvar.nettrace truth=alloc-envvar.truth.json
  local cfg='Microsoft-Windows-DotNETRuntime:0x1:5'
  rm -f "$out" "$truth"
  pp_log "env-var EventPipe session -> $out"
  DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$out" DOTNET_EventPipeConfig="$cfg" DOTNET_EventPipeRundown=1 \
    dotnet "$PP_WORKLOAD_DLL" alloc --mb-strings 50 --mb-buffers 25 --list-items 100000 --truth "$truth" >/dev/null
  [ -s "$out" ] || { pp_log "capture failed: $out"; return 1; }
  manifest "$out" nettrace alloc "--mb-strings 50 --mb-buffers 25 --list-items 100000" "$truth" none \
    "DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath=$out DOTNET_EventPipeConfig=$cfg DOTNET_EventPipeRundown=1 dotnet $W alloc --mb-strings 50 --mb-buffers 25 --list-items 100000 --truth $truth"
}

[ $# -gt 0 ] || set -- alloc alloc-skip cpu db envvar
for c in "$@"; do
  case $c in
    alloc) cap_alloc ;; alloc-skip) cap_alloc_skip ;; cpu) cap_cpu ;; db) cap_db ;; envvar) cap_envvar ;; web) cap_web ;;
    *) echo "unknown capture: $c" >&2; exit 2 ;;
  esac
done
