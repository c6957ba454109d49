using System;
using System.IO;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Exporters.Csv;
using BenchmarkDotNet.Exporters.Json;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Running;

namespace Perfpipe.Benchmarks
{
    // dotnet Benchmarks.dll ARTIFACTS_DIR
    // Runs KeyBench in BenchmarkDotNet's ShortRun job (1 launch, 3 warm-up, 3 measured iterations)
    // and writes the full JSON, CSV and GitHub markdown exports under ARTIFACTS_DIR/results.
    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length != 1)
            {
                Console.Error.WriteLine("usage: Benchmarks ARTIFACTS_DIR   (PP_BENCH_VARIANT=alloc|noalloc)");
                return 2;
            }
            var config = ManualConfig.CreateMinimumViable()
                .AddJob(Job.ShortRun)
                .AddExporter(JsonExporter.Full)
                .AddExporter(CsvExporter.Default)
                .AddExporter(MarkdownExporter.GitHub)
                .WithArtifactsPath(Path.GetFullPath(args[0]));
            var summary = BenchmarkRunner.Run<KeyBench>(config);
            return summary.HasCriticalValidationErrors || summary.Reports.Length == 0 ? 1 : 0;
        }
    }
}
