#!/bin/bash
# End to end on real captures (issue #24): for every fix-shape fixture in tests/data (the
# workload's `fix` scenario, an antipattern and its healthy twin, several clients at once;
# tests/capture/capture-fix.sh), perfpipe alloc + cpu + candidates run on the committed capture
# (no runtime needed) and
#   - every candidate row names where its fix lands (module, lands, call_site), and the row that
#     points at the workload's method lands in the workload's own assembly (truth.assembly) as
#     `application`, with itself as the call site;
#   - framework frames (alloc with no framework prefixes) land in the framework's assembly
#     (truth.framework_assembly) as `framework`, with the workload's method as the call site;
#   - rules (docs/rules.md): on the antipattern the shape's rule fires on the candidate pointing at
#     the workload's method; on the healthy twin no rule fires on any candidate;
#   - issue 45: on the antipattern the top candidate (N = 1 planted cause) is exactly the planted
#     method, an application frame with its fix shape, landing and verification plan, ranked on
#     the cost per unit of work; no candidate is a framework frame; on the healthy twin no planted
#     rule fires above low confidence, as a candidate's rule or on its own.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"


shapes=$(grep -v '^#' "$DATA/MANIFEST" | awk -F'\t' '$3 == "fix" { print $1 }' | sed 's/\.nettrace$//')
[ -n "$shapes" ] || { echo "FAIL: no fix-shape fixture in $DATA/MANIFEST"; exit 1; }
n=0
for f in $shapes; do
  n=$((n + 1))
  run "$f: alloc" "$PERFPIPE" alloc "$DATA/$f.nettrace" --top 0 --format json -o "$tmp/$f.alloc.json" || continue
  run "$f: alloc, no framework prefix" "$PERFPIPE" alloc "$DATA/$f.nettrace" --top 0 \
    --option framework=NoSuchPrefix. --format json -o "$tmp/$f.allocfw.json" || continue
  run "$f: cpu" "$PERFPIPE" cpu "$DATA/$f.nettrace" --top 0 --format json -o "$tmp/$f.cpu.json" || continue
  run "$f: candidates" "$PERFPIPE" candidates "$tmp/$f.alloc.json" "$tmp/$f.cpu.json" --top 1000 \
    --format json -o "$tmp/$f.cand.json" || continue
  check "$f: every candidate names where its fix lands; the workload's method lands in its assembly" \
    "$tmp/$f.cand.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
cand, truth = (json.load(open(p)) for p in sys.argv[1:3])
t = next(t for t in cand["stages"][0]["tables"] if t["name"] == "candidates")
cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
for c in ("module", "lands", "call_site", "lands_why"):
    assert c in cols, "candidates has no %s column" % c
assert rows, "no candidates"
for r in rows:
    assert r["lands"] in ("application", "package", "framework", "unknown"), r
    assert r["lands"] != "unknown" or r["lands_why"], ("unknown without a reason", r)
    if r["module"] == truth["assembly"]:
        assert r["lands"] == "application", r
    if r["target"].startswith(truth["assembly"] + "."):
        assert r["module"] == truth["assembly"], ("a workload frame in another module", r)
    if r["lands"] == "application":
        assert r["call_site"] == r["target"], r
mine = [r for r in rows if r["target"] == truth["method"]]
if truth["expect_rule"]:
    assert mine, "no candidate points at %s: %s" % (truth["method"], [r["target"] for r in rows[:8]])
for r in mine:
    assert (r["module"], r["lands"], r["call_site"]) == (truth["assembly"], "application", truth["method"]), r
print("%d candidates, %d at %s -> %s" % (len(rows), len(mine), truth["method"],
      ", ".join(sorted({r["module"] + ":" + r["lands"] for r in rows}))))
PY
  check "$f: framework frames land in the framework, called from the workload" \
    "$tmp/$f.allocfw.json" "$tmp/$f.cpu.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
alloc, cpu, truth = (json.load(open(p)) for p in sys.argv[1:4])
def tables(doc):
    return {t["name"]: t for t in doc["stages"][0]["tables"]}
def rows(t):
    cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
checked, allmods = 0, {}
for doc in (alloc, cpu):
    mods = {r["module"]: r for r in rows(tables(doc)["modules"])}
    for m, r in mods.items():
        if m == truth["assembly"]:
            assert r["class"] == "application" and r["path"].endswith("/" + m + ".dll"), r
        if m.startswith("System.") and "/shared/Microsoft.NETCore.App/" in r["path"]:
            assert r["class"] == "framework", r
            checked += 1
        allmods[m] = r
assert truth["assembly"] in allmods, "%s not among the modules: %s" % (truth["assembly"], sorted(allmods))
fw = allmods.get(truth["framework_assembly"])
assert fw is not None, "%s not among the modules: %s" % (truth["framework_assembly"], sorted(allmods))
assert fw["class"] == "framework" and "/shared/Microsoft.NETCore.App/" in fw["path"], fw
# alloc by_frame with no framework prefix: framework leaves, each with the app frame that called it
bf = rows(tables(alloc)["by_frame"])
fwrows = [r for r in bf if r["module"] == truth["framework_assembly"] and r["call_site"]]
for r in fwrows:
    assert r["call_site"].startswith(truth["assembly"] + "."), r
# the antipatterns whose allocations happen inside the framework: the heaviest such row is called
# by the workload's method
if truth["variant"] == "bad" and truth["shape"] in ("strconcat", "regex", "jsonoptions"):
    assert fwrows, "no %s frame in by_frame" % truth["framework_assembly"]
    assert fwrows[0]["call_site"] == truth["method"], fwrows[0]
print("%d framework modules; %d %s rows in by_frame, top called from %s" % (
    checked, len(fwrows), truth["framework_assembly"], fwrows[0]["call_site"] if fwrows else "-"))
PY
  check "$f: rules: the shape's rule on the antipattern's candidate, none on the healthy twin" \
    "$tmp/$f.cand.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
cand, truth = (json.load(open(p)) for p in sys.argv[1:3])
expect = {"loh": "mem.loh-array-churn", "strconcat": "str.concat-in-loop", "regex": "regex.per-call",
          "jsonoptions": "json.options-per-call", "exceptions": "exc.control-flow",
          "boxing": "box.non-generic-collection", "lock": "lock.contention",
          "syncasync": "async.sync-over-async", "httpclient": "http.client-per-request",
          "eftracking": "ef.tracking-read-only"}[truth["shape"]]
t = next(t for t in cand["stages"][0]["tables"] if t["name"] == "candidates")
cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
if "rules" not in cols:
    print("SKIP-RULES: candidates has no rules column yet (the rules engine has not landed)")
    sys.exit(0)
rows = [dict(zip(cols, r)) for r in t["rows"]]
per_row = t.get("row_rules")    # [{id, fix, confidence, doc}] per row, in row order
assert per_row is not None and len(per_row) == len(rows), "no row_rules aligned with the rows"
fired = {}
for r, hits in zip(rows, per_row):
    if hits:
        fired.setdefault(r["target"], []).extend(h["id"] for h in hits)
    assert bool(hits) == (r["rules"] != "none matched"), ("rules column and row_rules disagree", r)
lands = t.get("row_lands")
assert lands is not None and len(lands) == len(rows), "no row_lands aligned with the rows"
for r, l in zip(rows, lands):
    assert (l["module"], l["class"], l["call_site"]) == (r["module"], r["lands"], r["call_site"]), (r, l)
# Rule defects this test found on these captures, reported to the rules owners: each is expected
# to fail here (printed as KNOWN) and must be removed once it passes (XPASS fails the test).
KNOWN = {
}
name = "fix-%s-%s" % (truth["shape"], truth["variant"])
try:
    if truth["expect_rule"]:
        got = fired.get(truth["method"], [])
        cpu_rows = [r for r in rows if r["target"] == truth["method"] and "stage 'cpu'" in r["evidence"]]
        own = [f for f in next(t for t in cand["stages"][0]["tables"] if t["name"] == "rule_findings")["rows"]
               if f[1] == expect and f[4].startswith(truth["method"] + " ")]
        if expect not in got and truth["evidence"] == "cpu" and not cpu_rows and own:
            # a waiter that never ran has no cpu candidate (candidates rank running time): the
            # rule reports it on its own, in rule_findings (docs/rules.md "A rule on its own")
            print("%s reported %s on its own (no cpu candidate: it only waits)" % (expect, truth["method"]))
            sys.exit(0)
        assert expect in got, "%s did not fire on %s (fired: %s)" % (expect, truth["method"], fired)
        print("%s fired on %s" % (expect, truth["method"]))
    else:
        assert not fired, "rules fired on the healthy twin: %s" % fired
        print("no rule fired on %d candidates" % len(rows))
except AssertionError as e:
    if name not in KNOWN:
        raise
    print("KNOWN rule defect (%s): %s" % (KNOWN[name], e))
    sys.exit(0)
assert name not in KNOWN, "XPASS: %s now holds; remove it from KNOWN" % name
PY
  check "$f: planted cause first, an application frame with fix, landing and plan" \
    "$tmp/$f.cand.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
cand, truth = (json.load(open(p)) for p in sys.argv[1:3])
st = cand["stages"][0]
T = {t["name"]: t for t in st["tables"]}
t = T["candidates"]
cols = [c["name"] for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
planted = {"loh": ["mem.loh-array-churn"], "strconcat": ["str.concat-in-loop"],
           "regex": ["regex.per-call"], "jsonoptions": ["json.options-per-call"],
           "exceptions": ["exc.control-flow", "exc.high-rate"],
           "boxing": ["box.non-generic-collection"], "lock": ["lock.contention"],
           "syncasync": ["async.sync-over-async"]}
every = {i for ids in planted.values() for i in ids}
costs = [r["cost"] for r in rows]
assert costs == sorted(costs, reverse=True), "not ranked by cost: %s" % costs[:8]
assert st["totals"]["unit"]["value"] in ("second", "request"), st["totals"]
for r in rows:
    assert r["lands"] != "framework" and r["lands"] != "package", ("a framework frame is a target", r)
if truth["expect_rule"]:
    top = rows[0]
    assert top["target"] == truth["method"], "top is %s, not the planted %s: %s" % (
        top["target"], truth["method"], [(r["target"], round(r["cost"], 1)) for r in rows[:4]])
    assert top["lands"] == "application" and top["module"] == truth["assembly"], top
    assert top["call_site"] == truth["method"], top
    ids = [h["id"] for h in t["row_rules"][0]]
    assert set(planted[truth["shape"]]) <= set(ids), (planted[truth["shape"]], ids)
    assert top["fix"] and "no rule matched" not in top["fix"], top["fix"]
    assert "perfpipe compare" in top["verify"], top["verify"]
    assert top["cost_unit"].startswith("ms per "), top["cost_unit"]
    print("#1 %s: %.1f %s, %s" % (top["target"], top["cost"], top["cost_unit"], ", ".join(ids)))
else:
    def above_low(c):
        return c in ("medium", "high")
    for r, hits in zip(rows, t["row_rules"]):
        for h in hits:
            assert not (h["id"] in every and above_low(h["confidence"])), (r["target"], h)
    for f in T["rule_findings"]["rows"]:
        assert not (f[1] in every and above_low(f[3])), f
    print("no planted rule above low confidence on %d candidates" % len(rows))
PY
done

# All the antipattern captures at once: candidates of different captures and axes rank on one scale
# (ms per second of each capture); the top N are exactly the N planted causes.
bad=$(for f in $shapes; do case $f in *-bad) [ -e "$tmp/$f.cpu.json" ] && echo "$tmp/$f.alloc.json $tmp/$f.cpu.json";; esac; done)
if run "all antipatterns: candidates" "$PERFPIPE" candidates $bad --top 50 --format json -o "$tmp/all.cand.json"; then
  check "all antipatterns: the top N are the N planted causes" "$tmp/all.cand.json" \
    $(for f in $shapes; do case $f in *-bad) echo "$DATA/$f.truth.json";; esac; done) <<'PY'
import json, sys
cand = json.load(open(sys.argv[1]))
planted = {json.load(open(p))["method"] for p in sys.argv[2:]}
t = next(t for t in cand["stages"][0]["tables"] if t["name"] == "candidates")
cols = [c["name"] for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
top = [r["target"] for r in rows[:len(planted)]]
assert set(top) == planted, "top %d: %s; planted: %s" % (len(planted), top, sorted(planted))
assert all(hits for hits in t["row_rules"][:len(planted)]), "a planted cause without its fix shape"
print("top %d = the planted causes: %s" % (len(planted), ", ".join(t.split(".")[-1] for t in top)))
PY
fi
finish "$n fixtures: "
