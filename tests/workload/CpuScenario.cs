// cpu: known split of busy time between HotA and HotB on one thread, two blocked threads,
// and an async Task.Delay loop (invisible to thread-time sampling while it waits).
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;
using System.Threading.Tasks;

namespace Workload
{
    public static class CpuScenario
    {
        static volatile bool s_stop;
        static long s_hotATicks, s_hotBTicks;
        public static ulong Sink64;

        public static void Run(Args a, JsonObject truth)
        {
            double seconds = a.Dbl("seconds", 5.0);
            int pctA = a.Int("hot-a-percent", 70);
            int sliceMs = a.Int("slice-ms", 10);

            var evt = new ManualResetEvent(false);
            var blockedEvent = new Thread(() => BlockedOnEvent(evt)) { Name = "blocked-event", IsBackground = true };
            var sleeper = new Thread(SleepingThread) { Name = "blocked-sleep", IsBackground = true };
            var hot = new Thread(() => HotLoop(seconds, pctA, sliceMs)) { Name = "hot" };
            blockedEvent.Start(); sleeper.Start();

            int asyncIterations = 0;
            var asyncTask = Task.Run(async () => asyncIterations = await AsyncDelayLoop());
            var wall = Stopwatch.StartNew();
            hot.Start();
            hot.Join();
            s_stop = true;
            evt.Set();
            asyncTask.Wait();
            blockedEvent.Join(); sleeper.Join();
            wall.Stop();

            double aMs = s_hotATicks * 1000.0 / Stopwatch.Frequency, bMs = s_hotBTicks * 1000.0 / Stopwatch.Frequency;
            truth["seconds"] = seconds;
            truth["wall_ms"] = wall.Elapsed.TotalMilliseconds;
            truth["hot_thread"] = "hot";
            truth["methods"] = new JsonArray
            {
                new JsonObject { ["method"] = "Workload.CpuScenario.HotA", ["short"] = "HotA", ["thread"] = "hot", ["busy_ms"] = aMs, ["share"] = aMs / (aMs + bMs), ["expected_share"] = pctA / 100.0, ["state"] = "running" },
                new JsonObject { ["method"] = "Workload.CpuScenario.HotB", ["short"] = "HotB", ["thread"] = "hot", ["busy_ms"] = bMs, ["share"] = bMs / (aMs + bMs), ["expected_share"] = (100 - pctA) / 100.0, ["state"] = "running" },
                new JsonObject { ["method"] = "Workload.CpuScenario.BlockedOnEvent", ["short"] = "BlockedOnEvent", ["thread"] = "blocked-event", ["state"] = "blocked", ["wait"] = "ManualResetEvent.WaitOne" },
                new JsonObject { ["method"] = "Workload.CpuScenario.SleepingThread", ["short"] = "SleepingThread", ["thread"] = "blocked-sleep", ["state"] = "blocked", ["wait"] = "Thread.Sleep(50) loop" },
                new JsonObject { ["method"] = "Workload.CpuScenario.AsyncDelayLoop", ["short"] = "AsyncDelayLoop", ["thread"] = "thread-pool", ["state"] = "async-wait", ["wait"] = "await Task.Delay(20) loop", ["iterations"] = asyncIterations },
            };
            truth["blocked_threads"] = 2;
            truth["note"] = "busy_ms measured with Stopwatch inside HotA/HotB; the main thread also blocks in Thread.Join for the whole run";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void HotLoop(double seconds, int pctA, int sliceMs)
        {
            long end = Stopwatch.GetTimestamp() + (long)(seconds * Stopwatch.Frequency);
            long slice = Stopwatch.Frequency * sliceMs / 1000;
            long sliceA = slice * pctA / 100, sliceB = slice - sliceA;
            while (Stopwatch.GetTimestamp() < end)
            {
                s_hotATicks += HotA(sliceA);
                s_hotBTicks += HotB(sliceB);
            }
        }

        // Spin doing integer work for `ticks` Stopwatch ticks; returns the ticks actually spent.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long HotA(long ticks)
        {
            long t0 = Stopwatch.GetTimestamp(), now = t0;
            ulong x = 0x9E3779B97F4A7C15UL;
            while (now - t0 < ticks)
            {
                for (int i = 0; i < 20000; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }   // PP-LINE: hot-a
                now = Stopwatch.GetTimestamp();   // PP-LINE: hot-a-clock
            }
            Sink64 += x;
            return now - t0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long HotB(long ticks)
        {
            long t0 = Stopwatch.GetTimestamp(), now = t0;
            ulong x = 1469598103934665603UL;
            while (now - t0 < ticks)
            {
                for (int i = 0; i < 20000; i++) { x = (x ^ (ulong)i) * 1099511628211UL; }   // PP-LINE: hot-b
                now = Stopwatch.GetTimestamp();   // PP-LINE: hot-b-clock
            }
            Sink64 += x;
            return now - t0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void BlockedOnEvent(ManualResetEvent e) { e.WaitOne(); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void SleepingThread() { while (!s_stop) Thread.Sleep(50); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> AsyncDelayLoop()
        {
            int n = 0;
            while (!s_stop) { await Task.Delay(20); n++; }
            return n;
        }
    }
}
