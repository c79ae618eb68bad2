#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""tf.seed.upstream: TensorFusion's own provider test of the seed era on
libaccelerator_axl_seed.so.

NexusGPU/tensor-fusion's provider/test/test_accelerator.c at commit 0b88c6cd (2026-01-20,
"refactor to heterogeneous device provider mode", #511), compiled against that commit's
provider/accelerator.h (and the limiter.h it includes), linked to the library and run on
a simulated node. Also: the layouts pinned in src/compat/tensorfusion/seed_abi_layout.h
are checked against that header, and the library must export exactly the functions the
two headers declare.

The source is given, never fetched ($AXL_TENSORFUSION_SRC or --src): a checkout or a bare
git directory holding the commit (its files are read with git show 0b88c6cd:PATH), or a
plain directory holding provider/ as of that commit. None given: skipped (77). A source
given that is not one (no such commit, files missing, a header of another era): an error.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from upstream_source import skip  # noqa: E402

COMMIT = "0b88c6cd"
FILES = ["provider/accelerator.h", "provider/limiter.h", "provider/test/test_accelerator.c"]
HINT = "$AXL_TENSORFUSION_SRC or --src: a checkout or bare git directory of NexusGPU/tensor-fusion"


def git_dir(path: str) -> str | None:
    """the git directory of path (bare, or a checkout's), None when git cannot read one"""
    r = subprocess.run(["git", "-C", path, "rev-parse", "--absolute-git-dir"], capture_output=True, text=True,
                       check=False)
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def extract(src: str, into: str) -> str:
    """write FILES as of COMMIT under into; returns where they came from"""
    gd = git_dir(src)
    if gd:
        for rel in FILES:
            r = subprocess.run(["git", "--git-dir", gd, "show", "%s:%s" % (COMMIT, rel)], capture_output=True,
                               check=False)
            if r.returncode != 0:
                sys.exit("TensorFusion source %s: no %s at commit %s: %s" %
                         (src, rel, COMMIT, r.stderr.decode(errors="replace").strip()))
            os.makedirs(os.path.dirname(os.path.join(into, rel)), exist_ok=True)
            with open(os.path.join(into, rel), "wb") as f:
                f.write(r.stdout)
        return "%s at %s" % (src, COMMIT)
    for rel in FILES:
        p = os.path.join(src, rel)
        if not os.path.isfile(p):
            sys.exit("TensorFusion source %s: no %s" % (src, rel))
        os.makedirs(os.path.dirname(os.path.join(into, rel)), exist_ok=True)
        with open(p, "rb") as f, open(os.path.join(into, rel), "wb") as g:
            g.write(f.read())
    return "%s (a plain directory, taken as commit %s)" % (src, COMMIT)


def declared(header_text: str) -> set[str]:
    """the functions a header declares (its prototypes at the start of a line)"""
    return set(re.findall(r"^(?:Result|bool)\s+(\w+)\s*\(", header_text, re.M))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", default=os.environ.get("AXL_TENSORFUSION_SRC"))
    ap.add_argument("--lib", required=True, help="libaccelerator_axl_seed.so")
    ap.add_argument("--layout", required=True, help="src/compat/tensorfusion/seed_abi_layout.h")
    ap.add_argument("--sim", required=True, help="the simulated node (AXL_SIM)")
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--cflags", default="", help="extra flags (the build's sanitizers)")
    args = ap.parse_args()
    if not args.src:
        skip("no TensorFusion source given (%s)" % HINT)
    if not os.path.isdir(args.src):
        sys.exit("TensorFusion source %s is not a directory" % args.src)
    with tempfile.TemporaryDirectory(prefix="axl-tf-seed-") as work:
        print("TensorFusion: %s" % extract(args.src, work))
        prov = os.path.join(work, "provider")
        with open(os.path.join(prov, "accelerator.h")) as f:
            acc = f.read()
        with open(os.path.join(prov, "limiter.h")) as f:
            lim = f.read()
        if "VirtualGPUInit" not in acc:
            sys.exit("%s/provider/accelerator.h declares no VirtualGPUInit: not the seed era" % args.src)
        extra = args.cflags.split()
        # 1. the layouts axl pinned, against the seed's own header
        chk = os.path.join(work, "layout.c")
        with open(chk, "w") as f:
            f.write('#include "accelerator.h"\n#include "%s"\n' % os.path.abspath(args.layout))
        r = subprocess.run([args.cc, "-std=c11", "-I", prov, "-c", chk, "-o", os.path.join(work, "layout.o")],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            print("FAIL: seed_abi_layout.h's layouts differ from the seed's accelerator.h")
            return 1
        print("layouts: seed_abi_layout.h agrees with the seed's accelerator.h and limiter.h")
        # 2. the library's exports: exactly the functions the two headers declare
        want = declared(acc) | declared(lim)
        nm = subprocess.run(["nm", "-D", "--defined-only", args.lib], capture_output=True, text=True, check=True)
        got = {line.split()[-1].split("@")[0] for line in nm.stdout.splitlines() if line.strip()}
        if got != want:
            print("FAIL: exports differ from the seed's declarations: missing %s, extra %s" %
                  (sorted(want - got), sorted(got - want)))
            return 1
        print("exports: the %d functions the seed's headers declare, no other" % len(want))
        # 3. the seed's own test, as its Makefile builds it (-Wall -Wextra -std=c11 -I provider)
        exe = os.path.join(work, "test_accelerator")
        r = subprocess.run([args.cc, "-Wall", "-Wextra", "-std=c11", "-I", prov] + extra +
                           ["-o", exe, os.path.join(prov, "test", "test_accelerator.c"), os.path.abspath(args.lib),
                            "-Wl,-rpath," + os.path.dirname(os.path.abspath(args.lib))],
                           capture_output=True, text=True, check=False)
        if r.returncode != 0:
            print(r.stdout + r.stderr)
            print("FAIL: the seed's test_accelerator.c does not build against the library")
            return 1
        env = dict(os.environ, AXL_SIM=os.path.abspath(args.sim), AXL_STATE_DIR=os.path.join(work, "state"))
        os.makedirs(env["AXL_STATE_DIR"])
        r = subprocess.run([exe], env=env, capture_output=True, text=True, check=False, timeout=120)
        print(r.stdout, end="")
        if r.stderr:
            print(r.stderr, end="")
        if r.returncode != 0 or "All tests passed" not in r.stdout:
            print("FAIL: test_accelerator exited %d" % r.returncode)
            return 1
        return 0


if __name__ == "__main__":
    sys.exit(main())
