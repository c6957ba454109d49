#!/usr/bin/env bash
# Re-runs the oracle on every fixture listed in tests/data/MANIFEST (column 6 names the output) and on the
# read-only corpus traces (output: tests/data/corpus-oracle/NAME.oracle.json). No capture, no tool install.
set -euo pipefail
. "$(dirname "$0")/env.sh"
[ "${1:-}" = "--no-build" ] || dotnet build "$PP_TESTS/oracle/Oracle.csproj" -c Release -nologo -v q -m:1 >&2
grep -v '^#' "$PP_DATA/MANIFEST" | while IFS=$'\t' read -r file kind _ _ _ oracle _; do
  pp_log "oracle $file -> $oracle"
  [ "$oracle" = "-" ] && continue   # no Microsoft reader for this kind (spans)
  case $file in
    *.zst) pp_oracle_zst "$PP_DATA/$file" "$PP_DATA/$oracle" ;;
    *) pp_oracle "$PP_DATA/$file" -o "$PP_DATA/$oracle" ;;
  esac
done
CORPUS="${PP_CORPUS:-$PP_TESTS/../../shared/corpus}"
if [ -d "$CORPUS" ]; then
  mkdir -p "$PP_DATA/corpus-oracle"
  for t in "$CORPUS"/*.nettrace; do
    n=$(basename "$t" .nettrace); pp_log "oracle corpus $n"
    pp_oracle "$t" -o "$PP_DATA/corpus-oracle/$n.oracle.json"
  done
else
  pp_log "SKIP corpus oracle: $CORPUS not found"
fi
