// The `gc` section of a nettrace oracle: TraceEvent's own GC model (TraceLoadedDotNetRuntime after
// NeedLoadedDotNetRuntimes(), the model behind PerfView's GCStats), per GC and per generation.
// Schema: tests/README.md, "gc".
using System;
using System.Collections.Generic;
using System.Linq;
using Microsoft.Diagnostics.Tracing;
using Microsoft.Diagnostics.Tracing.Analysis;
using Microsoft.Diagnostics.Tracing.Analysis.GC;

namespace PerfpipeOracle
{
    public static class GcOracle
    {
        public static JObj Run(string path)
        {
            var procs = new List<object>();
            using (var src = new EventPipeEventSource(path))
            {
                src.NeedLoadedDotNetRuntimes();
                src.Process();
                foreach (var p in src.Processes().OrderBy(x => x.ProcessID))
                {
                    var rt = p.LoadedDotNetRuntime();
                    if (rt == null || rt.GC.GCs.Count == 0) continue;
                    procs.Add(Process(p.ProcessID, rt));
                }
            }
            return new JObj().Add("model", "TraceLoadedDotNetRuntime.GC").Add("processes", procs);
        }

        static JObj Process(int pid, TraceLoadedDotNetRuntime rt)
        {
            var stats = rt.GC.Stats();
            var gens = rt.GC.Generations();
            var rows = new List<object>();
            foreach (var g in rt.GC.GCs)
            {
                var r = new JObj().Add("number", g.Number).Add("generation", g.Generation)
                    .Add("type", g.Type.ToString()).Add("reason", g.Reason.ToString()).Add("reason_code", (int)g.Reason)
                    .Add("complete", g.IsComplete)
                    .Add("start_ms", g.StartRelativeMSec).Add("pause_start_ms", g.PauseStartRelativeMSec)
                    .Add("pause_ms", g.PauseDurationMSec).Add("suspend_ms", g.SuspendDurationMSec)
                    .Add("duration_ms", g.DurationMSec)
                    .Add("heap_size_before_mb", g.IsComplete ? g.HeapSizeBeforeMB : -1.0)
                    .Add("heap_size_after_mb", g.HeapSizeAfterMB).Add("promoted_mb", g.PromotedMB)
                    .Add("heap_count", g.HeapCount);
                if (g.HeapStats != null)
                    r.Add("gen_size_after", new List<object> { g.HeapStats.GenerationSize0, g.HeapStats.GenerationSize1,
                        g.HeapStats.GenerationSize2, g.HeapStats.GenerationSize3, g.HeapStats.GenerationSize4 })
                     .Add("pinned_objects", g.HeapStats.PinnedObjectCount);
                rows.Add(r);
            }
            var byGen = new List<object>();
            for (int i = 0; i < gens.Length; i++)
            {
                var s = gens[i];
                byGen.Add(new JObj().Add("generation", i).Add("count", s?.Count ?? 0).Add("induced", s?.NumInduced ?? 0)
                    .Add("total_pause_ms", s?.TotalPauseTimeMSec ?? 0.0).Add("max_pause_ms", s?.MaxPauseDurationMSec ?? 0.0));
            }
            return new JObj().Add("pid", pid)
                .Add("gcs", rt.GC.GCs.Count).Add("complete", stats.Count).Add("induced", stats.NumInduced)
                .Add("total_pause_ms", stats.TotalPauseTimeMSec).Add("max_pause_ms", stats.MaxPauseDurationMSec)
                .Add("pause_percent", stats.GetGCPauseTimePercentage()).Add("process_duration_ms", stats.ProcessDuration)
                .Add("server_gc", stats.IsServerGCUsed).Add("heap_count", stats.HeapCount)
                .Add("by_generation", byGen).Add("per_gc", rows);
        }
    }
}
