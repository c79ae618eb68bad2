#!/usr/bin/python3
"""axl dra-plugin's liveness probe (--healthcheck-port), probed as the kubelet's grpc
livenessProbe probes kubernetes-sigs/dra-example-driver's plugin (templates/kubeletplugin.yaml,
service "liveness"; cmd/dra-example-kubeletplugin/health.go at commit
31914ceacda29bbc55208ef75e68c0991e1c9568: Check calls GetInfo on the registration socket and
an empty NodePrepareResources on the DRA socket; SERVING when both answer, NOT_SERVING
otherwise; NOT_FOUND for a service other than "" and "liveness").

The probe's messages are written by hand from grpc/grpc src/proto/grpc/health/v1/health.proto
(commit 03b89f47f297e393344a1ba7baa9759af0d91619), not from the copy the driver is built
from, so that both sides do not share a mistake: HealthCheckRequest {string service = 1}
(tag 0x0a, length, bytes), HealthCheckResponse {ServingStatus status = 1} (tag 0x08, varint;
UNKNOWN 0, SERVING 1, NOT_SERVING 2, SERVICE_UNKNOWN 3). Debian's python3-grpcio has no
grpc_health module.

Checks: an empty NodePrepareResources and NodeUnprepareResources succeed on both DRA
services; the probe is SERVING for "liveness" and "", NOT_FOUND for another service,
UNIMPLEMENTED for Watch; NOT_SERVING while the DRA socket's directory is gone (the driver
cannot make the socket again), SERVING again once it is back; no port without the option.

usage: check_liveness.py AXL WORKDIR
The work directory is removed when the check passes (unless AXL_KEEP_WORK=1), kept when it
fails.
"""
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import workdir  # noqa: E402
import check_kubelet as ck  # noqa: E402  (Env: the fake API server, the fake kubelet, the driver)
import check_slices as cs  # noqa: E402
import fake_kubelet as fk  # noqa: E402

import grpc  # noqa: E402

check, Fail, DRIVER = cs.check, cs.Fail, cs.DRIVER
SERVING, NOT_SERVING = 1, 2


def health_request(service):
    b = service.encode()
    assert len(b) < 128
    return bytes([0x0A, len(b)]) + b if b else b""  # proto3: an empty string is not sent


def health_status(raw):
    """HealthCheckResponse.status; an absent field is UNKNOWN (0)."""
    if not raw:
        return 0
    check(raw[0] == 0x08 and len(raw) == 2, "a HealthCheckResponse that is not {status}: %r" % raw)
    return raw[1]


def probe(port, service="liveness", method="Check", timeout=5):
    """(status code, serving status or None) as the kubelet's grpc probe sees them."""
    ch = grpc.insecure_channel("127.0.0.1:%d" % port)
    try:
        path = "/grpc.health.v1.Health/" + method
        if method == "Watch":
            f = ch.unary_stream(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)
            try:
                for _ in f(health_request(service), timeout=timeout):
                    pass
                return grpc.StatusCode.OK, None
            except grpc.RpcError as e:
                return e.code(), None
        f = ch.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)
        try:
            return grpc.StatusCode.OK, health_status(f(health_request(service), timeout=timeout))
        except grpc.RpcError as e:
            return e.code(), None
    finally:
        ch.close()


def port_of(env):
    m = cs.wait_for("the healthcheck port in the log",
                    lambda: re.search(r"healthcheck service .* listens on port (\d+)", env.text()), 10)
    return int(m.group(1))


def run(axl, work):
    cs.make_certs(work)
    env = ck.Env(axl, work, os.path.join(ck.SIMS, "h100x8-nvswitch.json"))
    try:
        env.start_server()
        env.kubelet.start()
        # without the option: no health service
        env.start_driver()
        env.registered()
        check("healthcheck" not in env.text(), "a health service without --healthcheck-port: %s" % env.text())
        check(env.stop_driver() == 0, "exit status")

        env.start_driver(["--healthcheck-port", "0"])
        env.registered()
        port = port_of(env)
        # what the probe relies on: an empty request succeeds, on both services, both calls
        for svc in fk.SERVICES:
            check(len(env.kubelet.prepare(DRIVER, [], service=svc).claims) == 0, "empty prepare on %s" % svc)
            check(len(env.kubelet.unprepare(DRIVER, [], service=svc).claims) == 0, "empty unprepare on %s" % svc)
        for svc in ("liveness", ""):
            got = probe(port, svc)
            check(got == (grpc.StatusCode.OK, SERVING), "Check(%r): %s" % (svc, got))
        got = probe(port, "readiness")
        check(got[0] == grpc.StatusCode.NOT_FOUND, "Check('readiness'): %s, want NOT_FOUND" % (got,))
        got = probe(port, "liveness", "Watch")
        check(got[0] == grpc.StatusCode.UNIMPLEMENTED, "Watch: %s, want UNIMPLEMENTED" % (got,))

        # the DRA socket gone for good (its directory removed: the driver cannot make it again)
        gone = env.plugdir + ".gone"
        os.rename(env.plugdir, gone)
        shutil.rmtree(gone)
        got = probe(port)
        check(got == (grpc.StatusCode.OK, NOT_SERVING), "Check with the DRA socket gone: %s, want NOT_SERVING" % (got,))
        check("liveness: NodePrepareResources with an empty request failed" in env.text(), "no line in the log")
        env.alive()
        # back: the driver makes its socket again (within its directory retry), the probe passes
        os.makedirs(env.plugdir)
        cs.wait_for("the DRA socket made again", lambda: os.path.exists(os.path.join(env.plugdir, "dra.sock")), 5)
        got = probe(port)
        check(got == (grpc.StatusCode.OK, SERVING), "Check after the DRA socket came back: %s" % (got,))
        # the registration socket's answer counts too: its directory gone, NOT_SERVING
        os.rename(env.reg, env.reg + ".gone")
        shutil.rmtree(env.reg + ".gone")
        got = probe(port)
        check(got == (grpc.StatusCode.OK, NOT_SERVING), "Check with the registration socket gone: %s" % (got,))
        os.makedirs(env.reg)
        cs.wait_for("the registration socket made again",
                    lambda: os.path.exists(os.path.join(env.reg, DRIVER + "-reg.sock")), 5)
        check(probe(port) == (grpc.StatusCode.OK, SERVING), "Check after the registration socket came back")
        # the probe is not the kubelet: it registered nothing, prepared nothing
        check(env.claim_gets() == 0, "claims read for the probes")
        check(env.stop_driver() == 0, "exit status")
        check(re.search(r"liveness checks (\d+)", env.text()) and
              int(re.findall(r"liveness checks (\d+)", env.text())[-1]) == 6,
              "the driver did not count 6 liveness checks: %s" % re.findall(r"liveness checks \d+", env.text()))
        # a port in use: the driver says so and exits
        import socket
        s = socket.socket(socket.AF_INET6)
        s.bind(("::", 0))
        s.listen(1)
        busy = s.getsockname()[1]
        try:
            env.start_driver(["--healthcheck-port", str(busy)])
            t = time.time() + 15
            while env.proc.poll() is None and time.time() < t:
                time.sleep(0.05)
            check(env.proc.poll() not in (None, 0), "the driver runs with its health port %d in use" % busy)
            check("cannot listen for the healthcheck service on port %d" % busy in env.text(), env.text()[-800:])
        finally:
            s.close()
        print("ok: liveness probe on port %d: SERVING, NOT_SERVING with either socket gone, SERVING again" % port)
    finally:
        env.close()


def main():
    axl, work = sys.argv[1], os.path.abspath(sys.argv[2])
    return workdir.run_fresh(work, lambda w: run(axl, w), Fail)


if __name__ == "__main__":
    sys.exit(main())
