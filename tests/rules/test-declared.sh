#!/bin/bash
# Analyzers describe their tables (ABI 1.5, pp_table_decl): the host writes
# each declaration into the result document (tables[i].decl) and rule files
# are checked against the declarations, not a copy kept in core.
#  - every table of every shipped analyzer's result on real captures has a
#    decl, and the document validates (render reads it back);
#  - no emitted column strays from its table's declaration (order, type);
#  - a decl that names no column of its table is refused by the validator;
#  - a rule on alloc/by_frame's call_site column is valid (the hand-kept
#    copy in core/rules/evidence.c lacked it), a misspelt column is not;
#  - a document written before declarations existed (decls removed) gets
#    the same candidates as with them (the analyzers on the plugin path
#    declare its tables).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
unset PERFPIPE_RULES_PATH XDG_CONFIG_HOME
export HOME="$tmp/home"; mkdir -p "$HOME"
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }

run() { # run NAME ANALYZER INPUT...
  local name=$1; shift
  "$PERFPIPE" "$@" --format json -o "$tmp/$name.json" 2>"$tmp/$name.err" ||
    { ko "$name: $(head -2 "$tmp/$name.err")"; return 1; }
}
run alloc alloc "$DATA/alloc-gcverbose.nettrace"
run cpu cpu "$DATA/fix-lock-bad.nettrace"
run db db "$DATA/web-sampled-db.nettrace.zst"
run counters counters-csv "$DATA/leak-counters.csv"
run heap gcdump "$DATA/leak-after.gcdump"
run heapdiff gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump"
run bench bench "$DATA/bench-alloc.report-full.json"
if python3 - "$tmp"/*.json <<'PY'; then
import json, sys
n = 0
for f in sys.argv[1:]:
    d = json.load(open(f))
    for st in d["stages"]:
        for t in st["tables"]:
            decl = t.get("decl")
            assert decl is not None, "%s: %s/%s has no decl" % (f, st["analyzer"]["name"], t["name"])
            cols = {c["name"]: c["type"] for c in t["columns"]}
            if "subject" in decl:
                assert decl["subject"] in cols, (t["name"], decl)
            for c, fig in decl.get("figures", {}).items():
                assert cols.get(c) not in (None, "string"), (t["name"], c)
            n += 1
print("%d tables declared" % n)
assert n >= 25, n
PY
  ok "every table of the shipped analyzers' results carries its decl"
else
  ko "a table without its decl"
fi
# The declared columns and the emitted ones do not drift: every shipped
# analyzer (and cpu with --option focus, gc, spans, load) on a fixture; the
# host says where an emitted column strays from its table's declaration
# (finding host.undeclared_column), and none may.
mkdir -p "$tmp/more"
run more/cpu-focus cpu "$DATA/cpu-sampled.nettrace" --option focus=HotA
run more/gc gc "$DATA/gc-induced-ws.nettrace"
run more/spans spans "$DATA/web-spans.otlp.json"
run more/load load "$DATA/load/hey-fixed.txt"
run more/counters-json counters-csv "$DATA/churn-counters.json"
if python3 - "$tmp"/*.json "$tmp"/more/*.json <<'PY'; then
import json, sys
bad = []
for f in sys.argv[1:]:
    for st in json.load(open(f))["stages"]:
        bad += ["%s: %s" % (f, x["message"]) for x in st.get("findings", [])
                if x["code"] == "host.undeclared_column"]
assert not bad, "\n".join(bad)
print("%d results, no column off its declaration" % (len(sys.argv) - 1))
PY
  ok "every emitted column of every declared table is in its declaration, in order, of its type"
else
  ko "a table's columns drifted from its declaration"
fi
d=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["stages"][0]["tables"][1]["decl"], sort_keys=True))' "$tmp/alloc.json")
[ "$d" = '{"candidate": {"cost": "bytes", "does": "allocates (sampled)", "frame": true, "label": "allocation churn"}, "figures": {"bytes": {"axis": "allocation", "unit": "bytes"}, "samples": {"axis": "allocation", "unit": "samples"}, "share": {"axis": null, "unit": "percent"}}, "key": ["frame"], "subject": "frame"}' ] &&
  ok "alloc by_frame's decl: subject frame, bytes and samples on the allocation axis, candidates by bytes" ||
  ko "alloc by_frame's decl: $d"
for f in "$tmp"/*.json; do
  "$PERFPIPE" render "$f" --format table >/dev/null 2>"$tmp/render.err" ||
    ko "render $(basename "$f"): $(cat "$tmp/render.err")"
done
ok "the documents with declarations validate (render)"

# A broken decl is refused.
python3 - "$tmp/alloc.json" "$tmp/broken.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["stages"][0]["tables"][0]["decl"]["subject"] = "no_such_column"
json.dump(d, open(sys.argv[2], "w"))
PY
"$PERFPIPE" render "$tmp/broken.json" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -ne 0 ] && grep -q 'subject.*must name a column of the table at /stages/0/tables/0/decl' "$tmp/err" &&
  ok "a decl whose subject is not a column is refused at its place" ||
  ko "broken decl: exit $rc, $(cat "$tmp/err")"

# Rules are checked against the declarations.
cat >"$tmp/call-site.yaml" <<'YAML'
version: 1
rules:
  - id: team.call-site
    title: Allocations whose call site is in a hot loop
    axis: allocation
    confidence: low
    fix: Hoist the allocation out of the loop.
    doc: https://example.com/call-site
    match:
      analyzer: alloc
      table: by_frame
      target: frame
      where: { call_site: { regex: 'Loop' } }
YAML
"$PERFPIPE" rules validate "$tmp/call-site.yaml" >"$tmp/out" 2>&1 &&
  ok "a rule on alloc/by_frame's declared call_site column is valid" ||
  ko "call_site rule: $(cat "$tmp/out")"
sed 's/call_site:/call_sit:/' "$tmp/call-site.yaml" >"$tmp/typo.yaml"
"$PERFPIPE" rules validate "$tmp/typo.yaml" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "typo.yaml:13:16: unknown column 'call_sit' of alloc/by_frame; expected one of: .*call_site" "$tmp/err" &&
  ok "a misspelt column is refused with the declared ones listed" ||
  ko "typo: exit $rc, $(cat "$tmp/err")"

# No declaration: candidates as today.
for side in with without; do
  f=$tmp/alloc.json
  if [ $side = without ]; then
    python3 - "$tmp/alloc.json" "$tmp/cpu.json" "$tmp/nodecl" <<'PY'
import json, os, sys
os.makedirs(sys.argv[3], exist_ok=True)
for f in sys.argv[1:3]:
    d = json.load(open(f))
    for st in d["stages"]:
        for t in st["tables"]:
            t.pop("decl", None)
    json.dump(d, open(os.path.join(sys.argv[3], os.path.basename(f)), "w"))
PY
    "$PERFPIPE" candidates "$tmp/nodecl/alloc.json" "$tmp/nodecl/cpu.json" --format json -o "$tmp/cand-$side.json"
  else
    "$PERFPIPE" candidates "$tmp/alloc.json" "$tmp/cpu.json" --format json -o "$tmp/cand-$side.json"
  fi
done
if python3 - "$tmp/cand-with.json" "$tmp/cand-without.json" <<'PY'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ta = [t for t in a["stages"][0]["tables"]]
tb = [t for t in b["stages"][0]["tables"]]
for t in ta + tb:
    t.pop("decl", None)
assert ta == tb, "candidates differ without declarations"
rows = sum(len(t["rows"]) for t in ta)
assert rows > 0, "no candidates at all"
print("%d candidate rows either way" % rows)
PY
  ok "documents without declarations get the same candidates"
else
  ko "candidates differ without declarations"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
