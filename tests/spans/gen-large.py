#!/usr/bin/env python3
"""Write a large OTLP/JSON span export for the span reader's memory figures
(docs/limits.md, "spans"): ONE document, one resourceSpans, one scopeSpans
and as many spans as fit in SIZE_MB -- the shape that made the old reader
hold the whole document parsed (an exporter's batch, an Aspire snapshot).
Requests of a web front end, each with database and http child spans,
attributes as exporters write them.

    tests/spans/gen-large.py SIZE_MB OUT.json
"""
import json
import sys


def span(trace, sid, parent, name, kind, start, end, attrs):
    return {
        "traceId": "%032x" % trace,
        "spanId": "%016x" % sid,
        "parentSpanId": "%016x" % parent if parent else "",
        "name": name,
        "kind": kind,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(end),
        "attributes": [{"key": k, "value": v} for k, v in attrs],
        "status": {"code": 0},
    }


def main():
    size = int(float(sys.argv[1]) * 1000 * 1000)
    out = open(sys.argv[2], "w")
    base = 1764428400000000000
    out.write('{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name",'
              '"value":{"stringValue":"webfrontend"}}]},"scopeSpans":[{"scope":'
              '{"name":"Microsoft.AspNetCore"},"spans":[\n')
    written, n, req = 0, 0, 0
    while written < size:
        t0 = base + req * 1000000000
        trace, root = req + 1, req * 16 + 1
        spans = [span(trace, root, 0, "GET /cart", 2, t0, t0 + 100000000,
                      [("http.request.method", {"stringValue": "GET"}),
                       ("url.path", {"stringValue": "/cart?op=getFullCart&items=100"}),
                       ("http.response.status_code", {"intValue": "200"})])]
        for k in range(4):
            spans.append(span(trace, root + 1 + k, root, "postgres", 3,
                              t0 + 10000000 * (k + 1), t0 + 10000000 * (k + 1) + 8000000,
                              [("db.system", {"stringValue": "postgresql"}),
                               ("db.statement", {"stringValue":
                                   "SELECT c.id, c.sku, c.qty FROM cart_lines c WHERE c.cart = @p0"}),
                               ("server.port", {"intValue": 5432})]))
        for s in spans:
            text = json.dumps(s, separators=(",", ":"))
            out.write((",\n" if n else "") + text)
            written += len(text) + 2
            n += 1
        req += 1
    out.write("\n]}]}]}\n")
    out.close()
    print("%s: %d spans, %d requests" % (sys.argv[2], n, req))


main()
