#!/bin/bash
# README's first command, as a new user meets it: it installs only what
# building and the demo need (the deps script it calls lists no browser,
# fuzzer, valgrind or other test tooling; those come with the second
# command), and it leaves the user where the README's next paths work (the
# top of the source tree: `_build/perfpipe plugins`).
set -u
SRC=${PP_SRCDIR:?}
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# The two commands: the indented lines of "## Two commands" that start with
# `bash .ci/`.
cmds=$(sed -n '/^## Two commands/,/^## /p' "$SRC/README.md" | grep -E '^    bash \.ci/')
first=$(sed -n 1p <<<"$cmds" | sed 's/^    //')
second=$(sed -n 2p <<<"$cmds" | sed 's/^    //')
[ -n "$first" ] && [ -n "$second" ] && ok "README has its two commands" ||
  { bad "README's '## Two commands' lacks two 'bash .ci/...' lines"; echo "$pass passed, $fail failed"; exit 1; }
# A `make dist` tarball carries no .ci/ (the scripts are the git tree's).
[ -f "$SRC/.ci/deps" ] || { echo "SKIP: no .ci/ in $SRC (a dist tarball)"; exit 77; }
script1=$(grep -oE '^bash [^ ]+' <<<"$first" | cut -d' ' -f2)
script2=$(grep -oE '^bash [^ ]+' <<<"$second" | cut -d' ' -f2)

# A deps script that does not know PP_DEPS_LIST would install: never run it.
for s in "$script1" "$script2"; do
  grep -q PP_DEPS_LIST "$SRC/$s" ||
    { bad "$s has no PP_DEPS_LIST=1 (list only) mode"; echo "$pass passed, $fail failed"; exit 1; }
done
tooling='chromium|firefox|clang|llvm|libfuzzer|afl|honggfuzz|valgrind|golang|nodejs|npm|zsh|jsonschema|ctags'
list1=$(PP_DEPS_LIST=1 bash "$SRC/$script1")
[ -n "$list1" ] && grep -qx build-essential <<<"$list1" && ok "$script1 lists the build dependencies" ||
  bad "$script1 (PP_DEPS_LIST=1) lists no build dependencies: $list1"
extra=$(grep -iE "$tooling" <<<"$list1" | xargs)
[ -z "$extra" ] && ok "README's first command ($script1) installs no test tooling" ||
  bad "README's first command ($script1) installs test tooling: $extra"
# Every package debian/control's Build-Depends names (the build's own list)
# is in the first command's list, so the build cannot fail for one missing.
for p in $(awk '/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, "") } on && /^[A-Z]/ && !/^Build-Depends:/ { on = 0 } on' "$SRC/debian/control" |
           grep -oE '[a-z0-9][a-z0-9.+-]+' | grep -vE '^(debhelper-compat|13)$'); do
  grep -qx "$p" <<<"$list1" && ok "$script1 installs Build-Depends $p" || bad "$script1 lacks Build-Depends $p"
done
list2=$(PP_DEPS_LIST=1 bash "$SRC/$script2")
for p in clang-14 libclang-rt-14-dev valgrind chromium; do
  grep -qx "$p" <<<"$list2" && ok "the second command ($script2) installs $p" || bad "$script2 lacks $p"
done
for p in $list1; do
  grep -qx "$p" <<<"$list2" || bad "$script2 lacks the build dependency $p"
done

# Where the first command leaves the user: run it in a scratch directory with
# the installers and the build tools stubbed (functions), and compare $PWD.
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
printf '#!/bin/sh\nexit 0\n' >"$scratch/configure"; chmod +x "$scratch/configure"
end=$(cd "$scratch" && bash() { :; } && autoreconf() { :; } && make() { :; } &&
      eval "$first" >/dev/null && pwd)
[ "$end" = "$scratch" ] && ok "the first command leaves the user in the source tree's top ($end)" ||
  bad "the first command leaves the user in '$end', not the top of the tree: README's _build/perfpipe paths fail there"
# The paths `make demo` prints are absolute (they work from anywhere).
demo=$(sed -n '/^demo:/,/^\.PHONY: demo/p' "$SRC/tests/Makefile.inc")
if grep -qE "(^|[ '\"])\./perfpipe|[^/]perfpipe (plugins|describe)|: make install" <<<"$demo"; then
  bad "make demo prints a relative path: $(grep -E "\./perfpipe|: make install" <<<"$demo" | head -1)"
else
  ok "make demo prints absolute paths"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
