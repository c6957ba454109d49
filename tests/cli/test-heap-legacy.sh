#!/bin/bash
# ABI 1.2 heap arrays through the engine: a plugin that sets
# PP_ANALYZER_FLAG_HEAP32 reads the 32-bit node_size32/edge_start32 of a lean
# gcdump snapshot (the 64-bit arrays are not built for it); a plugin of
# minor 1, or of minor 2 without the flag, on the same input still gets
# node_size, edge_start and node_address, equal to the 32-bit view and to
# the file's own counts (tests/plugins/heap_fixture.c). ABI 1.4's shapes: a
# plugin with PP_ANALYZER_FLAG_HEAP_SHAPES alone gets no node_type or
# node_size32; one without it (minor 2, or beside the shipped gcdump
# analyzer, which sets it) gets them, equal to the shapes node for node.
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
    print(s["id"], *(f"{k}={t.get(k)}" for k in ("nodes","edges","bytes","edge_sum","addresses","address_sum","have64","type_sum","size_sum","have_types")))
print("file", "nodes=%s" % g.get("nodes"), "edges=%s" % g.get("edges"), "bytes=%s" % g.get("total_size"))' "$1"; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

for heap in "$DATA/leak-after.gcdump" "$SRC/tests/gcdump/small.gcdump"; do
  [ -f "$heap" ] || { bad "$heap absent"; continue; }
  b=$(basename "$heap")
  for which in new both wide shapes mix shipped; do
    {
      echo "version: 1"; echo "name: heap-legacy"
      echo "inputs:"; echo "  heap: { kind: gcdump, path: \"$heap\" }"
      echo "stages:"
      [ $which = both ] && echo "  - { id: old, analyzer: fixture-heap11, input: heap }"
      case $which in
        wide) echo "  - { id: wide, analyzer: fixture-heap12w, input: heap }" ;;
        shapes) echo "  - { id: sh, analyzer: fixture-heap14, input: heap }" ;;
        mix) echo "  - { id: sh, analyzer: fixture-heap14, input: heap }"
             echo "  - { id: new, analyzer: fixture-heap12, input: heap }" ;;
        shipped) echo "  - { id: gc, analyzer: gcdump, input: heap, options: { top: 0 } }"
                 echo "  - { id: new, analyzer: fixture-heap12, input: heap }" ;;
        *) echo "  - { id: new, analyzer: fixture-heap12, input: heap }" ;;
      esac
    } >"$tmp/$which.yaml"
    "$pp" run "$tmp/$which.yaml" --plugin-dir "$FIXTURES" --plugin-dir "$BUILDDIR/plugins/.libs" \
      --format json -o "$tmp/$which.json" -q \
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
  sh=$(grep '^sh ' "$tmp/shapes.txt"); shm=$(grep '^sh ' "$tmp/mix.txt")
  newm=$(grep '^new ' "$tmp/mix.txt"); news=$(grep '^new ' "$tmp/shipped.txt")
  [ "$(echo "$sh" | field have_types)" = 0 ] && [ "$(echo "$sh" | field have64)" = 0 ] &&
    ok "$b: a minor-4 stage with HEAP_SHAPES alone gets no node_type/node_size32" ||
    bad "$b: minor-4 alone: $sh"
  [ "$(echo "$new" | field have_types)" = 1 ] && [ "$(echo "$newm" | field have_types)" = 1 ] &&
    [ "$(echo "$news" | field have_types)" = 1 ] &&
    ok "$b: a minor-2 stage gets node_type/node_size32, alone, after a shapes stage and beside gcdump" ||
    bad "$b: minor-2 types: '$new' '$newm' '$news'"
  for k in type_sum size_sum bytes nodes; do
    v=$(echo "$new" | field $k)
    [ -n "$v" ] && [ "$v" != None ] && [ "$(echo "$sh" | field $k)" = "$v" ] &&
      [ "$(echo "$shm" | field $k)" = "$v" ] && [ "$(echo "$newm" | field $k)" = "$v" ] &&
      [ "$(echo "$news" | field $k)" = "$v" ] && [ "$(echo "$old" | field $k)" = "$v" ] &&
      ok "$b: $k the same through the shapes and node_type/node_size32 ($v)" ||
      bad "$b: $k: shapes '$(echo "$sh" | field $k)' / '$(echo "$shm" | field $k)', arrays '$v' / '$(echo "$newm" | field $k)' / '$(echo "$news" | field $k)' / '$(echo "$old" | field $k)'"
  done
  # The shipped analyzer's table is the same beside a stage that makes the
  # host build node_type/node_size32 as alone.
  PERFPIPE_PLUGIN_PATH="$BUILDDIR/plugins/.libs" "$pp" gcdump "$heap" --option top=0 --format json \
    -o "$tmp/alone.json" -q 2>"$tmp/err" || bad "$b: gcdump alone exited $?"
  python3 -c 'import json,sys
a=[s for s in json.load(open(sys.argv[1]))["stages"] if s["analyzer"]["name"]=="gcdump"]
b=[s for s in json.load(open(sys.argv[2]))["stages"] if s["analyzer"]["name"]=="gcdump"]
same=lambda x, y: all(x[k]==y[k] for k in ("tables", "findings", "totals", "status"))
sys.exit(0 if len(a)==1 and len(b)==1 and a[0]["tables"] and same(a[0], b[0]) else 1)' \
    "$tmp/alone.json" "$tmp/shipped.json" && ok "$b: gcdump's tables the same beside a minor-2 stage" ||
    bad "$b: gcdump's tables differ beside a minor-2 stage"
done
echo "$pass passed, $fail failed"
[ $fail = 0 ]
