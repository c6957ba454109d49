// bench-traceevent: the TraceEvent 4.0.0 reference reader for bench/run-bench.sh.
// Does the counting `perfpipe inspect` does: every event of the file counted per
// (provider, event id, version) with its payload bytes, through EventPipeEventSource
// with the dynamic parser subscribed (Dynamic.All) and AllEvents doing the counting.
//   dotnet bench-traceevent.dll FILE.nettrace [--rows]
// Prints: total_events N / total_payload_bytes B / keys K / events_lost L (and one line per key with --rows).
using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Diagnostics.Tracing;

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
    }
}
