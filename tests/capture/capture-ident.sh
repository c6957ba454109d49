#!/usr/bin/env bash
# Build-identity fixtures (issue #44): tests/ident/IdentApp built as variant 1 and variant 2 (its
# Work() changed), each into its own dir under $PP_BUILD_DIR/ident-fixtures, captured by
# `perfpipe collect -p PID --profile gc-verbose --duration 1s`:
#   ident-v1-a   build 1, a process
#   ident-v1-b   build 1, the same process captured again (same build: compare warns)
#   ident-v2     build 2, a fresh process (another build: no warning)
# NAME.truth.json records the app's PDB id as the .pdb itself holds it (tests/ident/pdbid.py reads
# the portable PDB's #Pdb stream: an oracle apart from perfpipe's PE reader and the runtime's
# events), the dll's path, the pid and the variant. The dlls are not committed: their identity is.
# The traces (mostly their method rundown) go into ONE solid xz archive, tests/data/ident/ident.tar.xz.
set -euo pipefail
. "$(dirname "$0")/env.sh"
PERFPIPE=${PERFPIPE:-$PP_TESTS/../_build/perfpipe}
OUT="$PP_DATA/ident"
STAGE="$PP_BUILD_DIR/ident-fixtures"
rm -rf "$STAGE"; mkdir -p "$STAGE" "$OUT"
for v in 1 2; do
  flock /tmp/pp-dotnet-build.lock dotnet build "$PP_TESTS/ident/IdentApp.csproj" -c Release -nologo -v q \
    -p:IdentVariant=$v -o "$STAGE/b$v" >&2
done
start() { # variant -> $pid, $app
  rm -f "$STAGE/pid"
  dotnet "$STAGE/b$1/IdentApp.dll" "$STAGE/pid" 30 >/dev/null 2>&1 &
  app=$!
  for _ in $(seq 100); do [ -s "$STAGE/pid" ] && break; sleep 0.1; done
  pid=$(cat "$STAGE/pid")
}
capture() { # variant name
  "$PERFPIPE" collect -p "$pid" --profile gc-verbose --duration 1s -q -o "$STAGE/$2.nettrace"
  rm -f "$STAGE/$2.nettrace.maps"
  python3 - "$STAGE/$2.truth.json" "$1" "$pid" "$STAGE/b$1/IdentApp.dll" \
    "$(python3 "$PP_TESTS/ident/pdbid.py" "$STAGE/b$1/IdentApp.pdb")" <<'PY'
import json, sys
out, v, pid, dll, guid = sys.argv[1:]
json.dump({"app": "IdentApp", "variant": int(v), "pid": int(pid), "path": dll,
           "pdb_guid": guid, "pdb_age": 1}, open(out, "w"), indent=1)
PY
  cp "$STAGE/$2.truth.json" "$OUT/"
}
start 1; capture 1 ident-v1-a; capture 1 ident-v1-b; kill "$app"; wait "$app" || true
start 2; capture 2 ident-v2; kill "$app"; wait "$app" || true
(cd "$STAGE" && ls ident-*.nettrace | sort |
  tar -cf - --owner=0 --group=0 --mtime=@0 -T - | xz -9 -T1 > "$OUT/ident.tar.xz")
ls -l "$OUT/ident.tar.xz" >&2
