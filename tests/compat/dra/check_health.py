#!/usr/bin/python3
"""axl dra-plugin's DRAResourceHealth service (src/compat/dra/kubelet_watch.c): the devices'
health streamed to a kubelet with the ResourceHealthStatus gate (fake_kubelet.py with
health=True, written from kubernetes/kubernetes' dra_plugin_manager.go, manager.go and
healthinfo.go), on the 8xH100 tree with NVML answering from the double and events injected
through $AXL_NVML_DOUBLE_EVENTS (as check_slices.py's health_nvml case):

  - GetInfo lists v1alpha1.DRAResourceHealth and v1.DRAResourceHealth; the kubelet's stream
    opens once registered and its first message names the 8 published devices, pool = node,
    HEALTHY, health_check_timeout_seconds 30, last_updated_time now;
  - an Xid 79 makes that one device UNHEALTHY within two health samples, its message naming
    the taint the ResourceSlice carries (key, value DriverError-79, NoExecute); it is HEALTHY
    again after --health-recovery;
  - with nothing changing, the list is sent again every 10 s (never more often), so no
    device times out into Unknown;
  - the v1 service answers the same list; a request that is not a NodeWatchResourcesRequest
    is refused (INVALID_ARGUMENT) and the service goes on;
  - SIGTERM ends the stream (the kubelet clears the driver's health) and the driver exits 0;
  - --health-checks none: every device UNKNOWN, the message saying it is not checked.

usage: check_health.py AXL NVML_DOUBLE WORKDIR
The work directory is removed when the check passes (tests/workdir.py), kept when it fails.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import workdir  # noqa: E402
import check_slices as cs  # noqa: E402
import check_kubelet as ck  # noqa: E402
import fake_kubelet as fk  # noqa: E402

import grpc  # noqa: E402

TESTS = os.path.join(HERE, "..", "..")
DRIVER = cs.DRIVER
check, Fail = cs.check, cs.Fail


class Env(ck.Env):
    """check_kubelet's Env on a sysroot tree, with the NVML double's environment, and a
    fake kubelet whose ResourceHealthStatus gate is on."""

    def __init__(self, axl, work, tree, env_extra, node):
        super().__init__(axl, work, None, node)
        self.tree, self.env_extra = tree, env_extra
        self.kubelet = fk.FakeKubelet(work, self.reg, fk.load_pb(work), health=True)

    def start_driver(self, extra=()):
        self.n_at_start = self.notified()
        env = dict(os.environ, AXL_STATE_DIR=self.state_dir(), **self.env_extra)
        env.pop("KUBERNETES_SERVICE_HOST", None)
        logf = open(self.log, "a+")
        self.proc = subprocess.Popen([self.axl, "--sysroot", self.tree, "dra-plugin", "--kubeconfig", self.kcfg,
                                      "--node-name", self.node, "--driver-name", DRIVER, "--kubelet-registry-dir",
                                      self.reg, "--kubelet-plugin-dir", self.plugdir, "--cdi-dir", self.cdi,
                                      "--api-backoff", "200ms", "-v"] + list(extra), stdout=logf, stderr=logf, env=env)


def healths(env, names):
    return {n: env.kubelet.device_health(DRIVER, env.node, n) for n in names}


def case(axl, double, work):
    cs.make_certs(work)
    tree = os.path.join(work, "tree-hgx-8x-h100")
    subprocess.run([sys.executable, os.path.join(TESTS, "trees", "mktree.py"),
                    os.path.join(TESTS, "trees", "nodes", "hgx-8x-h100.json"), tree], check=True,
                   stdout=subprocess.DEVNULL)
    events = os.path.join(work, "nvml.events")
    with open(events, "w") as f:
        f.write("# NVML events, one a line: <uuid> xid N | <uuid> dbe\n")
    envx = {"AXL_NVML_LIBRARY": double, "AXL_NVML_DOUBLE_EVENTS": events,
            "AXL_NVML_DOUBLE_XML": os.path.join(TESTS, "vendorlib", "nvml", "double", "fixtures",
                                                "hgx-8x-h100-q2x.xml")}
    env = Env(axl, work, tree, envx, "node-h")
    try:
        env.start_server()
        env.kubelet.start()
        env.start_driver(["--interval", "1s", "--health-recovery", "4s"])
        p = env.registered()
        check("v1alpha1.DRAResourceHealth" in p.versions and "v1.DRAResourceHealth" in p.versions
              and p.versions[0] == "v1.DRAPlugin", "GetInfo's services: %s" % p.versions)
        devs = cs.wait_for("the pool's slices", lambda: cs.pool_devices(env.srv, env.node), 15)
        names = sorted(d["name"] for d in devs)
        uuids = {d["name"]: d["attributes"].get("uuid", {}).get("string") for d in devs}
        check(len(names) == 8 and all(uuids.values()), "8 GPUs with UUIDs: %s" % uuids)
        cs.wait_for("the first health list", lambda: env.kubelet.health_msgs, 10, None)
        t0, drv, first = env.kubelet.health_msgs[0]
        check(drv == DRIVER and sorted(d[1] for d in first) == names, "the first list: %s" % first)
        now = time.time()
        for pool, dev, health, msg, timeout, last in first:
            check(pool == env.node and health == 1 and timeout == 30 and abs(last - now) < 30,
                  "%s: pool %s health %s timeout %s last_updated %s (now %d)" % (dev, pool, health, timeout, last, now))
        check(all(h == ("HEALTHY", "") for h in healths(env, names).values()), "healthy: %s" % healths(env, names))
        print("stream opened: 8 devices HEALTHY, pool %s, timeout 30 s" % env.node)

        # an Xid 79 (fallen off the bus): that device only, UNHEALTHY with the taint named
        victim = names[5]
        t1 = time.monotonic()
        with open(events, "a") as f:
            f.write("%s xid 79\n" % uuids[victim])
        cs.wait_for("the victim unhealthy", lambda: healths(env, names)[victim][0] == "UNHEALTHY", 10, None)
        dt = time.monotonic() - t1
        hs = healths(env, names)
        msg = hs[victim][1]
        check(DRIVER + "/unhealthy=DriverError-79:NoExecute since 20" in msg, "the victim's message: %r" % msg)
        check(all(hs[n] == ("HEALTHY", "") for n in names if n != victim), "the others healthy: %s" % hs)
        check(dt <= 7, "unhealthy within two health samples and a write (%.2f s)" % dt)
        slice_taints = {d["name"]: d.get("taints") for d in cs.pool_devices(env.srv, env.node) if d.get("taints")}
        check(list(slice_taints) == [victim], "the slice's taint agrees: %s" % slice_taints)
        print("Xid 79: %s UNHEALTHY %.2f s after the event (%s)" % (victim, dt, msg))
        cs.wait_for("healthy again after --health-recovery", lambda: healths(env, names)[victim] == ("HEALTHY", ""),
                    12, None)
        print("healthy again after --health-recovery 4s")

        # quiet: the list again every 10 s, never more often, nothing timing out
        time.sleep(0.5)
        n0 = len(env.kubelet.health_msgs)
        time.sleep(21)
        quiet = [m[0] for m in env.kubelet.health_msgs[n0:]]
        gaps = [b - a for a, b in zip(quiet, quiet[1:])]
        check(2 <= len(quiet) <= 3 and all(9.0 <= g <= 12.0 for g in gaps),
              "resends in 21 quiet seconds: %d, %s" % (len(quiet), ["%.2f" % g for g in gaps]))
        check(env.kubelet.calls.get("NodeWatchResources") == 1 and not env.kubelet.health_ends,
              "one stream, never ended: %s %s" % (env.kubelet.calls, env.kubelet.health_ends))
        print("quiet: %d resends in 21 s, %s s apart" % (len(quiet), ["%.2f" % g for g in gaps]))

        # the v1 service: the same list; a malformed request refused, the service goes on
        ch = grpc.insecure_channel("unix:" + p.endpoint)
        try:
            hpb = env.kubelet.hpb
            v1 = ch.unary_stream("/v1.DRAResourceHealth/NodeWatchResources",
                                 request_serializer=lambda m: m if isinstance(m, bytes) else m.SerializeToString(),
                                 response_deserializer=hpb.NodeWatchResourcesResponse.FromString)
            s = v1(hpb.NodeWatchResourcesRequest(), timeout=5)
            r = next(iter(s))
            s.cancel()
            check(sorted(d.device.device_name for d in r.devices) == names
                  and all(d.health == hpb.HealthStatus.Value("HEALTHY") for d in r.devices), "v1: %s" % r)
            try:
                list(v1(b"\xff\xff\xff", timeout=5))
                check(False, "a malformed request was answered")
            except grpc.RpcError as e:
                check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, "a malformed request: %s" % e.code())
        finally:
            ch.close()
        env.alive()

        # SIGTERM: the stream ends, the kubelet clears the driver's health
        t2 = time.monotonic()
        check(env.stop_driver() == 0, "exit status")
        cs.wait_for("the stream's end", lambda: env.kubelet.health_ends, 5, None)
        check(healths(env, names)[names[0]] == ("UNKNOWN", ""), "cleared at the stream's end")
        print("SIGTERM: stream ended %.2f s later" % (env.kubelet.health_ends[0][0] - t2))
        check("NodeWatchResources 2 (health lists sent" in env.text(), "the log's count: %s" % env.text()[-600:])

        # --health-checks none: nothing judged, every device UNKNOWN and said why
        n1 = len(env.kubelet.health_msgs)
        env.start_driver(["--interval", "1s", "--health-checks", "none"])
        env.registered()
        cs.wait_for("the list of the unchecked devices", lambda: len(env.kubelet.health_msgs) > n1, 15, None)
        _, _, got = env.kubelet.health_msgs[-1]
        check(sorted(d[1] for d in got) == names and all(d[2] == 0 and "not checked" in d[3] for d in got),
              "--health-checks none: %s" % got)
        print("--health-checks none: 8 devices UNKNOWN (%r)" % got[0][3])
        check(env.stop_driver() == 0, "exit status")
        check(not env.kubelet.errors, "registration errors: %s" % env.kubelet.errors)
    finally:
        env.close()


def main():
    axl, double, work = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
    return workdir.run_fresh(work, lambda w: case(axl, double, w), Fail)


if __name__ == "__main__":
    sys.exit(main())
