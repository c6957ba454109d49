# Sourced by tests/pdb/capture-*.sh: the workload's three Release builds of
# issue #42, into $PP_BUILD_DIR-pdb-{beside,embedded,changed}:
#   beside     the PDB beside the dll
#   embedded   <DebugType>embedded: the PDB inside the dll (deflate)
#   changed    a rebuild with a change (DefineConstants=PP_CHANGED): another id
# pp_pdb_variants [V...] builds them (default: all three); pp_pdb_bin V
# prints V's output directory.
pp_pdb_base=$PP_BUILD_DIR
pp_pdb_bin() { echo "$pp_pdb_base-pdb-$1/workload/bin/Workload/release"; }
pp_pdb_variants() {
    local v extra vs=("$@")
    [ ${#vs[@]} -gt 0 ] || vs=(beside embedded changed)
    for v in "${vs[@]}"; do
        case $v in
            embedded) extra=-p:DebugType=embedded ;;
            changed) extra=-p:DefineConstants=PP_CHANGED ;;
            *) extra= ;;
        esac
        PP_BUILD_DIR=$pp_pdb_base-pdb-$v flock /tmp/pp-dotnet-build.lock dotnet build \
            "$src/tests/workload/Workload.csproj" -c Release -nologo -v q -m:1 $extra >&2
    done
}
