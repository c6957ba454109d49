#!/bin/bash
# Answers first (issue #40), in a real browser at 1400x900: for every
# analyzer's html page on the test-bed captures, a compare and candidates,
# headless Chromium lays the page out and a script measures it. The answer
# (a compare's verdict banner, else a stage headline [data-answer]; on the
# candidates page also the first card [data-card] and its fix) comes before
# any evidence (a data table or a flame graph) in DOM order, and its
# bounding box ends above y=900, the fold of a 1400x900 window. Screenshots
# go to $PP_HTML_SHOTS when set. SKIP (77) without Chromium or python3.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
browser=
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
[ -n "$browser" ] || { echo "SKIP: no chromium to lay the html report out (apt-get install chromium)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 reads the measures"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
chrome() {  # chrome OUT URL EXTRA...: a fresh profile each time, no network
  local out=$1 url=$2; shift 2
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --hide-scrollbars --window-size=1400,900 \
    --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" "$@" "$url" >"$out" 2>/dev/null
}

runs=(
  "cpu cpu-sampled.nettrace"
  "alloc alloc-gcverbose.nettrace"
  "db db-database.nettrace.zst"
  "gc gc-gen2-ws.nettrace"
  "counters-csv leak-counters.csv"
  "gcdump leak-after.gcdump"
  "gcdump-diff leak-before.gcdump leak-after.gcdump"
  "spans web-spans.otlp.json"
  "load load/hey-bad.txt"
  "bench bench-alloc.report-full.json"
)
pages=()
for r in "${runs[@]}"; do
  set -- $r
  a=$1; shift
  args=()
  for x in "$@"; do args+=("$DATA/$x"); done
  if "$PERFPIPE" "$a" "${args[@]}" --format json -o "$tmp/$a.json" 2>"$tmp/err" &&
     "$PERFPIPE" render "$tmp/$a.json" --format html -o "$tmp/$a.html" 2>"$tmp/err"; then
    pages+=("$a")
  else
    fail=$((fail + 1)); echo "FAIL: $a: $(head -1 "$tmp/err")"
  fi
done
"$PERFPIPE" alloc "$DATA/alloc-envvar.nettrace" --format json -o "$tmp/base.json" 2>/dev/null
if "$PERFPIPE" compare "$tmp/base.json" "$tmp/alloc.json" --allow-knob-drift --format html \
     -o "$tmp/compare.html" 2>"$tmp/err"; then pages+=(compare)
else fail=$((fail + 1)); echo "FAIL: compare: $(head -1 "$tmp/err")"; fi
if "$PERFPIPE" candidates "$tmp/alloc.json" "$tmp/cpu.json" "$tmp/db.json" --format html \
     -o "$tmp/candidates.html" 2>"$tmp/err"; then pages+=(candidates)
else fail=$((fail + 1)); echo "FAIL: candidates: $(head -1 "$tmp/err")"; fi

# The probe: positions after layout, written into the DOM for --dump-dom.
probe='<script>(function(){
function box(e){if(!e)return null;var r=e.getBoundingClientRect();return {top:r.top+scrollY,bottom:r.bottom+scrollY,h:r.height};}
function before(a,b){return !!(a&&b&&(a.compareDocumentPosition(b)&Node.DOCUMENT_POSITION_FOLLOWING));}
var ans=document.getElementById("verdict")||document.querySelector("[data-answer]");
var card=document.querySelector("[data-card]"),fix=card?card.querySelector("[data-field=fix]"):null;
var ev=document.querySelector("table.data, iframe.flame, svg.chart");
var m={answer:!!ans,answer_text:ans?ans.textContent.slice(0,200):"",answer_box:box(ans),
 card:!!card,fix_box:box(fix),evidence:!!ev,answer_before_evidence:ev?before(ans,ev):!!ans,
 card_before_evidence:card?(ev?before(card,ev):true):null,vw:innerWidth,vh:innerHeight};
document.body.setAttribute("data-measure",JSON.stringify(m));})();</script></body></html>'
for p in "${pages[@]}"; do
  python3 - "$tmp/$p.html" "$tmp/$p.probe.html" "$probe" <<'EOF'
import sys
s = open(sys.argv[1], encoding="utf-8").read()
i = s.rindex("</body></html>")
open(sys.argv[2], "w", encoding="utf-8").write(s[:i] + sys.argv[3] + s[i + len("</body></html>"):])
EOF
  chrome "$tmp/$p.dom" "file://$tmp/$p.probe.html" --dump-dom
  if python3 - "$tmp/$p.dom" "$p" <<'EOF'
import html, json, re, sys
dom, name = open(sys.argv[1], encoding="utf-8").read(), sys.argv[2]
m = re.search(r'<body[^>]*data-measure="([^"]*)"', dom)
if not m:
    print(f"FAIL: {name}: the probe wrote no measure (page script error?)"); sys.exit(1)
m = json.loads(html.unescape(m.group(1)))
bad = []
if not m["answer"] or not m["answer_text"].strip():
    bad.append("no answer (verdict banner or [data-answer] headline)")
else:
    if not m["answer_before_evidence"]:
        bad.append("the answer comes after an evidence table or graph")
    if m["answer_box"]["bottom"] > 900 or m["answer_box"]["h"] <= 0:
        bad.append(f"the answer ends at y={m['answer_box']['bottom']:.0f}, below the fold (900)")
if name == "candidates":
    if not m["card"] or m["fix_box"] is None:
        bad.append("no candidate card with its fix")
    elif m["fix_box"]["bottom"] > 900 or not m["card_before_evidence"]:
        bad.append(f"the first card's fix ends at y={m['fix_box']['bottom']:.0f} or after the evidence")
if m["vw"] != 1400:
    bad.append(f"the window is {m['vw']} wide, not 1400")
if bad:
    print(f"FAIL: {name}: " + "; ".join(bad)); sys.exit(1)
print(f"PASS: {name}: answer first, ends at y={m['answer_box']['bottom']:.0f} "
      f"({m['answer_text'][:70].strip()!r})")
EOF
  then pass=$((pass + 1)); else fail=$((fail + 1)); fi
  if [ -n "${PP_HTML_SHOTS:-}" ]; then
    mkdir -p "$PP_HTML_SHOTS"
    chrome /dev/null "file://$tmp/$p.html" --screenshot="$PP_HTML_SHOTS/answer-$p.png"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
