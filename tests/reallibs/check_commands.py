#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Real libraries, no device (issue 33 item 6): with Debian's NVIDIA, AMD and Intel
user-space installed and no accelerator, every command behaves as on a bare machine.

Each command runs twice on this machine: as it is, beside the vendors' real libraries,
and on the same machine without them (userspace.Bare: a private mount namespace whose
overlays hide every file the vendor packages installed, so the dynamic loader finds no
libcuda.so.1, as on a machine that never had it). For every run:
 - nothing hangs: each run has a deadline (60 s; the daemons run 2 s, then SIGTERM);
 - the exit status is the bare machine's;
 - standard output is the bare machine's: equal, or, where it holds measurements or
   times (metrics, top, bench copy, serve's /metrics), equal once every number and time
   is taken out; CDI specs (cdi generate, a simulated or captured node's) differ only by
   mounts of the vendors' files that are installed here (that is their job), each a
   file the bare machine hides;
 - standard error is the bare machine's (no note of the real libraries' own), and a
   one-shot command writes at most one line there (its one note).
Cases, each its own test (reallibs.<case>):
 - live: this node (no accelerator): list, list --json, show, metrics (text, JSON),
   top --batch, cdi generate, cdi list, labels, bench copy, serve (/metrics, /healthz,
   /inventory), device-plugin (no kubelet: it waits, SIGTERM ends it);
 - sim: the same on tests/sim/h100x2.json, mi300x8.json and mixed.json;
 - capture: the same on captures (axl capture --sysroot) of the hgx-8x-h100,
   mi300x-8x and xe-desktop-b580 trees (tests/trees/nodes; the last two warn about
   damage in their own files, on a bare machine the same, so only hgx-8x-h100 is held to
   one line);
 - python: the Backend.AI plugins' init (every backendai_accelerator_v21 entry point of
   python/pyproject.toml: devices and resource spec), on this node and on the sims, and
   axl.exo's factory (get_gpu_backend_info, detect_available_backends).
Exit 77 (skip) when no vendor library is installed (nothing to compare: say which), or
when the bare machine cannot be made here (not root, no overlayfs); the libraries that
are not installed are named, with what is not exercised without them.

usage: check_commands.py --axl AXL --lib LIBAXL --case live|sim|capture|python (--list)
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import userspace  # noqa: E402

CASES = ["live", "sim", "capture", "python"]
SIMS = ["h100x2.json", "mi300x8.json", "mixed.json"]
# the trees captured, and whether each reads without a warning of its own (mi300x-8x's
# and xe-desktop-b580's files have damage the tests of warnings use)
TREES = [("hgx-8x-h100.json", True), ("mi300x-8x.json", False), ("xe-desktop-b580.json", False)]
DEADLINE = 60
SKIP = 77

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


class Runs:
    """runs argv both ways: real (this machine) and bare (userspace.Bare)"""

    def __init__(self, bare, env):
        self.bare = bare
        self.env = env

    def ld_env(self, mode):
        """the environment of a run: beside the real libraries, with the dynamic loader's
        log of the files it loads (LD_DEBUG=files) in a folder of its own"""
        if mode == "bare":
            return self.env, None
        d = tempfile.mkdtemp(prefix="axl-ld-")
        return dict(self.env, LD_DEBUG="files", LD_DEBUG_OUTPUT=os.path.join(d, "ld")), d

    def one(self, argv, mode, timeout=DEADLINE):
        a = self.bare.argv(argv) if mode == "bare" else argv
        env, ld = self.ld_env(mode)
        t0 = time.monotonic()
        try:
            r = subprocess.run(a, capture_output=True, text=True, timeout=timeout, env=env)
            res = r.returncode, r.stdout, r.stderr, time.monotonic() - t0
        except subprocess.TimeoutExpired:
            res = None, "", "", timeout
        self.loaded = loaded_files(ld)
        return res

    def both(self, argv, timeout=DEADLINE):
        real = self.one(argv, "real", timeout)
        loaded = self.loaded
        return real, self.one(argv, "bare", timeout), loaded


def loaded_files(d):
    """the files the dynamic loader loaded, from its LD_DEBUG=files log in folder d (which
    goes): "file=NAME [N];  generating link map" and "calling init: PATH" """
    if d is None:
        return set()
    out = set()
    for n in os.listdir(d):
        with open(os.path.join(d, n), errors="replace") as f:
            for line in f:
                m = re.search(r"file=(\S+) \[\d+\];\s+generating link map", line)
                if m:
                    out.add(m.group(1))
                elif "calling init: " in line:
                    out.add(line.split("calling init: ", 1)[1].strip())
    shutil.rmtree(d, ignore_errors=True)
    return out


NUM = re.compile(r"-?[0-9][0-9.:eE+-]*")
ISO = re.compile(r"\d{4}-\d\d-\d\dT[0-9:.]+Z")


def text_shape(s):
    """text with every number (and time of day) and run of blanks taken out"""
    return [re.sub(r"\s+", " ", NUM.sub("#", ISO.sub("T", line))).strip() for line in s.splitlines()]


def json_shape(doc):
    """a document with every number replaced by its type and every time by T"""
    if isinstance(doc, dict):
        return {k: json_shape(v) for k, v in doc.items() if k not in ("timestamp", "time")}
    if isinstance(doc, list):
        return [json_shape(v) for v in doc]
    if isinstance(doc, bool) or doc is None:
        return doc
    if isinstance(doc, (int, float)):
        return "number"
    if isinstance(doc, str):
        return ISO.sub("T", doc)
    return doc


def loads(s):
    try:
        return json.loads(s)
    except ValueError:
        return None


def json_lines(s):
    out = []
    for line in s.splitlines():
        d = loads(line)
        out.append(d if d is not None else line)
    return out


class Hidden:
    """the files the bare machine hides (and where links lead): a CDI mount of one is
    the installed user-space's"""

    def __init__(self, files):
        self.paths = set(files) | {os.path.realpath(f) for f in files}
        self.names = {os.path.basename(p) for p in self.paths}

    def __contains__(self, p):
        return p in self.paths or os.path.realpath(p) in self.paths

    def loaded(self, files):
        """which of the files a process loaded (paths, or the names asked for) are the
        vendors'"""
        return sorted(f for f in files if ((f in self) if "/" in f else f in self.names))


def strip_vendor_mounts(doc, hidden, removed):
    """doc without the mounts whose host path is a hidden file (each counted in removed)"""
    if isinstance(doc, dict):
        out = {}
        for k, v in doc.items():
            if k == "mounts" and isinstance(v, list):
                keep = []
                for m in v:
                    if isinstance(m, dict) and isinstance(m.get("hostPath"), str) and m["hostPath"] in hidden:
                        removed.append(m["hostPath"])
                    else:
                        keep.append(strip_vendor_mounts(m, hidden, removed))
                if keep:
                    out[k] = keep
            else:
                out[k] = strip_vendor_mounts(v, hidden, removed)
        return out
    if isinstance(doc, list):
        return [strip_vendor_mounts(v, hidden, removed) for v in doc]
    return doc


def compare(tag, real, bare, loaded, hidden, how="equal", oneshot=True, subst=None):
    """check one command's two runs; how: equal, text (numbers out), json (numbers out),
    jsonl (one document a line, numbers out), cdi (vendor mounts aside); loaded: the
    files the real run's processes loaded, none of which may be a vendor's (no device
    here, and a simulated or captured node is never this machine's)"""
    (rc1, o1, e1, t1), (rc2, o2, e2, t2) = real, bare
    vendor = hidden.loaded(loaded)
    check(not vendor, "%s: loaded the vendors' %s without a device of theirs" % (tag, ", ".join(vendor)))
    if subst:
        o1, e1, o2, e2 = (subst(x) for x in (o1, e1, o2, e2))
    if not check(rc1 is not None, "%s: no end within %d s beside the real libraries (a hang)" % (tag, DEADLINE)):
        return
    if not check(rc2 is not None, "%s: no end within %d s on the bare machine" % (tag, DEADLINE)):
        return
    check(rc1 == rc2, "%s: exit %d beside the real libraries, %d bare; stderr %r" % (tag, rc1, rc2, e1[-400:]))
    note = ""
    if how == "equal":
        check(o1 == o2, "%s: other output than bare: %r vs %r" % (tag, o1[:300], o2[:300]))
    elif how == "text":
        check(text_shape(o1) == text_shape(o2), "%s: other output than bare (numbers aside): %r vs %r"
              % (tag, o1[:300], o2[:300]))
    elif how == "json":
        d1, d2 = loads(o1), loads(o2)
        check(d1 is not None and json_shape(d1) == json_shape(d2), "%s: other document than bare (numbers aside)"
              % tag)
    elif how == "jsonl":
        check(json_shape(json_lines(o1)) == json_shape(json_lines(o2)), "%s: other documents than bare" % tag)
    elif how == "cdi":
        d1, d2 = loads(o1), loads(o2)
        extra = []
        s1 = strip_vendor_mounts(d1, hidden, extra) if d1 is not None else o1
        s2 = strip_vendor_mounts(d2, hidden, []) if d2 is not None else o2
        check(s1 == s2, "%s: other specs than bare beyond mounts of the installed vendor files" % tag)
        check(d2 is None or s2 == d2, "%s: the bare machine's specs mount a hidden file" % tag)
        if extra:
            note = "; +%d mounts of the installed user-space (%s)" % (
                len(extra), ", ".join(sorted({os.path.basename(p) for p in extra})))
    check(e1 == e2, "%s: stderr beside the real libraries %r, bare %r" % (tag, e1[-600:], e2[-600:]))
    if oneshot:
        lines = [ln for ln in e1.splitlines() if ln.strip()]
        check(len(lines) <= 1, "%s: %d lines on stderr (at most one note): %r" % (tag, len(lines), e1[-600:]))
    took = "" if t1 is None else " (%.3f s; bare %.3f s, with its namespace's mounts)" % (t1, t2)
    print("%-58s exit %s, as on a bare machine%s%s" % (tag, rc1, note, took))


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def get(url, deadline):
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status, r.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                return None, ""
            time.sleep(0.05)


def metric_shape(text):
    """the series of a Prometheus page: names and labels, values and times out"""
    out = []
    for line in text.splitlines():
        if line.startswith("#"):
            out.append(line)
        elif line.strip():
            out.append(re.sub(r"\s+\S+(\s+\S+)?$", "", NUM.sub("#", line) if "{" not in line else
                              line[:line.rindex("}") + 1] + " #"))
    return out


def daemon(runs, argv, mode, work, during=None, secs=2.0):
    """argv in mode for secs (during(deadline) runs meanwhile), then SIGTERM: (rc, stdout,
    stderr, what during returned)"""
    a = runs.bare.argv(argv) if mode == "bare" else argv
    env, ld = runs.ld_env(mode)
    with open(os.path.join(work, "daemon-%s.err" % mode), "a+") as err:
        err.truncate(0)
        p = subprocess.Popen(a, stdout=subprocess.PIPE, stderr=err, text=True, env=env)
        got = None
        try:
            t0 = time.monotonic()
            if during:
                got = during(t0 + 15)
            left = secs - (time.monotonic() - t0)
            if left > 0:
                time.sleep(left)
            rc = p.poll()
            if rc is None:
                p.send_signal(signal.SIGTERM)
                try:
                    out, _ = p.communicate(timeout=DEADLINE)
                    rc = p.returncode
                except subprocess.TimeoutExpired:
                    p.kill()
                    out, _ = p.communicate()
                    rc = None
            else:
                out, _ = p.communicate()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        err.seek(0)
        runs.loaded = loaded_files(ld)
        return rc, out, err.read(), got


def serve_case(runs, axl, node, tag, work, hidden):
    res = {}
    loaded = set()
    for mode in ("real", "bare"):
        port = free_port()

        def scrape(deadline, port=port):
            base = "http://127.0.0.1:%d" % port
            return [get(base + p, deadline) for p in ("/healthz", "/metrics", "/inventory")]
        rc, out, err, pages = daemon(runs, [axl, "serve", "--listen", "127.0.0.1:%d" % port] + node, mode, work,
                                     scrape)
        err = err.replace(str(port), "PORT")
        res[mode] = (rc, out, err, pages)
        loaded = loaded or runs.loaded
    (rc1, o1, e1, p1), (rc2, o2, e2, p2) = res["real"], res["bare"]
    check(all(s == 200 for s, _ in p1), "%s: not every page answered beside the real libraries: %s"
          % (tag, [s for s, _ in p1]))
    check(p1[0][1] == p2[0][1], "%s: /healthz %r vs %r" % (tag, p1[0][1], p2[0][1]))
    check(metric_shape(p1[1][1]) == metric_shape(p2[1][1]), "%s: /metrics has other series than bare" % tag)
    i1, i2 = loads(p1[2][1]), loads(p2[2][1])
    check(i1 is not None and json_shape(i1) == json_shape(i2), "%s: /inventory differs from bare" % tag)
    compare(tag, (rc1, o1, e1, None), (rc2, o2, e2, None), loaded, hidden, oneshot=False)


def device_plugin_case(runs, axl, node, tag, work, hidden):
    res = {}
    loaded = set()
    for mode in ("real", "bare"):
        kdir = tempfile.mkdtemp(prefix="kubelet-", dir=work)
        rc, out, err, _ = daemon(runs, [axl, "device-plugin", "--kubelet-dir", kdir] + node, mode, work)
        res[mode] = (rc, out, err.replace(kdir, "KUBELET"), None)
        loaded = loaded or runs.loaded
        shutil.rmtree(kdir, ignore_errors=True)
    compare(tag, res["real"], res["bare"], loaded, hidden, oneshot=False)


def commands(runs, axl, node, label, hidden, work, show_id, clean=True):
    """every command of item 6 on one node (node: its global options); clean: the node
    gives no warning of its own, so a one-shot command says at most one line (a tree
    with damage of its own warns about it, on a bare machine the same)"""
    def both(args, how="equal"):
        compare("%s: axl %s" % (label, " ".join(args)), *runs.both([axl] + args + node), hidden, how=how,
                oneshot=clean)
    both(["list"])
    both(["list", "--json"])
    both(["show", show_id])
    both(["show", show_id, "--json"])
    both(["metrics", "--no-processes"], "text")
    both(["metrics", "--json", "--no-processes"], "json")
    both(["metrics", "--json", "--compact", "--interval", "100ms", "--count", "3", "--no-processes"], "jsonl")
    both(["top", "--batch", "--count", "2", "--interval", "100ms", "--no-processes"], "text")
    both(["cdi", "generate"], "cdi")
    both(["cdi", "list"])
    both(["labels"])
    both(["bench", "copy", "--size", "1M", "--iterations", "2", "--json"], "json")
    serve_case(runs, axl, node, "%s: axl serve" % label, work, hidden)
    device_plugin_case(runs, axl, node, "%s: axl device-plugin" % label, work, hidden)


def case_live(a, runs, hidden, work):
    commands(runs, a.axl, [], "live", hidden, work, "host")


def case_sim(a, runs, hidden, work):
    for s in SIMS:
        sim = os.path.join(TOP, "tests", "sim", s)
        commands(runs, a.axl, ["--sim", sim], "sim %s" % s, hidden, work, first_id(a.axl, ["--sim", sim]))


def first_id(axl, node):
    r = subprocess.run([axl, "list", "--json"] + node, capture_output=True, text=True)
    d = loads(r.stdout) or {}
    devs = d.get("devices") or [{}]
    return devs[0].get("id", "host")


def case_capture(a, runs, hidden, work):
    for t, clean in TREES:
        name = t[:-5]
        tree = os.path.join(work, "tree-" + name)
        shutil.rmtree(tree, ignore_errors=True)
        r = subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"),
                            os.path.join(TOP, "tests", "trees", "nodes", t), tree], capture_output=True, text=True)
        if not check(r.returncode == 0, "mktree %s: %s" % (t, r.stderr[-400:])):
            continue
        cap = os.path.join(work, "capture-%s.tar.gz" % name)
        r = subprocess.run([a.axl, "capture", "--sysroot", tree, "-o", cap], capture_output=True, text=True)
        if not check(r.returncode == 0, "axl capture --sysroot %s: %s" % (tree, r.stderr[-400:])):
            continue
        node = ["--sysroot", cap]
        commands(runs, a.axl, node, "capture of %s" % name, hidden, work, first_id(a.axl, node), clean)


PY_PROBE = r"""
import asyncio, importlib, json, logging, sys, tomllib
logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
what, sim = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
out = {}
if what == "backendai":
    with open(sys.argv[3] if len(sys.argv) > 3 else "pyproject.toml", "rb") as f:
        eps = tomllib.load(f)["project"]["entry-points"]["backendai_accelerator_v21"]
    for name, ref in sorted(eps.items()):
        mod, attr = ref.split(":")
        p = getattr(importlib.import_module(mod), attr)({"sim": sim} if sim else {}, {})
        try:
            asyncio.run(p.init())
            out[name] = {"devices": [str(d.device_id) for d in p.devices], "spec": p.get_resource_spec()}
            asyncio.run(p.cleanup())
        except Exception as e:
            out[name] = {"error": "%s: %s" % (type(e).__name__, e)}
else:
    from axl.exo.factory import GPUBackendFactory, get_gpu_backend_info, detect_available_backends
    kw = {"sim": sim} if sim else {}
    info = asyncio.run(get_gpu_backend_info(**kw))
    out = {"info": {k: [dict(vars(d)) for d in v] for k, v in info.items()},
           "available": asyncio.run(detect_available_backends(**kw)), "priority": GPUBackendFactory.priority()}
print(json.dumps(out, sort_keys=True, default=str))
"""


def case_python(a, runs, hidden, work):
    probe = os.path.join(work, "probe.py")
    with open(probe, "w") as f:
        f.write(PY_PROBE)
    py = a.python
    toml = os.path.join(TOP, "python", "pyproject.toml")
    for what in ("backendai", "exo"):
        for sim in [None] + [os.path.join(TOP, "tests", "sim", s) for s in SIMS]:
            argv = [py, probe, what] + ([sim] if sim else ([""] if what == "backendai" else []))
            if what == "backendai":
                argv = [py, probe, what, sim or "", toml]
            label = "python: %s on %s" % ("Backend.AI plugins' init" if what == "backendai" else
                                          "axl.exo's factory", os.path.basename(sim) if sim else "this node")
            compare(label, *runs.both(argv), hidden, how="json" if what == "exo" else "equal", oneshot=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--lib", help="libaxl.so.0 (for the Python package)")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--work")
    ap.add_argument("--case", choices=CASES)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    have = userspace.installed()
    runtime = [n for n in userspace.RUNTIME if n in have]
    for n, path, pkg, comp, what, _ in userspace.LIBRARIES:
        if n in userspace.RUNTIME and n not in have:
            print("%s (Debian %s, %s): not installed: the commands do not meet it here" % (n, pkg, comp))
    if not runtime:
        print("skipped: none of the vendors' libraries is installed (%s): nothing to compare with a bare machine"
              % ", ".join(userspace.RUNTIME))
        return SKIP
    why = userspace.Bare.usable()
    if why:
        print("skipped: the bare machine cannot be made here: %s" % why)
        return SKIP
    a.axl = os.path.abspath(a.axl)
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    bare = userspace.Bare()
    try:
        print("beside: %s" % ", ".join(runtime))
        print("bare: %d files hidden (%s)" % (len(bare.files), " ".join(userspace.hidden_packages())))
        env = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
        if a.lib:
            env["AXL_LIBRARY"] = os.path.abspath(a.lib)
            env["PYTHONPATH"] = os.path.join(TOP, "python")
        runs = Runs(bare, env)
        {"live": case_live, "sim": case_sim, "capture": case_capture, "python": case_python}[a.case](
            a, runs, Hidden(bare.files), work)
    finally:
        bare.close()
    print("%d failure(s)" % len(failures) if failures else "all as on a bare machine")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
