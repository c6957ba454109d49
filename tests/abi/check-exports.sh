#!/bin/bash
# libperfpipe.so exports exactly the functions its public headers declare,
# all with the pp_ prefix; each plugin exports only perfpipe_plugin_entry.
set -u
top_srcdir=${PP_SRCDIR:?}
builddir=${PP_BUILDDIR:?}
lib=$builddir/core/.libs/libperfpipe.so
fail=0; pass=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

command -v nm >/dev/null || { echo "SKIP: no nm"; exit 77; }
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }

exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}' | sort -u)
declared=$(cat "$top_srcdir"/include/perfpipe/*.h | grep -v 'static inline' |
           grep -oE '\bpp_[a-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:](]//g' | sort -u)

stray=$(printf '%s\n' "$exported" | grep -v '^pp_' | grep -v '^$' || true)
[ -z "$stray" ] && ok "every export has the pp_ prefix" || bad "exports outside pp_: $stray"

undeclared=$(comm -23 <(printf '%s\n' "$exported") <(printf '%s\n' "$declared"))
[ -z "$undeclared" ] && ok "every export is declared in include/perfpipe" || bad "exported but not public: $undeclared"

n=$(printf '%s\n' "$exported" | grep -c .)
[ "$n" -gt 10 ] && ok "$n public functions exported" || bad "only $n functions exported"

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
