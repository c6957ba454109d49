#!/bin/bash
# Input edges: a path is bytes. An input whose path holds a byte that is
# not UTF-8 is read like any other (it used to end the run with "out of
# memory", exit 7); the document names it with U+FFFD for that byte, in
# every output format, through the quick path and a pipeline. An output
# name of 249-255 bytes is written (its temporary name is cut to fit).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
command -v python3 >/dev/null || { echo "SKIP: python3 reads the documents"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }

dir="$tmp/bad$(printf '\377')dir"
mkdir "$dir" && cp "$DATA/alloc-exact.nettrace" "$dir/t.nettrace" || { echo "SKIP: the file system refuses the name"; exit 77; }
"$PERFPIPE" alloc "$dir/t.nettrace" --format json >"$tmp/a.json" 2>"$tmp/a.err"; rc=$?
check "non-UTF-8 path: exit 0 ($rc)" [ "$rc" = 0 ]
check "non-UTF-8 path: no out of memory" eval '! grep -q "out of memory" "$tmp/a.err"'
check "non-UTF-8 path: the document names it with U+FFFD" [ "$(python3 -c "
import json, sys; d = json.load(open(sys.argv[1])); print(d['inputs'][0]['path'].endswith('bad\ufffddir/t.nettrace'), d['stages'][0]['status'])" "$tmp/a.json")" = "True ok" ]
for f in table markdown csv; do
  out=$tmp/a.$f; [ "$f" = csv ] && out=$tmp/csv/
  "$PERFPIPE" alloc "$dir/t.nettrace" --format $f -o "$out" 2>/dev/null
  check "non-UTF-8 path: --format $f exit 0" [ $? = 0 ]
done
cat >"$tmp/p.yaml" <<'YAML'
version: 1
name: p
inputs:
  trace: { kind: nettrace, path: "${TRACE}" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
outputs:
  - { format: json }
YAML
"$PERFPIPE" run "$tmp/p.yaml" --set "TRACE=$dir/t.nettrace" >"$tmp/r.json" 2>/dev/null
check "non-UTF-8 path through --set: exit 0" [ $? = 0 ]
"$PERFPIPE" alloc "$DATA/alloc-exact.nettrace" --format json -o "$dir/out.json" 2>/dev/null
check "non-UTF-8 output path: written" [ -s "$dir/out.json" ]

# A legal output name of 249-255 bytes: the temporary name's suffix fits.
for len in 249 255; do
  name=$(printf 'a%.0s' $(seq 1 $((len - 5)))).json
  "$PERFPIPE" alloc "$DATA/alloc-exact.nettrace" --format json -o "$tmp/$name" 2>"$tmp/long.err"
  check "a $len-byte output name: written (exit $?)" [ -s "$tmp/$name" ]
  check "a $len-byte output name: no temporary file left" [ "$(ls "$tmp" | grep -c '^aaaa')" = 1 ]
  rm -f "$tmp/$name"
done

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
