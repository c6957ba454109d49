// Scenario `heap`: a large live heap shaped like a service's, for the gcdump bench
// (bench/gen-gcdump.sh). Nothing here is a test.
//
//   dotnet BenchWorkload.dll heap [--objects N] [--grow PERCENT] [--seed N] --signal-dir DIR
//
// What the heap holds (about --objects objects in all, default 5.2 M):
//   - a catalog: a category tree (parent pointers, so cycles) whose leaves list products; each
//     product has a name, a price history (a linked list), tags shared by many products;
//   - customers in a Dictionary<long, Customer> and again in a List<Customer> (two owners:
//     neither dominates them), each with addresses and an order chain (newest first, so a
//     customer's orders form a linked list tens deep);
//   - orders whose lines point into the shared catalog (shared subgraphs: a product is held by
//     the catalog and by thousands of lines);
//   - an event journal: one singly linked list about 400 k nodes deep;
//   - a cache of boxed values, strings and byte[] keyed by string;
//   - payload objects of 48 generic instantiations (Entity<T>), so the heap has well over a
//     hundred types.
// After building it writes DIR/ready1 (holding the pid) and waits for DIR/go1. With --grow P it
// then adds P % more customers, orders and journal entries (a leak), writes DIR/ready2, waits
// for DIR/go2, and exits.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Shop.HeapModel
{
    public sealed class Tag { public string Name; public int Weight; }
    public sealed class Price { public decimal Amount; public DateTime From; public Price Previous; }
    public sealed class Category
    {
        public string Name; public Category Parent; public List<Category> Children = new List<Category>();
        public List<Product> Products = new List<Product>();
    }
    public sealed class Product
    {
        public long Id; public string Name; public Category Category; public Price Price; public Tag[] Tags;
        public object Extra;
    }
    public sealed class Address { public string Street; public string City; public string Zip; }
    public sealed class OrderLine { public Product Product; public int Quantity; public decimal Total; }
    public sealed class Order
    {
        public long Id; public Customer Customer; public OrderLine[] Lines; public Order Older;
        public string Note; public object Payload;
    }
    public sealed class Customer
    {
        public long Id; public string Name; public Address Home; public Address Work;
        public Order Latest; public Dictionary<string, object> Prefs;
    }
    public sealed class JournalEntry { public long Seq; public string Kind; public object Subject; public JournalEntry Next; }
    public sealed class Entity<T> { public T Value; public Entity<T> Link; public byte[] Blob; }

    public struct K00 { public int V; } public struct K01 { public int V; } public struct K02 { public int V; }
    public struct K03 { public int V; } public struct K04 { public int V; } public struct K05 { public int V; }
    public struct K06 { public int V; } public struct K07 { public int V; } public struct K08 { public int V; }
    public struct K09 { public int V; } public struct K10 { public int V; } public struct K11 { public int V; }
    public struct K12 { public long V; } public struct K13 { public long V; } public struct K14 { public long V; }
    public struct K15 { public long V; } public struct K16 { public long V; } public struct K17 { public long V; }
    public struct K18 { public long V; } public struct K19 { public long V; } public struct K20 { public long V; }
    public struct K21 { public long V; } public struct K22 { public long V; } public struct K23 { public long V; }

    public sealed class World
    {
        public Category Root;
        public List<Product> Products = new List<Product>();
        public Tag[] Tags;
        public Dictionary<long, Customer> ById = new Dictionary<long, Customer>();
        public List<Customer> Customers = new List<Customer>();
        public JournalEntry Journal;
        public Dictionary<string, object> Cache = new Dictionary<string, object>();
        public List<object> Payloads = new List<object>();
        ulong rng;
        long nextOrder;
        long seq;

        public World(ulong seed) { rng = seed | 1; }

        int Next(int n)
        {
            rng ^= rng >> 12; rng ^= rng << 25; rng ^= rng >> 27;
            return (int)(((rng * 2685821657736338717UL) >> 33) % (ulong)n);
        }

        static readonly Func<int, object>[] Makers = BuildMakers();

        static Func<int, object>[] BuildMakers()
        {
            var m = new List<Func<int, object>>();
            void Add<T>(Func<int, T> v) where T : struct
            {
                m.Add(i => new Entity<T> { Value = v(i), Link = i % 3 == 0 ? new Entity<T>() : null, Blob = i % 7 == 0 ? new byte[16 + i % 200] : null });
                m.Add(i => new Entity<T[]> { Value = new T[1 + i % 4] });
            }
            Add(i => new K00 { V = i }); Add(i => new K01 { V = i }); Add(i => new K02 { V = i });
            Add(i => new K03 { V = i }); Add(i => new K04 { V = i }); Add(i => new K05 { V = i });
            Add(i => new K06 { V = i }); Add(i => new K07 { V = i }); Add(i => new K08 { V = i });
            Add(i => new K09 { V = i }); Add(i => new K10 { V = i }); Add(i => new K11 { V = i });
            Add(i => new K12 { V = i }); Add(i => new K13 { V = i }); Add(i => new K14 { V = i });
            Add(i => new K15 { V = i }); Add(i => new K16 { V = i }); Add(i => new K17 { V = i });
            Add(i => new K18 { V = i }); Add(i => new K19 { V = i }); Add(i => new K20 { V = i });
            Add(i => new K21 { V = i }); Add(i => new K22 { V = i }); Add(i => new K23 { V = i });
            return m.ToArray();
        }

        public void BuildCatalog(int products)
        {
            Tags = new Tag[400];
            for (int i = 0; i < Tags.Length; i++) Tags[i] = new Tag { Name = "tag-" + i, Weight = i };
            Root = new Category { Name = "all" };
            var leaves = new List<Category>();
            void Grow(Category c, int depth)
            {
                if (depth == 6) { leaves.Add(c); return; }
                int n = depth < 2 ? 6 : 3;
                for (int i = 0; i < n; i++)
                {
                    var k = new Category { Name = c.Name + "/" + i, Parent = c };
                    c.Children.Add(k);
                    Grow(k, depth + 1);
                }
            }
            Grow(Root, 0);
            for (int i = 0; i < products; i++)
            {
                var cat = leaves[Next(leaves.Count)];
                Price price = null;
                int hist = 1 + Next(6);
                for (int h = 0; h < hist; h++) price = new Price { Amount = 1 + Next(1000), From = new DateTime(2020, 1, 1).AddDays(h), Previous = price };
                var tags = new Tag[1 + Next(4)];
                for (int t = 0; t < tags.Length; t++) tags[t] = Tags[Next(Tags.Length)];
                var p = new Product { Id = i, Name = "product " + i, Category = cat, Price = price, Tags = tags,
                                      Extra = i % 5 == 0 ? Makers[i % Makers.Length](i) : null };
                cat.Products.Add(p);
                Products.Add(p);
            }
        }

        public void AddCustomers(int n)
        {
            for (int i = 0; i < n; i++)
            {
                long id = Customers.Count;
                var c = new Customer { Id = id, Name = "customer " + id,
                                       Home = new Address { Street = id + " Main St", City = "City " + (id % 500), Zip = (10000 + id % 90000).ToString(CultureInfo.InvariantCulture) } };
                if (i % 3 == 0) c.Work = new Address { Street = id + " Market St", City = c.Home.City, Zip = c.Home.Zip };
                if (i % 4 == 0)
                {
                    c.Prefs = new Dictionary<string, object>();
                    c.Prefs["lang"] = i % 8 == 0 ? "en" : "de";
                    c.Prefs["limit"] = (object)(100 + i % 50);
                }
                int orders = 1 + Next(12);
                for (int o = 0; o < orders; o++) AddOrder(c);
                ById[id] = c;
                Customers.Add(c);
                if (i % 16 == 0) Cache["customer:" + id] = c;
                if (i % 10 == 0) Journaled("customer", c);
            }
        }

        void AddOrder(Customer c)
        {
            var lines = new OrderLine[1 + Next(5)];
            for (int l = 0; l < lines.Length; l++)
            {
                var p = Products[Next(Products.Count)];
                int q = 1 + Next(4);
                lines[l] = new OrderLine { Product = p, Quantity = q, Total = q * p.Price.Amount };
            }
            var order = new Order { Id = nextOrder++, Customer = c, Lines = lines, Older = c.Latest,
                                    Note = nextOrder % 9 == 0 ? "gift " + nextOrder : null,
                                    Payload = nextOrder % 4 == 0 ? Makers[(int)(nextOrder % Makers.Length)]((int)nextOrder) : null };
            c.Latest = order;
            if (nextOrder % 3 == 0) Journaled("order", order);
        }

        void Journaled(string kind, object subject)
        {
            Journal = new JournalEntry { Seq = seq++, Kind = kind, Subject = subject, Next = Journal };
        }

        public void AddCache(int n)
        {
            for (int i = 0; i < n; i++)
            {
                string key = "k" + Cache.Count + ":" + i;
                Cache[key] = (i % 3) switch { 0 => (object)(long)i, 1 => "value " + i, _ => new byte[8 + i % 120] };
            }
        }

        public void AddPayloads(int n)
        {
            for (int i = 0; i < n; i++) Payloads.Add(Makers[i % Makers.Length](i));
        }
    }

    public static class HeapScenario
    {
        static World s_world;   // the static root that holds everything

        public static int Run(string[] args)
        {
            long objects = 5_200_000;
            double grow = 0;
            ulong seed = 1;
            string sig = null;
            for (int i = 1; i + 1 < args.Length; i += 2)
            {
                string v = args[i + 1];
                switch (args[i])
                {
                    case "--objects": objects = long.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--grow": grow = double.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--seed": seed = ulong.Parse(v, CultureInfo.InvariantCulture); break;
                    case "--signal-dir": sig = v; break;
                    default: Console.Error.WriteLine($"unknown option {args[i]}"); return 2;
                }
            }
            if (sig == null) { Console.Error.WriteLine("heap: --signal-dir DIR is required"); return 2; }
            // Roughly 27 objects per customer with its orders and 8 per product; the rest split
            // between the cache and generic payloads.
            long unit = objects / 100;
            var w = new World(seed);
            w.BuildCatalog((int)(unit * 6 / 8));
            w.AddCustomers((int)(unit * 78 / 27));
            w.AddCache((int)(unit * 8 / 2));
            w.AddPayloads((int)(unit * 8 / 2));
            s_world = w;
            Settle();
            Signal(sig, "ready1");
            Wait(sig, "go1");
            if (grow > 0)
            {
                w.AddCustomers((int)(unit * 78 / 27 * grow / 100));
                w.AddPayloads((int)(unit * 8 / 2 * grow / 100));
                Settle();
                Signal(sig, "ready2");
                Wait(sig, "go2");
            }
            Console.Error.WriteLine($"heap: {w.Customers.Count} customers, {w.Products.Count} products, {w.Cache.Count} cache entries, {w.Payloads.Count} payloads");
            GC.KeepAlive(s_world);
            return 0;
        }

        static void Settle()
        {
            GC.Collect(2, GCCollectionMode.Forced, true, true);
            GC.WaitForPendingFinalizers();
        }

        static void Signal(string dir, string name)
        {
            string tmp = Path.Combine(dir, name + ".tmp");
            File.WriteAllText(tmp, Environment.ProcessId.ToString(CultureInfo.InvariantCulture));
            File.Move(tmp, Path.Combine(dir, name));
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static void Wait(string dir, string name)
        {
            string f = Path.Combine(dir, name);
            while (!File.Exists(f)) Thread.Sleep(50);
        }
    }
}
