// web: ASP.NET Core minimal API on 127.0.0.1 (free port), driven by a bounded in-process load generator.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Net.Http;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Workload
{
    public static class WebScenario
    {
        public static async Task Run(Args a, JsonObject truth)
        {
            int requests = a.Int("requests", 200);
            int concurrency = a.Int("concurrency", 4);
            int warmup = a.Int("warmup", 0);               // per endpoint, before anything is recorded
            string spansPath = a.Str("spans", null);       // OTLP/JSON span export written at exit
            if (concurrency < 1) throw new ArgumentException("--concurrency must be >= 1");
            string dbPath = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"perfpipe-web-{Environment.ProcessId}.sqlite");
            Endpoints.ConnectionString = "Data Source=" + dbPath + ";Pooling=False";
            Endpoints.Counter = new CommandCounter();
            DbScenario.Seed(Endpoints.ConnectionString, Endpoints.Counter, 5, 5);
            Endpoints.Counter.Phase = "requests";
            var builder = WebApplication.CreateSlimBuilder();
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            var app = builder.Build();
            string[] paths = { "/alloc", "/cpu", "/db" };
            bool recording = warmup == 0;
            var hits = new Dictionary<string, long> { ["/alloc"] = 0, ["/cpu"] = 0, ["/db"] = 0 };
            // server-side ground truth per endpoint: requests, handler time (middleware Stopwatch), DB time
            var stat = paths.ToDictionary(p => p, p => new double[4]);   // requests, total_ms, db_ms, db_commands
            app.Use(async (ctx, next) =>
            {
                var rt = new RequestTiming();
                RequestTiming.Current.Value = rt;
                long t0 = Stopwatch.GetTimestamp();
                await next(ctx);
                long t1 = Stopwatch.GetTimestamp();
                string path = ctx.Request.Path.Value ?? "";
                // OpenTelemetry HTTP server semantic conventions on the hosting Activity (the server span)
                var act = Activity.Current;
                if (act != null && act.Source.Name == SpanExport.AspNetCoreSource)
                {
                    string route = (ctx.GetEndpoint() as Microsoft.AspNetCore.Routing.RouteEndpoint)?.RoutePattern.RawText;
                    act.SetTag("http.request.method", ctx.Request.Method);
                    act.SetTag("url.scheme", ctx.Request.Scheme);
                    act.SetTag("url.path", path);
                    if (route != null) { act.SetTag("http.route", route); act.DisplayName = ctx.Request.Method + " " + route; }
                    act.SetTag("http.response.status_code", ctx.Response.StatusCode.ToString(System.Globalization.CultureInfo.InvariantCulture));
                }
                if (Volatile.Read(ref recording) && stat.TryGetValue(path, out var st))
                    lock (stat) { st[0]++; st[1] += (t1 - t0) * 1000.0 / Stopwatch.Frequency; st[2] += rt.DbTicks * 1000.0 / Stopwatch.Frequency; st[3] += rt.DbCommands; }
            });
            app.MapGet("/alloc", () => { if (Volatile.Read(ref recording)) lock (hits) hits["/alloc"]++; return Results.Text(Endpoints.Alloc().ToString()); });
            app.MapGet("/cpu", () => { if (Volatile.Read(ref recording)) lock (hits) hits["/cpu"]++; return Results.Text(Endpoints.Cpu().ToString()); });
            app.MapGet("/db", () => { if (Volatile.Read(ref recording)) lock (hits) hits["/db"]++; return Results.Text(Endpoints.Db().ToString()); });
            await app.StartAsync();
            string url = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>().Addresses.First();
            using var http = new HttpClient { BaseAddress = new Uri(url), Timeout = TimeSpan.FromSeconds(10) };
            int warmupFailed = 0;
            for (int i = 0; i < warmup * paths.Length; i++)
            {
                try { var r = await http.GetAsync(paths[i % paths.Length]); if (!r.IsSuccessStatusCode) warmupFailed++; }
                catch (Exception) { warmupFailed++; }
            }
            SpanExport spans = spansPath != null ? new SpanExport() : null;   // listening starts after the warm-up
            Volatile.Write(ref recording, true);
            var sent = new long[paths.Length];
            var sw = Stopwatch.StartNew();
            int next = -1, ok = 0, failed = 0;
            var workers = Enumerable.Range(0, concurrency).Select(_ => Task.Run(async () =>
            {
                int i;
                while ((i = Interlocked.Increment(ref next)) < requests)
                {
                    Interlocked.Increment(ref sent[i % paths.Length]);
                    try { var r = await http.GetAsync(paths[i % paths.Length]); if (r.IsSuccessStatusCode) Interlocked.Increment(ref ok); else Interlocked.Increment(ref failed); }
                    catch (Exception) { Interlocked.Increment(ref failed); }
                }
            })).ToArray();
            await Task.WhenAll(workers);
            sw.Stop();
            await app.StopAsync();
            Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
            try { System.IO.File.Delete(dbPath); } catch (System.IO.IOException) { }
            var cmds = new JsonArray();
            foreach (var t in Endpoints.Counter.Order) cmds.Add(Endpoints.Counter.ByText[t].DeepClone());
            truth["db_commands"] = cmds;
            truth["url"] = url;
            truth["requests"] = requests;
            truth["ok"] = ok;
            truth["failed"] = failed;
            truth["warmup_requests"] = warmup * paths.Length;
            truth["warmup_failed"] = warmupFailed;
            truth["elapsed_ms"] = sw.Elapsed.TotalMilliseconds;
            var h = new JsonObject(); foreach (var kv in hits) h[kv.Key] = kv.Value;
            truth["hits"] = h;
            truth["endpoint_methods"] = new JsonObject { ["/alloc"] = "Workload.Endpoints.Alloc", ["/cpu"] = "Workload.Endpoints.Cpu", ["/db"] = "Workload.Endpoints.Db" };
            var ep = new JsonObject();
            for (int k = 0; k < paths.Length; k++)
            {
                var st = stat[paths[k]];
                ep[paths[k]] = new JsonObject
                {
                    ["operation"] = "GET " + paths[k],
                    ["requests_sent"] = sent[k],
                    ["server_requests"] = (long)st[0],
                    ["total_ms"] = st[1],
                    ["db_ms"] = st[2],
                    ["db_commands"] = (long)st[3],
                    ["in_proc_share"] = st[1] > 0 ? 1.0 - st[2] / st[1] : 0.0,
                };
            }
            truth["endpoints"] = ep;
            truth["endpoints_note"] = "requests_sent counted by the load generator; total_ms = middleware Stopwatch around the rest of the pipeline; db_ms = Stopwatch from ...Executing to ...Executed of each DB command (DbSpanInterceptor), summed per request; in_proc_share = 1 - db_ms/total_ms. Warm-up requests are in none of these.";
            if (spans != null)
            {
                spans.Dispose();
                var (n, server, client) = spans.Write(spansPath, "workload-web");
                var seen = new JsonArray(); foreach (var s in spans.SourcesSeen) seen.Add(s);
                truth["spans"] = new JsonObject
                {
                    ["file"] = System.IO.Path.GetFileName(spansPath),
                    ["format"] = "OTLP/JSON resourceSpans (ActivityListener in the app)",
                    ["service_name"] = "workload-web",
                    ["spans"] = n,
                    ["server_spans"] = server,
                    ["client_spans"] = client,
                    ["sources_recorded"] = new JsonArray { SpanExport.AspNetCoreSource, SpanExport.DbSourceName },
                    ["activity_sources_seen"] = seen,
                };
            }
        }
    }

    /// The web scenario's EF context: BlogContext's model, plus the span/DB-time interceptor.
    public sealed class WebBlogContext : Microsoft.EntityFrameworkCore.DbContext
    {
        private readonly string _cs; private readonly CommandCounter _counter;
        public WebBlogContext(string cs, CommandCounter counter) { _cs = cs; _counter = counter; }
        public Microsoft.EntityFrameworkCore.DbSet<Blog> Blogs { get; set; }
        public Microsoft.EntityFrameworkCore.DbSet<Post> Posts { get; set; }
        protected override void OnConfiguring(Microsoft.EntityFrameworkCore.DbContextOptionsBuilder o) =>
            Microsoft.EntityFrameworkCore.SqliteDbContextOptionsBuilderExtensions.UseSqlite(o, _cs).AddInterceptors(_counter, DbSpanInterceptor.Instance);
    }

    public static class Endpoints
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Alloc() { int n = 0; for (int i = 0; i < 1000; i++) { var s = new string('w', 200); Sink.Keep(s); n += s.Length; } return n; }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Cpu() { return CpuScenario.HotA(Stopwatch.Frequency / 500); }
        public static string ConnectionString;
        public static CommandCounter Counter;
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Db()
        {
            using var ctx = new WebBlogContext(ConnectionString, Counter);
            return Microsoft.EntityFrameworkCore.EntityFrameworkQueryableExtensions.AsNoTracking(ctx.Posts).Count(p => p.BlogId == 1);
        }
    }
}
