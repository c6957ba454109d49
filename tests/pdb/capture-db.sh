#!/bin/bash
# Rebuilds tests/data/pdb/workload-db.tar.xz (needs dotnet and the pinned
# dotnet-trace): the workload's db scenario (Release, PDB beside the dll)
# under dotnet-trace's `database` profile (its rundown carries the
# IL-to-native maps), beside/Workload.pdb and DbScenario.cs as built (its
# PP-LINE markers). The bin/ directory is removed at the end, as in
# capture-cpu.sh.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$src/tests/capture/env.sh"
source "$src/tests/pdb/variants.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/beside"
pp_pdb_variants beside
"$PP_TRACE" collect --profile database -o "$work/db-beside.nettrace" \
    -- dotnet "$(pp_pdb_bin beside)/Workload.dll" db --blogs 5 --posts-per-blog 2 >&2
cp "$(pp_pdb_bin beside)/Workload.pdb" "$work/beside/"
cp "$src/tests/workload/DbScenario.cs" "$work/"
tar -C "$work" -cJf "$src/tests/data/pdb/workload-db.tar.xz" .
rm -rf "$(pp_pdb_bin beside)"
