#!/usr/bin/env bash
# Bounded cache vs leak (issue 45): the workload's `cache` scenario in both modes, three
# dotnet-gcdump snapshots of each run (snapshot 1: the cache empty; 2 and 3: after --per-phase
# requests each, every one for a new key). `leak` keeps every report in a static dictionary;
# `bounded` evicts beyond --bound entries, so it grows up to its bound (snapshot 2) and then
# stays there (snapshot 3). Files: tests/data/cache/cache-MODE-sN.gcdump and cache-MODE.truth.json
# (the scenario's own counts at each snapshot). No MANIFEST rows and no oracle: the tests judge
# perfpipe's verdicts against the truth (tests/data/cache/README.md).
# With --counters, a counters series instead: one phase of --per-phase new keys (8 KB reports) a
# second for about 26 s while dotnet-counters records System.Runtime once a second; `leak` grows
# all run long, `bounded` for the ~10 s its bound takes to fill. Files:
# tests/data/cache/cache-MODE-counters.csv.xz and cache-MODE-counters.truth.json (entries after
# each phase).
#   capture-cache.sh [--counters] [leak|bounded]...   (default: both)
set -euo pipefail
. "$(dirname "$0")/env.sh"
OUT="$PP_DATA/cache"
KNOBS="--per-phase 1000 --bound 256 --snapshots 3"
PHASES=26   # --counters: one a second
SIG=$(mktemp -d /tmp/pp-sig.XXXXXX)
trap 'rm -rf "$SIG"' EXIT
mkdir -p "$OUT"
[ -f "$PP_WORKLOAD_DLL" ] || pp_build workload
wait_file() { local f=$1 n=0; while [ ! -e "$f" ]; do sleep 0.05; n=$((n+1)); [ $n -lt 600 ] || { pp_log "timeout waiting for $f"; return 1; }; done; }

capture() { # mode
  local m=$1 wpid s
  rm -f "$SIG"/* "$OUT/cache-$m"-s*.gcdump "$OUT/cache-$m.truth.json"
  # shellcheck disable=SC2086
  dotnet "$PP_WORKLOAD_DLL" cache --mode "$m" $KNOBS --signal-dir "$SIG" --truth "$OUT/cache-$m.truth.json" >/dev/null &
  wpid=$!
  for s in 1 2 3; do
    wait_file "$SIG/snapshot$s.ready"
    pp_log "cache $m: dotnet-gcdump collect -> cache-$m-s$s.gcdump (pid $wpid)"
    "$PP_GCDUMP" collect -p "$wpid" -o "$OUT/cache-$m-s$s.gcdump" >/dev/null
    touch "$SIG/snapshot$s.go"
  done
  wait "$wpid"
  ls -l "$OUT/cache-$m"-s*.gcdump >&2
}

capture_counters() { # mode
  local m=$1 wpid cpid s csv="$OUT/cache-$m-counters.csv"
  rm -f "$SIG"/* "$csv" "$csv.xz" "$OUT/cache-$m-counters.truth.json"
  dotnet "$PP_WORKLOAD_DLL" cache --mode "$m" --per-phase 1000 --bound 10000 --snapshots "$PHASES" \
    --signal-dir "$SIG" --truth "$OUT/cache-$m-counters.truth.json" >/dev/null &
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

how=capture
[ "${1:-}" != --counters ] || { how=capture_counters; shift; }
[ $# -gt 0 ] || set -- leak bounded
for m in "$@"; do
  case $m in leak|bounded) "$how" "$m" ;; *) echo "unknown mode: $m" >&2; exit 2 ;; esac
done
