#!/usr/bin/env python3
"""h1-pipeline.py HOST PORT N [tls] - send N HTTP/1.1 GETs of the small object in one
write (pipelining) and print how many 200 answers came back within 5 s, and the time
taken in ms. tls: over TLS with ALPN http/1.1, certificate not checked. For
test-rpm-server.sh."""
import socket
import ssl
import sys
import time


def main():
    host, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    sock = socket.create_connection((host, port), timeout=5)
    if len(sys.argv) > 4 and sys.argv[4] == "tls":
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        ctx.set_alpn_protocols(["http/1.1"])
        sock = ctx.wrap_socket(sock)
    req = b"GET /api/v1/small HTTP/1.1\r\nHost: " + host.encode() + b"\r\n\r\n"
    start = time.monotonic()
    sock.sendall(req * n)
    got = b""
    while got.count(b"HTTP/1.1 200") < n and time.monotonic() - start < 5:
        try:
            data = sock.recv(65536)
        except (socket.timeout, ssl.SSLError, OSError):
            break
        if not data:
            break
        got += data
    print(got.count(b"HTTP/1.1 200"), int((time.monotonic() - start) * 1000))


main()
