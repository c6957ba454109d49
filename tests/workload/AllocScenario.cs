// alloc: named methods allocating known volumes of known types.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text.Json.Nodes;

namespace Workload
{
    public static class AllocScenario
    {
        public const int StringChars = 100;   // each string: 100 UTF-16 chars -> 224 bytes on 64-bit
        public const int BufferBytes = 8000;  // each byte[]: 8000 bytes -> 8024 bytes on 64-bit (below the LOH threshold)

        public static void Run(Args a, JsonObject truth)
        {
            int mbStrings = a.Int("mb-strings", 200);
            int mbBuffers = a.Int("mb-buffers", 100);
            int listItems = a.Int("list-items", 300000);
            int rounds = a.Int("rounds", 1);

            var methods = new JsonArray();
            var types = new JsonObject();
            long total = 0;
            var swAll = Stopwatch.StartNew();
            long before = GC.GetAllocatedBytesForCurrentThread();
            long strBytes = 0, bufBytes = 0, fwBytes = 0, strCount = 0, bufCount = 0;
            for (int r = 0; r < rounds; r++)
            {
                if (!a.Skipped("MakeStrings"))
                {
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    strCount += MakeStrings(mbStrings);
                    strBytes += GC.GetAllocatedBytesForCurrentThread() - b0;
                }
                if (!a.Skipped("MakeBuffers"))
                {
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    bufCount += MakeBuffers(mbBuffers);
                    bufBytes += GC.GetAllocatedBytesForCurrentThread() - b0;
                }
                if (!a.Skipped("GrowListsJoinLinq"))
                {
                    long b0 = GC.GetAllocatedBytesForCurrentThread();
                    GrowListsJoinLinq(listItems);
                    fwBytes += GC.GetAllocatedBytesForCurrentThread() - b0;
                }
            }
            total = GC.GetAllocatedBytesForCurrentThread() - before;
            swAll.Stop();
            Sink.Clear();

            methods.Add(M("Workload.AllocScenario.MakeStrings", "MakeStrings", !a.Skipped("MakeStrings"), strBytes, strCount,
                          new JsonArray("System.String"), "System.String..ctor (framework) called from MakeStrings"));
            methods.Add(M("Workload.AllocScenario.MakeBuffers", "MakeBuffers", !a.Skipped("MakeBuffers"), bufBytes, bufCount,
                          new JsonArray("System.Byte[]"), "new byte[] directly in MakeBuffers"));
            methods.Add(M("Workload.AllocScenario.GrowListsJoinLinq", "GrowListsJoinLinq", !a.Skipped("GrowListsJoinLinq"), fwBytes, -1,
                          new JsonArray("System.Int32[]", "System.String", "System.String[]", "System.Char[]"),
                          "framework allocations (List<int> growth, Int32.ToString via LINQ Select/ToArray, string.Join) reached through user code"));
            types["System.String"] = new JsonObject { ["bytes_min"] = strBytes, ["note"] = "bytes from MakeStrings only; GrowListsJoinLinq adds more System.String" };
            types["System.Byte[]"] = new JsonObject { ["bytes_min"] = bufBytes, ["note"] = "bytes from MakeBuffers" };

            truth["methods"] = methods;
            truth["types"] = types;
            truth["string_object_bytes"] = StringObjectSize(StringChars);
            truth["buffer_object_bytes"] = ArrayObjectSize(BufferBytes);
            truth["total_bytes_main_thread"] = total;
            truth["elapsed_ms"] = swAll.Elapsed.TotalMilliseconds;
            truth["note"] = "bytes are exact GC.GetAllocatedBytesForCurrentThread() deltas around each method call";
        }

        static JsonObject M(string full, string shortName, bool ran, long bytes, long objects, JsonArray types, string how) =>
            new JsonObject
            {
                ["method"] = full, ["short"] = shortName, ["ran"] = ran, ["bytes"] = bytes,
                ["objects"] = objects, ["types"] = types, ["how"] = how,
            };

        public static long StringObjectSize(int chars) => (IntPtr.Size * 2 + 4 + 2L * (chars + 1) + 7) & ~7L;
        public static long ArrayObjectSize(int len) => (IntPtr.Size * 2 + 8 + (long)len + 7) & ~7L;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long MakeStrings(int mb)
        {
            long target = (long)mb << 20, n = target / StringObjectSize(StringChars);
            for (long i = 0; i < n; i++)
                Sink.Keep(new string((char)('a' + (i % 26)), StringChars));   // PP-LINE: make-strings
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long MakeBuffers(int mb)
        {
            long target = (long)mb << 20, n = target / ArrayObjectSize(BufferBytes);
            for (long i = 0; i < n; i++)
            {
                var b = new byte[BufferBytes];   // PP-LINE: make-buffers
                b[0] = (byte)i;
                Sink.Keep(b);
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int GrowListsJoinLinq(int items)
        {
            var list = new List<int>();              // Int32[] growth inside List<T>
            for (int i = 0; i < items; i++) list.Add(i);   // PP-LINE: grow-add
            string[] texts = list.Select(x => x.ToString()).ToArray();   // LINQ + Int32.ToString  PP-LINE: grow-select
            string joined = string.Join(",", texts);                      // one large string  PP-LINE: grow-join
            Sink.Keep(list); Sink.Keep(texts); Sink.Keep(joined);
            return joined.Length;
        }
    }
}
