// fix --shape eftracking: a read-only EF Core query (SQLite, 200 rows) with change tracking
// (every entity snapshotted into the state manager) vs the same query with AsNoTracking().
using System;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using Microsoft.EntityFrameworkCore;

namespace Workload
{
    public sealed class Product { public int Id { get; set; } public string Name { get; set; } public decimal Price { get; set; } public int Stock { get; set; } }

    public sealed class CatalogContext : DbContext
    {
        private readonly string _cs;
        public CatalogContext(string cs) { _cs = cs; }
        public DbSet<Product> Products { get; set; }
        protected override void OnConfiguring(DbContextOptionsBuilder o) => o.UseSqlite(_cs);
    }

    public static class EfTrackingScenario
    {
        const int Rows = 200;
        static string _cs, _path;

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "eftracking", Rule = "change tracking on read-only queries",
            BadMethod = "Workload.EfTrackingScenario.ListTracked", GoodMethod = "Workload.EfTrackingScenario.ListNoTracking",
            Framework = "Microsoft.EntityFrameworkCore", Evidence = "alloc", Calls = 30,
            Setup = Seed,
            Bad = i => ListTracked(i), Good = i => ListNoTracking(i),
            Facts = f => { f["rows"] = Rows; f["package"] = "Microsoft.EntityFrameworkCore"; f["package_version"] = "10.0.15"; },
        };

        static void Seed()
        {
            _path = Path.Combine(Path.GetTempPath(), "perfpipe-eftracking-" + Environment.ProcessId + ".db");
            _cs = "Data Source=" + _path;
            using var ctx = new CatalogContext(_cs);
            ctx.Database.EnsureDeleted();
            ctx.Database.EnsureCreated();
            for (int k = 0; k < Rows; k++) ctx.Products.Add(new Product { Name = "product-" + k, Price = k, Stock = k * 3 });
            ctx.SaveChanges();
            AppDomain.CurrentDomain.ProcessExit += (_, _) => { try { Microsoft.Data.Sqlite.SqliteConnection.ClearAllPools(); File.Delete(_path); } catch (IOException) { } };
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ListTracked(int i)
        {
            using var ctx = new CatalogContext(_cs);
            var rows = ctx.Products.Where(p => p.Stock >= 0).ToList();
            return rows.Count + i;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int ListNoTracking(int i)
        {
            using var ctx = new CatalogContext(_cs);
            var rows = ctx.Products.AsNoTracking().Where(p => p.Stock >= 0).ToList();
            return rows.Count + i;
        }
    }
}
