#!/usr/bin/env python3
"""axl serve over HTTP, on a synthetic node tree.

Starts `axl serve --listen 127.0.0.1:<free port> --sysroot <tree> --dcgm`, then:
 - /metrics: 200, the 0.0.4 content type, parses strictly (promparse.py), one
   axl_device_up per device, values equal to `axl metrics --json` for the same tree;
   two scrapes within --interval give the same text (one shared sample);
 - /healthz "ok", /inventory an axl.inventory document, HEAD, 404, 405;
 - concurrent scrapes from several threads all succeed;
 - slow clients (half a request, nothing at all) and a garbage client are connected
   while the test keeps scraping, each scrape within a short deadline; the server
   closes the silent ones after its connection timeout;
 - SIGTERM stops it with exit status 0.

usage: check_serve.py --axl BIN --tree SPEC.json --work DIR
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import promparse  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: %s" % what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def request(port, method, path, timeout=5.0, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        c.request(method, path, body=body)
        r = c.getresponse()
        return r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read()
    finally:
        c.close()


def wait_serving(proc, deadline):
    """Read standard error until the 'serving' line; returns it (or None)."""
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            return None
        line = line.decode("utf-8", "replace")
        if line.startswith("axl: serving http://"):
            return line
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    root = os.path.join(a.work, "tree")
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"), a.tree, root], check=True)

    ref = json.loads(subprocess.run([a.axl, "metrics", "--json", "--no-processes", "--sysroot", root],
                                    capture_output=True, check=True).stdout)
    port = free_port()
    proc = subprocess.Popen([a.axl, "serve", "--listen", "127.0.0.1:%d" % port, "--sysroot", root, "--dcgm",
                             "--interval", "1000ms"], stderr=subprocess.PIPE)
    try:
        line = wait_serving(proc, time.monotonic() + 30)
        check(line is not None and ("127.0.0.1:%d/metrics" % port) in line, "the 'axl: serving' line")
        # keep draining standard error so the server never blocks on it
        threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()
        run_checks(port, ref)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = None
            check(rc == 0, "SIGTERM stops the server with exit status 0 (got %r)" % rc)
        else:
            check(False, "the server died early (exit %r)" % proc.returncode)
    print("%d failure(s)" % len(failures))
    print("0 passed, 1 failed" if failures else "1 passed, 0 failed")
    return 1 if failures else 0


def run_checks(port, ref):
    # ---- /metrics
    st, hdr, body = request(port, "GET", "/metrics")
    check(st == 200, "/metrics status %d" % st)
    check(hdr.get("content-type") == "text/plain; version=0.0.4; charset=utf-8",
          "/metrics content type %r" % hdr.get("content-type"))
    text = body.decode("utf-8")
    try:
        fams = promparse.parse(text)
    except promparse.ParseError as e:
        check(False, "/metrics parses: %s" % e)
        return
    devices = ref["devices"]
    check(len(fams["axl_device_up"]["samples"]) == len(devices), "one axl_device_up per device")
    # the same values as axl metrics --json (static in a tree: no rates)
    conv = {"memory_used_bytes": ("axl_memory_used_bytes", 1), "memory_total_bytes": ("axl_memory_total_bytes", 1),
            "power_watts": ("axl_power_watts", 1), "power_limit_watts": ("axl_power_limit_watts", 1),
            "temperature_celsius": ("axl_temperature_celsius", 1),
            "temperature_hotspot_celsius": ("axl_temperature_hotspot_celsius", 1),
            "temperature_memory_celsius": ("axl_temperature_memory_celsius", 1),
            "sm_clock_mhz": ("axl_sm_clock_hertz", 1e6), "memory_clock_mhz": ("axl_memory_clock_hertz", 1e6)}
    compared = 0
    for dev in devices:
        for key, (fam, scale) in conv.items():
            if key not in dev:
                continue
            got = [s[2] for s in fams.get(fam, {"samples": []})["samples"] if s[1].get("id") == dev["id"]]
            check(len(got) == 1 and abs(got[0] - dev[key] * scale) <= 1e-9 * max(1, abs(got[0])),
                  "%s of %s: %s in /metrics, %s in axl metrics --json" % (fam, dev["id"], got, dev[key]))
            compared += 1
    check(compared >= 8, "compared %d values with axl metrics --json" % compared)
    d0 = devices[0]
    if "memory_used_bytes" in d0:
        fb = [s for s in fams.get("DCGM_FI_DEV_FB_USED", {"samples": []})["samples"] if s[1].get("gpu") == "0"]
        check(len(fb) == 1 and fb[0][2] == d0["memory_used_bytes"] // 1048576, "DCGM_FI_DEV_FB_USED of gpu 0")
    print("/metrics: %d families, %d values compared with axl metrics --json" % (len(fams), compared))
    st2, _, body2 = request(port, "GET", "/metrics")
    check(st2 == 200 and body2 == body, "two scrapes within --interval share one sample")

    # ---- the other endpoints
    st, hdr, body = request(port, "GET", "/healthz")
    check(st == 200 and body == b"ok\n", "/healthz")
    st, hdr, body = request(port, "GET", "/inventory")
    try:
        inv = json.loads(body)
    except ValueError:
        inv = {}
    check(st == 200 and inv.get("schema") == "axl.inventory", "/inventory is an axl.inventory document")
    check(hdr.get("content-type", "").startswith("application/json"), "/inventory content type")
    st, hdr, body = request(port, "HEAD", "/metrics")
    check(st == 200 and body == b"", "HEAD /metrics")
    st, _, _ = request(port, "GET", "/nope")
    check(st == 404, "404 for /nope (got %d)" % st)
    st, _, _ = request(port, "GET", "/metrics/x")
    check(st == 404, "404 for /metrics/x (got %d)" % st)
    for m, b in (("POST", b"x=1"), ("PUT", b"x"), ("DELETE", None)):
        st, hdr, _ = request(port, m, "/metrics", body=b)
        check(st == 405 and "GET" in hdr.get("allow", ""), "405 with Allow for %s (got %d)" % (m, st))

    # ---- concurrent scrapes
    errors = []

    def scraper(n):
        for _ in range(n):
            try:
                s, _, b = request(port, "GET", "/metrics", timeout=5)
                if s != 200 or not b.startswith(b"# HELP"):
                    errors.append(s)
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e))

    threads = [threading.Thread(target=scraper, args=(25,)) for _ in range(8)]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors, "200 concurrent scrapes: %d failed %s" % (len(errors), errors[:3]))
    print("200 scrapes from 8 threads in %.2f s" % (time.monotonic() - t0))

    # ---- slow and garbage clients while scraping
    slow = []
    for i in range(6):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        if i % 2 == 0:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never finished
        slow.append(s)
    garbage = socket.create_connection(("127.0.0.1", port), timeout=5)
    garbage.sendall(b"\x00\xff\xfe NOT HTTP AT ALL \x01\x02\r\n\r\n" + os.urandom(256) + b"\r\n\r\n")
    long_uri = socket.create_connection(("127.0.0.1", port), timeout=5)
    long_uri.sendall(b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\nHost: x\r\n\r\n")
    worst = 0.0
    for _ in range(40):
        t = time.monotonic()
        try:
            st, _, b = request(port, "GET", "/metrics", timeout=2)
        except Exception as e:  # noqa: BLE001
            st, b = repr(e), b""
        worst = max(worst, time.monotonic() - t)
        if st != 200:
            check(False, "scrape with slow and garbage clients connected: %s" % st)
            break
    check(worst < 1.0, "every scrape within 1 s while slow clients are connected (worst %.3f s)" % worst)
    print("40 scrapes with 6 slow, 1 garbage, 1 huge-URI client connected: worst %.1f ms" % (worst * 1e3))
    for s, what in ((garbage, "garbage"), (long_uri, "huge URI")):
        try:
            resp = s.recv(4096)
        except OSError:
            resp = b""
        check(resp == b"" or resp.startswith(b"HTTP/1.1 4"), "%s client: answered 4xx or closed (%r)" % (what, resp[:40]))
        s.close()
    # the server drops connections that stay silent past its timeout (10 s)
    deadline = time.monotonic() + 20
    closed = 0
    for s in slow:
        s.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            closed += s.recv(1) == b""
        except (socket.timeout, OSError) as e:
            closed += isinstance(e, ConnectionResetError)
        s.close()
    check(closed == len(slow), "the server closed %d of %d silent connections after its timeout" % (closed, len(slow)))
    st, _, _ = request(port, "GET", "/healthz")
    check(st == 200, "still serving at the end")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
