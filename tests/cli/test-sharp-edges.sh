#!/bin/bash
# The command line's sharp edges (issue #40), each as a new user or a
# script meets it: a reader that stops reading (`| head`) ends perfpipe
# quietly with the status the run would have had; `-` is standard input
# for every command that reads a file; -q works before the command; -p and
# --pid (-n and --process) are both spellings wherever a process is taken;
# an unknown option is one line; --providers adds to the analyzer's
# profile; --top is accepted wherever tables are shown. Runs on the
# committed captures; no process is traced (the pid given is this shell's,
# which has no .NET diagnostics socket, so the capture spec perfpipe built
# is what its error names).
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
T=$DATA/alloc-gcverbose.nettrace

# closed CODE NAME -- CMD...: CMD's stdout is a pipe whose reader is gone
# before it starts (deterministic, unlike `| head`): CMD must exit CODE,
# and say nothing on stderr but what it says into /dev/null (compare's
# verdict line): nothing of the pipe.
closed() {
  local code=$1 name=$2; shift 3
  "$@" >/dev/null 2>"$tmp/closed-ref"
  check "$name" "$code" "$tmp/closed-ref" "$@" <<'EOF'
import os, subprocess, sys
code, ref = int(sys.argv[1]), open(sys.argv[2]).read()
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[3:], stdout=w, stderr=subprocess.PIPE)
err = p.stderr.decode(errors="replace")
print(f"exit {p.returncode}, stderr {err.strip()[:200]!r}")
assert p.returncode == code, f"exit {p.returncode}, expected {code}"
assert err == ref, "a reader that went away is not an error to report"
EOF
}

# --- a. a closed stdout pipe: quiet, and the status the run would have had.
closed 0 "alloc --format json into a closed pipe: exit 0, nothing said" -- \
  "$PERFPIPE" alloc "$T" --top 0 --format json
closed 0 "alloc table into a closed pipe: exit 0, nothing said" -- "$PERFPIPE" alloc "$T" --top 0
closed 0 "alloc --no-isolate into a closed pipe: exit 0, nothing said" -- \
  "$PERFPIPE" alloc "$T" --top 0 --no-isolate --format csv
closed 0 "help into a closed pipe: exit 0, nothing said" -- "$PERFPIPE" help
run "alloc good" "$PERFPIPE" alloc "$DATA/fix-boxing-good.nettrace" --format json -o "$tmp/good.json"
run "alloc bad" "$PERFPIPE" alloc "$DATA/fix-boxing-bad.nettrace" --format json -o "$tmp/bad.json"
expect 1 "compare good bad --fail-on regression: exit 1" -- \
  "$PERFPIPE" compare "$tmp/good.json" "$tmp/bad.json" --fail-on regression
closed 1 "... into a closed pipe: still exit 1 (the verdict is not lost), nothing more said" -- \
  "$PERFPIPE" compare "$tmp/good.json" "$tmp/bad.json" --fail-on regression
(set -o pipefail; "$PERFPIPE" alloc "$T" --top 0 --format json 2>"$tmp/err" | head -c 1 >/dev/null) &&
  { pass=$((pass + 1)); echo "PASS: set -o pipefail; perfpipe alloc ... | head -c 1: status 0"; } ||
  { fail=$((fail + 1)); echo "FAIL: set -o pipefail; perfpipe alloc ... | head -c 1: status $?"
    sed 's/^/  stderr: /' "$tmp/err" | head -3; }
lines "$tmp/err" 0 "... and nothing on stderr"

# --- b. `-` is standard input: render, compare, candidates, inspect.
run "alloc --format json" "$PERFPIPE" alloc "$T" --format json -o "$tmp/a.json"
run "render a.json" "$PERFPIPE" render "$tmp/a.json"; cp "$tmp/out" "$tmp/render-file"
expect 0 "render - < a.json" -- "$PERFPIPE" render - <"$tmp/a.json"
cmp -s "$tmp/out" "$tmp/render-file" && { pass=$((pass + 1)); echo "PASS: render - = render FILE"; } ||
  { fail=$((fail + 1)); echo "FAIL: render - differs from render FILE"; }
expect 0 "compare - a.json (stdin from a pipe)" -- \
  bash -c 'cat "$2" | "$1" compare - "$2"' _ "$PERFPIPE" "$tmp/a.json"
has "$tmp/out" "NO CHANGE" "compare - a.json: the same run, no change"
expect 3 "compare - - : stdin is read once" -- "$PERFPIPE" compare - - <"$tmp/a.json"
has "$tmp/err" "standard input was read already" "compare - -: says why"
expect 0 "candidates - < a.json" -- "$PERFPIPE" candidates - <"$tmp/a.json"
run "inspect FILE" "$PERFPIPE" inspect "$T" --format json -o "$tmp/i-file.json"
expect 0 "inspect - (a pipe)" -- \
  bash -c 'cat "$2" | "$1" inspect - --format json -o "$3"' _ "$PERFPIPE" "$T" "$tmp/i-pipe.json"
check "inspect -: the same events as inspect FILE" "$tmp/i-file.json" "$tmp/i-pipe.json" <<'EOF'
import json, sys
def events(p):
    d = json.load(open(p))
    t = [t for s in d["stages"] for t in s["tables"] if t["name"] == "events"][0]
    return t["rows"]
a, b = events(sys.argv[1]), events(sys.argv[2])
print(f"{len(a)} event kinds")
assert a and a == b
EOF
expect 0 "rules validate - < alloc.yaml" -- "$PERFPIPE" rules validate - <"$PP_SRCDIR/etc/rules/alloc.yaml"
has "$tmp/out" "valid" "rules validate -: the shipped file is valid"

# --- c. -q/--quiet before the command.
expect 0 "perfpipe -q alloc FILE" -- "$PERFPIPE" -q alloc "$T" --top 1
expect 0 "perfpipe --quiet render FILE" -- "$PERFPIPE" --quiet render "$tmp/a.json"
# a truncated capture is read with a warning (exit 0)
head -c 300000 "$T" >"$tmp/cut.nettrace"
expect 0 "alloc on a cut capture" -- "$PERFPIPE" alloc "$tmp/cut.nettrace"
has "$tmp/err" "warning: offset 285362" "alloc on a cut capture: a warning on stderr"
expect 0 "perfpipe -q alloc CUT: the same run" -- "$PERFPIPE" -q alloc "$tmp/cut.nettrace"
lines "$tmp/err" 0 "perfpipe -q alloc CUT: no warning on stderr"
expect 0 "perfpipe --quiet inspect CUT" -- "$PERFPIPE" --quiet inspect "$tmp/cut.nettrace"
lines "$tmp/err" 0 "perfpipe --quiet inspect CUT: no warning on stderr"

# --- d. -p and --pid, -n and --process, in the analyzers and collect.
for spelling in "-p $$" "--pid $$"; do
  # shellcheck disable=SC2086
  expect 3 "db $spelling: a capture is tried (no .NET socket here)" -- "$PERFPIPE" db $spelling
  has "$tmp/err" "capture:pid=$$" "db $spelling: the pid is the capture's"
done
expect 3 "cpu -n NAME: a capture is tried" -- "$PERFPIPE" cpu -n no-such-dotnet-app
has "$tmp/err" "no .NET process named 'no-such-dotnet-app'" "cpu -n: the name is the capture's"
expect 3 "collect --pid PID" -- "$PERFPIPE" collect --pid $$ --duration 1s -o "$tmp/c.nettrace"
has "$tmp/err" "$$" "collect --pid: the pid is tried"
expect 3 "collect --process NAME" -- "$PERFPIPE" collect --process no-such-dotnet-app --duration 1s
has "$tmp/err" "no .NET process named 'no-such-dotnet-app'" "collect --process: the name is tried"
expect 2 "db --bogus: a usage error" -- "$PERFPIPE" db --bogus
lines "$tmp/err" 1 "db --bogus: one line"
has "$tmp/err" "unknown option '--bogus'; try \`perfpipe db --help\`" "db --bogus: the hint"
expect 2 "alloc FILE -x" -- "$PERFPIPE" alloc "$T" -x
lines "$tmp/err" 1 "alloc -x: one line"
has "$tmp/err" "unknown option '-x'" "alloc -x: the option is named"
expect 2 "db -p without a value" -- "$PERFPIPE" db -p
has "$tmp/err" "option '-p' needs a value" "db -p: the value is asked for"
for cmd in render compare candidates inspect; do
  expect 2 "$cmd --bogus" -- "$PERFPIPE" $cmd --bogus x
  lines "$tmp/err" 1 "$cmd --bogus: one line"
done

# --- e. --providers adds to the analyzer's profile; --profile replaces it.
expect 3 "db --pid N --providers Hosting" -- \
  "$PERFPIPE" db --pid $$ --providers Microsoft.AspNetCore.Hosting
has "$tmp/err" "providers=Microsoft.AspNetCore.Hosting;profile=database" \
  "db --providers: the database profile is kept"
expect 3 "cpu --pid N --providers Hosting" -- \
  "$PERFPIPE" cpu --pid $$ --providers Microsoft.AspNetCore.Hosting
has "$tmp/err" "profile=dotnet-common,dotnet-sampled-thread-time" \
  "cpu --providers: the sampling profile is kept"
expect 3 "db --pid N --profile gc-verbose" -- "$PERFPIPE" db --pid $$ --profile gc-verbose
has "$tmp/err" "capture:pid=$$;profile=gc-verbose:" "db --profile: replaces the default"

# --- f. advice to capture again names the tool that took the capture:
# `perfpipe collect` for a file collect wrote (its module map FILE.maps
# beside it), `dotnet-trace collect` otherwise. The same committed captures
# (dotnet-trace's), once as they are and once with a map beside them.
mkdir -p "$tmp/took"
for f in cpu-sampled run-wrapper-gcverbose; do
  ln -s "$DATA/$f.nettrace" "$tmp/$f.nettrace"
  ln -s "$DATA/$f.nettrace" "$tmp/took/$f.nettrace"
  printf '# perfpipe-maps/1 pid=1\n# start-end perms offset build-id path\n' \
    >"$tmp/took/$f.nettrace.maps"
done
run "alloc, dotnet-trace's capture without ticks" "$PERFPIPE" alloc "$tmp/cpu-sampled.nettrace"
has "$tmp/out" 'capture with `dotnet-trace collect --profile gc-verbose`' "alloc.no_ticks: dotnet-trace's command"
run "alloc, the same capture as collect keeps it" "$PERFPIPE" alloc "$tmp/took/cpu-sampled.nettrace"
has "$tmp/out" 'capture with `perfpipe collect --profile gc-verbose`' "alloc.no_ticks: perfpipe collect's command"
run "db, collect's capture" "$PERFPIPE" db "$tmp/took/cpu-sampled.nettrace"
has "$tmp/out" 'Capture with `perfpipe collect --profile database -p PID`' "db.no_diagnostic_source: perfpipe collect's"
run "cpu, collect's capture of the dotnet run host" "$PERFPIPE" cpu "$tmp/took/run-wrapper-gcverbose.nettrace" --format json -o "$tmp/w.json"
check "cpu: wrong process and no samples name perfpipe's commands, never dotnet-trace's" "$tmp/w.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["inputs"][0].get("captured_by") == "perfpipe", d["inputs"][0].get("captured_by")
msgs = [f["message"] for f in d["inputs"][0].get("findings", [])]
msgs += [f["message"] for s in d["stages"] for f in s["findings"]]
wrong = [m for m in msgs if m.startswith("wrong process?")]
print(wrong[0][-330:] if wrong else msgs)
assert wrong and "`perfpipe ps`" in wrong[0] and "`perfpipe collect -p APP_PID ...`" in wrong[0], wrong
assert "--diagnostic-port" in wrong[0], "collect has no `-- COMMAND`: the app starts at its port"
assert any("`perfpipe collect --profile dotnet-sampled-thread-time`" in m for m in msgs), msgs
assert not [m for m in msgs if "dotnet-trace collect" in m or "dotnet-trace ps" in m], msgs
EOF
run "cpu, dotnet-trace's capture of the host" "$PERFPIPE" cpu "$tmp/run-wrapper-gcverbose.nettrace" --format json -o "$tmp/w2.json"
check "cpu: dotnet-trace's capture keeps dotnet-trace's commands" "$tmp/w2.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert "captured_by" not in d["inputs"][0]
msgs = [f["message"] for f in d["inputs"][0].get("findings", [])]
wrong = [m for m in msgs if m.startswith("wrong process?")][0]
print(wrong[-200:])
assert "`dotnet-trace collect -p APP_PID ...`" in wrong and "-- dotnet bin/Release" in wrong
EOF
run "alloc, collect's capture without rundown" "$PERFPIPE" alloc "$tmp/took/run-wrapper-gcverbose.nettrace"
has "$tmp/out" 'stop `perfpipe collect` with one Ctrl+C' "alloc.unresolved: how to stop perfpipe collect"

# --- g. an ambiguous -n NAME is refused with every match listed (pid and
# command line), SDK hosts included. Two stand-ins: `tail` processes whose
# argv reads `dotnet run ...` (a host) and `dotnet App.dll ...` (an app), each
# with a diagnostics socket nobody answers on, in their own TMPDIR.
TMPDIR=$tmp bash -c 'exec -a dotnet tail run -f /dev/null' >/dev/null 2>&1 & host=$!
TMPDIR=$tmp bash -c 'exec -a dotnet tail App.dll -f /dev/null' >/dev/null 2>&1 & app=$!
trap 'kill $host $app 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 0.3
run "sockets for the stand-ins" python3 -c '
import socket, sys
for pid in sys.argv[2:]:
    socket.socket(socket.AF_UNIX).bind(f"{sys.argv[1]}/dotnet-diagnostic-{pid}-1-socket")' \
  "$tmp" $host $app
expect 2 "collect -n tail over a host and an app: refused" -- \
  "$PERFPIPE" collect -n tail --duration 1s -o "$tmp/n.nettrace"
has "$tmp/err" "2 .NET processes are named 'tail': " "collect -n: the count"
has "$tmp/err" "$host \`dotnet run -f /dev/null\`" "collect -n: the host, with its command line"
has "$tmp/err" "$app \`dotnet App.dll -f /dev/null\`" "collect -n: the app, with its command line"
lines "$tmp/err" 1 "collect -n: one line"
expect 2 "cpu -n tail: refused the same way" -- "$PERFPIPE" cpu -n tail --duration 1s
has "$tmp/err" "choose one with -p PID" "cpu -n: the way out"
kill $host $app 2>/dev/null

# --- h. --top wherever tables are shown.
for a in "counters-csv churn-counters.csv" "spans web-spans.otlp.json"; do
  set -- $a
  expect 0 "$1 (every row)" -- "$PERFPIPE" "$1" "$DATA/$2"; cp "$tmp/out" "$tmp/all"
  expect 0 "$1 --top 1" -- "$PERFPIPE" "$1" "$DATA/$2" --top 1
  check "$1 --top 1: fewer rows, every table cut to one" "$tmp/all" "$tmp/out" <<'EOF'
import sys
a, b = open(sys.argv[1]).read().splitlines(), open(sys.argv[2]).read().splitlines()
print(f"{len(a)} lines without --top, {len(b)} with --top 1")
assert len(b) < len(a)
EOF
done

# --- j. alloc's threads column: distinct allocating threads of every row
# (it was 0 for every Small row). The alloc scenario allocates on one thread
# (its truth is GC.GetAllocatedBytesForCurrentThread's), so its methods' rows
# have exactly 1; no row has none or more than its ticks.
run "alloc --top 0 --format json" "$PERFPIPE" alloc "$T" --top 0 --format json -o "$tmp/t.json"
check "alloc threads: 1 for the one-thread scenario, 1..samples everywhere" "$tmp/t.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
t = {x["name"]: x["rows"] for x in d["stages"][0]["tables"]}
mine = 0
for ty, fr, kind, b, s, th in t["by_type_frame_kind"]:
    assert 1 <= th <= s, (ty, fr, kind, s, th)
    if fr.startswith("Workload.AllocScenario."):
        assert th == 1, (ty, fr, kind, th)
        mine += 1
print(f"{len(t['by_type_frame_kind'])} rows, {mine} of the scenario's methods with 1 thread")
assert mine >= 2
EOF
# System.Byte beside System.Byte[]: the type the runtime's tick names (a
# boxed byte), as TraceEvent reads it: the same types and tick counts.
run "alloc-exact --top 0" "$PERFPIPE" alloc "$DATA/alloc-exact.nettrace" --top 0 --format json -o "$tmp/x.json"
check "alloc by_type = TraceEvent's by_type, System.Byte included" "$tmp/x.json" "$DATA/alloc-exact.oracle.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {x["name"]: x["rows"] for x in d["stages"][0]["tables"]}["by_type"]
mine = {r[0]: r[2] for r in rows}
te = {r["type"]: r["ticks"] for r in json.load(open(sys.argv[2]))["alloc"]["by_type"]}
print(f"System.Byte: {mine.get('System.Byte')} tick(s) here, {te.get('System.Byte')} in TraceEvent")
assert te.get("System.Byte") == 1 and mine == te, (mine, te)
EOF

finish
