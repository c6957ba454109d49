// fix --shape lock: every client updates one shared dictionary under one lock, holding it while it
// formats the key (the clients queue on the monitor) vs per-client shards merged once with
// Interlocked.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Workload
{
    public static class LockScenario
    {
        static readonly object Gate = new object();
        static readonly Dictionary<int, long> Shared = new Dictionary<int, long>();
        [ThreadStatic] static Dictionary<int, long> _shard;
        static long _merged;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "lock", Rule = "lock contention",
            BadMethod = "Workload.LockScenario.CountUnderOneLock", GoodMethod = "Workload.LockScenario.CountSharded",
            Framework = "System.Private.CoreLib", Evidence = "cpu",
            Bad = i => CountUnderOneLock(i), Good = i => CountSharded(i),
            Facts = f => { f["lock_type"] = "System.Threading.Monitor"; },
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long CountUnderOneLock(int i)
        {
            long r = 0;
            for (int k = 0; k < 200; k++)
            {
                lock (Gate)
                {
                    int key = Work(i + k);
                    Shared[key & 255] = Shared.TryGetValue(key & 255, out long v) ? v + 1 : 1;
                    r += v;
                }
            }
            return r;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long CountSharded(int i)
        {
            var shard = _shard ??= new Dictionary<int, long>();
            long r = 0;
            for (int k = 0; k < 200; k++)
            {
                int key = Work(i + k);
                shard[key & 255] = shard.TryGetValue(key & 255, out long v) ? v + 1 : 1;
                r += v;
            }
            Interlocked.Add(ref _merged, r);
            return r;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Work(int x)
        {
            int h = x;
            for (int k = 0; k < 3000; k++) h = h * 31 + k;
            return h;
        }
    }
}
