# Sourced by the fault tests (needs $PERFPIPE, $SRC and $tmp).

# shim_or_skip: the I/O and allocation fault shim built as $tmp/iofault.so,
# or the test skipped (exit 77): an ASan build cannot take a preloaded
# allocator.
shim_or_skip() {
  if ldd "$PERFPIPE" 2>/dev/null | grep -q libasan; then
    echo "SKIP: an ASan build cannot take a preloaded allocator"; exit 77
  fi
  ${CC:-cc} -O1 -shared -fPIC -o "$tmp/iofault.so" "$SRC/tests/faults/iofault.c" -ldl 2>/dev/null ||
    { echo "SKIP: cannot build the fault shim"; exit 77; }
}

# beside_alloc FAULT TRACE: a pipeline of alloc and the fault plugin
# fault-FAULT on one trace, writing JSON.
beside_alloc() {
  cat <<YAML
version: 1
name: $1
inputs:
  trace: { kind: nettrace, path: "$2" }
stages:
  - { id: alloc, analyzer: alloc, input: trace }
  - { id: bad, analyzer: fault-$1, input: trace }
outputs:
  - { format: json }
YAML
}
