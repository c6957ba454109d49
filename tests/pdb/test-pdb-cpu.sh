#!/bin/sh
# Source lines of real captures (issue #42), tests/data/pdb/workload-cpu.tar.xz
# (tests/pdb/capture-cpu.sh): `perfpipe cpu` on the workload's cpu scenario
#  - with the PDB beside the dll and with the PDB embedded in it: the
#    `running` rows of HotA and HotB (the top application rows) name
#    CpuScenario.cs at the line of their PP-LINE marker (the loop, or the
#    clock call the thread-time samples land on);
#  - with the PDB of a rebuild: refused, the finding names both ids, and no
#    row has a source;
#  - a capture without the IL-to-native map keyword: the finding names it.
# The fixture's module paths are of the capturing machine: the dll/PDB are
# found through PERFPIPE_SYMBOL_PATH, as on any other machine.
set -u
top_builddir=${PP_BUILDDIR:-.}
top_srcdir=${PP_SRCDIR:-$(dirname "$0")/../..}
PP=$top_builddir/perfpipe
tar=$top_srcdir/tests/data/pdb/workload-cpu.tar.xz
command -v xz >/dev/null || { echo "SKIP: xz not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tar" -C "$tmp" || { echo "FAIL: cannot unpack $tar"; exit 1; }
fail=0
run() { # NAME SYMDIR TRACE
    PERFPIPE_SYMBOL_PATH=$tmp/$2 "$PP" cpu "$tmp/$3" --top 10 --format json -o "$tmp/$1.json" \
        2>"$tmp/$1.err" || { echo "FAIL: $1: perfpipe cpu failed:"; cat "$tmp/$1.err"; fail=1; }
}
run beside beside cpu-beside.nettrace
run embedded embedded cpu-embedded.nettrace
run changed changed cpu-beside.nettrace
run nomap beside cpu-nomap.nettrace
python3 - "$tmp" <<'PY' || fail=1
import json, os, re, sys
tmp = sys.argv[1]
src = open(os.path.join(tmp, "CpuScenario.cs")).read().split("\n")
marker = {m.group(1): i + 1 for i, l in enumerate(src) for m in [re.search(r"// PP-LINE: (\S+)", l)] if m}
want = {"Workload.CpuScenario.HotA": {marker["hot-a"], marker["hot-a-clock"]},
        "Workload.CpuScenario.HotB": {marker["hot-b"], marker["hot-b-clock"]}}
bad = 0
def table(doc, name):
    for st in doc.get("stages", [doc]):
        for t in st.get("tables", []):
            if t["name"] == name:
                cols = [c["name"] for c in t["columns"]]
                return [dict(zip(cols, r)) for r in t["rows"]]
    return []
def findings(doc):
    return [f for st in doc.get("stages", [doc]) for f in st.get("findings", [])]
def check(ok, what):
    global bad
    print(("PASS " if ok else "FAIL ") + what)
    bad += not ok
for name in ("beside", "embedded"):
    doc = json.load(open(os.path.join(tmp, name + ".json")))
    rows = table(doc, "running")
    app = [r for r in rows if r.get("module") == "Workload"][:3]
    check(len(app) >= 2, "%s: application rows in running's top 10" % name)
    for r in app:
        if r["method"] in want:
            m = re.fullmatch(r"(?:.*/)?CpuScenario\.cs:(\d+)", r.get("source", ""))
            check(bool(m) and int(m.group(1)) in want[r["method"]],
                  "%s: %s at %s, markers say CpuScenario.cs:%s" % (name, r["method"], r.get("source"), sorted(want[r["method"]])))
    check(all(r["method"] in {r2["method"] for r2 in app} for r in app if r["method"] in want) and
          {r["method"] for r in app} >= set(want), "%s: HotA and HotB are the top application rows" % name)
doc = json.load(open(os.path.join(tmp, "changed.json")))
fs = [f for f in findings(doc) if f["code"] == "cpu.source_no_pdb"]
ids = re.findall(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", fs[0]["message"]) if fs else []
check(bool(fs) and "refused" in fs[0]["message"] and len(set(ids)) == 2 and fs[0]["severity"] == "info",
      "changed: the PDB is refused by both ids (%s)" % (fs[0]["message"] if fs else "no finding"))
check(all(not r.get("source") for r in table(doc, "running")), "changed: no line printed from the refused PDB")
doc = json.load(open(os.path.join(tmp, "nomap.json")))
fs = [f for f in findings(doc) if f["code"] == "cpu.source_no_map"]
check(bool(fs) and "Microsoft-Windows-DotNETRuntime keyword 0x20000" in fs[0]["message"],
      "nomap: the finding names the keyword (%s)" % (fs[0]["message"] if fs else "no finding"))
sys.exit(1 if bad else 0)
PY
exit $fail
