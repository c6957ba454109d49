#!/usr/bin/env bash
# Captures the GC fixtures (issue 37): the `gc` scenario's four modes under dotnet-trace's
# gc-collect profile, Workstation GC (ws) and Server GC (svr, DOTNET_gcServer=1):
#   gc-gen2-{ws,svr}      mid-life survivors: back-to-back gen1/gen2 GCs, long blocking pauses, pinned handles
#   gc-induced-{ws,svr}   GC.Collect() from Workload.GcScenario.InduceCollect; gc-verbose with its rundown, so the
#                         GCTriggered stacks resolve to the calling frame
#   gc-loh-{ws,svr}       LOH churn: gen2s with reason AllocLarge, the kept LOH set grows
#   gc-quiet-ws           a few gen0s: the twin on which no GC finding may fire
#   gc-{gen2,quiet}-counters.csv.zst   the gen2 and quiet modes (6 s) under dotnet-counters (1 s), zstd -19:
#                         the counters pair of the GC rules (issue #45: pause share, gen2 storm, gen1 rate)
#   capture-gc.sh [NAME...]   (default: all; NAME as gen2-ws, induced-svr, gen2-counters, ...)
# Writes into $PP_DATA; MANIFEST rows to $PP_MANIFEST_DIR if set. Run alone it merges its MANIFEST
# rows and runs the oracle on what it captured (as capture-fix.sh does).
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'
RT=$(pp_runtime_version)
ALL="gen2-ws gen2-svr induced-ws induced-svr loh-ws loh-svr quiet-ws gen2-counters quiet-counters"

ALONE=0
if [ -z "${PP_MANIFEST_DIR:-}" ]; then
  ALONE=1; PP_MANIFEST_DIR=$(mktemp -d /tmp/pp-manifest.XXXXXX); trap 'rm -rf "$PP_MANIFEST_DIR"' EXIT
fi

knobs() { # mode: its knobs (the committed captures were made with these)
  case $1 in
    gen2) echo "--mode gen2 --ms 1500" ;;
    induced) echo "--mode induced --ms 1000 --every-ms 20" ;;
    loh) echo "--mode loh --ms 1500" ;;
    quiet) echo "--mode quiet --ms 1000" ;;
  esac
}

collect() { # mode gcmode
  local out="gc-$1-$2.nettrace" truth="gc-$1-$2.truth.json" k env="" prov="--profile gc-collect --rundown false"
  k=$(knobs "$1")
  [ "$2" = svr ] && env="DOTNET_gcServer=1"
  [ "$1" = induced ] && prov="--profile gc-verbose"
  rm -f "$out" "$truth"
  pp_log "${env:+$env }dotnet-trace collect $prov -> $out"
  # shellcheck disable=SC2086
  env $env "$PP_TRACE" collect $prov -o "$out" -- dotnet "$PP_WORKLOAD_DLL" gc $k --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$out" nettrace gc "$k" "$truth" "${out%.nettrace}.oracle.json" "$RT" \
    dotnet-trace "$PP_TOOL_VERSION" "${env:+$env }dotnet-trace collect $prov -o $out -- dotnet $W gc $k --truth $truth" \
    > "$PP_MANIFEST_DIR/$out"
}

counters() { # mode: gc-MODE-counters.csv.zst, its oracle made from the plain CSV and zstd'ed too
  local out="gc-$1-counters.csv" truth="gc-$1-counters.truth.json" k="--mode $1 --ms 6000"
  local cmd="dotnet-counters collect --format csv --refresh-interval 1 -o $out -- dotnet $W gc $k --truth $truth"
  rm -f "$out" "$out.zst" "$truth"
  pp_log "$cmd"
  # shellcheck disable=SC2086
  "$PP_COUNTERS" collect --format csv --refresh-interval 1 -o "$out" -- dotnet "$PP_WORKLOAD_DLL" gc $k --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  zstd -q -19 --rm -f "$out"
  pp_oracle_zst "$out.zst" "$out.oracle.json.zst"
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$out.zst" counters-csv gc-counters "$k" "$truth" "$out.oracle.json.zst" "$RT" \
    dotnet-counters "$PP_TOOL_VERSION" "$cmd && zstd -19 --rm $out" > "$PP_MANIFEST_DIR/$out.zst"
}

[ $# -gt 0 ] || set -- $ALL
for c in "$@"; do
  case " $ALL " in *" $c "*) ;; *) echo "unknown capture: $c (one of: $ALL)" >&2; exit 2 ;; esac
  case $c in *-counters) counters "${c%-counters}" ;; *) collect "${c%-*}" "${c##*-}" ;; esac
done
[ "$ALONE" = 1 ] || exit 0
pp_merge_rows "$PP_MANIFEST_DIR"
