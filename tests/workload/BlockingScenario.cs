// blocking: one hot method on one thread, and more thread time blocked than running: two
// threads blocked in a pipe read (Interop+Sys.Read, like a file watcher's read), a
// FileSystemWatcher (its own inotify read thread), a socket receive, Monitor.Wait,
// SemaphoreSlim.Wait and a Thread.Sleep loop. Thread-time sampling sees every one of them;
// only HotMethod is work a change can remove.
using System;
using System.Diagnostics;
using System.IO;
using System.IO.Pipes;
using System.Net;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;
using System.Threading;

namespace Workload
{
    public static class BlockingScenario
    {
        static volatile bool s_stop;
        static long s_hotTicks;
        static readonly object s_monitor = new object();
        public static ulong Sink64;

        public static void Run(Args a, JsonObject truth)
        {
            double seconds = a.Dbl("seconds", 2.0);
            int readers = a.Int("pipe-readers", 2);

            var pipes = new AnonymousPipeServerStream[readers];
            var writers = new AnonymousPipeClientStream[readers];
            var threads = new System.Collections.Generic.List<Thread>();
            for (int i = 0; i < readers; i++)
            {
                pipes[i] = new AnonymousPipeServerStream(PipeDirection.In);
                writers[i] = new AnonymousPipeClientStream(PipeDirection.Out, pipes[i].ClientSafePipeHandle);
                var p = pipes[i];
                threads.Add(new Thread(() => PipeReader(p)) { Name = "pipe-reader-" + i, IsBackground = true });
            }
            string dir = Path.Combine(Path.GetTempPath(), "pp-blocking-" + Environment.ProcessId);
            Directory.CreateDirectory(dir);
            var watcher = new FileSystemWatcher(dir) { EnableRaisingEvents = true };

            var listener = new TcpListener(IPAddress.Loopback, 0);
            listener.Start();
            var client = new TcpClient();
            client.Connect((IPEndPoint)listener.LocalEndpoint);
            Socket server = listener.AcceptSocket();
            threads.Add(new Thread(() => SocketReader(server)) { Name = "socket-reader", IsBackground = true });

            var sem = new SemaphoreSlim(0);
            threads.Add(new Thread(MonitorWaiter) { Name = "monitor-wait", IsBackground = true });
            threads.Add(new Thread(() => SemaphoreWaiter(sem)) { Name = "semaphore-wait", IsBackground = true });
            threads.Add(new Thread(Sleeper) { Name = "sleeper", IsBackground = true });
            foreach (var t in threads) t.Start();

            var hot = new Thread(() => HotMethod(seconds)) { Name = "hot" };
            var wall = Stopwatch.StartNew();
            hot.Start();
            hot.Join();
            wall.Stop();

            s_stop = true;
            foreach (var w in writers) { w.WriteByte(1); w.Flush(); }
            client.GetStream().WriteByte(1);
            lock (s_monitor) Monitor.PulseAll(s_monitor);
            sem.Release();
            foreach (var t in threads) t.Join();
            watcher.Dispose();
            client.Dispose(); server.Dispose(); listener.Stop();
            Directory.Delete(dir, true);

            double hotMs = s_hotTicks * 1000.0 / Stopwatch.Frequency;
            truth["seconds"] = seconds;
            truth["wall_ms"] = wall.Elapsed.TotalMilliseconds;
            truth["hot_method"] = "Workload.BlockingScenario.HotMethod";
            truth["hot_busy_ms"] = hotMs;
            truth["pipe_readers"] = readers;
            var blocked = new JsonArray();
            for (int i = 0; i < readers; i++)
                blocked.Add(new JsonObject { ["thread"] = "pipe-reader-" + i, ["method"] = "Workload.BlockingScenario.PipeReader", ["wait"] = "Interop+Sys.Read" });
            blocked.Add(new JsonObject { ["thread"] = "socket-reader", ["method"] = "Workload.BlockingScenario.SocketReader", ["wait"] = "socket receive" });
            blocked.Add(new JsonObject { ["thread"] = "monitor-wait", ["method"] = "Workload.BlockingScenario.MonitorWaiter", ["wait"] = "Monitor.Wait" });
            blocked.Add(new JsonObject { ["thread"] = "semaphore-wait", ["method"] = "Workload.BlockingScenario.SemaphoreWaiter", ["wait"] = "SemaphoreSlim.Wait" });
            blocked.Add(new JsonObject { ["thread"] = "sleeper", ["method"] = "Workload.BlockingScenario.Sleeper", ["wait"] = "Thread.Sleep(20) loop" });
            blocked.Add(new JsonObject { ["thread"] = "FileSystemWatcher (runtime's inotify thread)", ["method"] = null, ["wait"] = "Interop+Sys.Read" });
            truth["blocked"] = blocked;
            truth["blocked_threads"] = blocked.Count;
            truth["note"] = "hot_busy_ms is Stopwatch time inside HotMethod on the hot thread; every blocked thread waits for the whole hot phase (wall_ms); the main thread blocks in Thread.Join";
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void HotMethod(double seconds)
        {
            long t0 = Stopwatch.GetTimestamp(), end = t0 + (long)(seconds * Stopwatch.Frequency), now = t0;
            ulong x = 0x9E3779B97F4A7C15UL;
            while (now < end)
            {
                for (int i = 0; i < 20000; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; }
                now = Stopwatch.GetTimestamp();
            }
            Sink64 += x;
            s_hotTicks = now - t0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void PipeReader(Stream pipe) { var b = new byte[1]; pipe.Read(b, 0, 1); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void SocketReader(Socket s) { var b = new byte[1]; s.Receive(b); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void MonitorWaiter() { lock (s_monitor) while (!s_stop) Monitor.Wait(s_monitor); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void SemaphoreWaiter(SemaphoreSlim s) { s.Wait(); }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Sleeper() { while (!s_stop) Thread.Sleep(20); }
    }
}
