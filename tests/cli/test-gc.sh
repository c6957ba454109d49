#!/bin/bash
# Issue 37: the gc analyzer on the real GC captures (tests/data/gc-*.nettrace, Workstation and Server
# GC) and every other nettrace fixture, checked against TraceEvent's own GC model (the oracle's `gc`
# section, TraceLoadedDotNetRuntime):
#  - every GC's number, generation, type, reason equal; pause, suspend and GC duration to 0.01 ms;
#    heap size before/after and promoted equal to TraceEvent's MB (to a byte);
#  - counts per generation and induced counts exact, total pause within 0.1 %, PerfView's % paused;
#    heap mode as the process's own GCSettings.IsServerGC;
#  - each finding fires on the capture made for it and none fires on the quiet one; the induced GCs
#    name the workload's calling frame (Workload.GcScenario.InduceCollect);
#  - one read with alloc and cpu (a three-stage pipeline) gives the same gc stage; --jobs regions
#    (split at every sequence point) fold back to the serial document; top, a refused option, the
#    pause chart (svg, html) and the candidates (the GC.Collect caller by the pause it costs).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
ls "$DATA"/gc-*.nettrace >/dev/null 2>&1 || { echo "SKIP: gc fixtures not present"; exit 77; }

# Every fixture whose oracle has TraceEvent's GC model (the gc captures; every nettrace fixture once
# tests/capture/oracle-all.sh has run with the gc section) is compared; the gc captures always are.
mkdir -p "$tmp/r"
for f in "$DATA"/*.nettrace "$DATA"/*.nettrace.zst; do
  b=$(basename "$(basename "$f" .zst)" .nettrace)
  case $b in gc-*) ;; *) grep -q '^  "gc": {' "$DATA/$b.oracle.json" 2>/dev/null || continue ;; esac
  expect 0 "gc on $b" -- "$PERFPIPE" gc "$f" --format json -o "$tmp/r/$b.json"
  cp "$tmp/r/$b.json" "$tmp/$b.json"
done

check "every GC as TraceEvent's GC model has it (generation, type, reason, pause to 0.01 ms, sizes)" "$tmp" "$DATA" <<'PY'
import glob, json, os, sys
tmp, data = sys.argv[1], sys.argv[2]
TYPES = {"NonConcurrentGC": "blocking", "BackgroundGC": "background", "ForegroundGC": "foreground"}
def table(st, name):
    t = next(t for t in st["tables"] if t["name"] == name)
    cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
bad = 0
for res in sorted(glob.glob(os.path.join(tmp, "r", "*.json"))):
    b = os.path.basename(res)[:-5]
    st = json.load(open(res))["stages"][0]
    o = json.load(open(os.path.join(data, b + ".oracle.json")))["gc"]["processes"]
    mine = table(st, "gcs")
    if not o:   # no GC in TraceEvent's model (e.g. only the sampler's suspensions): none here either
        assert not mine, (b, "GCs TraceEvent does not see", len(mine)); print(f"{b}: no GC, as TraceEvent"); continue
    assert len(o) == 1, (b, "one process in the oracle")
    p = o[0]
    assert len(mine) == p["gcs"], (b, len(mine), p["gcs"])
    worst = 0.0
    for m, t in zip(mine, p["per_gc"]):
        key = (b, t["number"])
        assert m["number"] == t["number"] and m["gen"] == t["generation"], (key, m["gen"], t["generation"])
        assert m["type"] == TYPES[t["type"]] and m["reason"] == t["reason"], (key, m["type"], m["reason"], t["type"], t["reason"])
        assert m["complete"] == (1 if t["complete"] else 0), key
        for col, ok in (("pause", "pause_ms"), ("suspend", "suspend_ms"), ("gc_duration", "duration_ms")):
            d = abs(m[col] / 1e6 - t[ok]); worst = max(worst, d)
            assert d <= 0.01, (key, col, m[col] / 1e6, t[ok])
        assert abs(m["start"] / 1e6 - t["start_ms"]) <= 0.01, (key, "start")
        for col, ok in (("heap_before", "heap_size_before_mb"), ("heap_after", "heap_size_after_mb"), ("promoted", "promoted_mb")):
            if t[ok] < 0: continue
            assert abs(m[col] / 1e6 - t[ok]) <= 1e-6, (key, col, m[col] / 1e6, t[ok])
        if "pinned_objects" in t: assert m["pinned_objects"] == t["pinned_objects"], key
        if "gen_size_after" in t:
            assert [m[c] for c in ("gen0_after", "gen1_after", "gen2_after", "loh_after", "poh_after")] == t["gen_size_after"], key
    gens = {r["gen"]: r for r in table(st, "by_generation")}
    for g in p["by_generation"]:
        r = gens[g["generation"]]
        assert (r["gcs"], r["induced"]) == (g["count"], g["induced"]), (b, g)
        assert abs(r["max_pause"] / 1e6 - g["max_pause_ms"]) <= 0.01, (b, g)
    tot = {k: v["value"] for k, v in st["totals"].items()}
    assert tot["gcs"] == p["complete"] and tot["induced_gcs"] == p["induced"], (b, tot["gcs"], tot["induced_gcs"])
    tp = tot["total_pause"] / 1e6
    assert abs(tp - p["total_pause_ms"]) <= 0.001 * p["total_pause_ms"], (b, tp, p["total_pause_ms"])
    assert abs(tot["pause_percent_perfview"] - p["pause_percent"]) <= 0.01, (b, tot["pause_percent_perfview"], p["pause_percent"])
    tr = os.path.join(data, b + ".truth.json")
    if b.startswith("gc-") and os.path.exists(tr):   # the process's own GCSettings.IsServerGC
        assert tot["heap_mode"] == ("server" if json.load(open(tr))["server_gc"] else "workstation"), (b, tot["heap_mode"])
    print(f"{b}: {len(mine)} GCs equal; total pause {tp:.3f} ms vs {p['total_pause_ms']:.3f}; worst |pause diff| {worst * 1000:.4f} us")
PY

check "findings fire on their captures and stay silent on the quiet one" "$tmp" "$DATA" <<'PY'
import json, os, sys
tmp, data = sys.argv[1], sys.argv[2]
def codes(b):
    st = json.load(open(os.path.join(tmp, b + ".json")))["stages"][0]
    return {f["code"]: f["message"] for f in st["findings"]}, st
want = {
    "gc-gen2-ws": {"gc.pause_share", "gc.gen2_storm", "gc.pinning"},
    "gc-gen2-svr": {"gc.pause_share", "gc.gen2_storm", "gc.pinning"},
    "gc-induced-ws": {"gc.induced"}, "gc-induced-svr": {"gc.induced"},
    "gc-loh-ws": {"gc.loh_gen2", "gc.heap_growth"}, "gc-loh-svr": {"gc.loh_gen2", "gc.heap_growth"},
}
for b, w in want.items():
    c, st = codes(b)
    assert w <= set(c), (b, sorted(w - set(c)), sorted(c))
    print(b, sorted(c))
c, st = codes("gc-quiet-ws")
assert not c, ("quiet capture must raise nothing", c)
print("gc-quiet-ws: no finding")
for b in ("gc-induced-ws", "gc-induced-svr"):
    c, st = codes(b)
    t = json.load(open(os.path.join(data, b + ".truth.json")))
    assert t["induced_method"] in c["gc.induced"], c["gc.induced"]
    rows = next(x for x in st["tables"] if x["name"] == "induced_callers")["rows"]
    assert rows[0][0] == t["induced_method"] and rows[0][1] == t["induced_calls"], rows
    tot = st["totals"]["total_pause"]["value"]
    assert rows[0][2] == tot, ("every induced GC's pause goes to its caller", rows[0][2], tot)
    print(b, "induced from", rows[0])
# long pauses: the gen2 captures' longest pause decides; check both ways against the threshold
for b in ("gc-gen2-ws", "gc-gen2-svr", "gc-quiet-ws"):
    c, st = codes(b)
    lp = st["totals"]["longest_pause"]["value"]
    assert ("gc.long_pause" in c) == (lp > 100e6), (b, lp)
PY

# Options: top keeps the longest pauses in GC order; an option out of range is a usage error (exit 2).
expect 0 "gc-gen2-ws --option top=3" -- "$PERFPIPE" gc "$DATA/gc-gen2-ws.nettrace" --option top=3 --format json -o "$tmp/top3.json"
check "top=3: the three longest pauses, in GC order" "$tmp" <<'PY'
import json, os, sys
def rows(f):
    t = next(t for t in json.load(open(os.path.join(sys.argv[1], f)))["stages"][0]["tables"] if t["name"] == "gcs")
    cols = [c["name"] for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
every, top = rows("gc-gen2-ws.json"), rows("top3.json")
want = sorted(sorted(every, key=lambda r: (-r["pause"], r["number"]))[:3], key=lambda r: r["number"])
assert [r["number"] for r in top] == [r["number"] for r in want], ([r["number"] for r in top], [r["number"] for r in want])
print([r["number"] for r in top])
PY
expect 2 "gc --option pause_share=200 is refused" -- "$PERFPIPE" gc "$DATA/gc-quiet-ws.nettrace" --option pause_share=200

# Candidates: the application frame that induces the GCs, ranked by the pause they cost.
expect 0 "candidates from the induced capture" -- "$PERFPIPE" candidates "$tmp/gc-induced-ws.json" --format json -o "$tmp/cand.json"
check "the top candidate is the workload's GC.Collect caller" "$tmp" "$DATA" <<'PY'
import json, os, sys
d = json.load(open(os.path.join(sys.argv[1], "cand.json")))
t = json.load(open(os.path.join(sys.argv[2], "gc-induced-ws.truth.json")))
tb = next(x for x in d["stages"][0]["tables"] if x["name"] == "candidates")
cols = [c["name"] if isinstance(c, dict) else c for c in tb["columns"]]
top = dict(zip(cols, tb["rows"][0]))
assert top["target"] == t["induced_method"] and top["axis"].startswith("time (GC pauses"), top
print("candidate 1:", top["target"], top["axis"])
PY

# One read, three stages: gc beside alloc and cpu; the gc stage's tables equal the quick path's.
cat > "$tmp/three.yaml" <<EOF
version: 1
name: three
inputs:
  trace: { kind: nettrace, path: "$DATA/gc-induced-ws.nettrace" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
  - { id: cpu, analyzer: cpu, input: trace }
  - { id: gc, analyzer: gc, input: trace }
outputs:
  - { format: json, path: "$tmp/three.json" }
EOF
expect 0 "alloc, cpu and gc in one pipeline over one input" -- "$PERFPIPE" run "$tmp/three.yaml"
check "the gc stage of the three-stage read equals the quick path's" "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
three = {s["id"]: s for s in json.load(open(os.path.join(tmp, "three.json")))["stages"]}
one = json.load(open(os.path.join(tmp, "gc-induced-ws.json")))["stages"][0]
assert set(three) == {"alloc", "cpu", "gc"}, sorted(three)
assert three["gc"]["tables"] == one["tables"] and three["gc"]["totals"] == one["totals"]
print("tables and totals equal")
PY

# The pause chart: a bar per GC in the svg and in the html page.
for fmt in svg html; do
  expect 0 "gc-gen2-ws --format $fmt" -- "$PERFPIPE" gc "$DATA/gc-gen2-ws.nettrace" --format $fmt -o "$tmp/chart.$fmt"
done
check "one pause bar per GC, svg well-formed" "$tmp" <<'PY'
import json, os, sys, xml.dom.minidom
tmp = sys.argv[1]
n = len(next(t for t in json.load(open(os.path.join(tmp, "gc-gen2-ws.json")))["stages"][0]["tables"] if t["name"] == "gcs")["rows"])
xml.dom.minidom.parse(os.path.join(tmp, "chart.svg"))
for f in ("chart.svg", "chart.html"):
    bars = open(os.path.join(tmp, f)).read().count('class="pause"')
    assert bars == n, (f, bars, n)
print(n, "bars in each")
PY

# --jobs: regions at every sequence point fold back to the serial document.
for b in gc-gen2-ws gc-induced-svr gc-loh-ws; do
  "$PERFPIPE" gc "$DATA/$b.nettrace" --format json --jobs 1 > "$tmp/s.json" 2>/dev/null
  PERFPIPE_INSPECT_SPLIT=every PERFPIPE_INSPECT_SPLIT_LOG="$tmp/split.log" \
    "$PERFPIPE" gc "$DATA/$b.nettrace" --format json --jobs 3 > "$tmp/p.json" 2>/dev/null
  if cmp -s "$tmp/s.json" "$tmp/p.json" && grep -q " folded$" "$tmp/split.log"; then
    pass=$((pass + 1)); echo "PASS: $b --jobs 3 split and folded: the serial document"
  else
    fail=$((fail + 1)); echo "FAIL: $b --jobs 3"; cat "$tmp/split.log"; diff "$tmp/s.json" "$tmp/p.json" | head -5
  fi
  rm -f "$tmp/split.log"
done
finish
