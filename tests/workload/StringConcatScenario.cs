// fix --shape strconcat: a 400-piece report line built with `s += piece` (a new string per piece,
// quadratic copying) vs one reused StringBuilder per thread.
using System;
using System.Runtime.CompilerServices;
using System.Text;

namespace Workload
{
    public static class StringConcatScenario
    {
        const int Pieces = 400;
        [ThreadStatic] static StringBuilder _sb;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "strconcat", Rule = "string building in loops (StringBuilder)",
            BadMethod = "Workload.StringConcatScenario.BuildByConcat", GoodMethod = "Workload.StringConcatScenario.BuildWithBuilder",
            Framework = "System.Private.CoreLib", Evidence = "alloc", Calls = 100,
            Bad = i => BuildByConcat(i), Good = i => BuildWithBuilder(i),
            Facts = f => { f["pieces"] = Pieces; f["type"] = "System.String"; },
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int BuildByConcat(int i)
        {
            string s = "";
            for (int k = 0; k < Pieces; k++) s += "cell;";
            Sink.Keep(s);
            return s.Length + i;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int BuildWithBuilder(int i)
        {
            StringBuilder sb = _sb ??= new StringBuilder(Pieces * 8);
            sb.Clear();
            for (int k = 0; k < Pieces; k++) sb.Append("cell;");
            int n = sb.Length;
            if ((i & 63) == 0) Sink.Keep(sb.ToString());
            return n + i;
        }
    }
}
