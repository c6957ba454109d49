#!/usr/bin/env python3
"""Every shipped rule on a minimal result document: it must fire (on the
named candidate, or as its own finding) and must not fire - nor any other
rule - on the healthy variant of that document.

Usage: rule_cases.py PERFPIPE SRCDIR TMPDIR
The documents are built here from the analyzers' real column lists (the
ones `perfpipe ANALYZER` writes), with the smallest rows that carry, or
just miss, each rule's evidence. A shipped rule without a case fails."""
import copy
import json
import os
import subprocess
import sys

PERFPIPE, SRC, TMP = sys.argv[1], sys.argv[2], sys.argv[3]

COLUMNS = {
    ("alloc", "by_frame"): "frame:string bytes:bytes samples:count share:percent",
    ("alloc", "by_type_frame"): "type:string frame:string bytes:bytes samples:count",
    ("alloc", "by_type_frame_kind"): "type:string frame:string kind:string bytes:bytes samples:count "
                                     "threads:count",
    ("alloc", "by_stack"): "stack:string bytes:bytes samples:count",
    ("alloc", "by_type_stack"): "stack:string bytes:bytes samples:count type:string",
    ("cpu", "running"): "method:string samples:count ms:number share:percent",
    ("cpu", "waiting"): "wait:string waiter:string samples:count ms:number share:percent",
    ("cpu", "by_stack"): "stack:string samples:count ms:number",
    ("cpu", "exceptions"): "frame:string type:string count:count per_sec:number",
    ("cpu", "contention"): "lock:string waiter:string count:count ms:number share:percent",
    ("db", "by_command"): "command:string count:count total_ms:number mean_ms:number "
                          "p50_ms:number p95_ms:number max_ms:number share:percent "
                          "ef_duration_ms:number async:count errors:count example:string",
    ("db", "n_plus_one"): "command:string executions:count window_ms:number group:string "
                          "caller:string per_request:number requests:count confidence:string",
    ("db", "per_request"): "route:string requests:count commands:count commands_per_request:number "
                           "max_per_request:count db_ms:number db_ms_per_request:number "
                           "request_ms_per_request:number",
    ("counters-csv", "by_counter"): "provider:string counter:string tags:string unit:string "
                                    "samples:count min:number mean:number max:number p95:number "
                                    "last:number rate:number slope_per_min:number r2:number "
                                    "axis:string quantity:string first:number delta:number kind:string "
                                    "trend:string",
    ("gcdump-diff", "growth"): "type:string count_delta:count bytes_delta:bytes "
                               "baseline_retained:bytes candidate_retained:bytes "
                               "retained_delta:bytes share:percent owned_by:string "
                               "payload:string path:string",
}


def doc(analyzer, tables):
    """A valid perfpipe-result/1 document with one stage of analyzer."""
    out = []
    for name, rows in tables.items():
        cols = [c.split(":") for c in COLUMNS[(analyzer, name)].split()]
        for r in rows:
            assert len(r) == len(cols), (analyzer, name, r)
        out.append({"name": name, "key": [cols[0][0]],
                    "columns": [{"name": n, "type": t} for n, t in cols], "rows": rows})
    return {"format": "perfpipe-result/1", "tool": {"name": "perfpipe", "version": "0.0.0-test"},
            "pipeline": analyzer, "knobs": {}, "inputs": [],
            "stages": [{"id": analyzer, "analyzer": {"name": analyzer, "version": "1.0.0"},
                        "status": "ok", "tables": out, "findings": [], "totals": {}}]}


# ---- building blocks -------------------------------------------------------

def alloc_callee(frame, callee, share_pct, extra_tables=None, ticks=10):
    """frame allocates 10 MB; share_pct of it through callee, in `ticks` ticks."""
    through = 10_000_000 * share_pct // 100
    stacks = [[f"App.Main;{frame};{callee};System.GC.Alloc", through, ticks]]
    if through < 10_000_000:
        stacks.append([f"App.Main;{frame};System.Object.MemberwiseClone", 10_000_000 - through, 10])
    t = {"by_frame": [[frame, 10_000_000, 20, 80.0], ["App.Other.Work", 2_500_000, 5, 20.0]],
         "by_stack": stacks}
    t.update(extra_tables or {})
    return doc("alloc", t)


def alloc_type(frame, typ, nbytes, kind=None, threads=None):
    t = {"by_frame": [[frame, 10_000_000, 20, 100.0]],
         "by_type_frame": [[typ, frame, nbytes, 10], ["System.Object", frame, 10_000_000 - nbytes, 10]],
         "by_stack": [[f"App.Main;{frame}", 10_000_000, 20]]}
    if kind is not None:
        # 10 large ticks from `threads` threads (0 for Small, as alloc writes it)
        t["by_type_frame_kind"] = [[typ, frame, kind, nbytes, 10,
                                    0 if kind == "Small" else (threads or 1)]]
    return doc("alloc", t)


def alloc_logger(caller, state):
    """caller allocates 4 MB itself (the params object[]) and calls an application logger whose
    Log boxes 6 MB of `state` (tier-1 code: the logging extension frames inlined into the caller);
    App is the application's module."""
    sink = "App.Log.Sink.Log"
    d = doc("alloc", {
        "by_frame": [[caller, 4_000_000, 10, 40.0], [sink, 6_000_000, 12, 60.0]],
        "by_stack": [[f"App.Main;{caller}", 4_000_000, 10], [f"App.Main;{caller};{sink}", 6_000_000, 12]],
        "by_type_stack": [[f"App.Main;{caller}", 4_000_000, 10, "System.Object[]"],
                          [f"App.Main;{caller};{sink}", 6_000_000, 12, state]]})
    st = d["stages"][0]
    fr = next(t for t in st["tables"] if t["name"] == "by_frame")
    fr["columns"] += [{"name": "module", "type": "string"}, {"name": "call_site", "type": "string"}]
    for r in fr["rows"]:
        r += ["App", r[0]]
    next(t for t in st["tables"] if t["name"] == "by_type_stack")["key"] = []
    st["tables"].append({"name": "modules", "key": ["module"],
                         "columns": [{"name": "module", "type": "string"},
                                     {"name": "class", "type": "string"}],
                         "rows": [["App", "application"]]})
    return d


POOL = ("System.Threading.Thread.StartCallback;System.Threading.PortableThreadPool+WorkerThread."
        "WorkerThreadStart;System.Threading.ThreadPoolWorkQueue.Dispatch")


def cpu_callee(method, callee, share_pct, total_ms=1000.0, root="App.Main"):
    """method spends share_pct of its time in callee; root: the thread's first frames
    (POOL: a thread-pool thread)."""
    through = total_ms * share_pct / 100
    stacks = [[f"{root};{method};{callee};System.Threading.Monitor.Wait", 10, through]]
    if through < total_ms:
        stacks.append([f"{root};{method};App.Math.Work", 10, total_ms - through])
    return doc("cpu", {"running": [[method, 100, total_ms, 90.0], ["App.Other.Run", 10, 100.0, 10.0]],
                       "waiting": [], "by_stack": stacks})


def cpu_self(method, self_pct, root=None, cls="application", other_ms=50.0):
    """method runs 800 running ms, self_pct of it as the leaf and the rest in a library callee,
    from root (a request by default: Kestrel on a pool thread), in module WebApp of class cls;
    a framework method runs other_ms beside it."""
    root = root or (POOL + ";Microsoft.AspNetCore.Routing.EndpointMiddleware.Invoke")
    own, other = 800.0 * self_pct / 100, "System.Threading.PortableThreadPool.WorkerDoWork"
    stacks = [[f"{root};{method}", int(own), own],
              [f"{root};{method};System.IO.Hashing.Crc32.Append", int(800 - own), 800 - own],
              [f"{POOL};{other}", int(other_ms), other_ms]]
    stacks = [r for r in stacks if r[2] > 0]
    total = 800 + other_ms
    d = doc("cpu", {"running": [[method, 800, 800.0, 80000 / total],
                                [other, int(other_ms), other_ms, 100 * other_ms / total]],
                    "waiting": [], "by_stack": stacks})
    st = d["stages"][0]
    run = next(t for t in st["tables"] if t["name"] == "running")
    run["columns"].append({"name": "module", "type": "string"})
    for r in run["rows"]:
        r.append("WebApp" if r[0] == method else "System.Private.CoreLib")
    st["tables"].append({"name": "modules", "key": ["module"],
                         "columns": [{"name": "module", "type": "string"},
                                     {"name": "class", "type": "string"}],
                         "rows": [["WebApp", cls], ["System.Private.CoreLib", "framework"]]})
    return d

def cpu_wait(wait, waiter, share_pct):
    return doc("cpu", {"running": [["App.Hot.Run", 100, 1000.0, 100.0]],
                       "waiting": [[wait, waiter, 50, 500.0 * share_pct / 10, share_pct]],
                       "by_stack": [["App.Main;App.Hot.Run", 100, 1000.0]]})


def cpu_events(exceptions=(), contention=(), waiting=()):
    """A cpu stage with the runtime's exception / contention event tables."""
    t = {"running": [["App.Hot.Run", 100, 1000.0, 100.0]], "waiting": list(waiting),
         "by_stack": [["App.Main;App.Hot.Run", 100, 1000.0]]}
    if exceptions:
        t["exceptions"] = list(exceptions)
    if contention:
        t["contention"] = list(contention)
    return doc("cpu", t)


def db(by_command=(), n_plus_one=(), per_request=()):
    return doc("db", {"by_command": list(by_command), "n_plus_one": list(n_plus_one),
                      "per_request": list(per_request)})


def cmd(text, count, asyncs):
    return [text, count, 100.0, 100.0 / count, 1.0, 2.0, 3.0, 50.0, 100.0, asyncs, 0, text]


def counter(quantity, rate=0.0, mx=0.0, delta=0.0, trend=""):
    return ["System.Runtime", "dotnet." + quantity, "", "/s", 10, 0, rate, mx, mx, mx, rate, None,
            None, "time", quantity, 0, delta, "rate", trend]


def gauge(quantity, first, last, trend):
    """A footprint gauge of 10 samples from first to last, its trend judged (counters-csv)."""
    return ["System.Runtime", "dotnet." + quantity, "", "By", 10, first, (first + last) / 2, last,
            last, last, None, (last - first) * 6, 0.9, "footprint", quantity, first, last - first,
            "gauge", trend]


def both(*docs):
    """One document holding the stages of several (a run of several analyzers)."""
    out = copy.deepcopy(docs[0])
    for d in docs[1:]:
        out["stages"] += copy.deepcopy(d["stages"])
    return out


def cpu_running(method, share_pct, samples=100):
    return doc("cpu", {"running": [[method, samples, 10.0 * share_pct, share_pct],
                                   ["App.Hot.Run", 100, 1000.0 - 10.0 * share_pct, 100 - share_pct]],
                       "waiting": [], "by_stack": [["App.Main;App.Hot.Run", 100, 1000.0]]})


def counters(*rows):
    return doc("counters-csv", {"by_counter": list(rows)})


def growth(typ, retained, path):
    return doc("gcdump-diff", {"growth": [[typ, 1000, 40_000, 0, retained, retained, 90.0, "", "",
                                           path]]})


STATIC = "[.NET Roots] > [static vars] > [static field ?.Cache] > "
N1 = 'SELECT "p"."Id" FROM "Posts" AS "p" WHERE "p"."BlogId" = @id'
WIDE = ('SELECT "o"."Id", "o"."A", "o"."B", "o"."C", "o"."D", "o"."E", "o"."F", "o"."G" '
        'FROM "Orders" AS "o"')
NARROW = 'SELECT "o"."Id", "o"."A" FROM "Orders" AS "o"'
WHERE = 'SELECT "o"."Id" FROM "Orders" AS "o" WHERE "o"."Id" = @id'

# rule id -> (firing document(s), healthy document(s), target or None for a finding); a list of
# firing documents: each must fire (one per match clause worth its own case)
CASES = {
    "ef.n-plus-one": (
        db([cmd(N1, 240, 240)], [[N1, 240, 36.0, "request", "", 12, 20, "high"]]),
        db([cmd(N1, 20, 20)], [[N1, 20, 36.0, "request", "", 1, 20, "low"]]), N1),
    "ef.chatty-request": (
        db([cmd(N1, 500, 500)], per_request=[["GET /blogs", 20, 500, 25, 25, 100.0, 5.0, 9.0]]),
        db([cmd(N1, 40, 40)], per_request=[["GET /blogs", 20, 40, 2, 2, 10.0, 0.5, 2.0]]), None),
    "ef.missing-projection": (db([cmd(WIDE, 100, 100)]), db([cmd(NARROW, 100, 100)]), WIDE),
    "ef.tracking-read-only": (
        alloc_type("App.Orders.List",
                   "Microsoft.EntityFrameworkCore.ChangeTracking.Internal.InternalEntityEntry",
                   3_000_000),
        alloc_type("App.Orders.List", "App.Orders.OrderDto", 3_000_000), "App.Orders.List"),
    "ef.sync-io": (db([cmd(NARROW, 100, 0)]), db([cmd(NARROW, 100, 100)]), NARROW),
    "mem.loh-array-churn": (
        alloc_type("App.Files.Copy", "System.Byte[]", 5_000_000, "Large", threads=2),
        [alloc_type("App.Files.Copy", "System.Byte[]", 5_000_000, "Small"),
         # a pool warming up: each of 10 threads rents (allocates) its large buffer once
         alloc_type("App.Files.Copy", "System.Byte[]", 5_000_000, "Large", threads=10),
         # churn on one thread, but only a few large arrays in all
         doc("alloc", {"by_frame": [["App.Files.Copy", 2_000_000, 5, 100.0]],
                       "by_type_frame_kind": [["System.Byte[]", "App.Files.Copy", "Large",
                                               2_000_000, 5, 1]],
                       "by_stack": [["App.Main;App.Files.Copy", 2_000_000, 5]]})],
        "App.Files.Copy"),
    "str.concat-in-loop": (
        alloc_callee("App.Report.Rows", "System.String.Concat", 60),
        [alloc_callee("App.Report.Rows", "System.String.Concat", 5),
         # one concatenation (one tick) in a frame that allocates little else
         alloc_callee("App.Report.Rows", "System.String.Concat", 50, ticks=1)], "App.Report.Rows"),
    "str.builder-no-capacity": (
        alloc_callee("App.Report.Rows", "System.Text.StringBuilder.ExpandByABlock", 50),
        alloc_callee("App.Report.Rows", "System.Text.StringBuilder.Append", 50), "App.Report.Rows"),
    "linq.hot-path": (
        alloc_callee("App.Cart.Total", "System.Linq.Enumerable.Select", 40),
        alloc_callee("App.Cart.Total", "System.Collections.Generic.List`1.Add", 40),
        "App.Cart.Total"),
    "box.non-generic-collection": (
        alloc_callee("App.Legacy.Fill", "System.Collections.ArrayList.Add", 50),
        alloc_callee("App.Legacy.Fill", "System.Collections.Generic.List`1.Add", 50),
        "App.Legacy.Fill"),
    "box.enum-key": (
        alloc_callee("App.Flags.Key", "System.Enum.GetHashCode", 50),
        alloc_callee("App.Flags.Key", "System.Int32.GetHashCode", 50), "App.Flags.Key"),
    "regex.per-call": (
        [cpu_callee("App.Validate.Email", "System.Text.RegularExpressions.RegexParser.Parse", 40),
         alloc_callee("App.Validate.Email", "System.Text.RegularExpressions.Regex..ctor", 60)],
        [cpu_callee("App.Validate.Email", "System.Text.RegularExpressions.Regex.IsMatch", 40),
         # constructed once: most of a frame that does little else, but 40 ms in all
         cpu_callee("App.Validate.Email", "System.Text.RegularExpressions.RegexParser.Parse", 40,
                    total_ms=100.0),
         alloc_callee("App.Validate.Email", "System.Text.RegularExpressions.Regex..ctor", 60, ticks=3),
         # a type initializer runs once, whatever it costs
         cpu_callee("App.Validate..cctor", "System.Text.RegularExpressions.RegexParser.Parse", 90),
         # the static Regex.IsMatch path: RegexCache lookups are the cache working
         cpu_callee("App.Validate.Email", "System.Text.RegularExpressions.RegexCache.Lookup", 40)],
        "App.Validate.Email"),
    "json.options-per-call": (
        [alloc_callee("App.Api.Serialize",
                      "System.Text.Json.Serialization.Metadata.DefaultJsonTypeInfoResolver.GetTypeInfo",
                      40),
         cpu_callee("App.Api.Serialize", "System.Text.Json.JsonSerializerOptions..ctor", 30),
         alloc_type("App.Api.Serialize", "System.Text.Json.Serialization.Metadata.JsonPropertyInfo[]",
                    5_000_000)],
        [alloc_callee("App.Api.Serialize", "System.Text.Json.JsonSerializer.Serialize", 40),
         # cached options: every Serialize looks its metadata up, which is no rebuild
         cpu_callee("App.Api.Serialize", "System.Text.Json.JsonSerializerOptions.GetTypeInfoForRootType",
                    40),
         # every call writes through JsonTypeInfo<T>.Serialize: the metadata used, not built
         alloc_callee("App.Api.Serialize",
                      "System.Text.Json.Serialization.Metadata.JsonTypeInfo`1[System.__Canon].Serialize",
                      60, ticks=50),
         # built once: 3 ticks of metadata, 40 ms
         alloc_callee("App.Api.Serialize",
                      "System.Text.Json.Serialization.Metadata.DefaultJsonTypeInfoResolver.GetTypeInfo",
                      40, ticks=3),
         cpu_callee("App.Api.Serialize",
                    "System.Text.Json.Serialization.Metadata.JsonTypeInfo.Configure", 40, total_ms=100.0),
         alloc_type("App.Api.Serialize", "System.Text.Json.Serialization.Metadata.JsonPropertyInfo[]",
                    300_000)],
        "App.Api.Serialize"),
    "log.no-source-generator": (
        alloc_callee("App.Api.Handle", "Microsoft.Extensions.Logging.LoggerExtensions.LogInformation",
                     40),
        alloc_callee("App.Api.Handle", "App.Api.Log.Handled", 40), "App.Api.Handle"),
    "http.client-per-request": (
        cpu_callee("App.Client.Fetch", "System.Net.Http.HttpClient..ctor", 10),
        cpu_callee("App.Client.Fetch", "System.Net.Http.HttpClient.SendAsync", 10),
        "App.Client.Fetch"),
    "async.sync-over-async": (
        cpu_callee("App.Sync.Get", "System.Threading.Tasks.Task`1.get_Result", 30, root=POOL),
        cpu_callee("App.Sync.Get", "System.Threading.Tasks.Task`1.get_IsCompleted", 30, root=POOL),
        "App.Sync.Get"),
    "async.threadpool-starvation": (
        counters(counter("threadpool.threads", 20, 24, 16), counter("threadpool.queue_length", 40, 120)),
        counters(counter("threadpool.threads", 4, 4, 0), counter("threadpool.queue_length", 0, 0)),
        None),
    "lock.contention": (
        cpu_wait("System.Threading.Monitor.Enter_Slowpath", "App.Cache.Get", 30),
        cpu_wait("System.Threading.Monitor.Enter_Slowpath", "App.Cache.Get", 1), None),
    "exc.control-flow": (
        cpu_callee("App.Parse.Number", "System.Runtime.EH.RhThrowEx", 40),
        cpu_callee("App.Parse.Number", "System.Int32.TryParse", 40), "App.Parse.Number"),
    "gc.induced-collect": (
        cpu_callee("App.Jobs.Cleanup", "System.GC.Collect", 20),
        cpu_callee("App.Jobs.Cleanup", "System.GC.KeepAlive", 20), "App.Jobs.Cleanup"),
    "leak.static-collection": (
        both(growth("App.Session", 4_000_000,
                    STATIC + "System.Collections.Generic.List<App.Session> > App.Session[] > App.Session"),
             counters(gauge("gc.heap.gen2", 4e6, 40e6, "growing"))),
        [both(growth("App.Session", 4_000_000,
                     "[.NET Roots] > [local vars] > System.Collections.Generic.List<App.Session> > "
                     "App.Session[] > App.Session"),
              counters(gauge("gc.heap.gen2", 4e6, 40e6, "growing")))],
        "App.Session"),
    "heap.static-growth": (
        growth("App.Session", 4_000_000,
               STATIC + "System.Collections.Generic.List<App.Session> > App.Session[] > App.Session"),
        growth("App.Session", 4_000_000,
               "[.NET Roots] > [local vars] > System.Collections.Generic.List<App.Session> > "
               "App.Session[] > App.Session"), "App.Session"),
    # three snapshots: grew between the first two, and the diff of the next pair (the second
    # stage) shows no growth of it; silent where no static collection holds it
    "heap.bounded-growth": (
        both(growth("App.Report", 4_000_000,
                    STATIC + "System.Collections.Generic.Dictionary<System.Int32,App.Report> > App.Report"),
             growth("App.Other", 4_000_000, "[.NET Roots] > [local vars] > App.Other")),
        both(growth("App.Report", 4_000_000,
                    "[.NET Roots] > [local vars] > System.Collections.Generic.Dictionary<System.Int32,"
                    "App.Report> > App.Report"),
             growth("App.Other", 4_000_000, "[.NET Roots] > [local vars] > App.Other")),
        "App.Report"),
    "leak.event-handler": (
        growth("App.View", 4_000_000,
               STATIC + "App.Bus > System.EventHandler<App.Msg> > System.Object[] > App.View"),
        growth("App.View", 4_000_000, "[.NET Roots] > [local vars] > App.Bus > App.View"),
        "App.View"),
    "leak.timer-root": (
        growth("App.Poller", 2_000_000,
               "[.NET Roots] > [handles] > System.Threading.TimerQueue > "
               "System.Threading.TimerQueueTimer > App.Poller"),
        growth("App.Poller", 2_000_000, "[.NET Roots] > [local vars] > App.Poller"), "App.Poller"),
    "gc.finalizer-backlog": (
        growth("App.NativeHandle", 4_000_000, "[.NET Roots] > [finalization handles] > App.NativeHandle"),
        growth("App.NativeHandle", 4_000_000, "[.NET Roots] > [local vars] > App.NativeHandle"),
        "App.NativeHandle"),
    "gc.pause-share": (counters(counter("gc.pause_time", 0.2)), counters(counter("gc.pause_time", 0.01)),
                       None),
    "gc.gen2-storm": (counters(counter("gc.collections.gen2", 2.0)),
                      counters(counter("gc.collections.gen2", 0.05)), None),
    "gc.gen1-frequent": (counters(counter("gc.collections.gen1", 10.0)),
                         counters(counter("gc.collections.gen1", 1.0)), None),
    "gc.alloc-rate-high": (counters(counter("alloc.bytes", 1e9)), counters(counter("alloc.bytes", 5e7)),
                           None),
    "gc.pinned-alloc": (alloc_type("App.Io.Read", "System.Byte[]", 5_000_000, kind="Pinned", threads=4),
                        alloc_type("App.Io.Read", "System.Byte[]", 5_000_000, kind="Small"),
                        "App.Io.Read"),
    "gc.loh-growing": (counters(gauge("gc.heap.loh", 1e6, 9e6, "growing")),
                       counters(gauge("gc.heap.loh", 1e6, 9e6, "bounded")), None),
    "mem.working-set-growing": (counters(gauge("memory.working_set", 5e7, 9e7, "growing")),
                                counters(gauge("memory.working_set", 5e7, 9e7, "")), None),
    "gc.gc-cpu": (cpu_running("WKS::gc_heap::mark_object_simple", 20),
                  cpu_running("WKS::gc_heap::mark_object_simple", 2), "WKS::gc_heap::mark_object_simple"),
    # an algorithmic loop of the app's own on a request (CRC bit by bit) vs the same method calling
    # a library for it, the loop on a thread of its own (no request path), a framework loop, and
    # a loop that is little of the running time
    "cpu.self-time-hot": (
        cpu_self("WebApp.Shop.DigestNaive", 100),
        [cpu_self("WebApp.Shop.DigestNaive", 10),
         cpu_self("WebApp.Shop.DigestNaive", 100, root="System.Threading.Thread.StartCallback"),
         cpu_self("WebApp.Shop.DigestNaive", 100, cls="framework"),
         cpu_self("WebApp.Shop.DigestNaive", 100, other_ms=4000.0)],
        "WebApp.Shop.DigestNaive"),
    "hash.expensive-equality": (cpu_callee("App.Index.Find", "App.Key.GetHashCode", 40),
                                cpu_callee("App.Index.Find", "App.Key.get_Id", 40), "App.Index.Find"),
    "reflection.hot-path": (
        [cpu_callee("App.Map.Copy", "System.Reflection.RuntimeMethodInfo.Invoke", 40),
         alloc_callee("App.Map.Copy", "System.Reflection.RuntimeMethodInfo.Invoke", 40)],
        cpu_callee("App.Map.Copy", "App.Map.CompiledSetter", 40), "App.Map.Copy"),
    "str.split-substring-churn": (alloc_callee("App.Csv.Parse", "System.String.Split", 50),
                                  alloc_callee("App.Csv.Parse", "System.MemoryExtensions.IndexOf", 50),
                                  "App.Csv.Parse"),
    "str.format-hot": (alloc_callee("App.Log.Line", "System.String.Format", 50),
                       alloc_callee("App.Log.Line", "System.String.Create", 50), "App.Log.Line"),
    "mem.collection-growth": (
        alloc_callee("App.Load.All", "System.Collections.Generic.List`1.AddWithResize", 60),
        alloc_callee("App.Load.All", "System.Collections.Generic.List`1.Add", 60), "App.Load.All"),
    "mem.memorystream-toarray": (alloc_callee("App.Pdf.Render", "System.IO.MemoryStream.ToArray", 50),
                                 alloc_callee("App.Pdf.Render", "System.IO.MemoryStream.TryGetBuffer", 50),
                                 "App.Pdf.Render"),
    "crypto.per-call": (
        cpu_callee("App.Auth.Sign", "System.Security.Cryptography.SHA256.Create", 30),
        cpu_callee("App.Auth.Sign", "System.Security.Cryptography.SHA256.HashData", 30), "App.Auth.Sign"),
    "time.datetime-now-hot": (cpu_callee("App.Audit.Stamp", "System.DateTime.get_Now", 30),
                              cpu_callee("App.Audit.Stamp", "System.DateTime.get_UtcNow", 30),
                              "App.Audit.Stamp"),
    "exc.high-rate": (
        cpu_events(exceptions=[["App.Hot.Run", "System.FormatException", 1200, 3000.0]]),
        cpu_events(exceptions=[["App.Hot.Run", "System.FormatException", 40, 10.0]]), "App.Hot.Run"),
    "aspnet.sync-body-io": (
        cpu_callee("App.Upload.Save",
                   "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpRequestStream.Read", 30),
        cpu_callee("App.Upload.Save",
                   "Microsoft.AspNetCore.Server.Kestrel.Core.Internal.Http.HttpRequestStream.ReadAsync", 30),
        "App.Upload.Save"),
    "aspnet.response-buffering": (
        alloc_callee("App.Report.Get", "Microsoft.AspNetCore.WebUtilities.FileBufferingWriteStream.Write", 50),
        alloc_callee("App.Report.Get", "System.IO.Pipelines.PipeWriter.GetMemory", 50), "App.Report.Get"),
    "aspnet.large-request-body": (
        alloc_callee("App.Upload.Post", "System.IO.StreamReader.ReadToEndAsync", 50),
        alloc_callee("App.Upload.Post", "System.IO.StreamReader.ReadLineAsync", 50), "App.Upload.Post"),
    "ef.unbounded-query": (db([cmd(NARROW, 2, 2)]), db([cmd(WHERE, 2, 2)]), NARROW),
    "ef.model-per-call": (
        cpu_callee("App.Orders.Get", "Microsoft.EntityFrameworkCore.Infrastructure.ModelSource.CreateModel", 30),
        cpu_callee("App.Orders.Get", "Microsoft.EntityFrameworkCore.Infrastructure.ModelSource.GetModel", 30),
        "App.Orders.Get"),
    "ef.query-compile-per-call": (
        cpu_callee("App.Orders.Find", "Microsoft.EntityFrameworkCore.Query.Internal.QueryCompiler.Compile", 30),
        cpu_callee("App.Orders.Find", "Microsoft.EntityFrameworkCore.Query.Internal.QueryCompiler.Execute", 30),
        "App.Orders.Find"),
    "ef.save-path": (
        cpu_callee("App.Orders.Import", "Microsoft.EntityFrameworkCore.DbContext.SaveChanges", 30),
        cpu_callee("App.Orders.Import", "Microsoft.EntityFrameworkCore.DbContext.Add", 30),
        "App.Orders.Import"),
    "db.slow-command": (
        db([[WHERE, 20, 4000.0, 200.0, 150.0, 300.0, 400.0, 50.0, 4000.0, 20, 0, WHERE]]),
        db([[WHERE, 20, 400.0, 20.0, 15.0, 30.0, 40.0, 50.0, 400.0, 20, 0, WHERE]]), WHERE),
    "db.command-errors": (
        db([[WHERE, 20, 100.0, 5.0, 1.0, 2.0, 3.0, 50.0, 100.0, 20, 3, WHERE]]),
        db([cmd(WHERE, 20, 20)]), WHERE),
    "threads.spin-wait": (cpu_callee("App.Queue.Take", "System.Threading.SpinWait.SpinOnce", 30),
                          cpu_callee("App.Queue.Take", "System.Threading.SemaphoreSlim.WaitAsync", 30),
                          "App.Queue.Take"),
    "threads.timer-per-call": (
        cpu_callee("App.Http.Call", "System.Threading.TimerQueueTimer..ctor", 10),
        # a shared timer; and the process's first timer made once, whose arming starts the timer
        # thread (21 ms of Change waiting in Thread.StartCore on a loaded machine)
        [cpu_callee("App.Http.Call", "System.Threading.PeriodicTimer.WaitForNextTickAsync", 10),
         cpu_callee("App.Jobs.StartSweep", "System.Threading.TimerQueueTimer.Change", 21, total_ms=100.0)],
        "App.Http.Call"),
    "threads.queue-backlog": (counters(counter("threadpool.queue_length", 40, 500)),
                              counters(counter("threadpool.queue_length", 1, 5)), None),
}


# More cases for rules with several kinds of evidence: "RULE#what" -> as in CASES.
EXTRA_CASES = {
    # three snapshots: the same type grew, held by a static collection, in the next pair too
    "leak.static-collection#snapshots": (
        both(growth("App.Session", 4_000_000,
                    STATIC + "System.Collections.Generic.List<App.Session> > App.Session[] > App.Session"),
             growth("App.Session", 4_000_000,
                    STATIC + "System.Collections.Generic.List<App.Session> > App.Session[] > App.Session")),
        both(growth("App.Session", 4_000_000,
                    "[.NET Roots] > [local vars] > System.Collections.Generic.List<App.Session> > "
                    "App.Session[] > App.Session"),
             growth("App.Session", 4_000_000,
                    "[.NET Roots] > [local vars] > System.Collections.Generic.List<App.Session> > "
                    "App.Session[] > App.Session")),
        "App.Session"),
    # the runtime's exception counter: 500 a second (30 000 a minute) vs 2
    "exc.high-rate#counters": (counters(counter("exceptions", 500.0)),
                               counters(counter("exceptions", 2.0)), None),
    # the entry thread's one wait for the async flows it started holds no pool thread
    "async.sync-over-async#entry-thread": (
        cpu_callee("App.Sync.Get", "System.Threading.Tasks.Task`1.get_Result", 30, root=POOL),
        cpu_callee("App.Sync.Get", "System.Threading.Tasks.Task`1.get_Result", 30), "App.Sync.Get"),
    # the runtime's exception events: the catching method, 1200 catches at 3000/s vs 40
    "exc.control-flow#events": (
        cpu_events(exceptions=[["App.Hot.Run", "System.FormatException", 1200, 3000.0]]),
        cpu_events(exceptions=[["App.Hot.Run", "System.FormatException", 40, 3000.0]]), "App.Hot.Run"),
    # the runtime's contention events: 40 % of the thread time blocked on the lock vs 0.01 %
    "lock.contention#events": (
        cpu_events(contention=[["System.Threading.Monitor.Enter_Slowpath", "App.Hot.Run", 119,
                                5000.0, 40.0]]),
        [cpu_events(contention=[["System.Threading.Monitor.Wait", "App.Hot.Run", 13, 0.9, 0.01]]),
         # contentions the runtime logged without a stack name no frame to change
         cpu_events(contention=[["[no stack]", "[no stack]", 20, 62.0, 12.4]])],
        "App.Hot.Run"),
    # six samples of threads spinning once in Enter_Slowpath are no measure of contention
    "lock.contention#few-samples": (
        cpu_wait("System.Threading.Monitor.Enter_Slowpath", "App.Cache.Get", 30),
        cpu_events(waiting=[["System.Threading.Monitor.Enter_Slowpath", "App.Hot.Run", 6, 18.8, 80.0]]),
        None),
    # the application's own GetHashCode is the hot leaf (the candidate itself: 800 ms of its own
    # code); a framework one is not the application's key (string hashing in a dictionary of
    # strings), nor one whose time is in what it calls (10 % its own)
    "hash.expensive-equality#running": (
        cpu_self("App.Key.GetHashCode", 100, root="App.Main;App.Index.Find"),
        [cpu_self("System.String.GetHashCode", 100, root="App.Main;App.Index.Find", cls="framework"),
         cpu_self("App.Key.GetHashCode", 5, root="App.Main;App.Index.Find")],
        "App.Key.GetHashCode"),
    # tier-1 shapes (docs/rules.md, "Tiered JIT"): the framework frame the rule names was inlined,
    # what stays is its slow path, the native context it creates, the type it allocates
    "str.builder-no-capacity#tier1": (
        alloc_callee("App.Report.Build", "System.Text.StringBuilder.AppendWithExpansion", 60),
        alloc_callee("App.Report.Build", "System.Text.StringBuilder.Append", 60), "App.Report.Build"),
    "crypto.per-call#tier1": (
        cpu_callee("App.Auth.Sign", "Interop+Crypto.EvpMdCtxCreate", 30),
        cpu_callee("App.Auth.Sign", "Interop+Crypto.EvpDigestOneShot", 30), "App.Auth.Sign"),
    "crypto.per-call#alloc": (
        alloc_type("App.Auth.Sign", "System.Security.Cryptography.HashProviderDispenser+EvpHashProvider",
                   5_000_000),
        alloc_type("App.Auth.Sign", "System.Byte[]", 5_000_000), "App.Auth.Sign"),
    # Enum.ToString at 9 % of a tier-1 caller's time is still the antipattern; a static constructor
    # filling a name table once (Enum.GetNames, the fix; or GetName for 5 ms) is not
    "box.enum-key#tier1": (
        cpu_callee("App.Keys.Build", "System.Enum.ToString", 9),
        [cpu_callee("App.Keys..cctor", "System.Enum.GetNames", 55, total_ms=500.0),
         cpu_callee("App.Keys..cctor", "System.Enum.GetName", 55, total_ms=10.0)], "App.Keys.Build"),
    # every logging frame inlined by tier 1: what is left is the FormattedLogValues state the
    # application's own logger boxes (alloc's by_type_stack: the callee_types view); a state made
    # by LoggerMessage.Define is the fix
    "log.no-source-generator#types": (
        alloc_logger("App.Orders.Ship", "Microsoft.Extensions.Logging.FormattedLogValues"),
        alloc_logger("App.Orders.Ship", "Microsoft.Extensions.Logging.LoggerMessage+LogValues`2"),
        "App.Orders.Ship"),
    # the finalizer thread's own time at 4 % of the process's (many other costs beside it); a
    # framework finalizer run twice is not a backlog
    "gc.finalizer-backlog#cpu": (
        cpu_running("App.NativeHandle.Finalize", 4, samples=25),
        cpu_running("System.Reflection.Emit.DynamicResolver.Finalize", 4, samples=2),
        "App.NativeHandle.Finalize"),
    "log.no-source-generator#tier1": (
        cpu_callee("App.Orders.Ship", "Microsoft.Extensions.Logging.FormattedLogValues..ctor", 30),
        cpu_callee("App.Orders.Ship", "Microsoft.Extensions.Logging.LoggerMessage+<>c__DisplayClass10_0`2.<Define>b__1",
                   30), "App.Orders.Ship"),
}


def run_candidates(name, d):
    path = os.path.join(TMP, name + ".json")
    out = os.path.join(TMP, name + ".cand.json")
    with open(path, "w") as f:
        json.dump(d, f)
    env = dict(os.environ, HOME=TMP, XDG_CONFIG_HOME=os.path.join(TMP, "xdg"))
    env.pop("PERFPIPE_RULES_PATH", None)
    p = subprocess.run([PERFPIPE, "candidates", path, "--top", "50", "--format", "json", "-o", out],
                       env=env, capture_output=True, text=True)
    if p.returncode != 0:
        raise AssertionError(f"{name}: perfpipe candidates exit {p.returncode}: {p.stderr}")
    res = json.load(open(out))
    t = {x["name"]: x for x in res["stages"][0]["tables"]}
    cols = [c["name"] for c in t["candidates"]["columns"]]
    on_target = {}
    for row, rules in zip(t["candidates"]["rows"], t["candidates"]["row_rules"]):
        r = dict(zip(cols, row))
        on_target[r["target"]] = [x["id"] for x in rules]
        if not rules:
            assert r["rules"] == "none matched", r
    own = [r[1] for r in t["rule_findings"]["rows"]]
    return on_target, own


def main():
    listed = subprocess.run([PERFPIPE, "rules", "list", "--format", "json"], capture_output=True,
                            text=True, env=dict(os.environ, HOME=TMP))
    shipped = {r["id"] for r in json.loads(listed.stdout)}
    passed = failed = 0
    for rid in sorted(shipped - set(CASES)):
        print(f"FAIL {rid}: shipped rule without a case in tests/rules/rule_cases.py")
        failed += 1
    for name, (fires, healthy, target) in sorted(CASES.items()) + sorted(EXTRA_CASES.items()):
        rid = name.split("#")[0]
        try:
            for k, f in enumerate(fires if isinstance(fires, list) else [fires]):
                on, own = run_candidates(f"{name}.fires{k}", copy.deepcopy(f))
                if target is not None:
                    assert target in on, f"fires {k}: no candidate '{target}' (candidates: {list(on)})"
                    assert rid in on[target], f"fires {k}: not on '{target}': it carries {on[target]}"
                else:
                    assert rid in own, f"fires {k}: no finding of its own (rule_findings: {own})"
            for k, h in enumerate(healthy if isinstance(healthy, list) else [healthy]):
                on, own = run_candidates(f"{name}.healthy{k}", copy.deepcopy(h))
                fired = sorted({i for ids in on.values() for i in ids} | set(own))
                assert not fired, f"healthy variant {k}: {fired} fired"
            print(f"PASS {name}: fires on {target or 'its own finding'}, silent on the healthy variant")
            passed += 1
        except AssertionError as e:
            print(f"FAIL {name}: {e}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


sys.exit(main())
