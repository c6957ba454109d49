# Sourced by tests/pdb/test-pdb-*.sh with pp_stem set: PP (the perfpipe to
# test), top_srcdir, and $tmp holding tests/data/pdb/$pp_stem.tar.xz
# unpacked (removed on exit); SKIP (77) without xz or python3.
set -u
top_builddir=${PP_BUILDDIR:-.}
top_srcdir=${PP_SRCDIR:-$(dirname "$0")/../..}
PP=$top_builddir/perfpipe
tar=$top_srcdir/tests/data/pdb/$pp_stem.tar.xz
command -v xz >/dev/null || { echo "SKIP: xz not found"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$tar" -C "$tmp" || { echo "FAIL: cannot unpack $tar"; exit 1; }
