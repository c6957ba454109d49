#!/bin/bash
# ABI 1.2 heap arrays through the engine: a plugin that sets
# PP_ANALYZER_FLAG_HEAP32 reads the 32-bit node_size32/edge_start32 of a lean
# gcdump snapshot (the 64-bit arrays are not built for it); a plugin of
# minor 1, or of minor 2 without the flag, on the same input still gets
# node_size, edge_start and node_address, equal to the 32-bit view and to
# the file's own counts (tests/plugins/heap_fixture.c).
set -u
BUILDDIR=${PP_BUILDDIR:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
FIXTURES=$BUILDDIR/tests/plugins/.libs
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
pp=$BUILDDIR/perfpipe
[ -f "$FIXTURES/fixture-heap11.so" ] || { echo "SKIP: fixtures not built"; exit 77; }

totals() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); g=d["inputs"][0].get("gcdump", {})
for s in d["stages"]:
    t={k: v["value"] for k, v in s["totals"].items()}
    print(s["id"], *(f"{k}={t[k]}" for k in ("nodes","edges","bytes","edge_sum","addresses","address_sum","have64")))
print("file", "nodes=%s" % g.get("nodes"), "edges=%s" % g.get("edges"), "bytes=%s" % g.get("total_size"))' "$1"; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

for heap in "$DATA/leak-after.gcdump" "$SRC/tests/gcdump/small.gcdump"; do
  [ -f "$heap" ] || { bad "$heap absent"; continue; }
  b=$(basename "$heap")
  for which in new both wide; do
    {
      echo "version: 1"; echo "name: heap-legacy"
      echo "inputs:"; echo "  heap: { kind: gcdump, path: \"$heap\" }"
      echo "stages:"
      [ $which = both ] && echo "  - { id: old, analyzer: fixture-heap11, input: heap }"
      if [ $which = wide ]; then echo "  - { id: wide, analyzer: fixture-heap12w, input: heap }"
      else echo "  - { id: new, analyzer: fixture-heap12, input: heap }"; fi
    } >"$tmp/$which.yaml"
    "$pp" run "$tmp/$which.yaml" --plugin-dir "$FIXTURES" --format json -o "$tmp/$which.json" -q \
      2>"$tmp/err" || { bad "$b $which: run exited $? ($(head -1 "$tmp/err"))"; continue; }
    totals "$tmp/$which.json" >"$tmp/$which.txt" || bad "$b $which: no totals"
  done
  new=$(grep '^new ' "$tmp/new.txt"); old=$(grep '^old ' "$tmp/both.txt")
  new2=$(grep '^new ' "$tmp/both.txt"); file=$(grep '^file ' "$tmp/new.txt")
  [ "$(echo "$new" | field have64)" = 0 ] && [ "$(echo "$new" | field addresses)" = 0 ] &&
    ok "$b: a minor-2 stage alone gets no 64-bit arrays" || bad "$b: minor-2 alone: $new"
  [ "$(echo "$old" | field have64)" = 1 ] && ok "$b: a minor-1 stage gets the 64-bit arrays" ||
    bad "$b: minor-1: $old"
  wide=$(grep '^wide ' "$tmp/wide.txt")
  [ "$(echo "$wide" | field have64)" = 1 ] && [ "$(echo "$wide" | field bytes)" = "$(echo "$new" | field bytes)" ] &&
    [ "$(echo "$wide" | field address_sum)" = "$(echo "$old" | field address_sum)" ] &&
    ok "$b: a minor-2 stage without HEAP32 gets the 64-bit arrays, alone" || bad "$b: minor-2 wide: $wide"
  for k in nodes edges bytes edge_sum; do
    [ -n "$(echo "$new" | field $k)" ] && [ "$(echo "$old" | field $k)" = "$(echo "$new" | field $k)" ] &&
      ok "$b: $k the same in both views ($(echo "$new" | field $k))" ||
      bad "$b: $k: minor 1 '$(echo "$old" | field $k)', minor 2 '$(echo "$new" | field $k)'"
  done
  for k in nodes edges bytes; do
    [ -n "$(echo "$new" | field $k)" ] && [ "$(echo "$file" | field $k)" = "$(echo "$new" | field $k)" ] &&
      ok "$b: $k as the file says" ||
      bad "$b: $k: file '$(echo "$file" | field $k)', plugin '$(echo "$new" | field $k)'"
  done
  [ "$(echo "$old" | field addresses)" -gt 0 ] 2>/dev/null &&
    [ "$(echo "$new2" | field address_sum)" = "$(echo "$old" | field address_sum)" ] &&
    ok "$b: addresses built once, seen by both stages ($(echo "$old" | field addresses))" ||
    bad "$b: addresses: minor 1 '$old', minor 2 after it '$new2'"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
