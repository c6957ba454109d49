#!/bin/sh
# Build the seed corpora for the fuzz targets from the repository's fixtures.
#   fuzz/seed-corpus.sh OUTDIR [CORPUS]
# OUTDIR/<target>/ gets one file per seed (content-named, so re-running is
# idempotent). Small fixtures go in whole; big ones (captures of MBs) go in as
# their first 64 KB and 16 KB, which keeps the header, metadata and the first
# blocks -- whole they would only slow every execution down. CORPUS is the
# public nettrace corpus (default: ../shared/corpus beside the checkout).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fuzz/seed-corpus.sh OUTDIR [CORPUS]}
corpus=${2:-$here/../shared/corpus}
SMALL=65536

add() { # target file
    t=$1 f=$2
    [ -f "$f" ] || return 0
    mkdir -p "$out/$t"
    size=$(wc -c < "$f")
    if [ "$size" -le "$SMALL" ]; then
        cp "$f" "$out/$t/$(basename "$f")"
    else
        head -c 65536 "$f" > "$out/$t/$(basename "$f").64k"
        head -c 16384 "$f" > "$out/$t/$(basename "$f").16k"
    fi
}

for f in "$here"/tests/data/*.nettrace "$corpus"/*.nettrace; do add nettrace "$f"; done
for f in "$here"/tests/data/*.gcdump "$here"/tests/gcdump/*.gcdump; do add gcdump "$f"; done
for f in "$here"/tests/data/*-counters.csv "$here"/tests/data/*-counters.json \
         "$here"/tests/counters/*.csv "$here"/tests/counters/*.json; do add counters "$f"; done
for f in "$here"/tests/spans/*.json "$here"/tests/spans/*.ndjson; do add spans "$f"; done
for f in "$here"/tests/pipelines/*.yaml "$here"/etc/perfpipe/pipelines/*.yaml; do add pipeline "$f"; done
# Reproducers found earlier are seeds too (regression).
for t in nettrace gcdump counters spans pipeline; do
    for f in "$here"/tests/malformed/$t/*; do
        case $f in *.expected|*.args) continue ;; esac
        add "$t" "$f"
    done
done
for t in nettrace gcdump counters spans pipeline; do
    printf '%-9s %s seeds\n' "$t" "$(ls "$out/$t" 2>/dev/null | wc -l)"
done
