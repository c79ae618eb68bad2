#!/usr/bin/env python3
"""axl's container image (deploy/container/Containerfile) built and run under podman.

 - the Debian 12 base is imported with deploy/container/mkbase.sh unless it exists;
   the image is built from the repository (podman's layer cache keeps the package steps);
 - size and start time (`podman run --rm IMAGE version`, median of 5) are printed;
 - the DRA driver's modules (axl-dra.so, axl-dra-kubelet.so) are in the image, and
   `axl dra-plugin` loads the first (stopping at a missing kubeconfig, past the module);
 - every run is as the DaemonSet runs it: read-only root, no capability, no new
   privileges, host /sys and /dev read-only, the host's PID namespace (its /proc), the
   host's root read-only at /host and AXL_DRIVER_ROOT=/host;
 - `axl list --json` in the container equals the host's own (same sysfs), and on a
   simulated node (tests/sim, mounted read-only) lists its devices;
 - as the image's user (not root) writing into the root-owned host folders is refused;
   as root without capabilities the NFD feature file and the CDI specs appear in the
   mounted host folders, equal to what the host's axl writes for the same node (with
   whatever vendor user-space this host has: the libraries the specs mount are resolved
   inside /host as the host resolves them);
 - a node that HAS the vendors' user-space: a Debian 12 root made with mmdebstrap (its
   own sources, contrib and non-free included; the host's apt is not touched) with
   NVIDIA 535 (libcuda1, libnvidia-ml1, nvidia-smi), ROCm 5.2.3 (librocm-smi64-1,
   libamdhip64-5) and Level Zero (libze1), cached (vendor_root.py). Mounted at /host, the
   image's CDI specs for an H100, an MI300X and an Intel GPU/NPU node equal the host's
   axl's with --driver-root on the same root, and mount the libraries and nvidia-smi at
   their link names (libcuda.so.1 through /etc/alternatives) from the files they lead to;
 - NVML read through the driver root inside the image: the NVML double (--nvml-double)
   installed in a root as Debian installs libnvidia-ml.so.1, the HGX tree's 8 H100
   described from it in the container as on the host;
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vendor_root as vr  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SIM = "h100x8-nvswitch.json"
NFD_DIR = "/etc/kubernetes/node-feature-discovery/features.d"
CDI_DIR = "/var/run/cdi"
HOST_LIBS = "/usr/lib/x86_64-linux-gnu"
NVML_XML = os.path.join(TOP, "tests", "vendorlib", "nvml", "double", "fixtures", "hgx-8x-h100-q2x.xml")

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


def base_flags(sim_dir, host_root="/"):
    """the DaemonSet's security and mounts, as podman options (host_root: the folder
    mounted as the host's root at /host)"""
    return ["--read-only", "--cap-drop", "all", "--security-opt", "no-new-privileges",
            "--pid", "host", "--network", "host",
            "-v", "/sys:/sys:ro", "-v", "/dev:/dev:ro",
            "-v", "%s:/host:ro" % host_root, "-e", "AXL_DRIVER_ROOT=/host",
            "-v", "%s:/sim:ro" % sim_dir]


def vendor_root(cache, env):
    """the root with the vendors' user-space (vendor_root.py); None when it cannot be made"""
    msgs = []
    root = vr.make(cache, env, say=msgs.append)
    for m in msgs:
        print(m)
    if root is None and shutil.which("mmdebstrap"):
        check(False, "the vendors' root: " + " ".join(msgs))
    return root


def spec_mounts(specs):
    """{kind: [(hostPath, containerPath)]} of a cdi generate document"""
    specs = specs if isinstance(specs, list) else [specs]
    return {s["kind"]: [(m["hostPath"], m["containerPath"]) for m in s.get("containerEdits", {}).get("mounts", [])]
            for s in specs}


def vendor_node(a, env, work, vroot):
    """the image's CDI specs on a node with the vendors' user-space: the root mounted at
    /host equals the host's axl with --driver-root on it, and mounts what Debian installs"""
    sim_dir = os.path.join(TOP, "tests", "sim")
    laptop = os.path.join(work, "tree-laptop")
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"),
                    os.path.join(TOP, "tests", "trees", "nodes", "laptop-npu-2gpu.json"), laptop],
                   check=True, stdout=subprocess.DEVNULL)
    lib = "/usr/lib/x86_64-linux-gnu/"
    nodes = [
        ("8xH100", ["--sim", "/sim/h100x8-nvswitch.json"], ["--sim", os.path.join(sim_dir, "h100x8-nvswitch.json")],
         {"axl.dev/nvidia-gpu": {lib + "libcuda.so.1", lib + "libnvidia-ml.so.1", lib + "libnvidia-ptxjitcompiler.so.1",
                                 "/usr/bin/nvidia-smi"}}),
        ("8xMI300X", ["--sim", "/sim/mi300x8.json"], ["--sim", os.path.join(sim_dir, "mi300x8.json")],
         {"axl.dev/amd-gpu": {"/usr/lib/librocm_smi64.so.1", lib + "libamdhip64.so.5", lib + "libhsa-runtime64.so.1"}}),
        ("Intel laptop", ["--sysroot", "/tree"], ["--sysroot", laptop],
         {"axl.dev/intel-gpu": {lib + "libze_loader.so.1"}, "axl.dev/intel-npu": {lib + "libze_loader.so.1"}}),
    ]
    for what, inner, outer, want in nodes:
        ref = subprocess.run([a.axl, "cdi", "generate", "--driver-root", vroot] + outer, capture_output=True, text=True)
        r = run(["podman", "run", "--rm", "--user", "0:0"] + base_flags(sim_dir, vroot) +
                ["-v", "%s:/tree:ro" % laptop, a.image, "cdi", "generate"] + inner, env)
        if not check(r.returncode == 0 and ref.returncode == 0, "%s on the vendors' root: exit %d %s / host %d %s"
                     % (what, r.returncode, r.stderr[-500:], ref.returncode, ref.stderr[-500:])):
            continue
        got, host = json.loads(r.stdout), json.loads(ref.stdout)
        check(got == host, "%s on the vendors' root: the image's specs differ from the host's axl --driver-root" % what)
        mounts = spec_mounts(got)
        for kind, paths in want.items():
            have = {c for _, c in mounts.get(kind, [])}
            check(paths <= have, "%s: %s mounts %s, lacking %s" % (what, kind, sorted(have), sorted(paths - have)))
            for h, c in mounts.get(kind, []):
                full = vroot + h
                check(os.path.isfile(full) and not os.path.islink(full),
                      "%s: %s's hostPath %s is no file of the root" % (what, c, h))
        print("vendors' root, %s: %s" % (what, "; ".join("%s %d mounts" % (k, len(v)) for k, v in sorted(mounts.items()))))


def nvml_through_root(a, env, work, double):
    """NVML loaded from the driver root in the image: the double installed as Debian
    installs libnvidia-ml.so.1 (absolute links through /etc/alternatives). A double built
    with a sanitizer needs its runtime, which the image lacks: the normal build runs it."""
    needed = subprocess.run(["readelf", "-d", double], capture_output=True, text=True).stdout
    if "libasan" in needed or "libubsan" in needed:
        print("note: the NVML double is built with a sanitizer, whose runtime the image lacks: "
              "NVML through the driver root is checked in the normal build")
        return
    root = os.path.join(work, "nvml-root")
    cur = "/usr/lib/x86_64-linux-gnu/nvidia/current"
    alt = "/etc/alternatives/nvidia--libnvidia-ml.so.1-x86_64-linux-gnu"
    os.makedirs(root + cur)
    os.makedirs(root + "/etc/alternatives")
    shutil.copy(double, root + cur + "/libnvidia-ml.so.535.261.03")
    os.symlink("libnvidia-ml.so.535.261.03", root + cur + "/libnvidia-ml.so.1")
    os.symlink(cur + "/libnvidia-ml.so.1", root + alt)
    os.symlink(alt, root + "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
    tree = os.path.join(work, "tree-hgx")
    subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"),
                    os.path.join(TOP, "tests", "trees", "nodes", "hgx-8x-h100.json"), tree],
                   check=True, stdout=subprocess.DEVNULL)
    host = subprocess.run([a.axl, "list", "--json", "--sysroot", tree], capture_output=True, text=True,
                          env=dict(os.environ, AXL_DRIVER_ROOT=root, AXL_NVML_DOUBLE_XML=NVML_XML))
    r = run(["podman", "run", "--rm"] + base_flags(os.path.join(TOP, "tests", "sim"), root) +
            ["-v", "%s:/tree:ro" % tree, "-v", "%s:/nvml.xml:ro" % NVML_XML, "-e", "AXL_NVML_DOUBLE_XML=/nvml.xml",
             a.image, "list", "--json", "--sysroot", "/tree"], env)
    if not check(r.returncode == 0 and host.returncode == 0, "NVML through the driver root: exit %d %s / host %d %s"
                 % (r.returncode, r.stderr[-500:], host.returncode, host.stderr[-500:])):
        return
    inner, outer = json.loads(r.stdout), json.loads(host.stdout)
    gpus = [d for d in inner.get("devices", []) if d.get("id", "").startswith("nvidia:")]
    by_nvml = [d for d in gpus if "nvml" in json.dumps(d.get("sources", d.get("field_sources", {})))]
    check(len(gpus) == 8 and len(by_nvml) == 8, "NVML through the driver root: %d GPUs, %d described by NVML"
          % (len(gpus), len(by_nvml)))
    check(not inner.get("warnings"), "NVML through the driver root: warnings %r" % inner.get("warnings"))
    check(inner.get("devices") == outer.get("devices"), "NVML through the driver root: the image's devices differ "
          "from the host's axl with AXL_DRIVER_ROOT")
    print("NVML through the driver root: %d GPUs described by the NVML double in the image" % len(by_nvml))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--image", default="localhost/axl:ctest")
    ap.add_argument("--base", default="localhost/axl-base:bookworm")
    ap.add_argument("--nvml-double", help="the NVML double (libnvidia-ml.so.1 of tests/vendorlib/nvml/double)")
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
    # the DRA driver's modules (docs/kubernetes.md, deploy/kubernetes/dra), where axl
    # dra-plugin looks for them; the API-server one loads (its libcurl is in the image):
    # with no API server to reach, the command stops at the kubeconfig, past the module
    r = run(["podman", "run", "--rm", "--entrypoint", "/bin/sh", a.image, "-c",
             "ls /usr/lib/x86_64-linux-gnu/axl/axl-dra.so /usr/lib/x86_64-linux-gnu/axl/axl-dra-kubelet.so"], env)
    check(r.returncode == 0, "the image lacks the DRA modules: %s" % r.stderr.strip())
    r = run(["podman", "run", "--rm", a.image, "dra-plugin", "--node-name", "n", "--kubeconfig", "/nonexistent"], env)
    check(r.returncode != 0 and "axl-dra.so" not in r.stderr and "/nonexistent" in r.stderr,
          "axl dra-plugin in the image: the module did not load, or the missing kubeconfig went unsaid: %r" % r.stderr)

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
        # NVML is looked for under the driver root (the host's root): a node without the
        # NVIDIA driver stays quiet about it (docs/vendor-libraries.md); the container
        # says what the host says
        check(inner.get("warnings", []) == outer.get("warnings", []), "as %s: warnings %r, the host's %r"
              % (who, inner.get("warnings"), outer.get("warnings")))
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

    vroot = vendor_root(vr.default_cache(), env)
    if vroot:
        vendor_node(a, env, a.work, vroot)
    if check(a.nvml_double and os.path.exists(a.nvml_double), "no NVML double (--nvml-double)"):
        nvml_through_root(a, env, a.work, a.nvml_double)

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
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
