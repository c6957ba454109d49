#!/bin/bash
# --format pprof obeys the -o rules of every format, and a pipeline writes
# one pprof per stage with `path: "...${stage}..."`:
#  - the file is gzip (the magic 1f 8b) and equal runs give equal bytes;
#  - a write error (/dev/full) is a documented exit 5 (output) with one
#    line, and a failed write leaves no file and no temporary file behind
#    (a directory that does not exist; a read-only one, unless root);
#  - a two-stage pipeline (a heap and a heap diff) writes x-heap.pb.gz and
#    x-diff.pb.gz, each the pprof `perfpipe gcdump`/`gcdump-diff` writes of
#    the same stage alone.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
trace="$DATA/cpu-sampled.nettrace"

"$PERFPIPE" cpu "$trace" --format pprof -o "$tmp/a.pb.gz" &&
"$PERFPIPE" cpu "$trace" --format pprof -o "$tmp/b.pb.gz" &&
[ "$(head -c 2 "$tmp/a.pb.gz" | od -An -tx1 | tr -d ' ')" = 1f8b ] && cmp -s "$tmp/a.pb.gz" "$tmp/b.pb.gz" &&
  gzip -t "$tmp/a.pb.gz" && ok "gzip, the same bytes twice" || ko "gzip, the same bytes twice"

if [ -w /dev/full ]; then
  "$PERFPIPE" cpu "$trace" --format pprof -o /dev/full 2>"$tmp/err"; rc=$?
  [ $rc = 5 ] && [ "$(wc -l <"$tmp/err")" = 1 ] && ok "/dev/full: exit 5, one line ($(cat "$tmp/err"))" ||
    ko "/dev/full: exit $rc: $(cat "$tmp/err")"
fi
"$PERFPIPE" cpu "$trace" --format pprof -o "$tmp/nodir/x.pb.gz" 2>"$tmp/err"; rc=$?
[ $rc != 0 ] && [ ! -e "$tmp/nodir" ] && ok "missing directory: exit $rc, nothing written" ||
  ko "missing directory: exit $rc"
if [ "$(id -u)" != 0 ]; then
  mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
  "$PERFPIPE" cpu "$trace" --format pprof -o "$tmp/ro/x.pb.gz" 2>"$tmp/err"; rc=$?
  [ $rc != 0 ] && [ -z "$(ls -A "$tmp/ro")" ] && ok "read-only directory: exit $rc, nothing left" ||
    ko "read-only directory: exit $rc, left: $(ls -A "$tmp/ro")"
fi

cat >"$tmp/p.yaml" <<EOF
version: 1
name: two-heaps
inputs:
  baseline: { kind: gcdump, path: "$DATA/leak-before.gcdump" }
  candidate: { kind: gcdump, path: "$DATA/leak-after.gcdump" }
stages:
  - id: heap
    analyzer: gcdump
    input: candidate
    options: { top: 0 }
  - id: diff
    analyzer: gcdump-diff
    inputs: [baseline, candidate]
    options: { top: 0 }
outputs:
  - { format: pprof, path: "$tmp/x-\${stage}.pb.gz" }
EOF
"$PERFPIPE" run "$tmp/p.yaml" 2>"$tmp/err" &&
"$PERFPIPE" gcdump "$DATA/leak-after.gcdump" --format pprof -o "$tmp/heap.pb.gz" &&
"$PERFPIPE" gcdump-diff "$DATA/leak-before.gcdump" "$DATA/leak-after.gcdump" --format pprof -o "$tmp/diff.pb.gz" ||
  ko "pipeline run: $(head -1 "$tmp/err")"
# the comments name the pipeline and inputs: compare the profiles' samples
# (with Go's pprof), not the bytes
if [ -f "$tmp/x-heap.pb.gz" ] && [ -f "$tmp/x-diff.pb.gz" ] && [ ! -e "$tmp/x-\${stage}.pb.gz" ]; then
  same=1
  for s in heap diff; do
    gzip -dc "$tmp/x-$s.pb.gz" | grep -aq "stage $s" || same=0
    # with Go's pprof, the samples themselves
    if command -v go >/dev/null 2>&1; then
      go tool pprof -raw "$tmp/x-$s.pb.gz" 2>/dev/null | sed -n '/^Samples:/,$p' >"$tmp/x-$s.raw"
      go tool pprof -raw "$tmp/$s.pb.gz" 2>/dev/null | sed -n '/^Samples:/,$p' >"$tmp/$s.raw"
      [ -s "$tmp/$s.raw" ] && cmp -s "$tmp/x-$s.raw" "$tmp/$s.raw" || same=0
    fi
  done
  [ $same = 1 ] && ok "one pprof per stage: x-heap.pb.gz, x-diff.pb.gz" || ko "per-stage files differ from the single runs"
else
  ko "per-stage outputs missing: $(ls "$tmp")"
fi
echo "pprof output: $pass passed, $fail failed"
[ $fail = 0 ]
