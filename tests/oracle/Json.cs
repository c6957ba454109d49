// Minimal deterministic JSON model: objects keep insertion order; callers insert keys in a fixed order.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using System.Text.Encodings.Web;
using System.Text.Json;

namespace PerfpipeOracle
{
    public sealed class JObj
    {
        public readonly List<KeyValuePair<string, object>> Items = new List<KeyValuePair<string, object>>();
        public JObj Add(string k, object v) { Items.Add(new KeyValuePair<string, object>(k, v)); return this; }
    }

    public static class JsonOut
    {
        public static string Write(object root)
        {
            var ms = new MemoryStream();
            using (var w = new Utf8JsonWriter(ms, new JsonWriterOptions { Indented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping }))
                Emit(w, root);
            return Encoding.UTF8.GetString(ms.ToArray()) + "\n";
        }

        static void Emit(Utf8JsonWriter w, object v)
        {
            switch (v)
            {
                case null: w.WriteNullValue(); break;
                case JObj o:
                    w.WriteStartObject();
                    foreach (var kv in o.Items) { w.WritePropertyName(kv.Key); Emit(w, kv.Value); }
                    w.WriteEndObject(); break;
                case string s: w.WriteStringValue(s); break;
                case bool b: w.WriteBooleanValue(b); break;
                case int i: w.WriteNumberValue(i); break;
                case long l: w.WriteNumberValue(l); break;
                case ulong ul: w.WriteNumberValue(ul); break;
                case double d: w.WriteNumberValue(Math.Round(d, 6)); break;
                case System.Collections.IEnumerable e:
                    w.WriteStartArray();
                    foreach (var x in e) Emit(w, x);
                    w.WriteEndArray(); break;
                default: w.WriteStringValue(Convert.ToString(v, CultureInfo.InvariantCulture)); break;
            }
        }
    }
}
