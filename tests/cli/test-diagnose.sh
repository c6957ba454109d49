#!/bin/bash
# Issue #38 without a live process: diagnose's session file and arguments refused with
# FILE:LINE:COLUMN and exit 2 before anything is resolved or captured; `perfpipe verify` on two
# evidence folders of a real session pair (tests/data/diagnose: tests/webapp's /shop/checkout
# under wrk, bad build then --fixed build, made by diagnose with one session file; README there):
# 0 and both planted methods confirmed, swapped 1, other knobs 6 naming them, an axis missing 6,
# no folder 3.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}/diagnose
. "$(dirname "$0")/../lib/checks.sh"

# bad_session NAME EXPECTED-LINE:COL TEXT-GREP -- YAML
bad_session() {
  local name=$1 pos=$2 want=$3
  printf '%s\n' "$4" > "$tmp/s.yaml"
  "$PERFPIPE" diagnose --session "$tmp/s.yaml" -o "$tmp/never" >"$tmp/out" 2>"$tmp/err"; local e=$?
  if [ $e = 2 ] && grep -q "s.yaml:$pos: .*$want" "$tmp/err" && [ ! -e "$tmp/never" ]; then
    pass=$((pass + 1)); echo "PASS: session file: $name -> $pos"
  else
    fail=$((fail + 1)); echo "FAIL: session file: $name: exit $e, expected 2 and s.yaml:$pos ... $want"; head -2 "$tmp/err"
  fi
}
bad_session "unknown key, the near one suggested" 3:1 "unknown key 'axis'.*did you mean 'axes'" \
  $'version: 1\nprocess: WebApp\naxis: [alloc]'
bad_session "unknown axis in a list" 3:15 "unknown axis 'heapp'" \
  $'version: 1\nprocess: WebApp\naxes: [alloc, heapp]'
bad_session "unknown axis in a string" 3:7 "unknown axis 'gpu'" \
  $'version: 1\nprocess: WebApp\naxes: alloc,gpu'
bad_session "duration not a time" 3:11 "'duration' takes a time" \
  $'version: 1\nprocess: WebApp\nduration: soon'
bad_session "load as a list" 3:7 "'load' takes a value" \
  $'version: 1\nprocess: WebApp\nload: [wrk]'
bad_session "no version" 1:1 "no 'version: 1'" \
  $'process: WebApp\naxes: [cpu]'
bad_session "version 2" 1:10 "'version' is 1" \
  $'version: 2\nprocess: WebApp'
bad_session "two targets" 1:1 "name one target" \
  $'version: 1\nprocess: WebApp\ndiagnostic_port: /tmp/x'
bad_session "not a mapping" 1:1 "a session file is a mapping" \
  $'- alloc'
bad_session "a pid out of range" 2:10 "'process' takes a process id" \
  $'version: 1\nprocess: 99999999999'
bad_session "YAML syntax" 3:1 "YAML syntax error" \
  $'version: 1\naxes: [alloc'
bad_session "counters_interval 0" 3:20 "whole number 1-3600" \
  $'version: 1\nprocess: WebApp\ncounters_interval: 0'

# Every key valid: the file is read, and the target (pid 1, no runtime) is what fails (3).
cat > "$tmp/ok.yaml" <<'YAML'
version: 1
process: 1
backend: http://127.0.0.1:5000
axes: [alloc, cpu, db, gc, exceptions, contention, heap]
duration: 4s
counters_duration: 500ms
counters_interval: 2
counters: System.Runtime
load: wrk -t1 -c2 -d4s http://127.0.0.1:5000/
buffersize: 64
benchmark: Shop.Benchmarks.Digest
benchmark_covers: Digest,Invoice
YAML
expect 3 "a session file with every key: read; the target is what is refused" -- \
  "$PERFPIPE" diagnose --session "$tmp/ok.yaml" -o "$tmp/x"
grep -q "diagnose: " "$tmp/err" && ! grep -q "ok.yaml:" "$tmp/err" && pass=$((pass + 1)) &&
  echo "PASS: no complaint about the file" || { fail=$((fail + 1)); echo "FAIL: $(head -2 "$tmp/err")"; }
expect 2 "diagnose without a target: usage" -- "$PERFPIPE" diagnose -o "$tmp/x"
expect 2 "diagnose without -o: usage" -- "$PERFPIPE" diagnose -p 1
expect 2 "diagnose --axes with an unknown axis" -- "$PERFPIPE" diagnose -p 1 -o "$tmp/x" --axes cpu,bogus
expect 2 "diagnose on a listening port: refused (one session from startup)" -- \
  "$PERFPIPE" diagnose --diagnostic-port "$tmp/p,listen" -o "$tmp/x"
expect 3 "diagnose on a pid that is no .NET process: exit 3, nothing written" -- \
  "$PERFPIPE" diagnose -p 1 -o "$tmp/x" --duration 1
[ ! -e "$tmp/x" ] && pass=$((pass + 1)) && echo "PASS: no folder made for a refused target" ||
  { fail=$((fail + 1)); echo "FAIL: a refused target left $tmp/x"; }
expect 0 "diagnose --help" -- "$PERFPIPE" diagnose --help
expect 0 "verify --help" -- "$PERFPIPE" help verify

[ -f "$DATA/before/session.json" ] || { echo "SKIP: tests/data/diagnose not present"; finish; exit $?; }
expect 0 "verify before after: exit 0" -- "$PERFPIPE" verify "$DATA/before" "$DATA/after"
cp "$tmp/out" "$tmp/v.txt"
check "verify before after: VERIFIED first; both planted candidates confirmed, structurally" "$tmp/v.txt" <<'PY'
import sys
t = open(sys.argv[1]).read().splitlines()
assert t[0].startswith("VERIFIED"), t[0]
for m in ("WebApp.Shop.DigestNaive", "WebApp.Shop.InvoiceChurn"):
    l = [x for x in t if x.startswith("candidate #") and (" %s: " % m) in x]
    assert l and "confirmed (structural)" in l[0] and ("'%s' disappeared" % m) in l[0], (m, l)
assert any(x.startswith("axis alloc: improved") for x in t) and any(x.startswith("axis cpu: improved") for x in t), t
print(t[0])
PY
expect 0 "verify --format json" -- "$PERFPIPE" verify "$DATA/before" "$DATA/after" --format json -o "$tmp/v.json"
check "verify's JSON: schema, verdict, per-axis unit request, one entry per candidate of BEFORE" \
  "$tmp/v.json" "$DATA/before/candidates.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1])); k = json.load(open(sys.argv[2]))
rows = next(t for s in k["stages"] for t in s["tables"] if t["name"] == "candidates")["rows"]
assert v["schema"] == "perfpipe-verify/1" and v["verdict"] == "verified", v["verdict"]
assert all(a["unit"] == "request" for a in v["axes"].values()), v["axes"]
assert len(v["candidates"]) == len(rows), (len(v["candidates"]), len(rows))
PY
expect 1 "verify after before (swapped): exit 1" -- "$PERFPIPE" verify "$DATA/after" "$DATA/before"
head -1 "$tmp/out" | grep -q '^REGRESSED' && pass=$((pass + 1)) && echo "PASS: swapped: REGRESSED first" ||
  { fail=$((fail + 1)); echo "FAIL: swapped: $(head -1 "$tmp/out")"; }
# The same folder with other knobs: as a session run with --duration 2s records them.
cp -r "$DATA/after" "$tmp/knobs"
python3 - "$tmp/knobs/session.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["knobs"]["duration_s"] = 2.0; s["knobs"]["load"] = "wrk -t1 -c8 -d2s URL"
json.dump(s, open(sys.argv[1], "w"))
PY
expect 6 "verify with other knobs: cannot judge (6)" -- "$PERFPIPE" verify "$DATA/before" "$tmp/knobs"
grep -q '^CANNOT JUDGE' "$tmp/out" && grep -q 'knobs differ: duration_s: 3.0 vs 2.0; load: ' "$tmp/out" &&
  ! grep -q '^candidate' "$tmp/out" && pass=$((pass + 1)) && echo "PASS: other knobs: named, no candidate judged" ||
  { fail=$((fail + 1)); echo "FAIL: other knobs: $(cat "$tmp/out" | head -3)"; }
cp -r "$DATA/after" "$tmp/noaxis" && rm "$tmp/noaxis/cpu.json"
expect 6 "verify with an axis missing from AFTER: cannot judge (6)" -- "$PERFPIPE" verify "$DATA/before" "$tmp/noaxis"
grep -q '^axis cpu: cannot judge: AFTER has no result' "$tmp/out" && pass=$((pass + 1)) && echo "PASS: the missing axis named" ||
  { fail=$((fail + 1)); echo "FAIL: missing axis: $(head -3 "$tmp/out")"; }
expect 3 "verify with no evidence folder: exit 3" -- "$PERFPIPE" verify "$DATA/before" "$tmp/nothing"
grep -q "nothing/session.json" "$tmp/err" && pass=$((pass + 1)) && echo "PASS: the missing session.json named" ||
  { fail=$((fail + 1)); echo "FAIL: $(head -2 "$tmp/err")"; }
expect 2 "verify with one folder: usage" -- "$PERFPIPE" verify "$DATA/before"
finish
