#!/bin/bash
# libperfpipe-dev depends on exactly what perfpipe.pc requires: every module
# of its Requires and Requires.private (pkg-config reads both even for a
# shared link, so a missing one fails `pkg-config perfpipe`) maps, through
# the .pc file's owner in dpkg's database, to a package libperfpipe-dev
# Depends on; and every -dev package it Depends on is required by the .pc.
# SKIPs without dpkg or when a module's .pc is not installed here.
set -u
SRC=${PP_SRCDIR:?}
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
command -v dpkg >/dev/null && command -v pkg-config >/dev/null ||
  { echo "SKIP: no dpkg or pkg-config"; exit 77; }
[ -f "$SRC/debian/control" ] || { echo "SKIP: no debian/ in $SRC"; exit 77; }

modules=$(grep -E '^Requires(\.private)?:' "$SRC/perfpipe.pc.in" | sed -E 's/^[^:]*://' |
          tr ',' ' ' | grep -oE '[A-Za-z][A-Za-z0-9._+-]*' | sort -u)
[ -n "$modules" ] || { bad "perfpipe.pc.in requires no module (parse error?)"; }
depends=$(awk '/^Package: / { p = $2 } p == "libperfpipe-dev" && /^Depends:/ { on = 1; sub(/^Depends:/, "") }
               on && /^[A-Z]/ && !/^Depends:/ { on = 0 } on && p == "libperfpipe-dev"' "$SRC/debian/control" |
          tr ',' '\n' | sed -E 's/\(.*\)//; s/\|.*//' | grep -oE '[a-z0-9][a-z0-9.+-]+' | sort -u)
wanted=""
for m in $modules; do
  dir=$(pkg-config --variable=pcfiledir "$m" 2>/dev/null)
  if [ -z "$dir" ]; then echo "SKIP: $m.pc is not installed here"; exit 77; fi
  pkg=$(dpkg -S "$(readlink -f "$dir/$m.pc")" 2>/dev/null | head -1 | cut -d: -f1)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$dir/$m.pc" 2>/dev/null | head -1 | cut -d: -f1)
  if [ -z "$pkg" ]; then echo "SKIP: no package owns $dir/$m.pc"; exit 77; fi
  wanted="$wanted $pkg"
  grep -qx "$pkg" <<<"$depends" && ok "perfpipe.pc requires $m: libperfpipe-dev Depends on $pkg" ||
    bad "perfpipe.pc requires $m ($pkg owns $m.pc) but libperfpipe-dev does not Depend on $pkg"
done
for d in $(grep -E -- '-dev$' <<<"$depends"); do
  [[ " $wanted " == *" $d "* ]] && continue
  bad "libperfpipe-dev Depends on $d, which perfpipe.pc does not require"
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
