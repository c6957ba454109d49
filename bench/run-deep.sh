#!/usr/bin/env bash
# run-deep.sh: perfpipe against TraceEvent on the production-shaped traces of gen-traces.sh,
# interleaved (A, B, A, B, ...) and side by side, with the ratio of each pair.
#
#   bench/run-deep.sh [--runs N] [--only TASK[,TASK...]] [--no-traceevent]
#
# Tasks (trace in $PP_BENCH_DIR, default ~/.cache/perfpipe-bench):
#   inspect   alloc-deep     perfpipe inspect --format json   vs  EventPipeEventSource count
#   alloc     alloc-deep     perfpipe alloc (table)           vs  TraceLog by type + first user frame
#   cpu-s, cpu-m, cpu-l      perfpipe cpu (table)             vs  TraceLog CPU by method excl/incl
#   gcdump    heap-big.gcdump  perfpipe gcdump (table)        vs  dotnet-gcdump report
#             (PP_BENCH_GCDUMP=FILE; skipped when missing)
# Every run is under /usr/bin/time (wall, user+sys, max RSS); the best wall of N runs (default
# 3) is kept, with the 1-minute load average at that run. Raw runs: $PP_BENCH_DIR/results-deep/.
# Environment: PERFPIPE (default $PP_BENCH_BUILD/perfpipe), PP_BENCH_BUILD (default /tmp/b-bench,
# an -O2 build without sanitizers), PERFPIPE_PLUGIN_PATH (default $PP_BENCH_BUILD/plugins/.libs),
# PP_BUILD_DIR (where bench-traceevent is built), PP_BENCH_BEFORE (an older build directory: its
# perfpipe runs too, interleaved, as tool "before", for before/after figures in the same load).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
. "$REPO/tests/capture/env.sh"

RUNS=3 ONLY="" NO_TE=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) RUNS=$2; shift ;;
    --only) ONLY=",$2," ; shift ;;
    --no-traceevent) NO_TE=1 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-deep.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
  esac
  shift
done
PP_BENCH_DIR="${PP_BENCH_DIR:-$HOME/.cache/perfpipe-bench}"
PP_BENCH_BUILD="${PP_BENCH_BUILD:-/tmp/b-bench}"
PERFPIPE="${PERFPIPE:-$PP_BENCH_BUILD/perfpipe}"
export PERFPIPE_PLUGIN_PATH="${PERFPIPE_PLUGIN_PATH:-$PP_BENCH_BUILD/plugins/.libs}"
PP_BENCH_GCDUMP="${PP_BENCH_GCDUMP:-$PP_BENCH_DIR/heap-big.gcdump}"
TE_OUT="$PP_BUILD_DIR/bench-traceevent"
TE_DLL="$TE_OUT/bench-traceevent.dll"
[ -x "$PERFPIPE" ] || { echo "run-deep.sh: $PERFPIPE not built (see bench/README.md)" >&2; exit 2; }
if [ "$NO_TE" = 0 ] && { [ ! -f "$TE_DLL" ] || [ "$HERE/traceevent/Program.cs" -nt "$TE_DLL" ]; }; then
  pp_log "building bench/traceevent -> $TE_OUT"
  dotnet build "$HERE/traceevent/bench-traceevent.csproj" -c Release -nologo -v q -m:1 -o "$TE_OUT" >&2
fi
OUT="$PP_BENCH_DIR/results-deep"; mkdir -p "$OUT"; : > "$OUT/runs"

# task NAME FILE: sets A (perfpipe argv) and B (peer argv) for one task.
task() {
  local f=$2
  case $1 in
    inspect) A=("$PERFPIPE" inspect --format json "$f"); B=(dotnet "$TE_DLL" "$f") ;;
    alloc) A=("$PERFPIPE" alloc "$f"); B=(dotnet "$TE_DLL" --alloc "$f") ;;
    cpu-*) A=("$PERFPIPE" cpu "$f"); B=(dotnet "$TE_DLL" --cpu "$f") ;;
    gcdump) A=("$PERFPIPE" gcdump "$f"); B=(dotnet "$PP_GCDUMP_DLL" report "$f") ;;
  esac
}
file_of() {
  case $1 in
    inspect|alloc) echo "${PP_BENCH_ALLOC_TRACE:-$PP_BENCH_DIR/alloc-deep.nettrace}" ;;
    cpu-*) echo "$PP_BENCH_DIR/cpu-deep-${1#cpu-}.nettrace" ;;
    gcdump) echo "$PP_BENCH_GCDUMP" ;;
  esac
}
# timed TASK TOOL I ARGV...: one run; appends "task tool wall cpu rss_kb load1" to $OUT/runs.
timed() {
  local t=$1 tool=$2 i=$3; shift 3
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  /usr/bin/time -f "%e %U %S %M" -o "$OUT/$t.$tool.$i.time" "$@" > "$OUT/$t.$tool.$i.out" 2> "$OUT/$t.$tool.$i.err" ||
    { pp_log "$t/$tool failed: $(tail -n1 "$OUT/$t.$tool.$i.err")"; return 0; }
  awk -v t="$t" -v n="$tool" -v l="$load" '{ printf "%s %s %.2f %.2f %d %s\n", t, n, $1, $2+$3, $4, l }' \
    "$OUT/$t.$tool.$i.time" | tail -n1 >> "$OUT/runs"
  tail -n1 "$OUT/runs" | awk '{ printf "  %-8s %-9s wall %7.2f s  cpu %7.2f s  rss %7.1f MB  load %s\n", $1, $2, $3, $4, $5/1024, $6 }' >&2
}

TASKS=()
for t in inspect alloc cpu-s cpu-m cpu-l gcdump; do
  [ -z "$ONLY" ] || [[ "$ONLY" == *",$t,"* ]] || continue
  f=$(file_of "$t")
  [ -s "$f" ] || { pp_log "skipping $t: $f missing (bench/gen-traces.sh)"; continue; }
  TASKS+=("$t")
  cat "$f" > /dev/null     # warm the page cache
done
for i in $(seq "$RUNS"); do
  pp_log "run $i/$RUNS (load $(cut -d' ' -f1-3 /proc/loadavg))"
  for t in "${TASKS[@]}"; do
    task "$t" "$(file_of "$t")"
    if [ $((i % 2)) = 1 ]; then
      timed "$t" perfpipe "$i" "${A[@]}"; [ "$NO_TE" = 1 ] || timed "$t" peer "$i" "${B[@]}"
    else
      [ "$NO_TE" = 1 ] || timed "$t" peer "$i" "${B[@]}"; timed "$t" perfpipe "$i" "${A[@]}"
    fi
    if [ -n "${PP_BENCH_BEFORE:-}" ]; then
      PERFPIPE_PLUGIN_PATH="$PP_BENCH_BEFORE/plugins/.libs" timed "$t" before "$i" \
        "$PP_BENCH_BEFORE/perfpipe" "${A[@]:1}"
    fi
  done
done

echo
echo "host: $(nproc) CPUs, $(awk -F': ' '/model name/{print $2; exit}' /proc/cpuinfo), load now $(cut -d' ' -f1-3 /proc/loadavg); best wall of $RUNS interleaved runs"
printf '| task | trace MB | perfpipe wall s | cpu s | max RSS MB | peer wall s | cpu s | max RSS MB | x wall | x cpu | load1 |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
for t in "${TASKS[@]}"; do
  mb=$(awk -v s="$(stat -L -c %s "$(file_of "$t")")" 'BEGIN{printf "%.0f", s/1e6}')
  awk -v t="$t" -v mb="$mb" '
    $1==t { n=$2; if (!(n in w) || $3 < w[n]) { w[n]=$3; c[n]=$4; l[n]=$6 } if ($5 > r[n]) r[n]=$5 }
    END {
      pw = ("perfpipe" in w) ? sprintf("%.2f | %.2f | %.1f", w["perfpipe"], c["perfpipe"], r["perfpipe"]/1024) : "- | - | -"
      bw = ("peer" in w) ? sprintf("%.2f | %.2f | %.1f", w["peer"], c["peer"], r["peer"]/1024) : "- | - | -"
      xw = (("peer" in w) && w["perfpipe"] > 0) ? sprintf("%.1f", w["peer"]/w["perfpipe"]) : "-"
      xc = (("peer" in w) && c["perfpipe"] > 0) ? sprintf("%.1f", c["peer"]/c["perfpipe"]) : "-"
      printf "| %s | %s | %s | %s | %s | %s | %s |\n", t, mb, pw, bw, xw, xc, l["perfpipe"] }' "$OUT/runs"
done | tee "$OUT/table.md"
if [ -n "${PP_BENCH_BEFORE:-}" ]; then
  echo
  printf '| task | before wall s | cpu s | max RSS MB | after wall s | cpu s | max RSS MB | x cpu |\n|---|---:|---:|---:|---:|---:|---:|---:|\n'
  for t in "${TASKS[@]}"; do
    awk -v t="$t" '
      $1==t { n=$2; if (!(n in w) || $3 < w[n]) { w[n]=$3 } if (!(n in c) || $4 < c[n]) c[n]=$4; if ($5 > r[n]) r[n]=$5 }
      END { if (("before" in w) && ("perfpipe" in w))
              printf "| %s | %.2f | %.2f | %.1f | %.2f | %.2f | %.1f | %.2f |\n", t, w["before"], c["before"],
                     r["before"]/1024, w["perfpipe"], c["perfpipe"], r["perfpipe"]/1024, c["before"]/c["perfpipe"] }' "$OUT/runs"
  done | tee -a "$OUT/table.md"
fi
echo "raw runs: $OUT/runs (task tool wall cpu rss_kb load1)"
