#!/bin/bash
# The house C style (.clang-format at the top of the tree), checked with
# clang-format 14 (Debian 12's): every C source of format-files.sh must be
# as clang-format would write it (--dry-run -Werror: one diagnostic per
# difference, FILE:LINE:COLUMN). tests/hacking/reformat.sh applies it.
# Exit: 0 formatted, 1 a file differs, 77 skip (no clang-format 14).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=${PP_SRCDIR:-$(cd "$here/../.." && pwd)}
cf=${CLANG_FORMAT:-$(command -v clang-format-14 || true)}
if [ -z "$cf" ]; then
  echo "SKIP: no clang-format-14 (apt-get install clang-format-14)"
  exit 77
fi
"$cf" --version | grep -q 'version 14\.' ||
  { echo "SKIP: $cf is not clang-format 14 (another version formats differently)"; exit 77; }
mapfile -t files < <(bash "$here/format-files.sh" "$top")
[ ${#files[@]} -gt 0 ] || { echo "FAIL: no C sources under $top"; exit 1; }
cd "$top"
bad=0
for f in "${files[@]}"; do
  "$cf" --style=file --dry-run -Werror "$f" 2>/dev/null >/dev/null || { echo "FAIL: $f: not in the house style"; bad=$((bad + 1)); }
done
if [ "$bad" -gt 0 ]; then
  echo "$bad of ${#files[@]} files differ from .clang-format: run tests/hacking/reformat.sh"
  echo "(or, for one file: $cf --style=file --dry-run $(printf '%q' "${files[0]}"))"
  exit 1
fi
echo "PASS: ${#files[@]} C sources in the house style"
