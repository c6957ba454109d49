// dotnet-counters CSV / JSON exports: canonical per-series facts. This is a plain parser of the
// documented formats (there is no Microsoft reader for them); it exists so C tests have exact expectations.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;

namespace PerfpipeOracle
{
    public static class CountersOracle
    {
        sealed class Series { public string Provider, Name, Type; public long Count; public double Min = double.MaxValue, Max = double.MinValue, Sum, First, Last; }

        public static JObj Run(string path)
        {
            bool csv = path.EndsWith(".csv", StringComparison.OrdinalIgnoreCase);
            var series = new Dictionary<string, Series>(StringComparer.Ordinal);
            var stamps = new SortedSet<string>(StringComparer.Ordinal);
            long rows = 0;
            string target = null, start = null;
            void Add(string provider, string name, string type, double v, string ts)
            {
                rows++; stamps.Add(ts);
                string k = provider + "\t" + name + "\t" + type;
                if (!series.TryGetValue(k, out var s)) { series[k] = s = new Series { Provider = provider, Name = name, Type = type, First = v }; }
                s.Count++; s.Sum += v; s.Last = v; if (v < s.Min) s.Min = v; if (v > s.Max) s.Max = v;
            }
            if (csv)
            {
                var lines = File.ReadAllLines(path);
                if (lines.Length == 0 || lines[0].TrimEnd('\r') != "Timestamp,Provider,Counter Name,Counter Type,Mean/Increment")
                    throw new InvalidDataException("not a dotnet-counters CSV header");
                foreach (var raw in lines.Skip(1))
                {
                    string l = raw.TrimEnd('\r');
                    if (l.Length == 0) continue;
                    // Timestamp,Provider,Name[tags],Type,Value  -- name may contain ',' only inside (...)? tags use ';'.
                    int c1 = l.IndexOf(','), c2 = l.IndexOf(',', c1 + 1), cl = l.LastIndexOf(','), cp = l.LastIndexOf(',', cl - 1);
                    Add(l.Substring(c1 + 1, c2 - c1 - 1), l.Substring(c2 + 1, cp - c2 - 1), l.Substring(cp + 1, cl - cp - 1),
                        double.Parse(l.Substring(cl + 1), CultureInfo.InvariantCulture), l.Substring(0, c1));
                }
            }
            else
            {
                using var doc = JsonDocument.Parse(File.ReadAllText(path));
                var r = doc.RootElement;
                target = r.GetProperty("TargetProcess").GetString();
                start = r.GetProperty("StartTime").GetString();
                foreach (var e in r.GetProperty("Events").EnumerateArray())
                {
                    string name = e.GetProperty("name").GetString(), tags = e.GetProperty("tags").GetString();
                    if (!string.IsNullOrEmpty(tags)) name += "[" + tags.Replace(',', ';') + "]";
                    Add(e.GetProperty("provider").GetString(), name, e.GetProperty("counterType").GetString(),
                        e.GetProperty("value").GetDouble(), e.GetProperty("timestamp").GetString());
                }
            }
            var doc2 = Program.Header(path, csv ? "counters-csv" : "counters-json", "perfpipe test-bed counters parser", "1");
            if (!csv) doc2.Add("target_process", target).Add("start_time", start);
            doc2.Add("rows", rows).Add("distinct_timestamps", (long)stamps.Count).Add("series_count", (long)series.Count);
            doc2.Add("series", series.Values.OrderBy(s => s.Provider, StringComparer.Ordinal).ThenBy(s => s.Name, StringComparer.Ordinal).ThenBy(s => s.Type, StringComparer.Ordinal)
                .Select(s => (object)new JObj().Add("provider", s.Provider).Add("name", s.Name).Add("type", s.Type).Add("count", s.Count)
                    .Add("first", s.First).Add("last", s.Last).Add("min", s.Min).Add("max", s.Max).Add("sum", s.Sum)).ToList());
            return doc2;
        }
    }
}
