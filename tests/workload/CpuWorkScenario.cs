// cpuwork: a fixed amount of CPU work split between two methods, for the compare gate's seeded
// regressions (bench/gate/cpu-seeded.sh): WorkA does --work-a iterations per operation (default
// 100, in units of 20,000 xorshift rounds), WorkB --work-b, for --ops operations on one thread.
// Raising --work-a by 25 % raises WorkA's CPU work by 25 % and leaves WorkB's alone. The truth
// records each method's Stopwatch time and the process's CPU time, so a reader can tell the
// time the thread ran from the time it was runnable but preempted (a busy machine).
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;

namespace Workload
{
    public static class CpuWorkScenario
    {
        public static ulong Sink64;

        public static void Run(Args a, JsonObject truth)
        {
            int ops = a.Int("ops", 100);
            int workA = a.Int("work-a", 100), workB = a.Int("work-b", 100);
            long ticksA = 0, ticksB = 0;
            var proc = Process.GetCurrentProcess();
            TimeSpan cpu0 = proc.TotalProcessorTime;
            var wall = Stopwatch.StartNew();
            var hot = new Thread(() =>
            {
                for (int i = 0; i < ops; i++)
                {
                    long t0 = Stopwatch.GetTimestamp();
                    WorkA(workA);
                    long t1 = Stopwatch.GetTimestamp();
                    WorkB(workB);
                    ticksA += t1 - t0;
                    ticksB += Stopwatch.GetTimestamp() - t1;
                }
            }) { Name = "hot" };
            hot.Start();
            hot.Join();
            wall.Stop();
            proc.Refresh();
            double ms(long t) => t * 1000.0 / Stopwatch.Frequency;
            truth["ops"] = ops;
            truth["wall_ms"] = wall.Elapsed.TotalMilliseconds;
            truth["process_cpu_ms"] = (proc.TotalProcessorTime - cpu0).TotalMilliseconds;
            truth["methods"] = new JsonArray
            {
                new JsonObject { ["method"] = "Workload.CpuWorkScenario.WorkA", ["short"] = "WorkA", ["units_per_op"] = workA, ["wall_ms"] = ms(ticksA) },
                new JsonObject { ["method"] = "Workload.CpuWorkScenario.WorkB", ["short"] = "WorkB", ["units_per_op"] = workB, ["wall_ms"] = ms(ticksB) },
            };
            truth["note"] = "wall_ms by Stopwatch around each call (includes time preempted); process_cpu_ms: the whole process's CPU time over the run";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void WorkA(int units)
        {
            ulong x = 0x9E3779B97F4A7C15UL;
            for (int u = 0; u < units; u++)
                for (int i = 0; i < 20000; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
            Sink64 += x;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void WorkB(int units)
        {
            ulong x = 1469598103934665603UL;
            for (int u = 0; u < units; u++)
                for (int i = 0; i < 20000; i++) { x = (x ^ (ulong)i) * 1099511628211UL; }
            Sink64 += x;
        }
    }
}
