// webdb: one ASP.NET Core endpoint, GET /blogs, with a known number of SQL commands per request, for
// request-aware N+1 checks. The same route in both variants, so a capture of each is an N+1 -> fixed A/B:
//   --endpoint one      ONE query per request (blogs with their post counts, a correlated subquery)
//   --endpoint nplus1   the N+1 of the same answer: 1 query for the blogs, then 1 COUNT per blog (K = --blogs)
// Both are async (ToListAsync/CountAsync), as real handlers are. A bounded in-process load generator sends
// --requests requests from --concurrency virtual users. No warm-up: every request the server saw is in the truth.
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
using Microsoft.EntityFrameworkCore;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Workload
{
    public static class WebDbScenario
    {
        public static async Task Run(Args a, JsonObject truth)
        {
            string endpoint = a.Str("endpoint", "nplus1");
            int requests = a.Int("requests", 20);
            int concurrency = a.Int("concurrency", 1);
            int blogs = a.Int("blogs", 12);
            if (endpoint != "one" && endpoint != "nplus1") throw new ArgumentException("--endpoint one|nplus1");
            if (concurrency < 1 || requests < 1 || blogs < 1) throw new ArgumentException("--requests, --concurrency, --blogs >= 1");
            string dbPath = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"perfpipe-webdb-{Environment.ProcessId}.sqlite");
            string cs = "Data Source=" + dbPath + ";Pooling=False";
            var counter = new CommandCounter();
            DbScenario.Seed(cs, counter, blogs, 2);
            counter.Phase = "requests";
            var builder = WebApplication.CreateSlimBuilder();
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            var app = builder.Build();
            const string path = "/blogs";
            var perRequest = new List<int>();              // DB commands of each request, as the server saw them
            double totalMs = 0, dbMs = 0;
            app.Use(async (ctx, next) =>
            {
                var rt = new RequestTiming();
                RequestTiming.Current.Value = rt;
                long t0 = Stopwatch.GetTimestamp();
                await next(ctx);
                long t1 = Stopwatch.GetTimestamp();
                lock (perRequest)
                {
                    perRequest.Add(rt.DbCommands);
                    totalMs += (t1 - t0) * 1000.0 / Stopwatch.Frequency;
                    dbMs += rt.DbTicks * 1000.0 / Stopwatch.Frequency;
                }
            });
            if (endpoint == "one")
                app.MapGet(path, async () => Results.Text((await WebDbEndpoints.One(cs, counter)).ToString()));
            else
                app.MapGet(path, async () => Results.Text((await WebDbEndpoints.NPlusOne(cs, counter)).ToString()));
            await app.StartAsync();
            string url = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>().Addresses.First();
            using var http = new HttpClient { BaseAddress = new Uri(url), Timeout = TimeSpan.FromSeconds(20) };
            int next = -1, ok = 0, failed = 0;
            var sw = Stopwatch.StartNew();
            var workers = Enumerable.Range(0, concurrency).Select(_ => Task.Run(async () =>
            {
                while (Interlocked.Increment(ref next) < requests)
                {
                    try { var r = await http.GetAsync(path); if (r.IsSuccessStatusCode) Interlocked.Increment(ref ok); else Interlocked.Increment(ref failed); }
                    catch (Exception) { Interlocked.Increment(ref failed); }
                }
            })).ToArray();
            await Task.WhenAll(workers);
            sw.Stop();
            await app.StopAsync();
            Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
            try { System.IO.File.Delete(dbPath); } catch (System.IO.IOException) { }

            var cmds = new JsonArray();
            foreach (var t in counter.Order) cmds.Add(counter.ByText[t].DeepClone());
            var per = new JsonArray(); foreach (int n in perRequest) per.Add(n);
            truth["endpoint"] = endpoint;
            truth["route"] = path;
            truth["requests"] = requests;
            truth["concurrency"] = concurrency;
            truth["ok"] = ok;
            truth["failed"] = failed;
            truth["server_requests"] = perRequest.Count;
            truth["blogs"] = blogs;
            // the repeated command of one request: K for /nplus1 (one COUNT per blog), none for /one
            truth["repeated_per_request"] = endpoint == "nplus1" ? blogs : 1;
            truth["commands_per_request"] = endpoint == "nplus1" ? blogs + 1 : 1;
            truth["commands_per_request_seen"] = per;
            truth["request_commands_total"] = perRequest.Sum();
            truth["request_total_ms"] = totalMs;
            truth["request_db_ms"] = dbMs;
            truth["elapsed_ms"] = sw.Elapsed.TotalMilliseconds;
            truth["commands_total"] = counter.Total;
            truth["db_total_ms_stopwatch"] = counter.TotalMsStopwatch;
            truth["db_total_ms_ef_duration"] = counter.TotalMsEf;
            truth["commands"] = cmds;
            truth["note"] = "commands_per_request_seen: DB commands per request counted by a DbCommandInterceptor through an AsyncLocal set by a middleware; commands[] per distinct text over the whole run (setup phase included), as in the db scenario";
        }
    }

    public static class WebDbEndpoints
    {
        // One query: the blogs with their post counts (a correlated subquery in one SELECT).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> One(string cs, CommandCounter counter)
        {
            await using var ctx = new WebBlogContext(cs, counter);
            var rows = await ctx.Blogs.AsNoTracking().Select(b => new { b.Id, Posts = b.Posts.Count }).ToListAsync();
            return rows.Sum(r => r.Posts);
        }

        // The N+1 of the same answer: the blogs, then one COUNT per blog.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> NPlusOne(string cs, CommandCounter counter)
        {
            await using var ctx = new WebBlogContext(cs, counter);
            var ids = await ctx.Blogs.AsNoTracking().Select(b => b.Id).ToListAsync();
            int n = 0;
            foreach (int id in ids)
                n += await ctx.Posts.AsNoTracking().CountAsync(p => p.BlogId == id);
            return n;
        }
    }
}
