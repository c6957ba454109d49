#!/usr/bin/env bash
# The run-to-run floors of the compare gate (issue #34), measured on the A/A pairs of
# tests/data/webapp: two captures of the same code and knobs (bad and bad2) under closed-loop wrk.
#   aa-floor.sh [--out DIR]      (PERFPIPE and PERFPIPE_PLUGIN_PATH: a built perfpipe)
# For every A/A pair it runs the fixture's pipeline (its analyzer beside wrk's result, as
# tests/cli/test-webapp-gate.sh does) and `perfpipe compare bad bad2`, then prints, per total, the
# move per request of each pair and the largest. core/compare/compare_classify.c sets CMP_TIME_NOISE and
# CMP_LATENCY_NOISE above the largest moves of thread time and of latency statistics; record
# the figures in README.md with the date and the machine. No dotnet needed (the fixtures are
# committed).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(cd "$HERE/../../tests/data/webapp" && pwd)
OUT=${TMPDIR:-/tmp}/pp-gate-floor
while [ $# -gt 0 ]; do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "aa-floor.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
PERFPIPE=${PERFPIPE:-$(command -v perfpipe || true)}
[ -x "$PERFPIPE" ] || { echo "aa-floor.sh: set PERFPIPE to a built perfpipe" >&2; exit 2; }
mkdir -p "$OUT"
tar -xJf "$DATA/webapp.tar.xz" -C "$OUT"
for a in db alloc cpu; do
  cat > "$OUT/$a.yaml" <<YAML
version: 1
name: webapp-$a
inputs:
  trace: { kind: nettrace, path: "\${TRACE}" }
  results: { kind: load, path: "\${RESULTS}" }
stages:
  - { id: $a, analyzer: $a, input: trace }
  - { id: load, analyzer: load, input: results }
YAML
done
for t in "$DATA"/webapp-*-bad2.truth.json; do
  n=$(basename "$t" -bad2.truth.json)
  a=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["analyzer"])' "$t")
  for v in bad bad2; do
    "$PERFPIPE" run "$OUT/$a.yaml" --input trace="$OUT/$n-$v.nettrace" \
      --input results="$DATA/$n-$v.wrk.txt" --format json -o "$OUT/$n-$v.json"
  done
  set +e
  "$PERFPIPE" compare "$OUT/$n-bad.json" "$OUT/$n-bad2.json" --fail-on regression --format json \
    -o "$OUT/$n-aa.json" 2>/dev/null
  echo "$n $?" >> "$OUT/exits"
  set -e
done
python3 - "$OUT" <<'PY'
import glob, json, os, sys
moves = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "webapp-*-aa.json"))):
    d = json.load(open(f))
    pair = os.path.basename(f)[len("webapp-"):-len("-aa.json")]
    print("%-16s %s" % (pair, d["verdict"]["line"][:110]))
    for st in d["stages"]:
        tb = next((t for t in st["tables"] if t["name"] == "totals"), None)
        if tb is None:
            continue
        cols = [c["name"] for c in tb["columns"]]
        for r in tb["rows"]:
            row = dict(zip(cols, r))
            rel = row.get("per_%s_delta_pct" % d["verdict"]["unit"])
            if isinstance(rel, (int, float)):
                moves.setdefault("%s %s" % (st["id"], row["total"]), []).append((pair, rel))
print("\nper request, A/A moves by total (largest |move| first):")
for k, v in sorted(moves.items(), key=lambda kv: -max(abs(x) for _, x in kv[1])):
    print("  %-28s max %6.1f%%  %s" % (k, max(abs(x) for _, x in v),
          ", ".join("%s %+.1f%%" % (p, x) for p, x in v)))
PY
