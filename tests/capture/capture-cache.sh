#!/usr/bin/env bash
# Bounded cache vs leak (issue 45): the workload's `cache` scenario in both modes, three
# dotnet-gcdump snapshots of each run (snapshot 1: the cache empty; 2 and 3: after --per-phase
# requests each, every one for a new key). `leak` keeps every report in a static dictionary;
# `bounded` evicts beyond --bound entries, so it grows up to its bound (snapshot 2) and then
# stays there (snapshot 3). Files: tests/data/cache/cache-MODE-sN.gcdump and cache-MODE.truth.json
# (the scenario's own counts at each snapshot). No MANIFEST rows and no oracle: the tests judge
# perfpipe's verdicts against the truth (tests/data/cache/README.md).
#   capture-cache.sh [leak|bounded]...   (default: both)
set -euo pipefail
. "$(dirname "$0")/env.sh"
OUT="$PP_DATA/cache"
KNOBS="--per-phase 1000 --bound 256 --snapshots 3"
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

[ $# -gt 0 ] || set -- leak bounded
for m in "$@"; do
  case $m in leak|bounded) capture "$m" ;; *) echo "unknown mode: $m" >&2; exit 2 ;; esac
done
