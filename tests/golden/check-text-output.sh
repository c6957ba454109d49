#!/bin/bash
# Text output for people, on every analyzer's test-bed captures: no number
# in scientific notation in table or markdown; --wide keeps every stack and
# name whole (each string of the JSON document appears verbatim); a narrow
# $COLUMNS fits table rows to it and cuts from the front (the leaf stays);
# --top limits by_stack too; CSV: --table gives one plain table, -o DIR/
# one file per table plus totals.csv and findings.csv, units in headers.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
py=$(command -v python3) || { echo "SKIP: python3 is needed to read the JSON documents"; exit 77; }

# analyzer and its inputs, one run per line
runs=(
  "alloc $DATA/alloc-gcverbose.nettrace"
  "alloc $DATA/alloc-envvar.nettrace"
  "cpu $DATA/cpu-sampled.nettrace"
  "cpu $DATA/web-sampled-db.nettrace.zst"
  "db $DATA/db-database.nettrace.zst"
  "counters-csv $DATA/leak-counters.csv"
  "counters-csv $DATA/churn-counters.json"
  "gcdump $DATA/leak-after.gcdump"
  "gcdump-diff $DATA/leak-before.gcdump $DATA/leak-after.gcdump"
  "spans $DATA/web-spans.otlp.json"
)
i=0
for r in "${runs[@]}"; do
  i=$((i + 1))
  set -- $r
  name="$1 $(basename "${@: -1}")"
  # the quick path's table holds top-stacks=top rows of by_stack and no
  # by_thread_stack (cli/quick_options.c): the json to compare holds the same
  same=(); [ "$1" = cpu ] && same=(--option top-stacks=25 --option thread-stacks=false)
  [ "$1" = alloc ] && same=(--option top-stacks=25)
  "$PERFPIPE" "$@" "${same[@]}" --format json -o "$tmp/$i.json" 2>"$tmp/err" ||
    { ko "$name: json run failed: $(head -1 "$tmp/err")"; continue; }
  for fmt in table markdown; do
    COLUMNS=100 "$PERFPIPE" "$@" --format $fmt >"$tmp/$i.$fmt" 2>/dev/null
    if grep -nE '(^|[^0-9A-Za-z_.])[0-9]+(\.[0-9]+)?e[+-][0-9]' "$tmp/$i.$fmt" >"$tmp/sci"; then
      ko "$name $fmt: scientific notation: $(head -1 "$tmp/sci")"
    else ok "$name $fmt: no scientific notation"; fi
  done
  # Table rows (two-space indent, not inputs) fit 100 columns where the
  # numbers alone do (numbers are never cut: db, counters and gcdump-diff
  # tables have more numeric columns than 100 characters hold).
  case $1 in db|counters-csv|gcdump-diff) continue_fit=0 ;; *) continue_fit=1 ;; esac
  if [ $continue_fit -eq 0 ]; then :
  elif awk '/^inputs:/{inp=1;next} /^$/{inp=0} !inp && /^  / && length($0) > 100 {print; exit 1}' \
       "$tmp/$i.table" >"$tmp/long"; then ok "$name: rows fit COLUMNS=100"
  else ko "$name: a row is wider than COLUMNS=100: $(cut -c1-120 "$tmp/long")"; fi
  COLUMNS=60 "$PERFPIPE" "$@" --wide >"$tmp/$i.wide" 2>/dev/null
  "$py" - "$tmp/$i.json" "$tmp/$i.wide" <<'PY' >"$tmp/miss"
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2], encoding="utf-8").read()
for st in doc["stages"]:
    for t in st.get("tables", []):
        for row in t["rows"]:
            for cell in row:
                if isinstance(cell, str) and " ".join(cell.split()) not in text:
                    print(t["name"], cell[:100]); sys.exit(0)
PY
  if [ -s "$tmp/miss" ]; then ko "$name --wide: a cell is cut: $(head -1 "$tmp/miss")"
  else ok "$name --wide: every string cell whole"; fi
done

# Narrow terminal: stacks cut from the front, the leaf frame stays.
COLUMNS=80 "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" >"$tmp/cpu80" 2>/dev/null
if grep -A3 '^by_stack' "$tmp/cpu80" | tail -n +3 | grep -q '^  \.\.\..*\.[A-Za-z]*  '; then ok "COLUMNS=80: stacks keep their leaf"
else ko "COLUMNS=80: stacks are not cut from the front"; grep -A3 '^by_stack' "$tmp/cpu80"; fi
# --top applies to by_stack, and says what it left out.
"$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --top 3 >"$tmp/top3" 2>/dev/null
n=$(awk '/^by_stack/{on=1;next} on&&/^$/{exit} on&&/^  /{n++} END{print n+0}' "$tmp/top3")
[ "$n" -eq 5 ] && grep -q 'more rows not shown' "$tmp/top3" && ok "--top 3 limits by_stack (header, 3 rows, a note)" ||
  ko "--top 3: by_stack shows $n lines"

# CSV for spreadsheets.
"$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format csv --table by_method >"$tmp/one.csv" 2>/dev/null
head -1 "$tmp/one.csv" | grep -q '^method,exclusive,inclusive,exclusive_ms,inclusive_ms,share_pct' &&
  ! grep -q '^#' "$tmp/one.csv" && ok "--table: one plain table, units in the header" ||
  ko "--table csv: $(head -1 "$tmp/one.csv")"
"$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format csv -o "$tmp/csvdir/" 2>"$tmp/err" ||
  ko "csv -o DIR/ failed: $(head -1 "$tmp/err")"
"$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format json -o "$tmp/a.json" 2>/dev/null
"$py" - "$tmp/a.json" "$tmp/csvdir" <<'PY' >"$tmp/csvcheck"
import csv, json, os, sys
doc = json.load(open(sys.argv[1])); d = sys.argv[2]
st = doc["stages"][0]
for t in st["tables"]:
    rows = list(csv.reader(open(os.path.join(d, t["name"] + ".csv"), newline="")))
    if len(rows) != len(t["rows"]) + 1: print("rows", t["name"], len(rows)); sys.exit()
    for got, want in zip(rows[1:], t["rows"]):
        for g, w in zip(got, want):
            if w is None: w = ""
            if (float(g) != w) if isinstance(w, (int, float)) and not isinstance(w, bool) else (g != w):
                print("cell", t["name"], g, w); sys.exit()
tot = list(csv.reader(open(os.path.join(d, "totals.csv"), newline="")))
if tot[0] != ["stage", "name", "type", "value"] or len(tot) - 1 != len(st["totals"]): print("totals", tot[:2]); sys.exit()
fin = list(csv.reader(open(os.path.join(d, "findings.csv"), newline="")))
if fin[0] != ["stage", "severity", "code", "message"] or len(fin) - 1 != len(st["findings"]): print("findings", fin[:2]); sys.exit()
if "share_pct" not in open(os.path.join(d, "by_type.csv")).readline(): print("no share_pct"); sys.exit()
print("ok")
PY
[ "$(cat "$tmp/csvcheck")" = ok ] && ok "csv -o DIR/: one file per table + totals + findings, equal to the JSON" ||
  ko "csv -o DIR/: $(cat "$tmp/csvcheck")"

# A heap as a flame graph: gcdump's root paths weighted by each listed
# type's bytes; the leaked Byte[] sits under Workload.LeakedSession, and the
# lines re-sum to the listed types' bytes of the JSON document.
"$PERFPIPE" gcdump "$DATA/leak-after.gcdump" --format folded >"$tmp/heap.folded" 2>"$tmp/err" ||
  ko "gcdump folded: $(head -1 "$tmp/err")"
"$PERFPIPE" gcdump "$DATA/leak-after.gcdump" --format json -o "$tmp/heap.json" 2>/dev/null
want=$("$py" -c '
import json, sys
st = json.load(open(sys.argv[1]))["stages"][0]
t = {x["name"]: x for x in st["tables"]}
b = {r[0]: r[2] for r in t["by_type"]["rows"]}
print(sum(b[r[0]] for r in t["paths"]["rows"] if r[0] in b and b[r[0]] > 0))' "$tmp/heap.json")
got=$(awk '{s += $NF} END {print s}' "$tmp/heap.folded")
[ "$got" = "$want" ] && [ "$got" -gt 0 ] && ok "gcdump folded re-sums to the listed types' $want bytes" ||
  ko "gcdump folded sums to $got, listed types hold $want"
grep -q ';Workload.LeakedSession;System.Byte\[\] [0-9]*$' "$tmp/heap.folded" &&
  grep -q '(Bytes > 100K);Workload.LeakedSession;' "$tmp/heap.folded" &&
  ok "gcdump folded: the leaked bytes under their owner, size buckets kept whole" ||
  ko "gcdump folded: leak path not found"
"$PERFPIPE" gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump" --format svg -o "$tmp/growth.svg" 2>"$tmp/err" &&
  grep -q 'data-n="Workload.LeakedSession"' "$tmp/growth.svg" && ok "gcdump-diff svg: growth by root path" ||
  ko "gcdump-diff svg: $(head -1 "$tmp/err")"
# Counters as a chart: one series per footprint counter, trend and verdict.
"$PERFPIPE" counters-csv "$DATA/leak-counters.csv" --format svg -o "$tmp/counters.svg" 2>"$tmp/err" &&
  [ "$(grep -c '<g class="series' "$tmp/counters.svg")" -ge 3 ] && grep -q 'class="trend"' "$tmp/counters.svg" &&
  grep -q 'leak suspect' "$tmp/counters.svg" && ok "counters svg: footprint charts with trends and the leak verdict" ||
  ko "counters svg: $(head -1 "$tmp/err")"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
