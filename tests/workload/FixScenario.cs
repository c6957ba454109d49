// fix: the fix-shape scenarios (issue #24). Each shape is an antipattern a shipped rule names,
// with its healthy twin: `fix --shape NAME --variant bad|good [--clients 4] [--calls N]`.
// Several clients (threads) call the shape's handler at once; the truth says which workload
// method does the work, which assembly it lives in, which framework assembly the antipattern
// runs into, and what the workload measured (calls, bytes, time). The shapes live in their own
// files (LohScenario.cs, RegexScenario.cs, ...); this file is the router and the client runner.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;

namespace Workload
{
    /// What one shape tells the router about itself.
    public sealed class FixShape
    {
        public string Name;          // --shape
        public string Rule;          // the rule topic the bad variant must trigger (docs/rules.md id)
        public string BadMethod;     // Namespace.Type.Method the bad variant runs per call
        public string GoodMethod;    // same for the healthy twin
        public string Framework;     // the framework/package assembly the antipattern runs into
        public string Evidence;      // which analyzer sees it: alloc, cpu, db
        public Action<int> Bad;      // one call (argument: the client's call index)
        public Action<int> Good;
        public Func<int, Task> BadAsync;   // optional: clients are async flows on the thread pool
        public Func<int, Task> GoodAsync;
        public int Calls = 200;      // default calls per client (--calls)
        public int Clients = 4;      // default clients (--clients)
        public Action Setup;         // optional, before the clients start (not timed)
        public Action<JsonObject> Facts; // optional: shape-specific truth
    }

    public static class FixScenario
    {
        static readonly Dictionary<string, Func<Args, FixShape>> Shapes = new Dictionary<string, Func<Args, FixShape>>(StringComparer.Ordinal)
        {
            ["loh"] = LohScenario.Shape,
            ["strconcat"] = StringConcatScenario.Shape,
            ["regex"] = RegexScenario.Shape,
            ["jsonoptions"] = JsonOptionsScenario.Shape,
            ["exceptions"] = ExceptionFlowScenario.Shape,
            ["boxing"] = BoxingScenario.Shape,
            ["lock"] = LockScenario.Shape,
            ["syncasync"] = SyncOverAsyncScenario.Shape,
            ["httpclient"] = HttpClientScenario.Shape,
            ["eftracking"] = EfTrackingScenario.Shape,
            ["induced"] = RulePairShapes.Induced,
            ["reflection"] = RulePairShapes.Reflection,
            ["split"] = RulePairShapes.Split,
            ["hash"] = RulePairShapes.Hash,
            ["timer"] = RulePairShapes.Timer,
            ["enumkey"] = RulePairShapes.EnumKey,
            ["sbcapacity"] = RulePairShapes.Builder,
            ["format"] = RulePairShapes.Format,
            ["linq"] = RulePairShapes.Linq,
            ["growth"] = RulePairShapes.Growth,
            ["mstoarray"] = RulePairShapes.ToArray,
            ["crypto"] = RulePairShapes.Crypto,
            ["datetime"] = RulePairShapes.Now,
            ["pinned"] = RulePairShapes.Pinned,
            ["finalizer"] = RulePairShapes.Finalizer,
            ["spin"] = RulePairShapes.Spin,
            ["logging"] = RulePairShapes.Logging,
        };

        // --shape A,B,...: the shapes run one after the other in this process (one capture holds them
        // all); the truth then has one entry per shape under "set".
        public static void Run(Args a, JsonObject truth)
        {
            string names = a.Str("shape", null);
            string variant = a.Str("variant", "bad");
            if (names == null)
                throw new ArgumentException("fix: --shape " + string.Join("|", Shapes.Keys) + " is required");
            if (variant != "bad" && variant != "good")
                throw new ArgumentException("fix: --variant bad|good");
            a.Knobs["shape"] = names;
            a.Knobs["variant"] = variant;
            string[] list = names.Split(',');
            foreach (string n in list)
                if (!Shapes.ContainsKey(n)) throw new ArgumentException("fix: unknown shape " + n + " (" + string.Join("|", Shapes.Keys) + ")");
            if (list.Length == 1) { RunOne(a, list[0], variant, truth); Truth.Emit(a, truth); return; }
            truth["variant"] = variant;
            truth["assembly"] = AssemblyName;
            truth["set"] = RunSet(a, list, variant);
            Truth.Emit(a, truth);
        }

        // The driver only dispatches: the planted methods must carry the cost, so that on a capture of
        // a set the top candidates are exactly the planted methods (tests/rules-e2e/test-rule-pairs.sh).
        // Assembly.GetName() loads culture data on its first call (~20 ms under a trace); the full name
        // is at hand.
        static readonly string AssemblyName = typeof(FixScenario).Assembly.FullName.Split(',')[0];

        // A shape made ready on the caller's thread: its setup, then a few warm-up calls (JIT and
        // first-use costs out of the way).
        sealed class Ready
        {
            public string Name;
            public FixShape Shape;
            public int Clients, Calls;
            public Action<int> Call;
            public Func<int, Task> Async;
        }

        static Ready Prepare(Args a, string name, string variant)
        {
            FixShape s = Shapes[name](a);
            var r = new Ready { Name = name, Shape = s, Clients = a.Int("clients", s.Clients), Calls = a.Int("calls", s.Calls) };
            s.Setup?.Invoke();
            r.Call = variant == "bad" ? s.Bad : s.Good;
            r.Async = variant == "bad" ? s.BadAsync : s.GoodAsync;
            Action<int> call = r.Call ?? (i => r.Async(i).GetAwaiter().GetResult());
            for (int i = 0; i < 3; i++) call(i);
            return r;
        }

        static void RunOne(Args a, string name, string variant, JsonObject truth)
        {
            Ready r = Prepare(a, name, variant);
            int clients = r.Clients, calls = r.Calls;
            Action<int> call = r.Call;
            Func<int, Task> acall = r.Async;
            long[] bytes = new long[clients];
            var sw = Stopwatch.StartNew();
            var threads = new Thread[clients];
            if (acall != null)
            {
                // Async clients: each a flow on the pool; Main waits once for all of them.
                var flows = new Task[clients];
                for (int c = 0; c < clients; c++)
                {
                    int cc = c;
                    flows[c] = Task.Run(async () => { for (int i = 0; i < calls; i++) await acall(cc * calls + i); });
                }
                Task.WhenAll(flows).GetAwaiter().GetResult();
                threads = new Thread[0];
            }
            else
            for (int c = 0; c < clients; c++)
            {
                int cc = c;
                threads[c] = new Thread(() =>
                {
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    for (int i = 0; i < calls; i++) call(cc * calls + i);
                    bytes[cc] = GC.GetAllocatedBytesForCurrentThread() - b0;
                }) { Name = "client-" + c, IsBackground = true };
                threads[c].Start();
            }
            foreach (var t in threads) t.Join();
            if (acall != null) bytes = new long[] { -1 };  // not measurable per flow: -1
            sw.Stop();
            long total = 0;
            foreach (long b in bytes) total += b;
            Describe(truth, r, variant, total, sw.Elapsed.TotalMilliseconds);
        }

        // --shape A,B,...: every shape on the same client threads, started once for the whole set (a
        // thread start under a tracing session holds the starting thread 15-50 ms in Thread.StartCore:
        // a thread per client per shape made RunOne the 4th candidate of fix-set-bad, above planted
        // methods). Each client runs the shapes one after the other without waiting for the others,
        // so no client thread idles in a wait of the driver's; Main waits once, in Join. A shape's
        // elapsed time runs from its first client's start to its last client's end.
        static JsonArray RunSet(Args a, string[] list, string variant)
        {
            var ready = new Ready[list.Length];
            int clients = 1;
            for (int k = 0; k < list.Length; k++)
            {
                ready[k] = Prepare(a, list[k], variant);
                if (ready[k].Call == null)
                    throw new ArgumentException("fix: shape " + list[k] + " has async clients: run it alone");
                clients = Math.Max(clients, ready[k].Clients);
            }
            var bytes = new long[list.Length, clients];
            var start = new long[list.Length, clients];
            var stop = new long[list.Length, clients];
            var threads = new Thread[clients];
            for (int c = 0; c < clients; c++)
            {
                int cc = c;
                threads[c] = new Thread(() =>
                {
                    for (int k = 0; k < ready.Length; k++)
                    {
                        Ready r = ready[k];
                        if (cc >= r.Clients) continue;
                        start[k, cc] = Stopwatch.GetTimestamp();
                        long b0 = GC.GetAllocatedBytesForCurrentThread();
                        for (int i = 0; i < r.Calls; i++) r.Call(cc * r.Calls + i);
                        bytes[k, cc] = GC.GetAllocatedBytesForCurrentThread() - b0;
                        stop[k, cc] = Stopwatch.GetTimestamp();
                    }
                }) { Name = "client-" + c, IsBackground = true };
                threads[c].Start();
            }
            foreach (var t in threads) t.Join();
            var set = new JsonArray();
            for (int k = 0; k < ready.Length; k++)
            {
                long total = 0, t0 = long.MaxValue, t1 = 0;
                for (int c = 0; c < ready[k].Clients; c++)
                {
                    total += bytes[k, c];
                    t0 = Math.Min(t0, start[k, c]);
                    t1 = Math.Max(t1, stop[k, c]);
                }
                var t = new JsonObject();
                Describe(t, ready[k], variant, total, Stopwatch.GetElapsedTime(t0, t1).TotalMilliseconds);
                set.Add(t);
            }
            return set;
        }

        // The truth of one shape's run: what it is, what it planted, what the clients measured.
        static void Describe(JsonObject truth, Ready r, string variant, long total, double elapsedMs)
        {
            FixShape s = r.Shape;
            long calls = (long)r.Clients * r.Calls;
            truth["shape"] = r.Name;
            truth["variant"] = variant;
            truth["rule_topic"] = s.Rule;
            truth["expect_rule"] = variant == "bad";
            truth["method"] = variant == "bad" ? s.BadMethod : s.GoodMethod;
            truth["twin_method"] = variant == "bad" ? s.GoodMethod : s.BadMethod;
            truth["assembly"] = AssemblyName;
            truth["framework_assembly"] = s.Framework;
            truth["evidence"] = s.Evidence;
            truth["clients"] = r.Clients;
            truth["calls"] = calls;
            truth["client_bytes"] = total;
            truth["bytes_per_call"] = calls > 0 ? total / calls : 0;
            truth["elapsed_ms"] = elapsedMs;
            var f = new JsonObject();
            s.Facts?.Invoke(f);
            truth["facts"] = f;
        }
    }
}
