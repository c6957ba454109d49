// fix --shape jsonoptions: JsonSerializer.Serialize with `new JsonSerializerOptions {...}` on
// every call (with a converter instance of its own, so no cached metadata is shared: it is rebuilt per
// call) vs one cached options instance.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Workload
{
    public sealed class OrderLine { public string Sku { get; set; } public int Quantity { get; set; } public decimal Price { get; set; } }
    public sealed class Order { public int Id { get; set; } public string Customer { get; set; } public List<OrderLine> Lines { get; set; } }

    public static class JsonOptionsScenario
    {
        static readonly JsonSerializerOptions Cached = new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase, Converters = { new JsonStringEnumConverter() } };
        static readonly Order Sample = new Order
        {
            Id = 7, Customer = "ann",
            Lines = new List<OrderLine> { new OrderLine { Sku = "A-1", Quantity = 2, Price = 9.5m }, new OrderLine { Sku = "B-7", Quantity = 1, Price = 120m } },
        };

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "jsonoptions", Rule = "JsonSerializerOptions per call",
            BadMethod = "Workload.JsonOptionsScenario.SerializeNewOptions", GoodMethod = "Workload.JsonOptionsScenario.SerializeCachedOptions",
            Framework = "System.Text.Json", Evidence = "cpu",
            Bad = i => SerializeNewOptions(i), Good = i => SerializeCachedOptions(i),
        };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int SerializeNewOptions(int i)
        {
            var o = new JsonSerializerOptions { PropertyNamingPolicy = JsonNamingPolicy.CamelCase, Converters = { new JsonStringEnumConverter() } };
            string s = JsonSerializer.Serialize(Sample, o);
            Sink.Keep(s);
            return s.Length + i;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int SerializeCachedOptions(int i)
        {
            string s = JsonSerializer.Serialize(Sample, Cached);
            Sink.Keep(s);
            return s.Length + i;
        }
    }
}
