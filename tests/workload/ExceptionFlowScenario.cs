// fix --shape exceptions: int.Parse inside try/catch on input that is half invalid (an exception
// thrown and caught as control flow) vs int.TryParse.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Workload
{
    public static class ExceptionFlowScenario
    {
        static readonly string[] Inputs = { "12", "n/a", "7", "-", "42", "x9" };
        static long _thrown;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "exceptions", Rule = "exceptions as control flow",
            BadMethod = "Workload.ExceptionFlowScenario.ParseOrDefaultCatch", GoodMethod = "Workload.ExceptionFlowScenario.ParseOrDefaultTry",
            Framework = "System.Private.CoreLib", Evidence = "cpu", Calls = 100,
            Bad = i => ParseOrDefaultCatch(i), Good = i => ParseOrDefaultTry(i),
            Facts = f => { f["exceptions_thrown"] = Interlocked.Read(ref _thrown); f["exception_type"] = "System.FormatException"; },
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ParseOrDefaultCatch(int i)
        {
            int sum = 0;
            for (int k = 0; k < Inputs.Length; k++)
            {
                try { sum += int.Parse(Inputs[k], CultureInfo.InvariantCulture); }
                catch (FormatException) { Interlocked.Increment(ref _thrown); }
            }
            return sum + i;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ParseOrDefaultTry(int i)
        {
            int sum = 0;
            for (int r = 0; r < 40; r++)
                for (int k = 0; k < Inputs.Length; k++)
                    if (int.TryParse(Inputs[k], NumberStyles.Integer, CultureInfo.InvariantCulture, out int v)) sum += v;
            return sum + i;
        }
    }
}
