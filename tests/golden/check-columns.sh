#!/bin/bash
# Tables that fit (issue #40): `COLUMNS=100 perfpipe ANALYZER CAPTURE`
# prints no line over 100 characters for every analyzer on the test-bed
# captures and for candidates (cards); the least useful columns are left
# out and named ("left out to fit the width"); --wide keeps every column
# and every cell whole (the full SQL of the db fixture's top command is
# there). Characters, not bytes: "—" is one.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 counts the characters"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

longest() {  # longest FILE: "LEN: LINE" of the longest line, in characters; a line that is one
  # word (a documentation link) is printed whole, never cut (render_table.c, put_wrapped): left out
  python3 -c '
import sys
lines = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n")
         if " " in l.strip() or len(l) <= 100]
l = max(lines, key=len)
print(f"{len(l)}: {l[:60]}")' "$1"
}

runs=(
  "db db-database.nettrace.zst"
  "cpu cpu-sampled.nettrace"
  "alloc alloc-gcverbose.nettrace"
  "gc gc-gen2-ws.nettrace"
  "counters-csv leak-counters.csv"
  "gcdump leak-after.gcdump"
  "gcdump-diff leak-before.gcdump leak-after.gcdump"
  "spans web-spans.otlp.json"
  "load load/hey-bad.txt"
  "bench bench-alloc.report-full.json"
)
for r in "${runs[@]}"; do
  set -- $r
  a=$1; shift
  args=()
  for x in "$@"; do args+=("$DATA/$x"); done
  if ! COLUMNS=100 "$PERFPIPE" "$a" "${args[@]}" >"$tmp/$a.txt" 2>"$tmp/err"; then
    fail=$((fail + 1)); echo "FAIL: $a: $(head -1 "$tmp/err")"; continue
  fi
  "$PERFPIPE" "$a" "${args[@]}" --format json -o "$tmp/$a.json" 2>/dev/null
  l=$(longest "$tmp/$a.txt")
  if [ "${l%%:*}" -le 100 ]; then pass=$((pass + 1)); echo "PASS: $a: longest line ${l%%:*}"
  else fail=$((fail + 1)); echo "FAIL: $a: a line of $l"; fi
done

# candidates: cards, every line within the width
if COLUMNS=100 "$PERFPIPE" candidates "$tmp/alloc.json" "$tmp/cpu.json" "$tmp/db.json" >"$tmp/cand.txt" 2>"$tmp/err"; then
  l=$(longest "$tmp/cand.txt")
  if [ "${l%%:*}" -le 100 ] && grep -q '^#1 ' "$tmp/cand.txt" && grep -q '^    fix ' "$tmp/cand.txt"; then
    pass=$((pass + 1)); echo "PASS: candidates: cards, longest line ${l%%:*}"
  else fail=$((fail + 1)); echo "FAIL: candidates: no cards or a line of $l"; fi
else fail=$((fail + 1)); echo "FAIL: candidates: $(head -1 "$tmp/err")"; fi

# what was cut is named; --wide cuts nothing: the top command's SQL whole
sql=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for t in d["stages"][0]["tables"]:
    if t["name"] == "by_command":
        print(t["rows"][0][0]); break' "$tmp/db.json")
if grep -q 'left out to fit the width' "$tmp/db.txt" && ! grep -qF -- "$sql" "$tmp/db.txt"; then
  pass=$((pass + 1)); echo "PASS: db at 100 columns names the columns it left out"
else fail=$((fail + 1)); echo "FAIL: db at 100 columns: no 'left out' line, or the long SQL whole"; fi
COLUMNS=100 "$PERFPIPE" db "$DATA/db-database.nettrace.zst" --wide >"$tmp/wide.txt" 2>/dev/null
if grep -qF -- "$sql" "$tmp/wide.txt" && ! grep -q 'left out to fit' "$tmp/wide.txt"; then
  pass=$((pass + 1)); echo "PASS: --wide keeps every column and the SQL whole"
else fail=$((fail + 1)); echo "FAIL: --wide cut something"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
