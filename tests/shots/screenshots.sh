#!/bin/bash
# Screenshots of the reports as a reader first sees them (issue #40): every
# analyzer's HTML page on the test-bed captures, a compare and candidates,
# drawn by headless Chromium in a 1400x900 window, one PNG each
# (answer-NAME.png) in OUTDIR. A script to look at, not a test: the test
# that holds the pages to "answer above the fold, before the evidence" is
# tests/golden/check-answer-chromium.sh (its DOM order and boxes), which
# this runs with PP_HTML_SHOTS=OUTDIR so both see the same pages.
#
#   tests/shots/screenshots.sh [BUILDDIR [OUTDIR]]
#
# BUILDDIR: a built tree (default _build); OUTDIR: default
# BUILDDIR/screenshots. CI keeps them as artifacts: .ci/run calls this after
# the suite with OUTDIR=${PP_ARTIFACTS:-_check/artifacts}/screenshots. Exit
# 77 without Chromium, else the DOM-order test's status.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$src/_build}" && pwd) || exit 2
out=${2:-$build/screenshots}
[ -x "$build/perfpipe" ] || { echo "screenshots: $build/perfpipe is not built" >&2; exit 2; }
mkdir -p "$out" && out=$(cd "$out" && pwd)
rm -f "$out"/answer-*.png
PERFPIPE=$build/perfpipe PP_TESTDATA=$src/tests/data PP_HTML_SHOTS=$out \
  PERFPIPE_PLUGIN_PATH=$build/plugins/.libs PERFPIPE_PIPELINE_PATH=$src/etc/perfpipe/pipelines \
  PERFPIPE_BUILD_CHECK=off \
  bash "$src/tests/golden/check-answer-chromium.sh"
rc=$?
n=$(ls "$out"/answer-*.png 2>/dev/null | wc -l)
echo "screenshots: $n PNG files (1400x900) in $out"
exit $rc
