#!/bin/bash
# Outputs never destroy: a device node stays a node, a FIFO stays a FIFO and
# gets the document, a symlink stays a link, modes follow the umask, an input
# is never overwritten under another name, knob values cannot move an output
# or forge an index row, interrupted writes leave no temporary file.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; [ -s "$tmp/err" ] && sed 's/^/  stderr: /' "$tmp/err" | head -3; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }
run() { "$@" >"$tmp/out" 2>"$tmp/err"; echo $? >"$tmp/rc"; }
rc() { [ "$(cat "$tmp/rc")" -eq "$1" ]; }
trace=$DATA/alloc-gcverbose.nettrace
gold=$tmp/gold.json
"$PERFPIPE" alloc "$trace" --format json -o "$gold" 2>/dev/null || { echo "FAIL: cannot make the reference"; exit 1; }

# A regular file: replaced whole, 0666 & ~umask when new, mode kept when replaced.
(umask 022; run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/new.json")
check "new file: exit 0" rc 0
check "umask 022 gives 0644" [ "$(stat -c %a "$tmp/new.json")" = 644 ]
check "new file holds the document" cmp -s "$tmp/new.json" "$gold"
chmod 640 "$tmp/new.json"
(umask 077; run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/new.json")
check "a replaced file keeps its mode" [ "$(stat -c %a "$tmp/new.json")" = 640 ]

# A symlink: followed, its target replaced, the link kept.
echo old >"$tmp/target.json"; ln -s target.json "$tmp/link.json"
run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/link.json"
check "symlink: exit 0" rc 0
check "symlink stays a link" [ -L "$tmp/link.json" ]
check "symlink target gets the document" cmp -s "$tmp/target.json" "$gold"
ln -s dangling.json "$tmp/dangle.json"
run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/dangle.json"
check "dangling symlink: its target is created, the link kept" \
  eval '[ -L "$tmp/dangle.json" ] && cmp -s "$tmp/dangling.json" "$gold"'

# A FIFO with a reader: receives the document, stays a FIFO.
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" & reader=$!
run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/fifo"
wait "$reader"
check "fifo: exit 0" rc 0
check "fifo stays a fifo" [ -p "$tmp/fifo" ]
check "fifo reader got the document" cmp -s "$tmp/fifo.out" "$gold"

# A device node (root only: mknod): stays a node, a write error is exit 5.
if mknod "$tmp/full" c 1 7 2>/dev/null; then
  run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/full"
  check "device node: write error is exit 5" rc 5
  check "device node stays a character device" [ -c "$tmp/full" ]
  check "device node: the error names it" grep -q "$tmp/full" "$tmp/err"
else
  echo "SKIP: mknod needs root"
fi
run "$PERFPIPE" alloc "$trace" --format json -o /dev/null
check "/dev/null: exit 0" rc 0
check "/dev/null stays a device" [ -c /dev/null ]
if [ -w /dev/full ]; then
  run "$PERFPIPE" alloc "$trace" --format json -o /dev/full
  check "/dev/full: exit 5" rc 5
  check "/dev/full stays a device" [ -c /dev/full ]
  run "$PERFPIPE" alloc "$trace" --format json
  "$PERFPIPE" alloc "$trace" --format json >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
  check "stdout on a full device: exit 5" rc 5
  for cmd in plugins --help --version "describe alloc"; do
    "$PERFPIPE" $cmd >/dev/full 2>"$tmp/err"; echo $? >"$tmp/rc"
    check "perfpipe $cmd >/dev/full: exit 5" rc 5
  done
fi
mkdir "$tmp/dir"
run "$PERFPIPE" alloc "$trace" --format json -o "$tmp/dir"
check "a directory as output: exit 5, still a directory" eval 'rc 5 && [ -d "$tmp/dir" ]'

# The input under another name: refused, the capture intact.
cp "$trace" "$tmp/victim.nettrace"; ln "$tmp/victim.nettrace" "$tmp/hard.nettrace"
sum=$(md5sum <"$tmp/victim.nettrace")
(cd "$tmp" && run "$PERFPIPE" alloc victim.nettrace --format json -o ./victim.nettrace)
check "./victim as output of victim: usage error" rc 2
(cd "$tmp" && run "$PERFPIPE" alloc victim.nettrace --format json -o hard.nettrace)
check "a hard link to the input as output: usage error" rc 2
check "the capture is intact" [ "$(md5sum <"$tmp/victim.nettrace")" = "$sum" ]

# Knob values substituted into output paths are names, not paths.
cat >"$tmp/p.yaml" <<YAML
version: 1
name: outs
inputs:
  trace: { kind: nettrace, path: "$trace" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
outputs:
  - { format: json, path: "$tmp/o-\${scenario}.json" }
YAML
run "$PERFPIPE" run "$tmp/p.yaml" --set scenario=../escaped
check "a knob with '..' in an output path: usage error" rc 2
check "  ... names the variable" grep -q 'scenario' "$tmp/err"
check "  ... and nothing escaped" [ ! -e "$tmp/../escaped.json" ]
run "$PERFPIPE" run "$tmp/p.yaml" --set scenario=a/b
check "a knob with '/' in an output path: usage error" rc 2
run "$PERFPIPE" run "$tmp/p.yaml" --set "scenario=$(printf 'a\tb')"
check "a knob with a TAB in an output path: usage error" rc 2
run "$PERFPIPE" run "$tmp/p.yaml" --set scenario=plain
check "a plain knob value: exit 0" eval 'rc 0 && [ -s "$tmp/o-plain.json" ]'

# index.tsv escapes its fields: a TAB or newline in a knob forges nothing.
run "$PERFPIPE" alloc "$trace" --format json -o /dev/null --set "tag=$(printf 'x\ty\nforged\trow')" \
  --evidence-dir "$tmp/ev"
check "evidence with a control character in a knob: exit 0" rc 0
check "index.tsv: a header and one line" [ "$(wc -l <"$tmp/ev/index.tsv")" -eq 2 ]
check "index.tsv: five fields on the row" [ "$(sed -n 2p "$tmp/ev/index.tsv" | awk -F'\t' '{print NF}')" -eq 5 ]
check "index.tsv: the TAB is escaped" grep -qF 'x\ty\nforged\trow' "$tmp/ev/index.tsv"
check "evidence: no temporary files" [ -z "$(find "$tmp/ev" -name '*.??????')" ]
run "$PERFPIPE" alloc "$trace" --format json -o /dev/null --evidence-dir "$tmp/ev" --set tag=same
run "$PERFPIPE" alloc "$trace" --format json -o /dev/null --evidence-dir "$tmp/ev" --set tag=same
check "evidence never overwrites: 3 JSON files" [ "$(ls "$tmp/ev"/*.json | wc -l)" -eq 3 ]

# Interrupted while writing: no temporary file left beside the output. The
# signal is sent once the temporary file exists (rendering the svg of a cpu
# trace takes long enough to be caught).
for sig in INT TERM; do
  d=$tmp/sig$sig; mkdir -p "$d"
  "$PERFPIPE" cpu "$DATA/cpu-sampled.nettrace" --format svg -o "$d/out.svg" 2>/dev/null & pid=$!
  seen=0
  for _ in $(seq 1 2000); do
    if compgen -G "$d/out.svg.*" >/dev/null; then seen=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
  done
  [ $seen -eq 1 ] && kill -"$sig" "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  if [ $seen -eq 0 ]; then echo "SKIP: SIG$sig: the write was over before it could be caught"; continue; fi
  check "SIG$sig: no temporary file left" [ -z "$(compgen -G "$d/out.svg.*")" ]
  check "SIG$sig: the final name holds nothing or the whole document" \
    eval '[ ! -e "$d/out.svg" ] || tail -c 7 "$d/out.svg" | grep -q "</svg>"'
done

echo "outputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
