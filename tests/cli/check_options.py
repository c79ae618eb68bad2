#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command line: global options before or after the command name, refused where
they mean nothing, axl --version / -V, axl help COMMAND and COMMAND --help.

usage: check_options.py --list
       check_options.py --axl AXL --work DIR --case NAME
"""

import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.path.join(os.path.dirname(HERE), "sim")
H100 = os.path.join(SIM, "h100x2.json")
MIXED = os.path.join(SIM, "mixed.json")

# (command words, extra words after them): every command that reads a node
NODE_COMMANDS = [
    (["list"], []), (["list"], ["--all"]), (["show"], ["nvidia:0"]), (["topo"], []),
    (["cdi", "list"], []), (["labels"], []), (["limit", "list"], []), (["limit", "env"], ["nvidia:0"]),
    (["partition", "list"], []), (["partition", "profiles"], ["nvidia:0"]),
    (["plan"], ["meta-llama/Llama-3.2-1B", "--ctx", "4096"]),
]
JSON_COMMANDS = [
    (["list"], []), (["show"], ["nvidia:0"]), (["topo"], []), (["limit", "list"], []),
    (["partition", "list"], []), (["partition", "profiles"], ["nvidia:0"]), (["cdi", "list"], []),
    (["plan"], ["meta-llama/Llama-3.2-1B"]), (["plan"], ["--list"]), (["metrics"], []),
]
ALL_COMMANDS = ["list", "show", "topo", "capture", "metrics", "serve", "top", "cdi", "labels", "limit",
                "partition", "plan", "version", "help"]


class Ctx:
    def __init__(self, axl, work):
        self.axl = axl
        os.makedirs(work, exist_ok=True)
        self.work = tempfile.mkdtemp(dir=work)
        self.env = dict(os.environ, AXL_STATE_DIR=os.path.join(self.work, "state"))
        for k in ("AXL_SIM", "AXL_SYSROOT", "AXL_BACKENDS", "CUDA_VISIBLE_DEVICES"):
            self.env.pop(k, None)

    def run(self, *args):
        p = subprocess.run([self.axl] + list(args), env=self.env, capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def same(c, before, after, what):
    a, b = c.run(*before), c.run(*after)
    check(a == b, "%s: %s and %s differ:\n%r\n%r" % (what, before, after, a, b))
    return a


def case_node_options(c):
    """--sim, --sysroot, --backends, --env: the same answer before and after the command."""
    empty = os.path.join(c.work, "empty-root")
    os.makedirs(empty, exist_ok=True)
    for words, extra in NODE_COMMANDS:
        rc, out, err = same(c, ["--sim", H100] + words + extra, words + extra + ["--sim", H100],
                            "--sim " + " ".join(words))
        check(rc == 0, "%s on the sim: rc %d: %s" % (words, rc, err))
        same(c, ["--sim=" + H100] + words + extra, words + ["--sim=" + H100] + extra, "--sim= " + " ".join(words))
        # a sysroot with nothing in it: the same (empty or refused) answer either way
        same(c, ["--sysroot", empty] + words + extra, words + extra + ["--sysroot", empty],
             "--sysroot " + " ".join(words))
        same(c, ["--sysroot", empty, "--backends", "-nvidia"] + words + extra,
             words + extra + ["--backends", "-nvidia", "--sysroot", empty], "--backends " + " ".join(words))
    # --env has an effect (so the comparison above is not vacuous): nvidia:1 is hidden
    rc, out, err = same(c, ["--sim", H100, "--env", "CUDA_VISIBLE_DEVICES=0", "list"],
                        ["list", "--env", "CUDA_VISIBLE_DEVICES=0", "--sim", H100], "--env list")
    check(rc == 0 and "hidden" in out and out.count("hidden") == 1, out)
    # the planner on the simulated node given after the model (issue: refused before)
    rc, out, err = c.run("plan", "meta-llama/Llama-3.1-8B", "--sim", MIXED, "--json")
    check(rc == 0, "plan MODEL --sim: %d %s" % (rc, err))
    check(json.loads(out)["schema"] == "axl.plan", out[:200])


def case_json_options(c):
    """--json and --compact before and after every command that prints a document."""
    for words, extra in JSON_COMMANDS:
        if words == ["metrics"]:  # values move between samples: check the shape only
            for args in (["--sim", H100, "--json"] + words, words + ["--sim", H100, "--json"]):
                rc, out, err = c.run(*args)
                check(rc == 0 and json.loads(out)["schema"] == "axl.metrics", (args, rc, err))
            continue
        sim = [] if extra == ["--list"] else ["--sim", H100]
        rc, out, err = same(c, sim + ["--json"] + words + extra, words + extra + ["--json"] + sim,
                            "--json " + " ".join(words + extra))
        check(rc == 0, "%s --json: %d %s" % (words + extra, rc, err))
        json.loads(out)
        rc, out, err = same(c, sim + ["--compact"] + words + extra, words + extra + sim + ["--compact"],
                            "--compact " + " ".join(words + extra))
        check(rc == 0, "%s --compact: %d %s" % (words + extra, rc, err))
        json.loads(out)


def case_refused(c):
    """A global option that means nothing to a command is refused, naming it."""
    for args, opt in ((["top", "--json"], "--json"), (["serve", "--compact"], "--compact"),
                      (["labels", "--json"], "--json"), (["capture", "--json"], "--json"),
                      (["version", "--sim", H100], "--sim"), (["--sysroot", "/", "version"], "--sysroot"),
                      (["capture", "--env", "CUDA_VISIBLE_DEVICES=0"], "--env"),
                      (["plan", "--list", "--sim", H100], "--sim"),
                      (["plan", "m", "--node", "x.json", "--sysroot", "/"], "--sysroot")):
        rc, out, err = c.run(*args)
        check(rc == 2 and opt in err and not out, "%s: rc %d, out %r, err %r" % (args, rc, out, err))
    for args in (["partition", "destroy", "x"], ["partition", "cleanup"], ["partition", "mode", "a", "b", "c"],
                 ["limit", "set", "nvidia:0", "--memory", "1G"], ["limit", "clear", "nvidia:0"],
                 ["limit", "env", "nvidia:0"]):
        rc, out, err = c.run("--sim", H100, "--json", *args)
        check(rc == 2 and "--json" in err and not out, "%s --json: rc %d, out %r, err %r" % (args, rc, out, err))
    # a command's own option given to another command, before or after its name
    for args, opt, owner in ((["list", "--interval", "5"], "--interval", "axl metrics"),
                             (["--interval", "5", "list"], "--interval", "axl metrics"),
                             (["show", "nvidia:0", "--gfd"], "--gfd", "axl labels"),
                             (["--batch", "metrics"], "--batch", "axl top"),
                             (["--all", "plan", "m"], "--all", "axl list"),
                             (["cdi", "list", "--listen", "x"], "--listen", "axl serve")):
        rc, out, err = c.run("--sim", H100, *args)
        check(rc == 2 and opt in err and owner in err and not out, "%s: rc %d, out %r, err %r" % (args, rc, out, err))
    rc, out, err = c.run("capture", "--sim", H100)
    check(rc == 2 and "simulated" in err, err)
    rc, out, err = c.run("list", "--sim")
    check(rc == 2 and "--sim needs a value" in err, err)
    rc, out, err = c.run("list", "--json=yes")
    check(rc == 2 and "takes no value" in err, err)
    rc, out, err = c.run("list", "--sim", H100, "--sysroot", "/")
    check(rc == 2 and "exclude" in err, err)


def case_version(c):
    want = c.run("version")
    check(want[0] == 0 and want[1].startswith("axl ") and "libaxl" in want[1], want)
    for args in (["--version"], ["-V"]):
        check(c.run(*args) == want, "%s differs from axl version: %r" % (args, c.run(*args)))


def case_help(c):
    rc, out, err = c.run("help")
    check(rc == 0 and "commands:" in out, (rc, err))
    check(c.run("--help") == (rc, out, err) and c.run("-h") == (rc, out, err), "axl --help differs from axl help")
    for cmd in ALL_COMMANDS:
        rc, out, err = c.run("help", cmd)
        check(rc == 0 and out.startswith("usage: axl " + cmd) and not err, "help %s: %d %r %r" % (cmd, rc, out[:80], err))
        check(cmd in [line.split()[0] for line in c.run("help")[1].splitlines() if line.startswith("  ") and line.split()],
              "axl help does not list " + cmd)
        if cmd != "help":
            check(c.run(cmd, "--help") == (rc, out, err), "axl %s --help differs from axl help %s" % (cmd, cmd))
            check(c.run("-h", cmd) == (rc, out, err), "axl -h %s differs from axl help %s" % (cmd, cmd))
    check(c.run("plan", "some-model", "--help")[1] == c.run("help", "plan")[1], "plan MODEL --help")
    rc, out, err = c.run("help", "nosuch")
    check(rc == 2 and "nosuch" in err, err)
    rc, out, err = c.run("nosuch")
    check(rc == 2 and "unknown command" in err, err)


def case_no_accelerators(c):
    """A node without accelerators: one line on standard error says what to try next;
    standard output stays the table or the document."""
    empty = os.path.join(c.work, "empty-root")
    os.makedirs(empty, exist_ok=True)
    rc, out, err = c.run("list", "--sysroot", empty)
    check(rc == 0 and "(no accelerators found)" in out, (rc, out, err))
    hint = [line for line in err.splitlines() if "no accelerators" in line]
    check(len(hint) == 1 and "axl list --all" in hint[0] and "--sim" in hint[0], err)
    rc, out, err = c.run("list", "--sysroot", empty, "--json")
    check(rc == 0 and json.loads(out)["devices"] == [], out)
    check("axl list --all" in err and "--sim" in err, err)
    rc, out, err = c.run("list", "--sysroot", empty, "--all")
    check(rc == 0 and "--sim" in err and "axl list --all" not in err, err)
    rc, out, err = c.run("list", "--sim", H100)
    check(rc == 0 and "no accelerators" not in err, err)


def case_garbage(c):
    """Arbitrary command lines (a fixed seed): a clear exit code (0, 1 or 2) and never a
    crash, whatever the order, repetition or values of the words."""
    import random
    rnd = random.Random(12)
    words = ["list", "show", "topo", "metrics", "cdi", "labels", "limit", "partition", "plan", "help",
             "version", "nvidia:0", "set", "list", "env", "create", "1g.10gb", "--json", "--compact", "--all",
             "--timing", "--sim", H100, "--sysroot", "--env", "CUDA_VISIBLE_DEVICES=1", "=", "--backends", "-nvidia",
             "--interval", "0", "--count", "-1", "--", "-", "", "--help", "-h", "-V", "--version", "--output",
             "--format", "yaml", "--memory", "1G", "--compute", "101", "--quant", "int4", "--ctx", "x",
             "--node", "--here", "--list", "--json=1", "--sim=", "\xff\x01", "a" * 300]
    for _ in range(150):
        argv = [rnd.choice(words) for _ in range(rnd.randint(0, 7))]
        if "top" in argv or "serve" in argv or ("--interval" in argv and "--count" not in argv):
            continue  # the live commands would run until stopped
        p = subprocess.run([c.axl] + argv, env=c.env, capture_output=True, text=True, timeout=60,
                           errors="replace")
        check(p.returncode in (0, 1, 2), "%r: exit %d: %s" % (argv, p.returncode, p.stderr[-500:]))
        check("Sanitizer" not in p.stderr and "runtime error" not in p.stderr, "%r: %s" % (argv, p.stderr[-2000:]))
        if p.returncode:
            check(p.stderr.strip(), "%r: exit %d without a word" % (argv, p.returncode))


CASES = {k[5:]: v for k, v in globals().items() if k.startswith("case_")}


def main():
    if sys.argv[1:] == ["--list"]:
        print(";".join(sorted(CASES)))
        return 0
    args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
    CASES[args["--case"]](Ctx(args["--axl"], args["--work"]))
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
