// fix --shape loh: a 256 KB byte[] per call (large-object heap churn) vs the same buffer rented
// from ArrayPool<byte>.Shared.
using System;
using System.Buffers;
using System.Runtime.CompilerServices;

namespace Workload
{
    public static class LohScenario
    {
        const int Size = 256 * 1024;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "loh", Rule = "loh array churn (ArrayPool)",
            BadMethod = "Workload.LohScenario.CopyNewBuffer", GoodMethod = "Workload.LohScenario.CopyPooledBuffer",
            Framework = "System.Private.CoreLib", Evidence = "alloc",
            Bad = i => CopyNewBuffer(i), Good = i => CopyPooledBuffer(i),
            Facts = f => { f["buffer_bytes"] = Size; f["buffer_type"] = "System.Byte[]"; f["kind"] = "Large"; },
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CopyNewBuffer(int i)
        {
            byte[] buf = new byte[Size];
            Sink.Keep(buf);
            return Fill(buf, i);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int CopyPooledBuffer(int i)
        {
            byte[] buf = ArrayPool<byte>.Shared.Rent(Size);
            try { return Fill(buf, i); }
            finally { ArrayPool<byte>.Shared.Return(buf); }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Fill(byte[] buf, int i)
        {
            int s = 0;
            for (int k = 0; k < Size; k += 512) { buf[k] = (byte)(i + k); s += buf[k]; }
            return s;
        }
    }
}
