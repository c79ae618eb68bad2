#!/usr/bin/python3
"""axl dra-plugin's kubelet side against a fake kubelet (fake_kubelet.py: the plugin
watcher and the DRA manager over real gRPC) and the fake API server (fake_apiserver.py,
serving the ResourceClaims): registration, NodePrepareResources/NodeUnprepareResources on
the simulated nodes with CDI ids that resolve in the specs the driver wrote, a kubelet
restart, the registration socket removed from under the driver, kill -9 mid-prepare, bad
input (an error per claim, the driver keeps serving), no busy loop (requests and CPU
counted while idle). The latency of NodePrepareResources is bench/bench_dra_plugin.py's,
on this harness.

The claims are resource.k8s.io/v1 ResourceClaims written from kubernetes/kubernetes
staging/src/k8s.io/api/resource/v1/types.go (ResourceClaim: metadata, spec.devices.requests
[] {name, exactly {deviceClassName, allocationMode, count}}, status.allocation {devices
{results [] {request, driver, pool, device, adminAccess}}, nodeSelector}, status.reservedFor).

usage: check_kubelet.py AXL WORKDIR CASE   (CASE: register, prepare, restart, bad, idle)
The work directory is removed when the check passes (unless AXL_KEEP_WORK=1, as
tests/workdir.py), kept when it fails.
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import workdir  # noqa: E402  (tests/workdir.py: the work folder kept on failure only)
import check_slices as cs  # noqa: E402  (the fake API server's harness: certs, kubeconfig, Server)
import fake_kubelet as fk  # noqa: E402

import grpc  # noqa: E402

SIMS = os.path.join(HERE, "..", "..", "sim")
DRIVER = cs.DRIVER
NS = "default"
check, Fail = cs.check, cs.Fail


def claim(name, uid, node, results):
    """An allocated ResourceClaim; results: [(request, driver, device, admin)]."""
    return {
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": NS, "uid": uid},
        "spec": {"devices": {"requests": [{"name": "gpus", "exactly": {
            "deviceClassName": "gpu." + DRIVER, "allocationMode": "ExactCount", "count": len(results)}}]}},
        "status": {
            "allocation": {
                "devices": {"results": [dict({"request": rq, "driver": drv, "pool": node, "device": dev},
                                             **({"adminAccess": True} if adm else {}))
                                        for rq, drv, dev, adm in results]},
                "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": [node]}]}]}},
            "reservedFor": [{"resource": "pods", "name": "pod-" + name, "uid": "pod-" + uid}]}}


class Env:
    """The fake API server (its objects: the node and the claims), the fake kubelet and
    the driver, in one work directory."""

    def __init__(self, axl, work, sim, node="node-k"):
        self.axl, self.work, self.sim, self.node = axl, work, sim, node
        self.reg = os.path.join(work, "plugins_registry")
        self.plugdir = os.path.join(work, "plugins", DRIVER)
        self.cdi = os.path.join(work, "cdi")
        self.state = os.path.join(work, "state")
        os.makedirs(self.reg, exist_ok=True)
        os.makedirs(self.plugdir, exist_ok=True)
        self.srv = cs.Server(work, [node])
        self.claims = []
        self.proc = None
        self.log = os.path.join(work, "plugin.log")
        self.kubelet = fk.FakeKubelet(work, self.reg, fk.load_pb(work))

    def add_claims(self, claims):
        self.claims += claims

    def start_server(self):
        with open(self.srv.objects, "w") as f:
            json.dump({"/api/v1/nodes": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": self.node}}],
                       "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims" % NS: self.claims}, f)
        self.srv.start()
        self.kcfg = cs.kubeconfig(self.work, self.srv.port, ca_inline=True)

    def state_dir(self):
        """axl's state directory for the driver: under the work directory (the bench puts it
        on a tmpfs by setting env.state)"""
        return self.state

    def notified(self):
        return self.kubelet.calls.get("NotifyRegistrationStatus", 0)

    def restart_driver(self, sig=signal.SIGKILL):
        n = self.notified()
        self.stop_driver(sig)
        self.start_driver()
        return self.registered(after=n)

    def start_driver(self, extra=()):
        self.n_at_start = self.notified()
        env = dict(os.environ, AXL_STATE_DIR=self.state_dir())
        env.pop("KUBERNETES_SERVICE_HOST", None)
        logf = open(self.log, "a+")
        self.proc = subprocess.Popen([self.axl, "dra-plugin", "--sim", self.sim, "--kubeconfig", self.kcfg,
                                      "--node-name", self.node, "--driver-name", DRIVER, "--kubelet-registry-dir", self.reg,
                                      "--kubelet-plugin-dir", self.plugdir, "--cdi-dir", self.cdi,
                                      "--api-backoff", "200ms", "-v"] + list(extra), stdout=logf, stderr=logf, env=env)

    def text(self):
        return open(self.log).read()

    def alive(self):
        check(self.proc.poll() is None, "axl dra-plugin exited (%s): %s" % (self.proc.returncode, self.text()[-3000:]))

    def registered(self, timeout=15, after=None):
        """The plugin as registered; after: a NotifyRegistrationStatus count it must pass
        (a restarted driver: the kubelet still knows the old one until its socket goes);
        by default the count when the driver was last started."""
        end = time.time() + timeout
        while time.time() < end:
            p = self.kubelet.wait_registered(DRIVER, 0.05)
            if after is None:
                after = self.n_at_start
            if p and self.notified() > after:
                return p
            self.alive()
        raise Fail("the driver did not register within %d s: %s\nkubelet: %s" % (timeout, self.text()[-3000:],
                                                                                 self.kubelet.errors))

    def stop_driver(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise Fail("axl dra-plugin did not stop within 10 s of SIGTERM")
        rc = self.proc.returncode if self.proc else None
        self.proc = None
        return rc

    def close(self):
        try:
            self.stop_driver(signal.SIGKILL)
        finally:
            self.kubelet.stop()
            self.srv.stop()

    def devices(self, timeout=15):
        """The pool's device names as published."""
        devs = cs.wait_for("the pool's slices", lambda: cs.pool_devices(self.srv, self.node), timeout)
        return [d["name"] for d in devs]

    def claim_gets(self):
        """GETs of the claims (the fake API server logs an object's GET under its name)"""
        names = {c["metadata"]["name"] for c in self.claims}
        return sum(1 for e in self.srv.stats()["log"] if e[1] == "GET" and e[2] in names)


def cdi_devices(cdi_dir):
    """Every CDI device id the specs in cdi_dir define ("kind=name")."""
    ids = set()
    for p in glob.glob(os.path.join(cdi_dir, "*.json")):
        spec = json.load(open(p))
        for d in spec.get("devices", []):
            ids.add("%s=%s" % (spec["kind"], d["name"]))
    return ids


def by_uid(resp):
    return {k: v for k, v in resp.claims.items()}


def check_prepared(env, resp, uid, want_devices):
    r = resp.claims.get(uid)
    check(r is not None, "no answer for claim %s: %s" % (uid, resp))
    check(not r.error, "claim %s: %s" % (uid, r.error))
    got = sorted(d.device_name for d in r.devices)
    check(got == sorted(want_devices), "claim %s: devices %s, want %s" % (uid, got, want_devices))
    ids = cdi_devices(env.cdi)
    for d in r.devices:
        check(d.pool_name == env.node, "pool %s, want %s" % (d.pool_name, env.node))
        check(list(d.request_names) == ["gpus"], "request names %s" % list(d.request_names))
        check(len(d.cdi_device_ids) == 1, "%s: CDI ids %s" % (d.device_name, list(d.cdi_device_ids)))
        for cid in d.cdi_device_ids:
            check(cid in ids, "%s: CDI id %s is in none of the specs in %s (%s)" % (d.device_name, cid, env.cdi,
                                                                                  sorted(ids)[:6]))
    # exactly the allocated devices: no two devices share a CDI id
    all_ids = [c for d in r.devices for c in d.cdi_device_ids]
    check(len(all_ids) == len(set(all_ids)), "CDI ids repeat: %s" % all_ids)


# ---- cases ---------------------------------------------------------------------------------


def case_register(env):
    env.start_server()
    env.kubelet.start()
    env.start_driver()
    p = env.registered()
    check(p.endpoint == os.path.join(env.plugdir, "dra.sock"), "endpoint %s" % p.endpoint)
    check(p.service == "v1.DRAPlugin", "the kubelet chose %s" % p.service)
    check(os.path.exists(os.path.join(env.reg, DRIVER + "-reg.sock")), "no %s-reg.sock" % DRIVER)
    # the liveness probe: an empty request succeeds, on both services
    for svc in fk.SERVICES:
        r = env.kubelet.prepare(DRIVER, [], service=svc)
        check(len(r.claims) == 0, "an empty request answered %s" % r)
    n0 = dict(env.kubelet.calls)
    check(n0.get("GetInfo") == 1 and n0.get("NotifyRegistrationStatus") == 1, "calls %s" % n0)
    # the registration socket removed from under the driver: made again, registered again
    os.unlink(os.path.join(env.reg, DRIVER + "-reg.sock"))
    cs.wait_for("the registration socket made again",
                lambda: os.path.exists(os.path.join(env.reg, DRIVER + "-reg.sock")) and
                env.kubelet.calls.get("NotifyRegistrationStatus", 0) >= 2, 5)
    env.registered()
    # the DRA socket removed: made again (the kubelet dials it per call)
    os.unlink(os.path.join(env.plugdir, "dra.sock"))
    cs.wait_for("the DRA socket made again", lambda: os.path.exists(os.path.join(env.plugdir, "dra.sock")), 5)
    check(len(env.kubelet.prepare(DRIVER, []).claims) == 0, "an empty request after the DRA socket came back")
    # a kubelet restart that wipes its registry: the driver registers with the new one
    env.kubelet.stop()
    env.kubelet.start(wipe=True)
    cs.wait_for("the registration socket after the wipe",
                lambda: os.path.exists(os.path.join(env.reg, DRIVER + "-reg.sock")), 5)
    env.registered()
    # the whole registry directory removed and made again
    env.kubelet.stop()
    os.rename(env.reg, env.reg + ".old")  # (the driver may make its socket again while rmtree runs)
    shutil.rmtree(env.reg + ".old")
    time.sleep(0.2)
    os.makedirs(env.reg)
    env.kubelet.start()
    env.registered()
    check(env.kubelet.calls.get("GetInfo", 0) <= 6, "GetInfo asked %d times" % env.kubelet.calls.get("GetInfo", 0))
    check(not env.kubelet.errors, "registration errors: %s" % env.kubelet.errors)
    check(env.stop_driver() == 0, "exit status")
    check(not os.path.exists(os.path.join(env.reg, DRIVER + "-reg.sock")), "the registration socket stays")
    check(not os.path.exists(os.path.join(env.plugdir, "dra.sock")), "the DRA socket stays")


def sim_claims(node, names, tag):
    """One claim of 1 device, one of 8 (or all when fewer), on node's devices names."""
    eight = names[:8]
    return ([claim("one-" + tag, "uid-one-" + tag, node, [("gpus", DRIVER, names[-1], False)]),
             claim("eight-" + tag, "uid-eight-" + tag, node, [("gpus", DRIVER, n, False) for n in eight])],
            [names[-1]], eight)


def case_prepare(axl, work):
    for sim in ("h100x8-nvswitch.json", "mi300x8.json", "mixed.json"):
        sub = os.path.join(work, sim.split(".")[0])
        os.makedirs(sub)
        cs.make_certs(sub)
        env = Env(axl, sub, os.path.join(SIMS, sim))
        try:
            # the device names come from the driver's own slices: a first run publishes them
            env.start_server()
            env.kubelet.start()
            env.start_driver()
            names = env.devices()
            env.stop_driver()
            env.srv.stop()
            claims, one, eight = sim_claims(env.node, names, "x")
            env.add_claims(claims)
            env.start_server()
            env.start_driver()
            env.registered()
            g0 = env.claim_gets()
            r = env.kubelet.prepare(DRIVER, [(NS, "uid-one-x", "one-x"), (NS, "uid-eight-x", "eight-x")])
            check(len(r.claims) == 1 + (len(eight) != 1 or one != eight), "answers %s" % list(r.claims))
            # the 1-device claim and the 8-device one share a device when the node has < 9
            r1 = env.kubelet.prepare(DRIVER, [(NS, "uid-one-x", "one-x")])
            check_prepared(env, r1, "uid-one-x", one)
            if len(names) > 8:
                check_prepared(env, r, "uid-eight-x", eight)
            else:
                e = r.claims["uid-eight-x"].error
                check("already prepared for claim default/one-x" in e, "%s: shared device: %s" % (sim, e))
                check(not r.claims["uid-one-x"].error, "one-x: %s" % r.claims["uid-one-x"].error)
                env.kubelet.unprepare(DRIVER, [(NS, "uid-one-x", "one-x")])
                r = env.kubelet.prepare(DRIVER, [(NS, "uid-eight-x", "eight-x")], service="v1beta1.DRAPlugin")
                check_prepared(env, r, "uid-eight-x", eight)
            g1 = env.claim_gets()
            # idempotent: asked again, the same answer and no read of the API server
            again = env.kubelet.prepare(DRIVER, [(NS, "uid-eight-x", "eight-x")])
            check(again.claims["uid-eight-x"] == r.claims["uid-eight-x"], "a second prepare answered differently")
            check(env.claim_gets() == g1, "a prepared claim was read again")
            check(g1 - g0 <= 4, "%d claim reads for 3 preparations" % (g1 - g0))
            u = env.kubelet.unprepare(DRIVER, [(NS, "uid-eight-x", "eight-x"), (NS, "uid-never", "never")])
            check(set(u.claims) == {"uid-eight-x", "uid-never"} and not any(v.error for v in u.claims.values()),
                  "unprepare: %s" % u)
            u = env.kubelet.unprepare(DRIVER, [(NS, "uid-eight-x", "eight-x")])
            check(not u.claims["uid-eight-x"].error, "a second unprepare: %s" % u)
            ck = json.load(open(os.path.join(env.state, "dra-%s.json" % DRIVER)))
            check(ck["schema"] == "axl.dra.checkpoint" and ck["claims"] == [] or
                  [c["uid"] for c in ck["claims"]] == ["uid-one-x"] and len(names) > 8,
                  "the checkpoint after unprepare: %s" % ck)
            check(env.stop_driver() == 0, "exit status")
        finally:
            env.close()


def case_restart(axl, work):
    cs.make_certs(work)
    env = Env(axl, work, os.path.join(SIMS, "h100x8-nvswitch.json"))
    try:
        env.start_server()
        env.kubelet.start()
        env.start_driver()
        names = env.devices()
        env.stop_driver()
        env.srv.stop()
        claims = [claim("c%d" % i, "uid-c%d" % i, env.node, [("gpus", DRIVER, names[i], False)]) for i in range(8)]
        env.add_claims(claims)
        env.start_server()
        env.start_driver()
        env.registered()
        first = env.kubelet.prepare(DRIVER, [(NS, "uid-c0", "c0"), (NS, "uid-c1", "c1")])
        check(all(not v.error for v in first.claims.values()), "prepare: %s" % first)
        # kill -9 after the answer: the restarted driver has them, reads nothing again
        env.restart_driver(signal.SIGKILL)
        g = env.claim_gets()
        again = env.kubelet.prepare(DRIVER, [(NS, "uid-c0", "c0"), (NS, "uid-c1", "c1")])
        check(again.claims == first.claims, "after kill -9: %s, before %s" % (again, first))
        check(env.claim_gets() == g, "prepared claims were read again after the restart")
        # kill -9 in the middle of a batch of prepares: whatever was answered is there
        # after the restart, the checkpoint is whole, nothing prepared twice
        for delay in (0.0, 0.002, 0.005, 0.01):
            batch = [(NS, "uid-c%d" % i, "c%d" % i) for i in range(2, 8)]
            import threading
            res = {}

            def call():
                try:
                    res["r"] = env.kubelet.prepare(DRIVER, batch)
                except grpc.RpcError as e:
                    res["e"] = e
            t = threading.Thread(target=call)
            t.start()
            time.sleep(delay)
            n = env.notified()
            env.stop_driver(signal.SIGKILL)
            t.join()
            ck = json.load(open(os.path.join(env.state, "dra-%s.json" % DRIVER)))  # whole, never half
            check(ck["schema"] == "axl.dra.checkpoint", "checkpoint %s" % ck)
            env.start_driver()
            env.registered(after=n)
            r = env.kubelet.prepare(DRIVER, batch)
            for ns, uid, name in batch:
                check(not r.claims[uid].error, "%s after kill -9 at %.3f s: %s" % (uid, delay, r.claims[uid].error))
                if "r" in res:
                    check(r.claims[uid] == res["r"].claims[uid], "%s answered differently after the restart" % uid)
            held = {}
            for c in json.load(open(os.path.join(env.state, "dra-%s.json" % DRIVER)))["claims"]:
                for d in c["devices"]:
                    check(d["device"] not in held, "%s prepared for %s and %s" % (d["device"], held.get(d["device"]),
                                                                                 c["uid"]))
                    held[d["device"]] = c["uid"]
            env.kubelet.unprepare(DRIVER, batch)
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def case_bad(axl, work):
    cs.make_certs(work)
    env = Env(axl, work, os.path.join(SIMS, "mixed.json"))
    try:
        env.start_server()
        env.kubelet.start()
        env.start_driver()
        names = env.devices()
        env.stop_driver()
        env.srv.stop()
        env.add_claims([
            claim("good", "uid-good", env.node, [("gpus", DRIVER, names[0], False)]),
            claim("nic", "uid-nic", env.node, [("nic", "nic.example.com", "eth0", False)]),
            claim("ghost", "uid-ghost", env.node, [("gpus", DRIVER, "no-such-device", False)]),
            claim("elsewhere", "uid-elsewhere", "node-other", [("gpus", DRIVER, names[0], False)]),
            {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "pending", "namespace": NS, "uid": "uid-pending"}, "status": {}},
            claim("dup", "uid-dup", env.node, [("gpus", DRIVER, names[0], False)]),
        ])
        env.start_server()
        env.start_driver()
        env.registered()
        r = env.kubelet.prepare(DRIVER, [(NS, "uid-good", "good"), (NS, "uid-nic", "nic"), (NS, "uid-ghost", "ghost"),
                                         (NS, "uid-elsewhere", "elsewhere"), (NS, "uid-pending", "pending"),
                                         (NS, "uid-missing", "missing"), (NS, "uid-other", "good"),
                                         (NS, "uid-dup", "dup"), (NS, "uid-bad", "Not_A_Name")])
        want = {"uid-nic": "has no device of the driver", "uid-ghost": "no-such-device is not one of this node's",
                "uid-elsewhere": "is not one of this node's", "uid-pending": "not allocated",
                "uid-missing": "HTTP 404", "uid-other": "got replaced", "uid-dup": "already prepared for claim",
                "uid-bad": "not a namespace and name"}
        check(not r.claims["uid-good"].error, "good: %s" % r.claims["uid-good"].error)
        for uid, part in want.items():
            check(part in r.claims[uid].error, "%s: %r, want %r" % (uid, r.claims[uid].error, part))
        # a malformed request: refused as a whole, the driver serves on
        try:
            env.kubelet.prepare(DRIVER, [], raw=b"\xff\xff\xff\xff")
            raise Fail("a malformed request was answered")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "malformed: %s" % e)
        # an unknown method on the DRA socket
        ch = grpc.insecure_channel("unix:" + os.path.join(env.plugdir, "dra.sock"))
        try:
            ch.unary_unary("/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/Nope")(b"", timeout=5)
            raise Fail("an unknown method was answered")
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.UNIMPLEMENTED, "unknown method: %s" % e)
        ch.close()
        # the API server failing: an error for the claim, not for the driver
        env.srv.call("POST", "/_fake/fault", {"status": 500, "count": 50, "methods": ["GET"], "path": "resourceclaims"})
        r = env.kubelet.prepare(DRIVER, [(NS, "uid-dup", "dup"), (NS, "uid-good", "good")])
        check("HTTP 500" in r.claims["uid-dup"].error, "500: %s" % r.claims["uid-dup"].error)
        check(not r.claims["uid-good"].error, "a prepared claim needs no read: %s" % r.claims["uid-good"].error)
        env.srv.call("POST", "/_fake/fault", {"status": 500, "count": 0})
        env.alive()
        u = env.kubelet.unprepare(DRIVER, [(NS, "uid-good", "good")])
        check(not u.claims["uid-good"].error, "unprepare: %s" % u)
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def cpu_ticks(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])


def case_idle(axl, work):
    cs.make_certs(work)
    env = Env(axl, work, os.path.join(SIMS, "h100x8-nvswitch.json"))
    try:
        env.start_server()
        env.kubelet.start()
        env.start_driver()
        env.registered()
        env.devices()
        time.sleep(0.5)
        calls0, t0 = dict(env.kubelet.calls), cpu_ticks(env.proc.pid)
        n0 = len(env.srv.stats()["log"])
        time.sleep(3)
        calls1, t1 = dict(env.kubelet.calls), cpu_ticks(env.proc.pid)
        new = [e for e in env.srv.stats()["log"][n0:] if e[2] != "control"]
        check(calls1 == calls0, "the kubelet was asked for more while idle: %s -> %s" % (calls0, calls1))
        check(not any("resourceclaims" in str(e) for e in new), "claims read while idle: %s" % new)
        hz = os.sysconf("SC_CLK_TCK")
        check(t1 - t0 <= 3, "%d CPU ticks (1/%d s) in 3 s idle" % (t1 - t0, hz))
        print("idle: %d CPU ticks in 3 s, kubelet calls unchanged %s" % (t1 - t0, calls1))
        check(env.stop_driver() == 0, "exit status")
    finally:
        env.close()


def run_case(axl, work, case):
    if case == "register":
        cs.make_certs(work)
        env = Env(axl, work, os.path.join(SIMS, "h100x8-nvswitch.json"))
        try:
            case_register(env)
        finally:
            env.close()
    elif case == "prepare":
        case_prepare(axl, work)
    elif case == "restart":
        case_restart(axl, work)
    elif case == "bad":
        case_bad(axl, work)
    elif case == "idle":
        case_idle(axl, work)


CASES = ("register", "prepare", "restart", "bad", "idle")


def main():
    axl, work, case = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
    if case not in CASES:
        print("unknown case %s" % case)
        return 2
    return workdir.run_fresh(work, lambda w: run_case(axl, w, case), Fail)


if __name__ == "__main__":
    sys.exit(main())
