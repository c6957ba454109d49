#!/bin/bash
# alloc's by_stack is a ranking, not a dump: the analyzer keeps the
# top-stacks heaviest stacks (1000 by default) and sums the rest in one last
# row "[other stacks]" with a finding alloc.stacks_cut saying how many and
# what share; `perfpipe alloc FILE` in the table or markdown format keeps
# `top` of them (as cpu does); folded and speedscope get every stack; a
# given top-stacks wins. The rows kept are the whole list's first rows, and
# nothing else in the document moves but by_type_stack (the same stacks per
# allocated type, cut the same way).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
f="$DATA/fix-jsonoptions-bad.nettrace"     # 95 distinct stacks
[ -f "$f" ] || { echo "SKIP: fix-jsonoptions-bad.nettrace absent"; exit 77; }

rows() { awk -v t="$1" '$0 ~ "^"t" "{on=1;getline;next} on&&/^$/{exit} on&&/^  /{n++} END{print n+0}' "$2"; }

"$PERFPIPE" alloc "$f" --format json --option top-stacks=0 -o "$tmp/all.json" 2>/dev/null || ko "json top-stacks=0 run"
"$PERFPIPE" alloc "$f" --format json -o "$tmp/default.json" 2>/dev/null || ko "json run"
"$PERFPIPE" alloc "$f" --format json --option top-stacks=10 -o "$tmp/ten.json" 2>/dev/null || ko "json top-stacks=10 run"
"$PERFPIPE" alloc "$f" --wide >"$tmp/table" 2>/dev/null || ko "table run"
python3 - "$tmp/all.json" "$tmp/default.json" "$tmp/ten.json" "$tmp/table" <<'PY' >"$tmp/py" 2>&1
import json, sys
full, dflt, ten = (json.load(open(p)) for p in sys.argv[1:4])
table = open(sys.argv[4], encoding="utf-8").read()
st = lambda d: d["stages"][0]
tabs = lambda d: {t["name"]: t for t in st(d)["tables"]}
fin = lambda d: {x["code"]: x for x in st(d)["findings"]}
tf, td, tt = tabs(full), tabs(dflt), tabs(ten)
bad = []
allrows = tf["by_stack"]["rows"]
n = len(allrows)
if n <= 25: bad.append("the fixture has only %d stacks: nothing to cut" % n)
if td["by_stack"]["rows"] != allrows: bad.append("the default (1000) cut %d stacks" % n)
if "alloc.stacks_cut" in fin(dflt) or "alloc.stacks_cut" in fin(full): bad.append("stacks_cut without a cut")
kept, other = tt["by_stack"]["rows"][:10], tt["by_stack"]["rows"][10:]
if kept != allrows[:10]: bad.append("top-stacks=10 rows are not the first 10 of every stack")
if len(other) != 1 or other[0][0] != "[other stacks]": bad.append("no single [other stacks] row: %r" % other[:2])
else:
    if other[0][1] != sum(r[1] for r in allrows[10:]): bad.append("[other stacks] bytes != the rest's")
    if other[0][2] != sum(r[2] for r in allrows[10:]): bad.append("[other stacks] samples != the rest's")
msg = fin(ten).get("alloc.stacks_cut", {}).get("message", "")
if ("10 heaviest of %d" % n) not in msg or ("other %d " % (n - 10)) not in msg: bad.append("finding: %r" % msg)
# by_type_stack (a stack per allocated type: the rules' callee_types) is cut the same way
ta = tf["by_type_stack"]["rows"]
kt, ot = tt["by_type_stack"]["rows"][:10], tt["by_type_stack"]["rows"][10:]
if kt != ta[:10]: bad.append("by_type_stack: top-stacks=10 rows are not the first 10")
if len(ot) != 1 or ot[0][0] != "[other stacks]" or ot[0][1] != sum(r[1] for r in ta[10:]) or \
        ot[0][2] != sum(r[2] for r in ta[10:]):
    bad.append("by_type_stack: no single [other stacks] row holding the rest: %r" % ot[:2])
for name in tf:
    if name not in ("by_stack", "by_type_stack") and tf[name] != tt[name]: bad.append("table %s moved" % name)
if st(full)["totals"] != st(ten)["totals"]: bad.append("totals moved")
for r in allrows[:25]:
    if r[0] not in table: bad.append("table lacks stack %s" % r[0][:60]); break
if allrows[-1][0] in table: bad.append("table shows the last of %d stacks" % n)
if "[other stacks]" not in table: bad.append("table lacks the [other stacks] row")
print("by_stack: %d stacks" % n)
if bad: print("\n".join(bad)); sys.exit(1)
PY
[ $? = 0 ] && ok "by_stack cut: first rows kept, the rest in one row, finding, nothing else moved" || ko "cut by_stack"
sed 's/^/  /' "$tmp/py"
n=$(rows by_stack "$tmp/table")
[ "$n" = 26 ] && ok "table: 25 stacks and [other stacks]" || ko "table by_stack has $n lines"
ns=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len([t for t in d["stages"][0]["tables"] if t["name"]=="by_stack"][0]["rows"]))' "$tmp/all.json")
"$PERFPIPE" alloc "$f" --format folded >"$tmp/folded" 2>/dev/null
nf=$(wc -l <"$tmp/folded")
[ "$nf" = "$ns" ] && ! grep -q 'other stacks' "$tmp/folded" && ok "folded: all $ns stacks" || ko "folded: $nf lines for $ns stacks"
"$PERFPIPE" alloc "$f" --format folded --option top-stacks=5 >"$tmp/f5" 2>/dev/null
[ "$(wc -l <"$tmp/f5")" = 6 ] && grep -q '^\[other stacks\] ' "$tmp/f5" && ok "folded: a given top-stacks wins" ||
  ko "folded --option top-stacks=5: $(wc -l <"$tmp/f5") lines"
"$PERFPIPE" alloc "$f" --option top-stacks=3 >"$tmp/t3" 2>/dev/null
[ "$(rows by_stack "$tmp/t3")" = 4 ] && ok "table: --option top-stacks=3 wins over the quick default" || ko "top-stacks=3 not honoured"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
