#!/bin/bash
# Issue #34: the compare gate tells a fix from a regression, on real captures.
#  - webdb N+1 -> one query (c1/c4, with and without Hosting events): IMPROVED (exit 0 with
#    --fail-on regression) with the N+1 query's disappearance as the structural reason, judged
#    per request where the trace counts requests (else per second); the reverse REGRESSED (1);
#  - the fix shapes that allocate (tests/data/fix-*): the same, the bad method (the workload's own
#    truth) gone as the reason; lock and sync-over-async judged on cpu per run (fixed work);
#  - A/A: a second capture of the same bad code (fix-*-bad2) is NO CHANGE (0);
#  - a trace of the wrong process cannot be judged (6) unless --allow-wrong-process;
#  - the verdict comes first in table, markdown, HTML and JSON; "inputs" names both results with
#    process (the workload's own pid) and knobs.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
has() { # file ERE name
  if grep -Eq -- "$2" "$1"; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: /$2/ not in output"; head -3 "$1" | sed 's/^/  /'; fi
}
[ -f "$DATA/webdb-nplus1-c1-hosting.nettrace" ] && [ -f "$DATA/fix-strconcat-bad2.nettrace" ] ||
  { echo "SKIP: webdb/fix fixtures not present"; exit 77; }

# ---- webdb: N+1 -> one query ----
for c in 1 4; do for h in "" -hosting; do
  for ep in nplus1 one; do
    run "db on webdb-$ep-c$c$h" "$PERFPIPE" db "$DATA/webdb-$ep-c$c$h.nettrace" --format json \
      -o "$tmp/$ep-c$c$h.json" || continue
  done
  b=$tmp/nplus1-c$c$h.json g=$tmp/one-c$c$h.json
  expect 0 "webdb c$c$h: N+1 -> one passes --fail-on regression" -- \
    "$PERFPIPE" compare "$b" "$g" --fail-on regression --format json -o "$tmp/fix-c$c$h.json"
  check "webdb c$c$h: improved, the N+1 query gone as the structural reason, per the right unit" \
    "$tmp/fix-c$c$h.json" "$DATA/webdb-nplus1-c$c$h.truth.json" "$DATA/webdb-one-c$c$h.truth.json" "$h" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); tb, tc = (json.load(open(p)) for p in sys.argv[2:4]); hosting = sys.argv[4] != ""
v = d["verdict"]
assert list(d)[:2] == ["format", "verdict"], list(d)[:3]
assert v["overall"] == "improved" and d["compared"]["verdict"] == "improved", v
assert v["unit"] == ("request" if hosting else "second"), v["unit"]
# the endpoint's repeated query (the truth: one per blog per request)
rep = next(c["command_text"] for c in tb["commands"] if c["phases"].get("requests", 0) == tb["server_requests"] * tb["repeated_per_request"])
norm = " ".join(rep.split())
fixed = [x for x in v["decided_by"] if "fixed (structural)" in x and "by_command" in x]
assert any(norm in x for x in fixed), (norm, v["decided_by"])
assert v["line"].startswith("IMPROVED (per %s): db by_command" % v["unit"]), v["line"]
ins = d["inputs"]
assert [i["name"] for i in ins] == ["baseline", "candidate"], ins
assert ins[0]["process"]["pid"] == tb["pid"] and ins[1]["process"]["pid"] == tc["pid"], ins
assert "knobs" in ins[0] and ins[0]["work"]["unit"] == v["unit"], ins[0]
if hosting:   # per request: commands per request fall from the truth's 13 (+ setup) to 1
    st = d["stages"][0]; tot = next(t for t in st["tables"] if t["name"] == "totals")
    cols = [c["name"] for c in tot["columns"]]; rows = {r[0]: dict(zip(cols, r)) for r in tot["rows"]}
    cm = rows["commands"]
    assert abs(cm["base_per_request"] - tb["commands_total"] / tb["server_requests"]) < 1e-9, cm
    assert abs(cm["cand_per_request"] - tc["commands_total"] / tc["server_requests"]) < 1e-9, cm
    assert cm["gate"] == "improved" and rows["requests"]["gate"] == "work", (cm, rows["requests"])
print(v["line"][:150])
PY
  expect 1 "webdb c$c$h: one -> N+1 fails --fail-on regression" -- \
    "$PERFPIPE" compare "$g" "$b" --fail-on regression
  grep -q "compare: regressed:" "$tmp/err" && { pass=$((pass + 1)); echo "PASS: c$c$h: stderr says regressed"; } ||
    { fail=$((fail + 1)); echo "FAIL: c$c$h: stderr says regressed"; cat "$tmp/err"; }
done; done

# ---- fix shapes: allocation (per second; the bad method's disappearance decides) ----
for n in boxing exceptions regex loh strconcat jsonoptions; do
  for s in bad good; do
    run "alloc on fix-$n-$s" "$PERFPIPE" alloc "$DATA/fix-$n-$s.nettrace" --format json -o "$tmp/$n-$s.json" || continue
  done
  expect 0 "fix $n: bad -> good passes" -- \
    "$PERFPIPE" compare "$tmp/$n-bad.json" "$tmp/$n-good.json" --fail-on regression --format json -o "$tmp/c.json"
  check "fix $n: improved, the bad method gone (structural)" "$tmp/c.json" "$DATA/fix-$n-bad.truth.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2])); v = d["verdict"]
assert v["overall"] == "improved", v["line"]
want = "alloc by_frame '%s' disappeared while sampled_bytes fell per second: fixed (structural)" % t["method"]
assert want in v["decided_by"], (want, v["decided_by"])
PY
  expect 1 "fix $n: good -> bad fails" -- \
    "$PERFPIPE" compare "$tmp/$n-good.json" "$tmp/$n-bad.json" --fail-on regression
done

# ---- fix shapes: time (cpu, fixed work: per run; the twin methods paired by --map) ----
for n in lock syncasync; do
  for s in bad good; do
    run "cpu on fix-$n-$s" "$PERFPIPE" cpu "$DATA/fix-$n-$s.nettrace" --format json -o "$tmp/$n-$s.json" || continue
  done
  bm=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["method"])' "$DATA/fix-$n-bad.truth.json")
  gm=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["method"])' "$DATA/fix-$n-good.truth.json")
  expect 0 "fix $n: cpu bad -> good passes (per run, --map)" -- \
    "$PERFPIPE" compare "$tmp/$n-bad.json" "$tmp/$n-good.json" --per run --map "$bm=$gm" --fail-on regression
  # the blocked pool threads' wait (a lock's, a task's) is judged in cpu's blocking table; the
  # waiting table, idle waits included, is shown only
  has "$tmp/out" "^IMPROVED \\(per run\\): cpu blocking" "fix $n: the blocking wait gone leads the verdict"
  expect 1 "fix $n: cpu good -> bad fails" -- \
    "$PERFPIPE" compare "$tmp/$n-good.json" "$tmp/$n-bad.json" --per run --map "$gm=$bm" --fail-on regression
done

# ---- every sampled row carries its samples and 95 % interval (alloc and cpu tables) ----
check "alloc and cpu rows: samples and Wilson's 95% interval of the Poisson count" \
  "$tmp/boxing-bad.json" "$tmp/lock-bad.json" <<'PY'
import json, math, sys
z = 1.959963984540054
def ci(fig, k):
    h = z * math.sqrt(k + z * z / 4)
    return fig * max(k + z * z / 2 - h, 0) / k, fig * (k + z * z / 2 + h) / k
n = 0
for path, tables in ((sys.argv[1], {"by_type": ("bytes", "samples"), "by_frame": ("bytes", "samples"), "by_kind": ("bytes", "samples")}),
                     (sys.argv[2], {"running": ("ms", "samples"), "by_method": ("exclusive_ms", "exclusive")})):
    d = json.load(open(path))
    for t in d["stages"][0]["tables"]:
        if t["name"] not in tables: continue
        fig, cnt = tables[t["name"]]
        cols = [c["name"] for c in t["columns"]]
        # bytes_lo/_hi; lo_ms/hi_ms (read as times by the renderers; by_method: of exclusive_ms)
        lo_c, hi_c = (fig + "_lo", fig + "_hi") if fig == "bytes" else ("lo_ms", "hi_ms")
        assert cols[-2:] == [lo_c, hi_c], (t["name"], cols)
        for r in t["rows"]:
            row = dict(zip(cols, r)); k = row[cnt]
            if k == 0: continue
            lo, hi = ci(row[fig], k)
            tol = 1 if fig == "bytes" else 1e-6 * max(1, hi)
            assert abs(row[lo_c] - lo) <= tol and abs(row[hi_c] - hi) <= tol, (t["name"], row, lo, hi)
            assert row[lo_c] <= row[fig] <= row[hi_c], row
            n += 1
assert n > 20, n
print("%d rows checked" % n)
PY

# ---- A/A: a second capture of the same bad code ----
for n in strconcat boxing; do
  run "alloc on fix-$n-bad2" "$PERFPIPE" alloc "$DATA/fix-$n-bad2.nettrace" --format json -o "$tmp/$n-bad2.json" || continue
  for per in auto run; do
    expect 0 "A/A $n (--per $per): bad vs bad2 passes" -- \
      "$PERFPIPE" compare "$tmp/$n-bad.json" "$tmp/$n-bad2.json" --per $per --fail-on regression
    has "$tmp/out" "^NO CHANGE" "A/A $n (--per $per): no change, first line"
  done
done

# ---- the wrong process ----
run "alloc on the dotnet run wrapper" "$PERFPIPE" alloc "$DATA/run-wrapper-gcverbose.nettrace" --format json -o "$tmp/wrap.json"
expect 6 "wrong process: --fail-on regression cannot judge (6)" -- \
  "$PERFPIPE" compare "$tmp/strconcat-bad.json" "$tmp/wrap.json" --fail-on regression
has "$tmp/out" "^CANNOT JUDGE: candidate .*wrong process: the trace is of .dotnet run." "wrong process: the verdict says why"
expect 6 "... as the baseline too" -- "$PERFPIPE" compare "$tmp/wrap.json" "$tmp/strconcat-bad.json" --fail-on regression
"$PERFPIPE" compare "$tmp/strconcat-bad.json" "$tmp/wrap.json" --allow-wrong-process --format json -o "$tmp/w.json"
check "--allow-wrong-process judges it" "$tmp/w.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["verdict"]["overall"] != "cannot judge" and not d["compared"]["cannot_judge"], d["verdict"]
assert "WRONG PROCESS" in d["verdict"]["candidate"], d["verdict"]["candidate"]
PY

# ---- the verdict first, in every format ----
b=$tmp/nplus1-c1-hosting.json g=$tmp/one-c1-hosting.json
expect 0 "table" -- "$PERFPIPE" compare "$b" "$g"
has "$tmp/out" "^IMPROVED \\(per request\\): db by_command" "table: the verdict is the first line"
[ "$(head -c 8 "$tmp/out")" = "IMPROVED" ] && { pass=$((pass + 1)); echo "PASS: table starts with it"; } || { fail=$((fail + 1)); echo "FAIL: table starts with it"; head -2 "$tmp/out"; }
expect 0 "markdown" -- "$PERFPIPE" compare "$b" "$g" --format markdown
[ "$(head -c 11 "$tmp/out")" = "**IMPROVED " ] && { pass=$((pass + 1)); echo "PASS: markdown starts with it"; } || { fail=$((fail + 1)); echo "FAIL: markdown starts with it"; head -2 "$tmp/out"; }
expect 0 "html" -- "$PERFPIPE" compare "$b" "$g" --format html -o "$tmp/c.html"
check "html: the banner leads <main>, naming baseline and candidate" "$tmp/c.html" "$DATA/webdb-nplus1-c1-hosting.truth.json" <<'PY'
import sys, json
h = open(sys.argv[1]).read(); t = json.load(open(sys.argv[2]))
body = h[h.index("<main>") + 6:].lstrip()
assert body.startswith('<div class="card verdict" id="verdict"'), body[:120]
banner = body[:body.index("</div>")]
assert "IMPROVED (per request)" in banner and "<b>baseline</b> " in banner and "<b>candidate</b> " in banner, banner[:400]
assert "pid %d" % t["pid"] in banner, banner
PY
# --map pairs a renamed key: the twin route joins as one row
expect 0 "--map joins a renamed key" -- "$PERFPIPE" compare "$tmp/lock-bad.json" "$tmp/lock-good.json" --per run \
  --map "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["method"])' "$DATA/fix-lock-bad.truth.json")=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["method"])' "$DATA/fix-lock-good.truth.json")" --format json -o "$tmp/m.json"
check "--map: the bad method's row carries the good method's figures" "$tmp/m.json" "$DATA/fix-lock-bad.truth.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
st = next(s for s in d["stages"]); tb = next(x for x in st["tables"] if x["name"] == "by_method")
cols = [c["name"] for c in tb["columns"]]
row = next(dict(zip(cols, r)) for r in tb["rows"] if r[0] == t["method"])
assert row["status"] not in ("disappeared", "appeared"), row
assert not any(r[0] == t["twin_method"] for r in tb["rows"]), "the twin still has its own row"
PY
expect 2 "--map without =" -- "$PERFPIPE" compare "$b" "$g" --map nothing
expect 2 "--per nonsense" -- "$PERFPIPE" compare "$b" "$g" --per week
finish
