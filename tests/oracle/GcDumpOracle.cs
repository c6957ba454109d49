// .gcdump facts through the GCHeapDump / Graphs.MemoryGraph reader. That reader is NOT in the
// TraceEvent NuGet package (verified for 4.0.0: no GCHeapDump / Graphs.* types); dotnet-gcdump carries
// it compiled into dotnet-gcdump.dll, so we load that assembly (pinned tool version) in its own
// AssemblyLoadContext and call it by reflection.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.Loader;

namespace PerfpipeOracle
{
    public static class GcDumpOracle
    {
        public static JObj Run(string path, string gcdumpDll)
        {
            if (gcdumpDll == null || !File.Exists(gcdumpDll))
                throw new FileNotFoundException("need --gcdump-dll PATH/dotnet-gcdump.dll (or env PP_GCDUMP_DLL); the tool's store holds it under .store/dotnet-gcdump/VERSION/.../tools/net8.0/any/");
            string dir = Path.GetDirectoryName(Path.GetFullPath(gcdumpDll));
            var alc = new AssemblyLoadContext("gcdump", false);
            alc.Resolving += (ctx, name) =>
            {
                string p = Path.Combine(dir, name.Name + ".dll");
                return File.Exists(p) ? ctx.LoadFromAssemblyPath(p) : null;
            };
            var asm = alc.LoadFromAssemblyPath(Path.GetFullPath(gcdumpDll));
            Type dumpT = asm.GetTypes().First(t => t.Name == "GCHeapDump");
            object dump = Activator.CreateInstance(dumpT, new object[] { path });
            object graph = dumpT.GetProperty("MemoryGraph").GetValue(dump);
            Type gT = graph.GetType();
            Type nodeIndexT = gT.GetProperty("NodeIndexLimit").PropertyType;
            Type typeIndexT = gT.GetProperty("NodeTypeIndexLimit").PropertyType;
            int nodeLimit = Convert.ToInt32(gT.GetProperty("NodeIndexLimit").GetValue(graph));
            int typeLimit = Convert.ToInt32(gT.GetProperty("NodeTypeIndexLimit").GetValue(graph));
            object nodeStorage = gT.GetMethod("AllocNodeStorage", Type.EmptyTypes).Invoke(graph, null);
            object typeStorage = gT.GetMethod("AllocTypeNodeStorage", Type.EmptyTypes).Invoke(graph, null);
            MethodInfo getNode = gT.GetMethods().First(m => m.Name == "GetNode" && m.GetParameters().Length == 2);
            MethodInfo getType = gT.GetMethods().First(m => m.Name == "GetType" && m.GetParameters().Length == 2);
            PropertyInfo nodeTypeIdx = nodeStorage.GetType().GetProperty("TypeIndex");
            PropertyInfo nodeSize = nodeStorage.GetType().GetProperty("Size");
            PropertyInfo typeName = typeStorage.GetType().GetProperty("Name");

            var names = new string[typeLimit];
            for (int t = 0; t < typeLimit; t++)
            {
                var ts = getType.Invoke(graph, new[] { Enum.ToObject(typeIndexT, t), typeStorage });
                names[t] = (string)typeName.GetValue(ts) ?? "";
            }
            var count = new Dictionary<string, long[]>(StringComparer.Ordinal);
            long total = 0;
            for (int i = 0; i < nodeLimit; i++)
            {
                var n = getNode.Invoke(graph, new[] { Enum.ToObject(nodeIndexT, i), nodeStorage });
                int ti = Convert.ToInt32(nodeTypeIdx.GetValue(n));
                long sz = Convert.ToInt64(nodeSize.GetValue(n));
                string nm = names[ti];
                if (!count.TryGetValue(nm, out var v)) count[nm] = v = new long[2];
                v[0]++; v[1] += sz; total += sz;
            }
            object mult = (object)dumpT.GetProperty("CountMultipliersByType")?.GetValue(dump) ?? dumpT.GetField("CountMultipliersByType")?.GetValue(dump);
            object totalSizeProp = (object)gT.GetProperty("TotalSize")?.GetValue(graph) ?? gT.GetField("TotalSize")?.GetValue(graph);

            var doc = Program.Header(path, "gcdump", "dotnet-gcdump GCHeapDump/Graphs.MemoryGraph", Program.AsmVersion(asm));
            doc.Add("graph", new JObj()
                .Add("nodes", (long)nodeLimit).Add("types", (long)typeLimit)
                .Add("total_size", totalSizeProp == null ? total : Convert.ToInt64(totalSizeProp))
                .Add("sum_node_sizes", total)
                .Add("root_index", Convert.ToInt64((object)gT.GetProperty("RootIndex")?.GetValue(graph) ?? gT.GetField("RootIndex")?.GetValue(graph) ?? -1L))
                .Add("sampled", mult != null));
            doc.Add("by_type", count.OrderBy(kv => kv.Key, StringComparer.Ordinal).Select(kv =>
                (object)new JObj().Add("type", kv.Key).Add("count", kv.Value[0]).Add("bytes", kv.Value[1])).ToList());
            return doc;
        }
    }
}
