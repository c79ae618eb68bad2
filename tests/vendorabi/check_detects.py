#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""vendorabi.detects: check_abi.py fails on a declaration that differs from cuda.h.

A copy of src/abi/nvidia/cuda.h is made with three faults, each of a kind the comparison
must catch: a constant's value (CU_GRAPH_NODE_TYPE_GRAPH 5, which is EMPTY in cuda.h: the
value the limiter once had), a member's type of the same width (CUuuid's bytes as unsigned
char) and a prototype (cuMemFree_v2 taking the legacy 32-bit pointer). The checker must
exit 1 and name exactly those three; 77 when cuda.h is not installed.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--checker", required=True)
ap.add_argument("--abi", required=True)
ap.add_argument("--cc", default="cc")
a = ap.parse_args()

with tempfile.TemporaryDirectory() as tmp:
    shutil.copytree(a.abi, os.path.join(tmp, "abi"))
    h = os.path.join(tmp, "abi", "nvidia", "cuda.h")
    text = open(h).read()
    faults = [("CU_GRAPH_NODE_TYPE_GRAPH = 4", "CU_GRAPH_NODE_TYPE_GRAPH = 5"),
              ("\tchar bytes[16];", "\tunsigned char bytes[16];"),
              ("CUresult cuMemFree_v2(CUdeviceptr dptr);", "CUresult cuMemFree_v2(CUdeviceptr_v1 dptr);")]
    for old, new in faults:
        if old not in text:
            sys.exit("FAIL: src/abi/nvidia/cuda.h no longer has %r to break" % old)
        text = text.replace(old, new)
    with open(h + ".tmp", "w") as f:
        f.write(text)
    os.replace(h + ".tmp", h)
    r = subprocess.run([sys.executable, a.checker, "--ours", h, "--vendor-include", "cuda.h", "--define",
                        "__CUDA_API_VERSION_INTERNAL", "--version-macro", "CUDA_VERSION", "--include-dir", tmp,
                        "--cc", a.cc], capture_output=True, text=True)
    print(r.stdout + r.stderr)
    if r.returncode == 77:
        sys.exit(77)
    diffs = sorted(set(re.sub(r"^DIFF (signedness of )?(struct CUuuid_st|CUuuid)", r"DIFF \1CUuuid", l)
                       for l in r.stdout.splitlines() if l.startswith("DIFF")))
    want = ["DIFF constant CU_GRAPH_NODE_TYPE_GRAPH: ours 5 (0x5), the vendor's 4 (0x4)",
            "DIFF prototype of cuMemFree_v2 differs from the vendor's",
            "DIFF signedness of CUuuid.bytes: ours 0 (0x0), the vendor's 1 (0x1)"]
    if r.returncode != 1 or diffs != want:
        print("FAIL: want exit 1 and\n  %s\ngot exit %d and\n  %s" % ("\n  ".join(want), r.returncode,
                                                                    "\n  ".join(diffs)))
        sys.exit(1)
    print("vendorabi.detects: the three faults were found, nothing else")
