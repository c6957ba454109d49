#!/bin/bash
# Rules (issue #24, docs/rules.md):
#  - every shipped rule fires on a minimal result document and stays silent
#    on its healthy variant (rule_cases.py);
#  - a user rule file in ~/.config/perfpipe/rules (and $XDG_CONFIG_HOME) is
#    picked up, validated (a bad one: FILE:LINE:COLUMN, exit 2, for `rules
#    validate`, `candidates` and `run` alike) and overrides a shipped rule by id;
#  - each validation error names its line and column;
#  - on real captures: the N+1 command carries ef.n-plus-one, its healthy twin
#    (one query per request) carries no rule at all; the static-list leak's
#    two snapshots alone carry heap.static-growth (grew, low) and report it in
#    the gcdump-diff stage; with a counters series that keeps growing the
#    leaked type carries leak.static-collection (high).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
unset PERFPIPE_RULES_PATH XDG_CONFIG_HOME
export HOME="$tmp/home"; mkdir -p "$HOME"
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }

expect() { # expect CODE NAME -- CMD...
  local code=$1 name=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$code" ]; then ok "$name"
  else ko "$name: exit $got, expected $code"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fi
}
has() { # has FILE TEXT NAME
  if grep -qF -- "$2" "$1"; then ok "$3"; else ko "$3: '$2' not in $1"; sed 's/^/  /' "$1" | head -5; fi
}

# ---- every shipped rule on its minimal document and its healthy variant ----
mkdir -p "$tmp/cases"
if python3 "$SRC/tests/rules/rule_cases.py" "$PERFPIPE" "$SRC" "$tmp/cases" >"$tmp/cases.out" 2>&1; then
  ok "every shipped rule fires on its minimal document, none on the healthy variants"
  sed 's/^/  /' "$tmp/cases.out" | tail -1
else
  ko "rule cases"; grep -v '^PASS' "$tmp/cases.out" | sed 's/^/  /'
fi

# ---- a rule's own finding names where the fix lands ----
# lock.contention matches a waiter that is a framework frame (a ConcurrentDictionary's GetOrAdd
# blocked on its lock): the finding names the application frame that calls it (the waiting row's
# call_site, as candidates attributes it), the framework frame as evidence; without an
# application caller it says no change lands there. (On a real capture: test-webapp-planted.sh.)
for caller in App.Cache.Get ""; do
  python3 - "$tmp/site.json" "$caller" <<'PY2'
import json, sys
def table(name, cols, rows, decl):
    return {"name": name, "key": [cols.split(":")[0]], "decl": decl, "rows": rows,
            "columns": [{"name": n, "type": t} for n, t in (c.split(":") for c in cols.split())]}
frame = {"cost": "ms", "label": "time", "does": "runs", "frame": True}
gor = "System.Collections.Concurrent.ConcurrentDictionary`2.GetOrAdd"
stage = {"id": "cpu", "analyzer": {"name": "cpu", "version": "1.0.0"}, "status": "ok",
         "findings": [], "totals": {}, "tables": [
    table("running", "method:string samples:count ms:number share:percent module:string call_site:string",
          [["App.Hot.Run", 100, 1000.0, 100.0, "App", "App.Hot.Run"]],
          {"subject": "method", "candidate": frame}),
    table("waiting", "wait:string waiter:string samples:count ms:number share:percent module:string "
          "call_site:string",
          [["System.Threading.Monitor.Enter_Slowpath", gor, 50, 400.0, 40.0, "System.Private.CoreLib",
            sys.argv[2]]], {"subject": "waiter", "candidate": dict(frame, rule_gated=True)}),
    table("modules", "module:string class:string",
          [["App", "application"], ["System.Private.CoreLib", "framework"]], {"subject": "module"}),
    table("by_stack", "stack:string samples:count ms:number",
          [["App.Main;App.Hot.Run", 100, 1000.0]], {})]}
json.dump({"format": "perfpipe-result/1", "tool": {"name": "perfpipe", "version": "0.0.0-test"},
           "pipeline": "cpu", "knobs": {}, "inputs": [], "stages": [stage]}, open(sys.argv[1], "w"))
PY2
  expect 0 "site (${caller:-none}): candidates" -- "$PERFPIPE" candidates "$tmp/site.json" \
    --format json -o "$tmp/site.cand.json"
  if python3 - "$tmp/site.cand.json" "$caller" >"$tmp/site.out" 2>&1 <<'PY2'
import json, sys
d, caller = json.load(open(sys.argv[1])), sys.argv[2]
T = {t["name"]: t for t in d["stages"][0]["tables"]}
f = [r[4] for r in T["rule_findings"]["rows"] if r[1] == "lock.contention"]
assert len(f) == 1, T["rule_findings"]["rows"]
gor = "System.Collections.Concurrent.ConcurrentDictionary`2.GetOrAdd"
if caller:
    assert f[0].startswith("Threads waiting for a lock: waiter %s," % caller), f[0]
    assert "(the evidence is in the framework frame %s it calls)" % gor in f[0], f[0]
else:
    assert "waiter %s," % gor in f[0] and "no change lands there" in f[0], f[0]
print(f[0][:160])
PY2
  then ok "lock.contention on a framework waiter: the finding names ${caller:-no application frame}"
  else ko "lock.contention on a framework waiter (${caller:-no caller})"; fi
  sed 's/^/  /' "$tmp/site.out"
done

expect 0 "rules --help" -- "$PERFPIPE" rules --help
has "$tmp/out" "~/.config/perfpipe/rules" "rules --help names the user directory"
expect 2 "rules with no subcommand is a usage error" -- "$PERFPIPE" rules
expect 2 "rules show of an unknown id" -- "$PERFPIPE" rules show no.such-rule
expect 0 "rules validate: the shipped rules" -- "$PERFPIPE" rules validate "$SRC"/etc/rules/*.yaml
n=$("$PERFPIPE" rules list --format json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "${n:-0}" -ge 20 ] && ok "$n shipped rules in force (>= 20)" || ko "only ${n:-0} rules in force"

# ---- validation: FILE:LINE:COLUMN and exit 2 ----
bad() { # bad NAME EXPECTED-PREFIX EXPECTED-TEXT  (rule file on stdin)
  cat >"$tmp/$1.yaml"
  "$PERFPIPE" rules validate "$tmp/$1.yaml" >/dev/null 2>"$tmp/err"; local got=$?
  if [ "$got" -eq 2 ] && grep -qF -- "$tmp/$1.yaml:$2: " "$tmp/err" && grep -qF -- "$3" "$tmp/err"; then
    ok "invalid ($1): exit 2 at $2"
  else
    ko "invalid ($1): exit $got, expected 2 and '$tmp/$1.yaml:$2: ...$3'"; sed 's/^/  /' "$tmp/err"
  fi
}
head_ok='version: 1
rules:
  - id: team.x
    title: T
    axis: allocation
    confidence: high
    fix: F.
    doc: https://example.com/t'
bad unknown-key 4:5 "unknown key 'titel' in a rule (did you mean 'title'?)" <<'EOF'
version: 1
rules:
  - id: team.x
    titel: T
EOF
bad wrong-type 4:12 "expected a scalar for title, got a list" <<'EOF'
version: 1
rules:
  - id: team.x
    title: [T]
EOF
bad bad-axis 5:11 "unknown axis 'memory'; expected one of: time, allocation, footprint, database, load" <<'EOF'
version: 1
rules:
  - id: team.x
    title: T
    axis: memory
EOF
# the axis word rule files said before rules used the declared axis names
bad old-axis 5:11 "unknown axis 'alloc': write 'axis: allocation' (a rule's axis is one analyzers declare figures on: time, allocation, footprint, database, load)" <<'EOF'
version: 1
rules:
  - id: team.x
    title: T
    axis: alloc
EOF
bad bad-regex 12:33 "bad regex" <<EOF
$head_ok
    match:
      analyzer: alloc
      table: callees
      where: { callee: { regex: '(' } }
EOF
bad bad-glob 12:32 "bad glob '[ab': a '[' is not closed" <<EOF
$head_ok
    match:
      analyzer: alloc
      table: callees
      where: { callee: { glob: '[ab' } }
EOF
bad unknown-column 12:16 "unknown column 'calee' of alloc/callees" <<EOF
$head_ok
    match:
      analyzer: alloc
      table: callees
      where: { calee: { regex: x } }
EOF
bad unknown-table 11:14 "unknown table 'calees' of analyzer alloc" <<EOF
$head_ok
    match:
      analyzer: alloc
      table: calees
EOF
bad number-on-text 12:26 "'min' compares numbers" <<EOF
$head_ok
    match:
      analyzer: alloc
      table: callees
      where: { callee: { min: 3 } }
EOF
bad bad-id 3:9 "is not area.name" <<'EOF'
version: 1
rules:
  - id: NoDots
EOF
bad version 1:10 "unsupported rule format version '2'" <<'EOF'
version: 2
rules: []
EOF
bad duplicate 5:9 "rule id 'team.x' is defined twice" <<'EOF'
version: 1
rules:
  - id: team.x
    disabled: true
  - id: team.x
    disabled: true
EOF

# ---- real captures: results, then candidates with the shipped rules ----
expect 0 "db result (N+1, one request at a time)" -- "$PERFPIPE" db "$DATA/webdb-nplus1-c1-hosting.nettrace" --format json -o "$tmp/n1.json"
expect 0 "db result (its healthy twin)" -- "$PERFPIPE" db "$DATA/webdb-one-c1-hosting.nettrace" --format json -o "$tmp/one.json"
expect 0 "gcdump-diff result (static-list leak)" -- "$PERFPIPE" gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump" --format json -o "$tmp/leak.json"
for f in n1 one leak; do
  expect 0 "candidates of $f" -- "$PERFPIPE" candidates "$tmp/$f.json" --top 50 --format json -o "$tmp/$f.cand.json"
done
rules_of() { # rules_of CANDIDATES.json -> "target<TAB>id,id" lines, then "own<TAB>id" lines
  python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["stages"][0]["tables"]}
cols = [c["name"] for c in t["candidates"]["columns"]]
for row, rules in zip(t["candidates"]["rows"], t["candidates"]["row_rules"]):
    r = dict(zip(cols, row))
    assert (r["rules"] == "none matched") == (not rules), r
    print(r["target"] + "\t" + ",".join(x["id"] + ":" + x["confidence"] for x in rules))
for row in t["rule_findings"]["rows"]:
    print("own\t" + row[1])
PY
}
rules_of "$tmp/n1.cand.json" >"$tmp/n1.rules"
if grep -P '^SELECT COUNT\(\*\) FROM "Posts".*\tef\.n-plus-one:high$' "$tmp/n1.rules" >/dev/null &&
   [ "$(grep -c 'ef\.' "$tmp/n1.rules")" -eq 1 ]; then
  ok "N+1 capture: the per-blog COUNT carries ef.n-plus-one (high), no other command a rule"
else
  ko "N+1 capture: rules"; sed 's/^/  /' "$tmp/n1.rules"
fi
rules_of "$tmp/one.cand.json" >"$tmp/one.rules"
if [ -s "$tmp/one.rules" ] && ! grep -qP '\t.+' "$tmp/one.rules"; then
  ok "healthy twin (one query per request): $(wc -l <"$tmp/one.rules") candidates, no rule fires"
else
  ko "healthy twin: a rule fired or no candidate"; sed 's/^/  /' "$tmp/one.rules"
fi
rules_of "$tmp/leak.cand.json" >"$tmp/leak.rules"
has "$tmp/leak.rules" "Workload.LeakedSession	heap.static-growth:low" "leak capture, two snapshots: the leaked type grew (heap.static-growth, low)"
python3 - "$tmp/leak.json" >"$tmp/py" 2>&1 <<'PY' && ok "leak capture: the gcdump-diff stage reports rule.heap.static-growth itself, no leak verdict" || { ko "leak: stage finding"; cat "$tmp/py"; }
import json, sys
d = json.load(open(sys.argv[1]))
codes = [f["code"] for s in d["stages"] for f in s["findings"]]
assert codes.count("rule.heap.static-growth") == 1 and "rule.leak.static-collection" not in codes, codes
PY
expect 0 "counters result (the leak's series)" -- "$PERFPIPE" counters-csv "$DATA/leak-counters.json" --format json -o "$tmp/leakc.json"
expect 0 "candidates of the snapshots and the series" -- "$PERFPIPE" candidates "$tmp/leak.json" "$tmp/leakc.json" --top 50 --format json -o "$tmp/leak2.cand.json"
rules_of "$tmp/leak2.cand.json" >"$tmp/leak2.rules"
has "$tmp/leak2.rules" "Workload.LeakedSession	leak.static-collection:high" "leak capture with a growing series: the leaked type carries leak.static-collection"

# the alloc capture: LINQ reached from GrowListsJoinLinq (Select/ToArray, the
# workload's own truth) is linq.hot-path; new string / new byte[] 64 KB (small
# object heap: by_type_frame_kind says Small) carry no rule, LOH churn included
expect 0 "alloc result (gc-verbose capture)" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format json -o "$tmp/alloc.json"
expect 0 "candidates of it" -- "$PERFPIPE" candidates "$tmp/alloc.json" --format json -o "$tmp/alloc.cand.json"
rules_of "$tmp/alloc.cand.json" >"$tmp/alloc.rules"
if grep -qx 'Workload.AllocScenario.GrowListsJoinLinq	linq.hot-path:medium' "$tmp/alloc.rules" &&
   grep -qx 'Workload.AllocScenario.MakeStrings	' "$tmp/alloc.rules" &&
   grep -qx 'Workload.AllocScenario.MakeBuffers	' "$tmp/alloc.rules"; then
  ok "alloc capture: GrowListsJoinLinq carries linq.hot-path; MakeStrings, MakeBuffers no rule"
else
  ko "alloc capture rules"; sed 's/^/  /' "$tmp/alloc.rules"
fi
python3 - "$tmp/alloc.json" >"$tmp/py" 2>&1 <<'PY' && ok "alloc: by_type_frame_kind sums to by_type_frame, MakeBuffers' byte[] all Small" || { ko "by_type_frame_kind"; cat "$tmp/py"; }
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x["rows"] for x in d["stages"][0]["tables"]}
pair = {(r[0], r[1]): r[2] for r in t["by_type_frame"]}
kinds = {}
for ty, fr, kind, b, s, th in t["by_type_frame_kind"]:
    assert 1 <= th <= s, ("threads: 1 to samples, every kind", ty, fr, kind, th, s)
    kinds[(ty, fr)] = kinds.get((ty, fr), 0) + b
for k, b in pair.items():
    assert kinds.get(k) == b or k not in kinds, (k, b, kinds.get(k))
mb = [r for r in t["by_type_frame_kind"] if r[1] == "Workload.AllocScenario.MakeBuffers" and r[0] == "System.Byte[]"]
assert mb and all(r[2] == "Small" for r in mb), mb
PY

# the LOH fix-shape captures: the large byte[] row of each twin names as many
# allocating threads as the workload ran (its clients plus Main's warm-up calls);
# per call (CopyNewBuffer) that is about calls / threads large ticks each, pooled
# (CopyPooledBuffer) about one: the evidence mem.loh-array-churn judges by
for v in bad good; do
  [ -f "$DATA/fix-loh-$v.nettrace" ] || { ko "no fix-loh-$v.nettrace in $DATA"; continue; }
  expect 0 "alloc of fix-loh-$v" -- "$PERFPIPE" alloc "$DATA/fix-loh-$v.nettrace" --top 0 --format json -o "$tmp/loh-$v.json"
  python3 - "$tmp/loh-$v.json" "$DATA/fix-loh-$v.truth.json" >"$tmp/py" 2>&1 <<'PY' && ok "fix-loh-$v: by_type_frame_kind threads = clients + 1 ($(cat "$tmp/py"))" || { ko "fix-loh-$v threads"; cat "$tmp/py"; }
import json, sys
d, truth = (json.load(open(p)) for p in sys.argv[1:3])
t = {x["name"]: x["rows"] for x in d["stages"][0]["tables"]}
big = [r for r in t["by_type_frame_kind"] if r[1] == truth["method"] and r[0] == "System.Byte[]" and r[2] == "Large"]
assert len(big) == 1, big
ty, fr, kind, b, samples, threads = big[0]
assert threads == truth["clients"] + 1, (threads, truth["clients"])
per = samples / threads
if truth["variant"] == "bad":
    assert per >= truth["calls"] / (truth["clients"] + 1) * 0.5, (per, truth["calls"])
else:
    assert per <= 2, per
print("%d large ticks, %d threads, %.1f per thread" % (samples, threads, per))
PY
done

# ---- user rules: picked up, validated, override by id ----
mkdir -p "$HOME/.config/perfpipe/rules"
cat >"$HOME/.config/perfpipe/rules/team.yaml" <<'EOF'
version: 1
rules:
  - id: ef.n-plus-one
    title: Our N+1
    axis: time
    confidence: medium
    fix: Use the BlogStats view (team override).
    doc: https://wiki.example.com/perf/blogstats
    match:
      analyzer: db
      table: n_plus_one
      target: command
      where:
        per_request: { min: 2 }
  - id: team.count-per-blog
    title: COUNT per blog
    axis: time
    confidence: low
    fix: Count all blogs in one GROUP BY.
    doc: https://wiki.example.com/perf/group-by
    match:
      analyzer: db
      table: by_command
      target: command
      where:
        command: { regex: '^SELECT COUNT\(\*\)' }
        count: { min: 100 }
EOF
expect 0 "rules show: the user's file defines ef.n-plus-one" -- "$PERFPIPE" rules show ef.n-plus-one
has "$tmp/out" "$HOME/.config/perfpipe/rules/team.yaml:3" "rules show names the user's file and line"
expect 0 "candidates with the user's rules" -- "$PERFPIPE" candidates "$tmp/n1.json" --format json -o "$tmp/n1.user.json"
rules_of "$tmp/n1.user.json" >"$tmp/n1.user.rules"
has "$tmp/n1.user.rules" "ef.n-plus-one:medium,team.count-per-blog:low" "user rule overrides the shipped one by id and adds its own"
python3 - "$tmp/n1.user.json" >"$tmp/py" 2>&1 <<'PY' && ok "the override's fix text is the one shown" || { ko "override fix"; cat "$tmp/py"; }
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["stages"][0]["tables"]}
fixes = [x["fix"] for rr in t["candidates"]["row_rules"] for x in rr if x["id"] == "ef.n-plus-one"]
assert fixes == ["Use the BlogStats view (team override)."], fixes
PY
# $XDG_CONFIG_HOME is honoured (and then ~/.config is not read)
mkdir -p "$tmp/xdg/perfpipe/rules"
printf 'version: 1\nrules:\n  - id: ef.n-plus-one\n    disabled: true\n' >"$tmp/xdg/perfpipe/rules/off.yaml"
XDG_CONFIG_HOME="$tmp/xdg" "$PERFPIPE" candidates "$tmp/n1.json" --format json -o "$tmp/n1.xdg.json" 2>"$tmp/err" &&
  rules_of "$tmp/n1.xdg.json" >"$tmp/n1.xdg.rules"
if [ -s "$tmp/n1.xdg.rules" ] && ! grep -q 'ef.n-plus-one\|team\.' "$tmp/n1.xdg.rules"; then
  ok "XDG_CONFIG_HOME: its rules are read (disabled: true turns ef.n-plus-one off), ~/.config is not"
else
  ko "XDG_CONFIG_HOME"; cat "$tmp/err" "$tmp/n1.xdg.rules" 2>/dev/null | sed 's/^/  /'
fi
# a bad user rule stops every command that uses rules, with its position
printf 'version: 1\nrules:\n  - id: team.bad\n    axis: allocation\n    titel: x\n' >"$HOME/.config/perfpipe/rules/zz-bad.yaml"
want="$HOME/.config/perfpipe/rules/zz-bad.yaml:5:5: unknown key 'titel'"
expect 2 "a bad user rule: rules validate (the rules in force) exits 2" -- "$PERFPIPE" rules validate
has "$tmp/err" "$want" "rules validate names FILE:LINE:COLUMN of the bad user rule"
expect 2 "a bad user rule: candidates exits 2" -- "$PERFPIPE" candidates "$tmp/n1.json"
has "$tmp/err" "$want" "candidates names FILE:LINE:COLUMN"
expect 2 "a bad user rule: a run exits 2 before reading the capture" -- "$PERFPIPE" db "$DATA/webdb-one-c1-hosting.nettrace"
has "$tmp/err" "$want" "run names FILE:LINE:COLUMN"
expect 0 "candidates --no-rules ignores rule files" -- "$PERFPIPE" candidates "$tmp/n1.json" --no-rules

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
