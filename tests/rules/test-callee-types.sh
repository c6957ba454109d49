#!/bin/bash
# The types a frame's calls allocate (issue #45: rules under tier-1 code), on small documents built
# here with the declarations a plugin writes, and on the shipped analyzers:
#  - a third-party analyzer's table of one row per stack and type (column roles `stack` and `type`,
#    ABI 1.8) gives its stage the `callee_types` view: what each candidate frame allocates itself, in
#    the framework code it calls and in the next application frame it calls (`via`), never deeper;
#    a user rule on it lands on the frame whose call made the type, not on the application logger
#    that allocates it (via "") nor on the driver two application calls up;
#  - without the `type` role the view does not exist and the same rule matches nothing;
#  - a frame a rule names in an allocation stage, with no running row of its own in the capture's
#    time stage (tier 1 inlined the logging frames into its loop), ranks by the time its call holds:
#    the application callee it calls (the logger) is its evidence there, not a time candidate.
set -u
PERFPIPE=${PERFPIPE:?}
. "$(dirname "$0")/../lib/checks.sh"
unset PERFPIPE_RULES_PATH XDG_CONFIG_HOME
export HOME="$tmp/home"; mkdir -p "$HOME" "$tmp/rules"

cat >"$tmp/rules/acme.yaml" <<'YAML'
version: 1
rules:
  - id: acme.boxed-state
    title: A logging state boxed by the application's logger
    axis: allocation
    confidence: medium
    fix: Log through a source-generated method.
    doc: https://example.com/acme
    match:
      analyzer: acme
      table: callee_types
      target: frame
      where:
        type: { regex: '^Acme\.State$' }
        via: { regex: '.' }
        share: { min: 20 }
        samples: { min: 5 }
YAML

# doc.py OUT ROLES: a one-stage document of analyzer acme (allocations by frame and by stack and
# type); ROLES: "both" or "stack" (no type role). With a third argument, a second document of the
# shipped cpu analyzer's shape for the same capture, where Ship has no running row of its own.
cat >"$tmp/doc.py" <<'PY'
import json, sys
out, roles = sys.argv[1], sys.argv[2]
def table(name, cols, rows, decl):
    cols = [c.split(":") for c in cols.split()]
    return {"name": name, "key": decl.get("key", [cols[0][0]]), "decl": decl, "rows": rows,
            "columns": [{"name": n, "type": t} for n, t in cols]}
MB = 1_000_000
app = ["App.Driver.Loop", "App.Orders.Ship", "App.Log.Sink.Log", "App.Log.Format"]
stacks = [("App.Main;App.Driver.Loop", MB, 10, "System.Byte[]"),
          ("App.Main;App.Driver.Loop;App.Orders.Ship", 4 * MB, 40, "System.Object[]"),
          ("App.Main;App.Driver.Loop;App.Orders.Ship;App.Log.Sink.Log", 6 * MB, 60, "Acme.State"),
          ("App.Main;App.Driver.Loop;App.Orders.Ship;Acme.Framework.Write;App.Log.Sink.Log;App.Log.Format",
           MB, 10, "Acme.State")]
own = {}
for s, b, n, t in stacks:
    leaf = [f for f in s.split(";") if f in app][-1]
    own[leaf] = own.get(leaf, 0) + b
figs = {"bytes": {"unit": "bytes", "axis": "allocation"}, "samples": {"unit": "samples", "axis": "allocation"}}
r = {"stack": "stack", "type": "type"} if roles == "both" else {"stack": "stack"}
stage = {"id": "acme", "analyzer": {"name": "acme", "version": "1.0.0"}, "status": "ok",
         "findings": [], "totals": {}, "tables": [
    table("frames", "frame:string bytes:bytes samples:count module:string call_site:string",
          [[f, own[f], own[f] // 100000, "App", f] for f in app],
          {"subject": "frame", "figures": figs,
           "candidate": {"cost": "bytes", "label": "allocation churn", "does": "allocates", "frame": True}}),
    table("mods", "module:string class:string", [["App", "application"]], {"subject": "module"}),
    table("typed_stacks", "stack:string bytes:bytes samples:count type:string",
          [list(x) for x in stacks], {"key": [], "figures": figs, "roles": r})]}
inputs = [{"name": "trace", "path": "x.nettrace", "kind": "nettrace",
           "hash": {"algo": "xxh3-128", "value": "723b83c5843930ad08d3f8204db0be07"}}]
json.dump({"format": "perfpipe-result/1", "tool": {"name": "perfpipe", "version": "0.0.0-test"},
           "pipeline": "acme", "knobs": {}, "inputs": inputs, "stages": [stage]}, open(out, "w"))
if len(sys.argv) > 3:
    tf = {"ms": {"unit": "ms", "axis": "time"}, "samples": {"unit": "samples", "axis": "time"},
          "share": {"unit": "percent", "axis": None}}
    cpu = [("App.Main;App.Driver.Loop;App.Orders.Ship;App.Log.Sink.Log", 300.0),
           ("App.Main;App.Driver.Loop;App.Other.Work", 100.0)]
    run = [["App.Log.Sink.Log", 30, 300.0, 75.0, "App", "App.Log.Sink.Log"],
           ["App.Other.Work", 10, 100.0, 25.0, "App", "App.Other.Work"]]
    frame = {"cost": "ms", "label": "time (running thread samples)", "does": "runs", "frame": True}
    st = {"id": "cpu", "analyzer": {"name": "cpu", "version": "1.0.0"}, "status": "ok", "findings": [],
          "totals": {}, "tables": [
        table("running", "method:string samples:count ms:number share:percent module:string call_site:string",
              run, {"subject": "method", "figures": tf,
                    "candidate": dict(frame, stacks="by_stack", waits="waiting", evidence=["samples"])}),
        table("waiting", "wait:string waiter:string samples:count ms:number share:percent module:string "
              "call_site:string", [], {"subject": "waiter", "key": ["wait", "waiter"], "figures": tf,
                                       "candidate": dict(frame, rule_gated=True)}),
        table("modules", "module:string class:string", [["App", "application"]], {"subject": "module"}),
        table("by_stack", "stack:string samples:count ms:number", [[s, int(ms / 10), ms] for s, ms in cpu],
              {"figures": {k: tf[k] for k in ("ms", "samples")}, "roles": {"stack": "stack"}})]}
    json.dump({"format": "perfpipe-result/1", "tool": {"name": "perfpipe", "version": "0.0.0-test"},
               "pipeline": "cpu", "knobs": {}, "inputs": inputs, "stages": [st]}, open(sys.argv[3], "w"))
PY

cat >"$tmp/cand.py" <<'PY'
import json
def cands(path):
    d = json.load(open(path))
    T = {t["name"]: t for t in d["stages"][0]["tables"]}
    cols = [c["name"] for c in T["candidates"]["columns"]]
    out = {}
    for r, hits in zip(T["candidates"]["rows"], T["candidates"]["row_rules"]):
        r = dict(zip(cols, r))
        out[r["target"]] = ({h["id"] for h in hits}, r["evidence"], r["cost"], r["axis"])
    return out
PY

export PERFPIPE_RULES_PATH="$tmp/rules"
run "rules validate: a rule on a third-party analyzer's derived view" "$PERFPIPE" rules validate "$tmp/rules/acme.yaml"
for v in both stack; do
  python3 "$tmp/doc.py" "$tmp/$v.json" "$v" || { fail=$((fail + 1)); echo "FAIL: building $v"; continue; }
  run "$v roles: candidates" "$PERFPIPE" candidates "$tmp/$v.json" --format json -o "$tmp/$v.cand.json"
done

check "callee_types: the type lands on the frame whose call made it, not on the logger nor the driver" \
  "$tmp/both.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c = cands(sys.argv[1])
for t in sorted(c):
    print("%-20s %s" % (t, ",".join(sorted(c[t][0])) or "no rule"))
assert "acme.boxed-state" in c["App.Orders.Ship"][0], c["App.Orders.Ship"]
for other in ("App.Log.Sink.Log", "App.Driver.Loop", "App.Log.Format"):
    assert "acme.boxed-state" not in c[other][0], "%s carries acme.boxed-state" % other
PY

check "callee_types: no type role, no view: the rule matches nothing" "$tmp/stack.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c = cands(sys.argv[1])
assert not [t for t in c if c[t][0]], {t: c[t][0] for t in c if c[t][0]}
print("no rule on", ", ".join(sorted(c)))
PY

# A frame name longer than any fixed key buffer (a deep generic instantiation): the view keys its
# sums by frame, type and via together, so a cut key lost its separators (a crash before).
long=$(printf 'X%.0s' $(seq 5000))
sed "s/App\.Orders\.Ship/App.Orders.Ship$long/g" "$tmp/both.json" >"$tmp/long.json" &&
run "a 5,000-character frame: candidates" "$PERFPIPE" candidates "$tmp/long.json" --format json \
  -o "$tmp/long.cand.json" &&
check "a 5,000-character frame is still a candidate" "$tmp/long.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c = cands(sys.argv[1])
t = [t for t in c if t.startswith("App.Orders.Ship")]
assert len(t) == 1, [len(x) for x in t]  # the candidate names it in its first 511 bytes
PY

python3 "$tmp/doc.py" "$tmp/alloc.json" both "$tmp/cpu.json" &&
run "named across stages: candidates" "$PERFPIPE" candidates "$tmp/alloc.json" "$tmp/cpu.json" \
  --format json -o "$tmp/cross.cand.json" &&
check "a named frame without a running row ranks by the time its call holds; its logger is evidence" \
  "$tmp/cross.cand.json" "$tmp" <<'PY'
import sys; sys.path.insert(0, sys.argv[2]); from cand import cands
c = cands(sys.argv[1])
for t in sorted(c):
    print("%-18s %-18s %8.1f %-32s %s" % (t, ",".join(sorted(c[t][0])), c[t][2], c[t][3], c[t][1][:90]))
# the logger keeps its own allocations (no stage of stacks judges them), not the running time
sink = c.get("App.Log.Sink.Log")
assert sink is None or not sink[3].startswith("time"), "the logger ranks by its time: %s" % (sink,)
ship = c["App.Orders.Ship"]
assert "acme.boxed-state" in ship[0] and ship[3].startswith("time"), ship
assert "App.Log.Sink.Log (application, called from App.Orders.Ship) runs 300 ms" in ship[1], ship[1]
assert "App.Other.Work" in c and c["App.Other.Work"][2] < ship[2], c
PY

unset PERFPIPE_RULES_PATH
finish "callee types: "
