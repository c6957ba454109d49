// Source of the PDB reader's fixtures: each PP-LINE marker names the line
// tests/unit/check_pdb.c expects for the method it sits in.
using System;
using System.Linq;
using System.Threading.Tasks;

namespace Lines
{
    public static class Sample
    {
        public static long Sum(int n)
        {
            long s = 0;                                   // PP-LINE: sum-first
            for (int i = 0; i < n; i++)
                s += i * 3;                               // PP-LINE: sum-body
            return s;                                     // PP-LINE: sum-return
        }

        public static async Task<int> WaitAndCount(int n)
        {
            int c = 0;                                    // PP-LINE: async-first
            await Task.Delay(n);                          // PP-LINE: async-await
            c += n * 2;                                   // PP-LINE: async-after
            return c;
        }

        public static int Squares(int[] xs)
        {
            return xs.Select(x => x * x).Sum();           // PP-LINE: lambda
        }

#if PP_CHANGED
        // The "changed" build (a mismatched PDB for the same assembly name).
        public static int Changed() => 1;
#endif
    }
}
