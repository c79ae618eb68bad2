#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""axl limit set/list/env/clear on synthetic nodes (tests/trees), with an explicit
AXL_STATE_DIR (a --sysroot context keeps no state otherwise), and bad input: a memory
limit above the device's total, compute 0 or 101, unknown devices, malformed sizes,
a malformed state file; each with its exit code and a message.

usage: check_limits.py --axl PATH --work DIR --case NAME   (--list: the cases)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TREES = os.path.join(HERE, "..", "..", "trees")
CASES = ["amd", "nvidia", "bad_input", "rerooted", "state_file", "says"]

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)


def make_tree(work, node, case):
    out = os.path.join(work, "tree-" + case)  # one per case: cases run in parallel
    shutil.rmtree(out, ignore_errors=True)
    spec = os.path.join(TREES, "nodes", node + ".json")
    subprocess.run([sys.executable, os.path.join(TREES, "mktree.py"), spec, out],
                   check=True, stdout=subprocess.DEVNULL)
    return out


class Axl:
    def __init__(self, exe, tree, state):
        self.exe, self.tree, self.state = exe, tree, state

    def __call__(self, *args, state=True):
        env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
        if state:
            env["AXL_STATE_DIR"] = self.state
        r = subprocess.run([self.exe, "limit", *args, "--sysroot", self.tree], env=env,
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stdout, r.stderr


def env_lines(out):
    return dict(line.split("=", 1) for line in out.splitlines() if line)


def case_amd(axl):
    rc, out, err = axl("set", "amdgpu:0", "--memory", "64GiB", "--compute", "50")
    check(rc == 0, f"set amdgpu:0: rc {rc} {err}")
    rc, out, err = axl("set", "amdgpu:1", "--compute", "25")
    check(rc == 0, f"set amdgpu:1: rc {rc} {err}")
    rc, out, err = axl("set", "amdgpu:1", "--memory", "1.5G")  # replaces the earlier one
    check(rc == 0, f"set amdgpu:1 again: rc {rc} {err}")
    rc, out, err = axl("list", "--json")
    check(rc == 0, f"list: rc {rc} {err}")
    doc = json.loads(out)
    lim = {x["device"]: x for x in doc["limits"]}
    check(doc["state_dir"] == axl.state, f"state_dir {doc['state_dir']}")
    check(len(lim) == 2, f"two limits: {lim}")
    check(lim["amdgpu:0"]["memory_bytes"] == 64 << 30 and lim["amdgpu:0"]["compute_percent"] == 50,
          f"amdgpu:0 {lim['amdgpu:0']}")
    check(lim["amdgpu:1"]["memory_bytes"] == 3 << 29 and "compute_percent" not in lim["amdgpu:1"],
          f"amdgpu:1 {lim['amdgpu:1']}")
    check(lim["amdgpu:0"]["uuid"].startswith("GPU-"), "amdgpu:0 has its uuid")
    rc, out, err = axl("list")
    check(rc == 0 and "amdgpu:0" in out and "64.0 GiB" in out and "50%" in out, f"list table: {out}")
    rc, out, err = axl("env", "amdgpu:1,amdgpu:0,amdgpu:5")
    check(rc == 0, f"env: rc {rc} {err}")
    e = env_lines(out)
    check(e.get("AXL_LIMIT_VERSION") == "1", f"version {e}")
    check(e.get("AXL_LIMIT_DEVICES", "").count(",") == 2, f"devices {e}")
    check(e.get("AXL_LIMIT_DEVICES", "").split(",")[1] == lim["amdgpu:0"]["uuid"], f"order {e}")
    check(e.get("AXL_LIMIT_MEMORY_BYTES") == f"{3 << 29},{64 << 30},none", f"memory {e}")
    check(e.get("AXL_LIMIT_COMPUTE_PERCENT") == "none,50,none", f"compute {e}")
    check(not any(k.startswith("CUDA_") for k in e), f"no CUDA variables for AMD: {e}")
    # clear by uuid, then by id; clearing again succeeds
    rc, out, err = axl("clear", lim["amdgpu:0"]["uuid"])
    check(rc == 0, f"clear by uuid: rc {rc} {err}")
    rc, out, err = axl("clear", "amdgpu:1")
    check(rc == 0, f"clear amdgpu:1: rc {rc} {err}")
    rc, out, err = axl("clear", "amdgpu:1")
    check(rc == 0 and "no limits recorded" in err, f"clear again: rc {rc} {err}")
    rc, out, err = axl("list", "--json")
    check(rc == 0 and json.loads(out)["limits"] == [], f"empty at the end: {out}")


def case_nvidia(axl):
    for dev, args in (("nvidia:0", ["--memory", "20GiB", "--compute", "30"]),
                      ("nvidia:1", ["--memory", "10000000B"]),
                      ("nvidia:2", ["--compute", "30"])):
        rc, out, err = axl("set", dev, *args)
        check(rc == 0, f"set {dev}: rc {rc} {err}")
    rc, out, err = axl("env", "nvidia:1,nvidia:0")
    e = env_lines(out)
    check(rc == 0, f"env: rc {rc} {err}")
    check(e.get("CUDA_DEVICE_MEMORY_LIMIT_0") == "10000000", f"memory 0: {e}")
    check(e.get("CUDA_DEVICE_MEMORY_LIMIT_1") == str(20 << 30), f"memory 1: {e}")
    check(e.get("CUDA_DEVICE_SM_LIMIT_1") == "30" and "CUDA_DEVICE_SM_LIMIT_0" not in e, f"sm: {e}")
    check("CUDA_DEVICE_SM_LIMIT" not in e, f"no common SM limit when they differ: {e}")
    rc, out, err = axl("env", "nvidia:0,nvidia:2")
    e = env_lines(out)
    check(rc == 0 and e.get("CUDA_DEVICE_SM_LIMIT") == "30", f"common SM limit: {e}")
    check(e.get("AXL_LIMIT_DEVICES", "").startswith("GPU-"), f"uuids: {e}")
    for dev in ("nvidia:0", "nvidia:1", "nvidia:2"):
        rc, out, err = axl("clear", dev)
        check(rc == 0, f"clear {dev}: rc {rc} {err}")


def case_says(axl):
    """Each command says what it did (issue 34): set what it recorded and replaced, clear
    what it forgot or that there was nothing; list prints memory in GiB/MiB, not bytes."""
    rc, out, err = axl("set", "amdgpu:0", "--memory", "40GiB", "--compute", "50")
    check(rc == 0 and out.startswith("amdgpu:0 (GPU-") and "memory 40.0 GiB, compute 50%" in out
          and "was:" not in out, f"set: {out} {err}")
    rc, out, err = axl("set", "amdgpu:0", "--memory", "1536MiB")
    check(rc == 0 and "memory 1.5 GiB (was: memory 40.0 GiB, compute 50%)" in out, f"set again: {out} {err}")
    rc, out, err = axl("set", "amdgpu:1", "--memory", "512MiB")
    rc, out, err = axl("list")
    check(rc == 0 and "1.5 GiB" in out and "512.0 MiB" in out and str(1536 << 20) not in out
          and str(512 << 20) not in out, f"list in binary units: {out}")
    rc, out, err = axl("list", "--json")
    check(rc == 0 and sorted(x["memory_bytes"] for x in json.loads(out)["limits"]) == [512 << 20, 1536 << 20],
          f"JSON keeps bytes: {out}")
    rc, out, err = axl("clear", "amdgpu:0")
    check(rc == 0 and out.startswith("forgot the limits of amdgpu:0 (GPU-") and "memory 1.5 GiB" in out
          and "amdgpu:1" not in out, f"clear: {out} {err}")
    rc, out, err = axl("clear", "amdgpu:0")
    check(rc == 0 and out == "" and "no limits recorded for amdgpu:0: nothing to clear" in err, f"clear again: {out} {err}")
    rc, out, err = axl("set", "amdgpu:1", "--memory", "300GiB")
    check(rc == 1 and "GiB" in err and "is more than" in err, f"above the total, in GiB: {err}")


def case_bad_input(axl):
    bad = [
        (["set", "amdgpu:0", "--memory", "193GiB"], 1, "is more than"),
        (["set", "amdgpu:0", "--compute", "0"], 2, "out of range (1 to 100)"),
        (["set", "amdgpu:0", "--compute", "101"], 2, "out of range (1 to 100)"),
        (["set", "amdgpu:0", "--memory", "0"], 2, "at least 1B"),
        # a bare number is refused with the fix (issue 34: 40 reads as GB to one user, bytes to the next)
        (["set", "amdgpu:0", "--memory", "40"], 2, "a size needs its unit: 40GiB"),
        (["set", "amdgpu:0", "--memory", "10000000"], 2, "10000000B (bytes)"),
        (["set", "amdgpu:42", "--compute", "10"], 1, "no device 'amdgpu:42'"),
        (["set", "amdgpu:0", "--memory", "12Q"], 2, "'Q' is not a unit of size"),
        (["set", "amdgpu:0", "--memory", "-5"], 2, "is not a size"),
        (["set", "amdgpu:0", "--compute", "ten"], 2, "whole number"),
        (["set", "amdgpu:0"], 2, "--memory SIZE"),
        (["set"], 2, "ID is missing"),
        (["env", "amdgpu:0,nope:1"], 1, "no device 'nope:1'"),
        (["frobnicate", "amdgpu:0"], 2, "no subcommand 'frobnicate'"),
        (["sett", "amdgpu:0"], 2, "did you mean set?"),
        (["list", "extra"], 2, "unexpected argument 'extra'"),
        (["clear", "amdgpu:0", "--memory", "1G"], 2, "but of axl limit set"),
        ([], 2, "which one? set, clear, list or env"),
    ]
    for args, want_rc, msg in bad:
        rc, out, err = axl(*args)
        check(rc == want_rc and msg in err, f"{args}: rc {rc} (want {want_rc}), stderr {err!r}")
    rc, out, err = axl("list", "--json")
    check(rc == 0 and json.loads(out)["limits"] == [], "nothing recorded by the refused commands")


def case_rerooted(axl):
    # a --sysroot context without AXL_STATE_DIR refuses to write and lists nothing
    rc, out, err = axl("set", "amdgpu:0", "--compute", "10", state=False)
    check(rc == 1 and "AXL_STATE_DIR" in err, f"re-rooted set: rc {rc} {err}")
    rc, out, err = axl("list", "--json", state=False)
    check(rc == 0 and json.loads(out) == {"schema": "axl.limits", "schema_version": 1, "state_dir": None,
                                          "limits": []}, f"re-rooted list: {out}")
    check(not os.path.exists(axl.state), "no state directory was made")


def case_state_file(axl):
    os.makedirs(axl.state, mode=0o700, exist_ok=True)
    with open(os.path.join(axl.state, "state.json"), "w") as f:
        f.write('{\n"schema": "axl.state",\n"schema_version": 1,\n"limits": [\n'
                '{"device": "amdgpu:0", "compute_percent": "50"}\n]\n}\n')
    rc, out, err = axl("list")
    check(rc == 1 and "state.json:5: limits[0].compute_percent: must be an integer from 1 to 100" in err,
          f"malformed: rc {rc} {err}")
    rc, out, err = axl("set", "amdgpu:1", "--compute", "10")
    check(rc == 1 and "state.json:5" in err, f"a writer refuses too: rc {rc} {err}")
    os.unlink(os.path.join(axl.state, "state.json"))
    # a stale temporary file of a writer that died is ignored, then removed
    with open(os.path.join(axl.state, "state.json.tmp-99999"), "w") as f:
        f.write("{garbage")
    rc, out, err = axl("set", "amdgpu:1", "--compute", "10")
    check(rc == 0, f"set with a stale temporary file: rc {rc} {err}")
    check(not os.path.exists(os.path.join(axl.state, "state.json.tmp-99999")), "stale file removed")
    check(os.stat(axl.state).st_mode & 0o777 == 0o700, "state directory is 0700")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    os.makedirs(a.work, exist_ok=True)
    node = "hgx-8x-h100" if a.case == "nvidia" else "mi300x-8x"
    tree = make_tree(a.work, node, a.case)
    state = os.path.join(a.work, "state-" + a.case)
    shutil.rmtree(state, ignore_errors=True)
    globals()["case_" + a.case](Axl(a.axl, tree, state))
    print(f"{a.case}: {'FAILED' if failures else 'ok'} ({len(failures)} failures)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
