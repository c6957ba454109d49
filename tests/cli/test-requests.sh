#!/bin/bash
# Issue #16, checked like numbers on real captures (tests/data/webdb-*, run-wrapper-*):
#  - compare tells the truth about totals: N+1 -> fixed passes the gate with the totals falling by
#    exactly the workload's own command counts; fixed -> N+1 fails it; a truncated side cannot be
#    judged (exit 6);
#  - every nettrace result names its process (pid = the workload's own pid, its runtime version), and
#    a trace of the `dotnet run` host is called the wrong process with no option;
#  - the unit of work: a trace with Hosting events counts its requests in the one read, exactly the
#    server's own count (unit "request"); its twin without them gets unit "second";
#  - request-aware N+1: with request boundaries K per request, without them never on the
#    one-query endpoint, and the N+1 only with its confidence and the capture hint.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/webdb-nplus1-c1-hosting.nettrace" ] || { echo "SKIP: webdb fixtures not present"; exit 77; }


for ep in one nplus1; do for c in 1 4; do for h in "" -hosting; do
  f=webdb-$ep-c$c$h
  expect 0 "db on $f" -- "$PERFPIPE" db "$DATA/$f.nettrace" --format json -o "$tmp/$f.json"
done; done; done

# ---- request-aware N+1 on all eight ----
ls "$tmp"/webdb-*.json > "$tmp/results"
# ---- the unit of work (WORK-CONTRACT.md): the Hosting events' requests, else the capture's seconds ----
check "work: requests from Hosting events = the server's own count; seconds without them" \
  "$tmp/results" "$DATA" <<'PY'
import json, os, sys
for res in open(sys.argv[1]).read().split():
    f = os.path.basename(res)[:-5]
    d = json.load(open(res)); t = json.load(open(os.path.join(sys.argv[2], f + ".truth.json")))
    (nt,) = [i["nettrace"] for i in d["inputs"]]
    w = d["work"]
    secs = nt["duration_ns"] / 1e9
    assert abs(w["seconds"] - secs) < 1e-6, (f, w, secs)
    if f.endswith("-hosting"):
        assert nt["requests"] == {"started": t["server_requests"], "completed": t["server_requests"]}, (f, nt.get("requests"))
        assert w["unit"] == "request" and w["requests"] == t["server_requests"], (f, w)
        assert w["requests_source"] == "hosting", (f, w)
    else:
        assert "requests" not in nt, (f, nt["requests"])
        assert w["unit"] == "second" and w["requests"] is None and w["requests_source"] is None, (f, w)
    assert w["operations"] is None, (f, w)
    print(f, w["unit"], w["requests"], "%.3f s" % w["seconds"])
PY

check "N+1: K per request with boundaries, confidence + hint without; never on the one-query endpoint" \
  "$tmp/results" "$DATA" <<'EOF'
import json, os, sys
HINT = "dotnet-trace collect --profile database --providers Microsoft.AspNetCore.Hosting -p PID"
def table(st, name):
    t = next((t for t in st["tables"] if t["name"] == name), None)
    if t is None: return None
    cols = [c["name"] if isinstance(c, dict) else c for c in t["columns"]]
    return [dict(zip(cols, r)) for r in t["rows"]]
for res in open(sys.argv[1]).read().split():
    f = os.path.basename(res)[:-5]
    d = json.load(open(res)); t = json.load(open(os.path.join(sys.argv[2], f + ".truth.json")))
    st = d["stages"][0]
    norm = {r["example"]: r["command"] for r in table(st, "by_command")}
    reqs = t["server_requests"]
    # the endpoint's commands: those the truth counts in the requests phase
    per_req = [c for c in t["commands"] if c["phases"].get("requests")]
    np1 = table(st, "n_plus_one") or []
    flagged = {r["command"]: r for r in np1}
    warned = [x["message"] for x in st["findings"] if x["code"] == "db.n_plus_one"]
    hosting = f.endswith("-hosting")
    if hosting:
        pr = table(st, "per_request")
        assert pr and st["tables"][0]["name"] == "per_request", (f, [x["name"] for x in st["tables"]])
        (row,) = pr
        assert row["route"] == "GET " + t["route"] and row["requests"] == reqs, (f, row)
        assert row["commands"] == t["request_commands_total"] and row["max_per_request"] == t["commands_per_request"], (f, row, t["request_commands_total"])
    else:
        assert table(st, "per_request") is None, f
    assert per_req, f
    for c in per_req:
        cmd = norm[c["command_text"]]
        k = c["phases"]["requests"] // reqs
        if k == 1:   # once per request: never an N+1, whatever the concurrency
            assert cmd not in flagged and not any('"%s" ran' % cmd in m for m in warned), (f, cmd, flagged.get(cmd))
            if not hosting and t["endpoint"] == "one":
                info = [x["message"] for x in st["findings"] if x["code"] == "db.repeated_command" and cmd in x["message"]]
                assert info and HINT in info[0] and "confidence low" in info[0], (f, info)
        else:        # the loop: K per request
            assert k == t["repeated_per_request"], (f, k)
            r = flagged[cmd]
            if hosting:
                assert (r["group"], r["confidence"], r["per_request"], r["requests"], r["executions"]) == ("request", "high", k, reqs, k * reqs), (f, r)
            else:
                assert r["confidence"] == "medium" and r["per_request"] == k and r["requests"] == reqs, (f, r)
                assert any(HINT in m and "confidence medium" in m for m in warned), (f, warned)
            print("%s: %s... x%d per request (%s)" % (f, cmd[:40], r["per_request"], r["confidence"]))
EOF

check "db times and the profiler's share against the workload's truth and TraceEvent" "$tmp/results" "$DATA" <<'EOF'
import json, os, sys
for res in open(sys.argv[1]).read().split():
    f = os.path.basename(res)[:-5]
    d = json.load(open(res)); t = json.load(open(os.path.join(sys.argv[2], f + ".truth.json")))
    o = json.load(open(os.path.join(sys.argv[2], f + ".oracle.json")))
    tot = {k: v["value"] for k, v in d["stages"][0]["totals"].items()}
    # EF Core's own Duration, summed: the same numbers the app's interceptor saw
    assert abs(tot["ef_duration_ms"] - t["db_total_ms_ef_duration"]) < 0.01, (f, tot["ef_duration_ms"], t["db_total_ms_ef_duration"])
    # the span between the events against the interceptor's Stopwatch (a measurement, not an
    # exact value: under 4 clients the two ends run on different pool threads): within 20%
    assert abs(tot["db_ms"] - t["db_total_ms_stopwatch"]) <= 0.20 * t["db_total_ms_stopwatch"], (f, tot["db_ms"], t["db_total_ms_stopwatch"])
    # bytes the profiler wrote per command: TraceEvent's payload bytes of the EF command events
    ef = [e for e in o["diagnostic_source"]["events"] if e["source"] == "Microsoft.EntityFrameworkCore" and e["name"].endswith(("CommandExecuting", "CommandExecuted", "CommandError"))]
    per = sum(e["payload_bytes"] for e in ef) / tot["commands"]
    assert abs(tot["event_bytes_per_command"] - per) < 1e-6, (f, tot["event_bytes_per_command"], per)
    codes = [x["code"] for x in d["stages"][0]["findings"]]
    assert "db.profiler_overhead" in codes, (f, codes)
    print("%s: db_ms %.1f (stopwatch %.1f), EF %.1f, %.0f event bytes per command" % (f, tot["db_ms"], t["db_total_ms_stopwatch"], tot["ef_duration_ms"], per))
EOF

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
assert d["compared"]["verdict"] == "improved" and d["verdict"]["overall"] == "improved", d["compared"]
tot = next(t for t in st["tables"] if t["name"] == "totals")
cols = [c["name"] if isinstance(c, dict) else c for c in tot["columns"]]
rows = {r[0]: dict(zip(cols, r)) for r in tot["rows"]}
cm = rows["commands"]
assert (cm["base"], cm["cand"]) == (tb["commands_total"], tc["commands_total"]), (cm, tb["commands_total"], tc["commands_total"])
assert cm["status"] == "shrank" and cm["gate"] == "improved" and cm["delta_pct"] < -50, cm
assert rows["db_ms"]["cand"] < rows["db_ms"]["base"] and rows["db_ms"]["gate"] in ("axis", "improved"), rows["db_ms"]
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

finish
