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

analyzers="alloc bench counters-csv cpu db gcdump gcdump-diff spans"
for a in $analyzers run validate inspect render compare candidates plugins describe help; do
  expect_has "first word offers $a" "$a" ""
done
expect_words "al<TAB> is alloc" "alloc" al
expect_words "c<TAB>: commands and analyzers" "candidates compare counters-csv cpu" c
expect_words "-<TAB> at the top" "--help --version" -
expect_words "describe <TAB>: the analyzers" "$analyzers" describe ""
expect_words "help c<TAB>" "candidates compare counters-csv cpu" help c
# Options of the chosen analyzer, from its descriptor (describe --format names).
want=$("$PERFPIPE" describe cpu --format names | sed 's/$/=/' | sort | xargs)
[ -n "$want" ] && expect_words "cpu --option <TAB>: cpu's options" "$want" cpu x.nettrace --option ""
expect_has "alloc --option fr<TAB>: framework=" "framework=" alloc x --option fr
expect_words "alloc --option to<TAB>: top= top-stacks= to=" "to= top-stacks= top=" alloc x --option to
expect_words "--format s<TAB>" "speedscope svg" cpu x --format s
expect_words "--format <TAB>: every format" "csv folded json markdown pprof speedscope svg table" alloc x --format ""
expect_words "plugins --format <TAB>" "json names table" plugins --format ""
expect_words "compare --format <TAB>: no stack formats" "csv json markdown table" compare a b --format ""
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
  for w in run candidates alloc spans; do
    [[ " $got " == *" $w "* ]] && ok "zsh: first word offers $w" || bad "zsh: first word lacks $w: $got"
  done
  want=$("$PERFPIPE" describe cpu --format names | sort | xargs)
  [ "$(zsh_complete cpu x.nettrace --option "")" = "$want" ] && ok "zsh: cpu --option offers cpu's options" ||
    bad "zsh: cpu --option: $(zsh_complete cpu x.nettrace --option "")"
  [ "$(zsh_complete alloc x --format "")" = "csv folded json markdown pprof speedscope svg table" ] &&
    ok "zsh: --format offers the formats" || bad "zsh: --format: $(zsh_complete alloc x --format "")"
  [ "$(zsh_complete describe "")" = "$analyzers" ] && ok "zsh: describe offers the analyzers" ||
    bad "zsh: describe: $(zsh_complete describe "")"
  [ "$(zsh_complete alloc "")" = "<files>" ] && ok "zsh: an analyzer's argument is a file" ||
    bad "zsh: alloc arg: $(zsh_complete alloc "")"
else
  echo "SKIP: zsh not installed (the zsh completion checks)"
fi
head -1 "$SRC/completion/_perfpipe" | grep -qx '#compdef perfpipe' && ok "zsh completion declares #compdef perfpipe" ||
  bad "zsh completion lacks #compdef"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
