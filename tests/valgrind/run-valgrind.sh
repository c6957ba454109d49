#!/bin/sh
# The CLI over every fixture of tests/data under valgrind memcheck: no
# invalid access, no use of uninitialised memory, no definite leak.
#
# Per MANIFEST row (kind, scenario):
#   nettrace      perfpipe inspect FILE, then the scenario's analyzer
#                 (alloc -> alloc, cpu -> cpu, db -> db, web -> cpu and db)
#   counters-*    perfpipe counters-csv FILE
#   gcdump        perfpipe gcdump FILE
# plus gcdump-diff over the two leak snapshots, and perfpipe spans over
# tests/spans/*.json when present.
#
# Use a NON-sanitizer build (ASan and valgrind do not mix):
#   PERFPIPE=/path/to/build/perfpipe \
#   PERFPIPE_PLUGIN_PATH=/path/to/build/plugins/.libs \
#   PERFPIPE_PIPELINE_PATH=/path/to/src/etc/perfpipe/pipelines \
#   tests/valgrind/run-valgrind.sh
# Prints one line per run, then "N passed, N failed"; exit 1 on a failure,
# 77 (SKIP) without valgrind or on a sanitizer build, 99 without a binary.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${PP_SRCDIR:-$(cd "$here/../.." && pwd)}
data=${PP_TESTDATA:-$src/tests/data}
bin=${PERFPIPE:-${PP_BUILDDIR:-.}/perfpipe}
if ! command -v valgrind > /dev/null 2>&1; then
    echo "run-valgrind: SKIP: valgrind not installed (apt-get install valgrind)"
    exit 77
fi
if [ ! -x "$bin" ]; then
    echo "run-valgrind: no perfpipe binary at $bin (set PERFPIPE)" >&2
    exit 99
fi
if grep -qa '__asan_init\|__ubsan_handle' "$bin" 2>/dev/null; then
    echo "run-valgrind: SKIP: $bin is a sanitizer build; use a plain one"
    exit 77
fi
if [ -z "${PERFPIPE_PLUGIN_PATH:-}" ] && [ -d "$(dirname "$bin")/plugins/.libs" ]; then
    PERFPIPE_PLUGIN_PATH=$(cd "$(dirname "$bin")/plugins/.libs" && pwd)
    export PERFPIPE_PLUGIN_PATH
fi
if [ -z "${PERFPIPE_PIPELINE_PATH:-}" ]; then
    PERFPIPE_PIPELINE_PATH=$src/etc/perfpipe/pipelines
    export PERFPIPE_PIPELINE_PATH
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-valgrind.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0
fail=0
n=0
vg() { # label, then the perfpipe arguments
    label=$1; shift
    n=$((n + 1))
    log=$tmp/vg.$n.log
    valgrind -q --error-exitcode=99 --leak-check=full \
        --errors-for-leak-kinds=definite --show-leak-kinds=definite \
        --log-file="$log" "$bin" "$@" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ "$rc" -eq 0 ]; then
        echo "PASS $label"
        pass=$((pass + 1))
    elif [ "$rc" -ne 99 ] && [ "$rc" -le 5 ] && [ "${lenient:-0}" = 1 ]; then
        # hand-made inputs may be refused on purpose: memory is what counts
        echo "PASS $label (perfpipe exit $rc, no valgrind error)"
        pass=$((pass + 1))
    else
        if [ "$rc" -eq 99 ]; then
            echo "FAIL $label: valgrind errors (exit 99)"
        else
            echo "FAIL $label: perfpipe exit $rc"
        fi
        sed 's/^/  /' "$log" "$tmp/err" | head -n 40
        fail=$((fail + 1))
    fi
}

manifest=$data/MANIFEST
if [ ! -f "$manifest" ]; then
    echo "run-valgrind: no $manifest" >&2
    exit 99
fi
# MANIFEST: file<TAB>kind<TAB>scenario<TAB>...; '#' lines are comments.
tab=$(printf '\t')
while IFS=$tab read -r file kind scenario rest; do
    case $file in ''|'#'*) continue ;; esac
    f=$data/$file
    [ -f "$f" ] || { echo "FAIL $file: listed in MANIFEST but missing"; fail=$((fail + 1)); continue; }
    case $kind in
        nettrace)
            vg "inspect $file" inspect "$f"
            case $scenario in
                alloc) vg "alloc $file" alloc "$f" ;;
                cpu)   vg "cpu $file" cpu "$f" ;;
                db)    vg "db $file" db "$f" ;;
                web)   vg "cpu $file" cpu "$f"; vg "db $file" db "$f" ;;
                *)     vg "alloc $file" alloc "$f" ;;
            esac ;;
        counters-csv|counters-json|counters)
            vg "counters-csv $file" counters-csv "$f" ;;
        gcdump)
            vg "gcdump $file" gcdump "$f" ;;
        *)
            echo "run-valgrind: $file: kind '$kind' has no analyzer here; inspected only" >&2 ;;
    esac
done < "$manifest"
if [ -f "$data/leak-before.gcdump" ] && [ -f "$data/leak-after.gcdump" ]; then
    vg "gcdump-diff leak-before leak-after" gcdump-diff \
        "$data/leak-before.gcdump" "$data/leak-after.gcdump"
fi
lenient=1
for f in "$src"/tests/spans/*.json; do
    [ -f "$f" ] || continue
    vg "spans $(basename "$f")" spans "$f"
done
lenient=0
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
