#!/bin/bash
# TraceEvent's source lines for the traces of a tests/data/pdb tarball, the
# reference of tests/pdb/test-pdb-*.sh (tests/oracle/SourceOracle.cs):
#   tests/pdb/oracle-sources.sh STEM      (STEM: workload-cpu or workload-alloc)
# writes tests/data/pdb/STEM.sources.oracle.json: for each trace with each
# PDB placement of the tarball (beside/, embedded/, changed/ given as the
# only symbol path; an embedded PDB from the dll put back at the path the
# trace names, the one place TraceEvent 4.0.0 reads it from), TraceEvent's
# file:line per application method. Run where
# the trace's own build directories do not exist (the capture scripts remove
# them first), so TraceEvent too finds the PDB through the symbol path only.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
source "$src/tests/capture/env.sh"
stem=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xJf "$src/tests/data/pdb/$stem.tar.xz" -C "$tmp"
[ -f "$PP_ORACLE_DLL" ] || pp_build
parts=()
for t in "$tmp"/*-beside.nettrace "$tmp"/*-embedded.nettrace; do
    run=$(basename "$t" .nettrace)
    placement=${run##*-}
    # TraceEvent reads an embedded PDB from the module at the path the trace
    # names only (not from a copy in the symbol path): the dll goes there
    # for the run, and is removed after.
    dll=
    if [ "$placement" = embedded ]; then
        dll=$(strings -el "$t" | awk '/\/Workload\.dll$/ && !d { d = $0 } END { print d }')
        [ ! -e "$dll" ] || { pp_log "$dll exists: remove that build first"; exit 1; }
        mkdir -p "$(dirname "$dll")"
        cp "$tmp/embedded/Workload.dll" "$dll"
    fi
    for sym in "$placement" changed; do
        pp_log "oracle $run with $sym/"
        dotnet "$PP_ORACLE_DLL" --sources "$tmp/$sym" --module Workload "$t" -o "$tmp/$run.$sym.json"
        parts+=("$run" "$sym" "$tmp/$run.$sym.json")
    done
    [ -z "$dll" ] || rm -f "$dll"
done
python3 - "$src/tests/data/pdb/$stem.sources.oracle.json" "${parts[@]}" <<'PY'
import json, sys
out, rest = sys.argv[1], sys.argv[2:]
doc = {"schema": "perfpipe-oracle/1", "kind": "nettrace-sources", "runs": []}
for run, sym, path in zip(rest[0::3], rest[1::3], rest[2::3]):
    d = json.load(open(path))
    doc["reader"] = d["reader"]
    doc["runs"].append({"trace": run + ".nettrace", "symbols": sym + "/",
                        "cpu": d["cpu"], "alloc": d["alloc"]})
json.dump(doc, open(out, "w"), indent=1, sort_keys=False)
open(out, "a").write("\n")
PY
