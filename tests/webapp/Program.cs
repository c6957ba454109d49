// A small shop written for issue #34's closed loop (a second app, fresh): five planted problems, each with
// a fixed twin route. Every handler's work lives in a NoInlining method named for what it does, so a
// profile names the bad frame and its fix:
//   /shop/totals/{lazy|joined}   N+1: one query per customer      | one grouped query
//   /shop/invoice/{churn|pooled} allocation: strings per line      | one reused StringBuilder
//   /shop/digest/{naive|table}   CPU: bitwise CRC per byte         | table-driven CRC
//   /shop/stock/{blocking|awaited} sync-over-async: .Result on I/O | await
//   /shop/coupons/{throwing|trying} exceptions as control flow     | TryParse
//   /shop/checkout               invoice + digest: the bad twins, the fixed ones with --fixed (one URL
//                                for both builds: `perfpipe diagnose` then `verify` with one session file)
//   WebApp --port P --ready FILE [--db PATH] [--fixed 1]
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.EntityFrameworkCore;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace WebApp;

public sealed class Customer { public int Id { get; set; } public string Name { get; set; } }
public sealed class Purchase { public int Id { get; set; } public int CustomerId { get; set; } public long Cents { get; set; } }

public sealed class ShopDb : DbContext
{
    public ShopDb(DbContextOptions<ShopDb> o) : base(o) { }
    public DbSet<Customer> Customers => Set<Customer>();
    public DbSet<Purchase> Purchases => Set<Purchase>();
}

public static class Shop
{
    public const int Customers = 3, PurchasesEach = 8;
    static DbContextOptions<ShopDb> options;
    static string dbPath;
    static readonly Lazy<bool> seeded = new Lazy<bool>(() => { Seed(dbPath); return true; });

    // Seeded on the first /shop/totals request (the warm-up's), so that the other shapes' processes never
    // load EF Core: their rundowns (most of a capture's bytes) stay small.
    public static void UseDb(string path) => dbPath = path;

    static void Seed(string path)
    {
        File.Delete(path);
        options = new DbContextOptionsBuilder<ShopDb>().UseSqlite("Data Source=" + path).Options;
        using var db = new ShopDb(options);
        db.Database.EnsureCreated();
        for (int c = 1; c <= Customers; c++) {
            db.Customers.Add(new Customer { Id = c, Name = "customer " + c });
            for (int p = 0; p < PurchasesEach; p++) db.Purchases.Add(new Purchase { CustomerId = c, Cents = c * 100 + p });
        }
        db.SaveChanges();
    }

    // N+1: the customers, then one query per customer for its purchases.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long TotalsLazy()
    {
        _ = seeded.Value;
        using var db = new ShopDb(options);
        long sum = 0;
        foreach (var c in db.Customers.AsNoTracking().ToList())
            sum += db.Purchases.AsNoTracking().Where(p => p.CustomerId == c.Id).Sum(p => p.Cents);
        return sum;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long TotalsJoined()
    {
        _ = seeded.Value;
        using var db = new ShopDb(options);
        return db.Purchases.AsNoTracking().GroupBy(p => p.CustomerId).Select(g => g.Sum(p => p.Cents)).ToList().Sum();
    }

    // Allocation churn: each line a fresh string, concatenated into a growing one.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InvoiceChurn(int lines)
    {
        string doc = "";
        for (int i = 0; i < lines; i++) doc += "line " + i.ToString() + ": " + (i * 37 % 1000).ToString() + " cents\n";
        return doc.Length;
    }

    [ThreadStatic] static StringBuilder sb;
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int InvoicePooled(int lines)
    {
        var b = sb ??= new StringBuilder(1 << 16);
        b.Clear();
        for (int i = 0; i < lines; i++) b.Append("line ").Append(i).Append(": ").Append(i * 37 % 1000).Append(" cents\n");
        return b.Length;
    }

    // CPU hot path: CRC-32 bit by bit, against the table-driven one.
    static readonly byte[] payload = Enumerable.Range(0, 64 * 1024).Select(i => (byte)(i * 31)).ToArray();
    static readonly uint[] table = Enumerable.Range(0, 256).Select(n => {
        uint c = (uint)n; for (int k = 0; k < 8; k++) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1; return c; }).ToArray();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static uint DigestNaive()
    {
        uint crc = ~0u;
        foreach (byte x in payload) { crc ^= x; for (int k = 0; k < 8; k++) crc = (crc & 1) != 0 ? 0xEDB88320u ^ (crc >> 1) : crc >> 1; }
        return ~crc;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static uint DigestTable()
    {
        uint crc = ~0u;
        for (int i = 0; i < payload.Length; i += 16) crc = table[(crc ^ payload[i]) & 0xff] ^ (crc >> 8);
        return ~crc;
    }

    // Sync-over-async: the handler blocks a pool thread on I/O-like work.
    static async Task<int> LookupStockAsync() { await Task.Delay(3); return 42; }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int StockBlocking() => Task.Run(LookupStockAsync).Result;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static async Task<int> StockAwaited() => await LookupStockAsync();

    // Exceptions as control flow: most coupon codes are not numbers.
    static readonly string[] codes = Enumerable.Range(0, 200).Select(i => i % 5 == 0 ? i.ToString() : "X" + i).ToArray();

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CouponsThrowing()
    {
        int ok = 0;
        foreach (var c in codes) { try { ok += int.Parse(c); } catch (FormatException) { } }
        return ok;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static int CouponsTrying()
    {
        int ok = 0;
        foreach (var c in codes) if (int.TryParse(c, out int v)) ok += v;
        return ok;
    }
}

public static class Program
{
    public static int Main(string[] args)
    {
        int port = 0; bool fixedBuild = false; string ready = null, dbPath = Path.Combine(Path.GetTempPath(), "webapp-" + Environment.ProcessId + ".db");
        for (int i = 0; i + 1 < args.Length; i += 2) {
            switch (args[i]) {
                case "--port": port = int.Parse(args[i + 1]); break;
                case "--ready": ready = args[i + 1]; break;
                case "--db": dbPath = args[i + 1]; break;
                case "--fixed": fixedBuild = args[i + 1] == "1"; break;
                default: Console.Error.WriteLine("WebApp: unknown option " + args[i]); return 2;
            }
        }
        if (port <= 0 || ready == null) { Console.Error.WriteLine("usage: WebApp --port P --ready FILE [--db PATH]"); return 2; }
        Shop.UseDb(dbPath);
        var builder = WebApplication.CreateBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseUrls("http://127.0.0.1:" + port);
        var app = builder.Build();
        app.MapGet("/shop/totals/lazy", () => Shop.TotalsLazy().ToString());
        app.MapGet("/shop/totals/joined", () => Shop.TotalsJoined().ToString());
        app.MapGet("/shop/invoice/churn", () => Shop.InvoiceChurn(150).ToString());
        app.MapGet("/shop/invoice/pooled", () => Shop.InvoicePooled(150).ToString());
        app.MapGet("/shop/digest/naive", () => Shop.DigestNaive().ToString());
        app.MapGet("/shop/digest/table", () => Shop.DigestTable().ToString());
        app.MapGet("/shop/stock/blocking", () => Shop.StockBlocking().ToString());
        app.MapGet("/shop/stock/awaited", async () => (await Shop.StockAwaited()).ToString());
        app.MapGet("/shop/coupons/throwing", () => Shop.CouponsThrowing().ToString());
        app.MapGet("/shop/coupons/trying", () => Shop.CouponsTrying().ToString());
        if (fixedBuild)
            app.MapGet("/shop/checkout", () => (Shop.InvoicePooled(600) + Shop.DigestTable()).ToString());
        else
            app.MapGet("/shop/checkout", () => (Shop.InvoiceChurn(600) + Shop.DigestNaive()).ToString());
        app.Lifetime.ApplicationStarted.Register(() => File.WriteAllText(ready, Environment.ProcessId.ToString()));
        app.Run();
        File.Delete(dbPath);
        return 0;
    }
}
