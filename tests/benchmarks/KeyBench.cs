using System;
using System.Runtime.CompilerServices;
using BenchmarkDotNet.Attributes;

namespace Perfpipe.Benchmarks
{
    // The L1 scenario of the test bed. FormatKeys is the method under change:
    // PP_BENCH_VARIANT=alloc builds every key as a string (two strings per key),
    // PP_BENCH_VARIANT=noalloc formats into a stack buffer and allocates nothing.
    // Checksum is the same code in both runs: compare must call it "same".
    // The variant is read from the environment, which BenchmarkDotNet's child
    // process inherits, so both runs have identical benchmark names and knobs.
    [MemoryDiagnoser]
    public class KeyBench
    {
        [Params(16, 64)]
        public int N;

        private bool allocating;
        private int[] data;

        public static string Sink;

        [GlobalSetup]
        public void Setup()
        {
            string v = Environment.GetEnvironmentVariable("PP_BENCH_VARIANT");
            if (v != "alloc" && v != "noalloc")
                throw new InvalidOperationException("set PP_BENCH_VARIANT to alloc or noalloc");
            allocating = v == "alloc";
            data = new int[N * 64];
            for (int i = 0; i < data.Length; i++)
                data[i] = i * 7 + 3;
        }

        [Benchmark]
        public int FormatKeys()
        {
            int total = 0;
            for (int i = 0; i < N; i++)
                total += allocating ? KeyAlloc(i) : KeySpan(i);
            return total;
        }

        [Benchmark]
        public long Checksum()
        {
            long sum = 0;
            int[] d = data;
            for (int i = 0; i < d.Length; i++)
                sum = sum * 31 + d[i];
            return sum;
        }

        // "key-000042": a 6-digit string and the concatenation, both on the heap.
        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int KeyAlloc(int i)
        {
            string s = string.Concat("key-", i.ToString("D6"));
            Sink = s;
            return s.Length;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int KeySpan(int i)
        {
            Span<char> buf = stackalloc char[16];
            "key-".AsSpan().CopyTo(buf);
            i.TryFormat(buf.Slice(4), out int written, "D6");
            return 4 + written;
        }
    }
}
