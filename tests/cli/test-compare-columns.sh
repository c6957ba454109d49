#!/bin/bash
# compare when the two runs' versions of one table have different column
# sets. cpu's `running` table carries a `source` column only where perfpipe
# read source lines from the module/PDB files the trace names on disk
# (PERFPIPE_BUILD_CHECK and the symbol path decide), so a rebuild between two
# captures gives it to one side only. Compare used to skip the whole table
# then, and judge without it: a regression there passed the gate.
#  - `source` on one side only: the table is compared on the columns both
#    have, the regression in it is found (exit 1 with --fail-on), and the
#    document (tables[].columns_one_side) and the text report
#    (compare.columns_one_side) name the column;
#  - a judged figure (`samples`) on one side only: the table cannot be
#    compared, so the comparison cannot judge (compare.cannot_judge in every
#    stage, verdict "cannot judge", --fail-on exits 6), said in the text and
#    markdown outputs.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"

export PERFPIPE_BUILD_CHECK=off
run "cpu on cpu-sampled" "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format json \
  -o "$tmp/b.json" || { finish; exit; }
# src-c: `source` added to the candidate's running table and its top row x5
# there only; src-b: `source` in the baseline only, nothing else changed;
# nosamples-c: the candidate's running table without its samples column
python3 - "$tmp" <<'PY'
import copy, json, sys
T = sys.argv[1]
d = json.load(open(T + "/b.json"))
def running(doc):
    return next(t for t in doc["stages"][0]["tables"] if t["name"] == "running")
def with_source(doc):
    t = running(doc)
    t["columns"].append({"name": "source", "type": "string"})
    for r in t["rows"]:
        r.append("Program.cs:42")
    return t
c = copy.deepcopy(d)
t = with_source(c)
names = [x["name"] for x in t["columns"]]
for col in ("samples", "ms"):
    t["rows"][0][names.index(col)] *= 5
json.dump(c, open(T + "/src-c.json", "w"))
b = copy.deepcopy(d)
with_source(b)
json.dump(b, open(T + "/src-b.json", "w"))
c = copy.deepcopy(d)
t = running(c)
i = names.index("samples")
t["columns"].pop(i)
for r in t["rows"]:
    r.pop(i)
del t["decl"]["figures"]["samples"]
t["decl"]["candidate"]["evidence"] = ["ms"]
json.dump(c, open(T + "/nosamples-c.json", "w"))
PY

expect 1 "source only in the candidate: the regression in running fails the gate" -- \
  "$PERFPIPE" compare "$tmp/b.json" "$tmp/src-c.json" --fail-on regression -o "$tmp/src.txt"
has "$tmp/src.txt" "[compare.columns_one_side] table running: compared on the columns both runs have; only in the baseline: none; only in the candidate: source" \
  "the text report names the column only the candidate has"
has "$tmp/src.txt" "cpu running 'Workload.CpuScenario.HotA' samples per second +400.0%: regressed" \
  "the verdict names the row of running that grew"
if run "compare --format json (source in the candidate)" "$PERFPIPE" compare "$tmp/b.json" \
  "$tmp/src-c.json" --format json -o "$tmp/src.json"; then
  check "the document: running compared, columns_one_side names source, verdict regressed" "$tmp/src.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = d["stages"][0]
t = next(t for t in st["tables"] if t["name"] == "running")
assert t["columns_one_side"] == {"baseline": [], "candidate": ["source"]}, t.get("columns_one_side")
row = next(r for r in t["rows"] if r[0] == "Workload.CpuScenario.HotA")
assert "grew" in row, row
assert d["verdict"]["overall"] == "regressed", d["verdict"]
assert not d["compared"]["cannot_judge"], d["compared"]
print(t["columns_one_side"], d["verdict"]["overall"])
PY
fi
if run "compare --format json (source in the baseline)" "$PERFPIPE" compare "$tmp/src-b.json" \
  "$tmp/b.json" --format json -o "$tmp/srcb.json"; then
  check "source only in the baseline, nothing else: running compared, no change" "$tmp/srcb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = next(t for t in d["stages"][0]["tables"] if t["name"] == "running")
assert t["columns_one_side"] == {"baseline": ["source"], "candidate": []}, t.get("columns_one_side")
assert len(t["rows"]) > 10, len(t["rows"])
assert d["verdict"]["overall"] == "no change", d["verdict"]
PY
fi

expect 6 "samples only in the baseline: --fail-on exits 6 (cannot judge)" -- \
  "$PERFPIPE" compare "$tmp/b.json" "$tmp/nosamples-c.json" --fail-on regression -o "$tmp/ns.txt"
has "$tmp/err" "cannot judge: table running: column samples, a key or figure the verdict reads, is only in the baseline" \
  "standard error says which table and column"
has "$tmp/ns.txt" "CANNOT JUDGE: table running: column samples" "the text report leads with it"
if run "compare --format markdown (samples in the baseline only)" "$PERFPIPE" compare \
  "$tmp/b.json" "$tmp/nosamples-c.json" --format markdown -o "$tmp/ns.md"; then
  has "$tmp/ns.md" "**CANNOT JUDGE: table running: column samples" "the markdown report leads with it"
fi
if run "compare --format json (samples in the baseline only)" "$PERFPIPE" compare \
  "$tmp/b.json" "$tmp/nosamples-c.json" --format json -o "$tmp/ns.json"; then
  check "the document: cannot judge, every stage says why" "$tmp/ns.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["overall"] == "cannot judge", d["verdict"]
assert d["compared"]["verdict"] == "cannot judge", d["compared"]["verdict"]
assert any("table running: column samples" in r for r in d["compared"]["cannot_judge"]), d["compared"]
for st in d["stages"]:
    assert any(f["code"] == "compare.cannot_judge" and f["severity"] == "error" and
               "running" in f["message"] for f in st["findings"]), st["id"]
PY
fi
# The bench tables (BenchmarkDotNet, compared case by case): an extra column on
# one side moves the figures' indices (read per side now), and a judged figure
# on one side only cannot be judged (was a warning, the verdict without it).
run "bench on the alloc export" "$PERFPIPE" bench "$DATA/bench-alloc.report-full.json" \
  --format json -o "$tmp/ba.json" || { finish; exit; }
python3 - "$tmp" <<'PY'
import copy, json, sys
T = sys.argv[1]
d = json.load(open(T + "/ba.json"))
def bench(doc):
    return next(t for t in doc["stages"][0]["tables"]
                if any(c["name"] == "mean_ns" for c in t["columns"]))
c = copy.deepcopy(d)
t = bench(c)
t["columns"].insert(0, {"name": "note", "type": "string"})
for r in t["rows"]:
    r.insert(0, "rebuilt")
json.dump(c, open(T + "/bnote-c.json", "w"))
c = copy.deepcopy(d)
t = bench(c)
i = [x["name"] for x in t["columns"]].index("allocated_b_op")
t["columns"].pop(i)
for r in t["rows"]:
    r.pop(i)
del t["decl"]["figures"]["allocated_b_op"]
json.dump(c, open(T + "/bnoalloc-c.json", "w"))
PY
expect 0 "bench: a descriptive column first in the candidate, same cases: no regression" -- \
  "$PERFPIPE" compare "$tmp/ba.json" "$tmp/bnote-c.json" --fail-on regression --format json \
  -o "$tmp/bnote.json"
check "bench: every case compared on its own figures (allocations the same)" "$tmp/bnote.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert not d["compared"]["cannot_judge"], d["compared"]
codes = [f["code"] for st in d["stages"] for f in st["findings"]]
assert "compare.table_mismatch" not in codes and "compare.structural" not in codes, codes
assert any(t["rows"] for st in d["stages"] for t in st["tables"]), "no compared bench rows"
PY
expect 6 "bench: allocated_b_op only in the baseline: --fail-on exits 6 (cannot judge)" -- \
  "$PERFPIPE" compare "$tmp/ba.json" "$tmp/bnoalloc-c.json" --fail-on regression -o "$tmp/bna.txt"
has "$tmp/err" "column allocated_b_op is not in the candidate's bench table" \
  "standard error says which table and column"
finish
