// gc scenario: garbage-collection shapes for the gc analyzer (issue 37). Each mode makes the GC
// behave one way; the truth records what the process itself counted (GC.CollectionCount deltas,
// induced calls), the oracle records what TraceEvent's GC model makes of the trace.
//   gen2     mid-life objects that survive gen0/gen1 and die in gen2, so the runtime runs gen2s
//            back to back; 2000 pinned handles held throughout (pinning pressure)
//   induced  GC.Collect() from Workload.GcScenario.InduceCollect every few ms (gen2, forced)
//   loh      byte[] of 100-900 KB, a few kept, so the LOH budget triggers gen2s (reason AllocLarge);
//            the kept set grows, so the heap after each gen2 grows
//   quiet    short-lived small objects at a low rate: a handful of gen0s, nothing to say
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text.Json.Nodes;
using System.Threading;

namespace Workload
{
    public static class GcScenario
    {
        static readonly List<object> Survivors = new List<object>();
        static readonly List<byte[]> LohKept = new List<byte[]>();

        public static void Run(Args a, JsonObject truth)
        {
            string mode = a.Str("mode", "quiet");
            a.Knobs["mode"] = mode;
            int ms = a.Int("ms", 1500);
            int before0 = GC.CollectionCount(0), before1 = GC.CollectionCount(1), before2 = GC.CollectionCount(2);
            var sw = Stopwatch.StartNew();
            long induced = 0;
            switch (mode)
            {
                case "gen2": Gen2Heavy(ms, a.Int("pinned", 2000)); break;
                case "induced": induced = Induce(ms, a.Int("every-ms", 20)); break;
                case "loh": LohChurn(ms); break;
                case "quiet": Quiet(ms); break;
                default: throw new ArgumentException("--mode gen2|induced|loh|quiet");
            }
            truth["mode"] = mode;
            truth["elapsed_ms"] = sw.Elapsed.TotalMilliseconds;
            truth["induced_calls"] = induced;
            truth["induced_method"] = "Workload.GcScenario.InduceCollect";
            // CollectionCount(n) counts GCs of generation >= n, as TraceEvent's per-generation counts do not:
            // gen0-only = c0 - c1, gen1-only = c1 - c2.
            int c0 = GC.CollectionCount(0) - before0, c1 = GC.CollectionCount(1) - before1, c2 = GC.CollectionCount(2) - before2;
            truth["gc_count_ge0"] = c0;
            truth["gc_count_ge1"] = c1;
            truth["gc_count_gen2"] = c2;
            truth["gc_heap_count"] = System.Runtime.GCSettings.IsServerGC ? Environment.ProcessorCount : 1;
            truth["processor_count"] = Environment.ProcessorCount;
            Survivors.Clear(); LohKept.Clear();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Gen2Heavy(int ms, int pinned)
        {
            var handles = new GCHandle[pinned];
            for (int i = 0; i < pinned; i++) handles[i] = GCHandle.Alloc(new byte[64], GCHandleType.Pinned);
            var rnd = new Random(37);
            const int Live = 60000;
            for (int i = 0; i < Live; i++) Survivors.Add(new byte[120]);
            var sw = Stopwatch.StartNew();
            while (sw.ElapsedMilliseconds < ms)
            {
                // replace random survivors: each lives long enough to be promoted, then dies old
                for (int k = 0; k < 2000; k++) Survivors[rnd.Next(Live)] = new byte[120 + (k & 63)];
                for (int k = 0; k < 200; k++) Sink.Keep(new object[8]);
            }
            for (int i = 0; i < pinned; i++) handles[i].Free();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Induce(int ms, int everyMs)
        {
            long n = 0;
            var sw = Stopwatch.StartNew();
            while (sw.ElapsedMilliseconds < ms)
            {
                for (int k = 0; k < 500; k++) Sink.Keep(new byte[200]);
                InduceCollect();
                n++;
                Thread.Sleep(everyMs);
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void InduceCollect() { GC.Collect(); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void LohChurn(int ms)
        {
            var rnd = new Random(37);
            var sw = Stopwatch.StartNew();
            long i = 0;
            while (sw.ElapsedMilliseconds < ms)
            {
                var b = new byte[100_000 + rnd.Next(800_000)];
                Sink.Keep(b);
                if ((++i & 7) == 0) LohKept.Add(b);   // one in eight stays: the heap after gen2 grows
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Quiet(int ms)
        {
            var sw = Stopwatch.StartNew();
            while (sw.ElapsedMilliseconds < ms)
            {
                for (int k = 0; k < 2000; k++) Sink.Keep(new byte[100]);
                Thread.Sleep(10);
            }
        }
    }
}
