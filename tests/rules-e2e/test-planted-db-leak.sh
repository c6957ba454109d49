#!/bin/bash
# Issue 45 on the committed db and heap captures (no runtime needed):
#   - a plain `--profile database` capture (no Hosting events, no rundown) of the N+1 endpoint:
#     the top candidate is the repeated command (the truth's command run repeated_per_request
#     times per request), with ef.n-plus-one at the db stage's own confidence (medium: no
#     request boundaries); its healthy twin (one query per request) gets no ef.n-plus-one above
#     low;
#   - the leak: two gcdumps alone say "grew" (finding gcdump.grew, with the caution; rule
#     heap.static-growth, low; no leak verdict); with a counters series over which the heap keeps
#     growing, the owner type (the truth's leak_type) is the top candidate with
#     leak.static-collection (high).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"

for f in webdb-nplus1-c1 webdb-one-c1; do
  run "$f: db" "$PERFPIPE" db "$DATA/$f.nettrace" --format json -o "$tmp/$f.db.json" || continue
  run "$f: candidates" "$PERFPIPE" candidates "$tmp/$f.db.json" --format json \
    -o "$tmp/$f.cand.json" || continue
  check "$f: the N+1 command first with ef.n-plus-one at the db stage's confidence; none on the twin" \
    "$tmp/$f.cand.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
cand, truth = (json.load(open(p)) for p in sys.argv[1:3])
st = cand["stages"][0]
t = next(t for t in st["tables"] if t["name"] == "candidates")
cols = [c["name"] for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
assert st["totals"]["unit"]["value"] == "second", st["totals"]   # no Hosting events
fired = {h["id"]: h["confidence"] for hits in t["row_rules"] for h in hits}
if truth["endpoint"] == "nplus1":
    n = truth["requests"] * truth["repeated_per_request"]
    planted = [c for c in truth["commands"] if c["count"] == n]
    assert len(planted) == 1, [c["count"] for c in truth["commands"]]
    words = planted[0]["command_text"].split()[:4]
    top = rows[0]
    assert top["target"].split()[:4] == words, (top["target"], words)
    ids = {h["id"]: h for h in t["row_rules"][0]}
    assert "ef.n-plus-one" in ids, ids
    assert ids["ef.n-plus-one"]["confidence"] == "medium", ids
    assert "no rule matched" not in top["fix"] and "perfpipe compare" in top["verify"], top
    print("#1 %s... (%.1f %s): ef.n-plus-one (medium)" % (" ".join(words), top["cost"], top["cost_unit"]))
else:
    assert fired.get("ef.n-plus-one") in (None, "low"), fired
    print("twin: no ef.n-plus-one above low (%s)" % (fired or "no rule fired"))
PY
done

if run "leak: gcdump-diff" "$PERFPIPE" gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump" \
     --format json -o "$tmp/gd.json" &&
   run "leak: counters" "$PERFPIPE" counters-csv "$DATA/leak-counters.json" --format json -o "$tmp/lc.json" &&
   run "leak: candidates, two snapshots" "$PERFPIPE" candidates "$tmp/gd.json" --format json -o "$tmp/c2.json" &&
   run "leak: candidates, snapshots and counters" "$PERFPIPE" candidates "$tmp/gd.json" "$tmp/lc.json" \
     --format json -o "$tmp/c3.json"; then
  check "leak: two snapshots say grew, with the caution; the series makes the owner a leak" \
    "$tmp/gd.json" "$tmp/lc.json" "$tmp/c2.json" "$tmp/c3.json" "$DATA/leak.truth.json" <<'PY'
import json, sys
gd, lc, c2, c3, truth = (json.load(open(p)) for p in sys.argv[1:6])
codes = [f["code"] for f in gd["stages"][0]["findings"]]
assert "gcdump.leak_suspect" not in codes, codes
grew = [f for f in gd["stages"][0]["findings"] if f["code"] == "gcdump.grew"]
assert grew and grew[0]["message"].startswith(truth["leak_type"] + " "), grew
assert "cannot tell a leak from" in grew[0]["message"], grew[0]["message"]
bc = next(t for t in lc["stages"][0]["tables"] if t["name"] == "by_counter")
cols = [c["name"] for c in bc["columns"]]
trends = {r[cols.index("quantity")]: r[cols.index("trend")] for r in bc["rows"]}
assert "growing" in trends.values(), trends
def top(doc):
    t = next(t for t in doc["stages"][0]["tables"] if t["name"] == "candidates")
    cols = [c["name"] for c in t["columns"]]
    return dict(zip(cols, t["rows"][0])), {h["id"]: h["confidence"] for h in t["row_rules"][0]}
r2, ids2 = top(c2)
assert r2["target"] == truth["leak_type"], r2["target"]
assert "leak.static-collection" not in ids2 and ids2.get("heap.static-growth") == "low", ids2
r3, ids3 = top(c3)
assert r3["target"] == truth["leak_type"], r3["target"]          # the owner, not its byte[] payload
assert ids3.get("leak.static-collection") == "high" and "heap.static-growth" not in ids3, ids3
print("two snapshots: %s grew (%s); with the series: %s" % (r2["target"], ids2, ids3))
PY
fi
# Every shipped rule is proven both ways in this suite or marked experimental (docs/rules.md,
# "Proven both ways"): a rule is proven exactly when its docs/rules.md row says so, names the
# captures it fires on and stays silent on, each a fixture the suite holds (tests/data, its
# subdirectories, the webapp archive's truths), and a test of tests/rules-e2e asserts its id.
if run "rules list" "$PERFPIPE" rules list --format json; then
  cp "$tmp/out" "$tmp/rules.json"
  check "rules: >= 45 in force; proven exactly where a capture pair in the suite proves them" \
    "$tmp/rules.json" "$(dirname "$0")/../../docs/rules.md" "$DATA" "$(dirname "$0")" <<'PY'
import json, os, re, sys
rules = json.load(open(sys.argv[1]))
doc = open(sys.argv[2]).read()
data, e2e = sys.argv[3], sys.argv[4]
assert len(rules) >= 45, len(rules)
fixtures = set()
for dp, _, fs in os.walk(data):
    for f in fs:
        fixtures.add(re.sub(r"\.(nettrace|gcdump|truth\.json|oracle\.json|wrk\.txt|json|csv)(\.zst)?$", "", f))
tests = "".join(open(os.path.join(e2e, f)).read() for f in os.listdir(e2e) if f.endswith(".sh"))
rows = {}
for line in doc.splitlines():
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
    if len(cells) == 7 and cells[3] in ("proven", "experimental"):
        rows[cells[0].strip("`")] = cells
shipped = {r["id"]: r for r in rules if not r["disabled"]}
proven = 0
for i, r in shipped.items():
    assert i in rows, "docs/rules.md has no row for %s" % i
    status = rows[i][3]
    assert status == ("experimental" if r["experimental"] else "proven"), (i, status, r["experimental"])
    assert not r["experimental"] or r["confidence"] != "high", ("experimental above medium", r)
    if r["experimental"]:
        continue
    proven += 1
    for what, cell in (("fires on", rows[i][4]), ("silent on", rows[i][5])):
        names = re.findall(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+", cell)
        held = [n for n in names if n in fixtures or any(f.startswith(n + "-") for f in fixtures)]
        assert held, "%s: its '%s' cell names no fixture of the suite: %s" % (i, what, cell)
    assert re.search(r"[\"' ]%s[\"' :]" % re.escape(i), tests), "%s: no test in %s asserts it" % (i, e2e)
print("%d rules, %d proven (each with its fixtures and a test), %d experimental" % (
    len(shipped), proven, len(shipped) - proven))
PY
fi
finish
