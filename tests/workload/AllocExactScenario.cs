// allocexact: the process's exact allocation count, written into the trace itself at known
// points, so the sum of GCAllocationTick amounts up to a point can be checked against the
// bytes really allocated up to that point (tests of the alloc plugin's stated bound).
//
// Each marker is an event of the EventSource "Workload-AllocMarker" (enable it in the
// session: --providers Workload-AllocMarker) carrying GC.GetTotalAllocatedBytes(precise: true)
// and the gen0 collection count. Neither call nor the event allocates, so the marker's
// timestamp and its count describe the same instant.
using System;
using System.Diagnostics.Tracing;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;

namespace Workload
{
    [EventSource(Name = "Workload-AllocMarker")]
    public sealed class AllocMarkerSource : EventSource
    {
        public static readonly AllocMarkerSource Log = new AllocMarkerSource();

        [Event(1, Level = EventLevel.Informational)]
        public void Marker(long Phase, long TotalAllocatedBytes, long Gen0Collections) =>
            WriteEvent(1, Phase, TotalAllocatedBytes, Gen0Collections);   // (int, long, long, long): no boxing
    }

    public static class AllocExactScenario
    {
        public static void Run(Args a, JsonObject truth)
        {
            int mbBuffers = a.Int("mb-buffers", 20);
            int mbStrings = a.Int("mb-strings", 10);
            var marks = new JsonArray();

            // Let the session's enable command reach the EventSource.
            for (int i = 0; i < 100 && !AllocMarkerSource.Log.IsEnabled(); i++) Thread.Sleep(10);
            truth["marker_enabled"] = AllocMarkerSource.Log.IsEnabled();
            Mark(marks, 0);
            MakeBuffers(mbBuffers);
            Mark(marks, 1);
            MakeStrings(mbStrings);
            Mark(marks, 2);
            truth["markers"] = marks;
            truth["allocation_tick_threshold"] = 100 * 1024;
            truth["note"] = "markers[]: total_allocated_bytes is GC.GetTotalAllocatedBytes(precise: true) at the marker event of that phase (all threads, since process start); the same values are in the trace as Workload-AllocMarker/Marker events";
        }

        static void Mark(JsonArray marks, int phase)
        {
            long total = GC.GetTotalAllocatedBytes(true);
            int gcs = GC.CollectionCount(0);
            AllocMarkerSource.Log.Marker(phase, total, gcs);
            marks.Add(new JsonObject { ["phase"] = phase, ["total_allocated_bytes"] = total, ["gen0_collections"] = gcs });
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void MakeBuffers(int mb)
        {
            long n = (long)mb * 1024 * 1024 / 8000;
            for (long i = 0; i < n; i++) Sink.Keep(new byte[8000]);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void MakeStrings(int mb)
        {
            long n = (long)mb * 1024 * 1024 / 224;
            for (long i = 0; i < n; i++) Sink.Keep(new string('x', 100));
        }
    }
}
