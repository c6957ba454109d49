#!/bin/bash
# The unit of work (WORK-CONTRACT.md), on real captures (tests/data/webdb-*):
#  - a trace with Hosting events counts its requests in the one read
#    (inputs[].nettrace.requests) and the result's "work" is per request, with
#    exactly the requests the workload's own server counted (.truth.json);
#  - its twin captured without Hosting events has no request count: the unit
#    is "second", the capture's duration.
set -u
PERFPIPE=${PERFPIPE:?}
DATA=${PP_TESTDATA:?}
. "$(dirname "$0")/../lib/checks.sh"
[ -f "$DATA/webdb-nplus1-c1-hosting.nettrace" ] || { echo "SKIP: webdb fixtures not present"; exit 77; }

for ep in one nplus1; do for c in 1 4; do for h in "" -hosting; do
  f=webdb-$ep-c$c$h
  expect 0 "db on $f" -- "$PERFPIPE" db "$DATA/$f.nettrace" --format json -o "$tmp/$f.json"
done; done; done
ls "$tmp"/webdb-*.json > "$tmp/results"
check "work: requests from Hosting events = the server's own count; seconds without them" \
  "$tmp/results" "$DATA" <<'PY'
import json, os, sys
for res in open(sys.argv[1]).read().split():
    f = os.path.basename(res)[:-5]
    d = json.load(open(res)); t = json.load(open(os.path.join(sys.argv[2], f + ".truth.json")))
    (nt,) = [i["nettrace"] for i in d["inputs"]]
    w = d["work"]
    secs = nt["duration_ns"] / 1e9
    assert abs(w["seconds"] - secs) < 1e-6, (f, w, secs)
    if f.endswith("-hosting"):
        assert nt["requests"] == {"started": t["server_requests"], "completed": t["server_requests"]}, (f, nt.get("requests"))
        assert w["unit"] == "request" and w["requests"] == t["server_requests"], (f, w)
        assert w["requests_source"] == "hosting", (f, w)
    else:
        assert "requests" not in nt, (f, nt["requests"])
        assert w["unit"] == "second" and w["requests"] is None and w["requests_source"] is None, (f, w)
    assert w["operations"] is None, (f, w)
    print(f, w["unit"], w["requests"], "%.3f s" % w["seconds"])
PY
finish
