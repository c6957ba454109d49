// A process whose build test-ident.sh changes under it. Writes its pid to
// the file named by the first argument once running, then works (allocates
// and formats strings) until killed or for the seconds of the second.
using System.Diagnostics;
using System.Text;

static class IdentApp
{
    static string Work(int i)
    {
#if IDENT_VARIANT_2
        // the "fix": one builder reused instead of a concatenation per step
        var sb = new StringBuilder();
        for (int k = 0; k < 8; k++) sb.Append(i + k);
        return sb.ToString();
#else
        string s = "";
        for (int k = 0; k < 8; k++) s += (i + k).ToString();
        return s;
#endif
    }

    static int Main(string[] args)
    {
        double seconds = args.Length > 1 ? double.Parse(args[1]) : 60;
        File.WriteAllText(args[0], Environment.ProcessId.ToString());
        var sw = Stopwatch.StartNew();
        long n = 0;
        while (sw.Elapsed.TotalSeconds < seconds)
        {
            n += Work((int)(n & 0xffff)).Length;
            if ((n & 0x3ff) == 0) Thread.Sleep(1);
        }
        return n > 0 ? 0 : 1;
    }
}
