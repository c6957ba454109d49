#!/bin/bash
# The html report in a real browser, for every analyzer on the test-bed
# captures, a compare and candidates: headless Chromium loads each page
# with no console error (window errors land in #errors too), the DOM after
# the scripts ran holds every table of the JSON document with every cell's
# exact value (data-v) and a human text that reads back to it (3
# significant digits), every total, every finding; sorting a column by a
# click orders it; the flame graph and the counters charts are there.
# Screenshots of each page kind go to $PP_HTML_SHOTS when set. SKIP (77)
# without Chromium or python3.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
browser=
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "SKIP: no chromium to load the html report (apt-get install chromium)"; exit 77; }
py=$(command -v python3) || { echo "SKIP: python3 reads the JSON documents"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
chrome() {  # chrome OUT URL EXTRA...: a fresh profile each time, no network
  local out=$1 url=$2; shift 2
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" --enable-logging=stderr --v=0 \
    "$@" "$url" >"$out" 2>>"$tmp/console"
}

runs=(
  "cpu cpu-sampled.nettrace"
  "alloc alloc-gcverbose.nettrace"
  "db db-database.nettrace.zst"
  "counters-csv leak-counters.csv --option series=true"
  "gcdump leak-after.gcdump"
  "gcdump-diff leak-before.gcdump leak-after.gcdump"
  "spans web-spans.otlp.json"
)
i=0
pages=()
for r in "${runs[@]}"; do
  i=$((i + 1))
  set -- $r
  a=$1; shift
  args=()
  for x in "$@"; do case $x in *.*) args+=("$DATA/$x") ;; *) args+=("$x") ;; esac; done
  "$PERFPIPE" "$a" "${args[@]}" --format json -o "$tmp/$i.json" 2>"$tmp/err" &&
  "$PERFPIPE" render "$tmp/$i.json" --format html -o "$tmp/$i.html" 2>"$tmp/err" ||
    { fail=$((fail + 1)); echo "FAIL: $a: $(head -1 "$tmp/err")"; continue; }
  pages+=("$i:$a")
done
# compare (a run against a changed one) and candidates
"$PERFPIPE" alloc "$DATA/alloc-envvar.nettrace" --format json -o "$tmp/base.json" 2>/dev/null
"$PERFPIPE" render "$tmp/2.json" --format json -o "$tmp/cand.json" 2>/dev/null
"$PERFPIPE" compare "$tmp/base.json" "$tmp/cand.json" --allow-knob-drift --format json -o "$tmp/c.json" 2>/dev/null
"$PERFPIPE" compare "$tmp/base.json" "$tmp/cand.json" --allow-knob-drift --format html -o "$tmp/c.html" 2>/dev/null &&
  pages+=("c:compare") || { fail=$((fail + 1)); echo "FAIL: compare --format html"; }
"$PERFPIPE" candidates "$tmp/2.json" "$tmp/1.json" "$tmp/3.json" --format json -o "$tmp/k.json" 2>/dev/null
"$PERFPIPE" candidates "$tmp/2.json" "$tmp/1.json" "$tmp/3.json" --format html -o "$tmp/k.html" 2>/dev/null &&
  pages+=("k:candidates") || { fail=$((fail + 1)); echo "FAIL: candidates --format html"; }

# The hand-built golden document: INT64 extremes, NaN, a failed stage,
# markup in names.
SRC=${PP_SRCDIR:-$(dirname "$0")/../..}
cp "$SRC/tests/golden/hand.json" "$tmp/h.json" && cp "$SRC/tests/golden/hand.html" "$tmp/h.html" && pages+=("h:hand")

for p in "${pages[@]}"; do
  id=${p%%:*}; name=${p#*:}
  : >"$tmp/console"
  # Drive the page: click the second header of the first table twice (descending).
  sed 's#</body></html>#<script>(function(){var th=document.querySelector("table.data th.num");if(th){th.click();th.click();document.body.setAttribute("data-sorted",th.cellIndex);}})();</script></body></html>#' \
    "$tmp/$id.html" >"$tmp/$id.drive.html"
  chrome "$tmp/$id.dom" "file://$tmp/$id.drive.html" --dump-dom
  if grep -E 'CONSOLE|Uncaught' "$tmp/console" | grep -viE 'favicon' >"$tmp/cerr" && [ -s "$tmp/cerr" ]; then
    fail=$((fail + 1)); echo "FAIL: $name: console: $(head -2 "$tmp/cerr")"
  else pass=$((pass + 1)); echo "PASS: $name: no console errors"; fi
  if "$py" "$(dirname "$0")/html-dom-check.py" "$tmp/$id.json" "$tmp/$id.dom" "$name"; then
    pass=$((pass + 1)); else fail=$((fail + 1)); fi
  if [ -n "${PP_HTML_SHOTS:-}" ]; then
    mkdir -p "$PP_HTML_SHOTS"
    chrome /dev/null "file://$tmp/$id.html" --window-size=1300,1600 --hide-scrollbars \
      --screenshot="$PP_HTML_SHOTS/$name.png"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
