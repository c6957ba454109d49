#!/bin/bash
# wrk's coordinated-omission correction in the gate. wrk (4.x) adds, after the run, synthetic
# latency samples for every response slower than twice its expected interval (duration /
# requests per connection): one stall counts as many requests, and its mean and upper percentiles
# follow the stalls. A closed-loop connection has one request out at a time, so its requests'
# own latencies add up to at most duration x connections: the load analyzer's latency_sum_pct
# (mean x requests over duration x connections) beyond 100 % proves synthetic samples. Then
#  - `perfpipe load` says so (load.synthetic_latency, the figure computed here from wrk's JSON);
#  - compare shows the mean and the percentiles above p50 without judging them (gate column "not
#    judged", the reason in the verdict line and verdict.not_judged) and judges p50 and
#    ms_per_request: the Server GC N+1 fix at 1 connection (tests/data/webapp, real wrk results,
#    mean 5.08 -> 15.28 ms from one 166 ms stall) is no longer a latency regression;
#  - every request slower (the churn capture's latencies x3 and its throughput / 3, edited from
#    the real result) is still REGRESSED, through p50 and ms_per_request;
#  - a run whose latencies add up to no more than the connections' time (hotpath c4, 101 %) keeps
#    its mean judged: the same mean x3 there is a regression of mean_ms.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}/webapp
. "$(dirname "$0")/../lib/checks.sh"
[ -d "$DATA" ] || { echo "SKIP: tests/data/webapp not present"; exit 77; }

cat > "$tmp/load.yaml" <<'YAML'
version: 1
name: wrk-load
inputs:
  results: { kind: load, path: "${RESULTS}" }
stages:
  - { id: load, analyzer: load, input: results }
YAML
res() { # NAME FILE: the load pipeline's result on FILE as $tmp/NAME.json
  run "load on $(basename "$2")" "$PERFPIPE" run "$tmp/load.yaml" --input results="$2" \
    --format json -o "$tmp/$1.json"
}
# wrk's JSON line (examples/wrk-json/wrk-json.lua) of a capture, edited: latencies x LAT,
# requests and throughput / LAT (every request LAT times slower under closed loop)
slower() { # IN OUT LAT
  python3 - "$1" "$2" "$3" <<'PY'
import json, re, sys
src, out, f = sys.argv[1], sys.argv[2], float(sys.argv[3])
d = json.loads(re.search(r'^\{"tool":"wrk".*\}$', open(src).read(), re.M).group(0))
d["latency_us"] = {k: v * f for k, v in d["latency_us"].items()}
d["requests"] = int(d["requests"] / f)
for k in d["status_codes"]:
    d["status_codes"][k] = int(d["status_codes"][k] / f)
open(out, "w").write(json.dumps(d) + "\n")
PY
}

n=webapp-svr-nplus1-c1
route() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["route"])' "$DATA/$n-$1.truth.json"; }
map="$(route bad)=$(route good)"
res bad "$DATA/$n-bad.wrk.txt" && res good "$DATA/$n-good.wrk.txt" || { finish; exit; }
check "latency_sum_pct is mean x requests over duration x connections, from wrk's own JSON" \
  "$tmp/good.json" "$DATA/$n-good.wrk.txt" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
w = json.loads(re.search(r'^\{"tool":"wrk".*\}$', open(sys.argv[2]).read(), re.M).group(0))
want = 100 * w["latency_us"]["mean"] * w["requests"] / (w["duration_us"] * int(w["arg_c"]))
st = d["stages"][0]
t = next(t for t in st["tables"] if t["name"] == "latency")
row = dict(zip([c["name"] for c in t["columns"]], t["rows"][0]))
assert abs(row["latency_sum_pct"] - want) < 0.01, (row["latency_sum_pct"], want)
assert want > 600, want
f = [x for x in st["findings"] if x["code"] == "load.synthetic_latency"]
assert f and "611 %" in f[0]["message"] and f[0]["severity"] == "warning", st["findings"]
assert "mean_ms" in t["hints"]["not_judged"].split(), t["hints"]
print("latency_sum_pct %.1f %% (wrk: mean %.3f ms x %d requests in %.3f s, %s connection)" % (
    want, w["latency_us"]["mean"] / 1e3, w["requests"], w["duration_us"] / 1e6, w["arg_c"]))
PY

# the N+1 fix's load results alone: the old gate said REGRESSED on mean_ms
expect 0 "$n bad -> good: the synthetic mean is not a regression" -- \
  "$PERFPIPE" compare "$tmp/bad.json" "$tmp/good.json" --map "$map" --fail-on regression
has "$tmp/out" "not judged: load mean_ms (synthetic samples" "the verdict line names the statistic and why"
"$PERFPIPE" compare "$tmp/bad.json" "$tmp/good.json" --map "$map" --format json -o "$tmp/c.json"
check "$n: verdict.not_judged, the gate column, p50 still judged" "$tmp/c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); v = d["verdict"]
assert v["overall"] == "no change", v["line"]
assert v["not_judged"].startswith("load mean_ms (synthetic samples"), v
t = next(t for t in d["stages"][0]["tables"] if t["name"] == "totals")
cols = [c["name"] for c in t["columns"]]
gate = {r[0]: r[cols.index("gate")] for r in t["rows"]}
assert gate["mean_ms"] == "not judged" and gate["p50_ms"] == "axis", gate
assert gate["ms_per_request"] == "axis", gate
print(v["line"][:200])
PY

# every request slower, on a run with synthetic samples: still a regression
c=webapp-churn-c1-bad
res churn "$DATA/$c.wrk.txt" || { finish; exit; }
slower "$DATA/$c.wrk.txt" "$tmp/churn3.wrk.json" 3 && res churn3 "$tmp/churn3.wrk.json"
expect 1 "$c: every request 3x slower is REGRESSED" -- \
  "$PERFPIPE" compare "$tmp/churn.json" "$tmp/churn3.json" --fail-on regression
"$PERFPIPE" compare "$tmp/churn.json" "$tmp/churn3.json" --format json -o "$tmp/c.json"
check "$c x3: decided by p50_ms and ms_per_request, the mean shown only" "$tmp/c.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["verdict"]
assert v["overall"] == "regressed", v["line"]
by = " | ".join(v["decided_by"])
assert "load p50_ms" in by and "load ms_per_request" in by and "mean_ms" not in by, by
assert "mean_ms" in v["not_judged"], v
print(by[:200])
PY

# the twin: latencies that add up to the connections' time hold no provable synthetic sample,
# and their mean stays judged
h=webapp-hotpath-c4-bad
res hot "$DATA/$h.wrk.txt" || { finish; exit; }
slower "$DATA/$h.wrk.txt" "$tmp/hot3.wrk.json" 3 && res hot3 "$tmp/hot3.wrk.json"
"$PERFPIPE" compare "$tmp/hot.json" "$tmp/hot3.json" --format json -o "$tmp/c.json"
check "$h x3: no synthetic sample shown, mean_ms judged (REGRESSED on it)" "$tmp/c.json" "$tmp/hot.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))["verdict"]; st = json.load(open(sys.argv[2]))["stages"][0]
assert not [f for f in st["findings"] if f["code"] == "load.synthetic_latency"], st["findings"]
assert "not_judged" not in v, v
assert v["overall"] == "regressed" and any("load mean_ms" in x for x in v["decided_by"]), v
print(" | ".join(v["decided_by"])[:200])
PY
finish "wrk synthetic latency: "
