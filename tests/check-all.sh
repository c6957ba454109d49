#!/bin/bash
# The whole test suite, from a clean checkout: build with warnings as
# errors and run every test (the live capture once), `make distcheck`, then
# the suite again under AddressSanitizer + UndefinedBehaviorSanitizer, then
# a short libFuzzer run of every fuzz target (clang).
# Build trees go under ${PP_CHECK_DIR:-_check}. Exits non-zero on any failure.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${PP_CHECK_DIR:-$src/_check}
jobs=${PP_JOBS:-2}
step() { printf '\n=== %s\n' "$*"; }

# Check's own summary of every unit program, then one plain total line.
summarize() {
  local dir=$1
  find "$dir/tests" -name '*.log' -newer "$dir/config.status" -print0 2>/dev/null |
    xargs -0 grep -H -E '^[0-9]+%: Checks: ' 2>/dev/null | sed "s|^$dir/||" || true
  awk '/^# (PASS|XFAIL):/ {p += $3} /^# (FAIL|XPASS|ERROR):/ {f += $3} /^# SKIP:/ {s += $3}
       END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$dir/test-suite.log" |
    tee -a "$out/totals"
}

rm -f "$out/totals"; mkdir -p "$out"
step "bootstrap"
(cd "$src" && autoreconf -fi >/dev/null 2>&1) || { (cd "$src" && autoreconf -fi); exit 1; }

step "build and test (--enable-werror)"
rm -rf "$out/plain" && mkdir -p "$out/plain" && cd "$out/plain"
# configure on a clean tree says nothing on stderr but real warnings; an
# `rm:` line (autoconf's `rm -f core` meeting core/) fails the run.
"$src/configure" -q --enable-werror 2>"$out/configure.err" || { cat "$out/configure.err"; exit 1; }
cat "$out/configure.err" >&2
if grep '^rm: ' "$out/configure.err"; then echo "configure printed rm: lines (see configure.ac)"; exit 1; fi
make -s -j"$jobs"
make -s -j"$jobs" check || { cat test-suite.log; summarize "$out/plain"; exit 1; }
summarize "$out/plain"

step "the CLI over every fixture under valgrind"
rc=0
PERFPIPE="$out/plain/perfpipe" PERFPIPE_PLUGIN_PATH="$out/plain/plugins/.libs" \
PERFPIPE_PIPELINE_PATH="$src/etc/perfpipe/pipelines" "$src/tests/valgrind/run-valgrind.sh" \
  >"$out/valgrind.log" 2>&1 || rc=$?
tail -1 "$out/valgrind.log"
case $rc in
  0) echo "1 passed, 0 failed, 0 skipped" >>"$out/totals" ;;
  77) echo "0 passed, 0 failed, 1 skipped" >>"$out/totals" ;;
  *) cat "$out/valgrind.log"; exit 1 ;;
esac

step "I/O and allocation faults (smoke)"
# The n-th write/fsync/rename/close (ENOSPC, EIO) or malloc of a run fails,
# a few n per operation: every run ends with its documented code and no
# partial result (tests/faults/inject.sh; the full run: tests/faults/RESULTS.md).
rc=0
PERFPIPE_PLUGIN_PATH="$out/plain/plugins/.libs" PP_SRCDIR="$src" \
  "$src/tests/faults/inject.sh" --smoke "$out/plain/perfpipe" >"$out/inject.log" 2>&1 || rc=$?
tail -1 "$out/inject.log"
case $rc in
  0) echo "1 passed, 0 failed, 0 skipped" >>"$out/totals" ;;
  77) echo "0 passed, 0 failed, 1 skipped" >>"$out/totals" ;;
  *) cat "$out/inject.log"; exit 1 ;;
esac

step "make distcheck"
make -s distcheck DISTCHECK_CONFIGURE_FLAGS="--enable-werror" PP_LIVE=0 \
  >"$out/distcheck.log" 2>&1 || { tail -60 "$out/distcheck.log"; exit 1; }
grep -E '^(=+|.*archives ready for distribution)' "$out/distcheck.log" | tail -4

step "build and test under ASan + UBSan"
rm -rf "$out/asan" && mkdir -p "$out/asan" && cd "$out/asan"
"$src/configure" -q --enable-werror --enable-asan --enable-ubsan
make -s -j"$jobs"
ASAN_OPTIONS=detect_leaks=1 PP_LIVE=0 make -s -j"$jobs" check ||
  { cat test-suite.log; summarize "$out/asan"; exit 1; }
summarize "$out/asan"

step "fuzz smoke (${PP_FUZZ_SMOKE_SECS:-60} s per target)"
# Every CI run fuzzes a little: each target of fuzz/run-fuzz.sh (the readers
# and the `perfpipe run` path of every input kind), PP_JOBS at a time; a
# crash, leak, UB report, hang or OOM fails the run (fuzz/smoke.sh).
rc=0
rm -rf "$out/fuzz"
"$src/fuzz/smoke.sh" "$out/fuzz" "${PP_FUZZ_SMOKE_SECS:-60}" "$jobs" >"$out/fuzz.log" 2>&1 || rc=$?
cat "$out/fuzz.log"
# No clang at all: one SKIP line, unless the run must fuzz (.ci/run sets
# PP_FUZZ_REQUIRED=1: its deps install clang, so a skip there is a fault).
case $rc in
  0) tail -1 "$out/fuzz.log" >>"$out/totals" ;;
  77) [ "${PP_FUZZ_REQUIRED:-0}" = 1 ] && { echo "fuzz smoke skipped but PP_FUZZ_REQUIRED=1"; exit 1; }
      echo "0 passed, 0 failed, 1 skipped" >>"$out/totals" ;;
  *) exit 1 ;;
esac

step "all green"
# The closing line: every test program of both builds.
awk -F'[ ,]+' '{p += $1; f += $3; s += $5} END {printf "%d passed, %d failed, %d skipped\n", p, f, s}' \
  "$out/totals"
