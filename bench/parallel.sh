#!/usr/bin/env bash
# parallel.sh: `perfpipe inspect --jobs 1` (serial) against `--jobs N` on one
# trace (or `perfpipe alloc`, with --cmd alloc: the pipeline engine's
# parallel read), interleaved (serial, parallel, serial, ...), each run under
# /usr/bin/time: wall, user, sys, max RSS, with the 1-minute load average
# before the run; the two documents must be equal (`cmp`).
#
#   bench/parallel.sh [--rounds N] [--jobs N] [--cmd inspect|alloc] [TRACE]
#
# TRACE defaults to ~/.cache/perfpipe-bench/alloc-deep-closed.nettrace (the
# 1,661 MB deep gc-verbose trace of bench/gen-traces.sh). PERFPIPE names the
# binary (default: ./perfpipe, else /tmp/b-bench/perfpipe; build it with
# -O2 and no sanitizers). Raw lines go to stdout and to $PP_BENCH_OUT
# (default /tmp/perfpipe-parallel.txt); the summary gives, per mode, the
# best and median wall, the CPU seconds and max RSS, and GB/s of wall,
# then the split log of the parallel runs (CPU per region).
# A wall-time figure means little under load: read the load column.
set -euo pipefail
ROUNDS=5 JOBS=2 CMD=inspect TRACE="$HOME/.cache/perfpipe-bench/alloc-deep-closed.nettrace"
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift ;;
    --jobs) JOBS=$2; shift ;;
    --cmd) CMD=$2; shift ;;
    -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "parallel.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    *) TRACE=$1 ;;
  esac
  shift
done
if [ -z "${PERFPIPE:-}" ]; then
  if [ -x ./perfpipe ]; then PERFPIPE=./perfpipe; else PERFPIPE=/tmp/b-bench/perfpipe; fi
fi
OUT=${PP_BENCH_OUT:-/tmp/perfpipe-parallel.txt}
case $CMD in inspect|alloc) ;; *) echo "parallel.sh: --cmd inspect or alloc, not $CMD" >&2; exit 2 ;; esac
[ -r "$TRACE" ] || { echo "parallel.sh: no trace $TRACE (bench/gen-traces.sh makes it)" >&2; exit 3; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bytes=$(stat -L -c %s "$TRACE")
echo "# $(date -u +%FT%TZ) $(nproc) CPUs, trace $TRACE ($bytes bytes), perfpipe $PERFPIPE $CMD" | tee "$OUT"
echo "# round mode wall_s user_s sys_s maxrss_kb load1" | tee -a "$OUT"
cat "$TRACE" >/dev/null                      # warm the page cache
run() {   # run ROUND MODE JOBS
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  PERFPIPE_INSPECT_SPLIT_LOG=$tmp/split.log /usr/bin/time -f "%e %U %S %M" -o "$tmp/t" \
    "$PERFPIPE" "$CMD" --format json --jobs "$3" "$TRACE" >"$tmp/$2.json"
  echo "$1 $2 $(cat "$tmp/t") $load" | tee -a "$OUT"
}
for r in $(seq 1 "$ROUNDS"); do
  if [ $((r % 2)) = 1 ]; then run "$r" serial 1; run "$r" jobs$JOBS "$JOBS"
  else run "$r" jobs$JOBS "$JOBS"; run "$r" serial 1; fi
  cmp -s "$tmp/serial.json" "$tmp/jobs$JOBS.json" || { echo "parallel.sh: round $r: documents differ" >&2; exit 1; }
done
awk -v b="$bytes" '!/^#/ { w[$2] = w[$2] " " $3; c[$2] = c[$2] " " ($4 + $5); m[$2] = ($6 > m[$2] ? $6 : m[$2]);
                           l[$2] = l[$2] " " $7 }
  function sorted(s, a,   n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
                           if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return n }
  END { for (k in w) { n = sorted(w[k], a); best = a[1]; med = a[int((n + 1) / 2)];
          sorted(c[k], cc); printf "%-7s wall best %.2f s median %.2f s (%.2f GB/s best, %.2f median); CPU %.2f-%.2f s; max RSS %.1f MB; load%s\n",
            k, best, med, b / best / 1e9, b / med / 1e9, cc[1], cc[n], m[k] / 1024, l[k];
          bw[k] = best; mw[k] = med }
        for (k in w) if (k != "serial") printf "speedup (serial / %s): best %.2fx, median %.2fx\n", k, bw["serial"] / bw[k], mw["serial"] / mw[k] }' "$OUT" | tee -a "$OUT"
# What each parallel run did (regions folded, or read serially again), and
# the CPU seconds of its index and of each region's worker: on idle cores
# the wall time is about the index plus the longest region.
sed 's/^/# split: /' "$tmp/split.log" | tee -a "$OUT"
