#!/bin/bash
# The perfpipe program as scripts see it: exit codes, one-line messages on
# stderr, results on stdout, no partial output files. Runs on real captures.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
FIXTURES=${PP_BUILDDIR:?}/tests/plugins/.libs
SRC=${PP_SRCDIR:?}
ABI_MINOR=$(awk '$2=="PP_ABI_MINOR"{print $3}' "$SRC/include/perfpipe/plugin.h")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0

# expect CODE NAME -- CMD...: run CMD, check its exit code; stdout/stderr
# land in $tmp/out and $tmp/err for the checks that follow.
expect() {
  local code=$1 name=$2; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  if [ "$got" -eq "$code" ]; then pass=$((pass + 1)); echo "PASS: $name"
  else fail=$((fail + 1)); echo "FAIL: $name: exit $got, expected $code"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fi
}
# has FILE NEEDLE NAME: FILE contains NEEDLE (fixed string)
has() {
  if grep -qF -- "$2" "$1"; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: '$2' not in $(basename "$1")"; head -5 "$1" | sed 's/^/  /'; fi
}
lines() {  # lines FILE N NAME: FILE has exactly N lines
  local n; n=$(wc -l <"$1")
  if [ "$n" -eq "$2" ]; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: $n lines, expected $2"; head -5 "$1" | sed 's/^/  /'; fi
}

expect 2 "no arguments is a usage error" -- "$PERFPIPE"
has "$tmp/err" "Usage:" "usage goes to stderr"
expect 0 "--help" -- "$PERFPIPE" --help
has "$tmp/out" "Exit status:" "--help documents exit codes"
expect 0 "--version" -- "$PERFPIPE" --version
has "$tmp/out" "plugin ABI 1.$ABI_MINOR" "--version names the plugin ABI"
expect 2 "unknown analyzer" -- "$PERFPIPE" no-such-analyzer x.nettrace
has "$tmp/err" "no analyzer 'no-such-analyzer'" "unknown analyzer is named"
lines "$tmp/err" 1 "unknown analyzer: one line"

# Input errors: exit 3, one line naming the file, no output file left behind.
expect 3 "inspect of a missing file" -- "$PERFPIPE" inspect "$tmp/missing.nettrace"
has "$tmp/err" "$tmp/missing.nettrace" "missing file is named"
head -c 4096 /dev/urandom >"$tmp/random.bin"
expect 3 "inspect of random bytes" -- "$PERFPIPE" inspect "$tmp/random.bin"
lines "$tmp/err" 1 "random bytes: one line"
printf '\x14\x00\x00\x00!FastSerialization.1\x05\x05\x01' >"$tmp/old.netperf"
head -c 200 /dev/zero >>"$tmp/old.netperf"
expect 3 "inspect of a netperf (V1-V3) file" -- "$PERFPIPE" inspect "$tmp/old.netperf"
has "$tmp/err" "etperf" "netperf file is named as such"
# Another kind of capture: what it is and the command that reads it, not "NetPerf".
expect 3 "inspect of a gcdump" -- "$PERFPIPE" inspect "$DATA/leak-after.gcdump"
has "$tmp/err" "is a gcdump heap snapshot" "inspect names a gcdump as such"
has "$tmp/err" "perfpipe gcdump FILE" "inspect points a gcdump to the gcdump analyzer"
lines "$tmp/err" 1 "gcdump to inspect: one line"
expect 3 "inspect of a counters CSV" -- "$PERFPIPE" inspect "$DATA/churn-counters.csv"
has "$tmp/err" "perfpipe counters-csv" "inspect points a counters CSV to counters-csv"
expect 3 "analyzer on random bytes" -- "$PERFPIPE" alloc "$tmp/random.bin" -o "$tmp/never.json" --format json
[ ! -e "$tmp/never.json" ] && { pass=$((pass + 1)); echo "PASS: no partial output on input error"; } ||
  { fail=$((fail + 1)); echo "FAIL: partial output written on input error"; }

# A truncated capture: results up to the last whole block, a warning with the offset.
head -c 400000 "$DATA/alloc-gcverbose.nettrace" >"$tmp/cut.nettrace"
expect 0 "inspect of a truncated trace" -- "$PERFPIPE" inspect "$tmp/cut.nettrace"
has "$tmp/err" "warning" "truncation warns"
has "$tmp/err" "truncated at byte" "truncation warning names the byte offset"

# Pipelines: FILE:LINE:COLUMN pointing at the misspelled key.
cat >"$tmp/typo.yaml" <<'YAML'
version: 1
name: typo
inputs:
  trace: { kind: nettrace, path: x.nettrace }
stagse:
  - analyzer: alloc
YAML
expect 2 "validate: misspelled key" -- "$PERFPIPE" validate "$tmp/typo.yaml"
has "$tmp/err" "$tmp/typo.yaml:5:1: unknown key 'stagse'" "misspelled key at FILE:5:1"
has "$tmp/err" "did you mean 'stages'" "misspelled key gets a suggestion"
for p in "$SRC"/etc/perfpipe/pipelines/*.yaml; do
  expect 0 "validate shipped $(basename "$p")" -- "$PERFPIPE" validate "$p" --set TRACE=x --set BASELINE=x \
    --set CANDIDATE=x --set COUNTERS=x --set SPANS=x --set HEAP=x --set INPUT=x --set RESULTS=x
done

# The shorthand and `run` are one code path: same JSON minus volatile fields.
expect 0 "alloc shorthand to json" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format json -o "$tmp/a.json"
expect 0 "run alloc to json" -- "$PERFPIPE" run alloc --input trace="$DATA/alloc-gcverbose.nettrace" --format json -o "$tmp/b.json"
if cmp -s "$tmp/a.json" "$tmp/b.json"; then pass=$((pass + 1)); echo "PASS: shorthand = run"
else fail=$((fail + 1)); echo "FAIL: shorthand and run differ"; diff "$tmp/a.json" "$tmp/b.json" | head -5; fi
expect 0 "render a saved result as markdown" -- "$PERFPIPE" render "$tmp/a.json" --format markdown
has "$tmp/out" "| type |" "markdown table rendered"
expect 2 "gcdump-diff needs two inputs" -- "$PERFPIPE" gcdump-diff "$DATA/leak-before.gcdump"
has "$tmp/err" "takes 2 input files (baseline, candidate)" "input count is explained"

# A failing stage: exit 4, the error names it, the other stage's result is written.
cat >"$tmp/two.yaml" <<YAML
version: 1
name: two
inputs:
  trace: { kind: nettrace, path: "$DATA/cpu-sampled.nettrace" }
  other: { kind: nettrace, path: "$DATA/alloc-envvar.nettrace" }
stages:
  - { id: good, analyzer: fixture-good, inputs: [trace, other] }
  - { id: bad, analyzer: fixture-finishfail, inputs: [trace, other] }
outputs:
  - { format: json }
YAML
expect 4 "a failing stage exits 4" -- "$PERFPIPE" run "$tmp/two.yaml" --plugin-dir "$FIXTURES"
has "$tmp/err" "stage 'bad' (analyzer fixture-finishfail) failed to finish" "failing stage is named"
has "$tmp/out" '"id": "good"' "the good stage's result is still written"

# Plugins: refusals listed with both versions.
expect 0 "plugins lists fixtures" -- "$PERFPIPE" plugins --plugin-dir "$FIXTURES"
has "$tmp/out" "plugin ABI 2.$ABI_MINOR, host ABI 1.$ABI_MINOR" "ABI-2 plugin listed as refused with both versions"
has "$tmp/out" "alloc" "shipped analyzers listed"
expect 0 "describe alloc" -- "$PERFPIPE" describe alloc
has "$tmp/out" "framework" "describe lists options"

# compare: one allocating method switched off, same knobs.
expect 0 "alloc baseline" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --set scenario=alloc --format json -o "$tmp/base.json"
expect 0 "alloc candidate" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose-skip-buffers.nettrace" --set scenario=alloc --format json -o "$tmp/cand.json"
expect 0 "compare base -> cand" -- "$PERFPIPE" compare "$tmp/base.json" "$tmp/cand.json"
has "$tmp/out" "Workload.AllocScenario.MakeBuffers" "compare lists the switched-off frame"
has "$tmp/out" "disappeared" "the frame disappeared"
has "$tmp/out" "structural" "disappearance is a structural verdict"
has "$tmp/out" "share_inflation" "share inflation is flagged"
expect 1 "fail-on regression: cand -> base brings a frame back" -- "$PERFPIPE" compare "$tmp/cand.json" "$tmp/base.json" --fail-on regression
expect 0 "fail-on regression: base -> base" -- "$PERFPIPE" compare "$tmp/base.json" "$tmp/base.json" --fail-on regression
expect 0 "other knobs" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --set scenario=other --format json -o "$tmp/other.json"
expect 2 "compare refuses differing knobs" -- "$PERFPIPE" compare "$tmp/base.json" "$tmp/other.json"
has "$tmp/err" "scenario (alloc vs other)" "differing knob named with both values"
expect 0 "compare with --allow-knob-drift" -- "$PERFPIPE" compare "$tmp/base.json" "$tmp/other.json" --allow-knob-drift
has "$tmp/out" "knob_drift" "drift is reported"
expect 0 "compare base -> cand with drift" -- "$PERFPIPE" compare "$tmp/other.json" "$tmp/cand.json" --allow-knob-drift
has "$tmp/out" "WEAKENED" "drift weakens verdicts"

# The wrong capture for an analyzer is a finding with the fix, not an empty success.
expect 0 "alloc on a thread-time capture" -- "$PERFPIPE" alloc "$DATA/cpu-sampled.nettrace"
has "$tmp/out" "alloc.no_ticks" "alloc: no allocation ticks is a finding"
has "$tmp/out" "--profile gc-verbose" "alloc: the finding gives the capture fix"
expect 0 "alloc with an expectation far above the total" -- "$PERFPIPE" alloc "$DATA/alloc-envvar.nettrace" --option expect-min-bytes=2000000000
has "$tmp/out" "alloc.low_total" "alloc: wrong-process finding"
has "$tmp/out" "dotnet run" "alloc: names the dotnet run wrapper"
expect 0 "db on a gc-verbose capture" -- "$PERFPIPE" db "$DATA/alloc-gcverbose.nettrace"
has "$tmp/out" "db.no_diagnostic_source" "db: wrong profile is a finding"
has "$tmp/out" "--profile database" "db: the finding gives the capture fix"
# Folded stacks re-sum to the sample total (--weight samples; time is the default).
expect 0 "cpu folded" -- "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format folded --table by_stack --weight samples
folded=$(awk '{s += $NF} END {print s}' "$tmp/out")
expect 0 "cpu json" -- "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format json
samples=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stages'][0]['totals']['samples']['value'])" "$tmp/out")
[ "$folded" = "$samples" ] && [ "$samples" -gt 0 ] && { pass=$((pass + 1)); echo "PASS: folded stacks re-sum to $samples samples"; } ||
  { fail=$((fail + 1)); echo "FAIL: folded stacks sum to $folded, samples $samples"; }
expect 0 "cpu svg flame graph" -- "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format svg -o "$tmp/cpu.svg"
has "$tmp/cpu.svg" "<svg" "svg written"

# Evidence: dated, knob-stamped, never overwritten, indexed.
expect 0 "run with --evidence-dir" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --set scenario=alloc --evidence-dir "$tmp/ev" -q
expect 0 "run again into the same evidence dir" -- "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --set scenario=alloc --evidence-dir "$tmp/ev" -q
n=$(ls "$tmp/ev"/*-alloc-scenario=alloc*.json 2>/dev/null | wc -l)
[ "$n" -eq 2 ] && { pass=$((pass + 1)); echo "PASS: two runs, two evidence files (no overwrite)"; } ||
  { fail=$((fail + 1)); echo "FAIL: expected 2 evidence files, found $n"; ls "$tmp/ev"; }
[ "$(ls "$tmp/ev"/*.md | wc -l)" -eq 2 ] && { pass=$((pass + 1)); echo "PASS: markdown kept beside each"; } ||
  { fail=$((fail + 1)); echo "FAIL: markdown renderings missing"; }
has "$tmp/ev/index.tsv" "scenario=alloc" "index lists the run's knobs"
lines "$tmp/ev/index.tsv" 3 "index: header + one line per run"

# Candidates: ranked across analyzers, waits left out, follow-ups apart.
expect 0 "cpu result" -- "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format json -o "$tmp/cpu.json"
expect 0 "candidates from alloc + cpu" -- "$PERFPIPE" candidates "$tmp/base.json" "$tmp/cpu.json" --format json -o "$tmp/cand-list.json"
python3 - "$tmp/cand-list.json" <<'PY' && { pass=$((pass + 1)); echo "PASS: candidates ranked by cost per second, HotA first, MakeStrings above MakeBuffers, no waits"; } || { fail=$((fail + 1)); echo "FAIL: candidates"; }
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x for x in d["stages"][0]["tables"]}
cols = [c["name"] for c in t["candidates"]["columns"]]
rows = [dict(zip(cols, r)) for r in t["candidates"]["rows"]]
costs = [r["cost"] for r in rows]
assert costs == sorted(costs, reverse=True), costs
assert all(r["cost_unit"] == "ms per second (estimated)" for r in rows), rows[0]
# two captures, two axes, one scale: the cpu capture's HotA (about 2.4 s of 5 s) first; the
# alloc capture's MakeStrings (twice MakeBuffers' bytes) above MakeBuffers
assert rows[0]["target"] == "Workload.CpuScenario.HotA", rows[0]
names = [r["target"] for r in rows]
assert names.index("Workload.AllocScenario.MakeStrings") < names.index("Workload.AllocScenario.MakeBuffers"), names
assert d["stages"][0]["totals"]["unit"]["value"] == "second", d["stages"][0]["totals"]
rows = t["candidates"]["rows"]
assert not any("Wait" in r[2] for r in rows), [r[2] for r in rows]
assert all("perfpipe run" in r[6] and "compare" in r[6] for r in rows)
PY

expect 2 "candidates: --alloc-ms-per-mib takes a positive number" -- "$PERFPIPE" candidates "$tmp/base.json" --alloc-ms-per-mib -1
expect 0 "candidates: bytes priced 800 times higher" -- "$PERFPIPE" candidates "$tmp/base.json" "$tmp/cpu.json" --alloc-ms-per-mib 100 --format json -o "$tmp/cand-dear.json"
python3 - "$tmp/cand-dear.json" <<'PY' && { pass=$((pass + 1)); echo "PASS: candidates: the conversion of bytes to time is the option's (MakeStrings above HotA at 100 ms/MiB)"; } || { fail=$((fail + 1)); echo "FAIL: candidates --alloc-ms-per-mib"; }
import json, sys
d = json.load(open(sys.argv[1]))
st = d["stages"][0]
t = {x["name"]: x for x in st["tables"]}
names = [r[2] for r in t["candidates"]["rows"]]
assert names[0] == "Workload.AllocScenario.MakeStrings", names[:3]
assert st["totals"]["alloc_ms_per_mib"]["value"] == 100, st["totals"]
PY

# The A/B example script: same knobs, one method switched off.
export AB_DIR="$tmp/ab" PERFPIPE
expect 0 "examples/ab: base -> skip-buffers is no regression" -- \
  bash "$SRC/examples/ab/ab.sh" alloc trace "$DATA/alloc-gcverbose.nettrace" \
  "$DATA/alloc-gcverbose-skip-buffers.nettrace" --set scenario=alloc
has "$tmp/ab/compare.md" "disappeared" "examples/ab: compare.md keeps the verdict"
has "$tmp/ab/evidence/index.tsv" "scenario=alloc" "examples/ab: evidence indexed"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
