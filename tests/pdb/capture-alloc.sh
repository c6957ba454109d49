#!/bin/bash
# Rebuilds tests/data/pdb/workload-alloc.tar.xz (needs dotnet and the pinned
# dotnet-trace) and its TraceEvent reference workload-alloc.sources.oracle.json:
# the workload's alloc scenario captured with allocation ticks, stacks and
# the IL-to-native maps, and what the source lookup needs beside:
#   alloc-beside.nettrace    Release build, PDB beside the dll  -> beside/Workload.pdb
#   alloc-embedded.nettrace  Release build, <DebugType>embedded -> embedded/Workload.dll
#   changed/Workload.pdb     a rebuild with a change: another id, to be refused
#   alloc-nomap.nettrace     a dotnet-trace capture without keyword 0x20000
#                            (--clrevents gc+jit+loader+stack, --rundown false):
#                            method names, no map: the finding names the keyword
#   AllocScenario.cs         the source as built (its PP-LINE markers)
# As capture-cpu.sh, the builds' bin/ directories are removed before the
# oracle runs and at the end: only the fixture's copies are read.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$src/tests/capture/env.sh"
source "$src/tests/pdb/variants.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/beside" "$work/embedded" "$work/changed"
pp_pdb_variants
args=(alloc --mb-strings 30 --mb-buffers 20 --list-items 100000)
for v in beside embedded; do
    "$PP_TRACE" collect --providers Microsoft-Windows-DotNETRuntime:0x40020019:5 \
        -o "$work/alloc-$v.nettrace" -- dotnet "$(pp_pdb_bin $v)/Workload.dll" "${args[@]}" >&2
done
"$PP_TRACE" collect --clrevents gc+jit+loader+stack --clreventlevel verbose --rundown false \
    -o "$work/alloc-nomap.nettrace" -- dotnet "$(pp_pdb_bin beside)/Workload.dll" "${args[@]}" >&2
cp "$(pp_pdb_bin beside)/Workload.pdb" "$work/beside/"
cp "$(pp_pdb_bin embedded)/Workload.dll" "$work/embedded/"
cp "$(pp_pdb_bin changed)/Workload.pdb" "$work/changed/"
cp "$src/tests/workload/AllocScenario.cs" "$work/"
tar -C "$work" -cJf "$src/tests/data/pdb/workload-alloc.tar.xz" .
rm -rf "$(pp_pdb_bin beside)" "$(pp_pdb_bin embedded)" "$(pp_pdb_bin changed)"
"$src/tests/pdb/oracle-sources.sh" workload-alloc
