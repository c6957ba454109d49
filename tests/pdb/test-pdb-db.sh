#!/bin/sh
# Source lines of db's callers on a real capture (issue #42),
# tests/data/pdb/workload-db.tar.xz (tests/pdb/capture-db.sh): `perfpipe db`
# on the workload's db scenario (Release, PDB beside the dll, found through
# --symbols): each by_caller row of the application names DbScenario.cs at
# the PP-LINE marker of the statement that ran the command, an async state
# machine's MoveNext (NPlusOneAsync) at the user's line too.
pp_stem=workload-db
. "${PP_SRCDIR:-$(dirname "$0")/../..}/tests/pdb/unpack.sh"
"$PP" db "$tmp/db-beside.nettrace" --symbols "$tmp/beside" --format json -o "$tmp/db.json" \
    2>"$tmp/db.err" || { echo "FAIL: perfpipe db failed:"; cat "$tmp/db.err"; exit 1; }
PYTHONPATH=$top_srcdir/tests/pdb python3 - "$tmp" <<'PY'
import os, sys
from sources import *
tmp = sys.argv[1]
mk = markers(os.path.join(tmp, "DbScenario.cs"))
# (caller, a word of the command) -> the marker of the statement that ran it
want = {("Workload.DbScenario.Seed", "PRAGMA"): "db-seed-create",
        ("Workload.DbScenario.Seed", "INSERT INTO \"Blogs\""): "db-seed-save",
        ("Workload.DbScenario.NPlusOneSync", "FROM \"Blogs\""): "db-sync-blogs",
        ("Workload.DbScenario.NPlusOneSync", "FROM \"Posts\""): "db-sync-posts",
        ("Workload.DbScenario+<NPlusOneAsync>d__3.MoveNext", "FROM \"Blogs\""): "db-async-blogs",
        ("Workload.DbScenario+<NPlusOneAsync>d__3.MoveNext", "COUNT(*)"): "db-async-count"}
rows = table(load(os.path.join(tmp, "db.json")), "by_caller")
for (caller, word), marker in sorted(want.items()):
    got = [r for r in rows if r["caller"] == caller and word in r["command"]]
    line = line_of(got[0].get("source"), "DbScenario.cs") if got else None
    check(line == mk[marker], "%s, %s: at %s, marker %s is DbScenario.cs:%d" % (
        caller, word, got[0].get("source") if got else "no row", marker, mk[marker]))
sys.exit(done())
PY
