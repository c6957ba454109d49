#!/bin/bash
# A plugin cannot move, re-mode or break the run's outputs, nor hold the
# run: fault plugins that chdir() or umask(0) in create(), close every
# descriptor above 2, or fork a child that sleeps on. The -o file lands
# where the user said (relative to the user's directory), with the user's
# umask; closed descriptors end the run with exit 4 and no file; a
# lingering child is ended with the run, which finishes in time; so is a
# daemon (a second fork in a session of its own, SIGTERM ignored, every
# descriptor kept): f1f164a left it running, holding the run's standard
# output (a reader of the document waited for it).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
SRC=${PP_SRCDIR:?}
FAULTS=${PP_BUILDDIR:?}/tests/faults/.libs
command -v python3 >/dev/null || { echo "SKIP: python3 reads the documents"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$SRC/tests/faults/lib.sh"
pass=0; fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else ko "$name"; fi; }
q() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1" 2>/dev/null; }
trace=$DATA/alloc-exact.nettrace

mkdir -p "$tmp/user" "$tmp/elsewhere"
for f in chdir umask closefds linger sleep daemon; do beside_alloc $f "$trace" >"$tmp/$f.yaml"; done

# chdir: a relative -o stays relative to the user's directory.
(cd "$tmp/user" && PP_FAULT_DIR="$tmp/elsewhere" "$PERFPIPE" run "$tmp/chdir.yaml" \
  --plugin-dir "$FAULTS" --format json -o out.json 2>"$tmp/chdir.err"); rc=$?
check "chdir: exit 0 ($rc)" [ "$rc" = 0 ]
check "chdir: the output is in the user's directory" [ -s "$tmp/user/out.json" ]
check "chdir: nothing in the plugin's directory" [ -z "$(ls -A "$tmp/elsewhere")" ]
check "chdir: the document is whole" [ "$(q "$tmp/user/out.json" '",".join(s["status"] for s in d["stages"])')" = ok,ok ]

# umask: the output has the user's umask (022 here: 0644), not 0666.
rm -f "$tmp/user/out.json"
(cd "$tmp/user" && umask 022 && "$PERFPIPE" run "$tmp/umask.yaml" --plugin-dir "$FAULTS" \
  -o out.json 2>"$tmp/umask.err"); rc=$?
check "umask: exit 0 ($rc)" [ "$rc" = 0 ]
check "umask: mode 644 ($(stat -c %a "$tmp/user/out.json" 2>/dev/null))" \
  [ "$(stat -c %a "$tmp/user/out.json" 2>/dev/null)" = 644 ]
# ... and on standard output, through the same check.
"$PERFPIPE" run "$tmp/umask.yaml" --plugin-dir "$FAULTS" >"$tmp/umask-stdout.json" 2>/dev/null
check "umask: the document on stdout" [ "$(q "$tmp/umask-stdout.json" 'len(d["stages"])')" = 2 ]

# closefds: no result posing as whole, exit 4 (a plugin failed), one line.
rm -f "$tmp/user/out.json"
(cd "$tmp/user" && "$PERFPIPE" run "$tmp/closefds.yaml" --plugin-dir "$FAULTS" \
  -o out.json 2>"$tmp/closefds.err"); rc=$?
check "closefds: exit 4 ($rc)" [ "$rc" = 4 ]
check "closefds: no output file" [ ! -e "$tmp/user/out.json" ]
check "closefds: no temporary file left" [ -z "$(ls -A "$tmp/user")" ]
check "closefds: not called a perfpipe bug" eval '! grep -q "perfpipe bug" "$tmp/closefds.err"'
check "closefds: says a stage closed descriptors" grep -q "closed descriptors" "$tmp/closefds.err"

# linger: the run ends in time and the plugin's child with it.
start=$(date +%s)
PP_FAULT_PIDFILE="$tmp/linger.pid" timeout 60 "$PERFPIPE" run "$tmp/linger.yaml" \
  --plugin-dir "$FAULTS" --stage-timeout 5 >"$tmp/linger.json" 2>"$tmp/linger.err"; rc=$?
took=$(( $(date +%s) - start ))
check "linger: exit 0 ($rc)" [ "$rc" = 0 ]
check "linger: the run ended in $took s (< 30)" [ "$took" -lt 30 ]
check "linger: the document is whole" [ "$(q "$tmp/linger.json" '",".join(s["status"] for s in d["stages"])')" = ok,ok ]
pid=$(cat "$tmp/linger.pid" 2>/dev/null)
check "linger: the plugin forked (pid $pid)" [ -n "$pid" ]
# alive: there and not a zombie (killed, waiting for a reaper that may be slow)
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -n "$pid" ] && alive "$pid" && sleep 0.2; done
if [ -n "$pid" ] && alive "$pid"; then
  ko "linger: its child $pid is still alive"; kill "$pid"
else
  ok "linger: its child is gone"
fi

# daemon: after a normal run, and after a stage timeout, the daemon the
# stage left is gone when perfpipe exits (the process table says so, by
# the pid it wrote before create() returned), and the reader of the
# document gets its end.
gone() { [ -n "$1" ] && ! ps -p "$1" >/dev/null 2>&1; }
for how in done timeout; do
  rm -f "$tmp/daemon.pid"
  hang=; [ "$how" = timeout ] && hang=1
  start=$(date +%s)
  # The reader is bounded: on a build where the daemon holds stdout it
  # would wait for ever.
  env ${hang:+PP_FAULT_HANG=1} PP_FAULT_PIDFILE="$tmp/daemon.pid" timeout 60 "$PERFPIPE" run "$tmp/daemon.yaml" \
    --plugin-dir "$FAULTS" --stage-timeout 3 2>"$tmp/daemon.err" | timeout 60 cat >"$tmp/daemon.json"
  st=("${PIPESTATUS[@]}"); rc=${st[0]}; rd=${st[1]}
  took=$(( $(date +%s) - start ))
  want=0; [ "$how" = timeout ] && want=4
  pid=$(cat "$tmp/daemon.pid" 2>/dev/null)
  check "daemon ($how): the plugin made a daemon (pid $pid)" [ -n "$pid" ]
  check "daemon ($how): exit $want ($rc)" [ "$rc" = $want ]
  check "daemon ($how): the reader of the document got its end (status $rd, $took s)" [ "$rd" = 0 ]
  if [ "$how" = done ]; then
    check "daemon ($how): the document is whole" [ "$(q "$tmp/daemon.json" '",".join(s["status"] for s in d["stages"])')" = ok,ok ]
  else
    check "daemon ($how): the stage failed by its timeout" grep -q "made no progress for 3 s" "$tmp/daemon.err"
    check "daemon ($how): alloc's result is whole" [ "$(q "$tmp/daemon.json" '",".join(s["status"] for s in d["stages"])')" = ok,failed ]
  fi
  if gone "$pid"; then ok "daemon ($how): no process left"; else ko "daemon ($how): the daemon $pid is still running"; kill -KILL "$pid" 2>/dev/null; fi
done

# SIGINT with SIGINT ignored from the start (a script's background job):
# the run still ends by the signal (the shell sees 130), and no result is
# renamed into place. fault-sleep sleeps in finish(): the signal lands
# mid-run.
rm -f "$tmp/user/"*
(cd "$tmp/user" && trap '' INT && exec "$PERFPIPE" run "$tmp/sleep.yaml" --plugin-dir "$FAULTS" \
  --stage-timeout 60 --format json -o out.json 2>"$tmp/int.err") &
bg=$!
sleep 2
kill -INT "$bg"
wait "$bg"; rc=$?
check "SIGINT inherited ignored: the run ends by SIGINT (status $rc)" [ "$rc" = 130 ]
check "SIGINT inherited ignored: no result and no temporary file" [ -z "$(ls -A "$tmp/user")" ]
# The same for SIGTERM (the shell sees 143).
(cd "$tmp/user" && trap '' TERM && exec "$PERFPIPE" run "$tmp/sleep.yaml" --plugin-dir "$FAULTS" \
  --stage-timeout 60 --format json -o out.json 2>"$tmp/term.err") &
bg=$!
sleep 2
kill -TERM "$bg"
wait "$bg"; rc=$?
check "SIGTERM inherited ignored: the run ends by SIGTERM (status $rc)" [ "$rc" = 143 ]
check "SIGTERM inherited ignored: no result and no temporary file" [ -z "$(ls -A "$tmp/user")" ]

echo "passed $pass, failed $fail"
[ "$fail" = 0 ]
