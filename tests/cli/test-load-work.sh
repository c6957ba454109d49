#!/bin/bash
# Issue #36, "Done when" 3: a trace plus its wrk result in one pipeline. On real captures of
# tests/webapp taken without the Hosting provider (tests/data/webapp, capture-webapp.sh: the
# sampler's profile, wrk's window inside the trace), for two planted problems (a CPU hot path,
# exceptions as control flow) at 1 connection:
#  - the trace alone knows no request count (no Hosting events: its unit is the second);
#  - beside its wrk report (a `load` input) the document's unit is the request, counted by wrk
#    (work.requests_source load:wrk, work.requests = the count wrk printed);
#  - compare's per-request figures of the trace's stage are its absolutes divided by those
#    counts, every total on both sides;
#  - the gate's bad -> good pair passes (exit 0, IMPROVED per request), good -> bad fails (1).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}/webapp
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/webapp.tar.xz" ] || { echo "SKIP: tests/data/webapp fixtures not present"; exit 77; }
command -v xz >/dev/null || { echo "SKIP: xz not found (the traces are one .tar.xz)"; exit 77; }
export PERFPIPE_BUILD_CHECK=off # the traces' app may have been rebuilt since: not this test's point
pairs="hotpath exceptions"
members=$(for s in $pairs; do printf 'webapp-%s-c1-bad.nettrace webapp-%s-c1-good.nettrace ' "$s" "$s"; done)
# shellcheck disable=SC2086 # one word per member
tar -xJf "$DATA/webapp.tar.xz" -C "$tmp" $members || { echo "FAIL: cannot unpack $DATA/webapp.tar.xz"; exit 1; }
cat > "$tmp/cpu.yaml" <<'YAML'
version: 1
name: trace-and-wrk
inputs:
  trace: { kind: nettrace, path: "${TRACE}" }
  results: { kind: load, path: "${RESULTS}" }
stages:
  - { id: cpu, analyzer: cpu, input: trace }
  - { id: load, analyzer: load, input: results }
YAML

for s in $pairs; do
  n=webapp-$s-c1
  br=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["route"])' "$DATA/$n-bad.truth.json")
  gr=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["route"])' "$DATA/$n-good.truth.json")
  for v in bad good; do
    run "cpu alone on $n-$v" "$PERFPIPE" cpu "$tmp/$n-$v.nettrace" --format json -o "$tmp/$n-$v.alone.json" || continue
    run "cpu + wrk on $n-$v" "$PERFPIPE" run "$tmp/cpu.yaml" --input trace="$tmp/$n-$v.nettrace" \
      --input results="$DATA/$n-$v.wrk.txt" --format json -o "$tmp/$n-$v.json" || continue
    check "$n-$v: no Hosting events alone; wrk's count beside it" "$tmp/$n-$v.alone.json" \
      "$tmp/$n-$v.json" "$DATA/$n-$v.truth.json" "$DATA/$n-$v.wrk.txt" <<'PY'
import json, re, sys
alone, both, truth = (json.load(open(p)) for p in sys.argv[1:4])
printed = int(re.search(r"^\s*(\d+) requests in ", open(sys.argv[4]).read(), re.M).group(1))
w = alone["work"]
assert w["requests"] is None and w["requests_source"] is None and w["unit"] == "second", w
w = both["work"]
assert w["unit"] == "request" and w["requests_source"] == "load:wrk", w
assert w["requests"] == printed == truth["requests"], (w["requests"], printed, truth["requests"])
print("alone: per %s; beside wrk: %d requests (wrk printed %d)" % (alone["work"]["unit"], w["requests"], printed))
PY
  done
  [ -f "$tmp/$n-bad.json" ] && [ -f "$tmp/$n-good.json" ] || continue
  "$PERFPIPE" compare "$tmp/$n-bad.json" "$tmp/$n-good.json" --map "$br=$gr" --format json -o "$tmp/$n-fix.json"
  check "$n: the trace's per-request figures are its absolutes over wrk's counts" "$tmp/$n-fix.json" \
    "$DATA/$n-bad.truth.json" "$DATA/$n-good.truth.json" <<'PY'
import json, math, sys
d = json.load(open(sys.argv[1])); rb, rg = (json.load(open(p))["requests"] for p in sys.argv[2:4])
assert d["verdict"]["unit"] == "request", d["verdict"]
st = next(s for s in d["stages"] if s["id"] == "cpu")
t = next(t for t in st["tables"] if t["name"] == "totals")
cols = [c["name"] for c in t["columns"]]
n = 0
for r in (dict(zip(cols, r)) for r in t["rows"]):
    if r["base"] is None or r["cand"] is None:
        continue
    assert math.isclose(r["base_per_request"], r["base"] / rb, rel_tol=1e-9), (r, rb)
    assert math.isclose(r["cand_per_request"], r["cand"] / rg, rel_tol=1e-9), (r, rg)
    n += 1
assert n >= 3, t["rows"]
print("%d totals per request: %d and %d wrk requests" % (n, rb, rg))
PY
  expect 0 "$n bad -> good passes (IMPROVED per request)" -- "$PERFPIPE" compare "$tmp/$n-bad.json" \
    "$tmp/$n-good.json" --map "$br=$gr" --fail-on regression
  grep -q "^IMPROVED (per request)" "$tmp/out" && { pass=$((pass + 1)); echo "PASS: $n: IMPROVED (per request)"; } \
    || { fail=$((fail + 1)); echo "FAIL: $n: $(head -1 "$tmp/out" | cut -c1-200)"; }
  expect 1 "$n good -> bad fails" -- "$PERFPIPE" compare "$tmp/$n-good.json" "$tmp/$n-bad.json" \
    --map "$gr=$br" --fail-on regression
done
finish "load-work: "
