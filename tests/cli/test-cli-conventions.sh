#!/bin/bash
# The command line's conventions and its messages: each error blames what
# the user typed (the flag, not the pipeline file it was merged into) with
# the documented exit code; `help CMD` is `CMD --help`; `--` ends options;
# --version names the licence. Runs on the committed captures.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
FIXTURES=${PP_BUILDDIR:?}/tests/plugins/.libs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
T=$DATA/alloc-gcverbose.nettrace
T2=$DATA/alloc-gcverbose-skip-buffers.nettrace

expect() {  # expect CODE NAME -- CMD...
  local code=$1 name=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$code" ]; then pass=$((pass + 1)); echo "PASS: $name"
  else fail=$((fail + 1)); echo "FAIL: $name: exit $got, expected $code"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fi
}
has() {  # has FILE NEEDLE NAME
  if grep -qF -- "$2" "$1"; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: '$2' not in $(basename "$1")"; head -5 "$1" | sed 's/^/  /'; fi
}
hasnt() {  # hasnt FILE NEEDLE NAME
  if grep -qF -- "$2" "$1"; then fail=$((fail + 1)); echo "FAIL: $3: '$2' in $(basename "$1")"; head -5 "$1" | sed 's/^/  /'
  else pass=$((pass + 1)); echo "PASS: $3"; fi
}
one_line() {
  local n; n=$(wc -l <"$1")
  if [ "$n" -eq 1 ]; then pass=$((pass + 1)); echo "PASS: $2"
  else fail=$((fail + 1)); echo "FAIL: $2: $n lines"; head -5 "$1" | sed 's/^/  /'; fi
}

# --- CLI options are validated as CLI options.
expect 2 "--top abc is a usage error" -- "$PERFPIPE" alloc "$T" --top abc
has "$tmp/err" "perfpipe: option --top expects an integer, got 'abc'" "--top abc: the flag is blamed"
hasnt "$tmp/err" ".yaml" "--top abc: no pipeline file blamed"
one_line "$tmp/err" "--top abc: one line"
expect 2 "--top -3 is a usage error" -- "$PERFPIPE" cpu "$T" --top -3
has "$tmp/err" "option --top expects an integer >= 0" "--top -3: the range is said"
expect 2 "--from soon is a usage error" -- "$PERFPIPE" cpu "$T" --from soon
has "$tmp/err" "option --from expects a number" "--from: the flag is blamed"
expect 2 "run: --top abc is a usage error too" -- "$PERFPIPE" run alloc --input trace="$T" --top abc
has "$tmp/err" "option --top expects an integer" "run --top abc: the flag is blamed"

# --- an analyzer option that does not exist: the analyzer has none.
expect 2 "--option view=managed on alloc" -- "$PERFPIPE" alloc "$T" --option view=managed
has "$tmp/err" "perfpipe: --option view=managed: analyzer 'alloc' has no option 'view'; its options are: top," \
  "--option view: the analyzer has no such option"
hasnt "$tmp/err" "alloc.yaml" "--option view: not blamed on the installed pipeline"
one_line "$tmp/err" "--option view: one line"
expect 2 "--option top=x on alloc" -- "$PERFPIPE" alloc "$T" --option top=x
has "$tmp/err" "--option top=x: option 'top' expects an integer, got 'x'" "--option top=x: the value is blamed"
expect 2 "run --option alloc.view=x" -- "$PERFPIPE" run alloc --input trace="$T" --option alloc.view=x
has "$tmp/err" "--option alloc.view=x: analyzer 'alloc' has no option 'view'" "run --option STAGE.KEY: blamed"
hasnt "$tmp/err" "alloc.yaml" "run --option: not blamed on the pipeline file"
# --top on an analyzer without a `top` option cuts the tables shown
# (test-sharp-edges.sh); --option top=N still is that analyzer's option.
expect 2 "--option top=3 on an analyzer without top" -- "$PERFPIPE" spans "$DATA/web-spans.otlp.json" --option top=3
has "$tmp/err" "--option top=3: analyzer 'spans' has no option 'top'" "--option top on spans: the analyzer says it has none"

# --- paths are inputs, never knobs.
expect 0 "run alloc --set TRACE=A" -- "$PERFPIPE" run alloc --set TRACE="$T" --format json -o "$tmp/s1.json"
expect 0 "run alloc --set TRACE=B" -- "$PERFPIPE" run alloc --set TRACE="$T2" --format json -o "$tmp/s2.json"
has "$tmp/s1.json" '"knobs": {}' "--set TRACE=path records no knob"
has "$tmp/s1.json" "\"path\": \"$T\"" "--set TRACE=path is the trace input"
expect 0 "compare two --set TRACE runs over different files" -- "$PERFPIPE" compare "$tmp/s1.json" "$tmp/s2.json"
hasnt "$tmp/err" "knobs differ" "compare does not refuse them"
expect 0 "shorthand run over file A" -- "$PERFPIPE" alloc "$T" --format json -o "$tmp/p1.json"
expect 0 "shorthand run over file B" -- "$PERFPIPE" alloc "$T2" --format json -o "$tmp/p2.json"
expect 0 "compare two shorthand runs over different files" -- "$PERFPIPE" compare "$tmp/p1.json" "$tmp/p2.json"
hasnt "$tmp/err" "knobs differ" "compare does not refuse two shorthand runs"
expect 2 "--set TRACE= beside the positional file" -- "$PERFPIPE" alloc "$T" --set TRACE="$T2"
has "$tmp/err" "--set TRACE=$T2: \${TRACE} is the path of input 'trace', already given as '$T'" \
  "--set of an input's path given twice: both named"
expect 0 "a real knob still is one" -- "$PERFPIPE" alloc "$T" --set scenario=cart --format json -o "$tmp/k.json"
has "$tmp/k.json" '"scenario": "cart"' "--set scenario=cart is recorded as a knob"

# --- findings and the exit status: a wrong capture is a warning (exit 0),
# an error-severity finding is a stage that could not answer (exit 4).
expect 0 "db on a capture without database events" -- "$PERFPIPE" db "$T" --format json -o "$tmp/db.json"
python3 - "$tmp/db.json" <<'PY' && { pass=$((pass + 1)); echo "PASS: db: no_diagnostic_source is a warning with the capture hint"; } || { fail=$((fail + 1)); echo "FAIL: db finding severity"; }
import json, sys
f = {x["code"]: x for x in json.load(open(sys.argv[1]))["stages"][0]["findings"]}
d = f["db.no_diagnostic_source"]
assert d["severity"] == "warning", d
assert "--profile database" in d["message"], d
PY
expect 4 "an error-severity finding exits 4" -- "$PERFPIPE" fixture-errfinding "$DATA/cpu-sampled.nettrace" \
  "$T" --plugin-dir "$FIXTURES" --format json -o "$tmp/err.json"
has "$tmp/err" "stage 'fixture-errfinding' could not answer: error [fixture.cannot_answer]" \
  "the error finding is named on stderr"
has "$tmp/err.json" '"severity": "error"' "the result is still written, with the finding"
expect 0 "the same fixture without the finding exits 0" -- "$PERFPIPE" fixture-good "$DATA/cpu-sampled.nettrace" \
  "$T" --plugin-dir "$FIXTURES" --format json -o "$tmp/good.json"

# --- help CMD = CMD --help, for every command and an analyzer.
for c in run validate inspect render compare candidates ps collect plugins describe alloc cpu; do
  "$PERFPIPE" help "$c" >"$tmp/h1" 2>&1; r1=$?
  "$PERFPIPE" "$c" --help >"$tmp/h2" 2>&1; r2=$?
  if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && cmp -s "$tmp/h1" "$tmp/h2" && [ -s "$tmp/h1" ]; then
    pass=$((pass + 1)); echo "PASS: perfpipe help $c = perfpipe $c --help"
  else fail=$((fail + 1)); echo "FAIL: help $c ($r1) differs from $c --help ($r2)"; diff "$tmp/h1" "$tmp/h2" | head -5; fi
done
expect 0 "perfpipe help cpu" -- "$PERFPIPE" help cpu
has "$tmp/out" "sort " "help cpu lists cpu's own options"
hasnt "$tmp/out" "Analyzers (shipped):" "help cpu is not the general help"
expect 0 "perfpipe help" -- "$PERFPIPE" help
has "$tmp/out" "Analyzers (shipped):" "help alone is the general help"
expect 2 "help of an unknown command" -- "$PERFPIPE" help no-such-thing
has "$tmp/err" "no analyzer 'no-such-thing'" "help no-such-thing says so"

# --- `--` ends options everywhere.
cp "$T" "$tmp/-dash.nettrace"
( cd "$tmp" && "$PERFPIPE" alloc --top 2 -- -dash.nettrace ) >"$tmp/out" 2>"$tmp/err" &&
  { pass=$((pass + 1)); echo "PASS: alloc --top 2 -- -dash.nettrace"; } ||
  { fail=$((fail + 1)); echo "FAIL: alloc -- FILE"; head -3 "$tmp/err"; }
has "$tmp/out" "== stage alloc" "alloc after --: the file was read"
( cd "$tmp" && "$PERFPIPE" inspect -- -dash.nettrace ) >"$tmp/out" 2>"$tmp/err" &&
  { pass=$((pass + 1)); echo "PASS: inspect -- -dash.nettrace"; } || { fail=$((fail + 1)); echo "FAIL: inspect -- FILE"; }
expect 0 "run -- PIPELINE" -- "$PERFPIPE" run --input trace="$T" --top 1 -- alloc
expect 0 "validate -- PIPELINE" -- "$PERFPIPE" validate --set TRACE=x -- alloc
expect 0 "compare -- A B" -- "$PERFPIPE" compare -- "$tmp/p1.json" "$tmp/p2.json"
expect 0 "candidates -- A" -- "$PERFPIPE" candidates -- "$tmp/p1.json"
expect 0 "describe -- alloc" -- "$PERFPIPE" describe -- alloc
expect 0 "render -- A" -- "$PERFPIPE" render -- "$tmp/p1.json"

# --- --version: version, ABI, licence.
expect 0 "--version" -- "$PERFPIPE" --version
has "$tmp/out" "License: MIT" "--version names the licence"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
