#!/usr/bin/env python3
"""Check an html report's DOM (Chromium --dump-dom) against its JSON
document: every table with every cell (exact value in data-v, human text
that reads back to it), every total, every finding, no script error, the
sorted column in order. Usage: html-dom-check.py DOC.json PAGE.dom NAME"""
import json, re, sys
from html.parser import HTMLParser

UNITS = {"B": 1, "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15, "EB": 1e18,
         "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}


class Dom(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.totals, self.findings = {}, {}, []
        self.errors, self.sorted, self.svgs, self.charts, self.iframes = "", None, 0, 0, 0
        self.cur = self.row = self.cell = None
        self.in_total = self.in_li = self.in_err = None
        self.text = []

    def handle_starttag(self, tag, a):
        a = dict(a)
        if tag == "body" and "data-sorted" in a:
            self.sorted = int(a["data-sorted"])
        if tag == "table" and "data-table" in a:
            self.cur = self.tables.setdefault((a.get("data-stage"), a["data-table"]), [])
        elif tag == "tr" and self.cur is not None:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = [a.get("data-v"), ""]
        elif tag == "dd" and "data-total" in a:
            self.in_total = [a["data-total"], a.get("data-v"), ""]
        elif tag == "li" and (a.get("class") or "").startswith("sev-"):
            self.in_li = [a["class"][4:], ""]
        elif tag == "pre" and a.get("id") == "errors":
            self.in_err = True
        elif tag == "iframe" and "flame" in (a.get("class") or ""):
            self.iframes += 1
            self.svgs += a.get("srcdoc", "").count('class="f"')
        elif tag == "g" and "series" in (a.get("class") or ""):
            self.charts += 1

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(tuple(self.cell)); self.cell = None
        elif tag == "tr" and self.row is not None:
            if self.row:
                self.cur.append(self.row)
            self.row = None
        elif tag == "table":
            self.cur = None
        elif tag == "dd" and self.in_total:
            self.totals[self.in_total[0]] = (self.in_total[1], self.in_total[2]); self.in_total = None
        elif tag == "li" and self.in_li:
            self.findings.append(tuple(self.in_li)); self.in_li = None
        elif tag == "pre":
            self.in_err = None

    def handle_data(self, d):
        if self.cell is not None:
            self.cell[1] += d
        if self.in_total:
            self.in_total[2] += d
        if self.in_li:
            self.in_li[1] += d
        if self.in_err:
            self.errors += d


def human_value(text, ctype, cname):
    """The value a human cell shows, in the cell's own unit; None for '-'."""
    t = text.strip()
    if t == "-":
        return None
    if ctype == "count":
        return int(t.replace(",", ""))     # exact, even past 2^53
    if t.endswith("/s"):
        t = t[:-2]
    m = re.fullmatch(r"(-?[0-9,]*\.?[0-9]*)\s*([A-Za-z%]*)", t)
    if not m:
        raise ValueError("unreadable human text %r" % text)
    num = float(m.group(1).replace(",", "")) if m.group(1) not in ("", "-") else 0.0
    unit = m.group(2)
    if unit == "%" or unit == "":
        return num
    v = num * UNITS[unit]
    if ctype == "number" and (cname == "ms" or cname.endswith("_ms")):
        return v / 1e6          # a number of milliseconds
    if ctype == "timestamp_ns":
        return v
    return v


def close(shown, exact, ctype, cname):
    if shown is None or exact is None:
        return shown is None and exact is None
    if ctype == "percent":
        return abs(shown - exact) <= 0.05 + 1e-9
    if ctype == "timestamp_ns":
        return abs(shown - exact) <= 50000
    if ctype == "count":
        return shown == exact
    tol = max(abs(exact) * 0.006, 0.5 if ctype in ("bytes", "duration_ns") else 5e-5)
    if ctype == "number" and (cname == "ms" or cname.endswith("_ms")):
        tol = max(abs(exact) * 0.006, 5e-7)
    return abs(shown - exact) <= tol


def main():
    doc = json.load(open(sys.argv[1]))
    dom = Dom()
    dom.feed(open(sys.argv[2], encoding="utf-8").read())
    name = sys.argv[3]
    bad = []
    if dom.errors.strip():
        bad.append("script errors: " + dom.errors.strip()[:200])
    ncells = 0
    nfind = 0
    for st in doc["stages"]:
        for t in st.get("tables", []):
            rows = dom.tables.get((st["id"], t["name"]))
            if not t["rows"]:
                continue
            if rows is None:
                bad.append("table %s/%s missing" % (st["id"], t["name"])); continue
            if len(rows) != len(t["rows"]):
                bad.append("table %s: %d rows on the page, %d in the document" % (t["name"], len(rows), len(t["rows"])))
                continue
            cols = t["columns"]
            def key(r):
                return tuple("" if c[0] is None else c[0] for c in r)
            # Match rows by their exact values, not their order (sorting moves them).
            index = {}
            for r in rows:
                index.setdefault(key(r), []).append(r)
            for wr in t["rows"]:
                cand = None
                for pr_key, prs in index.items():
                    if len(pr_key) != len(wr):
                        continue
                    ok = True
                    for (pv, col, v) in zip(pr_key, cols, wr):
                        if v is None:
                            ok = pv == ""
                        elif isinstance(v, str):
                            ok = pv == v
                        else:
                            ok = pv != "" and float(pv) == float(v)
                        if not ok:
                            break
                    if ok and prs:
                        cand = prs
                        break
                if cand is None:
                    bad.append("table %s: row %r not on the page" % (t["name"], wr[:3])); break
                pr = cand.pop()
                for (pv, text), col, v in zip(pr, cols, wr):
                    if col["type"] == "string":
                        continue
                    ncells += 1
                    try:
                        shown = human_value(text, col["type"], col["name"])
                    except (ValueError, KeyError) as e:
                        bad.append("table %s column %s: %s" % (t["name"], col["name"], e)); continue
                    if not close(shown, v, col["type"], col["name"]):
                        bad.append("table %s column %s: shows %r for %r" % (t["name"], col["name"], text, v))
        for k, v in st.get("totals", {}).items():
            got = dom.totals.get(k)
            if got is None:
                bad.append("total %s missing" % k); continue
            if v["type"] == "string":
                if got[1] is not None or got[0] != v["value"]:
                    if got[1] != v["value"] and got[1] is not None:
                        bad.append("total %s" % k)
                continue
            if v["value"] is None:
                continue
            if got[0] is None or float(got[0]) != float(v["value"]):
                bad.append("total %s: data-v %r, document %r" % (k, got[0], v["value"]))
            elif not close(human_value(got[1], v["type"], k), v["value"], v["type"], k):
                bad.append("total %s shows %r for %r" % (k, got[1], v["value"]))
            ncells += 1
        for f in st.get("findings", []):
            nfind += 1
            if not any(sev == f["severity"] and f["message"] in text for sev, text in dom.findings):
                bad.append("finding %s missing" % f["code"])
    if len(dom.findings) != nfind:
        bad.append("%d findings on the page, %d in the document" % (len(dom.findings), nfind))
    # The sorted column of the first data table is in order.
    if dom.sorted is not None and dom.tables:
        first = next(iter(dom.tables.values()))
        vals = [float(r[dom.sorted][0]) for r in first if r[dom.sorted][0] not in (None, "")]
        if vals != sorted(vals) and vals != sorted(vals, reverse=True):
            bad.append("the clicked column is not sorted")
    has_stack = any(len(t["columns"]) > 1 and t["columns"][0]["name"] == "stack"
                    and t["columns"][1]["type"] in ("count", "bytes", "duration_ns")
                    and any(isinstance(r[1], int) and r[1] > 0 for r in t["rows"])
                    for st in doc["stages"] for t in st.get("tables", []))
    has_stack = has_stack or any(t["name"] == "paths" and t["rows"] for st in doc["stages"]
                                 for t in st.get("tables", []))
    if has_stack and dom.svgs == 0:
        bad.append("no flame graph frames")
    if any(t["name"] == "series" for st in doc["stages"] for t in st.get("tables", [])) and dom.charts == 0:
        bad.append("no counters chart")
    if bad:
        for b in bad[:8]:
            print("FAIL: %s: %s" % (name, b))
        return 1
    print("PASS: %s: %d tables, %d numbers, %d totals, %d findings equal the JSON; %d flame frames, %d charts"
          % (name, len(dom.tables), ncells, len(dom.totals), nfind, dom.svgs, dom.charts))
    return 0


sys.exit(main())
