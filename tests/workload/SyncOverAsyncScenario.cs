// fix --shape syncasync: async client flows on the thread pool whose handler blocks on `.Result`
// of an async call (pool threads block, the pool starves and injects threads) vs the same handler
// awaited. Both variants start the same flows and Main waits for them the same way.
using System;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Workload
{
    public static class SyncOverAsyncScenario
    {
        static int _threadsStart;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "syncasync", Rule = "sync over async",
            BadMethod = "Workload.SyncOverAsyncScenario.LoadBlocking", GoodMethod = "Workload.SyncOverAsyncScenario.LoadAwaiting",
            Framework = "System.Private.CoreLib", Evidence = "cpu", Clients = 8, Calls = 100,
            Setup = () => { ThreadPool.SetMinThreads(2, 2); _threadsStart = ThreadPool.ThreadCount; },
            BadAsync = i => { LoadBlocking(i); return Task.CompletedTask; },
            GoodAsync = i => LoadAwaiting(i),
            Facts = f => { f["thread_pool_threads_start"] = _threadsStart; f["thread_pool_threads_end"] = ThreadPool.ThreadCount; f["wait"] = "System.Threading.Tasks.Task`1.get_Result"; },
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int LoadBlocking(int i) => FetchAsync(i).Result;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> LoadAwaiting(int i) => await FetchAsync(i).ConfigureAwait(false);

        static async Task<int> FetchAsync(int i)
        {
            await Task.Delay(2).ConfigureAwait(false);
            return i * 2;
        }
    }
}
