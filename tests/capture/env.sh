# Sourced by every test-bed script. Pins tool versions, locates builds; nothing here writes into the repo.
# Overridable: PP_TOOLS (tool install root), PP_BUILD_DIR (bin/obj of workload+oracle), PP_DATA (fixture dir).
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
PP_TESTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PP_TOOLS="${PP_TOOLS:-$HOME/.cache/perfpipe-tools}"
export PP_BUILD_DIR="${PP_BUILD_DIR:-$HOME/.cache/perfpipe-build}"
PP_DATA="${PP_DATA:-$PP_TESTS/data}"
PP_TOOL_VERSION=10.0.750501            # dotnet-trace, dotnet-counters, dotnet-gcdump
PP_TRACE="$PP_TOOLS/dotnet-trace/dotnet-trace"
PP_COUNTERS="$PP_TOOLS/dotnet-counters/dotnet-counters"
PP_GCDUMP="$PP_TOOLS/dotnet-gcdump/dotnet-gcdump"
export PP_GCDUMP_DLL="$PP_TOOLS/dotnet-gcdump/.store/dotnet-gcdump/$PP_TOOL_VERSION/dotnet-gcdump/$PP_TOOL_VERSION/tools/net8.0/any/dotnet-gcdump.dll"
PP_WORKLOAD_DLL="$PP_BUILD_DIR/workload/bin/Workload/release/Workload.dll"
PP_ORACLE_DLL="$PP_BUILD_DIR/oracle/bin/Oracle/release/Oracle.dll"

pp_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# Install one tool at the pinned version unless that exact version is already there.
pp_install_tool() {
  local name=$1 dir="$PP_TOOLS/$1"
  if [ -x "$dir/$name" ] && [ -d "$dir/.store/$name/$PP_TOOL_VERSION" ]; then return 0; fi
  pp_log "installing $name $PP_TOOL_VERSION into $dir"
  rm -rf "$dir"
  dotnet tool install --tool-path "$dir" "$name" --version "$PP_TOOL_VERSION" >&2
}
pp_install_tools() { pp_install_tool dotnet-trace && pp_install_tool dotnet-counters && pp_install_tool dotnet-gcdump; }

# Build workload and oracle (Release) into $PP_BUILD_DIR; one build at a time, single node.
# Two suites on one machine (two work trees) share the build dir: a lock on it
# keeps their builds from writing the same files at once.
pp_build() {
  local p
  mkdir -p "$PP_BUILD_DIR"
  (
    flock 9
    for p in workload/Workload.csproj oracle/Oracle.csproj; do
      pp_log "building $p"
      dotnet build "$PP_TESTS/$p" -c Release -nologo -v q -m:1 >&2 || { pp_log "build failed: $p"; exit 1; }
    done
  ) 9>"$PP_BUILD_DIR/.build.lock"
}

pp_oracle() { dotnet "$PP_ORACLE_DLL" "$@"; }

# pp_oracle_zst CAPTURE.zst ORACLE.json[.zst]: the oracle of a zstd-compressed capture (TraceEvent reads
# the plain file: it is unpacked beside it for the run), its JSON compressed the same way when ORACLE
# ends in .zst (the oracles the C unit tests read stay plain: db-database, web-sampled-db).
pp_oracle_zst() {
  local plain=${1%.zst} out=${2%.zst}
  zstd -q -d -f "$1" -o "$plain" && pp_oracle "$plain" -o "$out" &&
    { [ "$out" = "$2" ] || zstd -q -19 -f --rm "$out" -o "$2"; }
  local rc=$?; rm -f "$plain"; return $rc
}

# pp_runtime_version: the runtime the workload runs on (Microsoft.NETCore.App version).
pp_runtime_version() { dotnet --list-runtimes | awk '$1=="Microsoft.NETCore.App"{v=$2} END{print v}'; }

# pp_merge_rows DIR: a capture script run alone merges its MANIFEST rows (one file per fixture in DIR)
# into $PP_DATA/MANIFEST, replacing the rows of the same fixtures, and runs the oracle on each.
pp_merge_rows() {
  local dir=$1 f
  {
    grep '^#' "$PP_DATA/MANIFEST"
    { grep -v '^#' "$PP_DATA/MANIFEST" | while IFS=$'\t' read -r f rest; do
        [ -e "$dir/$f" ] || printf '%s\t%s\n' "$f" "$rest"; done
      cat "$dir"/*; } | LC_ALL=C sort
  } > "$PP_DATA/MANIFEST.tmp"
  mv "$PP_DATA/MANIFEST.tmp" "$PP_DATA/MANIFEST"
  for f in "$dir"/*; do
    f=$(basename "$f")
    case $f in *.zst) continue ;; esac   # compressed captures: the oracle was run on the plain trace
    pp_log "oracle $f"; pp_oracle "$PP_DATA/$f" -o "$PP_DATA/${f%.nettrace}.oracle.json"
  done
}
