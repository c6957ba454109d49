// cache: a report cache filled by traffic between heap snapshots, in two shapes (issue 45, "bounded cache
// vs leak"):
//   --mode leak     Workload.ReportCacheLeaky: a static Dictionary<int, CachedReport> that is only
//                   ever added to (every request a new key): it keeps growing at every snapshot;
//   --mode bounded  Workload.ReportCacheBounded: the same dictionary behind a FIFO bound of --bound
//                   entries (evicts the oldest): it grows while it warms up, then stays at its bound.
// Phases: snapshot1 (empty cache), --per-phase requests, snapshot2, --per-phase more, snapshot3, ...
// (--snapshots N in all). Each CachedReport holds a byte[ReportBytes].
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Workload
{
    public sealed class CachedReport
    {
        public readonly int Key; public readonly byte[] Body;
        public CachedReport(int key) { Key = key; Body = new byte[CacheScenario.ReportBytes]; Body[0] = (byte)key; }
    }

    public static class ReportCacheLeaky
    {
        public static readonly Dictionary<int, CachedReport> Reports = new Dictionary<int, CachedReport>();

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static CachedReport Get(int key)
        {
            if (!Reports.TryGetValue(key, out var r)) { r = new CachedReport(key); Reports[key] = r; }
            return r;
        }
    }

    public static class ReportCacheBounded
    {
        public static int Bound = 256;
        public static readonly Dictionary<int, CachedReport> Reports = new Dictionary<int, CachedReport>();
        static readonly Queue<int> s_order = new Queue<int>();

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static CachedReport Get(int key)
        {
            if (Reports.TryGetValue(key, out var r)) return r;
            if (Reports.Count >= Bound) Reports.Remove(s_order.Dequeue());
            r = new CachedReport(key);
            Reports[key] = r;
            s_order.Enqueue(key);
            return r;
        }
    }

    public static class CacheScenario
    {
        public const int ReportBytes = 8192;

        public static void Run(Args a, JsonObject truth)
        {
            string mode = a.Str("mode", "leak");
            int perPhase = a.Int("per-phase", 1000);
            int snapshots = a.Int("snapshots", 3);
            ReportCacheBounded.Bound = a.Int("bound", 256);
            string dir = a.Str("signal-dir", null);
            if (mode != "leak" && mode != "bounded") throw new ArgumentException("--mode leak|bounded");
            var counts = new JsonArray();
            int key = 0;
            for (int s = 1; s <= snapshots; s++)
            {
                if (s > 1) key = Serve(mode, key, perPhase);
                counts.Add(Count(mode));
                Gate.Phase(dir, "snapshot" + s);   // capture script: gcdump #s, then touch snapshotS.go
            }
            string owner = mode == "leak" ? "Workload.ReportCacheLeaky" : "Workload.ReportCacheBounded";
            truth["mode"] = mode;
            truth["owner_class"] = owner;
            truth["owner_type"] = "System.Collections.Generic.Dictionary<System.Int32,Workload.CachedReport>";
            truth["entry_type"] = "Workload.CachedReport";
            truth["entries_at_snapshot"] = counts;
            truth["bound"] = mode == "bounded" ? ReportCacheBounded.Bound : -1;
            truth["requests_per_phase"] = perPhase;
            truth["report_bytes_each"] = ReportBytes;
            truth["leak"] = mode == "leak";
            truth["retained_by"] = "static System.Collections.Generic.Dictionary<System.Int32,Workload.CachedReport> " + owner + ".Reports";
        }

        static int Count(string mode) => mode == "leak" ? ReportCacheLeaky.Reports.Count : ReportCacheBounded.Reports.Count;

        /// One phase of traffic: n requests, each for a report never asked for before.
        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Serve(string mode, int key, int n)
        {
            for (int i = 0; i < n; i++, key++)
            {
                var r = mode == "leak" ? ReportCacheLeaky.Get(key) : ReportCacheBounded.Get(key);
                GC.KeepAlive(r);
            }
            return key;
        }
    }
}
