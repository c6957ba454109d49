#!/bin/bash
# HACKING.md's "Adding an analyzer" recipe, followed as written: copy the
# source tree, write the files and the one line the recipe's code blocks
# name (`file: PATH` = a new file, `line: PATH` = lines appended), bootstrap,
# configure, build perfpipe and the new plugin, and run it from the build
# tree on a real capture. If the recipe drifts from the tree, this fails.
# Exit: 0 pass, 1 fail, 77 skip (not a git checkout, e.g. under distcheck;
# or autoreconf missing).
set -uo pipefail
src=${PP_SRCDIR:?}
[ -e "$src/.git" ] || { echo "SKIP: not a git checkout (the copy is made with git ls-files)"; exit 77; }
command -v autoreconf >/dev/null || { echo "SKIP: no autoreconf"; exit 77; }
work=$(mktemp -d /tmp/pp-hacking.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

tree=$work/tree
mkdir -p "$tree"
(cd "$src" && git ls-files -z --cached --others --exclude-standard -- ':!:tests/data/*.nettrace' \
   ':!:tests/data/*.gcdump' | xargs -0 cp --parents -t "$tree" 2>/dev/null) || fail "copy of the tree"

# The recipe's blocks: "# file: P" / "/* file: P */" start a new file P,
# "# line: P" appends the block to P.
python3 - "$src/HACKING.md" "$tree" <<'PY' || fail "extracting the recipe"
import re, sys, os
text = open(sys.argv[1]).read()
sec = text[text.index('## Adding an analyzer'):]
sec = sec[:sec.index('\n## ', 3)]
n = 0
for body in re.findall(r'```[a-z]*\n(.*?)```', sec, re.S):
    first, rest = body.split('\n', 1)
    m = re.match(r'\s*(?:#|/\*)\s*(file|line):\s*(\S+?)\s*(?:\*/)?\s*$', first)
    if not m:
        continue
    path = os.path.join(sys.argv[2], m.group(2))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w' if m.group(1) == 'file' else 'a') as f:
        f.write(body if m.group(1) == 'file' else rest)
    n += 1
assert n == 3, "expected two files and one line in the recipe, found %d blocks" % n
PY
[ -f "$tree/plugins/hello/hello.c" ] || fail "the recipe wrote no plugins/hello/hello.c"
changed=$(cd "$src" && diff <(cat plugins/Makefile.inc) "$tree/plugins/Makefile.inc" | grep -c '^>')
[ "$changed" = 1 ] || fail "the recipe changed $changed lines of plugins/Makefile.inc, not one"

cd "$tree" && autoreconf -fi >autoreconf.log 2>&1 || { cat autoreconf.log; fail "autoreconf"; }
mkdir _build && cd _build
../configure -q >configure.log 2>&1 || { tail -20 configure.log; fail "configure"; }
make -s -j"${PP_JOBS:-2}" perfpipe plugins/hello.la >make.log 2>&1 || { tail -30 make.log; fail "make"; }
echo "PASS: the tree with plugins/hello builds"

out=$(env -u PERFPIPE_PLUGIN_PATH ./perfpipe describe hello 2>&1) || fail "describe hello: $out"
grep -q 'counts the records of its input' <<<"$out" || fail "describe hello says: $out"
echo "PASS: the build tree's perfpipe finds and describes hello"

cat >hello.yaml <<YAML
version: 1
name: hello
inputs:
  trace: { kind: nettrace, path: "$src/tests/data/alloc-gcverbose.nettrace" }
stages:
  - { id: hello, analyzer: hello, input: trace }
outputs:
  - { format: json }
YAML
env -u PERFPIPE_PLUGIN_PATH ./perfpipe run ./hello.yaml >hello.json 2>run.err || { cat run.err; fail "run"; }
# The number it must print is TraceEvent's: the oracle's event count.
python3 - hello.json "$src/tests/data/alloc-gcverbose.oracle.json" <<'PY' || fail "hello's count"
import json, sys
doc = json.load(open(sys.argv[1]))
oracle = json.load(open(sys.argv[2]))
got = doc["stages"][0]["totals"]["records"]["value"]
want = oracle["raw"]["total_events"]
assert got == want, "hello counted %d records, TraceEvent %d events" % (got, want)
print("PASS: hello counted %d records, as many as TraceEvent's events" % got)
PY
