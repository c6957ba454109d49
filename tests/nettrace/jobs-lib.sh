# Helpers of the --jobs tests (sourced): a reader split into regions on
# several threads must give the serial document, stderr and exit code byte
# for byte. The sourcing script defines run_jobs J FILE (the command under
# test with --jobs J, document on stdout) and may set SPLITS (default 4:
# every/balanced x 2/3 threads). Real captures are small, so the test-only
# knob PERFPIPE_INSPECT_SPLIT forces splits below the size threshold:
# "every" starts a region at every sequence point, "balanced" cuts at the
# points nearest equal byte shares. PERFPIPE_INSPECT_SPLIT_LOG records
# whether a read was split and folded, or fell back to serial, so a
# comparison that never split cannot pass for one that did.
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
CORPUS=${PP_CORPUS:-}
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to damage the fixtures"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
mutate() { python3 "$SRC/tests/faults/mutate-nettrace.py" "$@"; }
log=$tmp/split.log

# same FILE: serial vs every split mode at 2 and 3 threads; leaves the
# split log lines of FILE's parallel reads in $log.
same() {
  local f=$1 mode j rs rp
  run_jobs 1 "$f" >"$tmp/s.json" 2>"$tmp/s.err"; rs=$?
  : >"$log"
  for mode in every balanced; do
    for j in 2 3; do
      PERFPIPE_INSPECT_SPLIT=$mode PERFPIPE_INSPECT_SPLIT_LOG=$log \
        run_jobs $j "$f" >"$tmp/p.json" 2>"$tmp/p.err"; rp=$?
      if [ "$rs" = "$rp" ] && cmp -s "$tmp/s.json" "$tmp/p.json" && cmp -s "$tmp/s.err" "$tmp/p.err"; then
        ok "$(basename "$f") $mode --jobs $j: as --jobs 1 (exit $rs)"
      else
        ko "$(basename "$f") $mode --jobs $j: differs from --jobs 1 (exit $rs vs $rp)"
        diff "$tmp/s.json" "$tmp/p.json" | head -5
        diff "$tmp/s.err" "$tmp/p.err" | head -5
      fi
    done
  done
}
# folded NAME [N]: N (default 4) parallel reads of the last `same` were
# split and folded.
folded() {
  local n want=${2:-4}; n=$(grep -c " folded$" "$log")
  if [ "$n" = "$want" ]; then ok "$1: split into regions and folded ($want reads)"; else ko "$1: folded $n of $want reads"; cat "$log"; fi
}
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
