// fix shapes for the rules' pairs (issue #45, "each rule proven both ways"): small antipatterns, each
// with its healthy twin, one per shipped rule that a thread-time + allocation-tick trace can show.
// They are meant to be run several in one process (`fix --shape induced,reflection,... --variant
// bad|good`): one capture per variant holds every planted method, so each rule must fire on its own
// method and on no other one. Each method does one call's work; the clients repeat it.
using System;
using System.Buffers;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using System.Text;
using System.Threading;

namespace Workload
{
    public static class RulePairShapes
    {
        static FixShape Make(string name, string rule, string bad, string good, string fw, string ev,
                             Action<int> b, Action<int> g, int calls) => new FixShape
        {
            Name = name, Rule = rule, BadMethod = "Workload.RulePairShapes." + bad, GoodMethod = "Workload.RulePairShapes." + good,
            Framework = fw, Evidence = ev, Bad = b, Good = g, Calls = calls, Clients = 2,
        };

        public static FixShape Induced(Args a) => Make("induced", "gc.induced-collect", "CollectPerCall", "LetGcDecide",
            "System.Private.CoreLib", "cpu", i => CollectPerCall(i), i => LetGcDecide(i), 240);
        public static FixShape Reflection(Args a) => Make("reflection", "reflection.hot-path", "InvokeByName", "InvokeCachedDelegate",
            "System.Private.CoreLib", "cpu", i => InvokeByName(i), i => InvokeCachedDelegate(i), 2500);
        public static FixShape Split(Args a) => Make("split", "str.split-substring-churn", "ParseBySplit", "ParseBySpan",
            "System.Private.CoreLib", "alloc", i => ParseBySplit(i), i => ParseBySpan(i), 200);
        public static FixShape Hash(Args a) => Make("hash", "hash.expensive-equality", "LookupSlowKey", "LookupCachedHashKey",
            "System.Private.CoreLib", "cpu", i => LookupSlowKey(i), i => LookupCachedHashKey(i), 150);
        public static FixShape Timer(Args a)
        {
            FixShape s = Make("timer", "threads.timer-per-call", "TimeoutPerCallTimer", "TimeoutSharedDeadline",
                "System.Private.CoreLib", "cpu", i => TimeoutPerCallTimer(i), i => TimeoutSharedDeadline(i), 300);
            s.Setup = StartSweep;
            return s;
        }
        public static FixShape EnumKey(Args a) => Make("enumkey", "box.enum-key", "KeyByEnumToString", "KeyByEnumIndex",
            "System.Private.CoreLib", "cpu", i => KeyByEnumToString(i), i => KeyByEnumIndex(i), 250);
        public static FixShape Builder(Args a) => Make("sbcapacity", "str.builder-no-capacity", "BuildUnsized", "BuildPresized",
            "System.Private.CoreLib", "alloc", i => BuildUnsized(i), i => BuildPresized(i), 500);
        public static FixShape Format(Args a) => Make("format", "str.format-hot", "LabelByFormat", "LabelByTryFormat",
            "System.Private.CoreLib", "alloc", i => LabelByFormat(i), i => LabelByTryFormat(i), 700);
        public static FixShape Linq(Args a) => Make("linq", "linq.hot-path", "SumByLinq", "SumByLoop",
            "System.Linq", "alloc", i => SumByLinq(i), i => SumByLoop(i), 400);
        public static FixShape Growth(Args a) => Make("growth", "mem.collection-growth", "FillUnsizedList", "FillPresizedList",
            "System.Private.CoreLib", "alloc", i => FillUnsizedList(i), i => FillPresizedList(i), 240);
        public static FixShape ToArray(Args a) => Make("mstoarray", "mem.memorystream-toarray", "PayloadByToArray", "PayloadByGetBuffer",
            "System.Private.CoreLib", "alloc", i => PayloadByToArray(i), i => PayloadByGetBuffer(i), 1500);
        public static FixShape Crypto(Args a) => Make("crypto", "crypto.per-call", "HashWithNewAlgorithm", "HashWithStaticHashData",
            "System.Security.Cryptography", "cpu", i => HashWithNewAlgorithm(i), i => HashWithStaticHashData(i), 900);
        public static FixShape Now(Args a) => Make("datetime", "time.datetime-now-hot", "StampLocalNow", "StampUtcNow",
            "System.Private.CoreLib", "cpu", i => StampLocalNow(i), i => StampUtcNow(i), 800);
        public static FixShape Pinned(Args a) => Make("pinned", "gc.pinned-alloc", "PinnedBufferPerCall", "PinnedBufferPooled",
            "System.Private.CoreLib", "alloc", i => PinnedBufferPerCall(i), i => PinnedBufferPooled(i), 2000);
        public static FixShape Spin(Args a) => new FixShape
        {
            Name = "spin", Rule = "threads.spin-wait", BadMethod = "Workload.RulePairShapes.AwaitResultSpinning",
            GoodMethod = "Workload.RulePairShapes.AwaitResultBlocking", Framework = "System.Private.CoreLib", Evidence = "cpu",
            Bad = i => AwaitResultSpinning(i), Good = i => AwaitResultBlocking(i), Calls = 120, Clients = 2, Setup = StartWorker,
        };
        public static FixShape Logging(Args a) => Make("logging", "log.no-source-generator", "LogByExtension", "LogByDefinedMessage",
            "Microsoft.Extensions.Logging.Abstractions", "alloc", i => LogByExtension(i), i => LogByDefinedMessage(i), 4000);
        public static FixShape Finalizer(Args a) => Make("finalizer", "gc.finalizer-backlog", "OpenFinalizable", "OpenDisposed",
            "System.Private.CoreLib", "cpu", i => OpenFinalizable(i), i => OpenDisposed(i), 300);

        // --- induced: GC.Collect() after each batch vs leaving the GC to its budget
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void CollectPerCall(int i) { Churn(i); GC.Collect(); }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void LetGcDecide(int i) { Churn(i); }
        static void Churn(int i) { for (int k = 0; k < 2000; k++) Sink.Keep(new byte[64 + (k & 31)]); }

        // --- reflection: Type.GetMethod + MethodInfo.Invoke per item vs a delegate built once (string
        // arguments and result: nothing boxed, so only the reflection differs)
        public static string Pick(string x, string y) => x.Length >= y.Length ? x : y;
        static readonly Func<string, string, string> PickDelegate = (Func<string, string, string>)Delegate.CreateDelegate(
            typeof(Func<string, string, string>), typeof(RulePairShapes).GetMethod(nameof(Pick)));
        static readonly string[] Words = { "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta" };
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int InvokeByName(int i)
        {
            int s = 0;
            var args = new object[2];
            for (int k = 0; k < 400; k++)
            {
                args[0] = Words[k & 7]; args[1] = Words[(k + i) & 7];
                s += ((string)typeof(RulePairShapes).GetMethod(nameof(Pick), BindingFlags.Public | BindingFlags.Static).Invoke(null, args)).Length;
            }
            return s;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int InvokeCachedDelegate(int i)
        {
            int s = 0;
            for (int k = 0; k < 400; k++) s += PickDelegate(Words[k & 7], Words[(k + i) & 7]).Length;
            return s;
        }

        // --- split: string.Split + Substring per CSV line vs spans over the line
        static readonly string Line = MakeLine();
        static string MakeLine()
        {
            var sb = new StringBuilder();
            for (int k = 0; k < 64; k++) sb.Append(k == 0 ? "" : ",").Append('f').Append(k).Append('=').Append(k * 7);
            return sb.ToString();
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long ParseBySplit(int i)
        {
            long s = 0;
            for (int r = 0; r < 40; r++)
                foreach (string field in Line.Split(','))
                {
                    int eq = field.IndexOf('=');
                    s += int.Parse(field.Substring(eq + 1)) + field.Substring(0, eq).Length;
                }
            return s + i;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long ParseBySpan(int i)
        {
            long s = 0;
            for (int r = 0; r < 40; r++)
            {
                ReadOnlySpan<char> rest = Line;
                while (!rest.IsEmpty)
                {
                    int c = rest.IndexOf(',');
                    ReadOnlySpan<char> field = c < 0 ? rest : rest.Slice(0, c);
                    int eq = field.IndexOf('=');
                    s += int.Parse(field.Slice(eq + 1)) + eq;
                    rest = c < 0 ? ReadOnlySpan<char>.Empty : rest.Slice(c + 1);
                }
            }
            return s + i;
        }

        // --- hash: a key whose GetHashCode re-hashes its whole text on every lookup vs one hashed once
        public sealed class SlowKey : IEquatable<SlowKey>
        {
            public readonly string Text;
            public SlowKey(string t) { Text = t; }
            [MethodImpl(MethodImplOptions.NoInlining)]
            public override int GetHashCode()
            {
                uint h = 2166136261;
                for (int r = 0; r < 4; r++)
                    foreach (char ch in Text) h = (h ^ ch) * 16777619;
                return (int)h;
            }
            public bool Equals(SlowKey o) => o != null && string.Equals(Text, o.Text);
            public override bool Equals(object o) => Equals(o as SlowKey);
        }
        public sealed class HashedKey : IEquatable<HashedKey>
        {
            public readonly string Text;
            readonly int _hash;
            public HashedKey(string t) { Text = t; _hash = t.GetHashCode(); }
            public override int GetHashCode() => _hash;
            public bool Equals(HashedKey o) => o != null && (ReferenceEquals(this, o) || (_hash == o._hash && string.Equals(Text, o.Text)));
            public override bool Equals(object o) => Equals(o as HashedKey);
        }
        static readonly SlowKey[] SlowKeys = new SlowKey[256];
        static readonly HashedKey[] HashedKeys = new HashedKey[256];
        static readonly Dictionary<SlowKey, int> SlowMap = new Dictionary<SlowKey, int>();
        static readonly Dictionary<HashedKey, int> HashedMap = new Dictionary<HashedKey, int>();
        static readonly List<int> Numbers = new List<int>(2000);
        static RulePairShapes()
        {
            // loops, not LINQ: the static constructor must not look like a LINQ hot path
            for (int k = 0; k < 256; k++)
            {
                string t = "customer/" + k + "/" + new string('x', 200);
                SlowKeys[k] = new SlowKey(t); HashedKeys[k] = new HashedKey(t);
                SlowMap[SlowKeys[k]] = k; HashedMap[HashedKeys[k]] = k;
            }
            for (int k = 0; k < 2000; k++) Numbers.Add(k);
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LookupSlowKey(int i)
        {
            long s = 0;
            for (int k = 0; k < 400; k++) s += SlowMap[SlowKeys[(k + i) & 255]];
            return s;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long LookupCachedHashKey(int i)
        {
            long s = 0;
            for (int k = 0; k < 400; k++) s += HashedMap[HashedKeys[(k + i) & 255]];
            return s;
        }

        // --- timer: a System.Threading.Timer per call for its timeout vs one sweep timer over deadlines
        static long _fired;
        static readonly long[] Deadlines = new long[4096];
        static System.Threading.Timer _sweep;   // made by the shape's Setup: a first timer costs tens of ms (JIT, timer queue)
        static void StartSweep() => _sweep ??= new System.Threading.Timer(_ => Interlocked.Increment(ref _fired), null, 1000, 1000);
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int TimeoutPerCallTimer(int i)
        {
            int s = 0;
            for (int k = 0; k < 1000; k++)
            {
                using var t = new System.Threading.Timer(_ => Interlocked.Increment(ref _fired), null, 30000, Timeout.Infinite);
                s += Work(k);
            }
            return s + i;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int TimeoutSharedDeadline(int i)
        {
            int s = 0;
            for (int k = 0; k < 1000; k++)
            {
                Deadlines[(i * 1000 + k) & 4095] = Environment.TickCount64 + 30000;
                s += Work(k);
            }
            GC.KeepAlive(_sweep);
            return s + i;
        }
        static int Work(int k) { int x = k; for (int j = 0; j < 50; j++) x = x * 31 + j; return x; }

        // --- enumkey: a cache key built with Enum.ToString() per item vs a name table indexed by the value
        public enum Region { North, South, East, West, Central, Overseas }
        static readonly string[] RegionNames = Enum.GetNames<Region>();
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int KeyByEnumToString(int i)
        {
            int s = 0;
            for (int k = 0; k < 20000; k++) s += ((Region)((k + i) % 6)).ToString().Length;
            return s;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int KeyByEnumIndex(int i)
        {
            int s = 0;
            for (int k = 0; k < 20000; k++) s += RegionNames[(k + i) % 6].Length;
            return s;
        }

        // --- sbcapacity: a StringBuilder grown chunk by chunk vs one sized for the text up front
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int BuildUnsized(int i)
        {
            var sb = new StringBuilder();
            for (int k = 0; k < 6000; k++) sb.Append("row ").Append(k).Append(';');
            Sink.Keep(sb);
            return sb.Length + i;
        }
        [ThreadStatic] static StringBuilder _sb;
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int BuildPresized(int i)
        {
            var sb = _sb ??= new StringBuilder(64 * 1024);
            sb.Clear();
            for (int k = 0; k < 6000; k++) sb.Append("row ").Append(k).Append(';');
            return sb.Length + i;
        }

        // --- format: string.Format per label vs TryFormat into a reused buffer
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LabelByFormat(int i)
        {
            int s = 0;
            for (int k = 0; k < 500; k++) { string l = string.Format("{0}-{1}:{2}", "item", Words[k & 7], Words[i & 7]); s += l.Length; Sink.Keep(l); }
            return s;
        }
        [ThreadStatic] static char[] _label;
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LabelByTryFormat(int i)
        {
            var buf = _label ??= new char[64];
            int s = 0;
            for (int k = 0; k < 500; k++)
            {
                string a = Words[k & 7], b = Words[i & 7];
                "item-".AsSpan().CopyTo(buf);
                a.AsSpan().CopyTo(buf.AsSpan(5));
                buf[5 + a.Length] = ':';
                b.AsSpan().CopyTo(buf.AsSpan(6 + a.Length));
                s += 6 + a.Length + b.Length;
            }
            return s;
        }

        // --- linq: Where/Select/Sum over a list per call vs a plain loop
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long SumByLinq(int i)
        {
            long s = 0;
            for (int r = 0; r < 8; r++)
                s += Numbers.Where(x => (x + r) % 3 == 0).Select(x => (long)x * i).ToList().Sum();
            return s;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long SumByLoop(int i)
        {
            long s = 0;
            for (int r = 0; r < 8; r++)
                foreach (int x in Numbers) if ((x + r) % 3 == 0) s += (long)x * i;
            return s;
        }

        // --- growth: a List<T> grown by doubling from empty vs one created at its final size
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FillUnsizedList(int i)
        {
            var l = new List<long>();
            for (int k = 0; k < 20000; k++) l.Add(k + i);
            Sink.Keep(l);
            return l.Count;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int FillPresizedList(int i)
        {
            var l = new List<long>(20000);
            for (int k = 0; k < 20000; k++) l.Add(k + i);
            Sink.Keep(l);
            return l.Count;
        }

        // --- mstoarray: MemoryStream.ToArray to hand the bytes on vs the stream's own buffer
        static readonly byte[] Chunk = new byte[1024];
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int PayloadByToArray(int i)
        {
            var ms = new MemoryStream(40 * 1024);
            for (int k = 0; k < 40; k++) ms.Write(Chunk, 0, Chunk.Length);
            byte[] copy = ms.ToArray();
            Sink.Keep(copy);
            return copy.Length + i;
        }
        [ThreadStatic] static MemoryStream _ms;
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int PayloadByGetBuffer(int i)
        {
            var ms = _ms ??= new MemoryStream(40 * 1024);
            ms.SetLength(0);
            for (int k = 0; k < 40; k++) ms.Write(Chunk, 0, Chunk.Length);
            ArraySegment<byte> seg = ms.TryGetBuffer(out var b) ? b : default;
            return seg.Count + i;
        }

        // --- crypto: SHA256.Create() per message vs the static one-shot SHA256.HashData
        static readonly byte[] Message = Encoding.ASCII.GetBytes("order=1234;customer=42;total=99.95");
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int HashWithNewAlgorithm(int i)
        {
            int s = 0;
            for (int k = 0; k < 100; k++) { using var h = SHA256.Create(); s += h.ComputeHash(Message)[0]; }
            return s + i;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int HashWithStaticHashData(int i)
        {
            Span<byte> d = stackalloc byte[32];
            int s = 0;
            for (int k = 0; k < 100; k++) { SHA256.HashData(Message, d); s += d[0]; }
            return s + i;
        }

        // --- datetime: DateTime.Now (a time-zone conversion) per stamp vs DateTime.UtcNow
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long StampLocalNow(int i)
        {
            long s = 0;
            for (int k = 0; k < 2000; k++) s += DateTime.Now.Ticks & 0xff;
            return s + i;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long StampUtcNow(int i)
        {
            long s = 0;
            for (int k = 0; k < 2000; k++) s += DateTime.UtcNow.Ticks & 0xff;
            return s + i;
        }

        // --- pinned: a pinned (POH) buffer allocated per call vs one rented from a pool
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int PinnedBufferPerCall(int i)
        {
            int s = 0;
            for (int k = 0; k < 4; k++) { byte[] b = GC.AllocateArray<byte>(32 * 1024, pinned: true); b[k] = (byte)i; s += b.Length; Sink.Keep(b); }
            return s;
        }
        static readonly ArrayPool<byte> Pool = ArrayPool<byte>.Create(32 * 1024, 64);
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int PinnedBufferPooled(int i)
        {
            int s = 0;
            for (int k = 0; k < 4; k++) { byte[] b = Pool.Rent(32 * 1024); b[k] = (byte)i; s += b.Length; Pool.Return(b); }
            return s;
        }

        // --- spin: a client hands a job to a worker thread and spins (Thread.SpinWait) until the result
        // is there vs blocking on the job's monitor until the worker pulses it. The worker itself waits
        // with Monitor.Wait in both variants, and a job is a wait (a 1 ms sleep, as I/O would be): only
        // the client's wait differs, and the worker has no running time of its own to rank.
        sealed class Job { public int Input, Output; public volatile bool Done; }
        static readonly object JobLock = new object();
        static readonly Queue<Job> Jobs = new Queue<Job>();
        static Thread _worker;
        static void StartWorker()
        {
            if (_worker != null) return;
            _worker = new Thread(() =>
            {
                for (;;)
                {
                    Job j;
                    lock (JobLock) { while (Jobs.Count == 0) Monitor.Wait(JobLock); j = Jobs.Dequeue(); }
                    Thread.Sleep(1);
                    j.Output = j.Input * 31;
                    lock (j) { j.Done = true; Monitor.PulseAll(j); }
                }
            }) { IsBackground = true, Name = "spin-worker" };
            _worker.Start();
        }
        // (the post is written out in both: a shared helper would be a frame of its own)
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int AwaitResultSpinning(int i)
        {
            var j = new Job { Input = i };
            lock (JobLock) { Jobs.Enqueue(j); Monitor.Pulse(JobLock); }
            var spin = new SpinWait();
            while (!j.Done) spin.SpinOnce(-1);   // -1: never yields to a sleep, a pure spin
            return j.Output;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int AwaitResultBlocking(int i)
        {
            var j = new Job { Input = i };
            lock (JobLock) { Jobs.Enqueue(j); Monitor.Pulse(JobLock); }
            lock (j) { while (!j.Done) Monitor.Wait(j); }
            return j.Output;
        }

        // --- logging: ILogger.LogInformation(template, args) per event (a params object[] and the
        // template's parsing state per call) vs a LoggerMessage.Define'd delegate made once. String
        // arguments: nothing boxed. The logger is enabled: a structured sink that keeps the last event's
        // state for a later write (it formats nothing itself).
        sealed class LastMessageLogger : Microsoft.Extensions.Logging.ILogger
        {
            public object Last;
            public IDisposable BeginScope<TState>(TState state) where TState : notnull => null;
            public bool IsEnabled(Microsoft.Extensions.Logging.LogLevel level) => true;
            public void Log<TState>(Microsoft.Extensions.Logging.LogLevel level, Microsoft.Extensions.Logging.EventId id, TState state,
                                    Exception e, Func<TState, Exception, string> formatter) { Last = state; }
        }
        [ThreadStatic] static LastMessageLogger _logger;
        static readonly Action<Microsoft.Extensions.Logging.ILogger, string, string, Exception> OrderShipped =
            Microsoft.Extensions.Logging.LoggerMessage.Define<string, string>(Microsoft.Extensions.Logging.LogLevel.Information,
                new Microsoft.Extensions.Logging.EventId(1, "OrderShipped"), "order {Order} shipped to {Customer}");
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LogByExtension(int i)
        {
            var log = _logger ??= new LastMessageLogger();
            int s = 0;
            for (int k = 0; k < 200; k++)
            {
                Microsoft.Extensions.Logging.LoggerExtensions.LogInformation(log, "order {Order} shipped to {Customer}", Words[k & 7], Words[i & 7]);
                s += log.Last != null ? 1 : 0;
            }
            return s;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LogByDefinedMessage(int i)
        {
            var log = _logger ??= new LastMessageLogger();
            int s = 0;
            for (int k = 0; k < 200; k++) { OrderShipped(log, Words[k & 7], Words[i & 7], null); s += log.Last != null ? 1 : 0; }
            return s;
        }

        // --- finalizer: objects that own a handle with only a finalizer (the finalizer thread does the
        // release, after a GC) vs Dispose() releasing it at once with GC.SuppressFinalize
        public sealed class Handle : IDisposable
        {
            readonly byte[] _state = new byte[256];
            public bool Released;
            // the release work is written out in both (not a shared helper): the finalizer's own
            // frame is where the finalizer thread's time lands
            [MethodImpl(MethodImplOptions.NoInlining)]
            public void Dispose()
            {
                uint h = 0;
                for (int r = 0; r < 100; r++) foreach (byte x in _state) h = h * 31 + x + (uint)r;
                Released = h != 1;
                GC.SuppressFinalize(this);
            }
            ~Handle()
            {
                uint h = 0;
                for (int r = 0; r < 100; r++) foreach (byte x in _state) h = h * 31 + x + (uint)r;
                Released = h != 1;
            }
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int OpenFinalizable(int i)
        {
            int s = 0;
            for (int k = 0; k < 10; k++) { var h = new Handle(); s += h.Released ? 1 : 0; }
            return s + i;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int OpenDisposed(int i)
        {
            int s = 0;
            for (int k = 0; k < 10; k++) { using var h = new Handle(); s += h.Released ? 1 : 0; }
            return s + i;
        }
    }
}
