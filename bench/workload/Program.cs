// BenchWorkload: an app whose stacks look like production code, for the bench traces
// (bench/gen-traces.sh). Every unit of work walks a "request path": a chain of 6..(6+depth)
// service methods chosen by the path id (16 methods in 4 classes, called through function
// pointers so no dispatcher frame sits between them), and ends in a leaf that allocates
// (scenario alloc) or computes (scenario cpu), partly inside framework code. Path ids are
// drawn from a skewed distribution over --paths ids, so a few paths are hot and most are
// rare: the number of distinct stacks grows with the run, as in a real service.
//
//   dotnet BenchWorkload.dll alloc|cpu [--seconds S] [--threads T] [--paths P] [--depth D]
//                                      [--skew K] [--sleepers N] [--idle-threads N] [--seed N]
//
// Nothing here is a test: it prints what it did on stderr and writes no file.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Shop
{
    public struct Walk
    {
        public ulong State;
        public int Left;
        public int Leaf;
        public int Size;
        public long Work;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public int Next()
        {
            State ^= State >> 12; State ^= State << 25; State ^= State >> 27;
            return (int)((State * 2685821657736338717UL) >> 60);
        }

        public static ulong Mix(ulong z)
        {
            z += 0x9E3779B97F4A7C15UL;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return z ^ (z >> 31);
        }
    }

    static unsafe class Route
    {
        public static readonly delegate*<ref Walk, void>[] Steps =
        {
            &Catalog.ProductService.Load, &Catalog.ProductService.Resolve, &Catalog.PriceRules.Apply, &Catalog.PriceRules.Evaluate,
            &Orders.CartController.Get, &Orders.CartController.Update, &Orders.CheckoutPipeline.Validate, &Orders.CheckoutPipeline.Commit,
            &Infra.Repository.Query, &Infra.Repository.Map, &Infra.CacheLayer.GetOrAdd, &Infra.CacheLayer.Refresh,
            &Web.Middleware.Invoke, &Web.Middleware.Next, &Web.Serializer.Write, &Web.Serializer.WriteValue,
        };
        [ThreadStatic] public static delegate*<ref Walk, void>[] Leaves;

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public static void Go(ref Walk w)
        {
            if (--w.Left <= 0) Leaves[w.Leaf](ref w);
            else Steps[w.Next()](ref w);
        }
    }
}

// The service methods: each steps to the next one; the statement after the call keeps the JIT
// from turning it into a tail call (which would flatten the stack).
namespace Shop.Catalog
{
    static class ProductService
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Load(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Resolve(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
    static class PriceRules
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Apply(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Evaluate(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
}
namespace Shop.Orders
{
    static class CartController
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Get(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Update(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
    static class CheckoutPipeline
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Validate(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Commit(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
}
namespace Shop.Infra
{
    static class Repository
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Query(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Map(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
    static class CacheLayer
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void GetOrAdd(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Refresh(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
}
namespace Shop.Web
{
    static class Middleware
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Invoke(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Next(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
    static class Serializer
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Write(ref Walk w) { Route.Go(ref w); w.Work++; }
        [MethodImpl(MethodImplOptions.NoInlining)] public static void WriteValue(ref Walk w) { Route.Go(ref w); w.Work++; }
    }
}

namespace Shop.Leaves
{
    public sealed class Record { public long Id; public string Name; public double Price; }

    // Allocating leaves: mostly arrays of 8-80 KB (about one GCAllocationTick each), some
    // through framework code (List growth, Dictionary, string).
    static class Alloc
    {
        static readonly object[] Sink = new object[4096];
        static int slot;
        static void Keep(object o) => Sink[Interlocked.Increment(ref slot) & 4095] = o;

        [MethodImpl(MethodImplOptions.NoInlining)] public static void MakeBuffer(ref Walk w) => Keep(GC.AllocateUninitializedArray<byte>(40_000 + w.Size * 4));
        [MethodImpl(MethodImplOptions.NoInlining)] public static void MakeSamples(ref Walk w) => Keep(GC.AllocateUninitializedArray<double>(5_000 + w.Size / 2));
        [MethodImpl(MethodImplOptions.NoInlining)] public static void MakeIds(ref Walk w) => Keep(GC.AllocateUninitializedArray<long>(6_000 + w.Size / 2));
        [MethodImpl(MethodImplOptions.NoInlining)] public static void MakeText(ref Walk w) => Keep(new string('x', 10_000 + w.Size));
        [MethodImpl(MethodImplOptions.NoInlining)] public static void MakeRecords(ref Walk w) => Keep(new Record[5_000 + w.Size / 2]);
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void MakeList(ref Walk w)
        {
            var l = new List<int>();
            for (int i = 0; i < 12_000 + w.Size; i++) l.Add(i);
            Keep(l);
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void MakeIndex(ref Walk w)
        {
            var d = new Dictionary<int, Record>(2_000 + w.Size / 8);
            Keep(d);
        }
    }

    // Waiting leaves of the --sleepers threads: a request blocked on I/O at the end of its
    // path, 1-6 ms. They make most of the samples (the sampler sweeps every thread each
    // millisecond) and, as each sleeper takes a new path when it wakes, most distinct stacks.
    static class Io
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void ReadSocket(ref Walk w) => Thread.Sleep(1 + w.Size % 6);
        [MethodImpl(MethodImplOptions.NoInlining)] public static void QueryDatabase(ref Walk w) => Thread.Sleep(1 + w.Size % 5);
        [MethodImpl(MethodImplOptions.NoInlining)] public static void AwaitLock(ref Walk w) => Thread.Sleep(1 + w.Size % 3);
    }

    // Computing leaves: 10-60 us each, partly in framework code.
    static class Compute
    {
        [ThreadStatic] static int[] scratch;
        [ThreadStatic] static char[] text;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Spin(ref Walk w)
        {
            ulong x = w.State;
            for (int i = 0; i < 20_000 + w.Size; i++) x = x * 6364136223846793005UL + (ulong)i;
            w.Work += (long)(x & 1);
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void SortBlock(ref Walk w)
        {
            var a = scratch ??= new int[2048];
            ulong x = w.State | 1;
            for (int i = 0; i < a.Length; i++) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; a[i] = (int)x; }
            Array.Sort(a);
            w.Work += a[0] & 1;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void FormatNumbers(ref Walk w)
        {
            var t = text ??= new char[32];
            for (int i = 0; i < 2_000; i++) ((long)w.State + i).TryFormat(t, out _, default, CultureInfo.InvariantCulture);
            w.Work += t[0];
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void ParseNumbers(ref Walk w)
        {
            long s = 0;
            for (int i = 0; i < 2_000; i++) s += long.Parse("123456789".AsSpan(i % 5), NumberStyles.Integer, CultureInfo.InvariantCulture);
            w.Work += s & 1;
        }
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void HashText(ref Walk w)
        {
            int h = 0;
            var s = "the quick brown fox jumps over the lazy dog, again and again and again";
            for (int i = 0; i < 3_000; i++) h ^= string.GetHashCode(s.AsSpan(i % 20));
            w.Work += h & 1;
        }
    }
}

namespace Shop
{
    static unsafe class Program
    {
        static int Main(string[] args)
        {
            if (args.Length >= 1 && args[0] == "heap") return Shop.HeapModel.HeapScenario.Run(args);
            if (args.Length < 1 || (args[0] != "alloc" && args[0] != "cpu"))
            {
                Console.Error.WriteLine("usage: BenchWorkload alloc|cpu|heap [--seconds S] [--threads T] [--paths P] [--depth D] [--skew K] [--sleepers N] [--idle-threads N] [--seed N]");
                return 2;
            }
            bool alloc = args[0] == "alloc";
            double seconds = 10, skew = 2.0;
            int threads = 2, depth = 40, idle = alloc ? 0 : 2, sleepers = alloc ? 0 : 48;
            long paths = alloc ? 20_000 : 4_000_000;
            ulong seed = 1;
            for (int i = 1; i + 1 < args.Length; i += 2)
            {
                string v = args[i + 1];
                switch (args[i])
                {
                    case "--seconds": seconds = double.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--threads": threads = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--paths": paths = long.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--depth": depth = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--skew": skew = double.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--sleepers": sleepers = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--idle-threads": idle = int.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--seed": seed = ulong.Parse(v, CultureInfo.InvariantCulture); break;
                    default: Console.Error.WriteLine($"unknown option {args[i]}"); return 2;
                }
            }
            var work = alloc
                ? new delegate*<ref Walk, void>[] {
                    &Leaves.Alloc.MakeBuffer, &Leaves.Alloc.MakeSamples, &Leaves.Alloc.MakeIds, &Leaves.Alloc.MakeText,
                    &Leaves.Alloc.MakeRecords, &Leaves.Alloc.MakeList, &Leaves.Alloc.MakeIndex }
                : new delegate*<ref Walk, void>[] {
                    &Leaves.Compute.Spin, &Leaves.Compute.SortBlock, &Leaves.Compute.FormatNumbers,
                    &Leaves.Compute.ParseNumbers, &Leaves.Compute.HashText };

            var stop = new ManualResetEventSlim(false);
            var deadline = Stopwatch.StartNew();
            long walks = 0;
            var workers = new List<Thread>();
            var wait = new delegate*<ref Walk, void>[] { &Leaves.Io.ReadSocket, &Leaves.Io.QueryDatabase, &Leaves.Io.AwaitLock };
            for (int t = 0; t < threads + sleepers; t++)
            {
                ulong tseed = Walk.Mix(seed * 1000 + (ulong)t);
                var leaves = t < threads ? work : wait;
                var th = new Thread(() => Interlocked.Add(ref walks, Worker(leaves, tseed, paths, depth, skew, deadline, seconds)));
                th.Start();
                workers.Add(th);
            }
            for (int t = 0; t < idle; t++)
            {
                int which = t;
                var th = new Thread(() => Idle(stop, which)) { IsBackground = true };
                th.Start();
            }
            foreach (var th in workers) th.Join();
            stop.Set();
            Console.Error.WriteLine($"{args[0]}: {walks} walks on {threads} threads and {sleepers} sleepers in {deadline.Elapsed.TotalSeconds:F1} s, paths {paths}, depth 6..{6 + depth}, skew {skew}");
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static long Worker(delegate*<ref Walk, void>[] table, ulong rng, long paths, int depth, double skew, Stopwatch clock, double seconds)
        {
            long n = 0;
            Route.Leaves = table;
            var leaves = table.Length;
            while ((n & 63) != 0 || clock.Elapsed.TotalSeconds < seconds)
            {
                rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
                double u = (rng >> 11) * (1.0 / (1UL << 53));
                ulong path = (ulong)(Math.Pow(u, skew) * paths);
                ulong m = Walk.Mix(path);
                var w = new Walk { State = m | 1, Left = 6 + (int)(m % (ulong)(depth + 1)), Leaf = (int)((m >> 32) % (ulong)leaves), Size = (int)((m >> 40) & 0x3FFF) };
                Route.Steps[w.Next()](ref w);
                n++;
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Idle(ManualResetEventSlim stop, int t)
        {
            if (t % 2 == 0) Infra.CacheLayerIdle.WaitForInvalidation(stop);
            else Web.ListenerIdle.Accept(stop);
        }
    }
}

namespace Shop.Infra
{
    static class CacheLayerIdle
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void WaitForInvalidation(ManualResetEventSlim s) { s.Wait(); GC.KeepAlive(s); }
    }
}
namespace Shop.Web
{
    static class ListenerIdle
    {
        [MethodImpl(MethodImplOptions.NoInlining)] public static void Accept(ManualResetEventSlim s) { while (!s.Wait(50)) { } GC.KeepAlive(s); }
    }
}
