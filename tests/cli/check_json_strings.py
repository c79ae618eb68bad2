#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Strings the command writes into its own documents (not libaxl's) that hold invalid
UTF-8 and control characters: the documents are still UTF-8 JSON, the bytes escaped as
util's writer escapes them (an invalid byte is U+FFFD, a control character \\uXXXX or
\\n \\t \\r, DEL \\u007f). The command's old writer passed invalid UTF-8 through, so these
documents were not JSON (docs/internals/conventions.md: one JSON writer).

  limits   axl limit list --json under a state directory whose name holds them
  cdi      axl cdi generate (JSON and YAML) and cdi list --json on a node with a vendor
           library whose file name holds them

usage: check_json_strings.py --list
       check_json_strings.py --axl AXL --work DIR --case NAME
"""

import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
H100 = os.path.join(TESTS, "sim", "h100x2.json")
MKTREE = os.path.join(TESTS, "trees", "mktree.py")
HGX = os.path.join(TESTS, "trees", "nodes", "hgx-8x-h100.json")

# an invalid byte, control characters, DEL, a quote, a backslash and valid UTF-8
ODD = b"\xff\x01\x1f\x7f\"\\\n\t\xc3\xa9"
# what util's writer makes of ODD, as the decoded JSON string
ODD_TEXT = "\ufffd\x01\x1f\x7f\"\\\n\t\u00e9"


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def env_for(work):
    env = dict(os.environ)
    for k in ("AXL_SIM", "AXL_SYSROOT", "AXL_BACKENDS", "AXL_STATE_DIR", "CUDA_VISIBLE_DEVICES",
              "NVIDIA_VISIBLE_DEVICES"):
        env.pop(k, None)
    env["AXL_NVML_LIBRARY"] = os.path.join(work, "no-libnvidia-ml.so.1")
    return env


def run(axl, args, env):
    p = subprocess.run([axl] + args, env=env, capture_output=True, timeout=120)
    check(p.returncode == 0, "axl %r: exit %d: %r" % (args, p.returncode, p.stderr[-500:]))
    return p.stdout


def document(out, what):
    """The bytes as a JSON document: strict UTF-8 first (json.loads of bytes would guess)."""
    try:
        text = out.decode("utf-8")
    except UnicodeDecodeError as e:
        raise AssertionError("%s: not UTF-8 (%s): %r" % (what, e, out[max(0, e.start - 40):e.end + 40]))
    try:
        return json.loads(text)
    except ValueError as e:
        raise AssertionError("%s: not JSON (%s)" % (what, e))


def case_limits(axl, work):
    state = os.path.join(os.fsencode(work), b"state" + ODD)
    os.makedirs(state, mode=0o700)
    # the environment as bytes: the directory's name is not text
    env = {os.fsencode(k): os.fsencode(v) for k, v in env_for(work).items()}
    env[b"AXL_STATE_DIR"] = state
    run(axl, ["--sim", H100, "limit", "set", "nvidia:0", "--memory", "1GiB"], env)
    d = document(run(axl, ["--sim", H100, "limit", "list", "--json"], env), "limit list --json")
    check(d["state_dir"] == os.fsdecode(work) + "/state" + ODD_TEXT, "state_dir %r" % d["state_dir"])
    check([x["device"] for x in d["limits"]] == ["nvidia:0"], d["limits"])


def case_cdi(axl, work):
    root = os.path.join(work, "hgx")
    subprocess.run([sys.executable, MKTREE, HGX, root], check=True, stdout=subprocess.DEVNULL)
    lib = os.path.join(os.fsencode(root), b"usr/lib/x86_64-linux-gnu")
    os.makedirs(lib)
    open(os.path.join(lib, b"libcuda.so.1" + ODD), "w").close()
    env = env_for(work)
    spec = document(run(axl, ["--sysroot", root, "cdi", "generate"], env), "cdi generate")
    paths = [m["hostPath"] for m in spec.get("containerEdits", {}).get("mounts", [])]
    want = "/usr/lib/x86_64-linux-gnu/libcuda.so.1" + ODD_TEXT
    check(want in paths, "the library's path %r in %r" % (want, paths))
    try:
        import yaml
    except ImportError:
        yaml = None
    if yaml:
        out = run(axl, ["--sysroot", root, "cdi", "generate", "--format", "yaml"], env)
        check([d for d in yaml.safe_load_all(out.decode("utf-8")) if d is not None] == [spec], "YAML is the JSON")
    names = document(run(axl, ["--sysroot", root, "cdi", "list", "--json"], env), "cdi list --json")
    check(names and all(n.startswith("axl.dev/nvidia-gpu=") for n in names), names)


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    if sys.argv[1:] == ["--list"]:
        print(";".join(sorted(CASES)))
        return 0
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    work = os.path.join(os.path.abspath(args["--work"]), args["--case"])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    CASES[args["--case"]](os.path.abspath(args["--axl"]), work)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
