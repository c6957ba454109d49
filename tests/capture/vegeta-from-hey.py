#!/usr/bin/env python3
"""The requests of a hey -o csv file as vegeta results lines (`vegeta encode --to json`), stdout.

vegeta cannot be installed here, so its line format (tsenart/vegeta lib/results.go: attack, seq,
code, timestamp, latency in ns, bytes_out, bytes_in, error, body; method and url as later versions
add) is written after its source, carrying the real per-request latencies and statuses hey
measured: one line per request, sent at the run start plus hey's offset (hey does not say the
bytes: 0).
Usage: vegeta-from-hey.py HEY.csv URL [MAX]   (the first MAX requests only)
"""
import csv
import datetime
import json
import sys

path, url = sys.argv[1], sys.argv[2]
limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
start = datetime.datetime(2026, 12, 6, 10, 0, 0, tzinfo=datetime.timezone.utc)
with open(path, newline="") as f:
    for i, row in enumerate(csv.DictReader(f)):
        if limit is not None and i >= limit:
            break
        sent = start + datetime.timedelta(seconds=float(row["offset"]))
        stamp = sent.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d000Z" % sent.microsecond
        code = int(row["status-code"])
        print(json.dumps({"attack": "checkout", "seq": i, "code": code, "timestamp": stamp,
                          "latency": round(float(row["response-time"]) * 1e9),
                          "bytes_out": 0, "bytes_in": 0, "error": "" if code < 400 else "%d" % code,
                          "body": None, "method": "GET", "url": url}, separators=(",", ":")))
