#!/usr/bin/env bash
# Span captures of the web scenario (issue #11): the app records its own spans with a
# System.Diagnostics.ActivityListener ("Microsoft.AspNetCore" server spans + "Workload.Db" client spans
# made by a DbCommandInterceptor) and writes them as OTLP/JSON at exit (--spans PATH). No tool, no collector.
#   capture-spans.sh [single|overlap]...   (default: both)
#     single  -> web-spans.otlp.json          one virtual user (--concurrency 1): attribution is sound
#     overlap -> web-spans-overlap.otlp.json  four virtual users: perfpipe must refuse the attribution
# Writes into $PP_DATA; appends MANIFEST rows to $PP_MANIFEST_DIR (one file per fixture) if set.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$PP_DATA"
W='$WORKLOAD'   # how the workload path is written in MANIFEST commands
RT=$(pp_runtime_version)
TOOL='none (ActivityListener in the app)'

spans_run() { # out truth knobs...
  local out=$1 truth=$2; shift 2
  rm -f "$out" "$truth"
  pp_log "web spans $* -> $out"
  dotnet "$PP_WORKLOAD_DLL" web "$@" --spans "$out" --truth "$truth" >/dev/null
  [ -s "$out" ] && [ -s "$truth" ] || { pp_log "capture failed: $out"; return 1; }
  local sz; sz=$(stat -c %s "$out")
  [ "$sz" -lt 1048576 ] || { pp_log "capture too big: $out ($sz bytes)"; return 1; }
  [ -n "${PP_MANIFEST_DIR:-}" ] || return 0
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$out" spans web "$*" "$truth" - "$RT" "$TOOL" - \
    "dotnet $W web $* --spans $out --truth $truth" > "$PP_MANIFEST_DIR/$out"
}

# 30 requests per endpoint (/alloc, /cpu, /db round-robin), after 5 unrecorded warm-up requests per endpoint.
cap_single()  { spans_run web-spans.otlp.json web-spans.truth.json --requests 90 --concurrency 1 --warmup 5; }
cap_overlap() { spans_run web-spans-overlap.otlp.json web-spans-overlap.truth.json --requests 90 --concurrency 4 --warmup 5; }

[ $# -gt 0 ] || set -- single overlap
for c in "$@"; do
  case $c in
    single) cap_single ;; overlap) cap_overlap ;;
    *) echo "unknown capture: $c" >&2; exit 2 ;;
  esac
done
