#!/usr/bin/env python3
"""A tiny loopback HTTP server for the L2 load fixtures (capture-load.sh).

One endpoint, /api, in two builds chosen by MODE, so the bad and the fixed
run load the same URL with the same knobs, as a before/after-fix pair does:
  bad    sleeps 20 ms a request, and every 10th request answers 500
  fixed  answers at once, always 200
  stall  answers at once, always 200, except the 50th request: 200 ms (one
         deliberate stall, for wrk's coordinated-omission correction)
Binds 127.0.0.1 only. Usage: load-server.py PORT bad|fixed|stall
"""
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODE = sys.argv[2] if len(sys.argv) > 2 else "bad"
_count = 0
_lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    wbufsize = 65536   # headers and body in one write (no Nagle/delayed-ACK stall)

    def do_GET(self):
        global _count
        status = 200
        if not self.path.startswith("/api"):
            status = 404
        elif MODE == "bad":
            with _lock:
                _count += 1
                n = _count
            time.sleep(0.020)
            if n % 10 == 0:
                status = 500
        elif MODE == "stall":
            with _lock:
                _count += 1
                n = _count
            if n == 50:
                time.sleep(0.200)
        body = b"ok\n" if status == 200 else b"error\n"
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt, *args):
        pass


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass   # a load tool closing its connections at the end is no news


if __name__ == "__main__":
    Server(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
