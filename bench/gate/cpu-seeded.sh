#!/usr/bin/env bash
# The compare gate on CPU work (issue #34): A/A and a seeded +25 % on one method's CPU work,
# judged with replicates (`perfpipe compare A1 A2 -- B1 B2`) and with one capture per side.
#   cpu-seeded.sh [--captures N] [--reps R] [--pairs P] [--out DIR] [--reuse]
# It captures the workload's `cpuwork` scenario (dotnet-sampled-thread-time) N times with
# --work-a 100 (A) and N times with --work-a 125 (B: WorkA does 25 % more CPU work, WorkB the
# same), A and B interleaved so that the machine's load drifts over both alike; default N = 20.
# From that pool it forms P pairs (default 20) of R captures per side (default 2), A/A from
# A captures only (no capture on both sides of a pair), seeded from A and B, by a fixed seed:
#   perfpipe compare A.. -- A'.. --per run --fail-on regression   -> expected exit 0
#   perfpipe compare A.. -- B..  --per run --fail-on regression   -> expected exit 1, WorkA grew
# Pairs drawn from one pool share captures, so they are not independent trials: the rates say
# how the gate judges this pool. --reuse skips the captures already in DIR. It also prints, per
# capture, WorkA's and WorkB's running samples, the Stopwatch time and the process's CPU time
# (the workload's truth): how much of a sample count is the code and how much the machine.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
N=20 REPS=2 PAIRS=20 OUT=${TMPDIR:-/tmp}/pp-gate-cpu REUSE=0
while [ $# -gt 0 ]; do
  case $1 in
    --captures) N=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --reuse) REUSE=1; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "cpu-seeded.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
PERFPIPE=${PERFPIPE:-$(command -v perfpipe || true)}
[ -x "$PERFPIPE" ] || { echo "cpu-seeded.sh: set PERFPIPE to a built perfpipe" >&2; exit 2; }
. "$SRC/tests/capture/env.sh"
[ -f "$PP_WORKLOAD_DLL" ] || { pp_install_tools; flock /tmp/pp-dotnet-build.lock bash -c ". '$SRC/tests/capture/env.sh'; pp_build"; }
mkdir -p "$OUT"
capture() { # name work-a
  [ "$REUSE" = 1 ] && [ -s "$OUT/$1.json" ] && return 0
  [ "$REUSE" = 1 ] && [ -s "$OUT/$1.nettrace" ] ||
  "$PP_TRACE" collect --profile dotnet-sampled-thread-time -o "$OUT/$1.nettrace" -- \
    dotnet "$PP_WORKLOAD_DLL" cpuwork --ops 100 --work-a "$2" --work-b 100 \
    --truth "$OUT/$1.truth.json" >/dev/null 2>&1
  "$PERFPIPE" cpu "$OUT/$1.nettrace" --format json -o "$OUT/$1.json"
  rm -f "$OUT/$1.nettrace"
}
for i in $(seq 1 "$N"); do
  capture "a$i" 100
  capture "b$i" 125
  printf 'capture %d/%d (load %s)\n' "$i" "$N" "$(cut -d' ' -f1 /proc/loadavg)" >&2
done
python3 "$HERE/cpu-pairs.py" --perfpipe "$PERFPIPE" --dir "$OUT" --captures "$N" --reps "$REPS" \
  --pairs "$PAIRS"
