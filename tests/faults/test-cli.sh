#!/bin/bash
# What the command line promises scripts: a file of the wrong kind is named
# for what it is with the analyzers that read it; `-` is stdin where the
# reader reads in one pass and one clear line where it cannot; every
# numeric option out of range is exit 2, one line, nothing on stdout; a
# stage's `timeout:` key is its progress limit and --stage-timeout wins.
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
trace=$DATA/alloc-gcverbose.nettrace

# usage_error NAME ARGS...: exit 2, exactly one line on stderr, no stdout.
usage_error() {
  local name=$1; shift
  "$PERFPIPE" "$@" >"$tmp/u.out" 2>"$tmp/u.err"
  local rc=$?
  check "$name: exit 2 (got $rc)" [ $rc -eq 2 ]
  check "$name: one line on stderr" [ "$(wc -l <"$tmp/u.err")" -eq 1 ]
  check "$name: nothing on stdout" [ ! -s "$tmp/u.out" ]
}

# ---- the wrong kind -------------------------------------------------------
# wrong NAME ANALYZER FILE FOUND USE: exit 3, one line naming FOUND and USE.
wrong() {
  "$PERFPIPE" "$2" "$3" >"$tmp/w.out" 2>"$tmp/w.err"
  local rc=$?
  check "$1: exit 3 (got $rc)" [ $rc -eq 3 ]
  check "$1: one line, nothing on stdout" [ "$(wc -l <"$tmp/w.err")" -eq 1 -a ! -s "$tmp/w.out" ]
  check "$1: names '$4'" grep -qF -- "$4" "$tmp/w.err"
  check "$1: names '$5'" grep -qF -- "$5" "$tmp/w.err"
}
wrong "alloc on a gcdump" alloc "$DATA/leak-after.gcdump" "this is a gcdump heap snapshot" "perfpipe gcdump"
wrong "gcdump on a nettrace" gcdump "$trace" "this is a nettrace trace" "perfpipe alloc"
wrong "spans on a counters CSV" spans "$DATA/churn-counters.csv" "this is a counters CSV" "counters-csv"
wrong "alloc on a counters JSON" alloc "$DATA/churn-counters.json" "this is a counters JSON" "counters-csv"
wrong "counters-csv on spans" counters-csv "$DATA/web-spans.otlp.json" "this is a spans JSON" "perfpipe spans"
wrong "alloc on a BenchmarkDotNet export" alloc "$DATA/bench-alloc.report-full.json" "BenchmarkDotNet export" "perfpipe bench"
wrong "bench on a counters JSON" bench "$DATA/churn-counters.json" "this is a counters JSON" "counters-csv"
# A NetPerf stream (EventPipe V1-V3): its FastSerialization header and type.
python3 -c "
import struct, sys
name = b'Microsoft.DotNet.Runtime.EventPipeFile'
sys.stdout.buffer.write(struct.pack('<i', 20) + b'!FastSerialization.1' + b'\x05\x05\x01' +
                        struct.pack('<i', 3) + struct.pack('<i', 0) + struct.pack('<i', len(name)) + name)
" >"$tmp/old.netperf"
wrong "alloc on a NetPerf file" alloc "$tmp/old.netperf" "NetPerf" "convert it to nettrace with PerfView"
"$PERFPIPE" alloc "$trace" --format json >/dev/null 2>&1
check "the right kind still reads: exit 0" [ $? -eq 0 ]

# ---- `-` is standard input --------------------------------------------------
tables() { python3 -c "import json,sys; print(json.dumps([s['tables'] for s in json.load(open(sys.argv[1]))['stages']]))" "$1" 2>/dev/null; }
"$PERFPIPE" alloc "$trace" --format json >"$tmp/file.json" 2>/dev/null
cat "$trace" | "$PERFPIPE" alloc - --format json >"$tmp/pipe.json" 2>"$tmp/pipe.err"
check "alloc - from a pipe: exit 0" [ $? -eq 0 ]
check "alloc - from a pipe: the tables of the file" [ -n "$(tables "$tmp/file.json")" -a "$(tables "$tmp/pipe.json")" = "$(tables "$tmp/file.json")" ]
"$PERFPIPE" counters-csv "$DATA/churn-counters.csv" --format json >"$tmp/cfile.json" 2>/dev/null
cat "$DATA/churn-counters.csv" | "$PERFPIPE" counters-csv - --format json >"$tmp/cpipe.json" 2>/dev/null
check "counters-csv - from a pipe: the tables of the file" [ -n "$(tables "$tmp/cfile.json")" -a "$(tables "$tmp/cpipe.json")" = "$(tables "$tmp/cfile.json")" ]
cat "$trace" | "$PERFPIPE" run alloc --input trace=- --format json >"$tmp/run.json" 2>/dev/null
check "run --input trace=- from a pipe: the tables of the file" [ "$(tables "$tmp/run.json")" = "$(tables "$tmp/file.json")" ]
cat "$DATA/leak-after.gcdump" | usage_error "gcdump - from a pipe" gcdump -
grep -q "gcdump reader needs the whole file" "$tmp/u.err" || ko "gcdump - from a pipe: says why"
cat "$DATA/web-spans.otlp.json" | usage_error "spans - from a pipe" spans -
"$PERFPIPE" gcdump - --format json <"$DATA/leak-after.gcdump" >"$tmp/g.json" 2>/dev/null
check "gcdump - redirected from a file: exit 0" [ $? -eq 0 ]
usage_error "gcdump-diff - -" gcdump-diff - - <"$DATA/leak-after.gcdump"

# ---- numeric options ------------------------------------------------------
"$PERFPIPE" alloc "$trace" --format json -o "$tmp/r.json" 2>/dev/null
for args in "--top -1" "--top x" "--top 99999999999999999999" "--from -5" "--to nan" \
            "--from ''" "--option top=-3" "--option top-stacks=-1" "--stage-timeout 0" \
            "--stage-timeout -2" "--stage-timeout 86401"; do
  eval "usage_error 'alloc $args' alloc \"\$trace\" $args"
done
usage_error "cpu --top -1" cpu "$DATA/cpu-sampled.nettrace" --top -1
usage_error "candidates --top -1" candidates "$tmp/r.json" --top -1
usage_error "candidates --top 0" candidates "$tmp/r.json" --top 0
usage_error "compare --noise -5" compare "$tmp/r.json" "$tmp/r.json" --noise -5
usage_error "compare --noise nan" compare "$tmp/r.json" "$tmp/r.json" --noise nan
usage_error "compare --noise ''" compare "$tmp/r.json" "$tmp/r.json" --noise ''
usage_error "compare --threshold T.C=-5" compare "$tmp/r.json" "$tmp/r.json" --threshold by_type.bytes=-5
usage_error "compare --threshold T.C=" compare "$tmp/r.json" "$tmp/r.json" --threshold by_type.bytes=
usage_error "compare --replaced nan" compare "$tmp/r.json" "$tmp/r.json" --replaced nan
usage_error "collect -p -5" collect -p -5 -o "$tmp/x.nettrace"
usage_error "collect --interval 0" collect -p 1 --interval 0 -o "$tmp/x.nettrace"
usage_error "collect --buffersize -1" collect -p 1 --buffersize -1 -o "$tmp/x.nettrace"
usage_error "alloc --pid -3" alloc --pid -3
usage_error "alloc --pid 1 --duration -2s" alloc --pid 1 --duration -2s

# ---- a stage's timeout key --------------------------------------------------
staged() {  # staged TIMEOUT: alloc and the endless loop, the loop with `timeout: TIMEOUT`
  printf 'version: 1\nname: t\ninputs:\n  trace: { kind: nettrace, path: "%s" }\nstages:\n' "$trace"
  printf '  - { id: alloc, analyzer: alloc, input: trace }\n'
  printf '  - id: bad\n    analyzer: fault-loop\n    input: trace\n    timeout: %s\n' "$1"
}
limit_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['stages'][1]['error']['limit_s'])" "$1" 2>/dev/null; }
staged 2 >"$tmp/t2.yaml"
start=$(date +%s)
"$PERFPIPE" run "$tmp/t2.yaml" --plugin-dir "$FAULTS" --format json >"$tmp/t2.json" 2>/dev/null
rc=$?; end=$(date +%s)
check "timeout: 2: exit 4" [ $rc -eq 4 ]
check "timeout: 2: the loop stage failed at 2 s" [ "$(limit_of "$tmp/t2.json")" = 2 ]
check "timeout: 2: ended in time ($((end - start)) s)" [ $((end - start)) -le 22 ]
staged 600 >"$tmp/t600.yaml"
"$PERFPIPE" run "$tmp/t600.yaml" --plugin-dir "$FAULTS" --stage-timeout 1 --format json >"$tmp/t1.json" 2>/dev/null
check "--stage-timeout 1 over timeout: 600" [ "$(limit_of "$tmp/t1.json")" = 1 ]
for bad in 0 -1 abc 1.5 86401 "[1]"; do
  staged "$bad" >"$tmp/tb.yaml"
  "$PERFPIPE" validate "$tmp/tb.yaml" --plugin-dir "$FAULTS" >"$tmp/tb.out" 2>"$tmp/tb.err"
  check "timeout: $bad: exit 2" [ $? -eq 2 ]
  check "timeout: $bad: FILE:LINE:COLUMN" grep -q "tb.yaml:10:[0-9]*: .*'timeout' of stage 'bad'" "$tmp/tb.err"
done

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
