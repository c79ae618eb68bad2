#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench/bench_dra_plugin.py: axl dra-plugin as the kubelet and the API server see it, on
the 8xH100 sim (tests/sim/h100x8-nvswitch.json), with the test suite's fake kubelet
(tests/compat/dra/fake_kubelet.py: real gRPC over the unix sockets) and fake API server
(fake_apiserver.py: HTTPS with a CA and a bearer token on loopback), driven as
tests/compat/dra/check_kubelet.py drives them:

  NodePrepareResources  ITERATIONS new claims of 1 device, then of 8 devices, each
                 prepared once (the claim's GET from the API server and the checkpoint's
                 fsync included) and unprepared after, over one kept gRPC channel (after
                 20 untimed claims); wall clock at the kubelet: p50, p99, max, beside an
                 empty NodePrepareResources (the same round trip doing nothing: the gRPC
                 floor) and the claim's GET alone (the HTTPS floor); target p99 <= 5 ms
  slice publication  the sim's GPU count changed (8 -> 7 -> 8 ...), CHANGES times, as
                 check_slices.py's change case does: from the file's rename to the API
                 server's answer to the slice write (its own log's clock); median, max;
                 target <= 1 s
  idle CPU       the plugin's utime+stime (/proc/PID/stat) over IDLE seconds with nothing
                 asked and nothing changing, as a share of one core, and the API-server
                 requests and kubelet calls meanwhile; target <= 0.1 %. The fake kubelet
                 has the ResourceHealthStatus gate on, so the health stream is open
                 throughout (its resends every 10 s are counted)

Environment: AXL (default build/axl), ITERATIONS (200), CHANGES (10), IDLE (30),
STATE (the checkpoint's folder; default under the work folder, on disk as the DaemonSet's
/var/lib/kubelet/plugins/gpu.axl.dev is), WORK (default a new folder in $TMPDIR; removed at
the end unless the harness failed or AXL_KEEP_WORK=1). The fake API server sets TCP_NODELAY
on its connections as kube-apiserver (Go) does (nodelay() says why).
Exits 0 whatever the figures (a benchmark, not a test), 1 when the harness failed (the
plugin did not register, a claim was refused); run with Debian's /usr/bin/python3
(python3-grpcio, python3-jsonschema, protoc, openssl).
"""
import http.client
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tests", "compat", "dra"))
import check_kubelet as ck  # noqa: E402
import check_slices as cs  # noqa: E402
import fake_kubelet as fk  # noqa: E402

import grpc  # noqa: E402

AXL = os.environ.get("AXL", os.path.join(TOP, "build", "axl"))
ITER = int(os.environ.get("ITERATIONS", "200"))
CHANGES = int(os.environ.get("CHANGES", "10"))
IDLE = float(os.environ.get("IDLE", "30"))
DRIVER, NS = ck.DRIVER, ck.NS
SIM = "h100x8-nvswitch.json"
WARM = 20  # claims prepared before the timed ones


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def verdict(ok):
    return "meets" if ok else "MISSES"


def nodelay(work):
    """kube-apiserver's TCP_NODELAY in the fake's Python server. Python's http.server writes
    the headers and the body separately on a socket with Nagle's algorithm on: the body then
    waits for the client's delayed ACK (40 ms on Linux: curl -w shows the first byte at
    0.5 ms, the last at 48 ms). kube-apiserver is Go, whose net package sets TCP_NODELAY on
    every connection (net.TCPConn.SetNoDelay: "The default is true"); a sitecustomize sets
    it on each connection the fake accepts."""
    site = os.path.join(work, "site")
    os.makedirs(site)
    with open(os.path.join(site, "sitecustomize.py"), "w") as f:
        f.write("import socket, socketserver\n"
                "_setup = socketserver.StreamRequestHandler.setup\n"
                "def setup(self):\n"
                "    self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)\n"
                "    _setup(self)\n"
                "socketserver.StreamRequestHandler.setup = setup\n")
    os.environ["PYTHONPATH"] = site + os.pathsep + os.environ.get("PYTHONPATH", "")


def api_get_floor(env):
    """The claim's GET alone, as the driver sends it (HTTPS, bearer token, keep-alive) to the
    same server: what the API-server read costs on this box."""
    conn = http.client.HTTPSConnection("127.0.0.1", env.srv.port, context=env.srv.ctx, timeout=10)
    lat = []
    try:
        for i in range(20 + ITER):
            t = time.perf_counter()
            conn.request("GET", "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/b1-%d" % (NS, i % ITER),
                         headers={"Authorization": "Bearer " + cs.TOKEN, "Accept": "application/json"})
            r = conn.getresponse()
            r.read()
            cs.check(r.status == 200, "GET a claim: %d" % r.status)
            if i >= 20:
                lat.append((time.perf_counter() - t) * 1e3)
    finally:
        conn.close()
    return lat


class Client:
    """The DRA calls over one kept channel, as the kubelet's DRA manager keeps a gRPC
    connection per plugin (kubernetes/kubernetes pkg/kubelet/cm/dra/plugin); the fake
    kubelet's own calls dial anew each time, which the tests want and a bench does not."""

    def __init__(self, env):
        p = env.kubelet.wait_registered(DRIVER, 10)
        cs.check(p is not None, "the driver is not registered")
        self.pb = env.kubelet.dra
        self.ch = grpc.insecure_channel("unix:" + p.endpoint)
        pre = fk.GRPC_SERVICE[p.service]
        self.prep = self.ch.unary_unary(pre + "NodePrepareResources",
                                        request_serializer=lambda m: m.SerializeToString(),
                                        response_deserializer=self.pb.NodePrepareResourcesResponse.FromString)
        self.unprep = self.ch.unary_unary(pre + "NodeUnprepareResources",
                                          request_serializer=lambda m: m.SerializeToString(),
                                          response_deserializer=self.pb.NodeUnprepareResourcesResponse.FromString)

    def claims(self, refs):
        return [self.pb.Claim(namespace=ns, uid=uid, name=name) for ns, uid, name in refs]

    def prepare(self, refs):
        return self.prep(self.pb.NodePrepareResourcesRequest(claims=self.claims(refs)), timeout=30)

    def unprepare(self, refs):
        return self.unprep(self.pb.NodeUnprepareResourcesRequest(claims=self.claims(refs)), timeout=30)

    def close(self):
        self.ch.close()


def prepare_latency(env, names):
    kl = Client(env)
    for _ in range(20):  # warm up the round trip
        kl.prepare([])
    for i in range(WARM):  # and the driver's path, its API-server connection included
        ref = [(NS, "uid-w-%d" % i, "w-%d" % i)]
        kl.prepare(ref)
        kl.unprepare(ref)
    floor = []
    for _ in range(ITER):
        t = time.perf_counter()
        kl.prepare([])
        floor.append((time.perf_counter() - t) * 1e3)
    out = {}
    for kind in ("b1", "b8"):
        lat = []
        for i in range(ITER):
            ref = [(NS, "uid-%s-%d" % (kind, i), "%s-%d" % (kind, i))]
            t = time.perf_counter()
            r = kl.prepare(ref)
            lat.append((time.perf_counter() - t) * 1e3)
            one = r.claims.get(ref[0][1])
            cs.check(one is not None and not one.error and len(one.devices) == (1 if kind == "b1" else 8),
                     "claim %s: %s" % (ref[0][1], r))
            kl.unprepare(ref)
        out[kind] = lat
    kl.close()
    gets = env.claim_gets()
    api = api_get_floor(env)
    print("NodePrepareResources on the 8xH100 sim, %d new claims each (the claim's GET over HTTPS on loopback: "
          "%d GETs; the checkpoint in %s)" % (ITER, gets, env.state))
    print("%-34s %9s %9s %9s" % ("", "p50 ms", "p99 ms", "max ms"))
    for label, xs in (("1 device", out["b1"]), ("8 devices", out["b8"]), ("empty request (gRPC floor)", floor),
                      ("a claim's GET alone (HTTPS floor)", api)):
        print("%-34s %9.2f %9.2f %9.2f" % (label, pct(xs, .5), pct(xs, .99), max(xs)))
    for label, kind in (("1 device", "b1"), ("8 devices", "b8")):
        p99 = pct(out[kind], .99)
        print("%s: p99 %.2f ms (the two floors' p99s add to %.2f ms): %s the 5 ms target" % (
            label, p99, pct(floor, .99) + pct(api, .99), verdict(p99 <= 5.0)))


def publication(env, simpath):
    srv = env.srv
    seen = []
    count = 8
    for i in range(CHANGES):
        count = 7 if count == 8 else 8
        time.sleep(0.3)
        t0 = time.time()
        cs.write_sim(simpath, SIM, count)
        cs.wait_for("%d devices published" % count, lambda: len(cs.pool_devices(srv, env.node) or []) == count, 10)
        writes = [e for e in srv.requests(t0, ["slice"]) if e[1] in ("POST", "PUT", "DELETE")
                  and 200 <= e[3] < 300]
        cs.check(writes, "no slice write after the change: %s" % srv.requests(t0))
        seen.append(writes[-1][0] - t0)
    print("slice publication after a device change (%d changes, 8 <-> 7 GPUs in the sim file): median %.0f ms, "
          "max %.0f ms: %s the 1 s target" % (len(seen), statistics.median(seen) * 1e3, max(seen) * 1e3,
                                               verdict(max(seen) <= 1.0)))


def idle(env):
    time.sleep(1)
    pid = env.proc.pid
    calls0, t_req, h0 = dict(env.kubelet.calls), time.time(), len(env.kubelet.health_msgs)
    c0, t0 = cpu_seconds(pid), time.monotonic()
    time.sleep(IDLE)
    used, wall = cpu_seconds(pid) - c0, time.monotonic() - t0
    reqs = env.srv.requests(t_req)
    calls = {k: v - calls0.get(k, 0) for k, v in env.kubelet.calls.items() if v != calls0.get(k, 0)}
    share = 100 * used / wall
    tick = 1.0 / os.sysconf("SC_CLK_TCK")
    print("idle CPU over %.0f s: %.3f s, %.4f %% of a core (one clock tick of %.0f ms is %.3f %% here): %s the "
          "0.1 %% target; %d API-server requests, kubelet calls %s, %d health lists meanwhile" % (
              wall, used, share, tick * 1e3, 100 * tick / wall, verdict(share <= 0.1), len(reqs), calls or "none",
              len(env.kubelet.health_msgs) - h0))


def main():
    work = os.environ.get("WORK") or tempfile.mkdtemp(prefix="axl-drab-")
    os.makedirs(work, exist_ok=True)
    simpath = os.path.join(work, "node.json")
    cs.write_sim(simpath, SIM)
    nodelay(work)
    cs.make_certs(work)
    env = ck.Env(AXL, work, simpath)
    env.kubelet = fk.FakeKubelet(work, env.reg, fk.load_pb(work), health=True)  # the ResourceHealthStatus gate
    if os.environ.get("STATE"):
        env.state = os.path.join(os.environ["STATE"], "axl-dra-bench-%d" % os.getpid())
    rc = 0
    try:
        env.start_server()
        env.kubelet.start()
        env.start_driver()
        names = env.devices()
        env.stop_driver()
        env.srv.stop()
        env.add_claims([ck.claim("w-%d" % i, "uid-w-%d" % i, env.node, [("gpus", DRIVER, names[i % 8], False)])
                        for i in range(WARM)])
        for i in range(ITER):
            env.add_claims([ck.claim("b1-%d" % i, "uid-b1-%d" % i, env.node, [("gpus", DRIVER, names[i % 8], False)]),
                            ck.claim("b8-%d" % i, "uid-b8-%d" % i, env.node,
                                     [("gpus", DRIVER, d, False) for d in names[:8]])])
        env.start_server()
        env.start_driver()
        env.registered()
        print("axl dra-plugin (%s) on %s, fake kubelet (gRPC, python3-grpcio) and fake API server (HTTPS)" % (
            AXL, os.path.relpath(os.path.join(ck.SIMS, SIM))))
        prepare_latency(env, names)
        publication(env, simpath)
        idle(env)
        env.stop_driver(signal.SIGTERM)
    except (cs.Fail, RuntimeError, OSError) as e:
        print("bench_dra_plugin: the harness failed: %s (the folder %s is kept)" % (e, work))
        rc = 1
    finally:
        env.close()
        if os.environ.get("STATE"):
            shutil.rmtree(env.state, ignore_errors=True)
    if rc == 0 and not os.environ.get("AXL_KEEP_WORK"):  # kept when it failed (tests/workdir.py)
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
