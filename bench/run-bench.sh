#!/usr/bin/env bash
# run-bench.sh: nettrace reader throughput, side by side on one large real trace.
#
#   bench/run-bench.sh [--generate-only] [--no-traceevent] [--runs N]
#
# 1. Generates (once) a >= 500 MB gc-verbose trace of the test bed's `alloc` workload in
#    $PP_BENCH_DIR (default /tmp/perfpipe-bench; never inside the repo). Two short probe
#    captures learn the trace size per workload round, then the round count is scaled.
# 2. Warms the page cache (cat FILE > /dev/null).
# 3. Runs, one after another, each $RUNS times (best kept):
#      perfpipe inspect --format json FILE                   (header decode + counting)
#      bench-nettrace --mode full --repeat 1 FILE            (payload fields, stacks, symbols)
#      dotnet bench-traceevent.dll FILE                      (TraceEvent 4.0.0, same counting)
#    each under /usr/bin/time -v (wall, user+sys CPU, max RSS).
# 4. Prints a table and checks that perfpipe and TraceEvent count the same events.
#
# Environment: PERFPIPE (default: $PP_BENCH_BUILD/perfpipe), BENCH_NETTRACE
# (default: $PP_BENCH_BUILD/bench/nettrace/bench-nettrace), PP_BENCH_BUILD (default
# /tmp/b-bench: an out-of-tree, non-sanitizer build), PP_BENCH_DIR, PP_BENCH_TARGET_MB
# (default 540), PP_BENCH_TRACE (use this trace instead of generating one).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
. "$REPO/tests/capture/env.sh"

RUNS=3 GEN_ONLY=0 NO_TE=0
while [ $# -gt 0 ]; do
  case $1 in
    --generate-only) GEN_ONLY=1 ;;
    --no-traceevent) NO_TE=1 ;;
    --runs) RUNS=$2; shift ;;
    -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

PP_BENCH_DIR="${PP_BENCH_DIR:-/tmp/perfpipe-bench}"
PP_BENCH_BUILD="${PP_BENCH_BUILD:-/tmp/b-bench}"
PP_BENCH_TARGET_MB="${PP_BENCH_TARGET_MB:-540}"
PERFPIPE="${PERFPIPE:-$PP_BENCH_BUILD/perfpipe}"
BENCH_NETTRACE="${BENCH_NETTRACE:-$PP_BENCH_BUILD/bench/nettrace/bench-nettrace}"
TE_OUT="$PP_BUILD_DIR/bench-traceevent"
TE_DLL="$TE_OUT/bench-traceevent.dll"
mkdir -p "$PP_BENCH_DIR"
PP_BENCH_DIR="$(cd "$PP_BENCH_DIR" && pwd)"
case "$PP_BENCH_DIR/" in "$REPO"/*) echo "run-bench.sh: PP_BENCH_DIR must be outside the repo" >&2; exit 2 ;; esac

# One workload round: 1000 MB of strings, 2000 MB of byte[8000], 100k list items.
KNOBS=(--mb-strings 1000 --mb-buffers 2000 --list-items 100000)
TRACE="${PP_BENCH_TRACE:-$PP_BENCH_DIR/alloc-gcverbose-big.nettrace}"

size_of() { stat -c %s "$1"; }

capture() { # out rounds
  local out=$1 rounds=$2
  rm -f "$out" "${out%.nettrace}.truth.json"
  "$PP_TRACE" collect --profile gc-verbose -o "$out" -- \
    dotnet "$PP_WORKLOAD_DLL" alloc "${KNOBS[@]}" --rounds "$rounds" \
    --truth "${out%.nettrace}.truth.json" > "${out%.nettrace}.capture.log" 2>&1
  [ -s "$out" ] || { pp_log "capture failed: see ${out%.nettrace}.capture.log"; exit 1; }
}

generate() {
  [ -x "$PP_TRACE" ] || pp_install_tools
  [ -f "$PP_WORKLOAD_DLL" ] || pp_build
  local p="$PP_BENCH_DIR/probe" s1 s3 per fixed rounds
  mkdir -p "$p"
  pp_log "probe captures (1 and 3 rounds of: ${KNOBS[*]})"
  capture "$p/r1.nettrace" 1; s1=$(size_of "$p/r1.nettrace")
  capture "$p/r3.nettrace" 3; s3=$(size_of "$p/r3.nettrace")
  per=$(( (s3 - s1) / 2 )); fixed=$(( s1 - per ))
  [ "$per" -gt 0 ] || { pp_log "probe: trace does not grow with rounds ($s1 -> $s3)"; exit 1; }
  rounds=$(( (PP_BENCH_TARGET_MB * 1000000 - fixed + per - 1) / per ))
  pp_log "probe: $per bytes per round, $fixed fixed -> $rounds rounds for ${PP_BENCH_TARGET_MB} MB"
  local t0=$SECONDS
  capture "$TRACE.tmp.nettrace" "$rounds"
  mv "$TRACE.tmp.nettrace" "$TRACE"
  mv "$TRACE.tmp.truth.json" "${TRACE%.nettrace}.truth.json"
  mv "$TRACE.tmp.capture.log" "${TRACE%.nettrace}.capture.log"
  printf 'dotnet-trace collect --profile gc-verbose -o %s -- dotnet Workload.dll alloc %s --rounds %s --truth %s\n' \
    "$TRACE" "${KNOBS[*]}" "$rounds" "${TRACE%.nettrace}.truth.json" > "${TRACE%.nettrace}.command"
  pp_log "captured $(size_of "$TRACE") bytes in $((SECONDS - t0)) s"
  rm -rf "$p"
}

if [ ! -s "$TRACE" ]; then
  [ -z "${PP_BENCH_TRACE:-}" ] || { echo "run-bench.sh: $TRACE missing" >&2; exit 2; }
  generate
fi
SIZE=$(size_of "$TRACE")
[ "$SIZE" -ge 500000000 ] || pp_log "warning: trace is only $SIZE bytes (< 500 MB)"
[ "$GEN_ONLY" = 1 ] && exit 0
# ---- measurement ------------------------------------------------------------------------------
[ -x "$PERFPIPE" ] || { echo "run-bench.sh: $PERFPIPE not built (make perfpipe in $PP_BENCH_BUILD)" >&2; exit 2; }
[ -x "$BENCH_NETTRACE" ] || { echo "run-bench.sh: $BENCH_NETTRACE not built (make bench/nettrace/bench-nettrace)" >&2; exit 2; }
if [ "$NO_TE" = 0 ] && [ ! -f "$TE_DLL" ]; then
  pp_log "building bench/traceevent -> $TE_OUT"
  dotnet build "$HERE/traceevent/bench-traceevent.csproj" -c Release -nologo -v q -m:1 -o "$TE_OUT" >&2
fi
OUT="$PP_BENCH_DIR/results"; mkdir -p "$OUT"
MB=$(awk -v s="$SIZE" 'BEGIN{printf "%.1f", s/1e6}')

pp_log "warming the page cache ($MB MB)"
cat "$TRACE" > /dev/null; cat "$TRACE" > /dev/null

# Event counts, untimed: perfpipe inspect JSON and the TraceEvent counter.
"$PERFPIPE" inspect --format json "$TRACE" > "$OUT/inspect.json"
PP_EVENTS=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stages"][0]["totals"]["events"]["value"])' "$OUT/inspect.json")
PP_PAYLOAD=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["stages"][0]["totals"]["payload_bytes"]["value"])' "$OUT/inspect.json")

# run_timed NAME RUN CMD...: one run under /usr/bin/time -v; appends "name wall cpu rss_kb load1" to $OUT/runs.
run_timed() {
  local name=$1 i=$2; shift 2
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -v -o "$OUT/$name.$i.time" "$@" > "$OUT/$name.$i.out"
  awk -v n="$name" -v l="$load" -F': ' '
    /Elapsed \(wall clock\)/ { k=split($2,a,":"); w=0; for(j=1;j<=k;j++) w=w*60+a[j] }
    /User time/ { u=$2 } /System time/ { s=$2 } /Maximum resident set size/ { r=$2 }
    END { printf "%s %.3f %.3f %d %s\n", n, w, u+s, r, l }' "$OUT/$name.$i.time" >> "$OUT/runs"
  tail -n1 "$OUT/runs" | awk '{printf "  %-10s wall %7.3f s  cpu %7.3f s  rss %6.1f MB  load %s\n", $1, $2, $3, $4/1024, $5}' >&2
}

: > "$OUT/runs"
for i in $(seq "$RUNS"); do
  pp_log "run $i/$RUNS (load $(cut -d' ' -f1-3 /proc/loadavg))"
  run_timed inspect "$i" "$PERFPIPE" inspect --format json "$TRACE"
  run_timed full "$i" "$BENCH_NETTRACE" --mode full --repeat 1 --no-warm "$TRACE"
  [ "$NO_TE" = 1 ] || run_timed traceevent "$i" dotnet "$TE_DLL" "$TRACE"
done

FULL_EVENTS=$(awk '/^full .*events/ { for (i=1;i<=NF;i++) if ($i=="events,") { print $(i-1); exit } }' "$OUT/full.1.out" | tr -d '(')
TE_EVENTS=NA TE_PAYLOAD=NA
if [ "$NO_TE" = 0 ]; then
  TE_EVENTS=$(awk '$1=="total_events"{print $2}' "$OUT/traceevent.1.out")
  TE_PAYLOAD=$(awk '$1=="total_payload_bytes"{print $2}' "$OUT/traceevent.1.out")
fi

echo
echo "trace: $TRACE ($SIZE bytes = $MB MB, $PP_EVENTS events); best of $RUNS runs, warm page cache"
echo "host: $(nproc) CPUs, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo), load now $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v size="$SIZE" -v ev="$PP_EVENTS" '
  { n=$1; if (!(n in bw) || $2 < bw[n]) { bw[n]=$2; bl[n]=$5 } if (!(n in bc) || $3 < bc[n]) bc[n]=$3
    if ($4 > rss[n]) rss[n]=$4; if (!(n in seen)) { seen[n]=1; order[++k]=n } }
  END {
    printf "| %-10s | %8s | %8s | %12s | %10s | %12s | %9s | %10s | %10s | %s\n", "tool", "wall s", "MB/s", "events/s", "user+sys s", "MB/CPU-s", "max RSS", "x TE wall", "x TE CPU", "load@best"
    for (i=1;i<=k;i++) { n=order[i]
      rw = ("traceevent" in bw) ? sprintf("%.1f", bw["traceevent"]/bw[n]) : "-"
      rc = ("traceevent" in bc) ? sprintf("%.1f", bc["traceevent"]/bc[n]) : "-"
      printf "| %-10s | %8.3f | %8.0f | %12.0f | %10.3f | %12.0f | %6.1f MB | %10s | %10s | %s\n", n, bw[n], size/bw[n]/1e6, ev/bw[n], bc[n], size/bc[n]/1e6, rss[n]/1024, rw, rc, bl[n] }
  }' "$OUT/runs" | tee "$OUT/table.md"
echo
echo "events: perfpipe inspect $PP_EVENTS (payload $PP_PAYLOAD B), bench-nettrace full $FULL_EVENTS, TraceEvent $TE_EVENTS (payload $TE_PAYLOAD B)"
grep -h '^full .*frames walked' "$OUT/full.1.out" || true
rc=0
if [ "$FULL_EVENTS" != "$PP_EVENTS" ]; then echo "MISMATCH: bench-nettrace and perfpipe inspect disagree"; rc=1; fi
if [ "$NO_TE" = 0 ]; then
  if [ "$TE_EVENTS" = "$PP_EVENTS" ] && [ "$TE_PAYLOAD" = "$PP_PAYLOAD" ]; then
    echo "event counts AGREE: perfpipe and TraceEvent both count $PP_EVENTS events, $PP_PAYLOAD payload bytes"
  else
    echo "event counts DISAGREE: perfpipe $PP_EVENTS events / $PP_PAYLOAD B, TraceEvent $TE_EVENTS events / $TE_PAYLOAD B"; rc=1
  fi
fi
echo "raw runs: $OUT/runs (name wall cpu rss_kb load1)"
exit $rc
