#!/usr/bin/env python3
# core/ and cli/ name no shipped analyzer and no table: a third-party
# analyzer must get what a shipped one gets, so nothing in the host may
# single out a shipped one by name (issue #41). The names are read from the
# plugins themselves: each descriptor's `.name` and each table declaration's
# (pp_table_decl). A C string literal in core/ or cli/ that is exactly one
# of them is a breach, unless ALLOWED lists it for that file.
#
# ALLOWED is empty: the host reads declarations, and only the
# shipped-pipelines registry names shipped analyzers. It stays as the one
# place an exception would have to be argued (file: {names}); an entry no
# longer needed is reported (NOTE) so it can go.
# Names that are also input kinds (gcdump, spans, bench, load) are the
# kinds' own words: each lives once, in its reader's ops (`.kind = "..."`),
# and the host reads it from there (pp_source_ops.kind, the kinds registry).
# CONTEXTS tells such a word from an analyzer's name where the line says so:
# a word the same as a name but meaning something else (a process state, a
# counter, a failure phase) is allowed in its context, not in the file.
# Run by `make check` (PP_SRCDIR). Exit: 0 pass, 1 a breach (each on a line
# with the file and the name).
import os
import re
import sys

# The registry of shipped pipelines: the one file of the host that names
# shipped analyzers (each quick path's pipeline, capture profile and
# trimming options; diagnose's captures and axis words).
REGISTRY = {"cli/shipped.c"}

ALLOWED: dict = {}

# (file, a pattern of the line, the words it allows there, why): a word
# that is the same as a shipped name and means something else on that line.
CONTEXTS = [
    # a reader's ops declare its kind word: its one home (the kinds
    # registry, core/registry/kinds.c, lists the ops)
    (None, re.compile(r'^\s*\.kind = "[^"]+",'), None, "an input kind's word"),
    # ... or a reader's header, where two readers of a kind share it
    # (core/gcdump/kind.h, core/load/kind.h)
    (None, re.compile(r'^#define PP_[A-Z]+_KIND "[^"]+"$'), None, "an input kind's word"),
    # a stage that failed while its plugin was loaded
    ("core/engine/engine.c", re.compile(r'"phase", "load"'), {"load"}, "a failure phase"),
    # why a capture ended: the process was still running
    ("core/ipc/capture.c", re.compile(r'reasons\[\] = \{ "running",'), {"running"},
     "a process state"),
    # compare's "bench" method and the columns it reads: a table's hint
    # names it ("compare" = "bench", plugin.h table_hint), whoever the
    # analyzer
    ("core/compare/compare_stats.c", re.compile(r'strcmp\(how, "bench"\)'), {"bench"},
     "a compare method a table's hint names"),
    ("core/compare/compare_stats.c", re.compile(r'pp_compare_col\(t[bc], "iterations"\)'),
     {"iterations"}, "a column of the bench compare method"),
    # what an input read, counted in its facts (inputs[].spans, .benchmarks)
    (("core/spans/source.c", "core/bdn/source.c"),
     re.compile(r'json_object_set_new\(into, "(spans|benchmarks)", json_integer\('),
     {"spans", "benchmarks"}, "an input's count of what it read"),
    # OTLP's own key: scopeSpans[].spans
    ("core/spans/reader.c", re.compile(r'keys\[\] = \{ "spans" \}'), {"spans"},
     "an OTLP/JSON member"),
    # the counters' quantity of thrown exceptions (dotnet.exceptions)
    ("core/counters/quantity.c",
     re.compile(r'^\s*\{ "[^"]+", [^,]+, "exceptions" \},|\(quantity, "exceptions"\)'),
     {"exceptions"}, "a counter's quantity"),
    # the candidate declaration's member (pp_candidate_decl.callers)
    (("core/candidates/candidates.c", "core/result/decl.c"), re.compile(r'"callers"[,)]'), {"callers"},
     "a candidate declaration's member"),
    # the load tools' own JSON members (k6, vegeta)
    (("core/load/json.c", "core/load/vegeta_lines.c"),
     re.compile(r'json_object_get\((res|m|line), "(latency|thresholds)"\)'),
     {"latency", "thresholds"}, "a load tool's JSON member"),
    # the rules' derived view of a stage's stack profile (build_callees)
    ("core/rules/evidence.c", re.compile(r'"callees"'), {"callees"},
     "the rules' derived view"),
]


used = set()


def in_context(rel, line, word):
    for i, (f, pattern, words, _) in enumerate(CONTEXTS):
        if ((f is None or rel in ((f,) if isinstance(f, str) else f)) and
                (words is None or word in words) and pattern.search(line)):
            used.add(i)
            return True
    return False


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
                    if m.group(1) in names and not in_context(rel, line, m.group(1)):
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
for i, (f, pattern, _, why) in enumerate(CONTEXTS):
    if i not in used:
        print("NOTE: no line matches the context of %s (%s): remove it from CONTEXTS" %
              (f or "any file", why))
print("%s: %d analyzers, %d tables; %d breach(es)" % ("FAIL" if failed else "PASS",
                                                      len(analyzers), len(tables), failed))
sys.exit(1 if failed else 0)
