#!/bin/bash
# cpu's runtime-event tables and spin classification on the committed fix-shape captures, against
# TraceEvent (the oracle json beside each capture) and the workload's truth (no runtime needed):
#   - exceptions: the catches at the catching method equal TraceEvent's ExceptionCatch/Start count
#     and the workload's own count of thrown exceptions, with the truth's exception type;
#   - contention: the waits equal TraceEvent's Contention/Start count, the waiter is the truth's
#     method, and its blocked ms agree with the thread samples' waiting ms there (0.67x-1.5x: one
#     measures each wait, the other weighs samples by the sampler's gaps);
#   - threads spinning in Monitor.Enter_Slowpath (all their samples of type Managed, per TraceEvent)
#     are running, not waiting; blocked ones (External) stay waiting;
#   - traces without those events have neither table (their results keep their bytes).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"


for f in fix-exceptions-bad fix-exceptions-good fix-lock-bad fix-lock-good cpu-blocking; do
  [ -e "$DATA/$f.nettrace" ] || { echo "SKIP: $f absent"; continue; }
  if ! "$PERFPIPE" cpu "$DATA/$f.nettrace" --top 0 --format json -o "$tmp/$f.json" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $f: cpu exit $?"; head -3 "$tmp/err"; continue
  fi
  check "$f: exceptions and contention tables against TraceEvent and the truth" \
    "$tmp/$f.json" "$DATA/$f.oracle.json" "$DATA/$f.truth.json" <<'PY'
import json, os, sys
res, oracle = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
truth = json.load(open(sys.argv[3])) if os.path.exists(sys.argv[3]) else {}
st = res["stages"][0]
T = {t["name"]: t for t in st["tables"]}
def rows(name):
    t = T.get(name)
    if t is None:
        return None
    cols = [c["name"] for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
def ora(name):
    return sum(e["count"] for e in oracle["raw"]["events"]
               if e["provider"] == "Microsoft-Windows-DotNETRuntime" and e["task_opcode"] == name)
out = []
exc, catches = rows("exceptions"), ora("ExceptionCatch/Start")
if catches == 0:
    assert exc is None and "exceptions_thrown" not in st["totals"], "an exceptions table without events"
else:
    assert sum(r["count"] for r in exc) == catches, (sum(r["count"] for r in exc), catches)
    assert st["totals"]["exceptions_thrown"]["value"] == ora("Exception/Start")
    top = exc[0]
    if truth.get("shape") == "exceptions":
        assert top["frame"] == truth["method"], top
        assert top["type"] == truth["facts"]["exception_type"], top
        assert top["count"] == truth["facts"]["exceptions_thrown"], (top, truth["facts"])
    out.append("%d catches (TraceEvent %d) at %s, %s, %.0f/s" % (
        top["count"], catches, top["frame"], top["type"], top["per_sec"]))
cont, starts = rows("contention"), ora("Contention/Start")
if starts == 0:
    assert cont is None and "lock_contentions" not in st["totals"], "a contention table without events"
else:
    assert sum(r["count"] for r in cont) == starts, (sum(r["count"] for r in cont), starts)
    top = cont[0]
    if truth.get("shape") == "lock":
        assert top["waiter"] == truth["method"], top
        waited = sum(r["ms"] for r in rows("waiting") if r["waiter"] == truth["method"])
        assert waited / 1.5 <= top["ms"] <= 1.5 * waited, (top["ms"], waited)
        out.append("samples wait %.0f ms there" % waited)
    out.append("%d contentions (TraceEvent %d), top %s in %s: %.0f ms, %.1f%% of thread time" % (
        top["count"], starts, top["waiter"], top["lock"], top["ms"], top["share"]))
# spin vs block: the oracle's leaf sample types
leaf = {l["method"]: l for l in oracle["samples"]["leaf"]}
es = leaf.get("System.Threading.Monitor.Enter_Slowpath")
waiting_enter = sum(r["samples"] for r in rows("waiting") if r["wait"].startswith("System.Threading.Monitor.Enter"))
if es and es["external"] == 0:
    assert waiting_enter == 0, ("spinning samples counted as waiting", waiting_enter, es)
    out.append("%d Enter_Slowpath samples, all Managed (spinning): running" % es["total"])
elif es:
    assert waiting_enter >= es["external"], (waiting_enter, es)
    out.append("%d Enter_Slowpath samples, %d External: %d waiting" % (es["total"], es["external"], waiting_enter))
print("; ".join(out) or "no exception, contention or Enter_Slowpath evidence (none expected)")
PY
done

finish
