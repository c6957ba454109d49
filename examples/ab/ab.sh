#!/bin/bash
# A/B with identical knobs: run one shipped pipeline over a baseline and a
# candidate capture, keep both results as evidence, compare them, and list
# what is left to optimize.
#
#   examples/ab/ab.sh PIPELINE INPUT BASELINE CANDIDATE [--set KEY=VALUE]...
#   examples/ab/ab.sh alloc trace before.nettrace after.nettrace --set scenario=getFullCart --set rate=50
#
# Exit status is compare's: 1 when the candidate regressed (a row appeared or
# grew beyond the noise), so the script can gate a merge.
set -euo pipefail
[ $# -ge 4 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
pipeline=$1 input=$2 base=$3 cand=$4; shift 4
out=${AB_DIR:-ab-$pipeline}
perfpipe=${PERFPIPE:-perfpipe}
mkdir -p "$out"

# The same knobs for both runs: compare refuses results whose knobs differ.
"$perfpipe" run "$pipeline" --input "$input=$base" "$@" --evidence-dir "$out/evidence" \
  --format json -o "$out/baseline.json"
"$perfpipe" run "$pipeline" --input "$input=$cand" "$@" --evidence-dir "$out/evidence" \
  --format json -o "$out/candidate.json"
"$perfpipe" candidates "$out/candidate.json" --format markdown -o "$out/candidates.md"
set +e
"$perfpipe" compare "$out/baseline.json" "$out/candidate.json" --fail-on regression
status=$?
"$perfpipe" compare "$out/baseline.json" "$out/candidate.json" --format markdown -o "$out/compare.md"
echo "evidence in $out/ (compare.md, candidates.md, evidence/index.tsv)" >&2
exit $status
