#!/bin/bash
# The gcdump analyzer's `retained` default is one fact: what `perfpipe describe
# gcdump` prints, what the shipped `heap` pipeline sets, and what a pipeline
# that leaves the option out gets (issue 22). retained=false still drops the
# retained columns and the paths table.
set -u
BUILDDIR=${PP_BUILDDIR:?}
SRC=${PP_SRCDIR:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
pp=$BUILDDIR/perfpipe
heap=$DATA/leak-after.gcdump
[ -f "$heap" ] || { echo "SKIP: $heap absent"; exit 77; }

"$pp" describe gcdump >"$tmp/describe.txt" 2>&1 || bad "describe gcdump exited $?"
described=$(awk '$1 == "retained" { print $4 }' "$tmp/describe.txt")
shipped=$(sed -n 's/.*retained: *\([a-z]*\).*/\1/p' "$SRC/etc/perfpipe/pipelines/heap.yaml")
[ -n "$described" ] && [ "$described" = "${shipped:-$described}" ] &&
  ok "describe (retained default $described) and the heap pipeline (${shipped:-unset}) agree" ||
  bad "describe says retained default '$described', etc/perfpipe/pipelines/heap.yaml '$shipped'"

cat >"$tmp/bare.yaml" <<YAML
version: 1
name: bare-heap
inputs:
  heap: { kind: gcdump, path: "$heap" }
stages:
  - { id: gcdump, analyzer: gcdump, input: heap }
YAML
tables() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); s=d["stages"][0]
print(" ".join(t["name"] + ":" + ",".join(c["name"] for c in t["columns"]) for t in s["tables"]))' "$1"; }
"$pp" run "$tmp/bare.yaml" --format json -o "$tmp/bare.json" -q || bad "run bare pipeline exited $?"
"$pp" gcdump "$heap" --format json -o "$tmp/quick.json" -q || bad "perfpipe gcdump exited $?"
"$pp" gcdump "$heap" --option retained=false --format json -o "$tmp/off.json" -q ||
  bad "perfpipe gcdump retained=false exited $?"
b=$(tables "$tmp/bare.json"); q=$(tables "$tmp/quick.json"); o=$(tables "$tmp/off.json")
[ "$b" = "$q" ] && ok "a pipeline without the option and the quick path give the same tables" ||
  bad "bare: $b / quick: $q"
case "$described:$q" in
  true:*retained_bytes*paths:*) ok "default true: retained_bytes and paths are there" ;;
  false:*retained_bytes*) bad "default false but the quick path has retained columns" ;;
  false:*) ok "default false: no retained columns" ;;
  *) bad "described '$described', tables $q" ;;
esac
case "$o" in
  *retained*|*paths:*) bad "retained=false still has retained output: $o" ;;
  by_type:type,count,bytes,share) ok "retained=false: by_type counts and bytes only" ;;
  *) bad "retained=false tables: $o" ;;
esac
echo "heap defaults: $pass passed, $fail failed"
[ "$fail" = 0 ]
