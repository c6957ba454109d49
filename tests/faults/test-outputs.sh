#!/bin/bash
# Outputs and input edges, round three (issue 43). Each check failed on
# main (5f8a11f):
#   - a CSV directory is a set: a full disk (the injector fails the 3rd
#     write with ENOSPC) leaves no new directory at all and an existing
#     one as it was (main: 2 of 9 tables left), exit 5, and the error line
#     names the file (main: 7 identical lines naming none);
#   - a read-only output file is refused (exit 5, one line, file intact);
#     main replaced it; --force replaces it (on 733c9a9 --force was exit 2);
#   - a cut NDJSON span stream is read to its last whole document, the cut
#     in the input's damage record (main: exit 3);
#   - counters rows whose time goes back (spliced, repeated after time
#     moved on, reversed) are flagged: the stage is partial (main: ok);
#   - a counters row missing columns and bad JSON name file:line:column.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
command -v python3 >/dev/null || { echo "SKIP: python3 reads the documents"; exit 77; }
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
trace=$DATA/alloc-exact.nettrace

# --- the CSV directory as a set, on a full disk -------------------------
shim=
if ! ldd "$PERFPIPE" 2>/dev/null | grep -q libasan &&
   ${CC:-cc} -O1 -shared -fPIC -o "$tmp/iofault.so" "$SRC/tests/faults/iofault.c" -ldl 2>/dev/null; then
  shim=$tmp/iofault.so
fi
full() { env PP_IOFAULT_OP=write PP_IOFAULT_N=3 PP_IOFAULT_ERRNO=ENOSPC LD_PRELOAD="$shim" "$@"; }
if [ -n "$shim" ]; then
  (cd "$tmp" && full "$PERFPIPE" alloc "$trace" --format csv -o new/ 2>"$tmp/new.err"); rc=$?
  check "full disk, new CSV directory: exit 5 ($rc)" [ "$rc" = 5 ]
  check "full disk, new CSV directory: nothing left (no partial set, no temporary)" \
    [ -z "$(ls -A "$tmp" | grep -v -E '^(iofault.so|new.err)$')" ]
  check "full disk: the error line names the file" grep -q -E '^perfpipe: new/[a-z_]+\.csv: cannot write: .*No space left' "$tmp/new.err"
  check "full disk: one error line, not one per table" [ "$(grep -c . "$tmp/new.err")" = 1 ]
  mkdir "$tmp/old"; echo old >"$tmp/old/by_type.csv"; echo mine >"$tmp/old/notes.txt"
  (cd "$tmp" && full "$PERFPIPE" alloc "$trace" --format csv -o old/ 2>/dev/null); rc=$?
  check "full disk, existing CSV directory: exit 5, as it was" \
    [ "$rc" = 5 ] && [ "$(ls "$tmp/old" | tr '\n' ' ')" = "by_type.csv notes.txt " ] &&
    [ "$(cat "$tmp/old/by_type.csv")" = old ]
  rm -rf "$tmp/old" "$tmp/new.err"
else
  echo "(the injector cannot be preloaded here: ASan build or no cc; full-disk checks skipped)"
fi
(cd "$tmp" && "$PERFPIPE" alloc "$trace" --format csv -o set/ 2>/dev/null); rc=$?
check "CSV directory: written whole (exit $rc, 9 files, mode of mkdir)" \
  [ "$rc" = 0 ] && [ "$(ls "$tmp/set" | wc -l)" = 9 ] &&
  [ "$(stat -c %a "$tmp/set")" = "$(printf '%o' $((0777 & ~$(umask))))" ]
check "CSV directory: no temporary directory beside it" [ -z "$(ls "$tmp" | grep '^set\.')" ]
rm -rf "$tmp/set"

# --- a read-only target --------------------------------------------------
echo precious >"$tmp/ro.json"; chmod 444 "$tmp/ro.json"
"$PERFPIPE" alloc "$trace" --format json -o "$tmp/ro.json" 2>"$tmp/ro.err"; rc=$?
check "read-only target: exit 5 ($rc)" [ "$rc" = 5 ]
check "read-only target: untouched" [ "$(cat "$tmp/ro.json")" = precious ]
check "read-only target: one line naming it" \
  [ "$(grep -c . "$tmp/ro.err")" = 1 ] && grep -q "ro.json: cannot write: the file is read-only" "$tmp/ro.err"
check "read-only target: the line says what to do (--force)" grep -q -- "--force" "$tmp/ro.err"
# --force replaces it (the mode stays), for every command that has -o
# (main: --force was an unknown option, exit 2, the file kept).
"$PERFPIPE" alloc "$trace" --format json -o "$tmp/ro.json" --force 2>"$tmp/ro.err"; rc=$?
check "read-only target, --force: exit 0, replaced ($rc)" \
  [ "$rc" = 0 ] && [ "$(q "$tmp/ro.json" "d['stages'][0]['status']")" = ok ]
check "read-only target, --force: its mode kept ($(stat -c %a "$tmp/ro.json"))" [ "$(stat -c %a "$tmp/ro.json")" = 444 ]
cp "$tmp/ro.json" "$tmp/doc.json"
for cmd in "render $tmp/doc.json --format json" "compare $tmp/doc.json $tmp/doc.json --format json" \
           "candidates $tmp/doc.json --format json" "inspect $trace --format json"; do
  echo precious >"$tmp/ro2.json"; chmod 444 "$tmp/ro2.json"
  # shellcheck disable=SC2086
  "$PERFPIPE" $cmd -o "$tmp/ro2.json" 2>/dev/null; rc=$?
  check "${cmd%% *}: a read-only -o refused (exit $rc)" [ "$rc" = 5 ] && [ "$(cat "$tmp/ro2.json")" = precious ]
  # shellcheck disable=SC2086
  "$PERFPIPE" $cmd -o "$tmp/ro2.json" --force 2>/dev/null; rc=$?
  check "${cmd%% *} --force: replaced (exit $rc)" [ "$rc" = 0 ] && [ "$(cat "$tmp/ro2.json")" != precious ]
  rm -f "$tmp/ro2.json"
done
mkdir "$tmp/rocsv"; echo old >"$tmp/rocsv/by_type.csv"; chmod 444 "$tmp/rocsv/by_type.csv"
"$PERFPIPE" alloc "$trace" --format csv -o "$tmp/rocsv/" 2>"$tmp/rocsv.err"; rc=$?
check "CSV set with a read-only file: refused whole (exit $rc)" \
  [ "$rc" = 5 ] && [ "$(ls "$tmp/rocsv")" = by_type.csv ] && [ "$(cat "$tmp/rocsv/by_type.csv")" = old ]
"$PERFPIPE" alloc "$trace" --format csv -o "$tmp/rocsv/" --force 2>/dev/null; rc=$?
check "CSV set with a read-only file, --force: written whole (exit $rc)" \
  [ "$rc" = 0 ] && [ "$(ls "$tmp/rocsv" | wc -l)" = 9 ] && [ "$(cat "$tmp/rocsv/by_type.csv")" != old ]
chmod 644 "$tmp/ro.json"
"$PERFPIPE" alloc "$trace" --format json -o "$tmp/ro.json" 2>/dev/null
check "made writable, it is replaced" [ "$(q "$tmp/ro.json" "d['stages'][0]['status']")" = ok ]

# --- a cut NDJSON span stream ---------------------------------------------
python3 - "$DATA/web-spans.otlp.json" "$tmp" <<'PY'
import json, sys
s = json.dumps(json.load(open(sys.argv[1])))
open(sys.argv[2] + "/whole.ndjson", "w").write(s + "\n" + s + "\n")
open(sys.argv[2] + "/cut.ndjson", "w").write(s + "\n" + s[: len(s) // 2])
PY
"$PERFPIPE" spans "$tmp/whole.ndjson" --format json >"$tmp/whole.json" 2>/dev/null
"$PERFPIPE" spans "$tmp/cut.ndjson" --format json >"$tmp/cut.json" 2>"$tmp/cut.err"; rc=$?
check "cut NDJSON spans: read (exit $rc)" [ "$rc" = 0 ]
n1=$(q "$tmp/whole.json" "d['inputs'][0]['spans']"); n2=$(q "$tmp/cut.json" "d['inputs'][0]['spans']")
check "cut NDJSON spans: the whole first document's spans ($n2 of $n1)" [ -n "$n1" ] && [ "$n2" = $((n1 / 2)) ]
check "cut NDJSON spans: truncated_at is where the cut document starts" \
  [ "$(q "$tmp/cut.json" "d['inputs'][0]['damage']['truncated_at']")" = "$(( $(head -1 "$tmp/cut.ndjson" | wc -c) ))" ]
check "cut NDJSON spans: the stage is partial, the cut said" \
  [ "$(q "$tmp/cut.json" "d['stages'][0]['status']")" = partial ] && grep -q "truncated at byte" "$tmp/cut.err"
check "whole NDJSON spans: no damage" [ "$(q "$tmp/whole.json" "d['stages'][0]['status']")" = ok ]
head -c 100 "$DATA/web-spans.otlp.json" >"$tmp/one-cut.json"
"$PERFPIPE" spans "$tmp/one-cut.json" --format json >/dev/null 2>"$tmp/one.err"; rc=$?
check "a single cut document is still refused with file:line:column (exit $rc)" \
  [ "$rc" = 3 ] && grep -q -E "one-cut.json:[0-9]+:[0-9]+: " "$tmp/one.err"

# --- counters rows out of time order ---------------------------------------
csv=$DATA/churn-counters.csv
rows=$(($(wc -l <"$csv") - 1))
{ head -1 "$csv"; sed -n "$((rows / 2 + 2)),\$p" "$csv"; sed -n "2,$((rows / 2 + 1))p" "$csv"; } >"$tmp/spliced.csv"
{ head -1 "$csv"; tail -n +2 "$csv" | tac; } >"$tmp/reversed.csv"
{ cat "$csv"; sed -n "2,40p" "$csv"; } >"$tmp/repeated.csv"
for f in spliced reversed repeated; do
  "$PERFPIPE" counters-csv "$tmp/$f.csv" --format json >"$tmp/$f.json" 2>"$tmp/$f.err"; rc=$?
  check "counters $f: read, exit 0 ($rc)" [ "$rc" = 0 ]
  check "counters $f: flagged (stage partial, reader warning)" \
    [ "$(q "$tmp/$f.json" "d['stages'][0]['status'], d['inputs'][0]['damage']['reader_warnings'] > 0")" = "partial True" ]
  check "counters $f: the warning names the file and says why" grep -q "$f.csv.*time goes back" "$tmp/$f.err"
done
for f in churn-counters.csv churn-counters.json leak-counters.csv leak-counters.json; do
  "$PERFPIPE" counters-csv "$DATA/$f" --format json >"$tmp/c.json" 2>/dev/null
  check "counters $f (a real capture): not flagged" [ "$(q "$tmp/c.json" "d['stages'][0]['status']")" = ok ]
done
{ head -3 "$csv"; echo "11/29/2026 15:30:22,System.Runtime,dotnet.timer.count ({timer})"; } >"$tmp/short.csv"
"$PERFPIPE" counters-csv "$tmp/short.csv" --format json >/dev/null 2>"$tmp/short.err"; rc=$?
check "counters row missing columns: exit 3, file:line:column ($rc)" \
  [ "$rc" = 3 ] && grep -q "short.csv:4:1: expected 5 fields" "$tmp/short.err"

# --- plugin boundary: NaN/Inf cells; chdir in create and relative inputs --
FAULTS=${PP_BUILDDIR:-$(dirname "$PERFPIPE")}/tests/faults/.libs
if [ -f "$FAULTS/fault-nan.so" ] && [ -f "$FAULTS/fault-chdir.so" ] && [ -f "$FAULTS/fault-dupkey.so" ]; then
  cat >"$tmp/nan.yaml" <<YAML
version: 1
name: nan
inputs:
  trace: { kind: nettrace, path: "$trace" }
stages:
  - { id: bad, analyzer: fault-nan, input: trace }
outputs:
  - { format: json }
YAML
  "$PERFPIPE" run "$tmp/nan.yaml" --plugin-dir "$FAULTS" >"$tmp/nan.json" 2>/dev/null; rc=$?
  check "NaN/Inf cells: exit 0, valid JSON, written as null ($rc)" \
    [ "$(q "$tmp/nan.json" "[r[1] for t in d['stages'][0]['tables'] if t['name']=='figures' for r in t['rows']]")" = "[None, None, None, 1.5]" ]
  check "NaN/Inf cells: flagged once (result.nonfinite)" \
    [ "$(q "$tmp/nan.json" "[f['code'] for f in d['stages'][0]['findings']].count('result.nonfinite')")" = 1 ]
  for f in csv table markdown html; do
    "$PERFPIPE" render "$tmp/nan.json" --format $f >/dev/null 2>&1
    check "NaN/Inf cells: --format $f renders" [ $? = 0 ]
  done
  # Rows repeating a key (main: no word of it, and compare judged by
  # whichever row the join kept: exit 0).
  sed 's/fault-nan/fault-dupkey/' "$tmp/nan.yaml" >"$tmp/dup.yaml"
  "$PERFPIPE" run "$tmp/dup.yaml" --plugin-dir "$FAULTS" >"$tmp/dup.json" 2>"$tmp/dup.err"; rc=$?
  check "duplicate keys: exit 0, every row kept as given ($rc)" [ "$rc" = 0 ] && \
    [ "$(q "$tmp/dup.json" "[r for t in d['stages'][0]['tables'] if t['name']=='dups' for r in t['rows']]")" = "[['a', 1], ['b', 2], ['a', 3]]" ]
  check "duplicate keys: one result.duplicate_key finding naming the table and the key" \
    [ "$(q "$tmp/dup.json" "[f['severity'] + ' ' + f['message'].split(';')[0] for f in d['stages'][0]['findings'] if f['code']=='result.duplicate_key']")" = \
      "['warning table dups: 1 row repeats the key of an earlier row (first: row 2, key [\"a\"])']" ]
  check "duplicate keys: the table with unique keys is not flagged" \
    [ "$(q "$tmp/nan.json" "[f['code'] for f in d['stages'][0]['findings']].count('result.duplicate_key')")" = 0 ]
  "$PERFPIPE" compare --fail-on regression "$tmp/dup.json" "$tmp/dup.json" --format json >"$tmp/dupc.json" 2>/dev/null; rc=$?
  check "duplicate keys: compare cannot judge (exit $rc)" [ "$rc" = 6 ]
  check "duplicate keys: compare names the ambiguous table" \
    grep -q "stage bad table dups: 1 row repeats a key" <(q "$tmp/dupc.json" "d['compared']['cannot_judge']")
  mkdir -p "$tmp/rel/elsewhere"; cp "$trace" "$tmp/rel/t.nettrace"
  cat >"$tmp/rel/p.yaml" <<'YAML'
version: 1
name: rel
inputs:
  first: { kind: nettrace, path: "t.nettrace" }
  second: { kind: nettrace, path: "t.nettrace" }
stages:
  - { id: bad, analyzer: fault-chdir, input: first }
  - { id: alloc, analyzer: alloc, input: second }
outputs:
  - { format: json }
YAML
  (cd "$tmp/rel" && PP_FAULT_DIR=$tmp/rel/elsewhere "$PERFPIPE" run p.yaml --plugin-dir "$FAULTS" \
     --format json -o r.json 2>"$tmp/rel.err"); rc=$?
  check "chdir in create: relative inputs were resolved before it (exit $rc)" \
    [ "$rc" = 0 ] && [ "$(q "$tmp/rel/r.json" "[s['status'] for s in d['stages']], [i['path'] for i in d['inputs']]")" = "['ok', 'ok'] ['t.nettrace', 't.nettrace']" ]
fi

# --- plugins writable by every user ---------------------------------------
PLUGINS=${PP_BUILDDIR:-$(dirname "$PERFPIPE")}/plugins/.libs
if [ -f "$PLUGINS/alloc.so" ]; then
  for what in file dir; do
    pd=$tmp/pd-$what; mkdir -p "$pd"; cp "$PLUGINS/alloc.so" "$pd/"
    if [ $what = file ]; then chmod 755 "$pd"; chmod 666 "$pd/alloc.so"; shown=$pd/alloc.so
    else chmod 777 "$pd"; chmod 644 "$pd/alloc.so"; shown=$pd; fi
    "$PERFPIPE" alloc "$trace" --plugin-dir "$pd" --format json >"$tmp/w.json" 2>"$tmp/w.err"; rc=$?
    if [ "$(id -u)" = 0 ]; then
      check "world-writable plugin $what, as root: refused, exit 4 ($rc)" [ "$rc" = 4 ]
      check "world-writable plugin $what: the line names $shown" grep -q "^perfpipe: .*$shown: writable by every user" "$tmp/w.err"
      PERFPIPE_ALLOW_WRITABLE_PLUGINS=1 "$PERFPIPE" alloc "$trace" --plugin-dir "$pd" --format json >/dev/null 2>"$tmp/w.err"; rc=$?
      check "world-writable plugin $what, forced: loaded with a warning (exit $rc)" \
        [ "$rc" = 0 ] && grep -q "^perfpipe: warning: $shown: writable by every user" "$tmp/w.err"
    else
      check "world-writable plugin $what: loaded with a warning (exit $rc)" \
        [ "$rc" = 0 ] && grep -q "^perfpipe: warning: $shown: writable by every user" "$tmp/w.err"
    fi
    chmod 755 "$pd"; chmod 644 "$pd/alloc.so"
    "$PERFPIPE" alloc "$trace" --plugin-dir "$pd" --format json >/dev/null 2>"$tmp/w.err"
    check "plugin $what not writable by others: no warning" [ ! -s "$tmp/w.err" ]
  done
fi

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
