#!/bin/bash
# `perfpipe cpu FILE` builds only the stack tables its one output shows
# (cli/quick_options.c): the text report holds `top` rows of by_stack and no
# by_thread_stack; json, csv and speedscope keep both whole; the analyzer's
# own defaults (perfpipe run, --option) are untouched. The stacks that remain
# are the same rows, in the same order, with the same figures.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
f="$DATA/cpu-sampled.nettrace"
[ -f "$f" ] || { echo "SKIP: cpu-sampled.nettrace absent"; exit 77; }

# rows TABLE FILE: data rows of a text table section (not its header)
rows() { awk -v t="$1" '$0 ~ "^"t" "{on=1;getline;next} on&&/^$/{exit} on&&/^  /{n++} END{print n+0}' "$2"; }

"$PERFPIPE" cpu "$f" --format json -o "$tmp/full.json" 2>/dev/null || ko "json run"
"$PERFPIPE" cpu "$f" --wide >"$tmp/table" 2>/dev/null || ko "table run"
"$PERFPIPE" cpu "$f" --wide --top 0 >"$tmp/top0" 2>/dev/null || ko "--top 0 run"
"$PERFPIPE" cpu "$f" --format json --option top-stacks=25 --option thread-stacks=false \
  -o "$tmp/trim.json" 2>/dev/null || ko "trimmed json run"
python3 - "$tmp/full.json" "$tmp/trim.json" "$tmp/table" "$tmp/top0" <<'PY' >"$tmp/py" 2>&1
import json, sys
full, trim = (json.load(open(p)) for p in sys.argv[1:3])
table, top0 = (open(p, encoding="utf-8").read() for p in sys.argv[3:5])
tf = {t["name"]: t for t in full["stages"][0]["tables"]}
tt = {t["name"]: t for t in trim["stages"][0]["tables"]}
bad = []
n = len(tf["by_stack"]["rows"])
if n <= 25: bad.append("the fixture has only %d stacks: nothing to trim" % n)
if "by_thread_stack" not in tf: bad.append("json lost by_thread_stack")
if "by_thread_stack" in tt: bad.append("thread-stacks=false kept by_thread_stack")
if tt["by_stack"]["rows"] != tf["by_stack"]["rows"][:25]: bad.append("trimmed by_stack is not the first 25 rows")
for name in ("running_stacks", "waiting_stacks"):
    if tt[name]["rows"] != tf[name]["rows"][:25]: bad.append("trimmed %s is not the first 25 rows" % name)
for name in tf:
    if name not in ("by_stack", "by_thread_stack", "running_stacks", "waiting_stacks") and tf[name] != tt[name]:
        bad.append("table %s moved" % name)
if full["stages"][0]["totals"] != trim["stages"][0]["totals"]: bad.append("totals moved")
# the text report: by_stack's 25 rows whole (--wide), by_thread_stack absent
for r in tt["by_stack"]["rows"]:
    if r[0] not in table: bad.append("table lacks stack %s" % r[0][:60]); break
if "\nby_thread_stack" in table: bad.append("table shows by_thread_stack")
if tf["by_stack"]["rows"][-1][0] in table: bad.append("table shows the last of %d stacks" % n)
if tf["by_stack"]["rows"][-1][0] not in top0: bad.append("--top 0 does not show every stack")
print("by_stack: %d stacks, 25 in the report" % n)
if bad: print("\n".join(bad)); sys.exit(1)
PY
[ $? = 0 ] && ok "text report: 25 stacks, no by_thread_stack; json whole; same rows" || ko "trimmed tables"
sed 's/^/  /' "$tmp/py"
n=$(rows by_stack "$tmp/table")
[ "$n" = 25 ] && ok "table shows 25 stacks" || ko "table by_stack has $n lines"

# speedscope keeps per-thread profiles, folded draws every running stack
# (the default flame table, running_stacks, threads merged)
"$PERFPIPE" cpu "$f" --format speedscope >"$tmp/ss.json" 2>/dev/null &&
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if len(d["profiles"]) > 2 else 1)' "$tmp/ss.json" &&
  ok "speedscope: one profile per thread" || ko "speedscope lost its per-thread profiles"
"$PERFPIPE" cpu "$f" --format folded >"$tmp/folded" 2>/dev/null
nf=$(wc -l <"$tmp/folded")
ns=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len({r[0] for r in [t for t in d["stages"][0]["tables"] if t["name"]=="running_stacks"][0]["rows"]}))' "$tmp/full.json")
[ "$nf" = "$ns" ] && ok "folded: all $ns stacks" || ko "folded: $nf lines for $ns stacks"
# a given option wins
"$PERFPIPE" cpu "$f" --format json --option thread-stacks=false -o "$tmp/user.json" 2>/dev/null
grep -q '"thread-stacks": "false"' "$tmp/user.json" && ! grep -q by_thread_stack "$tmp/user.json" &&
  ok "--option thread-stacks=false honoured in json" || ko "--option thread-stacks=false"
"$PERFPIPE" cpu "$f" --option top-stacks=3 >"$tmp/t3" 2>/dev/null
[ "$(rows by_stack "$tmp/t3")" = 3 ] && ok "--option top-stacks=3 wins over the quick default" || ko "top-stacks=3 not honoured"
"$PERFPIPE" cpu "$f" --option thread-stacks=maybe >/dev/null 2>"$tmp/err"
[ $? = 2 ] && grep -q thread-stacks "$tmp/err" && ok "a bad thread-stacks value is a usage error" || ko "thread-stacks=maybe accepted"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
