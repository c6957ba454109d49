#!/bin/bash
# The registries are the only lists of output formats, input kinds and
# commands. Three parts:
#   1. perfpipe (as shipped): the man pages list what the registries hold,
#      and `format: html` works in a pipeline's outputs: like --format html.
#   2. perfpipe-extra: perfpipe with one more output format (hello-format)
#      and one more input kind (hello-kind), each added by HACKING.md's
#      recipe as written (tests/registry/recipe.py: a renderer or reader and
#      one registry row): usage, errors, pipeline validation and completion
#      know them.
#   3. completion (bash, zsh) offers the extra binary's format.
# Without the registries (a hand-kept list anywhere on these paths) the
# extra row is missing from one of the outputs below and the test fails.
set -u
PERFPIPE=${PERFPIPE:?}
SRC=${PP_SRCDIR:?}
DATA=${PP_TESTDATA:?}
EXTRA=${PP_BUILDDIR:?}/tests/registry/perfpipe-extra
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# --- 1. the shipped registries against the man pages ----------------------
formats=$("$PERFPIPE" help --list formats | xargs)
kinds=$("$PERFPIPE" help --list kinds | xargs)
[ -n "$formats" ] && [ -n "$kinds" ] && ok "help --list formats/kinds: $formats / $kinds" ||
  bad "help --list gave nothing"
# perfpipe(1) OUTPUT FORMATS: one .TP/.B item per format, no other.
man_formats=$(awk '/^\.SH OUTPUT FORMATS/{f=1;next} /^\.SH/{f=0} f&&p&&/^\.B /{print $2} {p=(f&&$1==".TP")}' \
  "$SRC/man/perfpipe.1" | sort | xargs)
[ "$man_formats" = "$(printf '%s\n' $formats | sort | xargs)" ] &&
  ok "perfpipe(1) OUTPUT FORMATS lists the registry's formats" ||
  bad "perfpipe(1) OUTPUT FORMATS: '$man_formats', registry: '$formats'"
# perfpipe-pipeline(5): the outputs: formats and the inputs: kinds.
pipe_formats=$(awk '/^\.B outputs$/{f=1} f&&/^Formats:/{g=1;next} g&&/^\(see/{exit} g{print $2}' \
  "$SRC/man/perfpipe-pipeline.5" | tr -d ',' | xargs)
[ "$pipe_formats" = "$formats" ] && ok "perfpipe-pipeline(5) outputs: lists the registry's formats" ||
  bad "perfpipe-pipeline(5) outputs: '$pipe_formats', registry: '$formats'"
pipe_kinds=$(sed -n 's/.*{ kind: \([a-z|-]*\), path:.*/\1/p' "$SRC/man/perfpipe-pipeline.5" | head -1)
[ "$pipe_kinds" = "$(printf '%s|' $kinds | sed 's/|$//')" ] &&
  ok "perfpipe-pipeline(5) inputs: lists the registry's kinds" ||
  bad "perfpipe-pipeline(5) kinds: '$pipe_kinds', registry: '$kinds'"

# perfpipe(1): a section (.SS perfpipe NAME ...) per command, no other.
man_cmds=$(sed -n 's/^\.SS perfpipe \([a-z][a-z-]*\).*/\1/p' "$SRC/man/perfpipe.1" | sort -u | xargs)
reg_cmds=$("$PERFPIPE" help --list commands | sort | xargs)
[ "$man_cmds" = "$reg_cmds" ] && ok "perfpipe(1) has a section per registered command" ||
  bad "perfpipe(1) command sections: '$man_cmds', registry: '$reg_cmds'"

# format: html in a pipeline, as --format html.
cat > "$tmp/html.yaml" <<'YAML'
version: 1
name: alloc-html
inputs:
  trace: { kind: nettrace, path: "${TRACE}" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
outputs:
  - { format: html, path: "${OUT}" }
YAML
if (cd "$tmp" && "$PERFPIPE" run html.yaml --set TRACE="$DATA/alloc-gcverbose.nettrace" \
      --set OUT=p.html 2>"$tmp/err") &&
   "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format html -o "$tmp/f.html" &&
   head -1 "$tmp/p.html" | grep -q '^<!DOCTYPE html>' &&
   grep -q 'alloc-html' "$tmp/p.html" && grep -q 'by_frame' "$tmp/p.html"; then
  ok "format: html in a pipeline writes the html page (as --format html does)"
else
  bad "format: html in a pipeline: $(cat "$tmp/err")"
fi

# --- 2. the recipes' rows -------------------------------------------------
if [ ! -x "$EXTRA" ]; then
  bad "no $EXTRA (make check builds it)"
  echo "$pass passed, $fail failed"; exit 1
fi
"$EXTRA" help --list formats | grep -qx hello-format && ok "help --list formats: hello-format" ||
  bad "help --list formats lacks hello-format"
"$EXTRA" help --list document-formats | grep -qx hello-format &&
  ok "help --list document-formats: hello-format" || bad "document-formats lacks hello-format"
"$EXTRA" help --list kinds | grep -qx hello-kind && ok "help --list kinds: hello-kind" ||
  bad "help --list kinds lacks hello-kind"
# usage
"$EXTRA" --help | grep -q '^Formats: .*hello-format' && ok "perfpipe --help: Formats names hello-format" ||
  bad "perfpipe --help: $("$EXTRA" --help | grep '^Formats')"
"$EXTRA" alloc --help | grep -q -- '--format FMT .*hello-format' &&
  ok "perfpipe ANALYZER --help: --format names hello-format" || bad "alloc --help lacks hello-format"
"$EXTRA" render --help | grep -q 'hello-format' && ok "render --help names hello-format" ||
  bad "render --help lacks hello-format"
"$EXTRA" compare --help | grep -q -- '--format FMT .*hello-format' && ok "compare --help names hello-format" ||
  bad "compare --help lacks hello-format"
# errors
"$EXTRA" alloc x.nettrace --format nope 2>&1 | grep -q "unknown format 'nope': use .*hello-format" &&
  ok "unknown --format: the error names hello-format" || bad "unknown --format error lacks hello-format"
# validation: a pipeline's outputs: and inputs:
cat > "$tmp/dummy.yaml" <<'YAML'
version: 1
name: dummy
inputs:
  trace: { kind: nettrace, path: "${TRACE}" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
outputs:
  - { format: hello-format }
YAML
out=$("$EXTRA" run "$tmp/dummy.yaml" --set TRACE="$DATA/alloc-gcverbose.nettrace" 2>&1)
[ "$out" = "hello-format: 1 stage(s)" ] && ok "format: hello-format validates and runs its renderer" ||
  bad "format: hello-format: $out"
sed 's/hello-format/hello-formt/' "$tmp/dummy.yaml" > "$tmp/typo.yaml"
"$EXTRA" validate "$tmp/typo.yaml" --set TRACE=x 2>&1 |
  grep -q "unknown output format 'hello-formt' (did you mean 'hello-format'?); expected one of: .*hello-format" &&
  ok "validate: an unknown format's error names hello-format" ||
  bad "validate typo: $("$EXTRA" validate "$tmp/typo.yaml" --set TRACE=x 2>&1)"
sed 's/kind: nettrace/kind: hello-knd/' "$tmp/dummy.yaml" > "$tmp/kind-typo.yaml"
"$EXTRA" validate "$tmp/kind-typo.yaml" --set TRACE=x 2>&1 |
  grep -q "unknown input kind 'hello-knd' (did you mean 'hello-kind'?); expected one of: .*hello-kind" &&
  ok "validate: an unknown kind's error names hello-kind" ||
  bad "validate kind typo: $("$EXTRA" validate "$tmp/kind-typo.yaml" --set TRACE=x 2>&1)"
# A hello-kind input passes the kind check; alloc does not read it, and the
# error says so by the kind's name (the registry's, not a hand list).
sed 's/kind: nettrace/kind: hello-kind/' "$tmp/dummy.yaml" > "$tmp/kind.yaml"
err=$("$EXTRA" validate "$tmp/kind.yaml" --set TRACE=x 2>&1)
case $err in
  *"unknown input kind"*|"") bad "validate kind: hello-kind: '$err'" ;;
  *hello-kind*) ok "validate: hello-kind is a known kind (alloc reads nettrace, not hello-kind)" ;;
  *) bad "validate kind: hello-kind: '$err'" ;;
esac
# the shipped perfpipe has neither
"$PERFPIPE" help --list formats | grep -q hello-format && bad "perfpipe has the recipe's format" ||
  ok "the shipped perfpipe has no recipe row"

# --- 3. completion -----------------------------------------------------------
# shellcheck source=/dev/null
source "$SRC/completion/perfpipe"
COMP_WORDS=("$EXTRA" alloc x --format he); COMP_CWORD=4; COMPREPLY=()
_perfpipe perfpipe he --format
[ "${COMPREPLY[*]}" = hello-format ] && ok "bash: --format he<TAB> offers hello-format" ||
  bad "bash: --format he<TAB>: '${COMPREPLY[*]}'"
COMP_WORDS=("$EXTRA" compare a b --format he); COMP_CWORD=5; COMPREPLY=()
_perfpipe perfpipe he --format
[ "${COMPREPLY[*]}" = hello-format ] && ok "bash: compare --format he<TAB> offers hello-format" ||
  bad "bash: compare --format he<TAB>: '${COMPREPLY[*]}'"
if command -v zsh >/dev/null; then
  got=$(COMPLETION=$SRC/completion/_perfpipe zsh -f -c '
    compadd() { local i=${@[(i)--]}; print -l -- ${@[i+1,-1]} }
    _describe() { local a=${@[-1]}; print -l -- ${${(P)a}%%:*} }
    _files() { print -- "<files>" }
    words=("$@"); CURRENT=$#; PREFIX=${words[-1]}
    source "$COMPLETION"' zsh "$EXTRA" alloc x --format "" 2>&1 | xargs)
  [[ " $got " == *" hello-format "* ]] && ok "zsh: --format offers hello-format" ||
    bad "zsh: --format: $got"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
