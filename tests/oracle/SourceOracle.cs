// Source lines by TraceEvent's own lookup (issue #42), the reference the `source` column of
// perfpipe's cpu and alloc is checked against:
//   Oracle --sources SYMDIR[:SYMDIR...] --module NAME FILE.nettrace
// For every CPU sample and allocation tick, the first frame from the leaf in module NAME (the
// application frame a row of perfpipe names), and TraceEvent's TraceCodeAddress.GetSourceLine
// for that frame's address with a SymbolReader on SYMDIR (the PDBs). Output: per event kind,
// method and role, the weight (samples; allocated bytes) of each file:line, and how many frames
// had none. Role: "leaf" (the sampled instruction) or "caller" (a return address: TraceEvent
// looks up the instruction after the call, which may be the next statement's line; perfpipe
// looks up the call itself).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Microsoft.Diagnostics.Symbols;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Etlx;
using Microsoft.Diagnostics.Tracing.Parsers;
using Microsoft.Diagnostics.Tracing.EventPipe;

namespace PerfpipeOracle
{
    public static class SourceOracle
    {
        sealed class Lines
        {
            public readonly SortedDictionary<string, SortedDictionary<string, long>> ByMethod =
                new SortedDictionary<string, SortedDictionary<string, long>>(StringComparer.Ordinal);
            public readonly SortedDictionary<string, SortedDictionary<string, long>> ByMethodCaller =
                new SortedDictionary<string, SortedDictionary<string, long>>(StringComparer.Ordinal);
            public long Frames, WithLine;
            public void Add(string method, bool caller, string line, long weight)
            {
                Frames++;
                if (line == null) { line = "[no line]"; } else WithLine++;
                var by = caller ? ByMethodCaller : ByMethod;
                if (!by.TryGetValue(method, out var d)) by[method] = d = new SortedDictionary<string, long>(StringComparer.Ordinal);
                d.TryGetValue(line, out long w);
                d[line] = w + weight;
            }
            static JObj Ranked(SortedDictionary<string, SortedDictionary<string, long>> by, string method)
            {
                var l = new JObj();
                if (by.TryGetValue(method, out var d))
                    foreach (var x in d.OrderByDescending(x => x.Value).ThenBy(x => x.Key, StringComparer.Ordinal)) l.Add(x.Key, x.Value);
                return l;
            }
            public JObj ToJson()
            {
                var m = new JObj();
                foreach (var method in ByMethod.Keys.Union(ByMethodCaller.Keys).OrderBy(x => x, StringComparer.Ordinal))
                    m.Add(method, new JObj().Add("leaf", Ranked(ByMethod, method)).Add("caller", Ranked(ByMethodCaller, method)));
                return new JObj().Add("frames", Frames).Add("frames_with_line", WithLine).Add("methods", m);
            }
        }

        public static JObj Run(string path, string symPath, string module)
        {
            var cpu = new Lines();
            var alloc = new Lines();
            var log = new StringWriter();
            var cache = new Dictionary<long, string>();
            string etlx = Path.Combine(Path.GetTempPath(), $"pp-oracle-src-{Environment.ProcessId}-{Guid.NewGuid():N}.etlx");
            try
            {
                TraceLog.CreateFromEventPipeDataFile(path, etlx, new TraceLogOptions { ConversionLog = TextWriter.Null });
                using (var tl = new TraceLog(etlx))
                using (var reader = new SymbolReader(log, symPath))
                {
                    reader.SecurityCheck = _ => true; // the fixture's own PDBs
                    string Line(TraceCallStack cs, out string method, out bool caller)
                    {
                        method = null;
                        caller = false;
                        for (var c = cs; c != null; c = c.Caller, caller = true)
                        {
                            var ca = c.CodeAddress;
                            if (!string.Equals(ca.ModuleName, module, StringComparison.OrdinalIgnoreCase)) continue;
                            string full = ca.FullMethodName ?? "?";
                            int paren = full.IndexOf('(');
                            method = paren >= 0 ? full.Substring(0, paren) : full;
                            long key = (long)ca.CodeAddressIndex;
                            if (cache.TryGetValue(key, out var hit)) return hit;
                            var sl = ca.GetSourceLine(reader);
                            string text = sl?.SourceFile == null ? null :
                                Path.GetFileName(sl.SourceFile.BuildTimeFilePath) + ":" + sl.LineNumber;
                            cache[key] = text;
                            return text;
                        }
                        return null;
                    }
                    var s = tl.Events.GetSource();
                    var sp = new SampleProfilerTraceEventParser(s);
                    sp.ThreadSample += d =>
                    {
                        string line = Line(d.CallStack(), out string m, out bool caller);
                        if (m != null) cpu.Add(m, caller, line, 1);
                    };
                    s.Clr.GCAllocationTick += d =>
                    {
                        long amount = d.Version >= 2 ? d.AllocationAmount64 : d.AllocationAmount;
                        string line = Line(d.CallStack(), out string m, out bool caller);
                        if (m != null) alloc.Add(m, caller, line, amount);
                    };
                    s.Process();
                }
            }
            finally { try { File.Delete(etlx); } catch (IOException) { } }
            var pdbLines = log.ToString().Split('\n').Where(l => l.Contains(".pdb", StringComparison.OrdinalIgnoreCase))
                              .Select(l => l.Trim()).Distinct().Take(20).ToList();
            return Program.Header(path, "nettrace-sources", "Microsoft.Diagnostics.Tracing.TraceEvent",
                                  Program.AsmVersion(typeof(TraceLog).Assembly))
                .Add("module", module)
                .Add("symbol_path_dirs", symPath.Split(Path.PathSeparator).Select(Path.GetFileName).ToList())
                .Add("cpu", cpu.ToJson())
                .Add("alloc", alloc.ToJson())
                .Add("symbol_reader_log", pdbLines);
        }
    }
}
