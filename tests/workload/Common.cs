// perfpipe test bed workload: shared plumbing (argument parsing, ground-truth JSON, start gate).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Threading;

namespace Workload
{
    public sealed class Args
    {
        public readonly string Scenario;
        private readonly Dictionary<string, string> _kv = new Dictionary<string, string>(StringComparer.Ordinal);
        private readonly List<string> _skip = new List<string>();
        public readonly JsonObject Knobs = new JsonObject();

        public Args(string[] argv)
        {
            if (argv.Length == 0) throw new ArgumentException("usage: Workload SCENARIO [--truth PATH] [--wait-file PATH] [--startup-delay-ms N] [knobs]");
            Scenario = argv[0];
            for (int i = 1; i < argv.Length; i++)
            {
                string a = argv[i];
                if (!a.StartsWith("--", StringComparison.Ordinal)) throw new ArgumentException("unexpected argument: " + a);
                string key = a.Substring(2);
                if (key == "wait-for-attach") { _kv[key] = "1"; continue; }
                if (i + 1 >= argv.Length) throw new ArgumentException("missing value for " + a);
                string val = argv[++i];
                if (key == "skip") _skip.Add(val); else _kv[key] = val;
            }
        }

        public bool Has(string k) => _kv.ContainsKey(k);
        public string Str(string k, string def) => _kv.TryGetValue(k, out var v) ? v : def;
        public bool Skipped(string method) => _skip.Contains(method);
        public IReadOnlyList<string> SkipList => _skip;

        public int Int(string k, int def)
        {
            int v = _kv.TryGetValue(k, out var s) ? int.Parse(s, CultureInfo.InvariantCulture) : def;
            Knobs[k] = v;
            return v;
        }
        public double Dbl(string k, double def)
        {
            double v = _kv.TryGetValue(k, out var s) ? double.Parse(s, CultureInfo.InvariantCulture) : def;
            Knobs[k] = v;
            return v;
        }
    }

    public static class Truth
    {
        public static JsonObject New(Args a)
        {
            var o = new JsonObject
            {
                ["schema"] = "perfpipe-workload-truth/1",
                ["scenario"] = a.Scenario,
                ["pid"] = Environment.ProcessId,
                ["runtime_version"] = Environment.Version.ToString(),
                ["framework_description"] = System.Runtime.InteropServices.RuntimeInformation.FrameworkDescription,
                ["pointer_size"] = IntPtr.Size,
                ["server_gc"] = System.Runtime.GCSettings.IsServerGC,
            };
            return o;
        }

        public static void Emit(Args a, JsonObject truth)
        {
            truth["knobs"] = a.Knobs.DeepClone();
            var skips = new JsonArray();
            foreach (var s in a.SkipList) skips.Add(s);
            truth["skip"] = skips;
            string json = truth.ToJsonString(new JsonSerializerOptions { WriteIndented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
            string path = a.Str("truth", null);
            if (path != null) File.WriteAllText(path, json + "\n");
            if (path == null || a.Has("print-truth")) Console.WriteLine(json);
        }
    }

    public static class Gate
    {
        /// Block before any scenario work so a tool can attach by pid:
        ///   --wait-file PATH      poll until PATH exists
        ///   --wait-for-attach     print "PID <pid>" and wait for a line on stdin
        ///   --startup-delay-ms N  sleep N ms
        public static void Wait(Args a)
        {
            string wf = a.Str("wait-file", null);
            if (a.Has("wait-for-attach"))
            {
                Console.WriteLine("PID " + Environment.ProcessId);
                Console.Out.Flush();
                Console.In.ReadLine();
            }
            if (wf != null)
            {
                Console.Error.WriteLine($"[workload] pid {Environment.ProcessId} waiting for {wf}");
                while (!File.Exists(wf)) Thread.Sleep(20);
            }
            int d = a.Has("startup-delay-ms") ? int.Parse(a.Str("startup-delay-ms", "0"), CultureInfo.InvariantCulture) : 0;
            if (d > 0) Thread.Sleep(d);
        }

        /// Phase hand-shake through files in a directory: write DIR/NAME.ready, wait for DIR/NAME.go.
        public static void Phase(string dir, string name)
        {
            if (dir == null) return;
            // Written beside and renamed: a script that sees NAME.ready reads the whole pid
            // (WriteAllText creates the file before it writes, and a loaded machine shows it).
            string ready = Path.Combine(dir, name + ".ready");
            File.WriteAllText(ready + ".tmp", Environment.ProcessId.ToString(CultureInfo.InvariantCulture) + "\n");
            File.Move(ready + ".tmp", ready, true);
            string go = Path.Combine(dir, name + ".go");
            while (!File.Exists(go)) Thread.Sleep(20);
        }
    }

    public static class Sink
    {
        // Everything allocated is published here so the JIT cannot stack-allocate it
        // (.NET 10 escape analysis) and the allocation really reaches the GC heap.
        public static readonly object[] Slots = new object[1024];
        public static int Next;
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Keep(object o) { Slots[Next++ & 1023] = o; }
        public static void Clear() { Array.Clear(Slots); }
    }

    public static class Program
    {
        public static int Main(string[] argv)
        {
            Args a;
            try { a = new Args(argv); }
            catch (Exception e) { Console.Error.WriteLine(e.Message); return 2; }
            Gate.Wait(a);
            JsonObject truth = Truth.New(a);
            switch (a.Scenario)
            {
                case "alloc": AllocScenario.Run(a, truth); break;
                case "cpu": CpuScenario.Run(a, truth); break;
                case "cpuwork": CpuWorkScenario.Run(a, truth); break;
                case "db": DbScenario.Run(a, truth).GetAwaiter().GetResult(); break;
                case "leak": LeakScenario.Run(a, truth); break;
                case "cache": CacheScenario.Run(a, truth); break;
                case "churn": ChurnScenario.Run(a, truth); break;
                case "web": WebScenario.Run(a, truth).GetAwaiter().GetResult(); break;
                case "blocking": BlockingScenario.Run(a, truth); break;
                case "allocexact": AllocExactScenario.Run(a, truth); break;
                case "webdb": WebDbScenario.Run(a, truth).GetAwaiter().GetResult(); break;
                case "fix": FixScenario.Run(a, truth); break;
                case "gc": GcScenario.Run(a, truth); break;
                default: Console.Error.WriteLine("unknown scenario: " + a.Scenario + " (alloc|cpu|db|leak|churn|web)"); return 2;
            }
            Truth.Emit(a, truth);
            return 0;
        }
    }
}
