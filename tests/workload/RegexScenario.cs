// fix --shape regex: `new Regex(pattern)` on every call (parsed and compiled to an interpreter
// program each time) vs one static readonly Regex.
using System;
using System.Runtime.CompilerServices;
using System.Text.RegularExpressions;

namespace Workload
{
    public static class RegexScenario
    {
        const string Pattern = @"^[a-z0-9._%+-]+@[a-z0-9.-]+\.(com|org|net|io|[a-z]{2})$";
        static readonly Regex Email = new Regex(Pattern, RegexOptions.IgnoreCase | RegexOptions.CultureInvariant);
        static readonly string[] Inputs = { "ann@example.com", "bob.smith@mail.example.org", "not an address", "x@y.io" };

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "regex", Rule = "Regex constructed per call",
            BadMethod = "Workload.RegexScenario.ValidateNewRegex", GoodMethod = "Workload.RegexScenario.ValidateStaticRegex",
            Framework = "System.Text.RegularExpressions", Evidence = "cpu", Calls = 1000,
            Bad = i => ValidateNewRegex(i), Good = i => ValidateStaticRegex(i),
            Facts = f => { f["pattern"] = Pattern; },
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool ValidateNewRegex(int i)
        {
            var re = new Regex(Pattern, RegexOptions.IgnoreCase | RegexOptions.CultureInvariant);
            return re.IsMatch(Inputs[i & 3]);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool ValidateStaticRegex(int i)
        {
            bool r = false;
            for (int k = 0; k < 4; k++) r ^= Email.IsMatch(Inputs[(i + k) & 3]);
            return r;
        }
    }
}
