// bench-traceevent: the TraceEvent 4.0.0 reference for bench/run-bench.sh and bench/run-deep.sh.
//   dotnet bench-traceevent.dll FILE.nettrace [--rows]
//     the counting `perfpipe inspect` does: every event counted per (provider, event id,
//     version) with its payload bytes, through EventPipeEventSource with the dynamic parser
//     subscribed (Dynamic.All) and AllEvents doing the counting. Prints total_events N /
//     total_payload_bytes B / keys K / events_lost L (and one line per key with --rows).
//   dotnet bench-traceevent.dll --alloc FILE.nettrace
//     what users' allocation scripts do: TraceLog (the .etlx conversion, written next to the
//     trace and deleted after), GCAllocationTick bytes by type and by first user frame (the
//     first frame from the allocation site outward not under System./Microsoft./Interop.).
//   dotnet bench-traceevent.dll --cpu FILE.nettrace
//     what users' CPU scripts do: TraceLog, SampleProfiler ThreadSample counted by method,
//     exclusive (leaf frame) and inclusive (once per sample for every method on the stack).
// --alloc and --cpu print totals and the top 10 rows of each table.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.EventPipe;

namespace PerfpipeBench
{
    static class Program
    {
        const string ClrProvider = "Microsoft-Windows-DotNETRuntime";
        const int GCDynamicEventId = 39;

        sealed class Row { public long Count, Payload; }

        static int Main(string[] args)
        {
            if (args.Length < 1 || args[0] == "-h" || args[0] == "--help")
            {
                Console.Error.WriteLine("usage: bench-traceevent FILE.nettrace [--rows]");
                return args.Length < 1 ? 2 : 0;
            }
            if (args[0] == "--alloc" || args[0] == "--cpu")
                return args.Length < 2 ? 2 : TraceLogRun(args[1], args[0] == "--cpu");
            bool rows = args.Length > 1 && args[1] == "--rows";
            var d = new Dictionary<(string, int, int), Row>();
            long total = 0, payload = 0;
            int lost;
            using (var src = new EventPipeEventSource(args[0]))
            {
                src.Dynamic.All += _ => { };
                src.AllEvents += e =>
                {
                    int id = (int)e.ID;
                    string provider = e.ProviderName ?? "";
                    // TraceEvent re-dispatches GCDynamicEvent (id 39) with synthesized ids >= 0xFF00:
                    // count it under the id the file holds, as perfpipe does.
                    if (id >= 0xFF00 && provider == ClrProvider) id = GCDynamicEventId;
                    var k = (provider, id, (int)e.Version);
                    if (!d.TryGetValue(k, out var r)) d[k] = r = new Row();
                    r.Count++; r.Payload += e.EventDataLength;
                    total++; payload += e.EventDataLength;
                };
                src.Process();
                lost = src.EventsLost;
            }
            Console.WriteLine($"total_events {total}");
            Console.WriteLine($"total_payload_bytes {payload}");
            Console.WriteLine($"keys {d.Count}");
            Console.WriteLine($"events_lost {lost}");
            if (rows)
                foreach (var kv in d.OrderBy(x => x.Key.Item1, StringComparer.Ordinal).ThenBy(x => x.Key.Item2).ThenBy(x => x.Key.Item3))
                    Console.WriteLine($"row\t{kv.Key.Item1}\t{kv.Key.Item2}\t{kv.Key.Item3}\t{kv.Value.Count}\t{kv.Value.Payload}");
            return 0;
        }

        static readonly string[] FrameworkPrefixes = { "System.", "Microsoft.", "Interop." };

        // Method name without the signature, as users' scripts print it.
        static string Name(TraceCallStack cs, Dictionary<MethodIndex, string> cache)
        {
            var m = cs.CodeAddress.Method;
            if (m == null)
            {
                string mod = cs.CodeAddress.ModuleName;
                return string.IsNullOrEmpty(mod) ? "?" : mod + "!?";
            }
            if (cache.TryGetValue(m.MethodIndex, out var n)) return n;
            string full = m.FullMethodName ?? "?";
            int p = full.IndexOf('(');
            n = p > 0 ? full.Substring(0, p) : full;
            cache[m.MethodIndex] = n;
            return n;
        }

        static void Add(Dictionary<string, long[]> d, string k, long a, long b)
        {
            if (!d.TryGetValue(k, out var v)) d[k] = v = new long[2];
            v[0] += a; v[1] += b;
        }

        static void Top(string title, Dictionary<string, long[]> d, int col)
        {
            Console.WriteLine($"{title} ({d.Count} rows)");
            foreach (var kv in d.OrderByDescending(x => x.Value[col]).ThenBy(x => x.Key, StringComparer.Ordinal).Take(10))
                Console.WriteLine($"  {kv.Value[0],14} {kv.Value[1],14}  {kv.Key}");
        }

        static int TraceLogRun(string path, bool cpu)
        {
            string etlx = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(path)), $".bench-{Environment.ProcessId}.etlx");
            var names = new Dictionary<MethodIndex, string>();
            var byType = new Dictionary<string, long[]>(StringComparer.Ordinal);
            var byUser = new Dictionary<string, long[]>(StringComparer.Ordinal);
            var excl = new Dictionary<string, long[]>(StringComparer.Ordinal);
            var incl = new Dictionary<string, long[]>(StringComparer.Ordinal);
            long ticks = 0, bytes = 0, samples = 0;
            try
            {
                TraceLog.CreateFromEventPipeDataFile(path, etlx, new TraceLogOptions { ConversionLog = TextWriter.Null });
                using (var log = new TraceLog(etlx))
                {
                    var s = log.Events.GetSource();
                    if (!cpu)
                        s.Clr.GCAllocationTick += d =>
                        {
                            long amount = d.Version >= 2 ? d.AllocationAmount64 : d.AllocationAmount;
                            ticks++; bytes += amount;
                            Add(byType, d.TypeName ?? "", 1, amount);
                            string user = "[none]";
                            for (var c = d.CallStack(); c != null; c = c.Caller)
                            {
                                string n = Name(c, names);
                                if (n != "?" && !n.EndsWith("!?", StringComparison.Ordinal) &&
                                    !FrameworkPrefixes.Any(p => n.StartsWith(p, StringComparison.Ordinal))) { user = n; break; }
                            }
                            Add(byUser, user, 1, amount);
                        };
                    else
                    {
                        var sp = new SampleProfilerTraceEventParser(s);
                        var seen = new HashSet<string>(StringComparer.Ordinal);
                        sp.ThreadSample += d =>
                        {
                            samples++;
                            var cs = d.CallStack();
                            Add(excl, cs == null ? "?" : Name(cs, names), 1, 0);
                            seen.Clear();
                            for (var c = cs; c != null; c = c.Caller)
                            {
                                string n = Name(c, names);
                                if (seen.Add(n)) Add(incl, n, 1, 0);
                            }
                        };
                    }
                    s.Process();
                }
            }
            finally { try { File.Delete(etlx); } catch (IOException) { } }
            if (!cpu)
            {
                Console.WriteLine($"ticks {ticks}");
                Console.WriteLine($"sampled_bytes {bytes}");
                Top("by_type", byType, 1);
                Top("by_first_user_frame", byUser, 1);
            }
            else
            {
                Console.WriteLine($"samples {samples}");
                Top("exclusive", excl, 0);
                Top("inclusive", incl, 0);
            }
            return 0;
        }
    }
}
