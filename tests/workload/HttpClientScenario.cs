// fix --shape httpclient: a new HttpClient (new handler, new connection) per request vs one shared
// HttpClient. The server is a minimal keep-alive HTTP/1.1 responder on 127.0.0.1 in the same
// process, so the only difference between the variants is the client's lifetime.
using System;
using System.Net;
using System.Net.Http;
using System.Net.Sockets;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Workload
{
    public static class HttpClientScenario
    {
        static string _url;
        static HttpClient _shared;
        static long _connections, _requests;
        static readonly byte[] Response = Encoding.ASCII.GetBytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n\r\nok");

        public static FixShape Shape(Args a) => new FixShape
        {
            Name = "httpclient", Rule = "HttpClient per request",
            BadMethod = "Workload.HttpClientScenario.GetWithNewClient", GoodMethod = "Workload.HttpClientScenario.GetWithSharedClient",
            Framework = "System.Net.Http", Evidence = "cpu",
            Setup = Start,
            BadAsync = i => GetWithNewClient(i), GoodAsync = i => GetWithSharedClient(i),
            Facts = f => { f["server_connections"] = Interlocked.Read(ref _connections); f["server_requests"] = Interlocked.Read(ref _requests); },
        };

        static void Start()
        {
            var l = new TcpListener(IPAddress.Loopback, 0);
            l.Start(512);
            _url = "http://127.0.0.1:" + ((IPEndPoint)l.LocalEndpoint).Port + "/ping";
            _shared = new HttpClient();
            var t = new Thread(() => { for (;;) { var c = l.AcceptTcpClient(); Interlocked.Increment(ref _connections); _ = Task.Run(() => Serve(c)); } }) { IsBackground = true, Name = "server-accept" };
            t.Start();
        }

        static async Task Serve(TcpClient c)
        {
            using (c)
            {
                var s = c.GetStream();
                var buf = new byte[4096];
                int have = 0;
                try
                {
                    for (;;)
                    {
                        int n = await s.ReadAsync(buf.AsMemory(have, buf.Length - have)).ConfigureAwait(false);
                        if (n == 0) return;
                        have += n;
                        int end;
                        while ((end = HeaderEnd(buf, have)) > 0)
                        {
                            Interlocked.Increment(ref _requests);
                            await s.WriteAsync(Response).ConfigureAwait(false);
                            Buffer.BlockCopy(buf, end, buf, 0, have - end);
                            have -= end;
                        }
                        if (have == buf.Length) return;
                    }
                }
                catch (System.IO.IOException) { }
            }
        }

        static int HeaderEnd(byte[] b, int n)
        {
            for (int i = 3; i < n; i++)
                if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') return i + 1;
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task GetWithNewClient(int i)
        {
            using var client = new HttpClient();
            string s = await client.GetStringAsync(_url).ConfigureAwait(false);
            Sink.Keep(s);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task GetWithSharedClient(int i)
        {
            string s = await _shared.GetStringAsync(_url).ConfigureAwait(false);
            Sink.Keep(s);
        }
    }
}
