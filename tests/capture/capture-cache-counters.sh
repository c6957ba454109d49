#!/usr/bin/env bash
# Bounded cache vs leak as a counters series (issue 45): the workload's `cache` scenario in both
# modes, served one phase a second (--per-phase new keys each, every one a report of 8 KB) for
# about 26 s while dotnet-counters records System.Runtime once a second. `leak` keeps every report
# in a static dictionary (the heap grows all run long); `bounded` evicts beyond --bound entries,
# so the heap grows for the first ~10 s, until the cache holds its bound, and then stays.
# Files: tests/data/cache/cache-MODE-counters.csv.xz and cache-MODE-counters.truth.json (the
# scenario's own record: entries after each phase). tests/data/cache/README.md says more.
#   capture-cache-counters.sh [leak|bounded]...   (default: both)
set -euo pipefail
. "$(dirname "$0")/env.sh"
OUT="$PP_DATA/cache"
PHASES=26
KNOBS="--per-phase 1000 --bound 10000 --snapshots $PHASES"
SIG=$(mktemp -d /tmp/pp-sig.XXXXXX)
trap 'rm -rf "$SIG"' EXIT
mkdir -p "$OUT"
[ -f "$PP_WORKLOAD_DLL" ] || pp_build workload
wait_file() { local f=$1 n=0; while [ ! -e "$f" ]; do sleep 0.05; n=$((n+1)); [ $n -lt 600 ] || { pp_log "timeout waiting for $f"; return 1; }; done; }

capture() { # mode
  local m=$1 wpid cpid s csv="$OUT/cache-$m-counters.csv"
  rm -f "$SIG"/* "$csv" "$csv.xz" "$OUT/cache-$m-counters.truth.json"
  # shellcheck disable=SC2086
  dotnet "$PP_WORKLOAD_DLL" cache --mode "$m" $KNOBS --signal-dir "$SIG" \
    --truth "$OUT/cache-$m-counters.truth.json" >/dev/null &
  wpid=$!
  wait_file "$SIG/snapshot1.ready"
  pp_log "cache $m: dotnet-counters collect -> $(basename "$csv") (pid $wpid)"
  "$PP_COUNTERS" collect -p "$wpid" --format csv --refresh-interval 1 \
    --duration 00:00:00:$((PHASES + 2)) -o "$csv" >/dev/null &
  cpid=$!
  sleep 2   # the session is up and has a first sample of the empty cache
  for s in $(seq 1 "$PHASES"); do
    wait_file "$SIG/snapshot$s.ready"
    touch "$SIG/snapshot$s.go"
    sleep 1
  done
  wait "$wpid"
  wait "$cpid" || true
  xz -9e -f "$csv"
  ls -l "$csv.xz" >&2
}

[ $# -gt 0 ] || set -- leak bounded
for m in "$@"; do
  case $m in leak|bounded) capture "$m" ;; *) echo "unknown mode: $m" >&2; exit 2 ;; esac
done
