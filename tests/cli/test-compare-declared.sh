#!/bin/bash
# Issue #41: compare's sampled-time floor comes from what a table declares,
# not from the shipped cpu analyzer's totals. A figure declared in samples on
# the time axis counts time (each sample stands for an interval of a thread's
# time), so one capture per side gates it at the run-to-run time floor (60 %,
# core/compare/compare_classify.c), whoever the analyzer:
#  - a third-party table "hot" (analyzer acme-sampler, figure "hits" declared
#    {unit samples, axis time}) and the same numbers in cpu's words (table
#    running, figure samples, as cpu declares it) get the same verdicts: a
#    +40 % move is NO CHANGE, a +80 % one REGRESSED (the floor, not a blind);
#  - without the declaration the +40 % move regresses (a count's rate test);
#  - cpu's own result on a real capture declares its samples so, and a +40 %
#    scaled copy of it is NO CHANGE with the declarations, REGRESSED without.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"

# mk OUT ANALYZER TABLE FIGURE DECLARED HOT WARM [EXTRA_TOTAL]: a result
# document with one stage, one table of two frames and the figure's total.
mk() {
  python3 - "$@" <<'PY'
import json, sys
out, an, tb, col, declared, a, b = sys.argv[1:8]
a, b = int(a), int(b)
t = {"name": tb, "key": ["frame"],
     "columns": [{"name": "frame", "type": "string"}, {"name": col, "type": "count"}],
     "rows": [["App.Hot", a], ["App.Warm", b]]}
if declared == "1":
    t["decl"] = {"subject": "frame", "key": ["frame"],
                 "figures": {col: {"unit": "samples", "axis": "time"}}}
totals = {col: {"type": "count", "value": a + b}}
for extra in sys.argv[8:]:  # what cpu writes beside its samples
    totals[extra] = {"type": "duration_ns", "value": 1000000}
doc = {"format": "perfpipe-result/1", "tool": {"name": "perfpipe", "version": "0.1.0"},
       "pipeline": an, "knobs": {}, "inputs": [],
       "stages": [{"id": an, "analyzer": {"name": an, "version": "1.0.0"}, "status": "ok",
                   "tables": [t], "findings": [], "totals": totals, "options": {}}],
       "work": {"unit": "second", "requests": None, "requests_source": None, "seconds": 10.0,
                "operations": None}}
json.dump(doc, open(out, "w"))
PY
}
verdict() { # verdict BASE CAND: the overall verdict of compare --format json
  "$PERFPIPE" compare "$1" "$2" --format json -o "$tmp/v.json" 2>"$tmp/err" &&
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"]["overall"])' "$tmp/v.json"
}
same() { # same NAME WANT GOT
  if [ "$3" = "$2" ]; then pass=$((pass + 1)); echo "PASS: $1: $3"
  else fail=$((fail + 1)); echo "FAIL: $1: '$3', expected '$2'"; sed 's/^/  stderr: /' "$tmp/err" | head -3; fi
}

for who in third cpu; do
  if [ $who = third ]; then words="acme-sampler hot hits"; extra=""
  else words="cpu running samples"; extra=sample_interval; fi
  mk "$tmp/$who-b.json" $words 1 600 400 $extra
  mk "$tmp/$who-c40.json" $words 1 840 560 $extra
  mk "$tmp/$who-c80.json" $words 1 1080 720 $extra
  same "$who: declared samples on the time axis, +40 %" "no change" \
    "$(verdict "$tmp/$who-b.json" "$tmp/$who-c40.json")"
  same "$who: declared samples on the time axis, +80 %" "regressed" \
    "$(verdict "$tmp/$who-b.json" "$tmp/$who-c80.json")"
  mk "$tmp/$who-b0.json" $words 0 600 400 $extra
  mk "$tmp/$who-c0.json" $words 0 840 560 $extra
  same "$who: the same counts undeclared, +40 %" "regressed" \
    "$(verdict "$tmp/$who-b0.json" "$tmp/$who-c0.json")"
done

# ---- cpu's own result on a real capture ----
if run "cpu on cpu-sampled" "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format json -o "$tmp/real.json"; then
  check "cpu declares its samples figures in samples on the time axis" "$tmp/real.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))["stages"][0]
figs = [(t["name"], c) for t in st["tables"]
        for c, f in t.get("decl", {}).get("figures", {}).items()
        if f.get("unit") == "samples" and f.get("axis") == "time"]
assert ("running", "samples") in figs, figs
print(len(figs), "figures")
PY
  # every count and time of the stage +40 % (the work, its duration, the same)
  python3 - "$tmp/real.json" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
st = d["stages"][0]
for t in st["tables"]:
    for i, c in enumerate(t["columns"]):
        if c["type"] in ("count", "number", "duration_ns"):
            for r in t["rows"]:
                if isinstance(r[i], (int, float)):
                    r[i] = round(r[i] * 1.4) if c["type"] != "number" else r[i] * 1.4
for k, v in st["totals"].items():
    if k not in ("duration", "sample_interval", "threads") and v["type"] in ("count", "duration_ns"):
        v["value"] = round(v["value"] * 1.4)
json.dump(d, open(sys.argv[2] + "/real-c40.json", "w"))
for doc, name in ((json.load(open(sys.argv[1])), "real-b0.json"), (d, "real-c0.json")):
    for t in doc["stages"][0]["tables"]:
        t.pop("decl", None)
    json.dump(doc, open(sys.argv[2] + "/" + name, "w"))
PY
  same "real cpu result, declared, every figure +40 %" "no change" \
    "$(verdict "$tmp/real.json" "$tmp/real-c40.json")"
  same "real cpu result, declarations removed, every figure +40 %" "regressed" \
    "$(verdict "$tmp/real-b0.json" "$tmp/real-c0.json")"
fi
finish
