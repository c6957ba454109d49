// leak: a known number of Workload.LeakedSession objects retained by a static list between two
// heap snapshots, plus steady churn of Workload.ChurnItem that is never retained beyond a small ring.
// churn: steady allocation for a fixed time (for dotnet-counters captures).
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;

namespace Workload
{
    public sealed class LeakedSession
    {
        public readonly int Id; public readonly byte[] State; public readonly DateTime Created;
        public LeakedSession(int id) { Id = id; State = new byte[LeakScenario.StateBytes]; Created = DateTime.UtcNow; }
    }

    public sealed class ChurnItem
    {
        public readonly long Seq; public readonly string Label;
        public ChurnItem(long seq) { Seq = seq; Label = "churn-" + seq; }
    }

    public static class LeakScenario
    {
        public const int StateBytes = 256;
        public const int ChurnRing = 64;
        public static readonly List<LeakedSession> Sessions = new List<LeakedSession>();
        static readonly ChurnItem[] s_ring = new ChurnItem[ChurnRing];
        static volatile bool s_stop;
        static long s_churned;

        public static void Run(Args a, JsonObject truth)
        {
            int initial = a.Int("initial", 1000);
            int leak = a.Int("leak", 10000);
            int churnPerMs = a.Int("churn-per-ms", 50);
            double holdSeconds = a.Dbl("hold-seconds", 0);   // used when no --signal-dir is given
            string dir = a.Str("signal-dir", null);

            var churn = new Thread(() => Churn(churnPerMs)) { Name = "churn", IsBackground = true };
            churn.Start();
            Grow(initial);
            GC.KeepAlive(Sessions);
            int before = Sessions.Count;
            Gate.Phase(dir, "snapshot1");          // capture script: gcdump #1, then touch snapshot1.go
            if (dir == null && holdSeconds > 0) Thread.Sleep(TimeSpan.FromSeconds(holdSeconds / 2));
            Grow(leak);
            int after = Sessions.Count;
            Gate.Phase(dir, "snapshot2");          // gcdump #2, then touch snapshot2.go
            if (dir == null && holdSeconds > 0) Thread.Sleep(TimeSpan.FromSeconds(holdSeconds / 2));
            s_stop = true; churn.Join();

            truth["leak_type"] = "Workload.LeakedSession";
            truth["churn_type"] = "Workload.ChurnItem";
            truth["leaked_before"] = before;
            truth["leaked_after"] = after;
            truth["leaked_delta"] = after - before;
            truth["leak_state_type"] = "System.Byte[]";
            truth["leak_state_bytes_each"] = StateBytes;
            truth["leak_state_object_bytes_each"] = AllocScenario.ArrayObjectSize(StateBytes);
            truth["leaked_session_object_bytes_each"] = IntPtr.Size == 8 ? 40 : 24;
            truth["retained_by"] = "static System.Collections.Generic.List<Workload.LeakedSession> Workload.LeakScenario.Sessions";
            truth["churn_items_allocated"] = Interlocked.Read(ref s_churned);
            truth["churn_items_live_max"] = ChurnRing;
            truth["note"] = "each LeakedSession holds one byte[" + StateBytes + "]; ChurnItem instances live at most in a " + ChurnRing + "-slot ring, so a heap snapshot shows <= " + ChurnRing + " of them";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Grow(int n)
        {
            int start = Sessions.Count;
            for (int i = 0; i < n; i++) Sessions.Add(new LeakedSession(start + i));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Churn(int perMs)
        {
            long seq = 0;
            while (!s_stop)
            {
                for (int i = 0; i < perMs; i++) { s_ring[seq % ChurnRing] = new ChurnItem(seq); seq++; }
                Interlocked.Exchange(ref s_churned, seq);
                Thread.Sleep(1);
            }
        }
    }

    public static class ChurnScenario
    {
        public static void Run(Args a, JsonObject truth)
        {
            double seconds = a.Dbl("seconds", 6);
            int mbPerSec = a.Int("mb-per-sec", 50);
            long before = GC.GetAllocatedBytesForCurrentThread();
            int gc0 = GC.CollectionCount(0), gc1 = GC.CollectionCount(1), gc2 = GC.CollectionCount(2);
            var sw = Stopwatch.StartNew();
            long items = SteadyChurn(seconds, mbPerSec);
            sw.Stop();
            long bytes = GC.GetAllocatedBytesForCurrentThread() - before;
            truth["method"] = "Workload.ChurnScenario.SteadyChurn";
            truth["churn_type"] = "System.Byte[]";
            truth["items"] = items;
            truth["bytes_allocated"] = bytes;
            truth["elapsed_ms"] = sw.Elapsed.TotalMilliseconds;
            truth["bytes_per_sec"] = bytes / sw.Elapsed.TotalSeconds;
            truth["gc_count_gen0"] = GC.CollectionCount(0) - gc0;
            truth["gc_count_gen1"] = GC.CollectionCount(1) - gc1;
            truth["gc_count_gen2"] = GC.CollectionCount(2) - gc2;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long SteadyChurn(double seconds, int mbPerSec)
        {
            long freq = Stopwatch.Frequency, t0 = Stopwatch.GetTimestamp(), end = t0 + (long)(seconds * freq);
            long perTick = ((long)mbPerSec << 20) / 100 / 1024;   // 1 KiB buffers, paced every 10 ms
            long n = 0, step = 0;
            while (Stopwatch.GetTimestamp() < end)
            {
                for (long i = 0; i < perTick; i++) { Sink.Keep(new byte[1000]); n++; }
                step++;
                long due = t0 + step * freq / 100, now = Stopwatch.GetTimestamp();
                if (due > now) Thread.Sleep((int)((due - now) * 1000 / freq));
            }
            Sink.Clear();
            return n;
        }
    }
}
