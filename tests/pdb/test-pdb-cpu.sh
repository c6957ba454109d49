#!/bin/sh
# Source lines of real captures (issue #42), tests/data/pdb/workload-cpu.tar.xz
# (tests/pdb/capture-cpu.sh): `perfpipe cpu` on the workload's cpu scenario
#  - with the PDB beside the dll and with the PDB embedded in it: the
#    `running` rows of HotA and HotB (the top application rows) name
#    CpuScenario.cs at the line of their PP-LINE marker (the loop, or the
#    clock call the thread-time samples land on), and at the line TraceEvent's
#    own lookup gives (workload-cpu.sources.oracle.json; where return addresses
#    weigh most, TraceEvent names the statement after the call: perfpipe's
#    line is then the call's, before it);
#  - with the PDB of a rebuild: refused, the finding names both ids, and no
#    row has a source;
#  - a capture without the IL-to-native map keyword: the finding names it.
# The fixture's module paths are of the capturing machine: the dll/PDB are
# found through PERFPIPE_SYMBOL_PATH, as on any other machine.
pp_stem=workload-cpu
. "${PP_SRCDIR:-$(dirname "$0")/../..}/tests/pdb/unpack.sh"
fail=0
run() { # NAME SYMDIR TRACE
    PERFPIPE_SYMBOL_PATH=$tmp/$2 "$PP" cpu "$tmp/$3" --top 10 --format json -o "$tmp/$1.json" \
        2>"$tmp/$1.err" || { echo "FAIL: $1: perfpipe cpu failed:"; cat "$tmp/$1.err"; fail=1; }
}
run beside beside cpu-beside.nettrace
run embedded embedded cpu-embedded.nettrace
run changed changed cpu-beside.nettrace
run nomap beside cpu-nomap.nettrace
PYTHONPATH=$top_srcdir/tests/pdb python3 - "$tmp" "$top_srcdir/tests/data/pdb/workload-cpu.sources.oracle.json" <<'PY' || fail=1
import os, sys
from sources import *
tmp, oracle = sys.argv[1], load(sys.argv[2])
mk = markers(os.path.join(tmp, "CpuScenario.cs"))
want = {"Workload.CpuScenario.HotA": {mk["hot-a"], mk["hot-a-clock"]},
        "Workload.CpuScenario.HotB": {mk["hot-b"], mk["hot-b-clock"]}}
for name in ("beside", "embedded"):
    rows = table(load(os.path.join(tmp, name + ".json")), "running")
    app = [r for r in rows if r.get("module") == "Workload"][:3]
    check({r["method"] for r in app} >= set(want), "%s: HotA and HotB are the top application rows" % name)
    for r in app:
        if r["method"] in want:
            check(line_of(r.get("source"), "CpuScenario.cs") in want[r["method"]],
                  "%s: %s at %s, markers say CpuScenario.cs:%s" % (name, r["method"], r.get("source"), sorted(want[r["method"]])))
            agrees(r.get("source"), "CpuScenario.cs", oracle, "cpu-%s.nettrace" % name, name + "/",
                   "cpu", r["method"], name)
doc = load(os.path.join(tmp, "changed.json"))
refused(doc, "cpu.source_no_pdb", "changed")
check(all(not r.get("source") for r in table(doc, "running")), "changed: no line printed from the refused PDB")
lined, frames = oracle_lines(oracle, "cpu-beside.nettrace", "changed/", "cpu")
check(frames > 0 and lined == 0, "changed: TraceEvent too refuses it (%d of %d frames with a line)" % (lined, frames))
no_map(load(os.path.join(tmp, "nomap.json")), "cpu.source_no_map", "nomap")
sys.exit(done())
PY
exit $fail
