#!/bin/bash
# Issue 45 on the second app (tests/webapp, captured under wrk by tests/capture/capture-webapp.sh;
# no runtime needed): each planted problem's bad capture runs its analyzer beside its wrk result
# (a `load` input: the unit of work is wrk's request count), and `perfpipe candidates` over all of
# one connection count's bad captures together must give
#   - as its top N (N = the shapes planted in that set, from the truths) exactly the planted
#     methods (truth `method`, the method the bad route runs), each an application frame of the
#     app's assembly, its own call site, with a fix shape (the shape's rule: the CPU hot path's is
#     cpu.self-time-hot, an application method whose own loop is most of the running time), a
#     verification plan and a cost per request;
#   - the N+1 as the application frame that runs the loop (truth `method`), the repeated SQL
#     command quoted in its evidence (the command that ran truth `repeated_per_request` times a
#     request), with ef.n-plus-one;
#   - no framework or package frame as a target anywhere in the list;
# and on each healthy twin no planted rule above low confidence (candidate or rule finding).
# Both GC modes: the Workstation set (webapp-*, webapp.tar.xz) and the Server GC set (webapp-svr-*,
# webapp-svr.tar.xz: DOTNET_gcServer=1 and System.GC.Server, nplus1 at 4 connections included).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}/webapp
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/webapp.tar.xz" ] || { echo "SKIP: tests/data/webapp fixtures not present"; exit 77; }
command -v xz >/dev/null || { echo "SKIP: xz not found (the traces are one .tar.xz)"; exit 77; }
SETS="webapp webapp-svr"
for set in $SETS; do
  tar -xJf "$DATA/$set.tar.xz" -C "$tmp" || { echo "FAIL: cannot unpack $DATA/$set.tar.xz"; exit 1; }
done

for a in db alloc cpu; do
  cat > "$tmp/$a.yaml" <<YAML
version: 1
name: webapp-$a
inputs:
  trace: { kind: nettrace, path: "\${TRACE}" }
  results: { kind: load, path: "\${RESULTS}" }
stages:
  - { id: $a, analyzer: $a, input: trace }
  - { id: load, analyzer: load, input: results }
YAML
done
truth() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

# The planted rule of each shape (docs/rules.md); hotpath (a CRC computed bit by bit) is an
# algorithmic hot loop of the app's own: cpu.self-time-hot.
RULES='{"nplus1": "ef.n-plus-one", "churn": "str.concat-in-loop", "syncasync": "async.sync-over-async",
        "exceptions": "exc.control-flow", "hotpath": "cpu.self-time-hot"}'

for set in $SETS; do for c in 1 4; do
  bad="" truths=""
  for s in nplus1 churn hotpath syncasync exceptions; do
    for v in bad good; do
      n=$set-$s-c$c-$v
      # nplus1 at 4 connections is not in the Workstation archive (tests/data/webapp/README.md)
      [ -f "$tmp/$n.nettrace" ] || { [ "$set-$s-c$c" = webapp-nplus1-c4 ] || {
        echo "FAIL: $n.nettrace is not in $set.tar.xz"; fail=$((fail + 1)); }; continue; }
      an=$(truth "$DATA/$n.truth.json" analyzer)
      run "$n: $an + wrk" "$PERFPIPE" run "$tmp/$an.yaml" --input trace="$tmp/$n.nettrace" \
        --input results="$DATA/$n.wrk.txt" --format json -o "$tmp/$n.json" || continue
      if [ $v = bad ]; then
        bad="$bad $tmp/$n.json" truths="$truths $DATA/$n.truth.json"
        continue
      fi
      run "$n: candidates" "$PERFPIPE" candidates "$tmp/$n.json" --top 1000 --format json \
        -o "$tmp/$n.cand.json" || continue
      check "$n (healthy twin): no planted rule above low confidence" "$tmp/$n.cand.json" "$RULES" <<'PY'
import json, sys
cand, rules = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
planted = {r for r in rules.values() if r}
T = {t["name"]: t for t in cand["stages"][0]["tables"]}
t = T["candidates"]
cols = [c["name"] for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
for r, hits in zip(rows, t["row_rules"]):
    assert r["lands"] not in ("framework", "package"), ("a framework frame is a target", r["target"])
    for h in hits:
        assert not (h["id"] in planted and h["confidence"] in ("medium", "high")), (r["target"], h)
for f in T["rule_findings"]["rows"]:
    assert not (f[1] in planted and f[3] in ("medium", "high")), f
print("%d candidates (%s), no planted rule above low" % (
    len(rows), ", ".join(r["target"] for r in rows[:3]) or "none"))
PY
    done
  done
  [ -n "$bad" ] || { echo "FAIL: $set c$c: no bad capture ran"; fail=$((fail + 1)); continue; }
  run "$set c$c: candidates over every bad capture" "$PERFPIPE" candidates $bad --top 1000 --format json \
    -o "$tmp/$set-c$c.cand.json" || continue
  # shellcheck disable=SC2086
  check "$set c$c: the top N candidates are the N planted causes, application frames with fix, landing and plan" \
    "$tmp/$set-c$c.cand.json" "$RULES" $bad -- $truths <<'PY'
import json, sys
cand, rules = json.load(open(sys.argv[1])), json.loads(sys.argv[2])
sep = sys.argv.index("--")
results = [json.load(open(p)) for p in sys.argv[3:sep]]
truths = [json.load(open(p)) for p in sys.argv[sep + 1:]]
st = cand["stages"][0]
T = {t["name"]: t for t in st["tables"]}
t = T["candidates"]
cols = [c["name"] for c in t["columns"]]
rows = [dict(zip(cols, r)) for r in t["rows"]]
assert st["totals"]["unit"]["value"] == "request", st["totals"]["unit"]   # wrk counts them
costs = [r["cost"] for r in rows]
assert costs == sorted(costs, reverse=True), costs[:8]
for r in rows:
    assert r["lands"] not in ("framework", "package"), ("a framework frame is a target", r["target"])
planted = {tr["method"]: tr for tr in truths}
n = len(planted)
top = rows[:n]
got = [r["target"] for r in top]
assert set(got) == set(planted), "top %d: %s; planted: %s; next: %s" % (
    n, got, sorted(planted), [(r["target"], round(r["cost"], 4)) for r in rows[n:n + 3]])
for r, hits in zip(top, t["row_rules"][:n]):
    tr = planted[r["target"]]
    asm = tr["method"].split(".")[0]                # WebApp.Shop.X: the app's assembly WebApp
    assert (r["lands"], r["module"], r["call_site"]) == ("application", asm, tr["method"]), r
    assert "perfpipe compare" in r["verify"] and r["cost_unit"] == "ms per request (estimated)", r
    ids = {h["id"]: h["confidence"] for h in hits}
    want = rules[tr["shape"]]
    if want:
        assert want in ids and ids[want] in ("medium", "high"), (tr["shape"], ids)
        assert r["fix"].startswith(want + ":") or (want + ":") in r["fix"], r["fix"]
    else:
        assert not ids and r["fix"].startswith("no rule matched:"), (tr["shape"], r["fix"])
    # the hot-loop rule names the method whose own code is the cost, never one whose cost is a
    # wait, a throw or a callee (another rule is the right one there)
    assert tr["shape"] == "hotpath" or "cpu.self-time-hot" not in ids, (tr["shape"], ids)
    if tr["shape"] == "nplus1":
        # the command the truth says ran repeated_per_request times a request, from the db result
        db = next(d for d, x in zip(results, truths) if x["shape"] == "nplus1")
        bc = next(x for x in db["stages"][0]["tables"] if x["name"] == "by_command")
        bcols = [c["name"] for c in bc["columns"]]
        cmds = [dict(zip(bcols, x)) for x in bc["rows"]]
        rep = [x["command"] for x in cmds
               if abs(x["count"] / tr["requests"] - tr["repeated_per_request"]) < 0.05]
        assert len(rep) == 1, [(x["command"], x["count"] / tr["requests"]) for x in cmds]
        assert '"%s" (run from %s)' % (rep[0], tr["method"]) in r["evidence"], r["evidence"][:300]
        assert "'%s' disappears" % rep[0] in r["verify"], r["verify"][:300]
    print("#%d %s: %.3f ms/request, %s" % (r["rank"], r["target"], r["cost"],
          ", ".join("%s (%s)" % kv for kv in ids.items()) or "no rule: says why"))
print("next: %s" % [(r["target"], round(r["cost"], 4)) for r in rows[n:n + 2]])
# A rule that reports on its own names where the fix lands: the planted method, never a
# framework frame above it (ThreadPoolWorkQueue.Dispatch: its callees stop at the planted
# method, the application frame that reaches System.Runtime.EH.DispatchEx).
own = {rules[tr["shape"]]: tr["method"] for tr in truths if rules[tr["shape"]]}
seen = 0
for f in T["rule_findings"]["rows"]:
    if f[1] in own:
        assert own[f[1]] in f[4] and "ThreadPoolWorkQueue" not in f[4], f
        seen += 1
assert seen >= 2, T["rule_findings"]["rows"]       # exc.control-flow and async.sync-over-async
print("%d rule findings name their planted method" % seen)
PY
done; done

finish
