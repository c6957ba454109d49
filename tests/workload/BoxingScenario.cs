// fix --shape boxing: ints kept in a non-generic ArrayList (every Add boxes a System.Int32) vs a
// List<int>.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

namespace Workload
{
    public static class BoxingScenario
    {
        const int Items = 4000;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "boxing", Rule = "boxing through non-generic collections",
            BadMethod = "Workload.BoxingScenario.SumArrayList", GoodMethod = "Workload.BoxingScenario.SumGenericList",
            Framework = "System.Private.CoreLib", Evidence = "alloc",
            Bad = i => SumArrayList(i), Good = i => SumGenericList(i),
            Facts = f => { f["items"] = Items; f["type"] = "System.Int32"; },
        };

        [ThreadStatic] static List<int> _list;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long SumArrayList(int i)
        {
            var list = new ArrayList(Items);
            for (int k = 0; k < Items; k++) list.Add(k + i);
            long s = 0;
            foreach (object o in list) s += (int)o;
            Sink.Keep(list);
            return s;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long SumGenericList(int i)
        {
            var list = _list ??= new List<int>(Items);
            list.Clear();
            for (int k = 0; k < Items; k++) list.Add(k + i);
            long s = 0;
            foreach (int v in list) s += v;
            return s;
        }
    }
}
