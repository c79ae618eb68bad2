#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command line: global options before or after the command name, refused where
they mean nothing, axl --version / -V, axl help COMMAND and COMMAND --help printed from each
command's option table (src/cli/opt.h), units on every size, rate and duration, and one line
with a "did you mean" for a mistyped command, subcommand or option.

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
ALL_COMMANDS = ["list", "show", "topo", "capture", "metrics", "serve", "top", "cdi", "labels", "agent",
                "device-plugin", "limit", "partition", "plan", "bench", "version", "help"]


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
    check(rc == 2 and "no command 'nosuch'" in err and len(err.splitlines()) == 1, err)
    # every line of every help fits 80 columns; every option of a command's usage is
    # described below it
    import re
    for cmd in [None] + ALL_COMMANDS:
        out = c.run("help", *([cmd] if cmd else []))[1]
        for line in out.splitlines():
            check(len(line) <= 80, "axl help %s: a line of %d columns: %r" % (cmd or "", len(line), line))
        if cmd:
            usage = out.split("\n\n")[0]
            for opt in set(re.findall(r"\[--([a-z][a-z0-9-]*)", usage)):
                check(re.search(r"^  (-., )?--%s\b" % opt, out, re.M), "axl help %s: --%s not described" % (cmd, opt))


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


def one_line(c, args, *want):
    rc, out, err = c.run(*args)
    check(rc == 2 and not out, "%s: rc %d, out %r" % (args, rc, out))
    check(len(err.splitlines()) == 1, "%s: more than one line: %r" % (args, err))
    for w in want:
        check(w in err, "%s: %r not in %r" % (args, w, err))
    return err


def case_typos(c):
    """A mistyped command, subcommand or option: one line naming it, the near one, and where
    the usage is (not the whole help)."""
    one_line(c, ["lst"], "'lst'", "did you mean list?", "axl help")
    one_line(c, ["lsit", "--sim", H100], "did you mean list?")
    one_line(c, ["devcie-plugin"], "did you mean device-plugin?")
    one_line(c, ["list", "--min-mem", "40GiB", "--sim", H100], "'--min-mem'", "did you mean --min-memory?",
             "(axl help list)")
    one_line(c, ["list", "--familly", "gpu", "--sim", H100], "did you mean --family?")
    one_line(c, ["metrics", "--interval=1s", "--cont", "2", "--sim", H100], "did you mean --count?")
    one_line(c, ["cdi", "generat", "--sim", H100], "no subcommand 'generat'", "did you mean generate?", "(axl help cdi)")
    one_line(c, ["cdi", "--sim", H100], "generate", "list", "(axl help cdi)")
    one_line(c, ["cdi", "generate", "--fromat", "yaml", "--sim", H100], "did you mean --format?")
    one_line(c, ["--jsn", "list"], "did you mean --json?")
    # an option of another command: named, with the commands that take it
    one_line(c, ["list", "--listen", "x", "--sim", H100], "--listen", "axl serve", "axl agent")
    # nothing near: no guess
    err = one_line(c, ["list", "--zzzzzz", "--sim", H100], "unknown option '--zzzzzz'")
    check("did you mean" not in err, err)
    # a bad value of a fixed set names the set
    one_line(c, ["list", "--best", "speed", "--sim", H100], "memory|bandwidth|compute", "'speed'")
    one_line(c, ["cdi", "generate", "--format", "xml", "--sim", H100], "json|yaml")


def case_units(c):
    """Every size, rate and duration takes a unit; a bare number is refused with the fix."""
    for args, want in (
            (["list", "--min-memory", "40"], ["--min-memory 40", "40GiB", "40GB"]),
            (["metrics", "--interval", "500"], ["--interval 500", "500ms", "500s"]),
            (["top", "--batch", "--interval", "100", "--count", "1"], ["--interval 100", "100ms"]),
            (["labels", "--watch", "--interval", "60", "-o", os.path.join(c.work, "l.txt")], ["--interval 60", "60s"]),
            (["cdi", "generate", "--watch", "--interval", "60"], ["--interval 60", "60s"]),
            (["agent", "--labels-file", os.path.join(c.work, "l.txt"), "--interval", "60"], ["--interval 60", "60s"]),
            (["device-plugin", "--interval", "1"], ["--interval 1", "1s"]),
            (["device-plugin", "--health-recovery", "300"], ["--health-recovery 300", "300s"]),
            (["bench", "copy", "--size", "4096"], ["--size 4096", "4096B", "4096GiB"]),
            (["plan", "meta-llama/Llama-3.2-1B", "--network", "400"], ["--network 400", "400Gb/s", "400GB/s"])):
        one_line(c, args + ["--sim", H100], *want)
    # the units say what they mean: 40GiB is 2^30 bytes per GiB, 40GB 10^9, K/M/G/T alone binary
    def min_bytes(v):
        rc, out, err = c.run("list", "--sim", H100, "--min-memory", v, "--json")
        check(rc == 0, (v, rc, err))
        return json.loads(out)["selection"]["filter"]["min_memory_bytes"]
    for v, b in (("40GiB", 40 << 30), ("40GB", 40 * 10**9), ("40gb", 40 * 10**9), ("1.5G", 3 << 29),
                 ("512MiB", 512 << 20), ("4096B", 4096), ("1TiB", 1 << 40)):
        check(min_bytes(v) == b, "--min-memory %s: %d bytes, want %d" % (v, min_bytes(v), b))
    for v, why in (("12XB", "not a unit of size"), ("40Gb/s", "not a unit of size"), ("GiB", "not a size"),
                   ("-1GiB", "not a size")):
        one_line(c, ["list", "--sim", H100, "--min-memory", v], why)
    # durations: units and compounds; out of range says the range in units
    rc, out, err = c.run("metrics", "--sim", H100, "--interval", "1ms", "--count", "2", "--json", "--no-processes")
    check(rc == 0 and len(out.splitlines()) == 2, (rc, err))
    one_line(c, ["metrics", "--sim", H100, "--interval", "0"], "out of range (1ms to 1d)")
    one_line(c, ["metrics", "--sim", H100, "--interval", "2d"], "out of range (1ms to 1d)")
    one_line(c, ["metrics", "--sim", H100, "--interval", "5x"], "not a unit of time")
    one_line(c, ["metrics", "--sim", H100, "--count", "0"], "must be at least 1")
    one_line(c, ["bench", "copy", "--sim", H100, "--size", "2TiB"], "out of range (1B to 1TiB)")
    # rates: bits and bytes told apart by the b
    for v, gbps in (("400Gb/s", 50), ("50GB/s", 50), ("400Gbit/s", 50), ("100Gbps", 12.5)):
        rc, out, err = c.run("plan", "meta-llama/Llama-3.2-1B", "--sim", H100, "--network", v, "--json")
        check(rc == 0, (v, rc, err))
        doc = json.loads(out)
        f = doc["estimate"]["factors"]
        check(abs(f["network_gbps"] - gbps) < 1e-9 and f["network_source"] == "as given", "--network %s: %r" % (v, f))


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
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
