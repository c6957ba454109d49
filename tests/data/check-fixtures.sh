#!/usr/bin/env bash
# Checks the committed fixtures themselves (no dotnet needed): presence, sizes, MANIFEST completeness,
# and agreement between each workload's ground truth and Microsoft's reader (the *.oracle.json files).
# Prints one line per check and a last line "N passed, N failed"; exits 1 on any failure, 77 if python3 is missing.
DATA="$(cd "$(dirname "$0")" && pwd)"
PY=$(command -v python3 || true)
if [ -z "$PY" ]; then echo "SKIP: check-fixtures (no python3)"; exit 77; fi
exec "$PY" - "$DATA" <<'PYEOF'
import json, os, sys
data = sys.argv[1]
passed = failed = 0
def check(name, ok, why=""):
    global passed, failed
    if ok: passed += 1; print("PASS " + name)
    else: failed += 1; print("FAIL " + name + (": " + why if why else ""))
    return ok
import subprocess
PACKED = (".zst", ".xz", ".gz")   # compressed captures (core/input/unpack.c reads them as the plain file)
UNPACK = {".zst": ["zstd", "-q", "-d", "-c"], ".xz": ["xz", "-d", "-c"], ".gz": ["gzip", "-d", "-c"]}
def unpacked(p):   # the bytes of a fixture, decompressed when it is packed
    ext = next((e for e in PACKED if p.endswith(e)), None)
    if ext is None:
        with open(os.path.join(data, p), "rb") as f: return f.read()
    with open(os.path.join(data, p), "rb") as f:   # on stdin: zstd leaves a symlinked file alone
        return subprocess.run(UNPACK[ext], stdin=f, check=True, capture_output=True).stdout
def plain_name(f):
    return next((f[:-len(e)] for e in PACKED if f.endswith(e)), f)
def load(p):
    try: return json.loads(unpacked(p))
    except Exception as e: return None
def within(v, lo, hi): return v is not None and lo <= v <= hi

MAX_FILE, MAX_TOTAL = 10 << 20, 44 << 20   # 30 MB + the fix-shape captures (issue #24) + tests/data/webapp (7 MB, issue #34)
KINDS = {"nettrace", "gcdump", "counters-csv", "counters-json", "spans", "bench"}
mpath = os.path.join(data, "MANIFEST")
rows = []
if check("MANIFEST exists", os.path.isfile(mpath)):
    for ln, line in enumerate(open(mpath, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"): continue
        cols = line.split("\t")
        if not check(f"MANIFEST line {ln} has 10 columns", len(cols) == 10, f"{len(cols)} columns"): continue
        rows.append(dict(zip(["file","kind","scenario","knobs","truth","oracle","runtime","tool","tool_version","command"], cols)))
listed = {r["file"] for r in rows}
def is_capture(f):   # a compressed capture counts as its plain name does
    f = plain_name(f)
    return (f.endswith((".nettrace", ".gcdump")) or
            (f.endswith((".csv", ".json")) and "counters" in f and not f.endswith((".truth.json", ".oracle.json"))) or
            f.endswith(".otlp.json"))
on_disk = sorted(f for f in os.listdir(data) if is_capture(f))
check("every capture in tests/data (compressed ones too) is listed in MANIFEST", set(on_disk) <= listed, ", ".join(sorted(set(on_disk) - listed)))
for f in (x for x in on_disk if x != plain_name(x)):
    check(f"{f}: zstd-compressed (xz/gzip only for archives)", f.endswith(".zst"))
for kind in sorted(KINDS):
    check(f"MANIFEST has a {kind} fixture", any(r["kind"] == kind for r in rows))
total = 0
for r in rows:
    f = r["file"]; p = os.path.join(data, f)
    if not check(f"{f}: exists", os.path.isfile(p)): continue
    sz = os.path.getsize(p); total += sz
    if f != plain_name(f):   # the oracle read the plain capture: its size is the unpacked one
        try: sz = len(unpacked(f))
        except Exception as e: check(f"{f}: decompresses", False, str(e)); continue
    check(f"{f}: size sane ({sz} bytes)", 1024 <= sz <= MAX_FILE)
    check(f"{f}: kind '{r['kind']}' known", r["kind"] in KINDS)
    check(f"{f}: runtime/tool recorded", r["runtime"] != "" and r["tool"] != "" and r["command"] != "")
    if r["kind"] == "bench":   # BenchmarkDotNet's markdown table is the reference (tests/cli/test-bench.sh)
        check(f"{f}: reference {r['truth']} exists", os.path.isfile(os.path.join(data, r["truth"]))); continue
    check(f"{f}: truth {r['truth']} parses", isinstance(load(r["truth"]), dict))
    if r["oracle"] == "-":   # no Microsoft reader for this kind (spans): the truth is the only reference
        continue
    o = load(r["oracle"])
    if check(f"{f}: oracle {r['oracle']} parses", isinstance(o, dict)):
        check(f"{f}: oracle schema/kind/bytes", o.get("schema") == "perfpipe-oracle/1" and o.get("kind") == r["kind"] and o.get("bytes") == sz,
              f"schema={o.get('schema')} kind={o.get('kind')} bytes={o.get('bytes')} vs {sz}")
tot_all = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(data) for f in fs)
check(f"tests/data total size {tot_all} <= {MAX_TOTAL}", tot_all <= MAX_TOTAL)

def users(o):  # first-user-frame -> bytes
    return {x["frame"]: x["bytes"] for x in o.get("alloc", {}).get("by_first_user_frame", [])}
def bytype(o): return {x["type"]: x["bytes"] for x in o.get("alloc", {}).get("by_type", [])}

def spans_of(doc):  # every span of an OTLP/JSON document (bare or aspire-wrapped)
    doc = doc.get("data", doc)
    for rs in doc.get("resourceSpans", []):
        for ss in rs.get("scopeSpans", []):
            for sp in ss.get("spans", []): yield sp
def sattr(sp, k): return next((a["value"].get("stringValue") for a in sp.get("attributes", []) if a["key"] == k), None)

for r in rows:
    f, t = r["file"], load(r["truth"])
    if r["kind"] != "spans" or not isinstance(t, dict): continue
    doc = load(f)
    if not check(f"{f}: parses as OTLP/JSON", isinstance(doc, dict) and "resourceSpans" in doc.get("data", doc)): continue
    sp = list(spans_of(doc))
    server = [x for x in sp if x.get("kind") in (2, "SPAN_KIND_SERVER")]
    client = [x for x in sp if x.get("kind") in (3, "SPAN_KIND_CLIENT")]
    eps = t.get("endpoints", {})
    sent = sum(e["requests_sent"] for e in eps.values())
    check(f"{f}: size < 1 MB", os.path.getsize(os.path.join(data, f)) < 1 << 20)
    check(f"{f}: all {t['requests']} requests ok", t["ok"] == t["requests"] and t["failed"] == 0 and sent == t["requests"])
    check(f"{f}: server spans == requests sent ({len(server)} vs {sent})", len(server) == sent)
    for path, e in sorted(eps.items()):
        n = sum(1 for x in server if sattr(x, "url.path") == path)
        check(f"{f}: {path} server spans == requests sent ({n} vs {e['requests_sent']})", n == e["requests_sent"])
    dbc = sum(e["db_commands"] for e in eps.values())
    check(f"{f}: sqlite client spans == DB commands ({len(client)} vs {dbc})",
          len(client) == dbc and all(sattr(x, "db.system") == "sqlite" for x in client))
    ids = {x["spanId"] for x in server}
    check(f"{f}: every client span's parent is a server span", all(x.get("parentSpanId") in ids for x in client))
    check(f"{f}: span count == truth spans.spans", len(sp) == t.get("spans", {}).get("spans"))

for r in rows:
    f, t, o = r["file"], load(r["truth"]), load(r["oracle"])
    if not isinstance(t, dict) or not isinstance(o, dict): continue
    if r["kind"] == "nettrace":
        raw = o["raw"]
        check(f"{f}: raw events > 0 and rows sum to total", raw["total_events"] > 0 and sum(e["count"] for e in raw["events"]) == raw["total_events"])
        check(f"{f}: raw payload bytes sum to total", sum(e["payload_bytes"] for e in raw["events"]) == raw["total_payload_bytes"])
        tl = o["tracelog"]
        check(f"{f}: TraceLog pass ok and <= raw", tl.get("ok") and tl["total_events"] <= raw["total_events"], str(tl.get("error")))
        check(f"{f}: no events lost", o["trace"]["events_lost"] == 0, str(o["trace"]["events_lost"]))
    if r["scenario"] == "alloc" and r["kind"] == "nettrace" and f.startswith("run-wrapper"):
        # the `dotnet run` host: the app's allocations are in its child, not here
        app = t["total_bytes_main_thread"]
        check(f"{f}: the wrapper saw < 5% of the app's {app} bytes ({o['alloc']['sampled_bytes']})", o["alloc"]["sampled_bytes"] < 0.05 * app)
        check(f"{f}: no tick names a Workload method", not any(k.startswith("Workload.") for k in users(o)))
    elif r["scenario"] == "alloc" and r["kind"] == "nettrace":
        u, ty = users(o), bytype(o)
        a = o["alloc"]
        check(f"{f}: allocation ticks present", a["ticks"] > 0 and a["stack_ticks"] == a["ticks"], f"ticks={a['ticks']} stack_ticks={a.get('stack_ticks')}")
        for m in t["methods"]:
            name = m["method"]
            if not m["ran"]:
                got = u.get(name, 0)
                check(f"{f}: skipped {m['short']} has no sampled bytes", got == 0, f"{got} bytes")
                continue
            if m["short"] == "GrowListsJoinLinq":
                got = sum(v for k, v in u.items() if k.startswith("Workload.AllocScenario") and "GrowListsJoinLinq" in k)
                check(f"{f}: {m['short']} sampled bytes within 0.3x..3x of truth ({got} vs {m['bytes']})", within(got, 0.3 * m["bytes"], 3 * m["bytes"]))
            else:
                got = u.get(name, 0)
                check(f"{f}: {m['short']} sampled bytes within 0.8x..1.25x of truth ({got} vs {m['bytes']})", within(got, 0.8 * m["bytes"], 1.25 * m["bytes"]))
        s = next(m for m in t["methods"] if m["short"] == "MakeStrings")
        if s["ran"]:
            check(f"{f}: System.String sampled bytes >= 0.8x MakeStrings truth", ty.get("System.String", 0) >= 0.8 * s["bytes"])
        b = next(m for m in t["methods"] if m["short"] == "MakeBuffers")
        if b["ran"]:
            check(f"{f}: System.Byte[] sampled bytes within 0.8x..1.25x of MakeBuffers truth", within(ty.get("System.Byte[]", 0), 0.8 * b["bytes"], 1.25 * b["bytes"]))
        else:
            check(f"{f}: System.Byte[] nearly absent when MakeBuffers skipped", ty.get("System.Byte[]", 0) < 5 << 20, str(ty.get("System.Byte[]", 0)))
    if r["scenario"] == "cpu" and r["kind"] == "nettrace":
        s = o["samples"]
        check(f"{f}: thread samples by type sum to total", s["total"] > 0 and sum(s["by_type"].values()) == s["total"])
        inc = {x["method"]: x for x in s["inclusive"]}
        ha, hb = inc.get("Workload.CpuScenario.HotA", {}).get("total", 0), inc.get("Workload.CpuScenario.HotB", {}).get("total", 0)
        tshare = next(m["share"] for m in t["methods"] if m["short"] == "HotA")
        share = ha / (ha + hb) if ha + hb else 0
        check(f"{f}: HotA inclusive share {share:.3f} within 0.08 of truth {tshare:.3f}", abs(share - tshare) <= 0.08)
        for blocked in ("BlockedOnEvent", "SleepingThread"):
            x = inc.get("Workload.CpuScenario." + blocked, {})
            check(f"{f}: {blocked} sampled, mostly External", x.get("total", 0) > 0 and x.get("external", 0) >= 0.9 * x.get("total", 0), str(x))
    if r["scenario"] == "blocking" and r["kind"] == "nettrace":
        s = o["samples"]
        inc = {x["method"]: x for x in s["inclusive"]}
        hot = inc.get(t["hot_method"], {})
        check(f"{f}: hot method sampled, mostly Managed", hot.get("total", 0) > 0 and hot.get("managed", 0) >= 0.9 * hot.get("total", 0), str(hot))
        for b in {x["method"] for x in t["blocked"] if x["method"]}:
            x = inc.get(b, {})
            check(f"{f}: {b} sampled, mostly External (a spin or a wake-up is Managed)", x.get("total", 0) > 0 and x.get("external", 0) >= 0.95 * x.get("total", 0), str(x))
        blocked_total = sum(inc.get(b, {}).get("total", 0) for b in {x["method"] for x in t["blocked"] if x["method"]})
        check(f"{f}: more samples blocked ({blocked_total}) than in the hot method ({hot.get('total', 0)})", blocked_total > 2 * hot.get("total", 0))
        check(f"{f}: under 1 MB", os.path.getsize(os.path.join(data, f)) < 1 << 20)
    if r["scenario"] == "allocexact" and r["kind"] == "nettrace":
        ev = [e for e in o["raw"]["events"] if e["provider"] == "Workload-AllocMarker"]
        check(f"{f}: one marker event per truth marker", t.get("marker_enabled") and sum(e["count"] for e in ev) == len(t["markers"]), str(ev))
        last = t["markers"][-1]["total_allocated_bytes"]
        check(f"{f}: sampled total {o['alloc']['sampled_bytes']} within 1% of the process's exact count {last}",
              within(o["alloc"]["sampled_bytes"], 0.99 * last, 1.01 * last))
    if r["scenario"] == "db" and r["kind"] == "nettrace":
        ef = o["diagnostic_source"]["ef"]
        oc = {c["command_text"]: c for c in ef["commands"]}
        check(f"{f}: EF starts == truth commands_total ({ef['starts']} vs {t['commands_total']})", ef["starts"] == t["commands_total"])
        check(f"{f}: EF stops == starts, none unmatched", ef["stops"] == ef["starts"] and ef["unmatched_starts"] == 0 and ef["unmatched_stops"] == 0)
        check(f"{f}: distinct command texts equal ({ef['distinct_commands']} vs {t['distinct_commands']})", ef["distinct_commands"] == t["distinct_commands"])
        for c in t["commands"]:
            oc1 = oc.get(c["command_text"], {})
            check(f"{f}: count/sync/async of {c['command_text'][:40]!r}", (oc1.get("starts"), oc1.get("sync"), oc1.get("async")) == (c["count"], c["sync"], c["async"]),
                  f"oracle {(oc1.get('starts'), oc1.get('sync'), oc1.get('async'))} truth {(c['count'], c['sync'], c['async'])}")
        check(f"{f}: EF Duration sum within 0.5x..2x of interceptor's", within(ef["duration_ns"] / 1e6, 0.5 * t["db_total_ms_ef_duration"], 2 * t["db_total_ms_ef_duration"] + 1))
    if r["scenario"] == "web" and r["kind"] == "nettrace":
        ef = o["diagnostic_source"]["ef"]
        want = sum(c["count"] for c in t["db_commands"])
        check(f"{f}: all {t['requests']} requests ok", t["ok"] == t["requests"] and t["failed"] == 0)
        check(f"{f}: EF starts == truth db command count ({ef['starts']} vs {want})", ef["starts"] == want and ef["stops"] == want)
        inc = {x["method"]: x["total"] for x in o["samples"].get("inclusive", [])}
        check(f"{f}: endpoint methods Cpu and Db sampled", all(inc.get("Workload.Endpoints." + m, 0) > 0 for m in ("Cpu", "Db")))
    if r["scenario"] == "webdb" and r["kind"] == "nettrace":
        ef = o["diagnostic_source"]["ef"]
        oc = {c["command_text"]: c for c in ef["commands"]}
        check(f"{f}: all {t['requests']} requests ok, each with {t['commands_per_request']} commands",
              t["ok"] == t["requests"] and t["server_requests"] == t["requests"] and all(n == t["commands_per_request"] for n in t["commands_per_request_seen"]))
        check(f"{f}: EF starts == truth commands_total ({ef['starts']} vs {t['commands_total']})", ef["starts"] == t["commands_total"] and ef["stops"] == ef["starts"])
        for c in t["commands"]:
            oc1 = oc.get(c["command_text"], {})
            check(f"{f}: count/sync/async of {c['command_text'][:40]!r}", (oc1.get("starts"), oc1.get("sync"), oc1.get("async")) == (c["count"], c["sync"], c["async"]))
        hs = {e["name"]: e["count"] for e in o["raw"]["events"] if e["provider"] == "Microsoft.AspNetCore.Hosting"}
        want = t["server_requests"] if "-hosting" in f else 0
        check(f"{f}: Hosting Request/Start and Request/Stop == {want}", hs.get("Request/Start", 0) == want and hs.get("Request/Stop", 0) == want, str(hs))
    if r["kind"] == "gcdump":
        g = {x["type"]: x for x in o["by_type"]}
        check(f"{f}: node sizes sum to total", o["graph"]["sum_node_sizes"] == o["graph"]["total_size"])
        phase = "before" if "before" in f else "after"
        want = t["leaked_before"] if phase == "before" else t["leaked_after"]
        got = g.get(t["leak_type"], {}).get("count")
        check(f"{f}: {t['leak_type']} count == truth leaked_{phase} ({got} vs {want})", got == want)
        check(f"{f}: {t['churn_type']} live count <= {t['churn_items_live_max']}", g.get(t["churn_type"], {}).get("count", 0) <= t["churn_items_live_max"])
        check(f"{f}: LeakedSession size {t['leaked_session_object_bytes_each']} each", g.get(t["leak_type"], {}).get("bytes") == want * t["leaked_session_object_bytes_each"])
    if r["kind"].startswith("counters-"):
        ser = {x["name"]: x for x in o["series"]}
        check(f"{f}: rows > 0 and series present", o["rows"] > 0 and o["series_count"] > 0)
        alloc = next((x for n, x in ser.items() if n.startswith("dotnet.gc.heap.total_allocated")), None)
        check(f"{f}: dotnet.gc.heap.total_allocated series present", alloc is not None)
        if alloc and r["scenario"] == "churn":
            bps = t["bytes_per_sec"]
            check(f"{f}: peak allocation rate within 0.5x..1.6x of truth ({alloc['max']:.0f} vs {bps:.0f} B/s)", within(alloc["max"], 0.5 * bps, 1.6 * bps))

# Leak delta across the two snapshots.
b, a, lt = load("leak-before.oracle.json"), load("leak-after.oracle.json"), load("leak.truth.json")
if b and a and lt:
    cnt = lambda o: next((x["count"] for x in o["by_type"] if x["type"] == lt["leak_type"]), 0)
    check(f"gcdump delta of {lt['leak_type']} == truth leaked_delta ({cnt(a) - cnt(b)} vs {lt['leaked_delta']})", cnt(a) - cnt(b) == lt["leaked_delta"])
# A/B: MakeBuffers switched off.
on, off = load("alloc-gcverbose.oracle.json"), load("alloc-gcverbose-skip-buffers.oracle.json")
if on and off:
    m = "Workload.AllocScenario.MakeBuffers"
    check("A/B: MakeBuffers present in A, absent in B", users(on).get(m, 0) > 0 and users(off).get(m, 0) == 0)

# Fix-shape fixtures (issue #24, capture/capture-fix.sh): antipattern and healthy twin per shape.
fix = [r for r in rows if r["scenario"] == "fix"]
for r in fix:
    f, t, o = r["file"], load(r["truth"]), load(r["oracle"])
    if not (t and o): continue
    check(f"{f}: under 1 MB", os.path.getsize(os.path.join(data, f)) < 1 << 20)
    check(f"{f}: truth names the shape and variant of its knobs",
          (r["knobs"] + " ").startswith(f"--shape {t['shape']} --variant {t['variant']} ") and f == f"fix-{t['shape']}-{t['variant']}.nettrace",
          r["knobs"])
    check(f"{f}: {t['clients']} clients made {t['calls']} calls", t["clients"] >= 4 and t["calls"] >= t["clients"] * 50)
    check(f"{f}: the method rundown names every module (TraceEvent: ModuleDCStop rows)",
          any(e["name"] == "Loader/ModuleDCStop" and e["count"] >= 5 for e in o["raw"]["events"]))
    meth = t["method"]
    fuf = users(o)
    inc = {x["method"]: x["total"] for x in o.get("samples", {}).get("inclusive", [])}
    check(f"{f}: TraceEvent sees {meth} (first user frame of ticks or on sampled stacks)",
          meth in fuf or inc.get(meth, 0) > 0, f"not in by_first_user_frame nor inclusive samples")
    if t["shape"] == "loh":
        large = {x["kind"]: x["bytes"] for x in o["alloc"]["by_kind"]}.get("Large", 0)
        if t["variant"] == "bad":
            check(f"{f}: Large-object bytes sampled 0.8x..1.25x of the clients' bytes", within(large / max(t["client_bytes"], 1), 0.8, 1.25),
                  f"{large} vs {t['client_bytes']}")
        else:
            check(f"{f}: the pooled twin allocates under 1% of that on the LOH", large < 0.01 * 800 * t["facts"]["buffer_bytes"], str(large))
    if t["shape"] == "boxing":
        boxed = bytype(o).get("System.Int32", 0)
        check(f"{f}: boxed System.Int32 bytes follow the variant", (boxed > 10 << 20) if t["variant"] == "bad" else (boxed < 1 << 20), str(boxed))
    if t["shape"] == "exceptions":
        thrown = sum(e["count"] for e in o["raw"]["events"] if e["name"] == "Exception/Start")
        check(f"{f}: TraceEvent counts the exceptions the workload threw (>=)", thrown >= t["facts"]["exceptions_thrown"],
              f"{thrown} vs {t['facts']['exceptions_thrown']}")
check("fix-shape fixtures: at least eight shapes, each with its healthy twin",
      len({(load(r["truth"]) or {}).get("shape") for r in fix}) >= 8 and
      all(any(x["file"] == r["file"].replace("-bad.", "-good.") for x in fix) for r in fix if "-bad." in r["file"]))

# The rules' pairs (issue #45, capture-fix.sh set): one capture per variant, every shape of the set in it.
sets = {load(r["truth"]).get("variant"): (r, load(r["truth"]), load(r["oracle"])) for r in rows if r["scenario"] == "fix-set"}
for variant, (r, t, o) in sorted(sets.items()):
    f = r["file"]
    if not check(f"{f}: truth and oracle parse, {len(t.get('set', []))} shapes", t and o and len(t.get("set", [])) >= 10): continue
    check(f"{f}: packed (zstd) and under 300 KB", f.endswith(".nettrace.zst") and os.path.getsize(os.path.join(data, f)) < 300 << 10)
    fuf = users(o)
    inc = {x["method"]: x["total"] for x in o.get("samples", {}).get("inclusive", [])}
    for sh in t["set"]:
        check(f"{f}: {sh['shape']}: the {variant} variant ran {sh['calls']} calls",
              sh["variant"] == variant and sh["expect_rule"] == (variant == "bad") and sh["calls"] >= sh["clients"] * 40)
        if variant == "bad":   # a healthy twin may be too cheap to be sampled at all (a few ms)
            check(f"{f}: {sh['shape']}: TraceEvent sees {sh['method']}", sh["method"] in fuf or inc.get(sh["method"], 0) > 0,
                  "not in by_first_user_frame nor inclusive samples")
    if variant == "bad":
        fin = sum(e["count"] for e in o["raw"]["events"] if e["name"] == "GC/FinalizeObject")
        check(f"{f}: the finalizer shape's objects reach the finalizer (GC/FinalizeObject {fin})", fin >= 1000)
check("rules' pairs: a bad and a good capture of one shape set",
      set(sets) == {"bad", "good"} and [x["shape"] for x in sets["bad"][1]["set"]] == [x["shape"] for x in sets["good"][1]["set"]])
for r in (x for x in rows if x["scenario"] == "gc-counters"):
    f, t, o = r["file"], load(r["truth"]), load(r["oracle"])
    if not (t and o): check(f"{f}: truth and oracle parse", False); continue
    ser = {x["name"]: x for x in o["series"]}
    g2 = next((x for n, x in ser.items() if n.startswith("dotnet.gc.collections") and n.endswith("gen2]")), {})
    # the counters start a little after the process: they see at most the gen2s it counted itself
    check(f"{f}: gen2 collections in the counters ({g2.get('sum')}) <= the process's own ({t['gc_count_gen2']}), most of them",
          g2.get("sum", -1) <= t["gc_count_gen2"] and g2.get("sum", 0) >= 0.6 * t["gc_count_gen2"])

# GC fixtures (issue 37): the process's own GC.CollectionCount deltas against TraceEvent's GC model.
for r in (x for x in rows if x["scenario"] == "gc"):
    f, t, o = r["file"], load(r["truth"]), load(r["oracle"])
    if not (t and o and o.get("gc", {}).get("processes")): check(f"{f}: oracle has a gc section with a process", False); continue
    p = next((x for x in o["gc"]["processes"] if x["pid"] == t["pid"]), None)
    if not check(f"{f}: TraceEvent's GC model has the workload's pid {t['pid']}", p is not None): continue
    gens = {g["generation"]: g["count"] for g in p["by_generation"]}
    # the trace may begin a little after the scenario's counters were read: the GCs of the scenario are in it
    check(f"{f}: gen2 count >= the workload's ({gens.get(2)} vs {t['gc_count_gen2']})", gens.get(2, 0) >= t["gc_count_gen2"])
    check(f"{f}: GCs of gen>=1 >= the workload's", gens.get(1, 0) + gens.get(2, 0) >= t["gc_count_ge1"])
    check(f"{f}: every GC complete", p["complete"] == p["gcs"], f"{p['complete']} of {p['gcs']}")
    if t["mode"] == "induced":
        check(f"{f}: induced GCs == GC.Collect calls ({p['induced']} vs {t['induced_calls']})", p["induced"] == t["induced_calls"])
    else:
        check(f"{f}: no induced GC", p["induced"] == 0)
    if t["mode"] == "loh":
        check(f"{f}: every gen2 has reason AllocLarge", all(g["reason"] == "AllocLarge" for g in p["per_gc"] if g["generation"] == 2))
check("gc fixtures: Workstation and Server GC captures of the gen2, induced and loh modes, and a quiet one",
      {(load(r["truth"]) or {}).get("mode", "") + ("-svr" if (load(r["truth"]) or {}).get("server_gc") else "-ws") for r in rows if r["scenario"] == "gc"}
      >= {"gen2-ws", "gen2-svr", "induced-ws", "induced-svr", "loh-ws", "loh-svr", "quiet-ws"})

# Corpus facts (oracle output of the read-only public traces).
co = lambda n: load(os.path.join("corpus-oracle", n + ".oracle.json"))
mx = co("mixed_managed_external_samples")
if mx:
    s = mx["samples"]
    check("corpus mixed_managed_external_samples: 6331 samples = 2427 External + 3904 Managed",
          (s["total"], s["by_type"]["External"], s["by_type"]["Managed"]) == (6331, 2427, 3904), str(s["by_type"]))
    check("corpus mixed: hottest managed leaf NoNativeStacks.Program.FindByte",
          max(s["leaf"], key=lambda x: (x["managed"], x["method"]))["method"] == "NoNativeStacks.Program.FindByte")
    inc = {x["method"]: x["total"] for x in s["inclusive"]}
    check("corpus mixed: Program.Main inclusive in every sample", inc.get("NoNativeStacks.Program.Main") == 6331)
at = co("eventpipe-dotnetcore5.0-win-x64-arraytypes")
if at: check("corpus arraytypes: raw 1970 events, TraceLog 108", (at["raw"]["total_events"], at["tracelog"]["total_events"]) == (1970, 108))
ec = co("eventpipe-dotnetcore6.0-win-x64-executioncheckpoints")
if ec: check("corpus executioncheckpoints: raw 3, TraceLog 3", (ec["raw"]["total_events"], ec["tracelog"]["total_events"]) == (3, 3))
if not (mx or at or ec): print("SKIP corpus-oracle (not generated)")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PYEOF
