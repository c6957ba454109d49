#!/bin/bash
# L1 verdicts end to end (issue #23): the bench analyzer and compare on the real
# BenchmarkDotNet exports of tests/benchmarks (tests/data/bench-*, see MANIFEST).
# alloc: FormatKeys allocates (1408 and 5632 B/op); noalloc: it does not; Checksum is
# the same code in both. Allocation changes are structural, Checksum is "same",
# --fail-on regression exits 1 for alloc-after-noalloc and 0 for the fix.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
A=$DATA/bench-alloc.report-full.json
B=$DATA/bench-noalloc.report-full.json

expect() {
  local code=$1 name=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$code" ]; then pass=$((pass + 1)); echo "PASS: $name"
  else fail=$((fail + 1)); echo "FAIL: $name: exit $got, expected $code"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fi
}
has() {
  if grep -qF -- "$2" "$1"; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: '$2' not in $(basename "$1")"; head -5 "$1" | sed 's/^/  /'; fi
}
hasnt() {
  if ! grep -qF -- "$2" "$1"; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: '$2' found in $(basename "$1")"; grep -F -- "$2" "$1" | head -3 | sed 's/^/  /'; fi
}
# jq-free JSON checks
py() { python3 -c "$@"; }
[ -f "$A" ] && [ -f "$B" ] || { echo "SKIP: no bench fixtures"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 needed"; exit 77; }

expect 0 "bench on the alloc export" -- "$PERFPIPE" bench "$A" --format json -o "$tmp/a.json"
expect 0 "bench on the noalloc export" -- "$PERFPIPE" bench "$B" --format json -o "$tmp/b.json"
expect 0 "plugins lists bench" -- "$PERFPIPE" plugins
has "$tmp/out" "bench" "bench is listed"

# The analyzer's rows: the figures are BenchmarkDotNet's own (markdown table, exact).
for v in alloc noalloc; do
  expect 0 "rows of $v equal BenchmarkDotNet's markdown Allocated column" -- py "
import json, re, sys
doc = json.load(open('$tmp/' + {'alloc': 'a', 'noalloc': 'b'}['$v'] + '.json'))
st = doc['stages'][0]
t = {x['name']: x for x in st['tables']}['benchmarks']
cols = [c['name'] for c in t['columns']]
md = {}
head = None
for line in open('$DATA/bench-$v.report-github.md'):
    if not line.startswith('|'): continue
    cells = [c.strip().strip('*').strip() for c in line.strip().strip('|').split('|')]
    if head is None: head = cells; continue
    if set(cells[0]) <= set('-:'): continue
    r = dict(zip(head, cells))
    a = r['Allocated']
    md[(r['Method'], 'N=' + r['N'])] = 0 if a == '-' else int(a.replace(' B', ''))
assert len(md) == 4, md
for row in t['rows']:
    r = dict(zip(cols, row))
    key = (r['benchmark'].rsplit('.', 1)[1], r['params'])
    assert md[key] == r['allocated_b_op'], (key, md[key], r['allocated_b_op'])
    assert r['iterations'] == 3 and r['job'] == 'ShortRun', r
assert t['hints']['compare'] == 'bench', t.get('hints')
its = {x['name']: x for x in st['tables']}['iterations']
assert len(its['rows']) == 12, len(its['rows'])
"
done
has "$DATA/bench-alloc.report-github.md" "1408 B" "the markdown table itself says 1408 B"

# BenchmarkDotNet's own warning for a ShortRun: too few iterations.
expect 0 "bench as a table" -- "$PERFPIPE" bench "$A"
has "$tmp/out" "bench.too_few_iterations" "a ShortRun is flagged: too few iterations"
hasnt "$tmp/out" "bench.debug_build" "a Release build is not flagged as DEBUG"
hasnt "$tmp/out" "bench.debugger_attached" "no debugger is reported"

# The fix: noalloc after alloc.
expect 0 "compare alloc -> noalloc passes --fail-on regression" -- \
  "$PERFPIPE" compare "$tmp/a.json" "$tmp/b.json" --fail-on regression --format json -o "$tmp/fix.json"
expect 0 "fix verdicts" -- py "
import json
d = json.load(open('$tmp/fix.json'))
t = [x for x in d['stages'][0]['tables'] if x['name'] == 'benchmarks'][0]
assert not [x for x in d['stages'][0]['tables'] if x['name'] == 'iterations'], 'samples joined row by row'
cols = [c['name'] for c in t['columns']]
rows = [dict(zip(cols, r)) for r in t['rows']]
assert len(rows) == 4
for r in rows:
    m = r['benchmark'].rsplit('.', 1)[1]
    if m == 'FormatKeys':
        assert r['allocation'] == 'shrank' and r['status'].startswith('allocation shrank'), r
        assert r['allocated_b_op_cand'] == 0 and r['allocated_b_op_base'] > 0, r
    else:
        assert r['status'] == 'same' and r['time'] == 'same' and r['allocation'] == 'same', r
        assert r['p_value'] >= 0.05, r
codes = [f['code'] for f in d['stages'][0]['findings']]
assert 'compare.structural' in codes and 'compare.same' in codes, codes
"
# The regression: alloc after noalloc.
expect 1 "compare noalloc -> alloc fails --fail-on regression" -- \
  "$PERFPIPE" compare "$tmp/b.json" "$tmp/a.json" --fail-on regression
has "$tmp/out" "allocation grew" "the regression is named"
has "$tmp/out" "compare.structural" "allocation change is a structural verdict"
expect 0 "without --fail-on, the same compare exits 0" -- "$PERFPIPE" compare "$tmp/b.json" "$tmp/a.json"
# A run against itself: every case is the same.
expect 0 "compare a run with itself" -- "$PERFPIPE" compare "$tmp/a.json" "$tmp/a.json" --fail-on regression
hasnt "$tmp/out" "compare.structural" "no structural verdict against itself"
has "$tmp/out" "4 cases the same" "all four cases the same"

# CSV summary fallback: read, allocation compared exactly, no time verdict.
expect 0 "bench on the CSV summary" -- "$PERFPIPE" bench "$DATA/bench-alloc.report.csv" --format json -o "$tmp/ca.json"
expect 0 "bench on the other CSV summary" -- "$PERFPIPE" bench "$DATA/bench-noalloc.report.csv" --format json -o "$tmp/cb.json"
expect 1 "CSV compare still gates the allocation" -- "$PERFPIPE" compare "$tmp/cb.json" "$tmp/ca.json" --fail-on regression
has "$tmp/out" "compare.no_samples" "CSV rows get no time verdict"

# Damage: cut inside the third benchmark -> two whole ones and a warning with the byte.
off=$(grep -bo '"DisplayInfo"' "$A" | sed -n 3p | cut -d: -f1)
head -c $((off + 100)) "$A" >"$tmp/cut.json"
expect 0 "truncated export is read" -- "$PERFPIPE" bench "$tmp/cut.json" --format json -o "$tmp/cut-result.json"
has "$tmp/err" "truncated at byte" "truncation warns with the byte offset"
expect 0 "the truncated result says where it stopped" -- py "
import json
d = json.load(open('$tmp/cut-result.json'))
i = d['inputs'][0]
assert i['truncated_at'] is not None and i['benchmarks'] == 2, i
assert any('truncated at byte' in w if isinstance(w, str) else 'truncated at byte' in json.dumps(w) for w in i['warnings']), i['warnings']
"
head -c 300 "$A" >"$tmp/head.json"
expect 3 "export cut before any benchmark is refused" -- "$PERFPIPE" bench "$tmp/head.json" -o "$tmp/never.json" --format json
has "$tmp/err" "head.json:" "refusal names the file"
[ ! -e "$tmp/never.json" ] && { pass=$((pass + 1)); echo "PASS: no partial output"; } ||
  { fail=$((fail + 1)); echo "FAIL: partial output written"; }
[ "$(wc -l <"$tmp/err")" -eq 1 ] && { pass=$((pass + 1)); echo "PASS: refusal is one line"; } ||
  { fail=$((fail + 1)); echo "FAIL: refusal is not one line"; cat "$tmp/err"; }
printf '{"resourceSpans": []}' >"$tmp/spans.json"
expect 3 "a span export is not a BenchmarkDotNet export" -- "$PERFPIPE" bench "$tmp/spans.json"
has "$tmp/err" "this is a spans JSON" "wrong kind says what the file is"
sed 's/"BytesAllocatedPerOperation":1408/"BytesAllocatedPerOperation":"1408"/' "$A" >"$tmp/type.json"
expect 3 "a wrong-typed field is refused" -- "$PERFPIPE" bench "$tmp/type.json"
has "$tmp/err" "Memory.BytesAllocatedPerOperation: expected an integer" "the field is named"
grep -qE 'type\.json:[0-9]+:[0-9]+:' "$tmp/err" && { pass=$((pass + 1)); echo "PASS: FILE:LINE:COLUMN"; } ||
  { fail=$((fail + 1)); echo "FAIL: no FILE:LINE:COLUMN"; cat "$tmp/err"; }

# Candidates point at the benchmark that covers them (knobs benchmark, benchmark_covers).
if [ -f "$DATA/alloc-gcverbose.nettrace" ]; then
  expect 0 "L3 run naming its benchmark" -- "$PERFPIPE" run alloc --input trace="$DATA/alloc-gcverbose.nettrace" \
    --set benchmark=Perfpipe.Benchmarks.KeyBench.FormatKeys --set benchmark_covers=MakeStrings --format json -o "$tmp/l3.json"
  expect 0 "candidates of it" -- "$PERFPIPE" candidates "$tmp/l3.json" --top 3 --format json -o "$tmp/cand.json"
  expect 0 "only the covered candidate's plan names the benchmark" -- py "
import json
d = json.load(open('$tmp/cand.json'))
t = [x for x in d['stages'][0]['tables'] if x['name'] == 'candidates'][0]
cols = [c['name'] for c in t['columns']]
rows = [dict(zip(cols, r)) for r in t['rows']]
plans = {r[cols[2]]: r[cols[6]] for r in rows}
hit = [k for k, v in plans.items() if 'rerun benchmark Perfpipe.Benchmarks.KeyBench.FormatKeys' in v]
assert hit == ['Workload.AllocScenario.MakeStrings'], hit
assert 'allocated bytes/op falls' in plans['Workload.AllocScenario.MakeStrings']
"
  expect 0 "examples/l1-l3-l1 passes on the fix" -- env L1L3_DIR="$tmp/l1l3" PERFPIPE="$PERFPIPE" \
    bash "$SRC/examples/l1-l3-l1/l1-l3-l1.sh" "$A" "$DATA/alloc-gcverbose.nettrace" "$B" \
    Perfpipe.Benchmarks.KeyBench.FormatKeys MakeStrings
  has "$tmp/l1l3/candidates.md" "then L1: rerun benchmark" "the example's candidates name the benchmark"
  expect 1 "examples/l1-l3-l1 fails on the regression" -- env L1L3_DIR="$tmp/l1l3r" PERFPIPE="$PERFPIPE" \
    bash "$SRC/examples/l1-l3-l1/l1-l3-l1.sh" "$B" "$DATA/alloc-gcverbose.nettrace" "$A" \
    Perfpipe.Benchmarks.KeyBench.FormatKeys
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
