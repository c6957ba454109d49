#!/bin/bash
# Columns declared once (issue #41): a plugin's table is made from its
# declaration (pp_table_decl, which rules, candidates and compare read), not
# from a second list of columns in the code that writes its rows.
#  - static: every table_new in plugins/ outside plugins/common/decl.h passes
#    a named column array that a declaration names (.columns = X), and every
#    named pp_column array in plugins/ is one a declaration names; every
#    shipped descriptor declares its tables;
#  - run: every table of every shipped analyzer's result on real captures
#    (cpu with option focus, load on each load tool's output) carries its
#    decl, and no emitted column strays from it (host.undeclared_column).
# Exit 0 pass, 1 fail, 77 skip (no python3).
set -u
SRC=${PP_SRCDIR:?}
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
fail=0
python3 - "$SRC" <<'PY' || fail=1
import os, re, sys
src = sys.argv[1]
texts = {}
for root, _, files in os.walk(os.path.join(src, "plugins")):
    for f in files:
        if f.endswith((".c", ".h")):
            p = os.path.join(root, f)
            texts[os.path.relpath(p, src)] = open(p, errors="replace").read()
declared = set()
for t in texts.values():
    declared.update(re.findall(r"\.columns\s*=\s*(\w+)", t))
bad = []
for rel, t in sorted(texts.items()):
    if rel == "plugins/common/decl.h":
        continue
    # table_new(ctx, name, ncols, COLUMNS, nkey): the fourth argument
    for m in re.finditer(r"->table_new\(([^;]*?)\);", t, re.S):
        args = [a.strip() for a in re.split(r",(?![^()]*\))", m.group(1))]
        line = t.count("\n", 0, m.start()) + 1
        if len(args) != 5 or args[3] not in declared:
            bad.append("%s:%d: table_new with columns %r that no declaration names: make "
                       "the table from its pp_table_decl (../common/decl.h)" %
                       (rel, line, args[3] if len(args) > 3 else "?"))
    for m in re.finditer(r"pp_column\s+(\w+)\s*\[\w*\]\s*=", t):
        if m.group(1) not in declared:
            line = t.count("\n", 0, m.start()) + 1
            bad.append("%s:%d: column list %s is no declaration's: declare the columns once, "
                       "in the table's pp_table_decl" % (rel, line, m.group(1)))
    for m in re.finditer(r"pp_analyzer \w+ = \{(.*?)\n\};", t, re.S):
        if ".tables = " not in m.group(1):
            bad.append("%s: a descriptor without .tables" % rel)
for b in bad:
    print("FAIL: " + b)
if not bad:
    print("PASS: every plugin table is made from its declaration")
sys.exit(1 if bad else 0)
PY
if [ -z "${PERFPIPE:-}" ] || [ -z "${PP_TESTDATA:-}" ]; then
  echo "(no PERFPIPE/PP_TESTDATA: the run half is skipped)"
  exit $fail
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export HOME="$tmp/home"; mkdir -p "$HOME"
D=$PP_TESTDATA
n=0
run() { # run NAME ANALYZER INPUT... [options]
  local name=$1; shift
  "$PERFPIPE" "$@" --format json -o "$tmp/$name.json" 2>"$tmp/$name.err" ||
    { echo "FAIL: $name: $(head -2 "$tmp/$name.err")"; fail=1; }
}
run cpu-focus cpu "$D/cpu-sampled.nettrace" --option focus=HotA --option thread-stacks=true
run cpu-lock cpu "$D/fix-lock-bad.nettrace"
run cpu-exc cpu "$D/fix-exceptions-bad.nettrace"
run alloc alloc "$D/alloc-gcverbose.nettrace" --option type-stacks=true
run db db "$D/webdb-nplus1-c1-hosting.nettrace"
run db-sampled db "$D/web-sampled-db.nettrace.zst"
run gc gc "$D/gc-induced-ws.nettrace"
run heap gcdump "$D/leak-after.gcdump"
run heap-noretained gcdump "$D/leak-after.gcdump" --option retained=false
run heapdiff gcdump-diff "$D/leak-before.gcdump" "$D/leak-after.gcdump"
run counters counters-csv "$D/leak-counters.csv"
run spans spans "$D/web-spans.otlp.json"
run bench bench "$D/bench-alloc.report-full.json"
for f in hey-fixed.csv hey-bad.txt k6-out.ndjson k6-summary.json wrk-bad.txt vegeta.json oha.json bombardier.json; do
  run "load-$f" load "$D/load/$f"
done
python3 - "$tmp"/*.json <<'PY' || fail=1
import json, sys
bad, n = [], 0
for f in sys.argv[1:]:
    name = f.rsplit("/", 1)[-1]
    for st in json.load(open(f))["stages"]:
        for t in st["tables"]:
            n += 1
            if "decl" not in t:
                bad.append("%s: %s/%s has no decl" % (name, st["analyzer"]["name"], t["name"]))
        bad += ["%s: %s" % (name, x["message"]) for x in st.get("findings", [])
                if x["code"] == "host.undeclared_column"]
for b in bad:
    print("FAIL: " + b)
seen = {t for t in ("callers", "callees", "latency", "request_latency", "statuses")
        if any('"name": "%s"' % t in open(f).read() for f in sys.argv[1:])}
if len(seen) < 5:
    print("FAIL: the runs no longer write callers, callees, latency, request_latency and "
          "statuses (%s): the check checks nothing there" % sorted(seen))
    bad.append(1)
print("%s: %d tables of %d results, each with its decl" % ("FAIL" if bad else "PASS", n,
                                                              len(sys.argv) - 1))
sys.exit(1 if bad else 0)
PY
exit $fail
