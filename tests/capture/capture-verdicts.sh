#!/usr/bin/env bash
# Captures the fixtures that test verdicts rather than readers (issue #16), each with its
# workload ground truth:
#   blocking    cpu-blocking.nettrace: one hot method and more thread time blocked than running
#               (pipe reads, a FileSystemWatcher, a socket receive, Monitor.Wait, SemaphoreSlim,
#               Sleep), default dotnet-trace profile set
#   allocexact  alloc-exact.nettrace: gc-verbose plus the workload's own marker events carrying
#               GC.GetTotalAllocatedBytes(precise: true), for the alloc total's bound
#   capture-verdicts.sh [blocking|allocexact]...   (default: both)
# Writes into $PP_DATA; MANIFEST rows to $PP_MANIFEST_DIR (one file per fixture) if set.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'
RT=$(pp_runtime_version)

manifest() { # file kind scenario knobs truth command
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "${1%.*}.oracle.json" "$RT" \
    dotnet-trace "$PP_TOOL_VERSION" "$6" > "$PP_MANIFEST_DIR/$1"
}

collect() { # out providers-args scenario knobs...
  local out=$1 prov=$2 scen=$3; shift 3
  local truth="${out%.nettrace}.truth.json"
  rm -f "$out" "$truth"
  pp_log "dotnet-trace collect $prov -> $out"
  # shellcheck disable=SC2086
  "$PP_TRACE" collect $prov -o "$out" -- dotnet "$PP_WORKLOAD_DLL" "$scen" "$@" --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  manifest "$out" nettrace "$scen" "$*" "$truth" \
    "dotnet-trace collect $prov -o $out -- dotnet $W $scen $* --truth $truth"
}

cap_blocking()   { collect cpu-blocking.nettrace "--profile dotnet-common,dotnet-sampled-thread-time" blocking --seconds 2; }
# A 1 MB gen0 budget: GCs retire allocation contexts during the run (both terms of the bound).
cap_allocexact() {
  DOTNET_GCgen0size=0x100000 collect alloc-exact.nettrace "--profile gc-verbose --providers Workload-AllocMarker" allocexact --mb-buffers 20 --mb-strings 10
  [ -z "${PP_MANIFEST_DIR:-}" ] || sed -i 's/\tdotnet-trace collect /\tDOTNET_GCgen0size=0x100000 dotnet-trace collect /' "$PP_MANIFEST_DIR/alloc-exact.nettrace"
}

[ $# -gt 0 ] || set -- blocking allocexact
for c in "$@"; do
  case $c in
    blocking) cap_blocking ;; allocexact) cap_allocexact ;;
    *) echo "unknown capture: $c" >&2; exit 2 ;;
  esac
done
