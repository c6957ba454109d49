#!/bin/bash
# Stage isolation: each fault plugin runs beside the shipped alloc analyzer
# on a real capture. Whatever the fault (a crash, abort, exit, a printf, an
# endless loop, a sleep, NULL or garbage host arguments), alloc's result is
# written and equal to alloc run alone, the faulty stage is "failed" with
# what happened, the exit is 4, and the run ends within the limit.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
FAULTS=${PP_BUILDDIR:?}/tests/faults/.libs
command -v python3 >/dev/null || { echo "SKIP: python3 reads the documents"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
trace=$DATA/alloc-gcverbose.nettrace
LIMIT=2

pipeline() {  # pipeline FAULT: alloc, then the fault plugin, on one trace
  cat <<YAML
version: 1
name: faults
inputs:
  trace: { kind: nettrace, path: "$trace" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
  - { id: bad, analyzer: fault-$1, input: trace }
outputs:
  - { format: json }
YAML
}
"$PERFPIPE" alloc "$trace" --format json >"$tmp/alone.json" 2>/dev/null
alloc_of() { q "$1" 'json.dumps([d["stages"][0][k] for k in ("status", "tables", "totals", "findings")], sort_keys=True)'; }
alone=$(alloc_of "$tmp/alone.json")

# fault NAME NEEDLE: run it; check exit 4, alloc intact, bad failed with NEEDLE.
fault() {
  local f=$1 needle=$2 start end rc
  pipeline "$f" >"$tmp/$f.yaml"
  start=$(date +%s)
  "$PERFPIPE" run "$tmp/$f.yaml" --plugin-dir "$FAULTS" --stage-timeout $LIMIT \
    >"$tmp/$f.json" 2>"$tmp/$f.err"
  rc=$?; end=$(date +%s)
  check "$f: exit 4" [ $rc -eq 4 ]
  check "$f: the document on stdout is whole" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$tmp/$f.json" 2>/dev/null
  check "$f: alloc's result equals alloc alone" [ "$(alloc_of "$tmp/$f.json" 2>/dev/null)" = "$alone" ]
  check "$f: the fault stage is failed" [ "$(q "$tmp/$f.json" 'd["stages"][1]["status"]' 2>/dev/null)" = failed ]
  check "$f: its error says '$needle'" grep -qF -- "$needle" <(q "$tmp/$f.json" 'd["stages"][1]["error"]' 2>/dev/null)
  check "$f: stderr names the stage" grep -q "stage 'bad'" "$tmp/$f.err"
  check "$f: ended within the limit ($((end - start)) s)" [ $((end - start)) -le $((LIMIT + 20)) ]
}
fault segv "consume()"
fault abort "finish()"
fault exit "called exit("   # exit(0); LeakSanitizer turns it into exit(23) in an ASan build
fault stdout "bytes to standard output"
fault loop "no progress for $LIMIT s"
fault sleep "no progress for $LIMIT s"
fault nullargs "argument 2 (name) is NULL"
fault garbage "finish()"   # the 2^30 columns are refused; the forged handle crashes
# (under ASan the sanitizer turns SIGSEGV into exit(1): either is named)
check "segv: the error has the signal and the last record" \
  [ "$(q "$tmp/segv.json" 'd["stages"][1]["error"]["last_record"] == 100 and ("signal" in d["stages"][1]["error"] or "exit_status" in d["stages"][1]["error"])')" = True ]
check "loop: the error has the limit" [ "$(q "$tmp/loop.json" 'd["stages"][1]["error"]["limit_s"]')" = $LIMIT ]

# A row added from destroy() does not land in the result.
pipeline destroyrow >"$tmp/dr.yaml"
"$PERFPIPE" run "$tmp/dr.yaml" --plugin-dir "$FAULTS" >"$tmp/dr.json" 2>"$tmp/dr.err"
check "destroyrow: exit 0" [ $? -eq 0 ]
check "destroyrow: only the row from finish()" [ "$(q "$tmp/dr.json" 'd["stages"][1]["tables"][0]["rows"]')" = "[[5911]]" ]

# Lying descriptors are refused when loaded, naming the lie; nothing runs.
for f in bigdesc:struct_size slots:"input slots" features:"host features"; do
  name=${f%%:*} needle=${f#*:}
  pipeline "$name" >"$tmp/$name.yaml"
  "$PERFPIPE" run "$tmp/$name.yaml" --plugin-dir "$FAULTS" >"$tmp/$name.json" 2>"$tmp/$name.err"
  check "$name: refused, exit 4" [ $? -eq 4 ]
  check "$name: the message says '$needle'" grep -qF "$needle" "$tmp/$name.err"
done

echo "faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
