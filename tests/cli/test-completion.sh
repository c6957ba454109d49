#!/bin/bash
# Shell completion, driven as the shell drives it: bash sources
# completion/perfpipe and calls its completion function (which answers with
# compgen) on command lines; the analyzers and options come from the
# perfpipe being completed (here the build tree's). zsh: the script parses
# (zsh -n), when zsh is installed.
set -u
PERFPIPE=${PERFPIPE:?}
SRC=${PP_SRCDIR:?}
DATA=${PP_TESTDATA:?}
FIXTURES=${PP_BUILDDIR:?}/tests/plugins/.libs
pass=0; fail=0
ok() { echo "PASS: $*"; pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

# shellcheck source=/dev/null
source "$SRC/completion/perfpipe"
complete -p perfpipe | grep -q -- '-F _perfpipe' && ok "complete -F _perfpipe perfpipe is registered" ||
  bad "no completion registered for perfpipe"

# complete WORD... : COMPREPLY for the last word of "$PERFPIPE WORD...".
complete_line() {
  COMP_WORDS=("$PERFPIPE" "$@")
  COMP_CWORD=$#
  COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  _perfpipe perfpipe "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
# expect_words NAME "EXPECTED (sorted, space-separated)" WORD...
expect_words() {
  local name=$1 want=$2; shift 2
  local got; got=$(complete_line "$@" | xargs)
  [ "$got" = "$want" ] && ok "$name" || bad "$name: got '$got', expected '$want'"
}
# expect_has NAME NEEDLE WORD...
expect_has() {
  local name=$1 needle=$2; shift 2
  complete_line "$@" | grep -qx -- "$needle" && ok "$name" || bad "$name: '$needle' not offered: $(complete_line "$@" | xargs)"
}

analyzers="alloc bench counters-csv cpu db gc gcdump gcdump-diff load spans"
# Commands and formats are the registries' (perfpipe help --list), which
# tests/registry/test-registry.sh proves are the one list: a format or a
# command added there is completed with no edit here.
commands=$("$PERFPIPE" help --list commands | xargs)
formats=$("$PERFPIPE" help --list formats | sort | xargs)
doc_formats=$("$PERFPIPE" help --list document-formats | sort | xargs)
for w in run validate inspect render compare candidates rules ps collect plugins describe help table json html svg; do
  [[ " $commands $formats " == *" $w "* ]] && ok "the registries hold $w" || bad "the registries lack $w"
done
for a in $analyzers $commands; do
  expect_has "first word offers $a" "$a" ""
done
expect_words "al<TAB> is alloc" "alloc" al
c_words=$(printf '%s\n' $commands counters-csv cpu | grep '^c' | sort | xargs)
expect_words "c<TAB>: commands and analyzers" "$c_words" c
expect_words "-<TAB> at the top" "--help --version" -
expect_words "describe <TAB>: the analyzers" "$analyzers" describe ""
expect_words "help c<TAB>" "$c_words" help c
# Options of the chosen analyzer, from its descriptor (describe --format names).
want=$("$PERFPIPE" describe cpu --format names | sed 's/$/=/' | sort | xargs)
[ -n "$want" ] && expect_words "cpu --option <TAB>: cpu's options" "$want" cpu x.nettrace --option ""
expect_has "alloc --option fr<TAB>: framework=" "framework=" alloc x --option fr
expect_words "alloc --option to<TAB>: top= top-stacks= to=" "to= top-stacks= top=" alloc x --option to
expect_words "--format s<TAB>" "speedscope svg" cpu x --format s
expect_words "--format <TAB>: every format" "$formats" alloc x --format ""
expect_words "plugins --format <TAB>" "json names table" plugins --format ""
expect_words "compare --format <TAB>: no stack formats" "$doc_formats" compare a b --format ""
expect_has "cpu --<TAB> offers --top" "--top" cpu --
expect_has "compare --<TAB> offers --fail-on" "--fail-on" compare --
expect_has "inspect --<TAB> offers --jobs" "--jobs" inspect --
expect_words "--fail-on <TAB>" "regression" compare a b --fail-on ""
expect_words "--hash <TAB>" "sha256 xxh3-128" alloc x --hash ""
# Plugins named on the line by --plugin-dir are completed too.
expect_has "describe --plugin-dir FIXTURES fixture-g<TAB>" "fixture-good" describe --plugin-dir "$FIXTURES" fixture-g
# Files for inputs.
expect_words "alloc DATA/alloc-gcverbose.n<TAB>: the file" "$DATA/alloc-gcverbose.nettrace" alloc "$DATA/alloc-gcverbose.n"
expect_words "after --, files only" "$DATA/cpu-sampled.nettrace" alloc -- "$DATA/cpu-sampled.n"

# Derived from the binary and the source, never a hand list, so a command,
# an option or a format added anywhere is checked with no edit here.
# help_options TEXT: the -x/--long words of a help text, as a reader finds
# them (after a blank, '[', '(', '|', ',' or '`'; "per-stage" is no option).
help_options() {
  grep -oE -- '(^|[][ (|,`])--?[A-Za-z][A-Za-z0-9-]*[A-Za-z0-9]?' |
    sed -E 's/^[][ (|,`]//' | grep -E '^(-[A-Za-z]|--[A-Za-z][A-Za-z0-9-]*)$' | sort -u
}
union=""
for c in $commands $analyzers; do
  [ "$c" = help ] && continue
  offered=$(complete_line "$c" - | xargs)
  union="$union $offered"
  missing=""
  for o in $("$PERFPIPE" "$c" --help 2>&1 | help_options); do
    [[ " $offered " == *" $o "* ]] || missing="$missing $o"
  done
  [ -z "$missing" ] && ok "$c -<TAB> offers every option of \`$c --help\`" ||
    bad "$c -<TAB> lacks$missing (offered: $offered)"
  for g in --wide --weight --help; do
    [[ " $offered " == *" $g "* ]] || bad "$c -<TAB> lacks the global $g"
  done
  fmts=$(complete_line "$c" --format "" | xargs)
  [ -n "$fmts" ] && ok "$c --format <TAB> offers formats ($fmts)" || bad "$c --format <TAB> offers nothing"
done
expect_has "help --<TAB> offers --list" "--list" help --
# Every option of perfpipe --help (the global ones: --wide, --weight...)
# completes somewhere.
for o in $("$PERFPIPE" --help | help_options); do
  case $o in --help|--version|--list) continue ;; esac
  [[ " $union " == *" $o "* ]] && ok "perfpipe --help's $o completes" || bad "perfpipe --help's $o completes nowhere"
done
# Every long option of every getopt table in cli/ completes for some
# command: an option missing from every help text fails here.
for o in $(sed -n '/struct option .*\[\] = {/,/};/p' "$SRC"/cli/*.c |
             grep -oE '^\s*\{ "[a-z][a-z0-9-]*"' | grep -oE '[a-z][a-z0-9-]*' | sort -u); do
  [[ " $union " == *" --$o "* ]] && ok "getopt --$o completes" || bad "getopt --$o (cli/) completes for no command"
done
# Every format completes after an analyzer's --format.
for f in $formats; do
  expect_has "alloc --format <TAB> offers $f" "$f" alloc x --format ""
done
# run <TAB>: the pipelines (the shipped ones, from the source tree here).
for y in "$SRC"/etc/perfpipe/pipelines/*.yaml; do
  n=$(basename "$y" .yaml)
  expect_has "run <TAB> offers the pipeline $n" "$n" run ""
  expect_has "validate <TAB> offers the pipeline $n" "$n" validate ""
done

# zsh: the completion function with the completion system's builtins
# replaced by ones that print what would be offered.
zsh_complete() {  # zsh_complete WORD... (the last is the word being completed)
  zsh -f -c '
    compadd() { local i=${@[(i)--]}; print -l -- ${@[i+1,-1]} }
    _describe() { local a=${@[-1]}; print -l -- ${${(P)a}%%:*} }
    _files() { print -- "<files>" }
    words=("$@"); CURRENT=$#; PREFIX=${words[-1]}
    source "$COMPLETION"' zsh "$PERFPIPE" "$@" 2>&1 | sort | xargs
}
if command -v zsh >/dev/null; then
  export COMPLETION=$SRC/completion/_perfpipe
  zsh -n "$COMPLETION" && ok "zsh completion parses" || bad "zsh -n completion/_perfpipe"
  got=$(zsh_complete "")
  for w in run candidates alloc spans $commands; do
    [[ " $got " == *" $w "* ]] && ok "zsh: first word offers $w" || bad "zsh: first word lacks $w: $got"
  done
  want=$("$PERFPIPE" describe cpu --format names | sort | xargs)
  [ "$(zsh_complete cpu x.nettrace --option "")" = "$want" ] && ok "zsh: cpu --option offers cpu's options" ||
    bad "zsh: cpu --option: $(zsh_complete cpu x.nettrace --option "")"
  [ "$(zsh_complete alloc x --format "")" = "$formats" ] &&
    ok "zsh: --format offers the formats" || bad "zsh: --format: $(zsh_complete alloc x --format "")"
  [ "$(zsh_complete describe "")" = "$analyzers" ] && ok "zsh: describe offers the analyzers" ||
    bad "zsh: describe: $(zsh_complete describe "")"
  got=$(zsh_complete run "")
  for y in "$SRC"/etc/perfpipe/pipelines/*.yaml; do
    [[ " $got " == *" $(basename "$y" .yaml) "* ]] || bad "zsh: run <TAB> lacks $(basename "$y" .yaml): $got"
  done
  [[ " $got " == *" alloc "* ]] && ok "zsh: run <TAB> offers pipelines" || bad "zsh: run <TAB>: $got"
  for c in $commands; do
    [ "$c" = help ] && continue
    got=$(zsh_complete "$c" -)
    missing=""
    for o in $("$PERFPIPE" "$c" --help 2>&1 | help_options); do
      [[ " $got " == *" $o "* ]] || missing="$missing $o"
    done
    [ -z "$missing" ] && ok "zsh: $c -<TAB> offers its help's options" || bad "zsh: $c -<TAB> lacks$missing"
  done
  [ "$(zsh_complete alloc "")" = "<files>" ] && ok "zsh: an analyzer's argument is a file" ||
    bad "zsh: alloc arg: $(zsh_complete alloc "")"
else
  echo "SKIP: zsh not installed (the zsh completion checks)"
fi
head -1 "$SRC/completion/_perfpipe" | grep -qx '#compdef perfpipe' && ok "zsh completion declares #compdef perfpipe" ||
  bad "zsh completion lacks #compdef"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
