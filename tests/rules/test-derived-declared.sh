#!/bin/bash
# Rules' derived evidence follows what a table declares, not which analyzer
# wrote it (issue #41): a third-party analyzer whose tables declare the same
# facts as a shipped one's (column roles, ABI 1.7: a SQL command, calls and
# async calls, distinct threads, a heap path from the roots, a stack profile
# keyed by its stack; figures; frame candidates) gets the same derived
# columns (verb, select_columns, sync, per_thread, root_kind) and the same
# callees view.
#  - the shipped analyzers' results on real captures are copied as a
#    third-party analyzer's would be written: every analyzer and table
#    renamed (acme-*), declarations kept (what the host writes from a
#    plugin's pp_table_decl);
#  - one user rule per derived column or view, once on the shipped names and
#    once on the third-party ones, each with `finding: info` and a message
#    quoting the derived cells: both fire, with the same message;
#  - a declaration without its roles (a plugin older than ABI 1.7) gets no
#    derived column: the rule on it stays silent.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
unset XDG_CONFIG_HOME
export HOME="$tmp/home"; mkdir -p "$HOME" "$tmp/rules"
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }

analyze() { # analyze NAME ANALYZER INPUT...
  local name=$1; shift
  run "$name" "$PERFPIPE" "$@" --format json -o "$tmp/$name.json"
}
analyze db db "$DATA/db-database.nettrace.zst" --top 0 || exit 1
analyze cpu cpu "$DATA/fix-lock-bad.nettrace" --top 0 || exit 1
analyze alloc alloc "$DATA/fix-strconcat-bad.nettrace" --top 0 || exit 1
analyze heapdiff gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump" || exit 1

# The third-party copies: analyzer and table names changed everywhere the
# document names them (the stage, the declarations' table references).
python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
names = {
    "db": ("acme-sql", {"by_command": "queries", "by_caller": "query_callers"}),
    "cpu": ("acme-prof", {"by_stack": "profile", "running": "hot", "waiting": "blocked",
                          "by_method": "methods", "blocking": "held"}),
    "alloc": ("acme-mem", {"by_stack": "stacks", "by_frame": "sites",
                           "by_type_frame_kind": "kinds"}),
    "heapdiff": ("acme-heap", {"growth": "grew", "leak_suspects": "suspects"}),
}
for f, (an, tables) in names.items():
    d = json.load(open(os.path.join(tmp, f + ".json")))
    for st in d["stages"]:
        st["analyzer"]["name"] = an
        for t in st["tables"]:
            t["name"] = tables.get(t["name"], t["name"])
            c = t.get("decl", {}).get("candidate", {})
            for k in ("stacks", "waits", "callers", "superseded_by"):
                if k in c:
                    c[k] = tables.get(c[k], c[k])
    json.dump(d, open(os.path.join(tmp, "acme-" + f + ".json"), "w"))
    # and as a plugin older than ABI 1.7 writes it: no roles
    for st in d["stages"]:
        st["analyzer"]["name"] = an + "-old"
        for t in st["tables"]:
            t.get("decl", {}).pop("roles", None)
    json.dump(d, open(os.path.join(tmp, "old-" + f + ".json"), "w"))
PY

# rule ANALYZER TABLE WHERE MESSAGE: one rule per analyzer name (shipped,
# acme-*, acme-*-old), ids ev.KEY-ship / ev.KEY-acme / ev.KEY-old.
rules() { # rules KEY SHIPPED_ANALYZER SHIPPED_TABLE ACME_ANALYZER ACME_TABLE WHERE MESSAGE
  local key=$1 a=$2 t=$3 aa=$4 at=$5 where=$6 msg=$7 side an tn
  for side in ship acme old; do
    case $side in
      ship) an=$a; tn=$t ;;
      acme) an=$aa; tn=$at ;;
      old) an=$aa-old; tn=$at ;;
    esac
    cat >>"$tmp/rules/derived.yaml" <<YAML
  - id: ev.$key-$side
    title: derived $key
    axis: time
    confidence: low
    fix: None.
    doc: https://example.com/derived
    finding: info
    message: "$msg"
    match:
      analyzer: $an
      table: $tn
      where: $where
YAML
  done
}
echo 'version: 1' >"$tmp/rules/derived.yaml"
echo 'rules:' >>"$tmp/rules/derived.yaml"
rules sql db by_command acme-sql queries \
  "{ verb: { equals: SELECT }, select_columns: { min: 1 }, sync: { min: 0 } }" \
  "{command}: {verb}, {select_columns} columns, {sync} sync"
rules threads alloc by_type_frame_kind acme-mem kinds "{ per_thread: { min: 0 } }" \
  "{frame}: {per_thread} per thread"
rules heap gcdump-diff growth acme-heap grew "{ root_kind: { regex: '.' } }" \
  "{type}: {root_kind}"
rules cpucallees cpu callees acme-prof callees "{ ms: { min: 0 }, pool_ms: { min: 0 } }" \
  "{frame} -> {callee}: {ms} ms, {pool_ms} pool, {share}%, {samples} samples"
rules alloccallees alloc callees acme-mem callees "{ bytes: { min: 1 } }" \
  "{frame} -> {callee}: {bytes} bytes, {share}%, {samples} samples"

"$PERFPIPE" rules validate "$tmp/rules/derived.yaml" >"$tmp/val" 2>&1 &&
  ok "the rules on derived columns validate" || ko "rules validate: $(cat "$tmp/val")"
for f in db cpu alloc heapdiff; do
  PERFPIPE_RULES_PATH=$tmp/rules "$PERFPIPE" candidates "$tmp/$f.json" "$tmp/acme-$f.json" \
    "$tmp/old-$f.json" --format json -o "$tmp/cand-$f.json" 2>"$tmp/cand-$f.err" ||
    ko "candidates on $f: $(head -3 "$tmp/cand-$f.err")"
done
python3 - "$tmp" <<'PY' >"$tmp/findings"
import json, os, sys
tmp = sys.argv[1]
for f in ("db", "cpu", "alloc", "heapdiff"):
    p = os.path.join(tmp, "cand-%s.json" % f)
    if not os.path.exists(p):
        continue
    for st in json.load(open(p))["stages"]:
        for t in st["tables"]:
            if t["name"] != "rule_findings":
                continue
            cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
            for r in t["rows"]:
                r = dict(zip(cols, r))
                if r["rule"].startswith("ev."):
                    # the message up to the fix (which names the rule)
                    print("%s\t%s" % (r["rule"], r["message"].split(" Fix: ")[0]))
PY
for key in sql threads heap cpucallees alloccallees; do
  ship=$(awk -F'\t' -v k="ev.$key-ship" '$1 == k { print $2 }' "$tmp/findings")
  acme=$(awk -F'\t' -v k="ev.$key-acme" '$1 == k { print $2 }' "$tmp/findings")
  old=$(awk -F'\t' -v k="ev.$key-old" '$1 == k { print $2 }' "$tmp/findings")
  if [ -n "$ship" ] && [ "$ship" = "$acme" ]; then
    ok "$key: a third-party analyzer's declared table gets the shipped one's derived evidence ($(echo "$acme" | cut -c1-90))"
  else
    ko "$key: shipped '$ship', third-party '$acme'"
  fi
  [ -n "$ship" ] && [ -z "$old" ] && ok "$key: without the declared roles, no derived evidence" ||
    ko "$key: a table without roles got derived evidence: $old"
done
finish
