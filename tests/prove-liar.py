#!/usr/bin/env python3
"""prove-liar.py LISTEN_ADDR PORT SERVER_ADDR SERVER_PORT DIVISOR

A lying `debloat server`, for tests/test-prove-directions.sh: a relay in front of a
real one that passes every byte through, TCP and UDP, except the upload counts of
the control connection's REPORT and FINAL messages, which it divides by DIVISOR. To
the client it looks like a server whose own count of what it received is DIVISOR
times too low and self-consistent, as a server lying about goodput would be.

The wire format it relies on (src/meter/proto.h): every TCP message is
u16 body length | u8 type | body, big-endian. A control connection opens with HELLO
(type 1), a flow with FLOW (type 4). REPORT (type 5): u64 server_ns, u32 flags,
u8 nflows, then nflows u64 cumulative bytes received. FINAL (type 7): the same head,
then nflows u64 received, nflows u64 sent, then counters.

Bounded: it exits after 600 s whatever happens, and on SIGTERM.
"""
import selectors
import signal
import socket
import struct
import sys
import time

HELLO, REPORT, FINAL = 1, 5, 7


def scale_counts(body, divisor):
    if len(body) < 13:
        return body
    n = body[12]
    if len(body) < 13 + 8 * n:
        return body
    out = bytearray(body)
    for i in range(n):
        off = 13 + 8 * i
        (v,) = struct.unpack_from(">Q", out, off)
        struct.pack_into(">Q", out, off, v // divisor)
    return bytes(out)


class Pipe:
    """One relayed TCP connection: client <-> server."""

    def __init__(self, client, server):
        self.client, self.server = client, server
        self.kind = None  # "control" or "flow", from the client's first frame
        self.up = b""  # from the client, until its first frame is known
        self.down = b""  # from the server, control only: parsed frame by frame


def main():
    listen, port, saddr, sport, divisor = (
        sys.argv[1],
        int(sys.argv[2]),
        sys.argv[3],
        int(sys.argv[4]),
        int(sys.argv[5]),
    )
    deadline = time.monotonic() + 600
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    sel = selectors.DefaultSelector()
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind((listen, port))
    lsock.listen(64)
    sel.register(lsock, selectors.EVENT_READ, ("accept", None))
    usock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    usock.bind((listen, port))
    sel.register(usock, selectors.EVENT_READ, ("udp-client", None))
    # One UDP socket towards the server, bound to the listen address: the server's
    # tokens are bound to the source address, the same for TCP and UDP.
    userver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    userver.bind((listen, 0))
    sel.register(userver, selectors.EVENT_READ, ("udp-server", None))
    udp_peer = None

    def close(p):
        for s in (p.client, p.server):
            try:
                sel.unregister(s)
            except (KeyError, ValueError):
                pass
            s.close()

    while time.monotonic() < deadline:
        for key, _ in sel.select(timeout=1):
            what, p = key.data
            if what == "accept":
                c, _ = lsock.accept()
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.bind((listen, 0))
                try:
                    s.connect((saddr, sport))
                except OSError:
                    c.close()
                    s.close()
                    continue
                p = Pipe(c, s)
                sel.register(c, selectors.EVENT_READ, ("from-client", p))
                sel.register(s, selectors.EVENT_READ, ("from-server", p))
            elif what == "udp-client":
                data, udp_peer = usock.recvfrom(65536)
                userver.sendto(data, (saddr, sport))
            elif what == "udp-server":
                data, _ = userver.recvfrom(65536)
                if udp_peer:
                    usock.sendto(data, udp_peer)
            elif what == "from-client":
                try:
                    data = p.client.recv(262144)
                except OSError:
                    data = b""
                if not data:
                    close(p)
                    continue
                if p.kind is None:
                    p.up += data
                    if len(p.up) >= 3:
                        p.kind = "control" if p.up[2] == HELLO else "flow"
                    data, p.up = p.up, b""
                p.server.sendall(data)
            elif what == "from-server":
                try:
                    data = p.server.recv(262144)
                except OSError:
                    data = b""
                if not data:
                    close(p)
                    continue
                if p.kind != "control":
                    p.client.sendall(data)
                    continue
                p.down += data
                out = b""
                while len(p.down) >= 3:
                    (blen,) = struct.unpack_from(">H", p.down, 0)
                    if len(p.down) < 3 + blen:
                        break
                    ftype, body = p.down[2], p.down[3 : 3 + blen]
                    if ftype in (REPORT, FINAL):
                        body = scale_counts(body, divisor)
                    out += p.down[:3] + body
                    p.down = p.down[3 + blen :]
                if out:
                    p.client.sendall(out)


if __name__ == "__main__":
    main()
