#!/bin/bash
# Two rough edges of answers-first reports (issue #40), on the committed
# captures:
# - a text table that must cut a long string keeps the end of a frame (the
#   method) but the start of prose (columns[].prose: a message, evidence, a
#   fix): candidates' followups are sentences, and "...frames, not a
#   candidate" said nothing of what the row is about;
# - the headline skips a caveat (a finding marked "caveat": it qualifies the
#   figures without changing them) for the finding or top row that bears on
#   the answer, and falls back to it when there is nothing else.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"

run "cpu cpu-blocking" "$PERFPIPE" cpu "$DATA/cpu-blocking.nettrace" --format json -o "$tmp/cpu.json"
run "candidates --format json" "$PERFPIPE" candidates "$tmp/cpu.json" --format json -o "$tmp/cand.json"
run "candidates at 100 columns" env COLUMNS=100 "$PERFPIPE" candidates "$tmp/cpu.json" --format table
cp "$tmp/out" "$tmp/cand.txt"
check "followups: each message cut keeps its start (prose), within 100 columns" "$tmp/cand.json" "$tmp/cand.txt" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read().splitlines()
st = doc["stages"][0]
t = {x["name"]: x for x in st["tables"]}["followups"]
cols = [c["name"] for c in t["columns"]]
assert [c.get("prose", False) for c in t["columns"]] == [False, False, False, True], t["columns"]
msgs = [r[cols.index("message")] for r in t["rows"]]
assert msgs, "no followups to show"
long = [m for m in msgs if len(m) > 100]
assert long, "no message long enough to be cut"
for m in long:
    # the row's line: its code is on it, then the message's first words
    head = m[:20]
    lines = [l for l in text if head in l]
    assert lines, f"the start of {m[:60]!r} is on no line"
    assert all(len(l) <= 100 for l in lines), max(map(len, lines))
    assert lines[0].rstrip().endswith("..."), lines[0]
    print(lines[0][-90:])
assert all(len(l) <= 100 for l in text), max(len(l) for l in text)
EOF

# A caveat warning first among the findings: the headline is still the top
# row (alloc's answer); with no table to rank, the caveat is the headline.
run "alloc alloc-gcverbose" "$PERFPIPE" alloc "$DATA/alloc-gcverbose.nettrace" --format json -o "$tmp/a.json"
run "the caveat document" python3 - "$tmp/a.json" "$tmp/caveat.json" "$tmp/bare.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
cav = {"severity": "warning", "code": "test.cut_starts", "caveat": True,
       "message": "CAVEAT 3 command starts have no stop (the trace ended mid-command)"}
d["stages"][0]["findings"].insert(0, cav)
json.dump(d, open(sys.argv[2], "w"))
d["stages"][0]["tables"] = []
json.dump(d, open(sys.argv[3], "w"))
EOF
run "render the caveat document" "$PERFPIPE" render "$tmp/caveat.json"
check "headline: the top row, not the caveat" "$tmp/out" <<'EOF'
import sys
lines = open(sys.argv[1]).read().splitlines()
ans = [l for l in lines if l.startswith("answer:")]
print(ans[0][:110])
assert ans and "CAVEAT" not in ans[0] and "the top row of table" in " ".join(lines), ans
assert any("CAVEAT" in l for l in lines), "the caveat is still shown"
EOF
run "render with no table" "$PERFPIPE" render "$tmp/bare.json"
check "headline: the caveat when nothing bears on the answer" "$tmp/out" <<'EOF'
import sys
ans = [l for l in open(sys.argv[1]).read().splitlines() if l.startswith("answer:")]
print(ans[0][:110])
assert ans and "CAVEAT" in ans[0], ans
EOF
finish
