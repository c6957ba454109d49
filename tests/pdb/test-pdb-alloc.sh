#!/bin/sh
# Source lines of alloc's top rows on real captures (issue #42),
# tests/data/pdb/workload-alloc.tar.xz (tests/pdb/capture-alloc.sh):
# `perfpipe alloc` on the workload's alloc scenario (Release builds)
#  - with the PDB beside the dll and embedded in it: the by_frame rows of
#    MakeStrings, MakeBuffers and GrowListsJoinLinq (the top application
#    rows) name AllocScenario.cs at the line of their PP-LINE marker, and at
#    the line TraceEvent's own lookup gives most of their bytes
#    (workload-alloc.sources.oracle.json, tests/oracle/SourceOracle.cs);
#  - with the PDB of a rebuild: refused by both ids, no row has a source
#    (TraceEvent too gives no line);
#  - a dotnet-trace capture without the map keyword: the finding names it.
pp_stem=workload-alloc
. "${PP_SRCDIR:-$(dirname "$0")/../..}/tests/pdb/unpack.sh"
fail=0
run() { # NAME SYMDIR TRACE: the directory through --symbols (PERFPIPE_SYMBOL_PATH
       # names one without the PDB: the flag's comes first)
    PERFPIPE_SYMBOL_PATH=$tmp/nowhere "$PP" alloc "$tmp/$3" --symbols "$tmp/$2" --top 10 \
        --format json -o "$tmp/$1.json" 2>"$tmp/$1.err" ||
        { echo "FAIL: $1: perfpipe alloc failed:"; cat "$tmp/$1.err"; fail=1; }
}
run beside beside alloc-beside.nettrace
run embedded embedded alloc-embedded.nettrace
run changed changed alloc-beside.nettrace
run nomap beside alloc-nomap.nettrace
PYTHONPATH=$top_srcdir/tests/pdb python3 - "$tmp" "$top_srcdir/tests/data/pdb/workload-alloc.sources.oracle.json" <<'PY' || fail=1
import os, sys
from sources import *
tmp, oracle = sys.argv[1], load(sys.argv[2])
mk = markers(os.path.join(tmp, "AllocScenario.cs"))
want = {"Workload.AllocScenario.MakeStrings": {mk["make-strings"]},
        "Workload.AllocScenario.MakeBuffers": {mk["make-buffers"]},
        "Workload.AllocScenario.GrowListsJoinLinq": {mk["grow-add"], mk["grow-select"], mk["grow-join"]}}
for name in ("beside", "embedded"):
    rows = table(load(os.path.join(tmp, name + ".json")), "by_frame")
    app = [r for r in rows if r.get("module") == "Workload"]
    check({r["frame"] for r in app[:3]} == set(want), "%s: the three methods are the top application rows (%s)"
          % (name, [r["frame"] for r in app[:3]]))
    for r in app[:3]:
        line = line_of(r.get("source"), "AllocScenario.cs")
        check(line in want.get(r["frame"], ()), "%s: %s at %s, markers say AllocScenario.cs:%s"
              % (name, r["frame"], r.get("source"), sorted(want.get(r["frame"], ()))))
        agrees(r.get("source"), "AllocScenario.cs", oracle, "alloc-%s.nettrace" % name, name + "/",
               "alloc", r["frame"], name)
doc = load(os.path.join(tmp, "changed.json"))
refused(doc, "alloc.source_no_pdb", "changed")
check(all(not r.get("source") for r in table(doc, "by_frame")), "changed: no line printed from the refused PDB")
lined, frames = oracle_lines(oracle, "alloc-beside.nettrace", "changed/", "alloc")
check(frames > 0 and lined == 0, "changed: TraceEvent too refuses it (%d of %d frames with a line)" % (lined, frames))
no_map(load(os.path.join(tmp, "nomap.json")), "alloc.source_no_map", "nomap (dotnet-trace)")
sys.exit(done())
PY
exit $fail
