#!/bin/bash
# Rebuilds tests/data/pdb/workload-cpu.tar.xz (needs dotnet and the pinned
# dotnet-trace) and its TraceEvent reference workload-cpu.sources.oracle.json
# (oracle-sources.sh): the workload's cpu scenario captured three ways, each with
# the IL-to-native maps, and what the source lookup needs beside:
#   cpu-beside.nettrace     Release build, PDB beside the dll  -> beside/Workload.pdb
#   cpu-embedded.nettrace   Release build, <DebugType>embedded -> embedded/Workload.dll
#   changed/Workload.pdb    a rebuild with a change (DefineConstants=PP_CHANGED):
#                           its id is not cpu-beside's: it must be refused
#   cpu-nomap.nettrace      DOTNET_EventPipeConfig without keyword 0x20000 and
#                           without rundown: no map, the finding must say so
#   CpuScenario.cs, Common.cs   the source as built (its PP-LINE markers)
# The builds go to $PP_BUILD_DIR-pdb-{beside,embedded,changed}; their bin/
# directories are removed at the end, so the test reads the fixture's copies
# only (through PERFPIPE_SYMBOL_PATH), as on a machine that never built them.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$src/tests/capture/env.sh"
source "$src/tests/pdb/variants.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/beside" "$work/embedded" "$work/changed"
pp_pdb_variants
bin() { pp_pdb_bin "$1"; }
for v in beside embedded; do
    "$PP_TRACE" collect --profile dotnet-sampled-thread-time \
        --providers Microsoft-Windows-DotNETRuntime:0x100003C00D:5 -o "$work/cpu-$v.nettrace" \
        -- dotnet "$(bin $v)/Workload.dll" cpu --seconds 2 --truth "$work/cpu-$v.truth.json" >&2
done
DOTNET_EnableEventPipe=1 DOTNET_EventPipeOutputPath="$work/cpu-nomap.nettrace" \
    DOTNET_EventPipeConfig='Microsoft-DotNETCore-SampleProfiler:0:5,Microsoft-Windows-DotNETRuntime:0x18:5' \
    DOTNET_EventPipeRundown=0 dotnet "$(bin beside)/Workload.dll" cpu --seconds 1 >&2
cp "$(bin beside)/Workload.pdb" "$work/beside/"
cp "$(bin embedded)/Workload.dll" "$work/embedded/"
cp "$(bin changed)/Workload.pdb" "$work/changed/"
cp "$src/tests/workload/CpuScenario.cs" "$src/tests/workload/Common.cs" "$work/"
tar -C "$work" -cJf "$src/tests/data/pdb/workload-cpu.tar.xz" .
rm -rf "$(bin beside)" "$(bin embedded)" "$(bin changed)"
"$src/tests/pdb/oracle-sources.sh" workload-cpu
