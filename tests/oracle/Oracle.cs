// perfpipe test-bed oracle: prints the canonical facts of a capture as deterministic JSON,
// read with Microsoft's own reader (TraceEvent; for .gcdump the GCHeapDump/MemoryGraph reader that
// ships inside the dotnet-gcdump tool). Schema: tests/README.md, "perfpipe-oracle/1".
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.Parsers.Clr;
using Microsoft.Diagnostics.Tracing.EventPipe;

namespace PerfpipeOracle
{
    public static class Program
    {
        public const string Schema = "perfpipe-oracle/1";

        public static int Main(string[] args)
        {
            string output = null, gcdumpTool = Environment.GetEnvironmentVariable("PP_GCDUMP_DLL");
            string sources = null, module = null;
            bool noTraceLog = false;
            var files = new List<string>();
            for (int i = 0; i < args.Length; i++)
            {
                if (args[i] == "-o") output = args[++i];
                else if (args[i] == "--gcdump-dll") gcdumpTool = args[++i];
                else if (args[i] == "--no-tracelog") noTraceLog = true;
                else if (args[i] == "--sources") sources = args[++i];
                else if (args[i] == "--module") module = args[++i];
                else files.Add(args[i]);
            }
            if (files.Count != 1 || (sources != null) != (module != null)) { Console.Error.WriteLine("usage: Oracle [-o OUT.json] [--no-tracelog] [--gcdump-dll PATH/dotnet-gcdump.dll] FILE.nettrace|FILE.gcdump|FILE.csv|FILE.json (dotnet-counters)\n       Oracle [-o OUT.json] --sources SYMDIR[:SYMDIR...] --module NAME FILE.nettrace (source lines, SourceOracle.cs)"); return 2; }
            string path = files[0];
            if (!File.Exists(path)) { Console.Error.WriteLine($"{path}: no such file"); return 2; }
            JObj doc;
            try
            {
                if (sources != null) doc = SourceOracle.Run(path, sources, module);
                else if (path.EndsWith(".gcdump", StringComparison.OrdinalIgnoreCase)) doc = GcDumpOracle.Run(path, gcdumpTool);
                else if (path.EndsWith(".csv", StringComparison.OrdinalIgnoreCase) || path.EndsWith(".json", StringComparison.OrdinalIgnoreCase)) doc = CountersOracle.Run(path);
                else doc = NettraceOracle.Run(path, !noTraceLog);
            }
            catch (Exception e) { Console.Error.WriteLine($"{path}: {e.GetType().Name}: {e.Message}"); if (Environment.GetEnvironmentVariable("PP_ORACLE_DEBUG") != null) Console.Error.WriteLine(e); return 1; }
            string json = JsonOut.Write(doc);
            if (output != null) File.WriteAllText(output, json); else Console.Write(json);
            return 0;
        }

        public static JObj Header(string path, string kind, string reader, string readerVersion) =>
            new JObj().Add("schema", Schema).Add("file", Path.GetFileName(path)).Add("kind", kind)
                      .Add("bytes", new FileInfo(path).Length)
                      .Add("reader", new JObj().Add("name", reader).Add("version", readerVersion));

        public static string AsmVersion(Assembly a) =>
            a.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion?.Split('+')[0] ?? a.GetName().Version.ToString();
    }

    /// Aggregation of counts and bytes under a string key; deterministic ordering.
    sealed class Tally
    {
        public readonly Dictionary<string, long[]> D = new Dictionary<string, long[]>(StringComparer.Ordinal);
        public void Add(string k, long count, long bytes)
        {
            if (!D.TryGetValue(k, out var v)) D[k] = v = new long[2];
            v[0] += count; v[1] += bytes;
        }
        // ordered by count desc, then key (ordinal)
        public IEnumerable<KeyValuePair<string, long[]>> Ranked() =>
            D.OrderByDescending(kv => kv.Value[0]).ThenBy(kv => kv.Key, StringComparer.Ordinal);
    }

    sealed class EventKey : IComparable<EventKey>
    {
        public string Provider; public int Id; public int Version;
        public long Count, PayloadBytes;
        public SortedSet<string> Names = new SortedSet<string>(StringComparer.Ordinal);
        public SortedSet<string> TaskOpcode = new SortedSet<string>(StringComparer.Ordinal);
        public SortedSet<string> Decoded = new SortedSet<string>(StringComparer.Ordinal);
        public int CompareTo(EventKey o)
        {
            int c = string.CompareOrdinal(Provider, o.Provider);
            if (c != 0) return c;
            c = Id.CompareTo(o.Id);
            return c != 0 ? c : Version.CompareTo(o.Version);
        }
    }

    sealed class EventCounter
    {
        readonly Dictionary<(string, int, int), EventKey> _d = new Dictionary<(string, int, int), EventKey>();
        public long Total, TotalPayload;
        public const string ClrProvider = "Microsoft-Windows-DotNETRuntime";
        public const int GCDynamicEventId = 39;
        public void Add(TraceEvent e)
        {
            string provider = e.ProviderName ?? "", name = e.EventName ?? "", decoded = null;
            int id = (int)e.ID;
            // TraceEvent's GCDynamicTraceEventParser re-dispatches the runtime's GCDynamicEvent (id 39) as
            // first-class events (GC/CommittedUsage, GC/HeapCountTuning, ...) with synthesized ids >= 0xFF00.
            // Undo that so the key is what the file holds: (Microsoft-Windows-DotNETRuntime, 39, version).
            if (provider == ClrProvider && id >= 0xFF00) { decoded = name; id = GCDynamicEventId; name = "GC/DynamicEvent"; }
            var k = (provider, id, (int)e.Version);
            if (!_d.TryGetValue(k, out var ek)) _d[k] = ek = new EventKey { Provider = k.Item1, Id = k.Item2, Version = k.Item3 };
            ek.Count++; ek.PayloadBytes += e.EventDataLength;
            ek.Names.Add(name);
            if (decoded != null) ek.Decoded.Add(decoded);
            ek.TaskOpcode.Add(decoded != null ? "GC/DynamicEvent" : (e.TaskName ?? "") + "/" + (e.OpcodeName ?? ""));
            Total++; TotalPayload += e.EventDataLength;
        }
        public JObj ToJson(bool withPayload)
        {
            var rows = new List<object>();
            var providers = new SortedDictionary<string, long[]>(StringComparer.Ordinal);
            foreach (var ek in _d.Values.OrderBy(x => x))
            {
                var r = new JObj().Add("provider", ek.Provider).Add("event_id", ek.Id).Add("version", ek.Version)
                    .Add("name", string.Join("|", ek.Names)).Add("task_opcode", string.Join("|", ek.TaskOpcode))
                    .Add("decoded_as", ek.Decoded.ToList())
                    .Add("count", ek.Count);
                if (withPayload) r.Add("payload_bytes", ek.PayloadBytes);
                rows.Add(r);
                if (!providers.TryGetValue(ek.Provider, out var p)) providers[ek.Provider] = p = new long[2];
                p[0] += ek.Count; p[1] += ek.PayloadBytes;
            }
            var o = new JObj().Add("total_events", Total);
            if (withPayload) o.Add("total_payload_bytes", TotalPayload);
            o.Add("by_provider", providers.Select(kv =>
            {
                var j = new JObj().Add("provider", kv.Key).Add("count", kv.Value[0]);
                if (withPayload) j.Add("payload_bytes", kv.Value[1]);
                return (object)j;
            }).ToList());
            o.Add("events", rows);
            return o;
        }
    }

    public static class NettraceOracle
    {
        static readonly string[] FrameworkPrefixes = { "System.", "Microsoft.", "Interop." };

        public static JObj Run(string path, bool withTraceLog)
        {
            var doc = Program.Header(path, "nettrace", "Microsoft.Diagnostics.Tracing.TraceEvent", Program.AsmVersion(typeof(TraceEvent).Assembly));
            var raw = new EventCounter();
            var allocType = new Tally(); var allocKind = new Tally();
            long ticks = 0, tickBytes = 0;
            var sampleTypes = new SortedDictionary<string, long>(StringComparer.Ordinal);
            long samples = 0;
            var ds = new DiagSourceAnalysis();
            var trace = new JObj();

            using (var src = new EventPipeEventSource(path))
            {
                src.Clr.All += _ => { };
                new ClrRundownTraceEventParser(src).All += _ => { };
                new ClrPrivateTraceEventParser(src).All += _ => { };
                var sp = new SampleProfilerTraceEventParser(src);
                sp.All += _ => { };
                src.Dynamic.All += _ => { };
                src.AllEvents += raw.Add;
                src.Clr.GCAllocationTick += d =>
                {
                    long amount = d.Version >= 2 ? d.AllocationAmount64 : d.AllocationAmount;
                    ticks++; tickBytes += amount;
                    allocType.Add(d.TypeName ?? "", 1, amount);
                    allocKind.Add(d.AllocationKind.ToString(), 1, amount);
                };
                sp.ThreadSample += d =>
                {
                    samples++;
                    string t = SampleTypeName((int)d.Type);
                    sampleTypes[t] = sampleTypes.TryGetValue(t, out var n) ? n + 1 : 1;
                };
                src.AllEvents += ds.OnEvent;
                src.Process();
                trace.Add("pointer_size", src.PointerSize)
                     .Add("number_of_processors", src.NumberOfProcessors).Add("events_lost", src.EventsLost)
                     ;
            }
            doc.Add("trace", trace);
            doc.Add("raw", raw.ToJson(true));

            // --- TraceLog (ETLX) pass: post-TraceLog counts and stack-resolved frames ---
            var tl = new EventCounter();
            var allocFrame = new Tally(); var allocFrameFull = new Tally(); var allocUser = new Tally(); var allocTypeFrame = new Tally();
            var leaf = new Dictionary<string, long[]>(StringComparer.Ordinal);     // method -> [external, managed, error, total]
            var incl = new Dictionary<string, long[]>(StringComparer.Ordinal);
            var leafFull = new Dictionary<string, string>(StringComparer.Ordinal);
            long tlSamples = 0, tlTicks = 0, maxDepth = 0, depth100 = 0;
            bool tlOk = false; string tlError = null;
            if (withTraceLog)
            {
                string etlx = Path.Combine(Path.GetTempPath(), $"pp-oracle-{Environment.ProcessId}-{Guid.NewGuid():N}.etlx");
                try
                {
                    TraceLog.CreateFromEventPipeDataFile(path, etlx, new TraceLogOptions { ConversionLog = TextWriter.Null });
                    using (var log = new TraceLog(etlx))
                    {
                        var s = log.Events.GetSource();
                        s.Clr.All += _ => { };
                        new ClrRundownTraceEventParser(s).All += _ => { };
                        new ClrPrivateTraceEventParser(s).All += _ => { };
                        var sp = new SampleProfilerTraceEventParser(s);
                        sp.All += _ => { };
                        s.Dynamic.All += _ => { };
                        s.AllEvents += tl.Add;
                        s.Clr.GCAllocationTick += d =>
                        {
                            long amount = d.Version >= 2 ? d.AllocationAmount64 : d.AllocationAmount;
                            tlTicks++;
                            var cs = d.CallStack();
                            var (shortName, full) = FrameName(cs);
                            allocFrame.Add(shortName, 1, amount);
                            allocFrameFull.Add(full, 1, amount);
                            allocTypeFrame.Add((d.TypeName ?? "") + "\t" + shortName, 1, amount);
                            string user = "[none]";
                            for (var c = cs; c != null; c = c.Caller)
                            {
                                var (n, _) = FrameName(c);
                                if (!FrameworkPrefixes.Any(p => n.StartsWith(p, StringComparison.Ordinal)) && n != "?" && !n.EndsWith("!?", StringComparison.Ordinal)) { user = n; break; }
                            }
                            allocUser.Add(user, 1, amount);
                        };
                        sp.ThreadSample += d =>
                        {
                            tlSamples++;
                            int ty = (int)d.Type;
                            int col = ty == 1 ? 0 : ty == 2 ? 1 : 2;
                            var cs = d.CallStack();
                            var (shortName, full) = FrameName(cs);
                            Bump(leaf, shortName, col);
                            if (!leafFull.ContainsKey(shortName)) leafFull[shortName] = full;
                            var seen = new HashSet<string>(StringComparer.Ordinal);
                            long depth = 0;
                            for (var c = cs; c != null; c = c.Caller)
                            {
                                depth++;
                                var (n, _) = FrameName(c);
                                if (seen.Add(n)) Bump(incl, n, col);
                            }
                            if (cs == null) Bump(incl, "?", col);
                            if (depth > maxDepth) maxDepth = depth;
                            if (depth >= 100) depth100++;
                        };
                        s.Process();
                    }
                    tlOk = true;
                }
                catch (Exception e) { tlError = e.GetType().Name + ": " + e.Message; }
                finally { try { File.Delete(etlx); } catch (IOException) { } }
            }
            var tlj = tlOk ? tl.ToJson(false) : new JObj();
            tlj.Items.Insert(0, new KeyValuePair<string, object>("ok", tlOk));
            if (!withTraceLog) tlj.Add("error", "disabled (--no-tracelog)");
            else if (!tlOk) tlj.Add("error", tlError);
            doc.Add("tracelog", tlj);

            // --- allocation ticks ---
            var alloc = new JObj().Add("ticks", ticks).Add("sampled_bytes", tickBytes)
                .Add("by_type", Rows(allocType, "type"))
                .Add("by_kind", Rows(allocKind, "kind"));
            if (tlOk)
            {
                alloc.Add("stack_ticks", tlTicks)
                     .Add("by_top_frame", Rows(allocFrame, "frame"))
                     .Add("by_top_frame_full", Rows(allocFrameFull, "frame"))
                     .Add("by_first_user_frame", Rows(allocUser, "frame"))
                     .Add("by_type_top_frame", allocTypeFrame.Ranked().Select(kv =>
                     {
                         var parts = kv.Key.Split('\t');
                         return (object)new JObj().Add("type", parts[0]).Add("frame", parts[1]).Add("ticks", kv.Value[0]).Add("bytes", kv.Value[1]);
                     }).ToList());
            }
            doc.Add("alloc", alloc);

            // --- thread samples ---
            var sj = new JObj().Add("total", samples)
                .Add("by_type", new JObj().Add("Error", Get(sampleTypes, "Error")).Add("External", Get(sampleTypes, "External")).Add("Managed", Get(sampleTypes, "Managed")));
            if (tlOk)
            {
                sj.Add("stack_samples", tlSamples).Add("max_stack_depth", maxDepth).Add("stacks_at_100_frames", depth100)
                  .Add("leaf", SampleRows(leaf, leafFull)).Add("inclusive", SampleRows(incl, null));
            }
            doc.Add("samples", sj);
            doc.Add("diagnostic_source", ds.ToJson());
            doc.Add("gc", GcOracle.Run(path));
            return doc;
        }

        static int RawPid(TraceEventSource s)
        {
            try { var p = s.GetType().GetProperty("ProcessId") ?? s.GetType().GetProperty("ProcessID"); return p == null ? -1 : Convert.ToInt32(p.GetValue(s), CultureInfo.InvariantCulture); }
            catch (Exception) { return -1; }
        }

        static long Get(SortedDictionary<string, long> d, string k) => d.TryGetValue(k, out var v) ? v : 0;

        public static string SampleTypeName(int t) => t == 1 ? "External" : t == 2 ? "Managed" : "Error";

        static void Bump(Dictionary<string, long[]> d, string k, int col)
        {
            if (!d.TryGetValue(k, out var v)) d[k] = v = new long[4];
            v[col]++; v[3]++;
        }

        static List<object> SampleRows(Dictionary<string, long[]> d, Dictionary<string, string> full) =>
            d.OrderByDescending(kv => kv.Value[3]).ThenBy(kv => kv.Key, StringComparer.Ordinal).Select(kv =>
            {
                var o = new JObj().Add("method", kv.Key);
                if (full != null) o.Add("method_full", full[kv.Key]);
                return (object)o.Add("total", kv.Value[3]).Add("external", kv.Value[0]).Add("managed", kv.Value[1]).Add("error", kv.Value[2]);
            }).ToList();

        static List<object> Rows(Tally t, string keyName) =>
            t.Ranked().Select(kv => (object)new JObj().Add(keyName, kv.Key).Add("ticks", kv.Value[0]).Add("bytes", kv.Value[1])).ToList();

        /// Frame naming: full = TraceEvent's TraceMethod.FullMethodName (may carry a "(signature)");
        /// short = full cut at the first '(' . Unresolved: "MODULE!?" when the module is known, else "?".
        public static (string, string) FrameName(TraceCallStack cs)
        {
            if (cs == null) return ("?", "?");
            var ca = cs.CodeAddress;
            var m = ca.Method;
            if (m == null)
            {
                string mod = ca.ModuleName;
                string n = string.IsNullOrEmpty(mod) ? "?" : mod + "!?";
                return (n, n);
            }
            string full = m.FullMethodName ?? "?";
            int p = full.IndexOf('(');
            return (p > 0 ? full.Substring(0, p) : full, full);
        }
    }

    /// DiagnosticSource (Microsoft-Diagnostics-DiagnosticSource) events; EF Core command start/stop pairing.
    sealed class DiagSourceAnalysis
    {
        const string Provider = "Microsoft-Diagnostics-DiagnosticSource";
        readonly Tally _events = new Tally();
        sealed class Cmd { public long Starts, Stops, Sync, Async, DurationTicks, ElapsedNs; }
        readonly Dictionary<string, Cmd> _cmds = new Dictionary<string, Cmd>(StringComparer.Ordinal);
        readonly Dictionary<Guid, (string text, double ms)> _open = new Dictionary<Guid, (string, double)>();
        long _starts, _stops, _unmatchedStops, _durTicks, _elapsedNs, _errors;

        public void OnEvent(TraceEvent e)
        {
            if (e.ProviderName != Provider) return;
            string source = Str(e, "SourceName"), name = Str(e, "EventName");
            _events.Add((e.EventName ?? "") + "\t" + (source ?? "") + "\t" + (name ?? ""), 1, e.EventDataLength);
            if (source != "Microsoft.EntityFrameworkCore" || name == null) return;
            var args = Args(e);
            if (name.EndsWith(".CommandExecuting", StringComparison.Ordinal))
            {
                string text = args.TryGetValue("CommandText", out var t) ? t : "";
                var c = GetCmd(text);
                c.Starts++; _starts++;
                if (args.TryGetValue("IsAsync", out var a) && a == "True") c.Async++; else c.Sync++;
                _open[e.ActivityID] = (text, e.TimeStampRelativeMSec);
            }
            else if (name.EndsWith(".CommandExecuted", StringComparison.Ordinal) || name.EndsWith(".CommandError", StringComparison.Ordinal))
            {
                _stops++;
                if (name.EndsWith(".CommandError", StringComparison.Ordinal)) _errors++;
                long dur = args.TryGetValue("Duration", out var ds) && TimeSpan.TryParse(ds, CultureInfo.InvariantCulture, out var ts) ? ts.Ticks : 0;
                _durTicks += dur;
                if (e.ActivityID != Guid.Empty && _open.Remove(e.ActivityID, out var st))
                {
                    long ns = (long)Math.Round((e.TimeStampRelativeMSec - st.ms) * 1e6);
                    var c = GetCmd(st.text);
                    c.Stops++; c.DurationTicks += dur; c.ElapsedNs += ns; _elapsedNs += ns;
                }
                else _unmatchedStops++;
            }
        }

        Cmd GetCmd(string t) { if (!_cmds.TryGetValue(t, out var c)) _cmds[t] = c = new Cmd(); return c; }

        static string Str(TraceEvent e, string f)
        {
            try { return e.PayloadByName(f) as string; } catch (Exception) { return null; }
        }

        static Dictionary<string, string> Args(TraceEvent e)
        {
            var d = new Dictionary<string, string>(StringComparer.Ordinal);
            object a;
            try { a = e.PayloadByName("Arguments"); } catch (Exception) { return d; }
            if (a is System.Collections.IEnumerable list)
                foreach (var item in list)
                    if (item is IDictionary<string, object> kv && kv.TryGetValue("Key", out var k) && k != null)
                        d[k.ToString()] = kv.TryGetValue("Value", out var v) ? v?.ToString() : null;
            return d;
        }

        public JObj ToJson()
        {
            var ev = _events.D.OrderBy(kv => kv.Key, StringComparer.Ordinal).Select(kv =>
            {
                var p = kv.Key.Split('\t');
                return (object)new JObj().Add("event", p[0]).Add("source", p[1]).Add("name", p[2]).Add("count", kv.Value[0]).Add("payload_bytes", kv.Value[1]);
            }).ToList();
            var cmds = _cmds.OrderByDescending(kv => kv.Value.Starts).ThenBy(kv => kv.Key, StringComparer.Ordinal).Select(kv =>
                (object)new JObj().Add("command_text", kv.Key).Add("starts", kv.Value.Starts).Add("stops", kv.Value.Stops)
                    .Add("sync", kv.Value.Sync).Add("async", kv.Value.Async)
                    .Add("duration_ns", kv.Value.DurationTicks * 100).Add("elapsed_ns", kv.Value.ElapsedNs)).ToList();
            return new JObj().Add("events", ev).Add("ef", new JObj()
                .Add("starts", _starts).Add("stops", _stops).Add("errors", _errors)
                .Add("unmatched_starts", (long)_open.Count).Add("unmatched_stops", _unmatchedStops)
                .Add("distinct_commands", (long)_cmds.Count)
                .Add("duration_ns", _durTicks * 100).Add("elapsed_ns", _elapsedNs)
                .Add("commands", cmds));
        }
    }
}
