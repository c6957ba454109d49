#!/bin/bash
# The build tree is a working install: the built perfpipe, with none of the
# PERFPIPE_* variables set, finds every shipped analyzer and the shipped
# pipelines through the .perfpipe-build-tree marker configure writes; a copy
# of the same program elsewhere (no marker beside it) does not.
set -u
BUILDDIR=${PP_BUILDDIR:?}
SRC=${PP_SRCDIR:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
unset PERFPIPE_PLUGIN_PATH PERFPIPE_PIPELINE_PATH XDG_CONFIG_HOME
export HOME=$tmp/home          # no user plugins or pipelines of the tester's
pp=$BUILDDIR/perfpipe

[ -f "$BUILDDIR/.perfpipe-build-tree" ] && ok "configure wrote the build-tree marker" ||
  bad "no $BUILDDIR/.perfpipe-build-tree"
"$pp" plugins >"$tmp/plugins.txt" 2>&1 || bad "perfpipe plugins exited $?"
for d in "$SRC"/plugins/*/; do
  name=$(basename "$d")
  [ "$name" = common ] && continue
  grep -q "^$name " "$tmp/plugins.txt" && ok "plugins lists $name from the build tree" ||
    { bad "plugins does not list $name"; cat "$tmp/plugins.txt"; }
done
grep -q "Search order:.* $(cd "$BUILDDIR" && pwd -P)/plugins/.libs\$" "$tmp/plugins.txt" &&
  ok "the build tree's plugins come last in the search order" || { bad "search order"; head -1 "$tmp/plugins.txt"; }
grep -q "$HOME/.local/lib/perfpipe/plugins-1 ->" "$tmp/plugins.txt" &&
  ok "the user's plugin dir is searched before it" || bad "no user plugin dir in the search order"

if "$pp" describe alloc >"$tmp/describe.txt" 2>&1; then ok "describe alloc with no install"
else bad "describe alloc exited $?"; cat "$tmp/describe.txt"; fi
grep -q "(pipeline $(cd "$SRC" && pwd -P)/etc/perfpipe/pipelines/alloc.yaml)" "$tmp/describe.txt" &&
  ok "describe names the source tree's shipped pipeline" || { bad "describe pipeline"; tail -2 "$tmp/describe.txt"; }
"$pp" alloc "$DATA/alloc-gcverbose.nettrace" --top 3 >"$tmp/alloc.txt" 2>&1 &&
  ok "the alloc shorthand runs from the build tree" || { bad "alloc exited"; head -5 "$tmp/alloc.txt"; }

# The user's config overrides a shipped pipeline, in the build tree too.
mkdir -p "$HOME/.config/perfpipe/pipelines"
sed 's/^name: alloc$/name: alloc-mine/' "$SRC/etc/perfpipe/pipelines/alloc.yaml" \
  >"$HOME/.config/perfpipe/pipelines/alloc.yaml"
"$pp" validate alloc --set TRACE=x >"$tmp/v.txt" 2>&1
grep -q "$HOME/.config/perfpipe/pipelines/alloc.yaml: valid: pipeline 'alloc-mine'" "$tmp/v.txt" &&
  ok "~/.config/perfpipe/pipelines overrides the shipped pipeline" || { bad "user override"; cat "$tmp/v.txt"; }

# A copy without the marker beside it is an installed program: the
# configured directories, never the build tree's.
mkdir -p "$tmp/bin" && cp "$pp" "$tmp/bin/perfpipe"
"$tmp/bin/perfpipe" plugins >"$tmp/copy.txt" 2>&1
if grep -q "plugins/.libs" "$tmp/copy.txt"; then bad "a copy elsewhere uses the build tree"; head -1 "$tmp/copy.txt"
else ok "a copy without the marker does not use the build tree"; fi
"$tmp/bin/perfpipe" describe alloc >"$tmp/copy-d.txt" 2>&1 && grep -q '/plugins/.libs/' "$tmp/copy-d.txt" &&
  bad "the copy found the build tree's alloc" || ok "the copy does not find the build tree's alloc"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
