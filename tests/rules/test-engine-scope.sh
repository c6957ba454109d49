#!/bin/bash
# Whose evidence a stack is (issue #45's engine defects), on small cpu documents built here with the
# columns and declarations `perfpipe cpu` writes, and on a real capture:
#  - a callee rule counts what a frame calls before the next application frame: a GC.Collect three
#    application calls down is the calling method's, not its callers' (the driver's loop, a lambda);
#    framework frames in between do not stop the count;
#  - an unnamed application method whose time a named frame's call holds is the evidence of the
#    NEAREST such frame on its stacks, not of the first one in the list;
#  - a thread starting another waits in Thread.StartCore: not running time of the starter, neither
#    in the cpu stage's running/waiting split (fix-set-good: the driver starts its client threads)
#    nor in a named frame's inclusive time when the document's waiting table was cut by --top.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
unset PERFPIPE_RULES_PATH XDG_CONFIG_HOME
export HOME="$tmp/home"; mkdir -p "$HOME"

# doc.py OUT CASE: a one-stage cpu document; the running rows are what the analyzer derives from
# the stacks (each stack's first application frame from the leaf; module App is the application).
cat >"$tmp/doc.py" <<'PY'
import json, sys
out, case = sys.argv[1], sys.argv[2]
figs = {"ms": {"unit": "ms", "axis": "time"}, "samples": {"unit": "samples", "axis": "time"},
        "share": {"unit": "percent", "axis": None}}
def table(name, cols, rows, decl):
    cols = [c.split(":") for c in cols.split()]
    decl.setdefault("key", [cols[0][0]])
    return {"name": name, "key": decl["key"], "decl": decl, "rows": rows,
            "columns": [{"name": n, "type": t} for n, t in cols]}
stacks = {
    # driver -> lambda -> the method that collects; a sweep reaching GC.Collect through framework code
    "ancestors": [("App.Program.Main;App.Driver.Loop;App.Shapes.Lambda;App.Shapes.CollectPerCall;"
                   "System.GC.Collect", 300.0),
                  ("App.Program.Main;App.Driver.Loop;App.Shapes.Lambda;App.Shapes.CollectPerCall", 50.0),
                  ("App.Program.Main;App.Driver.Loop;App.Shapes.Lambda", 30.0),
                  ("App.Program.Main;App.Driver.Loop", 20.0),
                  ("App.Program.Main;App.Driver.Loop;App.Shapes.Sweep;System.Threading.Tasks.Parallel.For;"
                   "System.GC.Collect", 100.0)],
    # Outer (GC.Collect) calls Inner (new Regex per call), which calls Leaf: Leaf's time is Inner's call
    "nearest": [("App.Main;App.Outer.Run;System.GC.Collect", 200.0),
                ("App.Main;App.Outer.Run;App.Inner.Parse;System.Text.RegularExpressions.Regex..ctor", 400.0),
                ("App.Main;App.Outer.Run;App.Inner.Parse;App.Leaf.Touch", 100.0)],
    # a starter blocked in Thread.StartCore; the waiting table (cut by --top) does not name it
    "start": [("App.Main;App.Driver.Run;System.GC.Collect", 100.0),
              ("App.Main;App.Driver.Run;System.Threading.Thread.StartCore", 500.0)],
}[case]
running = {}
for st, ms in stacks:
    frames = st.split(";")
    if frames[-1] == "System.Threading.Thread.StartCore":
        continue
    app = next(f for f in reversed(frames) if f.startswith("App."))
    running[app] = running.get(app, 0.0) + ms
total = sum(running.values())
order = {"nearest": ["App.Outer.Run", "App.Inner.Parse", "App.Leaf.Touch"]}.get(case, sorted(running))
frame = {"cost": "ms", "label": "time (running thread samples)", "does": "runs", "frame": True}
stage = {"id": "cpu", "analyzer": {"name": "cpu", "version": "1.0.0"}, "status": "ok",
         "findings": [], "totals": {}, "tables": [
    table("running", "method:string samples:count ms:number share:percent module:string call_site:string",
          [[m, int(running[m] / 10), running[m], 100 * running[m] / total, "App", m] for m in order],
          {"subject": "method", "figures": figs,
           "candidate": dict(frame, stacks="by_stack", waits="waiting", evidence=["samples"])}),
    table("waiting", "wait:string waiter:string samples:count ms:number share:percent module:string "
          "call_site:string", [], {"subject": "waiter", "key": ["wait", "waiter"], "figures": figs,
                                   "candidate": dict(frame, rule_gated=True)}),
    table("modules", "module:string class:string",
          [["App", "application"], ["System.Private.CoreLib", "framework"]], {"subject": "module"}),
    table("by_stack", "stack:string samples:count ms:number", [[s, int(ms / 10), ms] for s, ms in stacks],
          {"figures": {k: figs[k] for k in ("ms", "samples")}, "roles": {"stack": "stack"}})]}
json.dump({"format": "perfpipe-result/1", "tool": {"name": "perfpipe", "version": "0.0.0-test"},
           "pipeline": "cpu", "knobs": {}, "inputs": [], "stages": [stage]}, open(out, "w"))
PY

# cand.py DOC: {target: (rule ids, evidence, figure)} of the candidates, and the rule findings
cat >"$tmp/cand.py" <<'PY'
import json
def cands(path):
    d = json.load(open(path))
    T = {t["name"]: t for t in d["stages"][0]["tables"]}
    cols = [c["name"] for c in T["candidates"]["columns"]]
    out = {}
    for r, hits in zip(T["candidates"]["rows"], T["candidates"]["row_rules"]):
        r = dict(zip(cols, r))
        out[r["target"]] = ({h["id"] for h in hits}, r["evidence"], r["figure"])
    return out, {f[1]: f[4] for f in T["rule_findings"]["rows"]}
PY

for c in ancestors nearest start; do
  python3 "$tmp/doc.py" "$tmp/$c.json" "$c" || { fail=$((fail + 1)); echo "FAIL: building $c"; continue; }
  run "$c: candidates" "$PERFPIPE" candidates "$tmp/$c.json" --format json -o "$tmp/$c.cand.json"
done

check "a callee rule stays on the method that calls the framework, off its application callers" \
  "$tmp/ancestors.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c, findings = cands(sys.argv[1])
for t in sorted(c):
    print("%-28s %s" % (t, ",".join(sorted(c[t][0])) or "no rule"))
assert "gc.induced-collect" in c["App.Shapes.CollectPerCall"][0], c["App.Shapes.CollectPerCall"]
# through framework frames (Parallel.For) the callee is still the sweep's own
assert "gc.induced-collect" in c["App.Shapes.Sweep"][0], c["App.Shapes.Sweep"]
for caller in ("App.Driver.Loop", "App.Shapes.Lambda"):
    assert "gc.induced-collect" not in c.get(caller, (set(),))[0], "%s carries gc.induced-collect" % caller
f = findings["gc.induced-collect"]
assert "frame App.Shapes.CollectPerCall," in f, f
print(f[:110])
PY

check "an unnamed callee is the evidence of the nearest named frame above it" \
  "$tmp/nearest.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c, _ = cands(sys.argv[1])
for t in sorted(c):
    print("%-16s %-24s %s" % (t, ",".join(sorted(c[t][0])), c[t][1][:140]))
assert c["App.Outer.Run"][0] == {"gc.induced-collect"}, c["App.Outer.Run"]
assert c["App.Inner.Parse"][0] == {"regex.per-call"}, c["App.Inner.Parse"]
assert "App.Leaf.Touch" not in c, "Leaf ranks on its own"
assert "its call holds the running time of App.Leaf.Touch" in c["App.Inner.Parse"][1], c["App.Inner.Parse"][1]
assert "App.Leaf.Touch" not in c["App.Outer.Run"][1], c["App.Outer.Run"][1]
PY

check "Thread.StartCore is no running time of a named frame (waiting table cut)" \
  "$tmp/start.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c, _ = cands(sys.argv[1])
rules, ev, fig = c["App.Driver.Run"]
print(fig, ev[:120])
assert "gc.induced-collect" in rules, rules
assert fig.startswith("100 ms"), "the driver's figure is %s: its thread start counted as running" % fig
PY

# the cpu stage on a real capture: fix-set-good's driver starts its client threads (RunSet ->
# Thread.StartCore) and the runtime starts its pool's workers; every such sample is waiting
run "fix-set-good: cpu" "$PERFPIPE" cpu "$DATA/fix-set-good.nettrace.zst" --top 0 --format json \
  -o "$tmp/good.cpu.json" &&
check "fix-set-good: Thread.StartCore is waiting, never running" "$tmp/good.cpu.json" <<'PY'
import json, sys
T = {t["name"]: t for t in json.load(open(sys.argv[1]))["stages"][0]["tables"]}
def rows(name):
    cols = [c["name"] for c in T[name]["columns"]]
    return [dict(zip(cols, r)) for r in T[name]["rows"]]
start = "System.Threading.Thread.StartCore"
assert not [r for r in rows("running") if r["method"] == start], "StartCore counted as running"
w = [r for r in rows("waiting") if r["wait"] == start]
for r in w:
    print("%-60s %4d samples %7.1f ms" % (r["waiter"], r["samples"], r["ms"]))
assert any(r["waiter"] == "Workload.FixScenario.RunSet" for r in w), w
PY

finish "engine scope: "
