#!/bin/sh
# Rebuilds tests/data/pdb/ from tests/pdb/lines (needs dotnet): the library
# with its PDB beside it (portable/), with the PDB embedded (embedded/), and
# a build with a change whose PDB does not match portable/'s dll (changed/).
#   tests/pdb/make-fixtures.sh
set -eu
src=$(cd "$(dirname "$0")/../.." && pwd)
export PP_BUILD_DIR="${PP_BUILD_DIR:-$HOME/.cache/perfpipe-build}"
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1
out=$src/tests/data/pdb
for v in portable embedded changed; do
    flock /tmp/pp-dotnet-build.lock dotnet build "$src/tests/pdb/lines/Lines.csproj" -c Release \
        -nologo -v q -m:1 -p:PpVariant=$v >&2
    mkdir -p "$out/$v"
    bin=$PP_BUILD_DIR/lines-$v/bin/Lines/release
    cp "$bin/Lines.dll" "$out/$v/"
    [ "$v" = embedded ] || cp "$bin/Lines.pdb" "$out/$v/"
done
