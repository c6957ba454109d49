#!/bin/bash
# Issue 45, "a bounded cache filled during a run is not a leak; a never-evicting static dictionary
# is, with its owner type first", on the committed cache captures (tests/capture/capture-cache.sh:
# the workload's `cache` scenario, three dotnet-gcdump snapshots of each mode; no runtime needed).
# Truth (cache-MODE.truth.json, the scenario's own counts): the entries in the cache at each
# snapshot, the entry type, whether the dictionary evicts (bound). perfpipe gcdump-diff runs on
# snapshots 1-2 and 2-3, then `perfpipe candidates`:
#   - both modes, 1-2 alone: the entry type grew by exactly the truth's entries, "grew" only
#     (heap.static-growth, low), no leak verdict: one growth cannot tell a leak from a cache
#     warming up;
#   - leak, 1-2 and 2-3: the top candidate is the entry type (the owner of the growing payload),
#     held by the truth's dictionary, with leak.static-collection (high);
#   - bounded, 1-2 and 2-3: no leak.static-collection anywhere (candidate or rule finding); the
#     entry type is named bounded (heap.bounded-growth);
#   - the counters series of each mode (below): leak_suspect for the leak, bounded for the cache.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}/cache
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/cache-leak-s3.gcdump" ] || { echo "SKIP: tests/data/cache fixtures not present"; exit 77; }

for m in leak bounded; do
  for p in 12 23; do
    run "$m: gcdump-diff s${p:0:1} s${p:1:1}" "$PERFPIPE" gcdump-diff "$DATA/cache-$m-s${p:0:1}.gcdump" \
      "$DATA/cache-$m-s${p:1:1}.gcdump" --format json -o "$tmp/$m-$p.json" || continue 2
  done
  run "$m: candidates, snapshots 1-2" "$PERFPIPE" candidates "$tmp/$m-12.json" --format json \
    -o "$tmp/$m-two.json" || continue
  run "$m: candidates, snapshots 1-2 and 2-3" "$PERFPIPE" candidates "$tmp/$m-12.json" "$tmp/$m-23.json" \
    --format json -o "$tmp/$m-three.json" || continue
  check "$m: the verdict follows the growth over three snapshots" "$tmp/$m-12.json" "$tmp/$m-two.json" \
    "$tmp/$m-three.json" "$DATA/cache-$m.truth.json" <<'PY'
import json, sys
diff, two, three, truth = (json.load(open(p)) for p in sys.argv[1:5])
def table(doc, name):
    t = next(t for t in doc["stages"][0]["tables"] if t["name"] == name)
    cols = [c["name"] for c in t["columns"]]
    return t, [dict(zip(cols, r)) for r in t["rows"]]
n = truth["entries_at_snapshot"]
entry = truth["entry_type"]
assert len(n) == 3 and n[0] == 0 and n[1] > 0, n
if truth["leak"]:
    assert n[2] > n[1], n                                  # the scenario's own count keeps growing
else:
    assert n[1] == n[2] == truth["bound"], n                # filled to its bound, then stays
_, growth = table(diff, "growth")
g = next(r for r in growth if r["type"] == entry)
assert g["count_delta"] == n[1] - n[0], (g["count_delta"], n)
dict_type = truth["owner_type"]                           # Dictionary<System.Int32,Workload.CachedReport>
assert dict_type in g["path"] and "static" in g["path"], g["path"]
def rules_of(doc):
    t, rows = table(doc, "candidates")
    _, rf = table(doc, "rule_findings")
    return rows, t["row_rules"], [(f["rule"], f["confidence"]) for f in rf]
# two snapshots: grew, no verdict
rows, rr, rf = rules_of(two)
assert rows[0]["target"] == entry, [r["target"] for r in rows[:3]]
ids = {h["id"]: h["confidence"] for h in rr[0]}
assert ids == {"heap.static-growth": "low"}, ids
assert all(r != "leak.static-collection" for r, _ in rf), rf
# three snapshots
rows, rr, rf = rules_of(three)
every = {h["id"] for hits in rr for h in hits} | {r for r, _ in rf}
top = {h["id"]: h["confidence"] for h in rr[0]}
assert rows[0]["target"] == entry, [r["target"] for r in rows[:3]]
assert dict_type in rows[0]["evidence"], rows[0]["evidence"][:400]
if truth["leak"]:
    assert top == {"leak.static-collection": "high"}, top
    assert "heap.bounded-growth" not in every, every
    print("leak: #1 %s (+%d, +%d entries), leak.static-collection (high); two snapshots: grew (low)" % (
        entry, n[1] - n[0], n[2] - n[1]))
else:
    assert "leak.static-collection" not in every, every
    assert top == {"heap.bounded-growth": "medium"}, top
    print("bounded at %d: #1 %s heap.bounded-growth (medium), no leak verdict; two snapshots: grew (low)" % (
        truth["bound"], entry))
PY
done

# The same scenario as a counters series (tests/capture/capture-cache.sh --counters: one phase of
# 1000 new keys a second for 26 s, dotnet-counters once a second; another run than the
# snapshots'): the never-evicting cache's footprint keeps growing to the end (counters.leak_suspect
# on the gen2 heap); the cache bounded at 10 000 entries fills in ~10 s, and its gen2 heap, which
# keeps rising while evicted entries are promoted, falls back at the first full collection:
# bounded, never a leak suspect. With the first snapshot pair, the series is what decides
# leak.static-collection (its `requires`): the bounded series must not make the cache a leak.
# Two runs of each mode (counters, counters2): the verdict must not hang on when a GC fell.
for s in leak-counters bounded-counters leak-counters2 bounded-counters2; do
  m=${s%%-*}
  [ -f "$DATA/cache-$s.csv.xz" ] || { echo "FAIL: $s: no counters series"; fail=$((fail + 1)); continue; }
  run "$s: counters-csv" "$PERFPIPE" counters-csv "$DATA/cache-$s.csv.xz" --format json \
    -o "$tmp/$s.json" || continue
  run "$s: candidates, snapshots 1-2 and the series" "$PERFPIPE" candidates "$tmp/$m-12.json" \
    "$tmp/$s.json" --format json -o "$tmp/$s-series.json" || continue
  check "$s: the counters series: a leak keeps growing, a bounded cache does not" "$tmp/$s.json" \
    "$tmp/$s-series.json" "$DATA/cache-$s.truth.json" <<'PY'
import json, sys
cc, series, truth = (json.load(open(p)) for p in sys.argv[1:4])
st = cc["stages"][0]
t = next(t for t in st["tables"] if t["name"] == "by_counter")
cols = [c["name"] for c in t["columns"]]
rows = {r["quantity"]: r for r in (dict(zip(cols, x)) for x in t["rows"])}
codes = [f["code"] for f in st["findings"]]
verdict = st["totals"]["footprint_verdict"]["value"]
n = truth["entries_at_snapshot"]                 # entries after each one-second phase
cand = series["stages"][0]
ct = next(t for t in cand["tables"] if t["name"] == "candidates")
ccols = [c["name"] for c in ct["columns"]]
top = dict(zip(ccols, ct["rows"][0]))
ids = {h["id"]: h["confidence"] for h in ct["row_rules"][0]}
assert top["target"] == truth["entry_type"], top["target"]
if truth["leak"]:
    assert n == sorted(n) and n[-1] == 1000 * (len(n) - 1), n      # only ever added to
    assert verdict == "leak_suspect" and rows["gc.heap.gen2"]["trend"] == "growing", (verdict, rows["gc.heap.gen2"])
    assert ids.get("leak.static-collection") == "high", ids
else:
    assert max(n) == n[-1] == truth["bound"] and n.index(truth["bound"]) < len(n) // 2, n  # full early
    assert "counters.leak_suspect" not in codes, [f["message"][:160] for f in st["findings"]]
    assert verdict == "bounded" and rows["gc.heap.gen2"]["trend"] == "bounded", (verdict, rows["gc.heap.gen2"])
    assert not any(r["trend"] == "growing" for r in rows.values()), [q for q, r in rows.items() if r["trend"]]
    assert "leak.static-collection" not in ids and ids.get("heap.static-growth") == "low", ids
g = rows["gc.heap.gen2"]
print("%s: footprint %s; gen2 after GC %.1f -> %.1f MB (max %.1f), trend %s; #1 %s %s" % (
    truth["mode"], verdict, g["first"] / 1e6, g["last"] / 1e6, g["max"] / 1e6, g["trend"],
    top["target"], ids))
PY
done

finish
