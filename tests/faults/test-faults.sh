#!/bin/bash
# Stage isolation: each fault plugin runs beside the shipped alloc analyzer
# on a real capture. Whatever the fault (a crash, abort, exit, a printf, an
# endless loop, a sleep, NULL or garbage host arguments, a lying descriptor,
# a crash or a hang while being loaded), alloc's result is written and equal
# to the same run without the fault stage, the faulty stage is "failed"
# with what happened, the exit is 4, and the run ends within the limit.
# Then `plugins` and `describe` over the same directory: broken files are
# listed with the reason, never crashed on.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
FAULTS=${PP_BUILDDIR:?}/tests/faults/.libs
SLOW=$PP_BUILDDIR/tests/faults/slow/.libs
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
YAML
  [ -n "$1" ] && echo "  - { id: bad, analyzer: fault-$1, input: trace }"
  printf 'outputs:\n  - { format: json }\n'
}
# The reference: the same pipeline, the same flags, without the fault stage.
pipeline "" >"$tmp/alone.yaml"
"$PERFPIPE" run "$tmp/alone.yaml" --plugin-dir "$FAULTS" --stage-timeout $LIMIT \
  >"$tmp/alone.json" 2>/dev/null
alloc_of() { q "$1" 'json.dumps([d["stages"][0][k] for k in ("status", "tables", "totals", "findings")], sort_keys=True)'; }
alone=$(alloc_of "$tmp/alone.json")
check "alone: alloc counted ticks (a comparison on something)" \
  [ "$(q "$tmp/alone.json" 'd["stages"][0]["status"] == "ok" and len(d["stages"][0]["tables"]) > 0 and all(len(t["rows"]) > 0 for t in d["stages"][0]["tables"])')" = True ]

# fault NAME NEEDLE [DIR]: run it; check exit 4, alloc intact, bad failed
# with NEEDLE.
fault() {
  local f=$1 needle=$2 dir=${3:-$FAULTS} start end rc
  pipeline "$f" >"$tmp/$f.yaml"
  start=$(date +%s)
  "$PERFPIPE" run "$tmp/$f.yaml" --plugin-dir "$dir" --stage-timeout $LIMIT \
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

# Lying descriptors and plugins that break while being loaded fail their
# stage alone ("phase": "load"), naming the lie; the other stages run.
fault bigdesc "struct_size is wrong"
fault slots "input slots"
fault features "host features"
fault badname "while being loaded"   # a wild name pointer crashes the probe's child
fault badopt "while being loaded"    # a wild option help pointer, the same
fault ctor "while being loaded"      # a constructor that crashes
fault loadprint "standard output when loaded"
fault entrysleep "did not finish loading within $LIMIT s" "$SLOW"
for f in bigdesc slots features badname badopt ctor loadprint entrysleep; do
  check "$f: the error's phase is load" [ "$(q "$tmp/$f.json" 'd["stages"][1]["error"]["phase"]')" = load ]
done

# validate says which stage cannot run, at its analyzer's line and column.
"$PERFPIPE" validate "$tmp/bigdesc.yaml" --plugin-dir "$FAULTS" >"$tmp/v.out" 2>"$tmp/v.err"
check "validate with a refused plugin: exit 4" [ $? -eq 4 ]
check "validate: FILE:LINE:COLUMN and the lie" grep -q "bigdesc.yaml:7:[0-9]*: stage 'bad'.*struct_size" "$tmp/v.err"
check "validate: nothing on stdout" [ ! -s "$tmp/v.out" ]

# plugins and describe survive every file in the directory.
"$PERFPIPE" plugins --plugin-dir "$FAULTS" --format json >"$tmp/pl.json" 2>"$tmp/pl.err"
check "plugins over the fault plugins: exit 0" [ $? -eq 0 ]
status_of() { q "$tmp/pl.json" "[o['status'] + ':' + o.get('reason', '') for o in d if o['name'] == 'fault-$1'][0]"; }
for f in ctor badname badopt loadprint; do
  check "plugins: fault-$f is broken, with the reason" grep -q "^broken:.*when loaded\|^broken:.*while being loaded" <(status_of $f)
done
for f in bigdesc slots features; do
  check "plugins: fault-$f is refused" grep -q "^refused:" <(status_of $f)
done
check "plugins: fault-segv is ok (it breaks only when run)" [ "$(status_of segv)" = "ok:" ]
"$PERFPIPE" plugins --plugin-dir "$FAULTS" >"$tmp/pl.txt" 2>&1
check "plugins (table): exit 0" [ $? -eq 0 ]
check "plugins (table): BROKEN with the reason" grep -qE "^fault-ctor +BROKEN +.*: .*(crash|exit|signal|load)" "$tmp/pl.txt"
for f in ctor badname badopt; do
  "$PERFPIPE" describe "fault-$f" --plugin-dir "$FAULTS" >"$tmp/d.out" 2>"$tmp/d.err"
  check "describe fault-$f: exit 4" [ $? -eq 4 ]
  check "describe fault-$f: one line with the reason" [ "$(wc -l <"$tmp/d.err")" -eq 1 ]
  grep -q "while being loaded" "$tmp/d.err" || ko "describe fault-$f: the reason"
done
"$PERFPIPE" describe fault-segv --plugin-dir "$FAULTS" >/dev/null 2>&1
check "describe fault-segv: exit 0" [ $? -eq 0 ]
# One that never finishes loading costs the listing its load limit (10 s,
# asleep: no CPU), not the listing.
start=$(date +%s)
"$PERFPIPE" plugins --plugin-dir "$SLOW" --format json >"$tmp/slow.json" 2>/dev/null
rc=$?; end=$(date +%s)
check "plugins over a plugin that never loads: exit 0" [ $rc -eq 0 ]
check "plugins: it is broken, out of time" [ "$(q "$tmp/slow.json" '[o["status"] for o in d if o["name"] == "fault-entrysleep"][0]')" = broken ]
check "plugins: within the load limit ($((end - start)) s)" [ $((end - start)) -le 25 ]

echo "faults: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
