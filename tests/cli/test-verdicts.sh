#!/bin/bash
# Verdicts checked like numbers (issue #16): on real captures whose truth the
# workload knows, candidates rank the cause (the hot method, never a wait; the
# heap owner before its payload), and the figures behind them equal
# TraceEvent's (oracle) or the workload's own counts.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
CORPUS=${PP_CORPUS:-}
. "$(dirname "$0")/../lib/checks.sh"


# ---- cpu: a hot method among threads blocked in reads, polls, waits ---------
for f in cpu-blocking cpu-sampled; do
  [ -f "$DATA/$f.nettrace" ] || { echo "SKIP: $f.nettrace absent"; continue; }
  run "$f: cpu" "$PERFPIPE" cpu "$DATA/$f.nettrace" --top 0 --format json -o "$tmp/$f.json" || continue
  run "$f: candidates" "$PERFPIPE" candidates "$tmp/$f.json" --top 50 --format json -o "$tmp/$f.cand.json" || continue
  check "$f: running/waiting split equals TraceEvent, hot method first everywhere" \
    "$tmp/$f.json" "$tmp/$f.cand.json" "$DATA/$f.truth.json" "$DATA/$f.oracle.json" <<'PY'
import json, sys
res, cand, truth, oracle = (json.load(open(p)) for p in sys.argv[1:5])
st = res["stages"][0]
tables = {t["name"]: t for t in st["tables"]}
def rows(t):
    cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
running, waiting = rows(tables["running"]), rows(tables["waiting"])
inc = {r["method"]: r for r in oracle["samples"]["inclusive"]}
if truth["scenario"] == "blocking":
    hot = truth["hot_method"]
    hot_ms = truth["hot_busy_ms"]
    blocked = [b["method"] for b in truth["blocked"] if b["method"]]
else:
    hot = max((m for m in truth["methods"] if m["state"] == "running"), key=lambda m: m["busy_ms"])
    hot_ms, hot = hot["busy_ms"], hot["method"]
    blocked = [m["method"] for m in truth["methods"] if m["state"] == "blocked"]
# every sample is running or waiting: the counts add up to TraceEvent's
n = sum(r["samples"] for r in running) + sum(r["samples"] for r in waiting)
assert n == oracle["samples"]["total"], (n, oracle["samples"]["total"])
# the hot method tops the running view, with every sample that has it on the stack
assert running[0]["method"] == hot, running[:3]
assert running[0]["samples"] == inc[hot]["total"], (running[0], inc[hot])
ratio = running[0]["ms"] / hot_ms
assert 0.9 <= ratio <= 1.1, ("running ms vs the workload's Stopwatch", running[0]["ms"], hot_ms)
# each blocked thread: all its samples waiting, none running (TraceEvent's inclusive count)
for m in blocked:
    w = sum(r["samples"] for r in waiting if r["waiter"] == m)
    assert w == inc[m]["total"], (m, w, inc[m]["total"])
    assert not any(r["method"] == m for r in running), m
# candidates: the hot method first; no wait and no blocked method anywhere
crow = [dict(zip([c["name"] if isinstance(c, dict) else c for c in t["columns"]], r))
        for t in cand["stages"][0]["tables"] if t["name"] == "candidates" for r in t["rows"]]
assert crow[0]["target"] == hot, crow[0]
waits = {r["wait"] for r in waiting}
for c in crow:
    assert c["target"] not in waits and c["target"] not in blocked, c["target"]
print(f"{hot}: {running[0]['samples']} samples = TraceEvent, {running[0]['ms']:.0f} ms vs "
      f"{hot_ms:.0f} ms busy (x{ratio:.3f}); {len(blocked)} blocked methods all waiting; "
      f"{len(waiting)} waits left out of {len(crow)} candidates")
PY
done
if [ -n "$CORPUS" ] && [ -f "$CORPUS/mixed_managed_external_samples.nettrace" ]; then
  run "corpus: cpu" "$PERFPIPE" cpu "$CORPUS/mixed_managed_external_samples.nettrace" --format json -o "$tmp/corpus.json" &&
  check "corpus: ReadKey waits, FindByte tops the running view" "$tmp/corpus.json" <<'PY'
import json, sys
st = json.load(open(sys.argv[1]))["stages"][0]
t = {x["name"]: x for x in st["tables"]}
run, wait = t["running"]["rows"], t["waiting"]["rows"]
# TraceEvent: FindByte 2590 managed + 1 External leaf; ReadKey 2298 External leaf
assert run[0][0] == "NoNativeStacks.Program.FindByte" and run[0][1] == 2591, run[0]
assert wait[0][0] == "System.IO.StdInReader.ReadKey", wait[0]
print("FindByte", run[0][1], "running samples; ReadKey waiting", wait[0][2])
PY
fi

# ---- heap: a static list of small sessions, each holding a byte[] ----------
if [ -f "$DATA/leak-before.gcdump" ] && [ -f "$DATA/leak-after.gcdump" ]; then
  run "leak: gcdump-diff" "$PERFPIPE" gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump" \
    --format json -o "$tmp/leak.json" &&
  run "leak: candidates" "$PERFPIPE" candidates "$tmp/leak.json" --format json -o "$tmp/leak.cand.json" &&
  check "leak: the owner ranks first, its byte[] payload is its evidence, the path goes through the static list" \
    "$tmp/leak.json" "$tmp/leak.cand.json" "$DATA/leak.truth.json" <<'PY'
import json, sys
res, cand, truth = (json.load(open(p)) for p in sys.argv[1:4])
def rows(t):
    cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
growth = rows(next(t for t in res["stages"][0]["tables"] if t["name"] == "growth"))
crow = rows(next(t for t in cand["stages"][0]["tables"] if t["name"] == "candidates"))
leak, payload = truth["leak_type"], truth["leak_state_type"]
dl = truth["leaked_delta"]
each = truth["leaked_session_object_bytes_each"] + truth["leak_state_object_bytes_each"]
g = {r["type"]: r for r in growth}
assert g[leak]["retained_delta"] == dl * each, (g[leak]["retained_delta"], dl * each)
assert g[payload]["owned_by"] == leak, g[payload]
top = crow[0]
assert top["axis"].startswith("footprint") and top["target"] == leak, top
assert not any(c["target"] == payload for c in crow), [c["target"] for c in crow]
assert "payload: " + payload in top["evidence"], top["evidence"]
field = truth["retained_by"].rsplit(".", 1)[1]
step = "[static field ?.%s] > System.Collections.Generic.List<%s> > " % (field, leak)
assert step in top["evidence"], top["evidence"]
assert step in g[payload]["path"], g[payload]["path"]
print(f"#1 {leak}: retained +{g[leak]['retained_delta']} B = {dl} x {each} B (truth), "
      f"share {top['share']:.1f}%; {payload} owned by it; path {g[payload]['path']}")
PY
fi

finish
