#!/usr/bin/python3
"""axl dra-plugin in cluster: no --kubeconfig, the API server from KUBERNETES_SERVICE_HOST and
KUBERNETES_SERVICE_PORT, the CA and the token from the service account's folder, as client-go's
rest.InClusterConfig (kubernetes/kubernetes staging/src/k8s.io/client-go/rest/config.go:
tokenFile and rootCAFile in /var/run/secrets/kubernetes.io/serviceaccount; here the folder named
by AXL_SERVICE_ACCOUNT_DIR, docs/man/axl.1).

The folder is laid out as the kubelet writes a projected service-account volume
(kubernetes/kubernetes pkg/volume/util/atomic_writer.go: the files in a timestamped folder
"..<ts>", a symlink "..data" to it, and "token", "ca.crt" symlinks to "..data/<name>"); a token
is rotated as AtomicWriter does it: a new timestamped folder, a "..data_tmp" symlink to it
renamed over "..data", the old folder removed.

Checks, against the fake API server (fake_apiserver.py: TLS with the CA, 401 for a token it
does not know) and the fake kubelet:
 - the slices are published and a claim is prepared with the first token;
 - the token rotated and the server told to take the new one only (the old one is refused:
   checked with a request of our own); then a device change is published and a new claim
   prepared: both with the new token, no 401 answered to the driver after the rotation;
 - without KUBERNETES_SERVICE_HOST and --kubeconfig the driver says it is not in a cluster
   and exits 1; a folder without ca.crt is named in the error.

usage: check_incluster.py AXL WORKDIR
The work directory is removed when the check passes (unless AXL_KEEP_WORK=1), kept when it
fails.
"""
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", ".."))
import workdir  # noqa: E402
import check_kubelet as ck  # noqa: E402
import check_slices as cs  # noqa: E402

check, Fail, DRIVER, NS = cs.check, cs.Fail, cs.DRIVER, ck.NS
SIM = "h100x8-nvswitch.json"
TOKEN2 = "token-of-the-driver-rotated"


def project(sa, files, ts):
    """Write files {name: bytes} as the kubelet's AtomicWriter does (the first write, or a
    rotation)."""
    d = os.path.join(sa, "..%s" % ts)
    os.makedirs(d)
    for name, data in files.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    old = os.readlink(os.path.join(sa, "..data")) if os.path.islink(os.path.join(sa, "..data")) else None
    tmp = os.path.join(sa, "..data_tmp")
    os.symlink(os.path.basename(d), tmp)
    os.rename(tmp, os.path.join(sa, "..data"))
    for name in files:
        link = os.path.join(sa, name)
        if not os.path.islink(link):
            os.symlink(os.path.join("..data", name), link)
    if old:
        shutil.rmtree(os.path.join(sa, old))


class InCluster(ck.Env):
    """check_kubelet's Env with the driver started in cluster."""

    def start_driver(self, extra=()):
        self.n_at_start = self.notified()
        env = dict(os.environ, AXL_STATE_DIR=self.state_dir(), KUBERNETES_SERVICE_HOST="127.0.0.1",
                   KUBERNETES_SERVICE_PORT=str(self.srv.port), AXL_SERVICE_ACCOUNT_DIR=self.sa)
        logf = open(self.log, "a+")
        self.proc = subprocess.Popen([self.axl, "dra-plugin", "--sim", self.sim, "--node-name", self.node,
                                      "--driver-name", DRIVER, "--kubelet-registry-dir", self.reg,
                                      "--kubelet-plugin-dir", self.plugdir, "--cdi-dir", self.cdi,
                                      "--api-backoff", "200ms", "-v"] + list(extra),
                                     stdout=logf, stderr=logf, env=env)


def get_with(srv, token, path):
    req = urllib.request.Request("https://127.0.0.1:%d%s" % (srv.port, path))
    req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, context=srv.ctx, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def driver_answers(srv, since):
    """The API server's answers to the driver since a time (the control calls left out)."""
    return [e for e in srv.stats()["log"] if e[0] >= since and e[2] != "control"]


def run(axl, work):
    cs.make_certs(work)
    simpath = os.path.join(work, "node.json")
    cs.write_sim(simpath, SIM)
    env = InCluster(axl, work, simpath)
    env.sa = os.path.join(work, "serviceaccount")
    os.makedirs(env.sa)
    ca = open(os.path.join(work, "ca.crt"), "rb").read()
    project(env.sa, {"token": cs.TOKEN.encode(), "ca.crt": ca, "namespace": b"axl"}, "2026_12_06_18_00_00.1")
    try:
        # no service host, no kubeconfig: not in a cluster
        r = subprocess.run([axl, "dra-plugin", "--sim", simpath, "--node-name", "n", "--publish-only"],
                           env={k: v for k, v in os.environ.items() if not k.startswith("KUBERNETES_SERVICE")},
                           capture_output=True, text=True, timeout=30)
        check(r.returncode == 1 and "not in a cluster" in r.stderr,
              "without a cluster: %d %s" % (r.returncode, r.stderr))
        empty = os.path.join(work, "empty-sa")
        os.makedirs(empty)
        r = subprocess.run([axl, "dra-plugin", "--sim", simpath, "--node-name", "n", "--publish-only"],
                           env=dict(os.environ, KUBERNETES_SERVICE_HOST="127.0.0.1", KUBERNETES_SERVICE_PORT="1",
                                    AXL_SERVICE_ACCOUNT_DIR=empty), capture_output=True, text=True, timeout=30)
        check(r.returncode == 1 and os.path.join(empty, "ca.crt") in r.stderr,
              "a folder without ca.crt: %d %s" % (r.returncode, r.stderr))

        names = None
        env.start_server()
        env.kubelet.start()
        env.start_driver()
        names = env.devices()
        env.registered()
        env.stop_driver()
        env.srv.stop()
        env.add_claims([ck.claim("c%d" % i, "uid-c%d" % i, env.node, [("gpus", DRIVER, names[i], False)])
                        for i in range(2)])
        env.start_server()
        env.start_driver()
        env.registered()
        check(len(env.devices()) == 8, "8 devices published in cluster")
        r = env.kubelet.prepare(DRIVER, [(NS, "uid-c0", "c0")])
        check(not r.claims["uid-c0"].error, "claim c0 with the first token: %s" % r)
        gen0 = env.srv.pool(env.node)[0]["spec"]["pool"]["generation"]

        # the rotation: the server takes the new token only, the file is swapped
        env.srv.call("POST", "/_fake/tokens", {"tokens": [TOKEN2]})
        claim_path = "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/c1" % NS
        check(get_with(env.srv, cs.TOKEN, claim_path) == 401, "the server takes the old token still")
        check(get_with(env.srv, TOKEN2, claim_path) == 200, "the server refuses the new token")
        time.sleep(0.05)  # a new mtime, as a rotation hours later has
        t_rot = time.time()
        project(env.sa, {"token": TOKEN2.encode(), "ca.crt": ca, "namespace": b"axl"}, "2026_12_06_19_00_00.2")

        # the next requests: a device change published, a new claim prepared
        cs.write_sim(simpath, SIM, 7)
        cs.wait_for("7 devices published with the new token",
                    lambda: len(cs.pool_devices(env.srv, env.node) or []) == 7, 10)
        r = env.kubelet.prepare(DRIVER, [(NS, "uid-c1", "c1")])
        check(not r.claims["uid-c1"].error, "claim c1 after the rotation: %s" % r)
        after = driver_answers(env.srv, t_rot)
        check(after and not [e for e in after if e[3] == 401],
              "401 answered to the driver after the rotation (the old token sent): %s" % after)
        check(any(e[1] == "GET" and e[2] == "c1" and e[3] == 200 for e in after),
              "claim c1 not read after the rotation: %s" % after)
        check(any(e[1] in ("PUT", "POST") and e[2] == "slice" and 200 <= e[3] < 300 for e in after),
              "no slice written after the rotation: %s" % after)
        gen = env.srv.pool(env.node)[0]["spec"]["pool"]["generation"]
        check(gen == gen0 + 1, "generation %d after one change from %d" % (gen, gen0))
        check(env.stop_driver() == 0, "exit status")
        print("in cluster: published and prepared with the first token; after its rotation %d requests, "
              "none refused" % len(after))
    finally:
        env.close()


def main():
    axl, work = sys.argv[1], os.path.abspath(sys.argv[2])
    return workdir.run_fresh(work, lambda w: run(axl, w), Fail)


if __name__ == "__main__":
    sys.exit(main())
