#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The vendors' real user-space on this machine, and the same machine without it.

LIBRARIES is the list of the vendors' real libraries, programs and headers the suite
checks axl against (issue 33): for each, the file that says it is installed, the Debian
package and archive component it comes from, and what the suite does with it. The checks
that need one are named by the row's pattern or carry the CTest label "reallib:<name>";
report.py reads them and the suite's results and says which ran and which were skipped,
and why (scripts/test.sh prints it at the end).

Bare() is this machine as it is without the vendors' user-space, for comparing a command's
run beside the real libraries with its run on a bare machine: every file the vendor
packages installed (the packages of scripts/vendor-userspace.sh and the dependencies
only they need, outside /usr/share), and every link that leads to one (the alternatives
of Debian's NVIDIA packages), is hidden in a private mount namespace (unshare -m) by
read-only overlays whose top layer holds whiteouts, and the dynamic loader's cache is
the one ldconfig writes without them: the loader then finds no libcuda.so.1 and
ldconfig -p lists none, as on a machine that never had them. Needs root and overlayfs; Bare.usable()
says why not.

usage: userspace.py [--hidden] [--installed]   (a look by hand)
       userspace.py --hold FILE   (bench/bench_startup.sh --vendor-libs: see hold())
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
MA = "/usr/lib/x86_64-linux-gnu"

# name (the label's), what says it is there, Debian package, component, what the suite
# does with it, and the CTest names of the checks that need it (a regular expression:
# tests registered in folders of their own, where a label cannot be set from one place;
# a test labelled reallib:<name> counts too)
LIBRARIES = [
    ("libcuda.so.1", MA + "/libcuda.so.1", "libcuda1", "non-free",
     "the limiter in front of the real driver; the exports axl resolves; the commands beside it",
     r"^(limiter\.real\..*|vendorabi\.exports|reallibs\..*)$"),
    ("libnvidia-ml.so.1", MA + "/libnvidia-ml.so.1", "libnvidia-ml1", "non-free",
     "the exports axl resolves; the commands beside it", r"^(vendorabi\.exports|reallibs\..*)$"),
    ("nvidia-smi", "/usr/bin/nvidia-smi", "nvidia-smi", "non-free",
     "the CDI specs that mount it, beside the bare machine's", r"^reallibs\.(sim|capture)$"),
    ("nvml.h", "/usr/include/nvml.h", "libnvidia-ml-dev", "non-free",
     "axl's NVML declarations against the vendor's header", r"^vendorabi\.(double\.)?nvml$"),
    ("cuda.h", "/usr/local/include/cuda.h", "nvidia-cuda-dev 11.8 (cuda.h, cudaTypedefs.h of its .deb)", "non-free",
     "axl's CUDA driver declarations against the vendor's header", r"^vendorabi\.((double\.)?cuda|detects)$"),
    ("librocm_smi64.so.1", "/usr/lib/librocm_smi64.so.1", "librocm-smi64-1", "main",
     "the real library reading axl's trees; the exports axl resolves; the commands beside it",
     r"^(rocm_smi\.real\..*|vendorabi\.exports|reallibs\..*)$"),
    ("rocm_smi.h", "/usr/include/rocm_smi/rocm_smi.h", "librocm-smi-dev", "main",
     "axl's ROCm SMI declarations against the vendor's header; the real-library probe's build",
     r"^(vendorabi\.(double\.)?rsmi|rocm_smi\.real\..*)$"),
    ("libamdhip64.so.5", MA + "/libamdhip64.so.5", "libamdhip64-5", "main",
     "the exports axl resolves; the commands beside it", r"^(vendorabi\.exports|reallibs\..*)$"),
    ("hip_runtime_api.h", "/usr/include/hip/hip_runtime_api.h", "libamdhip64-dev", "main",
     "axl's HIP declarations against the vendor's header", r"^vendorabi\.(double\.)?hip$"),
    ("libze_loader.so.1", MA + "/libze_loader.so.1", "libze1", "main",
     "the exports axl resolves; the commands beside it", r"^(vendorabi\.exports|reallibs\..*)$"),
    ("ze_api.h", "/usr/include/level_zero/ze_api.h", "libze-dev", "main",
     "axl's Level Zero declarations against the vendor's headers", r"^vendorabi\.(double\.)?(ze|zes)$"),
    ("intel-opencl-icd", "/etc/OpenCL/vendors/intel.icd", "intel-opencl-icd", "main",
     "Intel's OpenCL ICD (and Level Zero GPU driver): the opencl tests load it; the commands beside it",
     r"^(unit\.test_compute_opencl(\.deepbind)?|cli\.bench\.opencl|python\.(compute|exo)|reallibs\..*)$"),
    ("pocl", "/etc/OpenCL/vendors/pocl.icd", "pocl-opencl-icd", "main",
     "PoCL, OpenCL on the CPU: the opencl backend's device in the tests",
     r"^(unit\.test_compute_opencl|cli\.bench\.opencl|python\.(compute|exo))$"),
]

# the ones a library loads or a command runs (not the headers): what the commands test
# compares with a bare machine
RUNTIME = [n for n, path, *_ in LIBRARIES if not n.endswith(".h") and n != "pocl"]


def installed():
    """{name: path} of the LIBRARIES that are here (a link must lead to a file)"""
    return {n: p for n, p, *_ in LIBRARIES if os.path.isfile(p)}


def vendor_packages():
    """the packages scripts/vendor-userspace.sh installs (its pkgs= line)"""
    with open(os.path.join(TOP, "scripts", "vendor-userspace.sh")) as f:
        m = re.search(r'^pkgs="([^"]*)"', f.read(), re.M)
    return m.group(1).split() if m else []


def _deps_pkgs():
    """what scripts/deps.sh --test installs: a bare machine has it"""
    with open(os.path.join(TOP, "scripts", "deps.sh")) as f:
        text = f.read()
    return [p for m in re.finditer(r'pkgs="(?:\$pkgs )?([^"]*)"', text) for p in m.group(1).split()]


def _dpkg_db():
    out = subprocess.run(["dpkg-query", "-W", "-f=${Package}\t${Status}\t${Priority}\t${Essential}\t"
                          "${Depends}, ${Pre-Depends}\t${Provides}\n"], capture_output=True, text=True).stdout
    inst, prov, base = {}, {}, []
    for line in out.splitlines():
        p, st, prio, ess, dep, pv = line.split("\t")
        if "install ok installed" not in st:
            continue
        inst[p] = dep
        if ess == "yes" or prio in ("required", "important"):
            base.append(p)
        for x in pv.split(","):
            x = x.strip().split(" ")[0]
            if x:
                prov.setdefault(x, []).append(p)
    return inst, prov, base


def _closure(roots, inst, prov):
    seen, todo = set(), [r for r in roots if r in inst]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        for alt in inst[p].split(","):
            for a in alt.split("|"):
                n = a.strip().split(" ")[0].split(":")[0]
                if not n:
                    continue
                cands = [x for x in ([n] if n in inst else prov.get(n, [])) if x in inst]
                if cands:
                    todo += cands
                    break
    return seen


def hidden_packages():
    """the vendor packages installed here and what only they need: the dependency closure
    of scripts/vendor-userspace.sh's packages less that of scripts/deps.sh --test's and
    the base system's"""
    inst, prov, base = _dpkg_db()
    vendor = _closure(vendor_packages(), inst, prov)
    keep = _closure(_deps_pkgs() + base, inst, prov)
    return sorted(vendor - keep)


def hidden_files():
    """every file (not folder) those packages installed outside /usr/share, and every link
    in the folders that hold them, /usr/bin, the library folders and /etc/alternatives
    that leads to one of them"""
    files = set()
    for p in hidden_packages():
        out = subprocess.run(["dpkg-query", "-L", p], capture_output=True, text=True).stdout
        for f in out.splitlines():
            if f.startswith("/usr/share/") or not f.startswith("/"):
                continue
            if os.path.lexists(f) and not (os.path.isdir(f) and not os.path.islink(f)):
                files.add(f)
    real = {os.path.realpath(f) for f in files}
    dirs = {os.path.dirname(f) for f in files} | {"/usr/bin", "/usr/sbin", "/usr/lib", MA, "/etc/alternatives",
                                                  "/usr/lib/nvidia"}
    for d in sorted(dirs):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        for n in names:
            f = os.path.join(d, n)
            if os.path.islink(f) and os.path.realpath(f) in real:
                files.add(f)
    return sorted(files)


def _plan(files):
    """{folder: [names to white out]}: a folder all of whose entries are hidden is itself
    whited out in its parent (fewer overlays)"""
    hidden = set(files)

    def all_hidden(d):
        try:
            names = os.listdir(d)
        except OSError:
            return False
        for n in names:
            f = os.path.join(d, n)
            if f in hidden:
                continue
            if os.path.isdir(f) and not os.path.islink(f) and all_hidden(f):
                continue
            return False
        return bool(names)

    whole = set()
    for f in files:
        d = os.path.dirname(f)
        while d not in ("/", "") and all_hidden(d):
            whole.add(d)
            d = os.path.dirname(d)
    # the topmost whole folders only
    tops = {d for d in whole if not any(d.startswith(w + "/") for w in whole)}
    plan = {}
    for f in list(files) + sorted(tops):
        if any(f.startswith(w + "/") for w in tops):
            continue
        plan.setdefault(os.path.dirname(f), set()).add(os.path.basename(f))
    return {d: sorted(n) for d, n in sorted(plan.items())}


class Bare:
    """This machine without the vendors' user-space: commands run in a private mount
    namespace where overlays white out every hidden file. One overlay per topmost folder
    of the plan (an overlay's lower folder may not be another of these overlays); a file
    deeper down is whited out in a folder of the same path inside the top layer, which
    overlayfs merges with the folder below. Bare(empty=True) makes the same overlays with
    nothing whited out (the same mounts both ways, for timing)."""

    cache_error = None

    def __init__(self, files=None, empty=False):
        self.files = hidden_files() if files is None else files
        self.plan = _plan(self.files)
        roots = sorted(d for d in self.plan if not any(d.startswith(r + "/") for r in self.plan if r != d))
        self.dir = tempfile.mkdtemp(prefix="axl-bare-")
        self.mounts = []
        for i, root in enumerate(roots):
            layer = os.path.join(self.dir, "%d" % i)
            os.makedirs(layer)
            for d, names in self.plan.items():
                if d != root and not d.startswith(root + "/"):
                    continue
                sub = os.path.join(layer, os.path.relpath(d, root))
                os.makedirs(sub, exist_ok=True)
                if not empty:
                    for n in names:
                        os.mknod(os.path.join(sub, n), 0o600 | 0o020000, os.makedev(0, 0))  # a whiteout
            self.mounts.append("mount -t overlay axl-bare -o ro,lowerdir=%s:%s %s" % (layer, root, root))
        # the dynamic loader's cache as ldconfig writes it on that machine: made inside the
        # overlays (the hidden libraries are not there to list), bound over /etc/ld.so.cache
        # (-X: no link is touched; its aux-cache goes to a tmpfs, the system's is left be)
        cache = os.path.join(self.dir, "ld.so.cache")
        r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-ec",
                            "; ".join(self.mounts + ["mount -t tmpfs axl-bare /var/cache/ldconfig",
                                                     "exec ldconfig -X -C '%s'" % cache])],
                           capture_output=True, text=True)
        if r.returncode == 0 and os.path.isfile(cache):
            self.mounts.append("mount --bind -o ro %s /etc/ld.so.cache" % cache)
        else:
            self.cache_error = r.stderr.strip() or "ldconfig wrote no cache"

    @staticmethod
    def usable():
        """None when Bare works here, else why not"""
        if os.geteuid() != 0:
            return "not root (the bare machine is a private mount namespace with overlays)"
        if not shutil.which("unshare"):
            return "no unshare"
        d = tempfile.mkdtemp(prefix="axl-bare-probe-")
        try:
            os.makedirs(d + "/l")
            os.makedirs(d + "/m")
            r = subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-ec",
                                "mount -t overlay axl-bare -o ro,lowerdir=%s/l:%s/m %s/m" % (d, d, d)],
                               capture_output=True, text=True)
            return None if r.returncode == 0 else "overlay mounts refused: " + r.stderr.strip()
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def argv(self, cmd):
        inner = " ".join("'%s'" % c.replace("'", "'\\''") for c in cmd)
        return ["unshare", "-m", "--propagation", "private", "sh", "-ec",
                "; ".join(self.mounts + ["exec " + inner])]

    def holder(self):
        """a process holding the namespace (sleeps until killed), returned once its mounts
        are made: nsenter -t PID -m runs a command in it without paying for them"""
        p = subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-ec",
                              "; ".join(self.mounts + ["echo ready", "exec sleep 100000"])],
                             stdout=subprocess.PIPE, text=True)
        if p.stdout.readline().strip() != "ready":
            p.kill()
            p.wait()
            raise RuntimeError("the namespace's mounts failed")
        return p

    def close(self):
        shutil.rmtree(self.dir, ignore_errors=True)


def hold(path):
    """two namespaces held open for timing (bench/bench_startup.sh --vendor-libs): the
    same overlays and cache binding both ways, one hiding the vendors' files (bare), one
    hiding nothing (visible); writes "visible PID" and "bare PID" to path and holds them
    until standard input closes or SIGTERM"""
    import signal
    files = hidden_files()
    vis, bare = Bare(files, empty=True), Bare(files)
    hv, hb = vis.holder(), bare.holder()
    try:
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        with open(path + ".tmp", "w") as f:
            f.write("visible %d\nbare %d\n" % (hv.pid, hb.pid))
        os.rename(path + ".tmp", path)
        sys.stdin.read()
    finally:
        for h in (hv, hb):
            h.kill()
            h.wait()
        vis.close()
        bare.close()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--hold":
        why = Bare.usable()
        if why:
            print("cannot hold the namespaces: %s" % why, file=sys.stderr)
            return 1
        hold(sys.argv[2])
        return 0
    if "--installed" in sys.argv:
        have = installed()
        for n, p, pkg, comp, what, _ in LIBRARIES:
            print("%-20s %-9s %s" % (n, "here" if n in have else "absent", "%s (%s, %s)" % (p, pkg, comp)))
    if "--hidden" in sys.argv:
        print("packages hidden: " + " ".join(hidden_packages()))
        for d, names in _plan(hidden_files()).items():
            print("%s: %s" % (d, " ".join(names)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
