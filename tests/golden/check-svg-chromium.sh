#!/bin/sh
# The svg flame graph in a real browser: headless Chromium loads the golden
# (byte-identical to what the renderer writes, check_result_render makes
# sure), clicks a frame, searches with '/', and the DOM must show the zoom
# (the clicked frame full width) and the search share. SKIP (77) without
# Chromium (Debian package: chromium).
set -u
srcdir=${PP_SRCDIR:-$(dirname "$0")/../..}
svg="$srcdir/tests/golden/real-alloc.svg"
browser=
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
    echo "SKIP: no chromium to load the svg flame graph (apt-get install chromium)"
    exit 77
fi
[ -r "$svg" ] || { echo "FAIL: $svg missing"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# Drive the page: a fixed answer to the search prompt, a click, a '/'.
sed 's#</svg>#<script type="text/ecmascript"><![CDATA[\
window.prompt=function(){return "String$";};\
var g=[].slice.call(document.querySelectorAll("g.f")).filter(function(x){return x.getAttribute("data-n")==="System.String.Ctor";})[0];\
g.dispatchEvent(new MouseEvent("click"));\
document.dispatchEvent(new KeyboardEvent("keydown",{key:"/"}));\
]]></script></svg>#' "$svg" > "$tmp/drive.svg"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --dump-dom "file://$tmp/drive.svg" > "$tmp/dom" 2>"$tmp/err"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --window-size=1200,200 --screenshot="$tmp/shot.png" "file://$tmp/drive.svg" >/dev/null 2>&1
fail=0
# TraceEvent: System.String is 56.8 MB of 85.6 MB sampled = 66.4%, in 3 leaves.
grep -q 'matched 3 frames, 66.4%' "$tmp/dom" || { echo "FAIL: search share not shown"; fail=1; }
grep -A1 'data-n="System.String.Ctor"' "$tmp/dom" | grep -q 'width="1180.00"' ||
    { echo "FAIL: clicked frame not zoomed to full width"; fail=1; }
# Non-blank: a PNG of real size (a blank 1200x200 page compresses to ~1 KB).
size=$(wc -c < "$tmp/shot.png" 2>/dev/null || echo 0)
[ "$size" -gt 4000 ] || { echo "FAIL: screenshot is blank or missing ($size bytes)"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: svg zooms, searches and draws in $browser ($size byte screenshot)"
exit $fail
