#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python package installed the way docs/python.md says, in a fresh virtual
environment (with the system's site packages; no network): a copy of
python/ with libaxl.so.0 beside the package, `pip install --no-build-isolation`, then,
from another directory and with no AXL_* variable set, the README's one-liner
`import axl; print(axl.open().devices)`, the library found next to the package, and
the Backend.AI plugins found through their entry points (importlib.metadata).

usage: check_install.py --src SOURCE_DIR --lib build/libaxl.so.0 --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src")
    ap.add_argument("--lib")
    ap.add_argument("--work")
    a = ap.parse_args()
    a.src = os.path.abspath(a.src)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    pkg = os.path.join(a.work, "python")
    shutil.copytree(os.path.join(a.src, "python"), pkg,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "libaxl.so*"))
    shutil.copy(os.path.realpath(a.lib), os.path.join(pkg, "axl", "libaxl.so.0"))
    venv = os.path.join(a.work, "venv")
    r = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", venv], capture_output=True, text=True)
    if r.returncode != 0:
        print("no venv here (python3-venv missing?): %s" % r.stderr.strip()[-200:])
        return 77
    env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_") and k not in ("PYTHONPATH",)}
    env["PIP_NO_INDEX"] = "1"  # nothing from the network, ever
    r = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "--no-build-isolation", "--no-deps", pkg],
                       capture_output=True, text=True, env=env, timeout=300)
    if not check(r.returncode == 0, "pip install: rc %d: %s" % (r.returncode, (r.stdout + r.stderr)[-800:])):
        return 1
    py = os.path.join(venv, "bin", "python")
    # the README's one-liner, run from elsewhere so that python/ of the checkout is not on the path
    r = subprocess.run([py, "-c", "import axl; print(axl.open().devices)"], capture_output=True, text=True,
                       env=env, cwd=a.work, timeout=120)
    check(r.returncode == 0 and r.stdout.startswith("["), "one-liner: rc %d: %r %r" % (r.returncode, r.stdout[-300:],
                                                                                     r.stderr[-500:]))
    probe = (
        "import axl, os, importlib.metadata as md\n"
        "print(axl.library_path())\n"
        "print(os.path.dirname(axl.__file__))\n"
        "eps = md.entry_points(group='backendai_accelerator_v21')\n"
        "print(','.join(sorted(e.name for e in eps)))\n"
        "print(eps['axl-cuda'].load().__name__)\n"
        "inv = axl.open(sim=%r)\n"
        "print(len(inv.devices))\n" % os.path.join(a.src, "tests", "sim", "h100x2.json"))
    r = subprocess.run([py, "-c", probe], capture_output=True, text=True, env=env, cwd=a.work, timeout=120)
    if check(r.returncode == 0, "probe: rc %d: %s" % (r.returncode, r.stderr[-800:])):
        lib, pkgdir, names, cls, ndev = r.stdout.split("\n")[:5]
        check(os.path.dirname(os.path.realpath(lib)) == os.path.realpath(pkgdir),
              "the library loaded is not the one beside the package: %s vs %s" % (lib, pkgdir))
        check(pkgdir.startswith(venv), "the package imported is not the installed one: %s" % pkgdir)
        for n in ("axl-cuda", "axl-rocm", "axl-gaudi2", "axl-neuron", "axl-tpu", "axl-xpu"):
            check(n in names.split(","), "entry point %s missing: %s" % (n, names))
        check(cls == "CUDAPlugin", "entry point cuda loads %s" % cls)
        check(ndev == "2", "devices of the simulated node: %s" % ndev)
    # a virtual environment with nothing but pip (no setuptools from the system, no
    # wheel module, as one made from a pyenv Python): the in-tree build backend
    # (python/build_backend/axl_build.py) needs neither; with setuptools < 70.1 as the backend
    # this failed with "invalid command 'bdist_wheel'"
    bare = os.path.join(a.work, "venv-bare")
    r = subprocess.run([sys.executable, "-m", "venv", bare], capture_output=True, text=True)
    if check(r.returncode == 0, "venv without system packages: %s" % r.stderr[-300:]):
        bpy = os.path.join(bare, "bin", "python")
        r = subprocess.run([bpy, "-c", "import wheel"], capture_output=True, text=True, env=env)
        print("bare venv has the wheel module: %s" % (r.returncode == 0))
        r = subprocess.run([os.path.join(bare, "bin", "pip"), "install", "--no-build-isolation", "--no-deps", pkg],
                           capture_output=True, text=True, env=env, timeout=300)
        check(r.returncode == 0, "pip install in a bare venv: rc %d: %s" % (r.returncode, (r.stdout + r.stderr)[-800:]))
        r = subprocess.run([bpy, "-c", "import axl, importlib.metadata as md; print(md.version('axl'));"
                            "print(len(md.entry_points(group='backendai_accelerator_v21')))"],
                           capture_output=True, text=True, env=env, cwd=a.work, timeout=120)
        out = r.stdout.split()
        check(r.returncode == 0 and len(out) == 2 and out[0] == "0.1.0" and int(out[1]) > 0,
              "bare venv: import and metadata: rc %d %r %r" % (r.returncode, r.stdout, r.stderr[-300:]))
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
