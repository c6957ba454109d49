#!/bin/bash
# Apply the house C style (.clang-format) to every C source
# tests/hacking/check-format.sh checks, in place, with clang-format 14.
# Prints how many files and lines it changed. Run from anywhere; commit the
# result as one reformat-only commit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cf=${CLANG_FORMAT:-$(command -v clang-format-14 || true)}
[ -n "$cf" ] || { echo "reformat.sh: no clang-format-14 (apt-get install clang-format-14)" >&2; exit 2; }
"$cf" --version | grep -q 'version 14\.' ||
  { echo "reformat.sh: $cf is not clang-format 14" >&2; exit 2; }
mapfile -t files < <(bash "$here/format-files.sh" "$top")
cd "$top"
changed=0 lines=0
for f in "${files[@]}"; do
  n=$("$cf" --style=file "$f" | diff "$f" - | grep -c '^[<>]' || true)
  if [ "$n" -gt 0 ]; then
    "$cf" --style=file -i "$f"
    changed=$((changed + 1)); lines=$((lines + n))
  fi
done
echo "reformat.sh: $changed of ${#files[@]} files changed ($lines lines removed or added)"
