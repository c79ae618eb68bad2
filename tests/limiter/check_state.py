#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libaxl_limiter.so holds a CUDA workload to `axl limit set`'s numbers (docs/limits.md,
"Where limits come from"), end to end: `axl limit set` on a synthetic HGX H100 node
(tests/trees) writes the state directory; the CUDA double is given that node's first UUID
(a copy of its nvidia-smi fixture), and tests/limiter/test_limiter.c's `state` case, under
LD_PRELOAD, must find exactly that limit, with no AXL_LIMIT_* variable set. Then: a changed
limit applies to the next workload (the region in the state directory is reused), a
cleared one lifts it, and a state file that is truncated, not JSON, breaks a rule or is of
a later schema_version makes every allocation fail with a message naming the file.

usage: check_state.py --axl AXL --test TEST_LIMITER --limiter LIB --double LIB --xml XML --work DIR
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TREES = os.path.join(HERE, "..", "trees")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    for o in ("axl", "test", "limiter", "double", "xml", "work"):
        ap.add_argument("--" + o, required=True)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    tree = os.path.join(a.work, "tree")
    subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"),
                    os.path.join(TREES, "nodes", "hgx-8x-h100.json"), tree],
                   check=True, stdout=subprocess.DEVNULL)
    state = os.path.join(a.work, "state")
    base = {k: v for k, v in os.environ.items()
            if not k.startswith(("AXL_", "CUDA_DEVICE_", "LD_PRELOAD"))}
    base["AXL_STATE_DIR"] = state

    def axl(*args):
        r = subprocess.run([a.axl, "limit", *args, "--sysroot", tree], env=base,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"axl limit {' '.join(args)}: rc {r.returncode} {r.stderr}")
        return r.stdout

    axl("set", "nvidia:0", "--memory", "1MiB", "--compute", "30")
    doc = json.loads(axl("list", "--json"))
    uuid = doc["limits"][0]["uuid"]
    check(uuid.startswith("GPU-"), f"uuid {uuid}")
    # the double's first GPU is the node's nvidia:0
    xml = open(a.xml).read()
    first = re.search(r"<uuid>(GPU-[^<]*)</uuid>", xml).group(1)
    xml = xml.replace(first, uuid)
    fixture = os.path.join(a.work, "double.xml")
    open(fixture, "w").write(xml)

    def run(case, want, **extra):
        env = dict(base, LD_PRELOAD=a.limiter, AXL_LIMITER_CUDA_LIBRARY=a.double,
                   AXL_CUDA_DOUBLE_XML=fixture, AXL_LIMITER_LOG="info", TEST_LIMIT_BYTES=want,
                   **extra)
        r = subprocess.run([a.test, case, os.path.join(a.work, "run")], env=env,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, f"{case} (limit {want}): rc {r.returncode}\n{r.stdout}{r.stderr}")
        return r.stderr

    err = run("state", str(1 << 20))
    check(f"from {state}/state.json" in err, f"the log names the state file: {err}")
    check(re.search(r"device 0 GPU-\S+: memory 1048576, compute 30%", err), f"compute 30 read: {err}")
    check(os.path.exists(os.path.join(state, "limiter.region")), "the region is the state directory's")
    # a changed limit: the next workload has it (nobody is attached to the old region)
    axl("set", "nvidia:0", "--memory", "2MiB")
    run("state", str(2 << 20))
    # the record and HAMi-core's variable together: the smaller applies, either way
    run("state", str(1 << 20), CUDA_DEVICE_MEMORY_LIMIT_0="1m")
    run("state", str(2 << 20), CUDA_DEVICE_MEMORY_LIMIT_0="3m")
    # a record for another device only: device 0 is not limited
    axl("clear", "nvidia:0")
    axl("set", "nvidia:1", "--memory", "1MiB")
    run("state", "none")
    axl("clear", "nvidia:1")
    run("state", "none")

    axl("set", "nvidia:0", "--memory", "1MiB")
    good = open(os.path.join(state, "state.json")).read()
    bad = {
        "truncated": (good[: len(good) // 2], "state.json:"),
        "not JSON": ("limits = 1MiB\n", "state.json:1:"),
        "a rule broken": (good.replace('"memory_bytes": 1048576', '"memory_bytes": -4'),
                          "memory_bytes: must be a positive integer"),
        "a later version": (good.replace('"schema_version": 1', '"schema_version": 2'),
                            "schema_version 2: this limiter reads 1"),
    }
    for what, (text, msg) in bad.items():
        open(os.path.join(state, "state.json"), "w").write(text)
        err = run("state_bad", "0")
        check(msg in err and "allocations refused" in err, f"{what}: message {err!r}")
    os.chmod(os.path.join(state, "state.json"), 0)
    if os.geteuid() != 0:  # root reads a file of mode 0 anyway
        err = run("state_bad", "0")
        check("cannot be read" in err, f"unreadable: {err!r}")
    print(f"limiter.state: {'FAILED' if failures else 'ok'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
