#!/bin/bash
# libperfpipe.so exports exactly what debian/libperfpipe0.symbols lists: the
# library is compiled -fvisibility=hidden and exports what the public
# headers mark PP_API, and the committed list is the other, independent
# side (dpkg-gensymbols holds the package to it too). Every export has the
# pp_ prefix and is declared PP_API in include/perfpipe; each plugin
# exports only perfpipe_plugin_entry. The comparison is also run on two
# wrong lists (one name dropped, one added) and must fail on both.
set -u
top_srcdir=${PP_SRCDIR:?}
builddir=${PP_BUILDDIR:?}
lib=$builddir/core/.libs/libperfpipe.so
symbols=$top_srcdir/debian/libperfpipe0.symbols
fail=0; pass=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
[ -f "$symbols" ] || { echo "FAIL: $symbols missing"; exit 1; }
work=$(mktemp -d /tmp/pp-exports.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Every defined dynamic symbol but the linker's own section markers.
nm -D --defined-only "$lib" | awk '$2 != "A" {print $3}' |
  grep -vxE '_init|_fini|_edata|_end|__bss_start' | sed 's/@.*//' | LC_ALL=C sort -u >"$work/exported"
# " pp_name@Base 0.1.0" lines of the symbols file.
listed() { awk '/^ [^ ]+@/ {sub(/^ /, ""); sub(/@.*/, ""); print}' "$1" | LC_ALL=C sort -u; }
# Names the headers declare PP_API (each declaration starts "PP_API type name(").
grep -hoE '^PP_API [^(]*\(' "$top_srcdir"/include/perfpipe/*.h |
  grep -oE '[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\($' | tr -d ' (' | LC_ALL=C sort -u >"$work/declared"

# differ LIST: the names exported but not in LIST and listed but not exported.
differ() {
  listed "$1" >"$work/listed"
  comm -23 "$work/exported" "$work/listed" | sed 's/^/exported, not in the symbols file: /'
  comm -13 "$work/exported" "$work/listed" | sed 's/^/in the symbols file, not exported: /'
}
diffs=$(differ "$symbols")
if [ -z "$diffs" ]; then
  ok "libperfpipe.so exports the $(grep -c . "$work/exported") symbols of debian/libperfpipe0.symbols"
else
  bad "libperfpipe.so and debian/libperfpipe0.symbols differ (a build tree from before PP_API may need 'make clean'):"
  printf '%s\n' "$diffs" | sed 's/^/  /'
fi

# A wrong list must fail: one name dropped, one name added.
first=$(listed "$symbols" | head -1)
grep -v "^ $first@" "$symbols" >"$work/dropped"
{ cat "$symbols"; echo " pp_not_a_function@Base 0.1.0"; } >"$work/added"
[ -n "$(differ "$work/dropped")" ] && ok "a symbols file without $first is caught" ||
  bad "dropping $first from the list went unnoticed"
[ -n "$(differ "$work/added")" ] && ok "a symbols file with an extra name is caught" ||
  bad "an extra name in the list went unnoticed"

stray=$(grep -v '^pp_' "$work/exported" || true)
[ -z "$stray" ] && ok "every export has the pp_ prefix" || bad "exports outside pp_: $stray"
undeclared=$(comm -23 "$work/exported" "$work/declared")
[ -z "$undeclared" ] && ok "every export is declared PP_API in include/perfpipe" ||
  bad "exported but not declared PP_API: $undeclared"
hidden=$(comm -13 "$work/exported" "$work/declared")
[ -z "$hidden" ] && ok "every PP_API declaration is exported" ||
  bad "declared PP_API but not exported (defined without its header?): $hidden"

for so in "$builddir"/plugins/.libs/*.so; do
  [ -f "$so" ] || continue
  syms=$(nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sort -u | tr '\n' ' ')
  [ "$syms" = "perfpipe_plugin_entry " ] && ok "$(basename "$so") exports only perfpipe_plugin_entry" ||
    bad "$(basename "$so") exports: $syms"
  undef=$(nm -D --undefined-only "$so" | awk '{print $2}' | grep -E '^pp_|^json_|^yaml_' || true)
  [ -z "$undef" ] && ok "$(basename "$so") links no perfpipe, jansson or libyaml symbol" ||
    bad "$(basename "$so") needs: $undef"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
