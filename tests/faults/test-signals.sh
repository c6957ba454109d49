#!/bin/bash
# SIGINT and SIGTERM end the run with the signal (the shell sees 130 or
# 143) and leave no result renamed into place, whatever a plugin did to
# its signals, and also when they arrive while the outputs are written
# (issue 43). Each case waits for a file the run creates at the moment
# to interrupt (no sleep racing the run):
#   - a plugin that ignores, catches or blocks SIGINT/SIGTERM/SIGHUP in
#     create(), interrupted in its finish() (fault-signals creates
#     $PP_FAULT_READY there, then goes on after a few seconds): on f1f164a
#     the stages' process ignored the forwarded signal, went on and
#     renamed the whole result into place;
#   - the same plugin, the run interrupted while it writes its -o file (the
#     I/O fault shim stalls the n-th write, creating $PP_IOFAULT_HOLD): the
#     writing process had the plugin's dispositions (f1f164a: the result
#     was renamed into place after the stall);
#   - no plugin at all, interrupted during the write of a file and of a
#     CSV directory (new, and existing with older files): nothing new
#     left, the existing directory as it was.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
FAULTS=${PP_BUILDDIR:?}/tests/faults/.libs
[ -f "$FAULTS/fault-signals.so" ] || { echo "SKIP: the fault plugins are built by make check"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }
trace=$DATA/alloc-exact.nettrace
# The shim stalls: a run not interrupted goes on after HOLD seconds, so a
# run that ignored the signal finishes (and is caught) rather than hangs.
HOLD=8

shim=
if ! ldd "$PERFPIPE" 2>/dev/null | grep -q libasan &&
   ${CC:-cc} -O1 -shared -fPIC -o "$tmp/iofault.so" "$SRC/tests/faults/iofault.c" -ldl 2>/dev/null; then
  shim=$tmp/iofault.so
fi

. "$SRC/tests/faults/lib.sh"
beside_alloc signals "$trace" >"$tmp/sig.yaml"

# Wait (at most 60 s) for the file the run creates when it is where the
# case interrupts it.
wait_for() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.1; done; return 1; }

# interrupt NAME SIG READY -- COMMAND...: run COMMAND in $tmp/user in the
# background (as a script's job: SIGINT ignored when it starts), send SIG
# once READY exists, and give the exit status in $rc.
interrupt() {
  local name=$1 sig=$2 ready=$3 bg; shift 4
  rm -f "$ready"
  (cd "$tmp/user" && exec "$@" 2>"$tmp/$name.err") &
  bg=$!
  if wait_for "$ready"; then kill -"$sig" "$bg"; else ko "$name: never got where it is interrupted"; fi
  wait "$bg"; rc=$?
}
code() { [ "$1" = INT ] && echo 130 || echo 143; }
empty() { [ -z "$(ls -A "$tmp/user")" ]; }
mkdir -p "$tmp/user"

# --- a plugin's own signal dispositions, interrupted in its finish() ---
for mode in ignore handler block; do
  for sig in INT TERM; do
    [ "$mode" != ignore ] && [ "$sig" = TERM ] && continue
    interrupt "$mode-$sig" $sig "$tmp/ready" -- env PP_FAULT_SIGMODE=$mode PP_FAULT_READY="$tmp/ready" \
      PP_FAULT_HOLD=$HOLD "$PERFPIPE" run "$tmp/sig.yaml" --plugin-dir "$FAULTS" -o out.json
    check "plugin $mode SIG$sig, interrupted in the plugin: ends by SIG$sig ($rc)" [ "$rc" = "$(code $sig)" ]
    check "plugin $mode SIG$sig, interrupted in the plugin: no result, no temporary file" empty
    rm -rf "$tmp/user/"*
  done
done

if [ -z "$shim" ]; then
  echo "(the I/O shim cannot be preloaded here: ASan build or no cc; the interrupts during a write are skipped)"
  echo "passed $pass, failed $fail"
  [ "$fail" = 0 ]; exit
fi
# "${stall[@]}" PP_IOFAULT_N=N COMMAND...: the N-th write of a file stalls
stall=(env PP_IOFAULT_OP=write PP_IOFAULT_HOLD="$tmp/held" PP_IOFAULT_HOLD_S=$HOLD LD_PRELOAD="$shim")

# --- the same plugin, interrupted while the result is written ----------
for mode in ignore handler block; do
  for sig in INT TERM; do
    [ "$mode" != ignore ] && [ "$sig" = INT ] && continue
    interrupt "w-$mode-$sig" $sig "$tmp/held" -- "${stall[@]}" PP_IOFAULT_N=1 \
      PP_FAULT_SIGMODE=$mode "$PERFPIPE" run "$tmp/sig.yaml" --plugin-dir "$FAULTS" -o out.json
    check "plugin $mode SIG$sig, interrupted writing: ends by SIG$sig ($rc)" [ "$rc" = "$(code $sig)" ]
    check "plugin $mode SIG$sig, interrupted writing: it was writing out.json" grep -q "/user/out.json\." "$tmp/held"
    check "plugin $mode SIG$sig, interrupted writing: no result, no temporary file" empty
    rm -rf "$tmp/user/"*
  done
done

# --- no plugin: a file, a new CSV directory, an existing one -----------
for sig in INT TERM; do
  interrupt "file-$sig" $sig "$tmp/held" -- "${stall[@]}" PP_IOFAULT_N=2 "$PERFPIPE" alloc "$trace" --format json -o out.json
  check "a file, SIG$sig while writing: ends by SIG$sig ($rc)" [ "$rc" = "$(code $sig)" ]
  check "a file, SIG$sig while writing: no result, no temporary file" empty
  rm -rf "$tmp/user/"*
  # the 4th of 9 tables: 3 are whole in the temporary directory
  interrupt "dir-$sig" $sig "$tmp/held" -- "${stall[@]}" PP_IOFAULT_N=4 "$PERFPIPE" alloc "$trace" --format csv -o csv/
  check "a new CSV directory, SIG$sig while writing: ends by SIG$sig ($rc)" [ "$rc" = "$(code $sig)" ]
  check "a new CSV directory, SIG$sig while writing: it was writing a table" grep -q "\.csv" "$tmp/held"
  check "a new CSV directory, SIG$sig while writing: no directory, no temporary one" empty
  rm -rf "$tmp/user/"*
  mkdir "$tmp/user/csv"; echo old >"$tmp/user/csv/by_type.csv"; echo mine >"$tmp/user/csv/notes.txt"
  interrupt "olddir-$sig" $sig "$tmp/held" -- "${stall[@]}" PP_IOFAULT_N=4 "$PERFPIPE" alloc "$trace" --format csv -o csv/
  check "an existing CSV directory, SIG$sig while writing: ends by SIG$sig ($rc)" [ "$rc" = "$(code $sig)" ]
  check "an existing CSV directory, SIG$sig while writing: as it was, nothing beside it" \
    [ "$(ls -A "$tmp/user" | tr '\n' ' ')" = "csv " ] && [ "$(ls -A "$tmp/user/csv" | tr '\n' ' ')" = "by_type.csv notes.txt " ] &&
    [ "$(cat "$tmp/user/csv/by_type.csv")" = old ]
  rm -rf "$tmp/user/"*
done

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
