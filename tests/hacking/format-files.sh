#!/bin/bash
# The C sources the house style covers, one a line, relative to the top of
# the source tree (the directory given, default: this script's tree):
# every .c and .h under the source folders, generated files excluded
# (protoc-c's *.pb-c.*). Shared by check-format.sh and reformat.sh.
set -euo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top"
find bench cli core examples fuzz include plugins tests \
     -name '*.[ch]' -not -name '*.pb-c.*' -not -path '*/.*' -type f 2>/dev/null | LC_ALL=C sort
