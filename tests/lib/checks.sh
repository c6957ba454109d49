# Sourced (bash) by the tests that judge perfpipe's results with small python3
# programs. It needs python3 (else the test SKIPs) and gives:
#   $tmp                   a scratch directory, removed at exit
#   check NAME ARGS...     the python3 program on stdin, run with ARGS, must exit 0;
#                          its output is shown under PASS, its last 15 lines under FAIL
#   run NAME CMD...        CMD must exit 0; otherwise a FAIL with its stderr and
#                          status 1, so a caller can `|| continue`
#   expect CODE NAME -- CMD...   CMD must exit CODE
#   finish [PREFIX]        "PREFIXN passed, M failed"; the status is 0 only when none failed
# A test ends with `finish`, so the counts are what the status says.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }

check() {
  local name=$1; shift
  if python3 - "$@" >"$tmp/py.out" 2>&1; then
    pass=$((pass + 1)); echo "PASS: $name"; sed 's/^/  /' "$tmp/py.out"
  else
    fail=$((fail + 1)); echo "FAIL: $name"; sed 's/^/  /' "$tmp/py.out" | tail -15
  fi
}
run() {
  local name=$1 rc; shift
  "$@" >"$tmp/out" 2>"$tmp/err" && return 0
  rc=$?
  fail=$((fail + 1)); echo "FAIL: $name: exit $rc"; sed 's/^/  stderr: /' "$tmp/err" | head -5
  return 1
}
expect() {
  local code=$1 name=$2 got; shift 3
  "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  if [ "$got" -eq "$code" ]; then pass=$((pass + 1)); echo "PASS: $name"
  else fail=$((fail + 1)); echo "FAIL: $name: exit $got, expected $code"; sed 's/^/  stderr: /' "$tmp/err" | head -5; fi
}
has() {  # has FILE NEEDLE NAME: FILE holds NEEDLE (a fixed string)
  if grep -qF -- "$2" "$1"; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: '$2' not in $(basename "$1")"; head -5 "$1" | sed 's/^/  /'; fi
}
lines() {  # lines FILE N NAME: FILE has exactly N lines
  local n; n=$(wc -l <"$1")
  if [ "$n" -eq "$2" ]; then pass=$((pass + 1)); echo "PASS: $3"
  else fail=$((fail + 1)); echo "FAIL: $3: $n lines, expected $2"; head -5 "$1" | sed 's/^/  /'; fi
}
finish() {
  echo "${1:-}$pass passed, $fail failed"
  [ "$fail" -eq 0 ]
}
