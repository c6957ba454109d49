#!/usr/bin/env python3
# core/ and cli/ name no shipped analyzer and no table: a third-party
# analyzer must get what a shipped one gets, so nothing in the host may
# single out a shipped one by name (issue #41). The names are read from the
# plugins themselves: each descriptor's `.name` and each table declaration's
# (pp_table_decl). A C string literal in core/ or cli/ that is exactly one
# of them is a breach, unless ALLOWED lists it for that file.
#
# ALLOWED is today's offenders, listed one by one so that any new one
# fails; it shrinks as the host reads declarations instead, down to the
# shipped-pipelines registry. An entry no longer needed is reported (NOTE)
# so it can go; it does not fail, as the check-layout exceptions do not.
# Names that are also input kinds (gcdump, spans, bench) are the kinds'
# own words in the readers.
# Run by `make check` (PP_SRCDIR). Exit: 0 pass, 1 a breach (each on a line
# with the file and the name).
import os
import re
import sys

# The registry of shipped pipelines: the one file of the host that names
# shipped analyzers (each quick path's pipeline, capture profile and
# trimming options; diagnose's captures and axis words).
REGISTRY = {"cli/shipped.c"}

ALLOWED = {
    # diagnose's report and session file: the load input's facts
    # (inputs[].load) and the session file's `load` key (the user's words)
    "cli/diag_session.c": {"load"},
    "cli/diag_report.c": {"load"},
    # rules' derived evidence (to read declarations; candidates and landing
    # read them: tables[i].decl.candidate)
    "core/rules/evidence.c": {"alloc", "by_command", "by_frame", "by_stack",
                              "by_type_frame_kind", "cpu", "db", "gcdump", "gcdump-diff",
                              "running", "waiting"},
    # rules' axis words (pp_rule_axes): the user's rule files say `axis: alloc`
    "core/rules/rules_yaml.c": {"alloc"},
    # compare's special cases
    "core/compare_classify.c": {"spans"},
    "core/compare_stats.c": {"bench", "iterations"},
    # words that are not the analyzers': input kinds, a process state, a
    # counter's name
    "core/bdn/source.c": {"bench", "benchmarks"},
    "core/counters/quantity.c": {"exceptions"},
    "core/gcdump/fastser.c": {"gcdump"},
    "core/gcdump/heapdump.c": {"gcdump"},
    "core/gcdump/mapguard.c": {"gcdump"},
    "core/gcdump/source.c": {"gcdump"},
    "core/gcdump/writer.c": {"gcdump"},
    "core/ipc/capture.c": {"running"},
    "core/ipc/heapsnap_source.c": {"gcdump"},
    "core/source.c": {"gcdump"},
    "core/source_sniff.c": {"bench", "gcdump", "load", "spans"},
    # the load input kind's facts (inputs[].load) and its reader
    "core/compare.c": {"load"},
    "core/engine.c": {"load"},
    "core/load/source.c": {"load"},
    "core/work.c": {"load"},
    "core/spans/reader.c": {"spans"},
    "core/spans/source.c": {"spans"},
}

# Words of another vocabulary that are also the name of a table declared
# late (cpu's callers and callees, load's tables: issue #41's columns
# declared once), kept apart from ALLOWED while other branches shrink it;
# fold them into ALLOWED at the merge. Same rules: an entry no longer
# needed is a NOTE.
COINCIDENCES = {
    # the candidate declaration's member (pp_candidate_decl.callers)
    "core/candidates.c": {"callers"},
    "core/result/decl.c": {"callers"},
    # the load tools' own JSON members (k6, bombardier, vegeta)
    "core/load/json.c": {"latency", "thresholds"},
    "core/load/vegeta_lines.c": {"latency"},
    # the rules' derived view (build_callees)
    "core/rules/evidence.c": {"callees"},
}
for _rel, _words in COINCIDENCES.items():
    ALLOWED[_rel] = ALLOWED.get(_rel, set()) | _words

src = os.environ.get("PP_SRCDIR") or (sys.argv[1] if len(sys.argv) > 1 else None)
if not src:
    sys.exit("PP_SRCDIR is not set")

analyzers, tables = set(), set()
for root, _, files in os.walk(os.path.join(src, "plugins")):
    for f in files:
        if not f.endswith(".c"):
            continue
        text = open(os.path.join(root, f), errors="replace").read()
        for m in re.finditer(r"pp_analyzer \w+ = \{(.*?)\n\};", text, re.S):
            n = re.search(r'\.name = "([^"]+)"', m.group(1))
            if n:
                analyzers.add(n.group(1))
        for m in re.finditer(r"pp_table_decl \w+\[\] = \{(.*?)\n\};", text, re.S):
            tables.update(re.findall(r'\.name = "([^"]+)"', m.group(1)))
if len(analyzers) < 8 or len(tables) < 20:
    print("FAIL: found %d analyzers and %d tables in plugins/: the patterns no longer match "
          "the sources" % (len(analyzers), len(tables)))
    sys.exit(1)
names = analyzers | tables

literal = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
found = {}
for top in ("core", "cli"):
    for root, _, files in os.walk(os.path.join(src, top)):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, src)
            for n, line in enumerate(open(path, errors="replace"), 1):
                if line.lstrip().startswith(("/*", "*", "//")):
                    continue
                for m in literal.finditer(line):
                    if m.group(1) in names:
                        found.setdefault(rel, {}).setdefault(m.group(1), n)

failed = 0
for rel in sorted(found):
    for name, line in sorted(found[rel].items()):
        if rel not in REGISTRY and name not in ALLOWED.get(rel, set()):
            print('FAIL: %s:%d: "%s" names a shipped %s; read its declaration (ABI 1.5) or '
                  "the registries instead" % (rel, line, name,
                                              "analyzer" if name in analyzers else "table"))
            failed += 1
for rel in sorted(REGISTRY - set(found)):
    print("FAIL: %s is the registry of shipped pipelines but names none: the pattern or the "
          "REGISTRY entry is stale" % rel)
    failed += 1
for rel in sorted(ALLOWED):
    for name in sorted(ALLOWED[rel] - set(found.get(rel, {}))):
        print('NOTE: %s no longer names "%s": remove it from ALLOWED' % (rel, name))
print("%s: %d analyzers, %d tables; %d breach(es)" % ("FAIL" if failed else "PASS",
                                                      len(analyzers), len(tables), failed))
sys.exit(1 if failed else 0)
