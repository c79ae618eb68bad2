#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The inputs of test_compute_cuda: the recorded HGX H100 node as a sysroot tree (mktree.py),
and the CUDA double's view of the same eight GPUs with their order reversed and their UUIDs
blanked, so that only the PCI addresses can match CUDA's devices to the inventory's (an
ordinal or a UUID match would pick the wrong GPU or none).

    make_inputs.py MKTREE.py NODE.json CAPTURE.xml OUTDIR   -> OUTDIR/tree, OUTDIR/cuda.xml
"""
import os
import re
import subprocess
import sys


def main():
    mktree, node, capture, out = sys.argv[1:5]
    os.makedirs(out, exist_ok=True)
    subprocess.run([sys.executable, mktree, node, os.path.join(out, "tree")], check=True,
                   stdout=subprocess.DEVNULL)
    with open(capture, encoding="utf-8") as f:
        doc = f.read()
    gpus = re.findall(r"\t<gpu id=.*?</gpu>\n", doc, flags=re.S)
    if len(gpus) < 2:
        sys.exit("make_inputs.py: fewer than two <gpu> in " + capture)
    start = doc.index(gpus[0])
    end = doc.index(gpus[-1]) + len(gpus[-1])
    body = "".join(re.sub(r"<uuid>[^<]*</uuid>", "<uuid>N/A</uuid>", g) for g in reversed(gpus))
    tmp = os.path.join(out, "cuda.xml.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(doc[:start] + body + doc[end:])
    os.replace(tmp, os.path.join(out, "cuda.xml"))


if __name__ == "__main__":
    main()
