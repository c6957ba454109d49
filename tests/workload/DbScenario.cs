// db: EF Core on SQLite (temp file) with an N+1 pattern, sync and async queries.
// Ground truth: every command EF executes, counted per distinct command text by a DbCommandInterceptor.
using System;
using System.Collections.Generic;
using System.Data.Common;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.EntityFrameworkCore;
using Microsoft.EntityFrameworkCore.Diagnostics;

namespace Workload
{
    public class Blog { public int Id { get; set; } public string Name { get; set; } public List<Post> Posts { get; set; } = new List<Post>(); }
    public class Post { public int Id { get; set; } public int BlogId { get; set; } public string Title { get; set; } public Blog Blog { get; set; } }

    public sealed class BlogContext : DbContext
    {
        private readonly string _cs; private readonly CommandCounter _counter;
        public BlogContext(string cs, CommandCounter counter) { _cs = cs; _counter = counter; }
        public DbSet<Blog> Blogs { get; set; }
        public DbSet<Post> Posts { get; set; }
        protected override void OnConfiguring(DbContextOptionsBuilder o) => o.UseSqlite(_cs).AddInterceptors(_counter);
    }

    public sealed class CommandCounter : DbCommandInterceptor
    {
        public string Phase = "setup";
        public readonly object Lock = new object();
        public readonly Dictionary<string, JsonObject> ByText = new Dictionary<string, JsonObject>(StringComparer.Ordinal);
        public readonly List<string> Order = new List<string>();
        public long Total, Sync, Async;
        public double TotalMsStopwatch, TotalMsEf;
        private readonly Dictionary<Guid, long> _start = new Dictionary<Guid, long>();

        void Begin(DbCommand cmd, CommandEventData d)
        {
            lock (Lock) _start[d.CommandId] = Stopwatch.GetTimestamp();
        }
        void End(DbCommand cmd, CommandExecutedEventData d, bool isAsync)
        {
            long now = Stopwatch.GetTimestamp();
            lock (Lock)
            {
                double ms = _start.Remove(d.CommandId, out long t0) ? (now - t0) * 1000.0 / Stopwatch.Frequency : 0;
                string text = cmd.CommandText;
                if (!ByText.TryGetValue(text, out var o))
                {
                    o = new JsonObject { ["command_text"] = text, ["count"] = 0L, ["sync"] = 0L, ["async"] = 0L, ["phases"] = new JsonObject(), ["total_ms"] = 0.0, ["ef_total_ms"] = 0.0 };
                    ByText[text] = o; Order.Add(text);
                }
                o["count"] = (long)o["count"] + 1;
                if (isAsync) o["async"] = (long)o["async"] + 1; else o["sync"] = (long)o["sync"] + 1;
                var ph = (JsonObject)o["phases"];
                ph[Phase] = (ph[Phase] == null ? 0L : (long)ph[Phase]) + 1;
                o["total_ms"] = (double)o["total_ms"] + ms;
                o["ef_total_ms"] = (double)o["ef_total_ms"] + d.Duration.TotalMilliseconds;
                Total++; if (isAsync) Async++; else Sync++;
                TotalMsStopwatch += ms; TotalMsEf += d.Duration.TotalMilliseconds;
            }
        }

        public override InterceptionResult<DbDataReader> ReaderExecuting(DbCommand c, CommandEventData d, InterceptionResult<DbDataReader> r) { Begin(c, d); return r; }
        public override DbDataReader ReaderExecuted(DbCommand c, CommandExecutedEventData d, DbDataReader r) { End(c, d, false); return r; }
        public override ValueTask<InterceptionResult<DbDataReader>> ReaderExecutingAsync(DbCommand c, CommandEventData d, InterceptionResult<DbDataReader> r, CancellationToken t = default) { Begin(c, d); return new ValueTask<InterceptionResult<DbDataReader>>(r); }
        public override ValueTask<DbDataReader> ReaderExecutedAsync(DbCommand c, CommandExecutedEventData d, DbDataReader r, CancellationToken t = default) { End(c, d, true); return new ValueTask<DbDataReader>(r); }
        public override InterceptionResult<int> NonQueryExecuting(DbCommand c, CommandEventData d, InterceptionResult<int> r) { Begin(c, d); return r; }
        public override int NonQueryExecuted(DbCommand c, CommandExecutedEventData d, int r) { End(c, d, false); return r; }
        public override ValueTask<InterceptionResult<int>> NonQueryExecutingAsync(DbCommand c, CommandEventData d, InterceptionResult<int> r, CancellationToken t = default) { Begin(c, d); return new ValueTask<InterceptionResult<int>>(r); }
        public override ValueTask<int> NonQueryExecutedAsync(DbCommand c, CommandExecutedEventData d, int r, CancellationToken t = default) { End(c, d, true); return new ValueTask<int>(r); }
        public override InterceptionResult<object> ScalarExecuting(DbCommand c, CommandEventData d, InterceptionResult<object> r) { Begin(c, d); return r; }
        public override object ScalarExecuted(DbCommand c, CommandExecutedEventData d, object r) { End(c, d, false); return r; }
        public override ValueTask<InterceptionResult<object>> ScalarExecutingAsync(DbCommand c, CommandEventData d, InterceptionResult<object> r, CancellationToken t = default) { Begin(c, d); return new ValueTask<InterceptionResult<object>>(r); }
        public override ValueTask<object> ScalarExecutedAsync(DbCommand c, CommandExecutedEventData d, object r, CancellationToken t = default) { End(c, d, true); return new ValueTask<object>(r); }
    }

    public static class DbScenario
    {
        public static async Task Run(Args a, JsonObject truth)
        {
            int blogs = a.Int("blogs", 20);
            int posts = a.Int("posts-per-blog", 5);
            string dbPath = Path.Combine(Path.GetTempPath(), $"perfpipe-db-{Environment.ProcessId}.sqlite");
            if (File.Exists(dbPath)) File.Delete(dbPath);
            string cs = "Data Source=" + dbPath + ";Pooling=False";
            var counter = new CommandCounter();
            var wall = Stopwatch.StartNew();
            int syncPosts, asyncPosts;
            try
            {
                counter.Phase = "setup";
                Seed(cs, counter, blogs, posts);
                counter.Phase = "n_plus_one_sync";
                syncPosts = NPlusOneSync(cs, counter);
                counter.Phase = "n_plus_one_async";
                asyncPosts = await NPlusOneAsync(cs, counter);
            }
            finally
            {
                Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools();
                try { File.Delete(dbPath); } catch (IOException) { }
            }
            wall.Stop();

            var cmds = new JsonArray();
            foreach (var t in counter.Order) cmds.Add(counter.ByText[t].DeepClone());
            truth["provider"] = "Microsoft.EntityFrameworkCore.Sqlite";
            truth["blogs"] = blogs;
            truth["posts_per_blog"] = posts;
            truth["posts_read_sync"] = syncPosts;
            truth["posts_read_async"] = asyncPosts;
            truth["commands_total"] = counter.Total;
            truth["commands_sync"] = counter.Sync;
            truth["commands_async"] = counter.Async;
            truth["distinct_commands"] = counter.Order.Count;
            truth["db_total_ms_stopwatch"] = counter.TotalMsStopwatch;
            truth["db_total_ms_ef_duration"] = counter.TotalMsEf;
            truth["wall_ms"] = wall.Elapsed.TotalMilliseconds;
            truth["commands"] = cmds;
            truth["n_plus_one"] = new JsonObject
            {
                ["sync_per_blog_method"] = "Workload.DbScenario.NPlusOneSync",
                ["async_per_blog_method"] = "Workload.DbScenario.NPlusOneAsync",
                ["expected_per_blog_commands_each"] = blogs,
            };
            truth["note"] = "counts come from a DbCommandInterceptor (ReaderExecuted/NonQueryExecuted/ScalarExecuted and their async forms); EF emits one DiagnosticSource CommandExecuting/CommandExecuted pair per such command";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static void Seed(string cs, CommandCounter counter, int blogs, int posts)
        {
            using var ctx = new BlogContext(cs, counter);
            ctx.Database.EnsureCreated();   // PP-LINE: db-seed-create
            for (int b = 0; b < blogs; b++)
            {
                var blog = new Blog { Name = "blog " + b };
                for (int p = 0; p < posts; p++) blog.Posts.Add(new Post { Title = $"post {b}.{p}" });
                ctx.Blogs.Add(blog);
                ctx.SaveChanges();   // one SaveChanges per blog: deterministic command shapes  PP-LINE: db-seed-save
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int NPlusOneSync(string cs, CommandCounter counter)
        {
            using var ctx = new BlogContext(cs, counter);
            int n = 0;
            foreach (var blog in ctx.Blogs.AsNoTracking().OrderBy(b => b.Id).ToList())   // PP-LINE: db-sync-blogs
                n += ctx.Posts.AsNoTracking().Where(p => p.BlogId == blog.Id).ToList().Count;   // PP-LINE: db-sync-posts
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> NPlusOneAsync(string cs, CommandCounter counter)
        {
            await using var ctx = new BlogContext(cs, counter);
            int n = 0;
            var all = await ctx.Blogs.AsNoTracking().OrderByDescending(b => b.Id).ToListAsync();   // PP-LINE: db-async-blogs
            foreach (var blog in all)
                n += await ctx.Posts.AsNoTracking().Where(p => p.BlogId == blog.Id).CountAsync();   // PP-LINE: db-async-count
            return n;
        }
    }
}
