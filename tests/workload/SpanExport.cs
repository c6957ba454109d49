// Span recording for the web scenario (--spans PATH): a System.Diagnostics.ActivityListener keeps every
// finished Activity of the "Microsoft.AspNetCore" source (server spans, one per request) and of our own
// "Workload.Db" source (one client span per SQLite command, made by DbSpanInterceptor because EF Core
// emits DiagnosticSource events, not Activities), and writes them at exit as one OTLP/JSON document
// (resourceSpans/scopeSpans/spans; what the OpenTelemetry file exporter and the Aspire dashboard write).
using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Data.Common;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.EntityFrameworkCore.Diagnostics;

namespace Workload
{
    public sealed class SpanExport : IDisposable
    {
        public const string AspNetCoreSource = "Microsoft.AspNetCore";
        public const string DbSourceName = "Workload.Db";
        public static readonly ActivitySource DbSource = new ActivitySource(DbSourceName, "1.0.0");

        sealed class Rec
        {
            public string Scope, TraceId, SpanId, ParentSpanId, Name;
            public int Kind, StatusCode;
            public long StartNs, EndNs;
            public List<KeyValuePair<string, string>> Attrs;
        }

        readonly ActivityListener _listener;
        readonly ConcurrentQueue<Rec> _done = new ConcurrentQueue<Rec>();
        readonly SortedSet<string> _seen = new SortedSet<string>(StringComparer.Ordinal);

        /// Names of every ActivitySource that existed while listening (shows which libraries emit Activities).
        public IReadOnlyCollection<string> SourcesSeen { get { lock (_seen) return _seen.ToArray(); } }
        public int Count => _done.Count;

        public SpanExport()
        {
            _listener = new ActivityListener
            {
                ShouldListenTo = s => { lock (_seen) _seen.Add(s.Name); return s.Name == AspNetCoreSource || s.Name == DbSourceName; },
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = a => _done.Enqueue(Snapshot(a)),
            };
            ActivitySource.AddActivityListener(_listener);
        }

        static long UnixNs(DateTime utc) => (utc.Ticks - DateTime.UnixEpoch.Ticks) * 100L;

        static int OtlpKind(ActivityKind k) => k switch
        {
            ActivityKind.Internal => 1, ActivityKind.Server => 2, ActivityKind.Client => 3,
            ActivityKind.Producer => 4, ActivityKind.Consumer => 5, _ => 0,
        };

        static Rec Snapshot(Activity a)
        {
            var attrs = new List<KeyValuePair<string, string>>();
            foreach (var t in a.TagObjects)
                attrs.Add(new KeyValuePair<string, string>(t.Key, Convert.ToString(t.Value, CultureInfo.InvariantCulture) ?? ""));
            long start = UnixNs(a.StartTimeUtc);
            return new Rec
            {
                Scope = a.Source.Name,
                TraceId = a.TraceId.ToHexString(),
                SpanId = a.SpanId.ToHexString(),
                ParentSpanId = a.ParentSpanId == default ? null : a.ParentSpanId.ToHexString(),
                Name = a.DisplayName,
                Kind = OtlpKind(a.Kind),
                StatusCode = a.Status == ActivityStatusCode.Error ? 2 : a.Status == ActivityStatusCode.Ok ? 1 : 0,
                StartNs = start,
                EndNs = start + a.Duration.Ticks * 100L,
                Attrs = attrs,
            };
        }

        public void Dispose() => _listener.Dispose();

        /// Write everything recorded so far as one OTLP/JSON document; returns (spans, server spans, client spans).
        public (int spans, int server, int client) Write(string path, string serviceName)
        {
            var recs = _done.ToArray().OrderBy(r => r.StartNs).ThenBy(r => r.SpanId, StringComparer.Ordinal).ToList();
            using var fs = File.Create(path);
            using var w = new Utf8JsonWriter(fs, new JsonWriterOptions { Indented = true, Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping });
            w.WriteStartObject();
            w.WriteStartArray("resourceSpans");
            w.WriteStartObject();
            w.WriteStartObject("resource");
            w.WriteStartArray("attributes");
            Attr(w, "service.name", serviceName);
            Attr(w, "service.instance.id", Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
            Attr(w, "telemetry.sdk.name", "perfpipe-workload ActivityListener");
            Attr(w, "telemetry.sdk.language", "dotnet");
            w.WriteEndArray();
            w.WriteEndObject();
            w.WriteStartArray("scopeSpans");
            foreach (var g in recs.GroupBy(r => r.Scope).OrderBy(g => g.Key, StringComparer.Ordinal))
            {
                w.WriteStartObject();
                w.WriteStartObject("scope");
                w.WriteString("name", g.Key);
                w.WriteEndObject();
                w.WriteStartArray("spans");
                foreach (var r in g)
                {
                    w.WriteStartObject();
                    w.WriteString("traceId", r.TraceId);
                    w.WriteString("spanId", r.SpanId);
                    if (r.ParentSpanId != null) w.WriteString("parentSpanId", r.ParentSpanId);
                    w.WriteString("name", r.Name);
                    w.WriteNumber("kind", r.Kind);
                    w.WriteString("startTimeUnixNano", r.StartNs.ToString(CultureInfo.InvariantCulture));
                    w.WriteString("endTimeUnixNano", r.EndNs.ToString(CultureInfo.InvariantCulture));
                    w.WriteStartArray("attributes");
                    foreach (var kv in r.Attrs) Attr(w, kv.Key, kv.Value);
                    w.WriteEndArray();
                    if (r.StatusCode != 0)
                    {
                        w.WriteStartObject("status");
                        w.WriteNumber("code", r.StatusCode);
                        w.WriteEndObject();
                    }
                    w.WriteEndObject();
                }
                w.WriteEndArray();
                w.WriteEndObject();
            }
            w.WriteEndArray();
            w.WriteEndObject();
            w.WriteEndArray();
            w.WriteEndObject();
            w.Flush();
            fs.WriteByte((byte)'\n');
            return (recs.Count, recs.Count(r => r.Kind == 2), recs.Count(r => r.Kind == 3));
        }

        static void Attr(Utf8JsonWriter w, string key, string value)
        {
            w.WriteStartObject();
            w.WriteString("key", key);
            w.WriteStartObject("value");
            w.WriteString("stringValue", value);
            w.WriteEndObject();
            w.WriteEndObject();
        }
    }

    /// Per-request ground truth of the web scenario: set by a middleware, filled by DbSpanInterceptor.
    public sealed class RequestTiming
    {
        public static readonly AsyncLocal<RequestTiming> Current = new AsyncLocal<RequestTiming>();
        public long DbTicks;      // Stopwatch ticks spent inside DB commands (executing -> executed)
        public int DbCommands;
    }

    /// One "Workload.Db" client span per command (db.system=sqlite) and the per-request DB time.
    public sealed class DbSpanInterceptor : DbCommandInterceptor
    {
        public static readonly DbSpanInterceptor Instance = new DbSpanInterceptor();
        public string DbName = "main";
        readonly ConcurrentDictionary<Guid, (long t0, Activity act)> _open = new ConcurrentDictionary<Guid, (long, Activity)>();

        void Begin(DbCommand cmd, CommandEventData d)
        {
            string text = cmd.CommandText ?? "";
            string op = text.TrimStart().Split(new[] { ' ', '\n', '\r', '\t' }, 2)[0].ToUpperInvariant();
            Activity act = SpanExport.DbSource.StartActivity(op + " " + DbName, ActivityKind.Client);
            if (act != null)
            {
                act.SetTag("db.system", "sqlite");
                act.SetTag("db.name", DbName);
                act.SetTag("db.operation", op);
                act.SetTag("db.statement", text);
            }
            _open[d.CommandId] = (Stopwatch.GetTimestamp(), act);
        }

        void End(CommandEventData d)
        {
            long now = Stopwatch.GetTimestamp();
            if (!_open.TryRemove(d.CommandId, out var o)) return;
            o.act?.Stop();
            var rt = RequestTiming.Current.Value;
            if (rt != null) { Interlocked.Add(ref rt.DbTicks, now - o.t0); Interlocked.Increment(ref rt.DbCommands); }
        }

        public override InterceptionResult<DbDataReader> ReaderExecuting(DbCommand c, CommandEventData d, InterceptionResult<DbDataReader> r) { Begin(c, d); return r; }
        public override DbDataReader ReaderExecuted(DbCommand c, CommandExecutedEventData d, DbDataReader r) { End(d); return r; }
        public override ValueTask<InterceptionResult<DbDataReader>> ReaderExecutingAsync(DbCommand c, CommandEventData d, InterceptionResult<DbDataReader> r, CancellationToken t = default) { Begin(c, d); return new ValueTask<InterceptionResult<DbDataReader>>(r); }
        public override ValueTask<DbDataReader> ReaderExecutedAsync(DbCommand c, CommandExecutedEventData d, DbDataReader r, CancellationToken t = default) { End(d); return new ValueTask<DbDataReader>(r); }
        public override InterceptionResult<int> NonQueryExecuting(DbCommand c, CommandEventData d, InterceptionResult<int> r) { Begin(c, d); return r; }
        public override int NonQueryExecuted(DbCommand c, CommandExecutedEventData d, int r) { End(d); return r; }
        public override ValueTask<InterceptionResult<int>> NonQueryExecutingAsync(DbCommand c, CommandEventData d, InterceptionResult<int> r, CancellationToken t = default) { Begin(c, d); return new ValueTask<InterceptionResult<int>>(r); }
        public override ValueTask<int> NonQueryExecutedAsync(DbCommand c, CommandExecutedEventData d, int r, CancellationToken t = default) { End(d); return new ValueTask<int>(r); }
        public override InterceptionResult<object> ScalarExecuting(DbCommand c, CommandEventData d, InterceptionResult<object> r) { Begin(c, d); return r; }
        public override object ScalarExecuted(DbCommand c, CommandExecutedEventData d, object r) { End(d); return r; }
        public override ValueTask<InterceptionResult<object>> ScalarExecutingAsync(DbCommand c, CommandEventData d, InterceptionResult<object> r, CancellationToken t = default) { Begin(c, d); return new ValueTask<InterceptionResult<object>>(r); }
        public override ValueTask<object> ScalarExecutedAsync(DbCommand c, CommandExecutedEventData d, object r, CancellationToken t = default) { End(d); return new ValueTask<object>(r); }
        public override void CommandFailed(DbCommand c, CommandErrorEventData d) { if (_open.TryRemove(d.CommandId, out var o) && o.act != null) { o.act.SetStatus(ActivityStatusCode.Error); o.act.Stop(); } }
    }
}
