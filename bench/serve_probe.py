#!/usr/bin/env python3
"""Scrape http://127.0.0.1:PORT/metrics at a fixed rate over one keep-alive connection
and print latency percentiles (from sending the request to having the whole body).

usage: serve_probe.py --port N [--rate 500] [--seconds 10] [--path /metrics]
Prints "key value" lines: requests, errors, rate, p50_ms, p90_ms, p99_ms, p999_ms, max_ms.
A raw socket and a minimal response reader keep the client's own cost small (tens of
microseconds); the figures are an upper bound on the server's latency.
"""

import argparse
import socket
import time


def read_response(sock, buf):
    """Read one response; returns (status, rest of the buffer)."""
    while b"\r\n\r\n" not in buf:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("closed")
        buf += chunk
    head, _, rest = buf.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for l in lines[1:]:
        k, _, v = l.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(rest) < length:
        chunk = sock.recv(max(65536, length - len(rest)))
        if not chunk:
            raise ConnectionError("closed")
        rest += chunk
    return status, rest[length:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--rate", type=float, default=500)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--path", default="/metrics")
    a = ap.parse_args()
    req = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/plain\r\n\r\n" % a.path).encode()
    sock = socket.create_connection(("127.0.0.1", a.port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = b""
    lat, errors = [], 0
    n = int(a.rate * a.seconds)
    period = 1.0 / a.rate
    t0 = time.perf_counter()
    for i in range(n):
        due = t0 + i * period
        now = time.perf_counter()
        if due - now > 0.0003:  # sleep most of the gap, spin the last 0.3 ms
            time.sleep(due - now - 0.0003)
        while time.perf_counter() < due:
            pass
        t = time.perf_counter()
        try:
            sock.sendall(req)
            status, buf = read_response(sock, buf)
            if status != 200:
                errors += 1
        except (OSError, ConnectionError):
            errors += 1
            sock.close()
            sock = socket.create_connection(("127.0.0.1", a.port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            buf = b""
            continue
        lat.append(time.perf_counter() - t)
    elapsed = time.perf_counter() - t0
    lat.sort()

    def pct(p):
        return lat[min(len(lat) - 1, int(p * len(lat)))] * 1e3 if lat else float("nan")

    print("requests %d" % n)
    print("errors %d" % errors)
    print("rate %.1f" % (n / elapsed))
    for name, p in (("p50_ms", 0.5), ("p90_ms", 0.9), ("p99_ms", 0.99), ("p999_ms", 0.999)):
        print("%s %.3f" % (name, pct(p)))
    print("max_ms %.3f" % (lat[-1] * 1e3 if lat else float("nan")))
    ok = lat and pct(0.99) < 1.0 and not errors
    print("target p99 < 1 ms at %.0f/s: %s" % (a.rate, "met" if ok else "NOT met"))


if __name__ == "__main__":
    main()
