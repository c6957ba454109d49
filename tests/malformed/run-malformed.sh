#!/bin/sh
# tests/malformed: every minimized bad input must give one clear line and a
# documented exit code -- no crash, no hang, no partial result.
#
# Layout: tests/malformed/READER/NAME is an input, NAME.expected its verdict,
# ONE line:   EXIT<space>STDERR-LINE
# e.g.        3 perfpipe: ./x.nettrace: byte 20: ...
# EXIT is perfpipe's exit status; STDERR-LINE must appear, exactly, as a line
# of its stderr. The input is passed as ./NAME from inside its folder, so the
# line names it that way. With a non-zero EXIT stdout must be empty (no
# partial output posing as a result). A sanitizer report on stderr fails the
# case whatever the exit. Each run is bounded by `timeout 20`.
#
# READER -> command: nettrace: perfpipe inspect; gcdump: perfpipe gcdump;
# counters: perfpipe counters-csv; spans: perfpipe spans; load: perfpipe
# load; pipeline: perfpipe validate. Another reader's case with a NAME.args
# file runs `perfpipe ARGS` instead (one line; @FILE@ stands for ./NAME): an
# input that once broke an analyzer, not the reader. A pipeline case with a NAME.args file is run through the
# shorthand instead: NAME is installed as the shipped pipeline of the
# analyzer that NAME.args names first, and perfpipe gets NAME.args (one
# line; @FILE@ stands for ./NAME) as its arguments. Plugins and pipelines
# come from PERFPIPE_PLUGIN_PATH and
# PERFPIPE_PIPELINE_PATH (make check sets both).
#
# Env: PERFPIPE (the built binary; default $PP_BUILDDIR/perfpipe),
# PP_SRCDIR (the source tree; default: two folders up from this script).
# Cases listed in tests/malformed/PENDING (bugs filed against modules whose
# owners have not fixed them yet) are reported XFAIL/XPASS and not counted.
# Prints one line per case, then "N passed, N failed"; exit 1 on a failure.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=${PP_SRCDIR:-$(cd "$here/../.." && pwd)}
bin=${PERFPIPE:-${PP_BUILDDIR:-.}/perfpipe}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
if [ ! -x "$bin" ]; then
    echo "run-malformed: no perfpipe binary at $bin (set PERFPIPE)" >&2
    exit 99
fi
dir=$src/tests/malformed
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pp-malformed.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

pass=0
fail=0
xfail=0
for reader in nettrace gcdump counters spans pipeline load; do
    case $reader in
        load)     cmd=load ;;
        nettrace) cmd=inspect ;;
        gcdump)   cmd=gcdump ;;
        counters) cmd=counters-csv ;;
        spans)    cmd=spans ;;
        pipeline) cmd=validate ;;
    esac
    [ -d "$dir/$reader" ] || continue
    for exp in "$dir/$reader"/*.expected; do
        [ -f "$exp" ] || continue
        name=$(basename "$exp" .expected)
        case=$reader/$name
        if [ ! -f "$dir/$reader/$name" ]; then
            echo "FAIL $case: input missing"; fail=$((fail + 1)); continue
        fi
        want=$(head -n 1 "$exp")
        want_exit=${want%% *}
        want_line=${want#* }
        if [ -f "$dir/$reader/$name.args" ] && [ "$reader" != pipeline ]; then
            # An input an analyzer must survive, not only the reader:
            # perfpipe gets NAME.args as its arguments (@FILE@ = ./NAME).
            args=$(sed -n '1{s|@FILE@|./'"$name"'|g;p;}' "$dir/$reader/$name.args")
            # shellcheck disable=SC2086
            (cd "$dir/$reader" && exec timeout 20 "$bin" $args) > "$tmp/out" 2> "$tmp/err"
        elif [ -f "$dir/$reader/$name.args" ]; then
            # A pipeline the shorthand runs: NAME becomes the shipped
            # pipeline of the analyzer named first in NAME.args, and perfpipe
            # gets NAME.args as its arguments (@FILE@ = ./NAME).
            args=$(sed -n '1{s|@FILE@|./'"$name"'|g;p;}' "$dir/$reader/$name.args")
            rm -rf "$tmp/pipelines"; mkdir "$tmp/pipelines"
            cp "$dir/$reader/$name" "$tmp/pipelines/${args%% *}.yaml"
            # shellcheck disable=SC2086
            (cd "$dir/$reader" && PERFPIPE_PIPELINE_PATH=$tmp/pipelines \
                exec timeout 20 "$bin" $args) > "$tmp/out" 2> "$tmp/err"
        else
            (cd "$dir/$reader" && exec timeout 20 "$bin" "$cmd" "./$name") \
                > "$tmp/out" 2> "$tmp/err"
        fi
        got=$?
        why=
        if [ "$got" -eq 124 ]; then
            why="timed out (20 s)"
        elif [ "$got" -ne "$want_exit" ]; then
            why="exit $got, expected $want_exit"
        elif ! grep -qxF -- "$want_line" "$tmp/err"; then
            why="stderr lacks the expected line"
        elif grep -qE 'Sanitizer|runtime error:|LeakSanitizer' "$tmp/err"; then
            why="sanitizer report"
        elif [ "$want_exit" -ne 0 ] && [ -s "$tmp/out" ]; then
            why="stdout not empty on failure"
        fi
        if grep -qxF "$case" "$dir/PENDING" 2>/dev/null; then
            if [ -z "$why" ]; then
                echo "XPASS $case (listed in PENDING; passes under this build)"
            else
                echo "XFAIL $case: $why (filed, owner's fix pending)"
            fi
            xfail=$((xfail + 1))
        elif [ -z "$why" ]; then
            echo "PASS $case"
            pass=$((pass + 1))
        else
            echo "FAIL $case: $why"
            echo "  expected: $want_line"
            sed 's/^/  stderr:   /' "$tmp/err" | head -n 5
            fail=$((fail + 1))
        fi
    done
done
if [ "$xfail" -gt 0 ]; then
    echo "$pass passed, $fail failed ($xfail pending, see tests/malformed/PENDING)"
else
    echo "$pass passed, $fail failed"
fi
[ "$fail" -eq 0 ]
