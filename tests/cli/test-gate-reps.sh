#!/bin/bash
# Issue #34: compare with replicates (`perfpipe compare A1 A2 -- B1 B2`) on real captures of the
# workload's cpuwork scenario (tests/data/cpuwork: four captures with --work-a 100, two with 125,
# WorkA's CPU work +25 %, WorkB unchanged; the truths say so).
#  - each side is the sum of its captures: WorkA's samples are the two single results' sum, and
#    per run is that over 2;
#  - the rate ratio's interval carries the between-run variance the replicates show: wider than
#    the sampling-only interval of the same pooled counts, and it holds the truth (1.25);
#  - A/A 2 vs 2 is NO CHANGE and the verdict line names the test and "replicates 2 vs 2"; one
#    capture a side names its floors instead;
#  - a separator with no file on one side is a usage error (2).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}/cpuwork
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/cpuwork.tar.xz" ] || { echo "SKIP: tests/data/cpuwork not present"; exit 77; }
tar -xJf "$DATA/cpuwork.tar.xz" -C "$tmp" || { echo "FAIL: cannot unpack cpuwork.tar.xz"; exit 1; }
for n in a1 a2 a3 a4 b1 b2; do
  run "cpu on cpuwork-$n" "$PERFPIPE" cpu "$tmp/cpuwork-$n.nettrace" --format json -o "$tmp/$n.json" ||
    { finish; exit; }
done

expect 0 "A/A 2 vs 2 passes --fail-on regression (options before and after the files)" -- \
  "$PERFPIPE" compare --per run --format json -o "$tmp/aa.json" "$tmp/a1.json" "$tmp/a2.json" -- \
  "$tmp/a3.json" "$tmp/a4.json" --fail-on regression
check "A/A 2 vs 2: no change, the test and the replicates named, all four captures listed" \
  "$tmp/aa.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
assert v["overall"] == "no change", v
assert "between-run variance" in v["line"] and "replicates 2 vs 2" in v["line"], v["line"]
assert [len(i["captures"]) for i in d["inputs"]] == [2, 2], d["inputs"]
print(v["line"][:160])
PY

"$PERFPIPE" compare --per run --format json -o "$tmp/ab.json" "$tmp/a1.json" "$tmp/a2.json" -- \
  "$tmp/b1.json" "$tmp/b2.json"
check "seeded 2 vs 2: WorkA pooled by sum, per run over 2; its interval holds the truth and the between-run term" \
  "$tmp/ab.json" "$tmp/a1.json" "$tmp/a2.json" "$tmp/b1.json" "$tmp/b2.json" \
  "$DATA/cpuwork-a1.truth.json" "$DATA/cpuwork-b1.truth.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1]))
singles = [json.load(open(p)) for p in sys.argv[2:6]]
ta, tb = (json.load(open(p)) for p in sys.argv[6:8])
units = lambda t: next(m["units_per_op"] for m in t["methods"] if m["short"] == "WorkA")
truth = units(tb) / units(ta)
assert truth == 1.25, truth

def samples(doc):
    tb = next(t for t in doc["stages"][0]["tables"] if t["name"] == "running")
    c = [x["name"] for x in tb["columns"]].index("samples")
    return sum(r[c] for r in tb["rows"] if r[0].endswith(".WorkA"))

kb, kc = samples(singles[0]) + samples(singles[1]), samples(singles[2]) + samples(singles[3])
tb = next(t for t in d["stages"][0]["tables"] if t["name"] == "running")
cols = [x["name"] for x in tb["columns"]]
row = dict(zip(cols, next(r for r in tb["rows"] if r[0].endswith(".WorkA"))))
assert (row["samples_base"], row["samples_cand"]) == (kb, kc), (row, kb, kc)
assert row["samples_per_run_base"] == kb / 2 and row["samples_per_run_cand"] == kc / 2, row
lo, hi = row["rate_ratio_lo"], row["rate_ratio_hi"]
assert lo <= truth <= hi, (lo, hi, truth)
# sampling only: Wilson's interval of kc / (kb + kc), as compare does with one capture a side
n, z = kb + kc, 1.959963984540054
ph = kc / n; c = (ph + z * z / (2 * n)) / (1 + z * z / n)
h = z / (1 + z * z / n) * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n))
plo, phi = (c - h) / (1 - c + h), (c + h) / (1 - c - h)
assert hi / lo > 1.5 * phi / plo, ((lo, hi), (plo, phi))
# on these captures sampling alone excludes the truth: the runs differ by more than their samples
assert not plo <= truth <= phi, (plo, phi)
print("WorkA %d -> %d samples (2 runs each); ratio interval %.2f-%.2f with the between-run term, "
      "%.2f-%.2f from sampling alone; truth %.2f" % (kb, kc, lo, hi, plo, phi, truth))
PY

"$PERFPIPE" compare --per run "$tmp/a1.json" "$tmp/b1.json" > "$tmp/one.txt"
check "one capture a side: the verdict line names its floors" "$tmp/one.txt" <<'PY'
import sys
line = open(sys.argv[1]).readline()
assert "one capture per side" in line and "60%" in line and "150%" in line, line
PY
expect 2 "no candidate after the separator is a usage error" -- \
  "$PERFPIPE" compare "$tmp/a1.json" "$tmp/a2.json" --
expect 2 "no baseline before the separator is a usage error" -- \
  "$PERFPIPE" compare -- -- "$tmp/a1.json" "$tmp/a2.json"
expect 0 "a leading -- ends the options, a second one separates the sides" -- \
  "$PERFPIPE" compare --per run --fail-on regression -- "$tmp/a1.json" "$tmp/a2.json" -- \
  "$tmp/a3.json" "$tmp/a4.json"
finish
