# SPDX-License-Identifier: MIT
"""A node that HAS the vendors' user-space, from Debian 12's archive: a root made once
with mmdebstrap (minbase), its own sources with contrib and non-free (the host's apt is
never touched), holding

  NVIDIA 535.261.03  libcuda1, libnvidia-ml1, nvidia-smi  (non-free; update-alternatives
                     links libcuda.so.1 -> /etc/alternatives/... -> nvidia/current/...)
  ROCm 5.2.3         librocm-smi64-1, libamdhip64-5       (main)
  Level Zero 1.8     libze1                                (main)

and what axl itself loads at run time (libmicrohttpd, libpci, zlib, gRPC's C core and
protobuf-c for the device plugin's module), so that the built axl runs inside it
(deploy.node) and the image mounts it as a host's root (deploy.image). Cached (default_cache()) with
a stamp naming what it holds, shared by every build folder; made again when the list
changes.
"""
import os
import shutil
import subprocess
import time

VENDOR_PKGS = ["libcuda1", "libnvidia-ml1", "nvidia-smi", "librocm-smi64-1", "libamdhip64-5", "libze1"]
AXL_RUNTIME_PKGS = ["libmicrohttpd12", "libpci3", "pci.ids", "zlib1g", "libgrpc29", "libprotobuf-c1", "libcurl4"]
SUITE = "bookworm"
COMPONENTS = "main contrib non-free non-free-firmware"
MIRROR = "http://deb.debian.org/debian"


def default_cache():
    """$AXL_TEST_CACHE/vendor-root, else the user's cache folder's axl-tests/vendor-root
    (root's: /root/.cache): one root for the normal and the sanitized build"""
    base = os.environ.get("AXL_TEST_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "axl-tests")
    return os.path.join(base, "vendor-root")


def make(cache, env=None, say=print):
    """the root's path, made when missing; None (with a message) when it cannot be"""
    root = os.path.join(cache, "root")
    stamp = os.path.join(cache, "stamp")
    pkgs = VENDOR_PKGS + AXL_RUNTIME_PKGS
    want = "%s %s: %s" % (SUITE, COMPONENTS, " ".join(pkgs))
    if os.path.exists(stamp) and open(stamp).read() == want and os.path.isdir(root):
        return root
    if not shutil.which("mmdebstrap"):
        say("mmdebstrap is not installed (scripts/deps.sh --test installs it)")
        return None
    shutil.rmtree(cache, ignore_errors=True)
    os.makedirs(cache)
    t = time.time()
    r = subprocess.run(["mmdebstrap", "--quiet", "--variant=minbase", "--mode=root",
                        "--aptopt=Acquire::Languages \"none\"",
                        "--dpkgopt=path-exclude=/usr/share/doc/*", "--dpkgopt=path-exclude=/usr/share/man/*",
                        "--dpkgopt=path-exclude=/usr/share/locale/*", "--include=" + ",".join(pkgs),
                        SUITE, root, "deb %s %s %s" % (MIRROR, SUITE, COMPONENTS)],
                       capture_output=True, text=True, timeout=1500, env=env)
    if r.returncode != 0:
        say("mmdebstrap of the vendors' root: exit %d %s" % (r.returncode, r.stderr[-2000:]))
        shutil.rmtree(cache, ignore_errors=True)
        return None
    with open(stamp, "w") as f:
        f.write(want)
    say("vendors' root (%s) made in %.0f s" % (", ".join(pkgs), time.time() - t))
    return root
