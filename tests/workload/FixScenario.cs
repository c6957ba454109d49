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
            var set = new JsonArray();
            foreach (string n in list) { var t = new JsonObject(); RunOne(a, n, variant, t); set.Add(t); }
            truth["variant"] = variant;
            truth["assembly"] = typeof(FixScenario).Assembly.GetName().Name;
            truth["set"] = set;
            Truth.Emit(a, truth);
        }

        static void RunOne(Args a, string name, string variant, JsonObject truth)
        {
            FixShape s = Shapes[name](a);
            int clients = a.Int("clients", s.Clients);
            int calls = a.Int("calls", s.Calls);
            s.Setup?.Invoke();
            Action<int> call = variant == "bad" ? s.Bad : s.Good;
            Func<int, Task> acall = variant == "bad" ? s.BadAsync : s.GoodAsync;
            if (call == null) call = i => acall(i).GetAwaiter().GetResult();
            for (int i = 0; i < 3; i++) call(i);   // warm-up: JIT and first-use costs out of the way
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
            truth["shape"] = name;
            truth["variant"] = variant;
            truth["rule_topic"] = s.Rule;
            truth["expect_rule"] = variant == "bad";
            truth["method"] = variant == "bad" ? s.BadMethod : s.GoodMethod;
            truth["twin_method"] = variant == "bad" ? s.GoodMethod : s.BadMethod;
            truth["assembly"] = typeof(FixScenario).Assembly.GetName().Name;
            truth["framework_assembly"] = s.Framework;
            truth["evidence"] = s.Evidence;
            truth["clients"] = clients;
            truth["calls"] = (long)clients * calls;
            truth["client_bytes"] = total;
            truth["bytes_per_call"] = clients * calls > 0 ? total / ((long)clients * calls) : 0;
            truth["elapsed_ms"] = sw.Elapsed.TotalMilliseconds;
            var f = new JsonObject();
            s.Facts?.Invoke(f);
            truth["facts"] = f;
        }
    }
}
