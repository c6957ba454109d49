#!/usr/bin/env bash
# Captures the fix-shape fixtures (issue #24): for each shape of the workload's `fix` scenario, the
# antipattern (`--variant bad`) and its healthy twin (`--variant good`), each run by several clients
# at once, as fix-SHAPE-VARIANT.nettrace with the workload's truth beside it. One provider set for
# all: thread samples, the runtime's GC (with GCAllocationTick), loader, JIT, exception, contention
# and thread-pool events at verbose level, and the method/module rundown at the end (so every frame
# knows its module: the landing place of the fix).
#   capture-fix.sh [SHAPE]...      (default: every shape)
#   capture-fix.sh set             the rules' pairs (issue #45): the SET shapes run one after the
#                                  other in one process, bad then good, as fix-set-{bad,good}.nettrace.zst
#                                  (zstd -19; the oracle reads the plain trace, its JSON is zstd'ed too)
# PP_FIX_KNOBS adds workload knobs to every run (e.g. "--clients 8 --calls 500": more load from
# parallel clients than the committed fixtures have); they are recorded in the MANIFEST row.
# Without it, the thread/exception shapes run under more load than their defaults (load_args): more
# threads than cores contend, throw and block at once, as a service under parallel requests does.
# Writes into $PP_DATA; MANIFEST rows to $PP_MANIFEST_DIR (one file per fixture) if set (regen-all.sh).
# Run alone, it merges its rows into $PP_DATA/MANIFEST itself and runs the oracle on what it made.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'
RT=$(pp_runtime_version)
SHAPES="loh strconcat regex jsonoptions exceptions boxing lock syncasync"
# Also known to the workload, not committed (their method rundown alone is 1-5 MB: EF Core and
# System.Net.Http JIT thousands of methods): httpclient eftracking. Name them to capture them.
EXTRA="httpclient eftracking"
# The rules' pairs (RulePairShapes.cs): one capture per variant holds them all, so each rule must
# fire on its own method and on no other planted one.
SET="induced,finalizer,reflection,split,hash,timer,enumkey,sbcapacity,format,linq,growth,mstoarray,crypto,datetime,pinned,spin,logging"
# GC 0x1, Loader 0x8 (no Jit 0x10: the rundown names the methods, JIT-time events would triple the size), Contention 0x4000, Exception 0x8000, Threading 0x10000,
# ThreadTransfer 0x20000, the dotnet-common set otherwise; Verbose for GCAllocationTick.
PROV="--profile dotnet-sampled-thread-time --providers Microsoft-Windows-DotNETRuntime:0x100003C00D:5"

ALONE=0
if [ -z "${PP_MANIFEST_DIR:-}" ]; then
  ALONE=1; PP_MANIFEST_DIR=$(mktemp -d /tmp/pp-manifest.XXXXXX); trap 'rm -rf "$PP_MANIFEST_DIR"' EXIT
fi

manifest() { # file kind scenario knobs truth command (a FILE.zst has its oracle JSON zstd'ed too)
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  local oracle
  case $1 in *.zst) oracle="${1%.*.zst}.oracle.json.zst" ;; *) oracle="${1%.*}.oracle.json" ;; esac
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$oracle" "$RT" \
    dotnet-trace "$PP_TOOL_VERSION" "$6" > "$PP_MANIFEST_DIR/$1"
}

load_args() { # shape: its load knobs (the committed captures were made with these)
  case $1 in
    exceptions) echo "--clients 8 --calls 60" ;;    # 8 threads throwing at once: ~1900 throws, < 1 MB
    lock) echo "--clients 8 --calls 100" ;;         # 8 threads on one lock
    syncasync) echo "--clients 16 --calls 50" ;;    # 16 flows blocking pool threads: the pool grows
    *) echo "" ;;
  esac
}

collect() { # shape variant
  local out="fix-$1-$2.nettrace" truth="fix-$1-$2.truth.json"
  local PP_FIX_KNOBS=${PP_FIX_KNOBS-$(load_args "$1")}
  rm -f "$out" "$truth"
  pp_log "dotnet-trace collect $PROV -> $out"
  # shellcheck disable=SC2086
  "$PP_TRACE" collect $PROV -o "$out" -- dotnet "$PP_WORKLOAD_DLL" fix --shape "$1" --variant "$2" ${PP_FIX_KNOBS:-} --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  manifest "$out" nettrace fix "--shape $1 --variant $2${PP_FIX_KNOBS:+ $PP_FIX_KNOBS}" "$truth" \
    "dotnet-trace collect $PROV -o $out -- dotnet $W fix --shape $1 --variant $2${PP_FIX_KNOBS:+ $PP_FIX_KNOBS} --truth $truth"
}

# The set runs at the runtime's default settings, as people run their apps: tiered JIT recompiles hot
# methods at tier 1 mid-run (when depends on timing) and inlines framework frames some rules key on
# (StringBuilder.ExpandByABlock, Enum.ToString, GC.Collect...); the rules know those optimized shapes too
# (docs/rules.md, "Tiered JIT"). PP_FIX_HOLD_TIERING=1 holds tier-1 promotion off instead (R2R and tier-0
# code only: every framework frame stays; recorded in the MANIFEST command), to compare the two shapes.
SET_ENV=""
[ "${PP_FIX_HOLD_TIERING:-0}" = 1 ] && SET_ENV="DOTNET_TC_CallCountingDelayMs=3600000 DOTNET_OSR_HitLimit=2000000000"

collect_set() { # variant: fix-set-VARIANT.nettrace.zst, its oracle made from the plain trace
  local base="fix-set-$1" out="fix-set-$1.nettrace" truth="fix-set-$1.truth.json"
  rm -f "$out" "$out.zst" "$truth"
  pp_log "${SET_ENV:+$SET_ENV }dotnet-trace collect $PROV -> $out.zst"
  # shellcheck disable=SC2086
  env $SET_ENV "$PP_TRACE" collect $PROV -o "$out" -- dotnet "$PP_WORKLOAD_DLL" fix --shape "$SET" --variant "$1" --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  zstd -q -19 --rm -f "$out"
  pp_oracle_zst "$out.zst" "$base.oracle.json.zst"
  manifest "$out.zst" nettrace fix-set "--shape $SET --variant $1" "$truth" \
    "${SET_ENV:+$SET_ENV }dotnet-trace collect $PROV -o $out -- dotnet $W fix --shape $SET --variant $1 --truth $truth && zstd -19 --rm $out"
}

if [ "${1:-}" = set ]; then
  collect_set bad
  collect_set good
  [ "$ALONE" = 1 ] || exit 0
  pp_merge_rows "$PP_MANIFEST_DIR"
  exit 0
fi
[ $# -gt 0 ] || set -- $SHAPES
for s in "$@"; do
  case " $SHAPES $EXTRA " in *" $s "*) ;; *) echo "unknown shape: $s (one of: $SHAPES $EXTRA)" >&2; exit 2 ;; esac
  collect "$s" bad
  collect "$s" good
done
[ "$ALONE" = 1 ] || exit 0
pp_merge_rows "$PP_MANIFEST_DIR"
