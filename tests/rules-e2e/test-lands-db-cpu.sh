#!/bin/bash
# Where the fix lands on db and cpu rows (issue #24, CONTRACTS "Rules and landing place"), on the
# committed real captures (no runtime needed):
#   - db by_caller gains `module` and `call_site` where the trace has module rundown: every
#     workload caller is in the workload's assembly (truth: the process's Workload.dll, listed in
#     `modules` as application), is its own call site, and the callers count every command;
#     candidates of db commands then land in the workload (they said "unknown" before);
#   - a trace without rundown (`--rundown false`) keeps by_caller as it was (5 columns, no
#     `modules` table): results of such traces keep their bytes;
#   - cpu `waiting` rows name the waiter's module and call site, and the sync-over-async waiter
#     lands in the workload as application.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"


for f in db-database web-sampled-db; do
  [ -e "$DATA/$f.nettrace.zst" ] || { echo "SKIP: $f absent"; continue; }
  run "$f: db" "$PERFPIPE" db "$DATA/$f.nettrace.zst" --top 0 --format json -o "$tmp/$f.db.json" || continue
  run "$f: candidates" "$PERFPIPE" candidates "$tmp/$f.db.json" --top 1000 --format json \
    -o "$tmp/$f.cand.json" || continue
  check "$f: db callers name their module and call site; db candidates land in the workload" \
    "$tmp/$f.db.json" "$tmp/$f.cand.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
db, cand, truth = (json.load(open(p)) for p in sys.argv[1:4])
def tables(doc):
    return {t["name"]: t for t in doc["stages"][0]["tables"]}
def rows(t):
    cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
T = tables(db)
app = "Workload"                        # the workload's assembly (tests/workload/Workload.csproj)
assert truth["scenario"] in ("db", "web"), truth["scenario"]
mods = {r["module"]: r for r in rows(T["modules"])}
assert mods[app]["class"] == "application" and mods[app]["path"].endswith("/%s.dll" % app), mods
callers = rows(T["by_caller"])
assert callers and "module" in callers[0] and "call_site" in callers[0], callers[:1]
for r in callers:
    if r["caller"].startswith(app + "."):
        assert r["module"] == app and r["call_site"] == r["caller"], r
    elif r["caller"] == "(framework only)":
        assert r["module"] == "" and r["call_site"] == "", r
    else:
        assert r["module"] in mods, ("a caller's module missing from modules", r)
by_cmd = sum(r["count"] for r in rows(T["by_command"]))
assert sum(r["count"] for r in callers) == by_cmd, (sum(r["count"] for r in callers), by_cmd)
ct = tables(cand)["candidates"]
crow = rows(ct)
assert crow, "no candidates"
for r in crow:
    assert (r["module"], r["lands"]) == (app, "application"), r
    assert r["call_site"].startswith(app + "."), r
print("%d callers of %d commands, all in %s; %d candidates land in %s (application), e.g. %s" % (
    len(callers), by_cmd, app, len(crow), app, crow[0]["call_site"]))
PY
done

f=webdb-nplus1-c4-hosting
if [ -e "$DATA/$f.nettrace" ] && run "$f: db" "$PERFPIPE" db "$DATA/$f.nettrace" --format json -o "$tmp/$f.db.json"; then
  check "$f (--rundown false): by_caller as before, no module columns, no modules table" "$tmp/$f.db.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
T = {t["name"]: t for t in d["stages"][0]["tables"]}
cols = [c["name"] for c in T["by_caller"]["columns"]]
assert cols == ["caller", "command", "count", "total_ms", "share"], cols
assert "modules" not in T, list(T)
print("by_caller columns: " + ", ".join(cols))
PY
fi

f=fix-syncasync-bad
if [ -e "$DATA/$f.nettrace" ] && run "$f: cpu" "$PERFPIPE" cpu "$DATA/$f.nettrace" --top 0 --format json -o "$tmp/$f.cpu.json"; then
  check "$f: waiting rows name the waiter's module and call site" "$tmp/$f.cpu.json" "$DATA/$f.truth.json" <<'PY'
import json, sys
d, truth = (json.load(open(p)) for p in sys.argv[1:3])
T = {t["name"]: t for t in d["stages"][0]["tables"]}
cols = [c["name"] for c in T["waiting"]["columns"]]
assert "module" in cols and "call_site" in cols, cols
w = [dict(zip(cols, r)) for r in T["waiting"]["rows"]]
mods = {r[0]: r for r in T["modules"]["rows"]}
mine = [r for r in w if r["waiter"] == truth["method"]]
assert mine, "no waiting row of %s" % truth["method"]
for r in w:
    if r["waiter"].startswith(truth["assembly"] + "."):
        assert (r["module"], r["call_site"]) == (truth["assembly"], r["waiter"]), r
    elif r["module"]:
        assert r["module"] in mods, r
fw = [r for r in w if r["module"] == truth["framework_assembly"]]
assert fw and all(mods[r["module"]][1] == "framework" for r in fw), fw[:2]
print("%d waiting rows; %s waits %.0f ms in %s; %d framework waiters (%s)" % (
    len(w), truth["method"], sum(r["ms"] for r in mine), truth["assembly"], len(fw),
    truth["framework_assembly"]))
PY
fi

finish
