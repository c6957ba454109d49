#!/usr/bin/env python3
"""The requests of a hey -o csv file as k6 `--out json` lines (stdout).

k6 cannot be installed here, so its line format (grafana/k6 docs, "JSON" real-time output:
Metric lines, then Point lines with time, value and tags) is written after its documentation,
but carrying the real per-request latencies and statuses hey measured: one http_reqs,
http_req_duration and http_req_failed Point per request, tagged as k6 tags them (method, name,
url, status, scenario, expected_response), timed at the run start plus hey's offset, and a vus
Point of the connection count.
Usage: k6-from-hey.py HEY.csv URL VUS [MAX]   (the first MAX requests only: k6 lines are
~900 bytes a request, and the fixtures have a size budget)
"""
import csv
import datetime
import json
import sys

path, url, vus = sys.argv[1], sys.argv[2], int(sys.argv[3])
limit = int(sys.argv[4]) if len(sys.argv) > 4 else None
start = datetime.datetime(2026, 12, 6, 10, 0, 0, tzinfo=datetime.timezone.utc)


def stamp(seconds):
    t = start + datetime.timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%06d000Z" % t.microsecond


def line(obj):
    print(json.dumps(obj, separators=(",", ":")))


for name, kind, contains in (("vus", "gauge", "default"), ("http_reqs", "counter", "default"),
                             ("http_req_duration", "trend", "time"),
                             ("http_req_failed", "rate", "default")):
    line({"type": "Metric", "data": {"name": name, "type": kind, "contains": contains,
                                     "thresholds": [], "submetrics": None}, "metric": name})
line({"type": "Point", "data": {"time": stamp(0), "value": vus, "tags": None}, "metric": "vus"})
with open(path, newline="") as f:
    for i, row in enumerate(csv.DictReader(f)):
        if limit is not None and i >= limit:
            break
        status = row["status-code"]
        ok = 200 <= int(status) < 400
        tags = {"expected_response": "true" if ok else "false", "group": "", "method": "GET",
                "name": url, "proto": "HTTP/1.1", "scenario": "default", "status": status,
                "url": url}
        t = stamp(float(row["offset"]) + float(row["response-time"]))
        for metric, value in (("http_reqs", 1), ("http_req_duration",
                                                 round(float(row["response-time"]) * 1000, 4)),
                              ("http_req_failed", 0 if ok else 1)):
            line({"type": "Point", "data": {"time": t, "value": value, "tags": tags},
                  "metric": metric})
