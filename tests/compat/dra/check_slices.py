#!/usr/bin/python3
"""axl dra-plugin --publish-only against the fake API server (fake_apiserver.py): the
ResourceSlices of the simulated nodes, checked against the resource.k8s.io/v1 schema and
limits by the server, with what a scheduler reads from them; devices that come and go;
faults (500s, 409s, a restart of the server, a wrong token, slices changed by someone
else) survived with a bounded number of requests.

usage: check_slices.py --axl AXL --work DIR --case CASE   (CASE: sims, change, limits, faults, stop, health)
The work directory is removed when the check passes, kept when it fails (tests/workdir.py).
"""
import argparse
import base64
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SIMS = os.path.join(HERE, "..", "..", "sim")
SCHEMA = os.path.join(HERE, "openapi", "resource.k8s.io_v1_resourceslice.json")
DRIVER = "gpu.axl.dev"
TOKEN = "token-of-the-driver"


class Fail(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Fail(msg)


class Server:
    def __init__(self, work, nodes):
        self.work = work
        self.port = None
        self.proc = None
        self.state = os.path.join(work, "store.json")
        self.objects = os.path.join(work, "objects.json")
        with open(self.objects, "w") as f:
            json.dump({"/api/v1/nodes": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": n}}
                                         for n in nodes]}, f)
        self.ctx = ssl.create_default_context(cafile=os.path.join(work, "ca.crt"))

    def start(self):
        pf = os.path.join(self.work, "port")
        if os.path.exists(pf):
            os.unlink(pf)
        log = open(os.path.join(self.work, "apiserver.log"), "a+")
        cmd = [sys.executable, os.path.join(HERE, "fake_apiserver.py"), "--cert", os.path.join(self.work, "server.crt"),
               "--key", os.path.join(self.work, "server.key"), "--schema", SCHEMA, "--token", TOKEN,
               "--state", self.state, "--objects", self.objects, "--port-file", pf]
        if self.port:
            cmd += ["--port", str(self.port)]
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=log)
        for _ in range(200):
            if os.path.exists(pf):
                self.port = int(open(pf).read())
                return
            check(self.proc.poll() is None, "the fake API server died: %s" % open(log.name).read()[-2000:])
            time.sleep(0.05)
        raise Fail("the fake API server did not start")

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def call(self, method, path, body=None, token=None):
        req = urllib.request.Request("https://127.0.0.1:%d%s" % (self.port, path), method=method,
                                     data=json.dumps(body).encode() if body is not None else None)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        with urllib.request.urlopen(req, context=self.ctx, timeout=10) as r:
            return json.load(r)

    def stats(self):
        return self.call("GET", "/_fake/stats")

    def pool(self, node):
        objs = self.stats()["objects"].get("/apis/resource.k8s.io/v1/resourceslices", {})
        return sorted((o for o in objs.values() if o["spec"].get("nodeName") == node), key=lambda o: o["metadata"]["name"])

    def requests(self, since, kinds=None):
        return [e for e in self.stats()["log"] if e[0] >= since and e[2] != "control" and (not kinds or e[2] in kinds)]


def make_certs(work):
    def run(*a):
        subprocess.run(a, cwd=work, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=fake-apiserver-ca")
    run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=kube-apiserver")
    with open(os.path.join(work, "ext.cnf"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("openssl", "x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "server.crt", "-days", "2", "-extfile", "ext.cnf")


def kubeconfig(work, port, ca_inline):
    """A kubeconfig as kubectl writes it (kind's layout), with a tokenFile the test rotates."""
    tok = os.path.join(work, "token")
    if not os.path.exists(tok):
        with open(tok, "w") as f:
            f.write(TOKEN + "\n")
    ca = ("certificate-authority-data: " + base64.b64encode(open(os.path.join(work, "ca.crt"), "rb").read()).decode()
          if ca_inline else "certificate-authority: ca.crt")
    path = os.path.join(work, "kubeconfig")
    with open(path, "w") as f:
        f.write("""apiVersion: v1
clusters:
- cluster:
    %s
    server: https://127.0.0.1:%d
  name: other
- cluster:
    server: https://127.0.0.1:1
  name: wrong
contexts:
- context:
    cluster: wrong
    user: nobody
  name: not-this-one
- context:
    cluster: other
    namespace: default
    user: "driver"
  name: the-context
current-context: the-context
kind: Config
preferences: {}
users:
- name: nobody
  user:
    token: not-the-token
- name: driver
  user:
    tokenFile: token  # relative to this file
""" % (ca, port))
    return path


class Plugin:
    def __init__(self, axl, work, sim, node, kcfg, extra=(), node_args=None, env_extra=None):
        self.log = os.path.join(work, "plugin-%s.log" % node)
        logf = open(self.log, "a+")
        env = dict(os.environ)
        env.pop("KUBERNETES_SERVICE_HOST", None)
        for k in ("DP_DISABLE_HEALTHCHECKS", "DP_ENABLE_HEALTHCHECKS"):
            env.pop(k, None)
        env.update(env_extra or {})
        self.proc = subprocess.Popen([axl, "dra-plugin"] + (node_args or ["--sim", sim]) +
                                     ["--publish-only", "--kubeconfig", kcfg,
                                      "--node-name", node, "--api-backoff", "200ms", "-v"] + list(extra),
                                     stdout=logf, stderr=logf, env=env)

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise Fail("axl dra-plugin did not stop within 10 s of SIGTERM")
        return self.proc.returncode

    def text(self):
        return open(self.log).read()


def wait_for(what, fn, timeout, plugin=None):
    end = time.time() + timeout
    while time.time() < end:
        v = fn()
        if v:
            return v
        if plugin:
            check(plugin.proc.poll() is None, "axl dra-plugin exited (%s): %s" % (plugin.proc.returncode,
                                                                                   plugin.text()[-3000:]))
        time.sleep(0.02)
    raise Fail("%s: not within %.1f s%s" % (what, timeout, ("\n" + plugin.text()[-3000:]) if plugin else ""))


def pool_devices(srv, node):
    """The pool's devices when it is complete and consistent (one generation, every slice
    there), else None."""
    slices = srv.pool(node)
    if not slices:
        return None
    gens = {s["spec"]["pool"]["generation"] for s in slices}
    counts = {s["spec"]["pool"]["resourceSliceCount"] for s in slices}
    if len(gens) != 1 or counts != {len(slices)}:
        return None
    return [d for s in slices for d in s["spec"].get("devices") or []]


def write_sim(path, base, count=None):
    d = json.load(open(os.path.join(SIMS, base)))
    if count is not None:
        d["devices"][0]["count"] = count
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(d, f)
    os.replace(tmp, path)


def check_device(d, sim):
    at, cap = d["attributes"], d.get("capacity", {})
    for k in ("vendor", "model", "architecture", "uuid", "family", "index", "computeUnits",
              "resource.kubernetes.io/numaNode", "resource.kubernetes.io/pciBusID"):
        check(k in at, "%s: no attribute %s: %s" % (d["name"], k, at))
    check("memory" in cap and cap["memory"]["value"].endswith("Gi"), "%s: memory %s" % (d["name"], cap))
    check(len(at) + len(cap) <= 32, "%s: %d attributes and capacities" % (d["name"], len(at) + len(cap)))
    if sim in ("h100x8-nvswitch.json", "mi300x8.json"):
        check("island" in at and "interconnect" in at, "%s: no island on %s: %s" % (d["name"], sim, at))
    if sim == "h100x8-nvswitch.json":
        check(at.get("fp8") == {"bool": True}, "%s: fp8 %s" % (d["name"], at.get("fp8")))
        check(at.get("fp4") == {"bool": False}, "%s: fp4 %s" % (d["name"], at.get("fp4")))
        check(cap["memory"]["value"] == "80Gi", "%s: memory %s" % (d["name"], cap["memory"]))


def case_sims(axl, work, srv, kcfg):
    expect = {"h100x8-nvswitch.json": 8, "mi300x8.json": 8, "mixed.json": 6}
    plugins = []
    try:
        for i, (sim, n) in enumerate(expect.items()):
            path = os.path.join(work, "node%d.json" % i)
            write_sim(path, sim)
            plugins.append((Plugin(axl, work, path, "node-%d" % i, kcfg), sim, n, "node-%d" % i))
        for p, sim, n, node in plugins:
            devs = wait_for("%s published" % sim, lambda: pool_devices(srv, node), 10, p)
            check(len(devs) == n, "%s: %d devices published, %d on the node" % (sim, len(devs), n))
            for d in devs:
                check_device(d, sim)
            slices = srv.pool(node)
            uid = srv.stats()["objects"]["/api/v1/nodes"][node]["metadata"]["uid"]
            for s in slices:
                check(s["spec"]["driver"] == DRIVER and s["spec"]["pool"]["name"] == node, "pool: %s" % s["spec"])
                refs = s["metadata"].get("ownerReferences", [])
                check(refs == [{"apiVersion": "v1", "kind": "Node", "name": node, "uid": uid, "controller": True}],
                      "owner: %s" % refs)
                check(s["metadata"]["name"].startswith(node + "-" + DRIVER + "-"), "name %s" % s["metadata"]["name"])
            print("%s: %d devices in %d slice(s), %d attributes on the first" %
                  (sim, len(devs), len(slices), len(devs[0]["attributes"])))
        # an idle publisher asks nothing: no polling
        time.sleep(0.5)
        t0 = time.time()
        time.sleep(3)
        idle = srv.requests(t0)
        check(len(idle) == 0, "%d requests from 3 idle publishers in 3 s: %s" % (len(idle), idle[:10]))
        print("idle: 0 requests in 3 s from 3 publishers")
    finally:
        for p, *_ in plugins:
            p.stop()
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def case_change(axl, work, srv, kcfg):
    path = os.path.join(work, "node.json")
    write_sim(path, "h100x8-nvswitch.json")
    p = Plugin(axl, work, path, "node-c", kcfg)
    try:
        wait_for("published", lambda: pool_devices(srv, "node-c"), 10, p)
        gen0 = srv.pool("node-c")[0]["spec"]["pool"]["generation"]
        worst = 0
        for count in (7, 8, 4, 8):
            t0 = time.time()
            write_sim(path, "h100x8-nvswitch.json", count)
            wait_for("%d devices" % count, lambda: (pool_devices(srv, "node-c") or [None] * 99).__len__() == count,
                     5, p)
            took = time.time() - t0
            worst = max(worst, took)
            print("%d devices: republished in %.0f ms" % (count, took * 1000))
        check(worst <= 1.0, "a device change took %.2f s to publish (at most 1 s)" % worst)
        gen = srv.pool("node-c")[0]["spec"]["pool"]["generation"]
        check(gen == gen0 + 4, "generation %d after 4 changes from %d" % (gen, gen0))
        # a server that does not keep a field sent (an alpha field, its gate off): published
        # once, taken as it was stored, not written again at every event of that write
        srv.call("POST", "/_fake/drop_attribute", {"name": "index"})
        write_sim(path, "h100x8-nvswitch.json", 6)
        wait_for("6 devices", lambda: len(pool_devices(srv, "node-c") or []) == 6, 5, p)
        time.sleep(0.5)
        t0 = time.time()
        time.sleep(2)
        reqs = srv.requests(t0)
        check(not reqs and "otherwise than it was sent" in p.text(), "a dropped field: %s" % reqs)
        check(all("index" not in d["attributes"] for d in pool_devices(srv, "node-c")), "index kept")
        print("a field the server does not keep: said, no request in the 2 s after")
        write_sim(path, "h100x8-nvswitch.json", 8)
        wait_for("8 devices", lambda: len(pool_devices(srv, "node-c") or []) == 8, 5, p)
        # a slice changed or deleted by someone else is put right
        s = srv.pool("node-c")[0]
        bad = json.loads(json.dumps(s))
        bad["spec"]["devices"] = bad["spec"]["devices"][:1]
        srv.call("PUT", "/apis/resource.k8s.io/v1/resourceslices/" + s["metadata"]["name"], bad, token=TOKEN)
        t0 = time.time()
        wait_for("tampered slice restored", lambda: len(pool_devices(srv, "node-c") or []) == 8, 3, p)
        print("a slice changed by someone else: restored in %.0f ms" % ((time.time() - t0) * 1000))
        srv.call("DELETE", "/apis/resource.k8s.io/v1/resourceslices/" + s["metadata"]["name"], token=TOKEN)
        t0 = time.time()
        wait_for("deleted slice restored", lambda: len(pool_devices(srv, "node-c") or []) == 8, 3, p)
        print("a slice deleted by someone else: restored in %.0f ms" % ((time.time() - t0) * 1000))
    finally:
        rc = p.stop()
    check(rc == 0, "exit status %s after SIGTERM" % rc)
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def case_limits(axl, work, srv, kcfg):
    path = os.path.join(work, "big.json")
    # 130 devices (axl's discovery of a simulated node grows fast with its devices' links:
    # 300 take a minute, 130 a second)
    write_sim(path, "h100x8-nvswitch.json", 130)
    p = Plugin(axl, work, path, "node-big", kcfg)
    try:
        devs = wait_for("130 devices published", lambda: pool_devices(srv, "node-big"), 20, p)
        slices = srv.pool("node-big")
        sizes = [len(s["spec"]["devices"]) for s in slices]
        check(len(devs) == 130 and len(slices) == 2 and max(sizes) <= 128, "slices of %s devices" % sizes)
        names = [d["name"] for d in devs]
        check(len(set(names)) == 130, "device names not unique")
        print("130 devices: %d slices of %s devices, resourceSliceCount %d" %
              (len(slices), sizes, slices[0]["spec"]["pool"]["resourceSliceCount"]))
        # the pool shrinks: the extra slice is deleted, the other updated to a new generation
        write_sim(path, "h100x8-nvswitch.json", 100)
        wait_for("100 devices", lambda: len(pool_devices(srv, "node-big") or []) == 100 and len(srv.pool("node-big")) == 1,
                 10, p)
        print("100 devices: 1 slice, the other deleted")
    finally:
        p.stop()
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def case_faults(axl, work, srv, kcfg):
    path = os.path.join(work, "node.json")
    write_sim(path, "mi300x8.json")
    p = Plugin(axl, work, path, "node-f", kcfg)
    n = lambda: len(pool_devices(srv, "node-f") or [])
    try:
        wait_for("published", lambda: n() == 8, 10, p)
        # 500s: every write fails for a while; retried with backoff, not in a loop
        srv.call("POST", "/_fake/fault", {"status": 500, "count": 6, "methods": ["PUT", "POST", "GET", "DELETE"],
                                          "path": "resourceslices(?!.*watch)"})
        t0 = time.time()
        write_sim(path, "mi300x8.json", 6)
        wait_for("published through 500s", lambda: n() == 6, 30, p)
        reqs = srv.requests(t0)
        print("6 injected 500s: published after %.1f s and %d requests" % (time.time() - t0, len(reqs)))
        check(len(reqs) <= 20, "%d requests to get through 6 failures: %s" % (len(reqs), reqs))
        # 409s: the store changed under us: list again and retry
        srv.call("POST", "/_fake/fault", {"status": 409, "count": 2, "methods": ["PUT"], "path": "resourceslices/"})
        t0 = time.time()
        write_sim(path, "mi300x8.json", 8)
        wait_for("published through 409s", lambda: n() == 8, 10, p)
        reqs = srv.requests(t0)
        lists = [r for r in reqs if r[2] == "slices" and r[1] == "GET"]
        print("2 injected 409s: published after %.1f s, %d requests, %d lists" % (time.time() - t0, len(reqs), len(lists)))
        check(len(lists) >= 2 and len(reqs) <= 15, "409s: %s" % reqs)
        # a restart of the API server (its store kept, its watch history not: 410 Gone);
        # while it is down, the watch is tried again with backoff (its failures counted in
        # the plugin's log: 200 ms doubling, about 4 tries in 3 s)
        said = p.text().count("Couldn't connect")
        srv.stop()
        t0 = time.time()
        time.sleep(3)
        tries = p.text().count("Couldn't connect") - said
        check(tries <= 6, "%d connection attempts in 3 s while the server was down" % tries)
        srv.start()
        write_sim(path, "mi300x8.json", 7)
        wait_for("published after a restart", lambda: n() == 7, 30, p)
        took = time.time() - t0
        reqs = srv.requests(t0)
        print("a 3 s restart: %d connection attempts while down, published %.1f s after it began, %d requests "
              "after it" % (tries, took, len(reqs)))
        check(len(reqs) <= 10, "after a restart: %s" % reqs)
        # the watch dropped after the history was compacted past the last version it saw
        # (other objects changed since; no bookmark from this server): 410 Gone, listed again.
        # First the restart's own 410 and list are let to end (quiet for 1 s), or its list
        # could see the new version and rightly need no 410.
        wait_for("quiet after the restart", lambda: not srv.requests(time.time() - 1.0, ["slices", "slice"]), 15, p)
        srv.call("POST", "/api/v1/nodes", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "other"}},
                 token=TOKEN)
        srv.call("POST", "/_fake/compact", {})
        srv.call("POST", "/_fake/close_watches", {})
        t0 = time.time()
        time.sleep(1)
        write_sim(path, "mi300x8.json", 8)
        wait_for("published after a compaction", lambda: n() == 8, 10, p)
        # the update needs no list (the slices' own versions are current); the watch's 410
        # does, at once or after the backoff of a watch that ended early
        wait_for("a list after the 410", lambda: any(r[2] == "slices" and r[1] == "GET" for r in srv.requests(t0)),
                 10, p)
        reqs = srv.requests(t0)
        check(len(reqs) <= 8, "after a compaction: %s" % reqs)
        print("a compaction (410 Gone): listed again, %d requests" % len(reqs))
        # a wrong token (rotated on the server first): 401s with backoff; the file's new
        # token is read again without a restart
        srv.call("POST", "/_fake/tokens", {"tokens": ["rotated-token"]})
        srv.call("POST", "/_fake/close_watches", {})
        t0 = time.time()
        write_sim(path, "mi300x8.json", 5)
        time.sleep(4)
        reqs = srv.requests(t0)
        print("a wrong token: %d requests in 4 s (%s)" % (len(reqs), sorted({r[3] for r in reqs})))
        check(all(r[3] == 401 for r in reqs) and 1 <= len(reqs) <= 8, "with a wrong token: %s" % reqs)
        with open(os.path.join(work, "token.tmp"), "w") as f:
            f.write("rotated-token\n")
        os.replace(os.path.join(work, "token.tmp"), os.path.join(work, "token"))
        t0 = time.time()
        wait_for("published with the rotated token", lambda: n() == 5, 40, p)
        print("the token file rotated: published %.1f s later" % (time.time() - t0))
    finally:
        rc = p.stop()
    check(rc == 0, "exit status %s" % rc)
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])
    check(p.proc.returncode == 0, "exit %s" % p.proc.returncode)


def case_stop(axl, work, srv, kcfg):
    path = os.path.join(work, "node.json")
    write_sim(path, "mixed.json")
    p = Plugin(axl, work, path, "node-s", kcfg, ["--delete-slices-on-exit"])
    wait_for("published", lambda: pool_devices(srv, "node-s"), 10, p)
    t0 = time.time()
    rc = p.stop()
    check(rc == 0, "exit status %s" % rc)
    check(not srv.pool("node-s"), "slices left after --delete-slices-on-exit: %s" % srv.pool("node-s"))
    print("SIGTERM with --delete-slices-on-exit: stopped and deleted in %.0f ms" % ((time.time() - t0) * 1000))
    # without it, the slices stay and the next start takes them over (no new slice)
    p = Plugin(axl, work, path, "node-s", kcfg)
    wait_for("published", lambda: pool_devices(srv, "node-s"), 10, p)
    names = [s["metadata"]["name"] for s in srv.pool("node-s")]
    p.stop()
    p = Plugin(axl, work, path, "node-s", kcfg)
    time.sleep(1.5)
    check([s["metadata"]["name"] for s in srv.pool("node-s")] == names, "a restart replaced the slices")
    p.stop()
    print("a restart of the plugin keeps its slices: %s" % names)
    # a missing node name, a bad driver name: usage errors
    r = subprocess.run([axl, "dra-plugin", "--publish-only", "--sim", path, "--kubeconfig", kcfg],
                       capture_output=True, text=True, env={k: v for k, v in os.environ.items() if k != "NODE_NAME"})
    check(r.returncode == 2 and "--node-name" in r.stderr, "no node name: %s %s" % (r.returncode, r.stderr))
    r = subprocess.run([axl, "dra-plugin", "--publish-only", "--sim", path, "--kubeconfig", kcfg, "--node-name", "n",
                        "--driver-name", "Not_A.Domain"], capture_output=True, text=True)
    check(r.returncode == 2 and "--driver-name" in r.stderr, "bad driver name: %s %s" % (r.returncode, r.stderr))
    # a CA that is not the server's: refused (the certificate is verified)
    other = os.path.join(work, "other-ca.crt")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", os.path.join(work, "other-ca.key"), "-out", other, "-days", "1", "-subj", "/CN=x"],
                   check=True, capture_output=True)
    text = open(kcfg).read().replace("certificate-authority: ca.crt", "certificate-authority: other-ca.crt")
    k2 = os.path.join(work, "kubeconfig-other-ca")
    with open(k2, "w") as f:
        f.write(text)
    t0 = time.time()
    p = Plugin(axl, work, path, "node-x", k2)
    time.sleep(2)
    p.stop()
    check(not srv.pool("node-x") and "certificate" in p.text().lower(), "a wrong CA: %s" % p.text()[-1000:])
    print("a CA that is not the server's: refused (%s)" %
          [l for l in p.text().splitlines() if "certificate" in l.lower()][0][:120])


def case_health(axl, work, srv, kcfg):
    """Health as device taints: the 8xMI300X tree (tests/trees/nodes/mi300x-8x.json) with
    amdgpu's ras/<block>_err_count files written while the plugin runs, as
    tests/compat/kubernetes/check_device_plugin_health.py's amd case does: a rising "ue:" is
    an uncorrectable error the vendor takes the GPU out of service for, so that GPU gets the
    taint gpu.axl.dev/unhealthy=Uncorrectable:NoExecute within two health samples, the other
    seven none; a rising "ce:" taints nothing; the taint is gone --health-recovery seconds after
    the last error; --health-checks none taints nothing."""
    trees = os.path.join(HERE, "..", "..", "trees")
    t = os.path.join(work, "tree-mi300x-8x")
    subprocess.run([sys.executable, os.path.join(trees, "mktree.py"), os.path.join(trees, "nodes", "mi300x-8x.json"),
                    t], check=True, stdout=subprocess.DEVNULL)
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    r = subprocess.run([axl, "--sysroot", t, "list", "--json"], capture_output=True, text=True, env=env, timeout=60)
    check(r.returncode == 0, "axl list: %s" % r.stderr[-300:])
    gpus = [d for d in json.loads(r.stdout).get("devices", []) if d["id"].startswith("amdgpu:")]
    check(len(gpus) == 8, "8 MI300X: %s" % [d["id"] for d in gpus])

    def ras(d):
        return os.path.join(os.path.realpath(os.path.join(t, "sys", "bus", "pci", "devices", d["pci"]["address"])),
                            "ras")

    def put(path, text):
        with open(path, "w") as f:  # in place, as the driver's file changes
            f.write(text)
    for d in gpus:
        os.makedirs(ras(d), exist_ok=True)
        put(os.path.join(ras(d), "umc_err_count"), "ue: 0\nce: 0\nde: 0\n")
        put(os.path.join(ras(d), "gfx_err_count"), "ue: 0\nce: 0\n")
    victim, other = gpus[2], gpus[6]
    label = {d["id"]: d["id"].replace(":", "-") for d in gpus}
    recovery = 3

    def taints(node):
        devs = pool_devices(srv, node) or []
        return {d["name"]: d.get("taints") for d in devs if d.get("taints")}
    p = Plugin(axl, work, None, "node-h", kcfg, ["--interval", "1s", "--health-recovery", "%ds" % recovery],
               node_args=["--sysroot", t])
    try:
        devs = wait_for("the 8 GPUs published", lambda: pool_devices(srv, "node-h"), 15, p)
        check(len(devs) == 8, "8 devices: %s" % [d["name"] for d in devs])
        check(not taints("node-h"), "no taint at the start: %s" % taints("node-h"))
        put(os.path.join(ras(other), "umc_err_count"), "ue: 0\nce: 17\nde: 3\n")
        time.sleep(2.5)
        check(not taints("node-h"), "corrected errors taint nothing: %s" % taints("node-h"))
        t0 = time.monotonic()
        put(os.path.join(ras(victim), "umc_err_count"), "ue: 2\nce: 0\nde: 0\n")
        got = wait_for("the victim's taint", lambda: taints("node-h"), 10, p)
        dt = time.monotonic() - t0
        print("taint published %.2f s after the error" % dt)
        check(dt <= 4, "tainted within two health samples and a write (%.2f s)" % dt)
        check(list(got) == [label[victim["id"]]], "only %s tainted: %s" % (victim["id"], got))
        tt = got[label[victim["id"]]]
        check(len(tt) == 1 and tt[0]["key"] == DRIVER + "/unhealthy" and tt[0]["effect"] == "NoExecute"
              and tt[0].get("value") == "Uncorrectable"
              and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", tt[0].get("timeAdded", "")),
              "the taint: %s" % tt)
        # the taint stays while nothing changes: no rewrite of a stable taint
        gen = srv.pool("node-h")[0]["spec"]["pool"]["generation"]
        time.sleep(1.5)
        check(srv.pool("node-h")[0]["spec"]["pool"]["generation"] == gen, "a stable taint is not rewritten")
        t1 = time.monotonic()
        wait_for("the taint gone after recovery", lambda: not taints("node-h") and pool_devices(srv, "node-h"),
                 recovery + 8, p)
        print("taint gone %.2f s after it appeared (--health-recovery %ds)" % (time.monotonic() - t1 + 1.5, recovery))
        check(time.monotonic() - t0 >= recovery - 0.2, "not before --health-recovery")
        # a server without the DRADeviceTaints gate drops the field: the slice it stores is
        # taken as published once, not written again at each watch event of that write
        srv.call("POST", "/_fake/drop_field", {"name": "taints"})
        put(os.path.join(ras(victim), "umc_err_count"), "ue: 3\nce: 0\nde: 0\n")
        wait_for("the write of the tainted devices", lambda: "otherwise than it was sent" in p.text(), 6, p)
        time.sleep(0.5)
        t2 = time.time()
        time.sleep(2)
        reqs = srv.requests(t2)
        check(not reqs, "taints dropped by the server: no rewrite loop: %s" % reqs[:10])
        check(not taints("node-h"), "the server kept no taint: %s" % taints("node-h"))
        print("taints dropped by the server: said once, no request in the 2 s after")
    finally:
        p.stop()
    # --health-checks none: no taint
    put(os.path.join(ras(victim), "umc_err_count"), "ue: 2\nce: 0\nde: 0\n")
    p = Plugin(axl, work, None, "node-x", kcfg, ["--interval", "1s", "--health-checks", "none"],
               node_args=["--sysroot", t])
    try:
        wait_for("the 8 GPUs published", lambda: pool_devices(srv, "node-x"), 15, p)
        put(os.path.join(ras(victim), "umc_err_count"), "ue: 5\nce: 0\nde: 0\n")
        time.sleep(3)
        check(not taints("node-x"), "--health-checks none taints nothing: %s" % taints("node-x"))
    finally:
        p.stop()
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def case_health_nvml(axl, work, srv, kcfg, double):
    """The effect by severity, on the 8xH100 tree with NVML answering from the double and
    events injected through $AXL_NVML_DOUBLE_EVENTS (as check_device_plugin_health.py's nvml
    case): with DP_ENABLE_HEALTHCHECKS=13, an application's Xid 13 counts but its vendor does
    not take the GPU out of service for it: NoSchedule, value DriverError-13; Xid 79 then
    (fallen off the bus) makes it NoExecute, DriverError-79; gone after --health-recovery."""
    tests = os.path.join(HERE, "..", "..")
    trees = os.path.join(tests, "trees")
    t = os.path.join(work, "tree-hgx-8x-h100")
    subprocess.run([sys.executable, os.path.join(trees, "mktree.py"), os.path.join(trees, "nodes", "hgx-8x-h100.json"),
                    t], check=True, stdout=subprocess.DEVNULL)
    events = os.path.join(work, "nvml.events")
    with open(events, "w") as f:
        f.write("# NVML events, one a line: <uuid> xid N | <uuid> dbe\n")
    env = {"AXL_NVML_LIBRARY": double, "AXL_NVML_DOUBLE_EVENTS": events,
           "AXL_NVML_DOUBLE_XML": os.path.join(tests, "vendorlib", "nvml", "double", "fixtures", "hgx-8x-h100-q2x.xml"),
           "DP_ENABLE_HEALTHCHECKS": "13"}

    def tainted():
        devs = pool_devices(srv, "node-h") or []
        return {d["name"]: d["taints"] for d in devs if d.get("taints")}
    p = Plugin(axl, work, None, "node-h", kcfg, ["--interval", "1s", "--health-recovery", "4s"],
               node_args=["--sysroot", t], env_extra=env)
    try:
        devs = wait_for("the 8 GPUs published", lambda: pool_devices(srv, "node-h"), 15, p)
        uuids = {d["name"]: d["attributes"].get("uuid", {}).get("string") for d in devs}
        check(len(devs) == 8 and all(uuids.values()), "8 GPUs with UUIDs: %s" % uuids)
        name = sorted(uuids)[3]
        with open(events, "a") as f:
            f.write("%s xid 13\n" % uuids[name])
        got = wait_for("Xid 13's taint", tainted, 6, p)
        tt = got.get(name) or [{}]
        check(list(got) == [name] and tt[0].get("effect") == "NoSchedule" and tt[0].get("value") == "DriverError-13",
              "Xid 13 counted by DP_ENABLE_HEALTHCHECKS: NoSchedule on %s only: %s" % (name, got))
        with open(events, "a") as f:
            f.write("%s xid 79\n" % uuids[name])
        got = wait_for("Xid 79's NoExecute", lambda: (tainted().get(name) or [{}])[0].get("effect") == "NoExecute"
                       and tainted(), 6, p)
        tt = got[name]
        check(tt[0].get("value") == "DriverError-79" and list(got) == [name],
              "Xid 79: NoExecute, DriverError-79, on %s only: %s" % (name, got))
        print("Xid 13: NoSchedule; Xid 79: NoExecute on %s" % name)
        wait_for("the taint gone after recovery", lambda: not tainted() and pool_devices(srv, "node-h"), 12, p)
    finally:
        p.stop()
    check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case", required=True, choices=["sims", "change", "limits", "faults", "stop", "health", "health_nvml"])
    ap.add_argument("--double", help="the NVML double (libnvidia-ml.so.1), for health_nvml")
    args = ap.parse_args()
    axl, case = args.axl, args.case
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    make_certs(work)
    nodes = ["node-0", "node-1", "node-2", "node-c", "node-big", "node-f", "node-s", "node-x", "node-h"]
    srv = Server(work, nodes)
    srv.start()
    try:
        kcfg = kubeconfig(work, srv.port, ca_inline=case in ("sims", "limits"))
        {"sims": case_sims, "change": case_change, "faults": case_faults, "limits": case_limits,
         "stop": case_stop, "health": case_health,
         "health_nvml": lambda *x: case_health_nvml(*x, args.double)}[case](axl, work, srv, kcfg)
    except Fail as e:
        print("FAIL: %s\n(the work directory %s is kept)" % (e, work))
        return 1
    finally:
        srv.stop()
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(HERE, "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
