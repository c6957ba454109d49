"""Checks shared by tests/pdb/test-pdb-*.sh (issue #42): perfpipe's result
documents of the workload's captures against the PP-LINE markers of the
source as built and against TraceEvent's own source lookup (the recorded
tests/data/pdb/STEM.sources.oracle.json, tests/oracle/SourceOracle.cs)."""
import json
import os
import re

UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
bad = 0


def check(ok, what):
    global bad
    print(("PASS " if ok else "FAIL ") + what)
    bad += not ok


def load(path):
    return json.load(open(path))


def table(doc, name):
    for st in doc.get("stages", [doc]):
        for t in st.get("tables", []):
            if t["name"] == name:
                cols = [c["name"] for c in t["columns"]]
                return [dict(zip(cols, r)) for r in t["rows"]]
    return []


def findings(doc, code):
    return [f for st in doc.get("stages", [doc]) for f in st.get("findings", []) if f["code"] == code]


def markers(path):
    """{marker: line} of the `PP-LINE: NAME` comments of a C# file."""
    src = open(path).read().split("\n")
    return {m.group(1): i + 1 for i, l in enumerate(src)
            for m in [re.search(r"PP-LINE: (\S+)", l)] if m}


def line_of(source, file):
    """The line of a `source` cell naming file (any directory), or None."""
    m = re.fullmatch(r"(?:.*/)?%s:(\d+)" % re.escape(file), source or "")
    return int(m.group(1)) if m else None


def oracle_best(oracle, trace, symbols, kind, method):
    """TraceEvent's heaviest file:line for the frames of `method` (its own
    and its lambdas', local functions' and state machines', which perfpipe
    folds into it), from the role that weighs most: (line, role), or
    (None, role) when TraceEvent gave no line. Role "leaf": the sampled
    instruction; "caller": a return address, which TraceEvent looks up as
    is (the instruction after the call, often the next statement's line)
    where perfpipe looks up the call."""
    short = method.rsplit(".", 1)[-1]
    for run in oracle["runs"]:
        if run["trace"] == trace and run["symbols"] == symbols:
            weight = {"leaf": {}, "caller": {}}
            for m, roles in run[kind]["methods"].items():
                if m == method or ("<%s>" % short in m and m.startswith(method.rsplit(".", 1)[0])):
                    for role, lines in roles.items():
                        for l, w in lines.items():
                            weight[role][l] = weight[role].get(l, 0) + w
            role = max(("leaf", "caller"), key=lambda r: sum(weight[r].values()))
            lined = {l: w for l, w in weight[role].items() if l != "[no line]"}
            return (max(sorted(lined), key=lambda l: lined[l]) if lined else None), role
    raise KeyError("%s with %s not in the oracle" % (trace, symbols))


def agrees(source, file, oracle, trace, symbols, kind, method, what):
    """perfpipe's line of a row is TraceEvent's for the same frames: the same
    line, or, when return addresses weigh most, a line at or before
    TraceEvent's (the call, where TraceEvent names the statement after)."""
    te, role = oracle_best(oracle, trace, symbols, kind, method)
    pp, ref = line_of(source, file), line_of(te, file)
    ok = pp is not None and ref is not None and (pp == ref or (role == "caller" and pp < ref))
    check(ok, "%s: %s at %s, TraceEvent says %s (%s frames%s)" % (
        what, method, source, te, role, "" if pp == ref else ": the return address's line"))


def oracle_lines(oracle, trace, symbols, kind):
    for run in oracle["runs"]:
        if run["trace"] == trace and run["symbols"] == symbols:
            return run[kind]["frames_with_line"], run[kind]["frames"]
    raise KeyError("%s with %s not in the oracle" % (trace, symbols))


def refused(doc, code, what):
    """The refused PDB's finding names both ids, and no row has a line."""
    fs = findings(doc, code)
    ids = re.findall(UUID, fs[0]["message"]) if fs else []
    check(bool(fs) and "refused" in fs[0]["message"] and len(set(ids)) == 2 and
          fs[0]["severity"] == "info",
          "%s: the PDB is refused by both ids (%s)" % (what, fs[0]["message"] if fs else "no finding"))


def no_map(doc, code, what):
    fs = findings(doc, code)
    check(bool(fs) and "Microsoft-Windows-DotNETRuntime keyword 0x20000" in fs[0]["message"],
          "%s: the finding names the keyword (%s)" % (what, fs[0]["message"] if fs else "no finding"))


def done():
    return 1 if bad else 0
