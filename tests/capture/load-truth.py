#!/usr/bin/env python3
"""The figures a load tool printed, as JSON: the truth the load fixtures are
checked against (tests/data/load/*.truth.json). Reads wrk's text report (with
--latency) or hey's text summary, with plain regular expressions, so the
truth does not come from perfpipe's reader. Latencies in ms, as printed
(wrk prints us/ms/s, hey seconds with 4 decimals), durations in seconds.
Usage: load-truth.py OUTPUT.txt"""
import json
import re
import sys

UNIT_MS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


def ms(text):
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m|h)", text)
    return float(m.group(1)) * UNIT_MS[m.group(2)]


def wrk(t):
    d = {"tool": "wrk"}
    m = re.search(r"Running (\S+) test @ (\S+)\n\s+(\d+) threads and (\d+) connections", t)
    d["knobs"] = {"duration": m.group(1), "url": m.group(2), "threads": int(m.group(3)),
                  "connections": int(m.group(4))}
    m = re.search(r"Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+", t)
    d["latency_ms"] = {"mean": ms(m.group(1)), "stdev": ms(m.group(2)), "max": ms(m.group(3))}
    for p, v in re.findall(r"^\s+(\d+)%\s+(\S+)$", t, re.M):
        d["latency_ms"]["p" + p] = ms(v)
    m = re.search(r"(\d+) requests in ([\d.]+)(\w+), (\S+) read", t)
    d["requests"] = int(m.group(1))
    d["duration_s"] = ms(m.group(2) + m.group(3)) / 1000.0
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", t)
    d["non_2xx_3xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Requests/sec:\s+([\d.]+)", t)
    d["requests_per_sec"] = float(m.group(1))
    return d


def hey(t):
    d = {"tool": "hey"}
    d["duration_s"] = float(re.search(r"Total:\s+([\d.]+) secs", t).group(1))
    d["latency_ms"] = {
        "max": float(re.search(r"Slowest:\s+([\d.]+)", t).group(1)) * 1000,
        "min": float(re.search(r"Fastest:\s+([\d.]+)", t).group(1)) * 1000,
        "mean": float(re.search(r"Average:\s+([\d.]+)", t).group(1)) * 1000,
    }
    for p, v in re.findall(r"(\d+)% in ([\d.]+) secs", t):
        d["latency_ms"]["p" + p] = float(v) * 1000
    d["requests_per_sec"] = float(re.search(r"Requests/sec:\s+([\d.]+)", t).group(1))
    d["status_codes"] = {c: int(n) for c, n in re.findall(r"\[(\d+)\]\s+(\d+) responses", t)}
    d["requests"] = sum(d["status_codes"].values())
    return d


text = open(sys.argv[1]).read()
print(json.dumps(wrk(text) if text.startswith("Running ") else hey(text), indent=1, sort_keys=True))
