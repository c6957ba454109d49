#!/bin/sh
# Build the seed corpora for the fuzz targets from the repository's fixtures.
#   fuzz/seed-corpus.sh OUTDIR [CORPUS]
# OUTDIR/<target>/ gets one file per seed (content-named, so re-running is
# idempotent), for every target of fuzz/run-fuzz.sh: the reader targets
# (nettrace gcdump counters spans pipeline, and load-wrk load-hey
# load-heycsv load-k6lines load-vegetalines load-json) and the engine targets (run-nettrace
# run-gcdump run-counters run-spans run-bench run-load run-pipeline)
# get the same seeds of their kind. Small fixtures go in whole; big ones
# (captures of MBs) go in as their first 64 KB and 16 KB, which keeps the
# header, metadata and the first blocks -- whole they would only slow every
# execution down. CORPUS is the public nettrace corpus (default:
# ../shared/corpus beside the checkout).
#
# V6 nettrace seeds: no capture of ours is V6 (collect-linux needs
# user_events, which this kernel lacks), so fuzz/gen-nettrace-seeds.c builds
# them from the format spec here, at seed time, with $CC (default cc); they
# are never committed.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: fuzz/seed-corpus.sh OUTDIR [CORPUS]}
corpus=${2:-$here/../shared/corpus}
SMALL=65536

add() { # kind file: the seed goes to the reader target and the engine target
    k=$1 f=$2
    [ -f "$f" ] || return 0
    case $k in
        bench) set -- run-bench ;;
        load) set -- load-wrk load-hey load-heycsv load-k6lines load-vegetalines load-json load-wrkjson load-k6summary load-k6export load-bombardier load-vegeta load-oha run-load ;;
        *) set -- "$k" "run-$k" ;;
    esac
    size=$(wc -c < "$f")
    for t in "$@"; do
        mkdir -p "$out/$t"
        case $t in
            load-wrkjson|load-k6summary|load-k6export|load-bombardier|load-vegeta|load-oha)
                # the target's prefix opens the object: a document goes in
                # without its "{" (its keys then follow the prefix's)
                if [ "$size" -le "$SMALL" ] && [ "$(head -c 1 "$f")" = "{" ]; then
                    tail -c +2 "$f" > "$out/$t/$(basename "$f").body"
                    continue
                fi ;;
        esac
        if [ "$size" -le "$SMALL" ]; then
            cp "$f" "$out/$t/$(basename "$f")"
        else
            head -c 65536 "$f" > "$out/$t/$(basename "$f").64k"
            head -c 16384 "$f" > "$out/$t/$(basename "$f").16k"
        fi
    done
}

gen=$(mktemp -d "${TMPDIR:-/tmp}/pp-seeds.XXXXXX")
trap 'rm -rf "$gen"' EXIT
${CC:-cc} -std=c11 -O1 -o "$gen/gen-nettrace-seeds" "$here/fuzz/gen-nettrace-seeds.c"
mkdir -p "$gen/v6"
"$gen/gen-nettrace-seeds" "$gen/v6" "$here/tests/data/pdb/portable/Lines.dll"

# Split-reader seeds: the split reads (core/nettrace/region.c) cut only at
# sequence points, which the captures' heads lack; these copies have one
# before every block, cut at SMALL bytes (tests/faults/mutate-nettrace.py).
# The compressed captures (*.nettrace.zst) as the reader sees them.
mkdir -p "$gen/points" "$gen/unpacked"
if command -v zstd >/dev/null; then
    for f in "$here"/tests/data/*.nettrace.zst; do
        zstd -q -d -c "$f" >"$gen/unpacked/$(basename "$f" .zst)"
    done
fi
if command -v python3 >/dev/null; then
    for f in "$here"/tests/data/*.nettrace "$gen"/unpacked/*.nettrace "$corpus"/*.nettrace; do
        for op in points points-seq; do
            python3 "$here/tests/faults/mutate-nettrace.py" "$f" "$gen/points/$(basename "$f").$op" \
                "$op" "$SMALL" 2>/dev/null || rm -f "$gen/points/$(basename "$f").$op"
        done
    done
fi
for f in "$here"/tests/data/*.nettrace "$gen"/unpacked/*.nettrace "$corpus"/*.nettrace "$gen"/v6/* "$gen"/points/*; do add nettrace "$f"; done
for f in "$here"/tests/data/*.gcdump "$here"/tests/gcdump/*.gcdump; do add gcdump "$f"; done
# Compressed traces (core/input/unpack.c): the small captures' first 64 KiB, each
# packed by every format the engine reads (a tool that is missing: skipped).
mkdir -p "$out/run-packed"
for f in "$here"/tests/data/alloc-exact.nettrace "$here"/tests/data/cpu-sampled.nettrace; do
    head -c "$SMALL" "$f" >"$gen/head"
    command -v xz >/dev/null && xz -c "$gen/head" >"$out/run-packed/$(basename "$f").xz"
    command -v gzip >/dev/null && gzip -c "$gen/head" >"$out/run-packed/$(basename "$f").gz"
    command -v zstd >/dev/null && zstd -q -c "$gen/head" >"$out/run-packed/$(basename "$f").zst"
done
for f in "$here"/tests/data/*-counters.csv "$here"/tests/data/*-counters.json \
         "$here"/tests/counters/*.csv "$here"/tests/counters/*.json; do add counters "$f"; done
for f in "$here"/tests/spans/*.json "$here"/tests/spans/*.ndjson; do add spans "$f"; done
for f in "$here"/tests/data/bench-*.report*; do add bench "$f"; done
# Load seeds: every format to every load target (the prefix makes each one
# its own format; the others' bytes are mutations worth trying there too).
for f in "$here"/tests/data/load/*; do
    case $f in *.truth.json|*.md) continue ;; esac
    add load "$f"
done
# pdb: the assemblies (one embeds its PDB) and the PDBs of tests/data/pdb.
for f in "$here"/tests/data/pdb/*/Lines.dll "$here"/tests/data/pdb/*/Lines.pdb; do
    mkdir -p "$out/pdb"
    cp "$f" "$out/pdb/$(basename "$(dirname "$f")")-$(basename "$f")"
done
for f in "$here"/tests/pipelines/*.yaml "$here"/etc/perfpipe/pipelines/*.yaml; do add pipeline "$f"; done
# Reproducers found earlier are seeds too (regression).
for k in nettrace gcdump counters spans pipeline bench load; do
    for f in "$here"/tests/malformed/$k/*; do
        case $f in *.expected|*.args) continue ;; esac
        add "$k" "$f"
    done
done
for t in nettrace gcdump counters spans pipeline pdb \
         load-wrk load-hey load-heycsv load-k6lines load-vegetalines load-json load-wrkjson load-k6summary load-k6export load-bombardier load-vegeta load-oha \
         run-nettrace run-gcdump run-counters run-spans run-bench run-load run-pipeline \
         run-packed; do
    printf '%-13s %s seeds\n' "$t" "$(ls "$out/$t" 2>/dev/null | wc -l)"
done
