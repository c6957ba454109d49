#!/bin/bash
# Damage is never silent: real captures damaged the way a broken copy or a
# killed tool damages them (a repeated, reordered or missing EventBlock, a
# cut file, a gcdump whose TotalSize lies, a trace with only its header).
# Every stage that read the input says "partial" with an input.damaged
# warning and the counts; a repeated block is not counted twice.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to damage the fixtures"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }
# q FILE EXPR: a Python expression over the document d
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
mutate() { python3 "$SRC/tests/faults/mutate-nettrace.py" "$@"; }
trace=$DATA/alloc-gcverbose.nettrace

cat >"$tmp/three.yaml" <<YAML
version: 1
name: three
inputs:
  trace: { kind: nettrace, path: "\${TRACE}" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
  - { id: cpu, analyzer: cpu, input: trace }
  - { id: db, analyzer: db, input: trace }
outputs:
  - { format: json }
YAML
run3() { "$PERFPIPE" run "$tmp/three.yaml" --set "TRACE=$1" >"$2" 2>"$2.err"; echo $? >"$2.rc"; }

run3 "$trace" "$tmp/clean.json"
check "clean trace: exit 0" [ "$(cat "$tmp/clean.json.rc")" = 0 ]
check "clean trace: every stage ok" [ "$(q "$tmp/clean.json" '",".join(s["status"] for s in d["stages"])')" = "ok,ok,ok" ]
check "clean trace: damage all zero" [ "$(q "$tmp/clean.json" 'd["inputs"][0]["damage"]')" = \
  "{'truncated_at': None, 'dropped_events': 0, 'repeated_blocks': 0, 'reordered_blocks': 0, 'missing_blocks': 0, 'sequence_gaps': 0, 'reader_warnings': 0}" ]
ticks() { q "$1" 'd["stages"][0]["totals"]["ticks"]["value"]'; }
events() { q "$1" 'd["inputs"][0]["nettrace"]["events"]'; }

# every_partial NAME DOC NEEDLE: all three stages partial, each with an
# input.damaged warning containing NEEDLE.
every_partial() {
  check "$1: every stage partial" [ "$(q "$2" '",".join(s["status"] for s in d["stages"])')" = "partial,partial,partial" ]
  check "$1: every stage has an input.damaged warning naming it" [ "$(q "$2" \
    'sum(1 for s in d["stages"] for f in s["findings"] if f["code"] == "input.damaged" and f["severity"] == "warning" and sys.argv[2] in f["message"])' "$3")" = 3 ]
}
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" "${3:-}"; }

mutate "$trace" "$tmp/repeat.nettrace" repeat 3
run3 "$tmp/repeat.nettrace" "$tmp/repeat.json"
check "repeated block: exit 0" [ "$(cat "$tmp/repeat.json.rc")" = 0 ]
check "repeated block: counted" [ "$(q "$tmp/repeat.json" 'd["inputs"][0]["damage"]["repeated_blocks"]')" = 1 ]
every_partial "repeated block" "$tmp/repeat.json" "1 repeated block"
check "repeated block: its events are not counted twice" [ "$(events "$tmp/repeat.json")" = "$(events "$tmp/clean.json")" ]
check "repeated block: alloc ticks as on the clean trace" [ "$(ticks "$tmp/repeat.json")" = "$(ticks "$tmp/clean.json")" ]
check "repeated block: a warning on stderr with the offset" grep -q "repeats the one at byte" "$tmp/repeat.json.err"

mutate "$trace" "$tmp/swap.nettrace" swap 3
run3 "$tmp/swap.nettrace" "$tmp/swap.json"
check "reordered blocks: counted" [ "$(q "$tmp/swap.json" 'd["inputs"][0]["damage"]["reordered_blocks"]')" = 1 ]
check "reordered blocks: no event counted as dropped" [ "$(q "$tmp/swap.json" 'd["inputs"][0]["damage"]["dropped_events"]')" = 0 ]
every_partial "reordered blocks" "$tmp/swap.json" "out of order"
check "reordered blocks: alloc ticks as on the clean trace" [ "$(ticks "$tmp/swap.json")" = "$(ticks "$tmp/clean.json")" ]

mutate "$trace" "$tmp/drop.nettrace" drop 3
run3 "$tmp/drop.nettrace" "$tmp/drop.json"
lost=$(( $(events "$tmp/clean.json") - $(events "$tmp/drop.json") ))
check "missing block: the dropped events are the events it held ($lost)" \
  [ "$(q "$tmp/drop.json" 'd["inputs"][0]["damage"]["dropped_events"]')" = "$lost" ]
every_partial "missing block" "$tmp/drop.json" "events dropped"
check "missing block: said on stderr" grep -q "events dropped" "$tmp/drop.json.err"

head -c 400000 "$trace" >"$tmp/cut.nettrace"
run3 "$tmp/cut.nettrace" "$tmp/cut.json"
# Where reading stopped: the start of the first object not wholly inside
# the 400,000 bytes (the cut block), from the container's own listing.
cut_at=$(python3 "$SRC/tests/faults/mutate-nettrace.py" "$trace" /dev/null list |
  awk '{ if ($1 > 400000) exit; last = $1 } END { print last }')
check "truncated: truncated_at is where reading stopped ($cut_at)" \
  [ "$(q "$tmp/cut.json" 'd["inputs"][0]["damage"]["truncated_at"]')" = "$cut_at" ]
every_partial "truncated" "$tmp/cut.json" "truncated at byte $cut_at"
# inspect carries the same damage object and status as a run.
"$PERFPIPE" inspect "$tmp/cut.nettrace" --format json >"$tmp/cut-inspect.json" 2>/dev/null
check "truncated: inspect exit 0" [ $? -eq 0 ]
check "truncated: inspect's inputs[0].damage.truncated_at is $cut_at" \
  [ "$(q "$tmp/cut-inspect.json" 'd["inputs"][0]["damage"]["truncated_at"]')" = "$cut_at" ]
check "truncated: inspect's stage is partial with input.damaged" [ "$(q "$tmp/cut-inspect.json" \
  'd["stages"][0]["status"] + " " + ",".join(f["code"] for f in d["stages"][0]["findings"] if f["code"] == "input.damaged")')" = "partial input.damaged" ]
"$PERFPIPE" inspect "$trace" --format json >"$tmp/clean-inspect.json" 2>/dev/null
check "clean trace: inspect ok, damage all zero" [ "$(q "$tmp/clean-inspect.json" \
  'd["stages"][0]["status"] + " " + str(d["inputs"][0]["damage"])')" = \
  "ok {'truncated_at': None, 'dropped_events': 0, 'repeated_blocks': 0, 'reordered_blocks': 0, 'missing_blocks': 0, 'sequence_gaps': 0, 'reader_warnings': 0}" ]

# A header-only trace (the Trace object, then the end-of-stream tag):
# inspect reads zero events without touching a NULL array (UBSan in CI).
head -c 102 "$trace" >"$tmp/header-only.nettrace"; printf '\001' >>"$tmp/header-only.nettrace"
"$PERFPIPE" inspect "$tmp/header-only.nettrace" --format json >"$tmp/ho.json" 2>"$tmp/ho.err"
check "header-only trace: inspect exit 0" [ $? -eq 0 ]
check "header-only trace: zero events" [ "$(q "$tmp/ho.json" 'd["stages"][0]["totals"]["events"]["value"]')" = 0 ]
check "header-only trace: no sanitizer report" eval '! grep -q "runtime error\|AddressSanitizer" "$tmp/ho.err"'

# A gcdump whose TotalSize (the writer's sum of node sizes) is off by one:
# the warning reaches the result (the engine used to hand the reader hooks
# on its stack, read after the frame was gone: stack-use-after-scope).
total=$(python3 -c "import json; print(json.load(open('$DATA/leak-before.oracle.json'))['graph']['total_size'])")
python3 - "$DATA/leak-before.gcdump" "$tmp/lying.gcdump" "$total" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
k = struct.pack("<q", int(sys.argv[3]))
at = d.find(k)
assert at > 0 and d.find(k, at + 1) < 0, "TotalSize not found once"
d[at:at + 8] = struct.pack("<q", int(sys.argv[3]) + 1)
open(sys.argv[2], "wb").write(d)
PY
"$PERFPIPE" gcdump "$tmp/lying.gcdump" --format json >"$tmp/lying.json" 2>"$tmp/lying.err"
check "damaged gcdump: exit 0" [ $? -eq 0 ]
check "damaged gcdump: the TotalSize warning is in the result" \
  [ "$(q "$tmp/lying.json" 'any("TotalSize" in w for w in d["inputs"][0]["warnings"])')" = True ]
check "damaged gcdump: the stage is partial with input.damaged" [ "$(q "$tmp/lying.json" \
  'd["stages"][0]["status"] + " " + ",".join(f["code"] for f in d["stages"][0]["findings"] if f["code"] == "input.damaged")')" = "partial input.damaged" ]
check "damaged gcdump: no sanitizer report" eval '! grep -q "runtime error\|AddressSanitizer" "$tmp/lying.err"'

echo "damage: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
