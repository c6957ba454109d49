#!/bin/bash
# Compressed captures (issue #40): a trace, a heap dump and a counters CSV
# compressed with xz, gzip and zstd at test time read as the originals do
# (same tables, findings and content hash: the hash is of the capture, not
# of its packing); a damaged or cut compressed file is one line naming the
# byte of the compressed file, exit 3; a file that decompresses past the
# bound is refused as a decompression bomb.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
T=$DATA/alloc-exact.nettrace

# same NAME PLAIN.json PACKED.json FORMAT: one document but for the input's
# path and its `compressed` entry.
same() {
  check "$1" "$2" "$3" "$4" <<'EOF'
import json, sys
a, b, fmt = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
for i, j in zip(a["inputs"], b["inputs"]):
    assert j.get("compressed", {}).get("format") == fmt, j.get("compressed")
    assert i["hash"] == j["hash"], (i["hash"], j["hash"])
    for k in ("path", "compressed", "bytes"):
        i.pop(k, None); j.pop(k, None)
    assert i == j, (i, j)
for s, t in zip(a["stages"], b["stages"]):
    assert s == t, s["id"]
print(f'{fmt}: {len(a["stages"])} stage(s), {sum(len(t["rows"]) for s in a["stages"] for t in s["tables"])} rows alike; hash {a["inputs"][0]["hash"]["value"]}')
EOF
}

packers=("xz -c" "gzip -c" "zstd -q -c")
exts=(xz gz zst)
names=(xz gzip zstd)
run "alloc, plain" "$PERFPIPE" alloc "$T" --format json -o "$tmp/plain.json"
run "gcdump, plain" "$PERFPIPE" gcdump "$DATA/leak-before.gcdump" --format json -o "$tmp/gplain.json"
run "inspect, plain" "$PERFPIPE" inspect "$T" --format json -o "$tmp/iplain.json"
run "counters-csv, plain" "$PERFPIPE" counters-csv "$DATA/churn-counters.csv" --format json -o "$tmp/cplain.json"
for i in 0 1 2; do
  p=${packers[$i]} x=${exts[$i]} f=${names[$i]}
  if ! command -v "${p%% *}" >/dev/null; then echo "SKIP: ${p%% *} not installed"; continue; fi
  $p "$T" >"$tmp/a.nettrace.$x"
  run "alloc a.nettrace.$x" "$PERFPIPE" alloc "$tmp/a.nettrace.$x" --format json -o "$tmp/$x.json"
  same "alloc: the $f trace reads as the original" "$tmp/plain.json" "$tmp/$x.json" "$f"
  $p "$DATA/leak-before.gcdump" >"$tmp/h.gcdump.$x"
  run "gcdump h.gcdump.$x" "$PERFPIPE" gcdump "$tmp/h.gcdump.$x" --format json -o "$tmp/g$x.json"
  same "gcdump: the $f heap dump reads as the original" "$tmp/gplain.json" "$tmp/g$x.json" "$f"
  $p "$DATA/churn-counters.csv" >"$tmp/c.csv.$x"
  run "counters-csv c.csv.$x" "$PERFPIPE" counters-csv "$tmp/c.csv.$x" --format json -o "$tmp/c$x.json"
  same "counters-csv: the $f CSV reads as the original" "$tmp/cplain.json" "$tmp/c$x.json" "$f"

  # Damage: one byte in the middle of the compressed data changed.
  size=$(stat -c %s "$tmp/a.nettrace.$x")
  cp "$tmp/a.nettrace.$x" "$tmp/bad.nettrace.$x"
  printf '\x55' | dd of="$tmp/bad.nettrace.$x" bs=1 seek=$((size / 2)) conv=notrunc status=none
  expect 3 "alloc, a damaged $f trace: exit 3" -- "$PERFPIPE" alloc "$tmp/bad.nettrace.$x"
  has "$tmp/err" "$tmp/bad.nettrace.$x: damaged $f data at byte " "damaged $f: the file as given, the byte"
  lines "$tmp/err" 1 "damaged $f: one line"
  check "damaged $f: the byte is at or after the change, inside the file" "$tmp/err" "$((size / 2))" "$size" <<'EOF'
import re, sys
at = int(re.search(r"at byte (\d+) of the compressed file", open(sys.argv[1]).read()).group(1))
print(f"at byte {at} (changed {sys.argv[2]}, size {sys.argv[3]})")
assert int(sys.argv[2]) - 65536 <= at <= int(sys.argv[3]), at
EOF
  # Cut: the first half of the compressed file.
  head -c $((size / 2)) "$tmp/a.nettrace.$x" >"$tmp/cut.nettrace.$x"
  expect 3 "alloc, a cut $f trace: exit 3" -- "$PERFPIPE" alloc "$tmp/cut.nettrace.$x"
  has "$tmp/err" "$tmp/cut.nettrace.$x: the $f stream is cut at byte $((size / 2)) of the compressed file" \
    "cut $f: the file as given, where it ends"
  lines "$tmp/err" 1 "cut $f: one line"
  # inspect reads it as run does (the valgrind pass found it refused a
  # compressed fixture: "no Nettrace magic"), naming the file as given.
  run "inspect a.nettrace.$x" "$PERFPIPE" inspect "$tmp/a.nettrace.$x" --format json -o "$tmp/i$x.json"
  check "inspect: the $f trace has the original's facts" "$tmp/iplain.json" "$tmp/i$x.json" "$tmp/a.nettrace.$x" <<'EOF'
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert b["inputs"][0]["path"] == sys.argv[3], b["inputs"][0]["path"]
assert "/dev/fd/" not in json.dumps(b)
assert a["stages"] == b["stages"]
print("same stages:", len(a["stages"][0]["tables"][0]["rows"]), "event kinds")
EOF
  expect 3 "inspect, a cut $f trace: exit 3" -- "$PERFPIPE" inspect "$tmp/cut.nettrace.$x"
  has "$tmp/err" "$tmp/cut.nettrace.$x: the $f stream is cut at byte" "inspect, cut $f: the file as given"
  lines "$tmp/err" 1 "inspect, cut $f: one line"
  cp "$tmp/cut.nettrace.$x" "$tmp/cut.gcdump.$x"
  expect 3 "gcdump, a cut $f file: exit 3" -- "$PERFPIPE" gcdump "$tmp/cut.gcdump.$x"
  has "$tmp/err" "the $f stream is cut at byte" "gcdump, cut $f: the same line"
done

# The bound: 64 MiB of zeros (64 KiB compressed) under a bound of 32 MB;
# without PERFPIPE_UNPACK_MAX the bound is 200 x the compressed size, at
# least 256 MiB (unpack.h).
head -c $((64 << 20)) /dev/zero | xz -1 -c >"$tmp/zeros.gcdump.xz"
expect 3 "gcdump, 64 MiB of zeros under a 32 MB bound: refused" -- \
  env PERFPIPE_UNPACK_MAX=32000000 "$PERFPIPE" gcdump "$tmp/zeros.gcdump.xz"
has "$tmp/err" "decompresses to more than 32000000 bytes" "the bound, named"
has "$tmp/err" "decompression bomb" "... as a decompression bomb"
lines "$tmp/err" 1 "the bound: one line"
expect 3 "gcdump, the same zeros under the default bound: read, and not a heap dump" -- \
  "$PERFPIPE" gcdump "$tmp/zeros.gcdump.xz"
check "... the reader's own error, about the file as given" "$tmp/err" "$tmp/zeros.gcdump.xz" <<'EOF'
import sys
err = open(sys.argv[1]).read()
print(err.strip()[:200])
assert err.startswith("perfpipe: " + sys.argv[2]) and "/dev/fd/" not in err and "bomb" not in err
EOF

finish
