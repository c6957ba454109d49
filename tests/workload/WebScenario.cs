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
            string dbPath = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"perfpipe-web-{Environment.ProcessId}.sqlite");
            Endpoints.ConnectionString = "Data Source=" + dbPath + ";Pooling=False";
            Endpoints.Counter = new CommandCounter();
            DbScenario.Seed(Endpoints.ConnectionString, Endpoints.Counter, 5, 5);
            Endpoints.Counter.Phase = "requests";
            var builder = WebApplication.CreateSlimBuilder();
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            var app = builder.Build();
            var hits = new Dictionary<string, long> { ["/alloc"] = 0, ["/cpu"] = 0, ["/db"] = 0 };
            app.MapGet("/alloc", () => { lock (hits) hits["/alloc"]++; return Results.Text(Endpoints.Alloc().ToString()); });
            app.MapGet("/cpu", () => { lock (hits) hits["/cpu"]++; return Results.Text(Endpoints.Cpu().ToString()); });
            app.MapGet("/db", () => { lock (hits) hits["/db"]++; return Results.Text(Endpoints.Db().ToString()); });
            await app.StartAsync();
            string url = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>().Addresses.First();
            var sw = Stopwatch.StartNew();
            using var http = new HttpClient { BaseAddress = new Uri(url), Timeout = TimeSpan.FromSeconds(10) };
            string[] paths = { "/alloc", "/cpu", "/db" };
            int next = -1, ok = 0, failed = 0;
            var workers = Enumerable.Range(0, concurrency).Select(_ => Task.Run(async () =>
            {
                int i;
                while ((i = Interlocked.Increment(ref next)) < requests)
                {
                    try { var r = await http.GetAsync(paths[i % 3]); if (r.IsSuccessStatusCode) Interlocked.Increment(ref ok); else Interlocked.Increment(ref failed); }
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
            truth["elapsed_ms"] = sw.Elapsed.TotalMilliseconds;
            var h = new JsonObject(); foreach (var kv in hits) h[kv.Key] = kv.Value;
            truth["hits"] = h;
            truth["endpoint_methods"] = new JsonObject { ["/alloc"] = "Workload.Endpoints.Alloc", ["/cpu"] = "Workload.Endpoints.Cpu", ["/db"] = "Workload.Endpoints.Db" };
        }
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
            using var ctx = new BlogContext(ConnectionString, Counter);
            return Microsoft.EntityFrameworkCore.EntityFrameworkQueryableExtensions.AsNoTracking(ctx.Posts).Count(p => p.BlogId == 1);
        }
    }
}
