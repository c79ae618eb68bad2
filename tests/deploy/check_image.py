#!/usr/bin/env python3
"""axl's container image (deploy/container/Containerfile) built and run under podman.

 - the Debian 12 base is imported with deploy/container/mkbase.sh unless it exists;
   the image is built from the repository (podman's layer cache keeps the package steps);
 - size and start time (`podman run --rm IMAGE version`, median of 5) are printed;
 - every run is as the DaemonSet runs it: read-only root, no capability, no new
   privileges, host /sys and /dev read-only, the host's PID namespace (its /proc), the
   host's library folder read-only at /host/usr/lib/x86_64-linux-gnu;
 - `axl list --json` in the container equals the host's own (same sysfs), and on a
   simulated node (tests/sim, mounted read-only) lists its devices;
 - as the image's user (not root) writing into the root-owned host folders is refused;
   as root without capabilities the NFD feature file and the CDI specs appear in the
   mounted host folders, equal to what the host's axl writes for the same node;
 - the DaemonSet's own command line (deploy/kubernetes/daemonset.yaml; `axl agent`
   once the image has it, else `axl serve` for the same endpoints) answers /healthz and
   /metrics, and a real Prometheus server scrapes it: `up` is 1 and axl_device_up has
   one series per simulated device; SIGTERM (podman stop) ends it with status 0.

Exit 77 (skip) only when podman is missing or cannot start any container here.

usage: check_image.py --axl BUILT_AXL --work DIR [--image NAME] [--base NAME]
"""

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SIM = "h100x8-nvswitch.json"
NFD_DIR = "/etc/kubernetes/node-feature-discovery/features.d"
CDI_DIR = "/var/run/cdi"
HOST_LIBS = "/usr/lib/x86_64-linux-gnu"

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)
    return cond


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def podman_env(work):
    """containers.conf for this test: runc where cgroups are v1/hybrid (crun refuses
    them), and modest file/process limits within this process's own (podman asks for
    1048576 files by default, more than a sandboxed root may grant)."""
    hybrid = not os.path.exists("/sys/fs/cgroup/cgroup.controllers")
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)

    def lim(v):
        return 1048576 if v == resource.RLIM_INFINITY else v
    conf = os.path.join(work, "containers.conf")
    with open(conf, "w") as f:
        f.write("[containers]\ndefault_ulimits = [\"nofile=%d:%d\", \"nproc=%d:%d\"]\n"
                % (min(lim(nofile[0]), 65536), min(lim(nofile[1]), 65536), min(lim(nproc[0]), 4096), min(lim(nproc[1]), 4096)))
        if hybrid and shutil.which("runc"):
            f.write("[engine]\nruntime = \"runc\"\n")
    env = dict(os.environ)
    env["CONTAINERS_CONF"] = conf
    return env


def run(cmd, env, timeout=600, **kw):
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, **kw)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=3):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")
    except OSError as e:
        return None, str(e)


def wait_http(url, deadline_s, want=200):
    end = time.time() + deadline_s
    st, body = None, ""
    while time.time() < end:
        st, body = http_get(url)
        if st == want:
            return st, body
        time.sleep(0.2)
    return st, body


def daemonset_args():
    import yaml
    with open(os.path.join(TOP, "deploy", "kubernetes", "daemonset.yaml")) as f:
        ds = yaml.safe_load(f)
    c = ds["spec"]["template"]["spec"]["containers"][0]
    return c["command"], c["args"]


def base_flags(sim_dir):
    """the DaemonSet's security and mounts, as podman options"""
    return ["--read-only", "--cap-drop", "all", "--security-opt", "no-new-privileges",
            "--pid", "host", "--network", "host",
            "-v", "/sys:/sys:ro", "-v", "/dev:/dev:ro",
            "-v", "%s:/host%s:ro" % (HOST_LIBS, HOST_LIBS),
            "-e", "AXL_NVML_LIBRARY=/host%s/libnvidia-ml.so.1" % HOST_LIBS,
            "-v", "%s:/sim:ro" % sim_dir]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--image", default="localhost/axl:ctest")
    ap.add_argument("--base", default="localhost/axl-base:bookworm")
    a = ap.parse_args()
    if not shutil.which("podman"):
        skip("podman is not installed (scripts/deps.sh --test installs it)")
    if os.path.isdir(a.work):
        shutil.rmtree(a.work)
    os.makedirs(a.work)
    env = podman_env(a.work)

    # the base: made once from Debian's mirror, offline from any registry
    if run(["podman", "image", "exists", a.base], env).returncode != 0:
        if not shutil.which("mmdebstrap"):
            skip("mmdebstrap is not installed, and the base image %s is missing" % a.base)
        r = run(["sh", os.path.join(TOP, "deploy", "container", "mkbase.sh"), a.base], env, timeout=900)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            sys.exit("mkbase.sh failed (exit %d)" % r.returncode)
    # can this sandbox run a container at all?
    r = run(["podman", "run", "--rm", a.base, "true"], env, timeout=120)
    if r.returncode != 0:
        skip("podman cannot run a container here: " + (r.stderr.strip().splitlines() or ["?"])[-1])

    t0 = time.time()
    r = run(["podman", "build", "--network", "host", "--build-arg", "BASE=" + a.base,
             "--build-arg", "JOBS=%d" % max(1, min(os.cpu_count() or 1, 4)),
             "-f", os.path.join(TOP, "deploy", "container", "Containerfile"), "-t", a.image, TOP],
            env, timeout=1500)
    build_s = time.time() - t0
    if r.returncode != 0:
        print((r.stdout + r.stderr)[-6000:])
        sys.exit("podman build failed (exit %d)" % r.returncode)
    size = int(run(["podman", "image", "inspect", "--format", "{{.Size}}", a.image], env).stdout.strip())
    base_size = int(run(["podman", "image", "inspect", "--format", "{{.Size}}", a.base], env).stdout.strip())
    print("image %s: built in %.0f s, %.1f MB (base %.1f MB)" % (a.image, build_s, size / 1e6, base_size / 1e6))
    check(size < base_size + 40e6, "the image adds %.1f MB to the base: more than its run-time libraries"
          % ((size - base_size) / 1e6))
    # what it holds: the command and the library, no compiler, no headers, not root
    r = run(["podman", "run", "--rm", "--entrypoint", "/bin/sh", a.image, "-c",
             "id -u; command -v cc gcc cmake || true; ls /usr/include/axl.h 2>&1 || true"], env)
    lines = r.stdout.split()
    check(lines[:1] == ["10001"], "the image's user is not 10001: %r" % lines[:1])
    check(not any(x.endswith(("/cc", "/gcc", "/cmake")) for x in lines), "build tools in the image: %r" % lines)

    # start time: the whole `podman run --rm IMAGE version`
    times = []
    for _ in range(5):
        t = time.time()
        r = run(["podman", "run", "--rm", a.image, "version"], env)
        times.append(time.time() - t)
        check(r.returncode == 0 and r.stdout.startswith("axl "), "axl version in the image: %r %r" % (r.stdout, r.stderr))
    print("start time (podman run --rm IMAGE version): median %.3f s, min %.3f s" % (statistics.median(times), min(times)))

    sim_dir = os.path.join(TOP, "tests", "sim")
    flags = base_flags(sim_dir)

    # the host's node, read through the mounts, equals the host's own reading
    # as the DaemonSet runs it (root without capabilities) and as the image's user, where
    # the host lets any user read its PCI folder (some hosts make /sys/bus/pci 0700)
    outer = json.loads(subprocess.run([a.axl, "list", "--all", "--json"], capture_output=True, text=True,
                                      check=True).stdout)
    users = [("root without capabilities", ["--user", "0:0"])]
    if os.stat("/sys/bus/pci").st_mode & 0o005 == 0o005:
        users.append(("the image's user", []))
    else:
        print("note: this host's /sys/bus/pci is not world-readable: the image's user sees no PCI function here")
    for who, uflags in users:
        r = run(["podman", "run", "--rm"] + uflags + flags + [a.image, "list", "--all", "--json"], env)
        if not check(r.returncode == 0, "list --all --json as %s: exit %d %s" % (who, r.returncode, r.stderr)):
            continue
        inner = json.loads(r.stdout)
        for key in ("devices", "pci_functions"):
            check(inner.get(key) == outer.get(key), "as %s, the container's %s differ from the host's" % (who, key))
        check(inner["host"].get("cpu") == outer["host"].get("cpu"), "as %s, host.cpu differs from the host's" % who)
        # AXL_NVML_LIBRARY names the host's NVML: a node without the NVIDIA driver stays
        # quiet about it (docs/vendor-libraries.md); one with the driver but without the
        # library is told (docs/deploy.md, troubleshooting)
        nvml = "/host%s/libnvidia-ml.so.1" % HOST_LIBS
        driver = os.path.exists("/proc/driver/nvidia/version") or os.path.exists("/sys/module/nvidia")
        extra = [w for w in inner.get("warnings", [])
                 if not (driver and w.get("path") == nvml and not os.path.exists(HOST_LIBS + "/libnvidia-ml.so.1"))]
        check(not extra, "as %s: warnings %r" % (who, extra))
        print("host node through the mounts as %s: %d devices, %d PCI functions, as on the host"
              % (who, len(inner.get("devices", [])), len(inner.get("pci_functions", []))))
    r = run(["podman", "run", "--rm"] + flags + [a.image, "list", "--json", "--sim", "/sim/" + SIM], env)
    if check(r.returncode == 0, "list --json --sim: exit %d %s" % (r.returncode, r.stderr)):
        doc = json.loads(r.stdout)
        gpus = [d for d in doc.get("devices", []) if d.get("id", "").startswith("nvidia:")]
        check(doc.get("schema") == "axl.inventory" and len(gpus) == 8, "list --json --sim: %d GPUs" % len(gpus))

    # the writers into host folders: refused as the image's user, done as capless root
    nfd = os.path.join(a.work, "features.d")
    cdi = os.path.join(a.work, "cdi")
    os.makedirs(nfd)
    os.makedirs(cdi)
    wflags = flags + ["-v", "%s:%s" % (nfd, NFD_DIR), "-v", "%s:%s" % (cdi, CDI_DIR)]
    labels = ["labels", "-o", NFD_DIR + "/axl", "--sim", "/sim/" + SIM]
    cdigen = ["cdi", "generate", "-o", CDI_DIR, "--sim", "/sim/" + SIM]
    r = run(["podman", "run", "--rm"] + wflags + [a.image] + labels, env)
    check(r.returncode != 0 and not os.listdir(nfd), "labels -o as the image's user wrote into root's folder")
    check("ermission denied" in r.stderr, "labels -o as a user: no 'permission denied' message: %r" % r.stderr)
    for cmd in (labels, cdigen):
        r = run(["podman", "run", "--rm", "--user", "0:0"] + wflags + [a.image] + cmd, env)
        check(r.returncode == 0, "%s as root: exit %d %s" % (" ".join(cmd[:2]), r.returncode, r.stderr))
    ref = os.path.join(a.work, "ref")
    os.makedirs(os.path.join(ref, "cdi"))
    subprocess.run([a.axl, "labels", "-o", os.path.join(ref, "axl"), "--sim", os.path.join(sim_dir, SIM)], check=True, capture_output=True)
    subprocess.run([a.axl, "cdi", "generate", "-o", os.path.join(ref, "cdi"), "--sim", os.path.join(sim_dir, SIM)], check=True, capture_output=True)
    check(sorted(os.listdir(nfd)) == ["axl"], "features.d holds %r" % os.listdir(nfd))
    if os.path.exists(os.path.join(nfd, "axl")):
        check(open(os.path.join(nfd, "axl")).read() == open(os.path.join(ref, "axl")).read(),
              "the container's feature file differs from the host's axl")
        check("axl.dev/count=8" in open(os.path.join(nfd, "axl")).read(), "feature file without axl.dev/count=8")
    want = sorted(os.listdir(os.path.join(ref, "cdi")))
    check(want and sorted(os.listdir(cdi)) == want, "CDI specs %r, the host's axl writes %r" % (os.listdir(cdi), want))
    for name in want:
        p = os.path.join(cdi, name)
        check(os.path.exists(p) and open(p).read() == open(os.path.join(ref, "cdi", name)).read(), "CDI spec %s differs" % name)
        check(os.path.exists(p) and os.stat(p).st_mode & 0o777 == 0o644, "CDI spec %s not mode 0644" % name)

    serve_and_scrape(a, env, wflags, nfd, cdi)
    run(["podman", "rm", "-f", "axl-ctest-agent"], env)
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


def serve_and_scrape(a, env, wflags, nfd, cdi):
    """the DaemonSet's command line (agent, or serve until agent exists) in the image,
    /healthz and /metrics, then Prometheus scraping it"""
    command, args = daemonset_args()
    check(command == ["/usr/bin/axl"], "the DaemonSet runs %r, not the image's /usr/bin/axl" % command)
    port = free_port()
    has_agent = run(["podman", "run", "--rm", a.image, "help", "agent"], env).returncode == 0
    if has_agent:
        argv = [x if x != "0.0.0.0:9400" else "127.0.0.1:%d" % port for x in args]
        shutil.rmtree(nfd)
        shutil.rmtree(cdi)
        os.makedirs(nfd)
        os.makedirs(cdi)
    else:
        print("note: the image has no `axl agent` yet; its endpoints are checked on `axl serve`")
        argv = ["serve", "--listen", "127.0.0.1:%d" % port]
    argv += ["--sim", "/sim/" + SIM]
    run(["podman", "rm", "-f", "axl-ctest-agent"], env)
    r = run(["podman", "run", "-d", "--name", "axl-ctest-agent", "--user", "0:0"] + wflags + [a.image] + argv, env)
    if not check(r.returncode == 0, "%s in the image: %s" % (argv[0], r.stderr)):
        return
    base = "http://127.0.0.1:%d" % port
    st, body = wait_http(base + "/healthz", 30)
    if not check(st == 200, "/healthz: %r %r" % (st, body[:200])):
        print(run(["podman", "logs", "axl-ctest-agent"], env).stderr[-3000:])
        return
    if has_agent:
        check(os.path.exists(os.path.join(nfd, "axl")) and os.listdir(cdi), "agent ready before writing its files")
    st, body = http_get(base + "/metrics")
    ups = [l for l in body.splitlines() if l.startswith("axl_device_up{")]
    check(st == 200 and len(ups) == 8, "/metrics: %r, %d axl_device_up series" % (st, len(ups)))
    prometheus_scrape(a, base, port)
    t = time.time()
    r = run(["podman", "stop", "-t", "10", "axl-ctest-agent"], env)
    code = run(["podman", "inspect", "--format", "{{.State.ExitCode}}", "axl-ctest-agent"], env).stdout.strip()
    check(code == "0" and time.time() - t < 8, "SIGTERM: exit %s after %.1f s" % (code, time.time() - t))


def prometheus_scrape(a, base, port):
    exe = shutil.which("prometheus")
    if not check(exe is not None, "prometheus is not installed (scripts/deps.sh --test installs it)"):
        return
    pdir = os.path.join(a.work, "prometheus")
    os.makedirs(pdir)
    with open(os.path.join(pdir, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
                "scrape_configs:\n  - job_name: axl\n    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % port)
    pport = free_port()
    log = open(os.path.join(pdir, "log"), "w")
    p = subprocess.Popen([exe, "--config.file=" + os.path.join(pdir, "prometheus.yml"),
                          "--storage.tsdb.path=" + os.path.join(pdir, "data"),
                          "--web.listen-address=127.0.0.1:%d" % pport], stdout=log, stderr=log)
    api = "http://127.0.0.1:%d/api/v1/query?query=" % pport
    try:
        def query(q):
            st, body = http_get(api + urllib.parse.quote(q))
            if st != 200:
                return None
            res = json.loads(body)["data"]["result"]
            return res[0]["value"][1] if res else None
        end = time.time() + 60
        up = n = None
        while time.time() < end and (up != "1" or n != "8"):
            up = query('up{job="axl"}')
            n = query('count(axl_device_up{job="axl"} == 1)')
            time.sleep(0.5)
        print("prometheus: up=%s, count(axl_device_up == 1)=%s" % (up, n))
        check(up == "1", "prometheus: up{job=\"axl\"} is %r" % up)
        check(n == "8", "prometheus: %r devices up, the sim has 8" % n)
    finally:
        p.terminate()
        p.wait(timeout=20)
        log.close()


if __name__ == "__main__":
    sys.exit(main())
