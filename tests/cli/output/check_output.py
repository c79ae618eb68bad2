#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where the writers' output goes, and keeping it current (issue 18, docs/labels.md,
docs/cdi.md, docs/metrics.md "axl agent"):

  stdout       -o - / --output - is standard output for labels, cdi generate and capture
               (and no file named "-" appears)
  killed       a write killed with SIGKILL half-way (AXL_TEST_WRITE_PAUSE_MS holds it with
               half the bytes in the temporary file) leaves the old file whole; the next
               write puts the new one whole
  labels_watch labels --watch rewrites the file when the node changes (a simulated node's
               spec edited between two refreshes) and only then (same inode, same mtime
               across refreshes with nothing changed); --expiry DURATION renewed at half
               its life; SIGTERM ends it with status 0
  cdi_watch    cdi generate --watch: a changed kind's spec rewritten, the others not; the
               spec of a kind that went away removed
  devnodes     --watch wakes when a node appears in a --sysroot folder's dev/ (and in a
               dev/dri made while it runs), long before its --interval
  agent        axl agent serves /metrics and /healthz (503 until the first write, then
               200) while writing the feature file and the CDI specs; SIGTERM: status 0
  sim_nodes    a simulated node's devices carry the nodes a real one has, marked
               device_nodes_simulated, and its CDI specs and labels are made from them

usage: check_output.py --axl AXL --work DIR --case NAME
       check_output.py --list
"""

import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
NODES = os.path.join(ROOT, "tests", "trees", "nodes")
MKTREE = os.path.join(ROOT, "tests", "trees", "mktree.py")

CASES = ["stdout", "killed", "labels_watch", "cdi_watch", "devnodes", "agent", "sim_nodes"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)


def run(axl, *args, rc=0, env=None, binary=False):
    e = dict(os.environ)
    e.pop("AXL_SYSROOT", None)
    e.pop("AXL_SIM", None)
    if env:
        e.update(env)
    p = subprocess.run([axl] + list(args), capture_output=True, env=e, text=not binary, timeout=120)
    if rc is not None and p.returncode != rc:
        print("axl", *args, "->", p.returncode, p.stderr)
        check(False, "axl %s: exit %d, not %d" % (" ".join(args), p.returncode, rc))
    return p


def tree(work, node):
    dst = os.path.join(work, node)
    if not os.path.isdir(dst):
        subprocess.run([sys.executable, MKTREE, os.path.join(NODES, node + ".json"), dst], check=True,
                       stdout=subprocess.DEVNULL)
    return dst


def sim(path, devices):
    with open(path + ".new", "w") as f:
        json.dump({"schema": "axl.sim", "schema_version": 1, "devices": devices}, f)
    os.rename(path + ".new", path)
    return path


H100 = {"model": "NVIDIA H100 80GB HBM3", "count": 2}
# a UUID of its own: generated ones follow the device's place in the whole spec
MI300X = {"model": "AMD Instinct MI300X", "uuids": ["5f3c7e1a-4b2d-4c8e-9a6f-0d1e2f3a4b5c"]}
GAUDI2 = {"model": "Habana Gaudi2", "count": 2}


def fresh(work, name):
    d = os.path.join(work, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def wait_for(pred, timeout, step=0.05):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(step)
    return pred()


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def start(axl, *args, env=None):
    e = dict(os.environ)
    e.pop("AXL_SYSROOT", None)
    e.pop("AXL_SIM", None)
    if env:
        e.update(env)
    # appended to (O_APPEND): the child shares the file offset, and a write of its while
    # stderr_of() has seeked to the start would overwrite the first lines
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "axl-output-%d.err" % os.getpid())
    open(path, "w").close()
    errf = open(path, "a+")
    p = subprocess.Popen([axl] + list(args), stdout=subprocess.DEVNULL, stderr=errf, env=e)
    os.unlink(path)  # read through errf from here on: nothing is left behind in TMPDIR
    p.errf = errf
    return p


def stderr_of(p):
    p.errf.flush()
    p.errf.seek(0)
    return p.errf.read()


def stop(p, what):
    p.send_signal(signal.SIGTERM)
    try:
        rc = p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = None
    check(rc == 0, "%s: SIGTERM: exit %r, not 0 (%s)" % (what, rc, stderr_of(p)[-400:]))
    return stderr_of(p)


# ---- cases ----------------------------------------------------------------------------

def case_stdout(axl, work):
    d = fresh(work, "stdout")
    s = sim(os.path.join(d, "node.json"), [H100, MI300X])
    os.chdir(d)
    for args in (["labels", "-o", "-"], ["labels", "--output", "-"], ["labels", "--output=-"]):
        p = run(axl, "--sim", s, *args)
        check(p.stdout == run(axl, "--sim", s, "labels").stdout and "axl.dev/" in p.stdout,
              "%s: not the labels on standard output" % " ".join(args))
    for fmt in ("json", "yaml"):
        p = run(axl, "--sim", s, "cdi", "generate", "--format", fmt, "-o", "-")
        check(p.stdout == run(axl, "--sim", s, "cdi", "generate", "--format", fmt).stdout
              and "axl.dev/nvidia-gpu" in p.stdout and "axl.dev/amd-gpu" in p.stdout,
              "cdi generate --format %s -o -: not the specs on standard output" % fmt)
    check(not os.path.exists(os.path.join(d, "-")), "a file named '-' was made")
    # capture -o -: the gzip'd tar on standard output, replayable
    t = tree(work, "gaudi2-8x")
    p = run(axl, "--sysroot", t, "capture", "-o", "-", binary=True)
    check(p.stdout[:2] == b"\x1f\x8b", "capture -o -: not gzip on standard output")
    check(b"wrote" in p.stderr, "capture -o -: no report on standard error: %r" % p.stderr)
    cap = os.path.join(d, "cap.tar.gz")
    with open(cap, "wb") as f:
        f.write(p.stdout)
    a = json.loads(run(axl, "--sysroot", cap, "list", "--json").stdout)
    b = json.loads(run(axl, "--sysroot", t, "list", "--json").stdout)
    check([x["id"] for x in a["devices"]] == [x["id"] for x in b["devices"]] and len(a["devices"]) == 8,
          "capture -o -: the capture does not replay the node")
    check(sorted(os.listdir(d)) == ["cap.tar.gz", "node.json"], "stdout: files left: %r" % os.listdir(d))
    # --watch needs a file or a directory
    run(axl, "--sim", s, "labels", "--watch", "-o", "-", rc=2)
    run(axl, "--sim", s, "cdi", "generate", "--watch", rc=2)
    p = run(axl, "--sim", s, "labels", "--interval", "5s", rc=2)
    check("--interval goes with --watch" in p.stderr, "labels --interval without --watch: %r" % p.stderr)
    return 0


def case_killed(axl, work):
    d = fresh(work, "killed")
    s = sim(os.path.join(d, "node.json"), [H100])
    for what, args, target in (
            ("labels", ["labels", "-o", os.path.join(d, "features")], os.path.join(d, "features")),
            ("cdi", ["cdi", "generate", "-o", d], os.path.join(d, "axl-nvidia-gpu.json"))):
        old = b"old content, complete\n" * 50
        with open(target, "wb") as f:
            f.write(old)
        p = start(axl, "--sim", s, *args, env={"AXL_TEST_WRITE_PAUSE_MS": "20000"})
        base = os.path.basename(target)
        tmp = wait_for(lambda: glob.glob(os.path.join(d, "." + base + ".*")), 10)
        check(bool(tmp), "%s: no temporary file next to the target" % what)
        partial = wait_for(lambda: tmp and read(tmp[0]), 5)
        time.sleep(0.1)
        check(read(target) == old, "%s: the target changed before the rename" % what)
        p.kill()  # SIGKILL, half-way through the write
        p.wait()
        check(read(target) == old, "%s: killed mid-write, the target is not the old file whole" % what)
        full = run(axl, "--sim", s, *args[:-2] + ["-o", "-"]).stdout.encode()
        check(bool(partial) and len(partial) < len(full) and full.startswith(partial),
              "%s: the temporary file did not hold a part of the new content (%d of %d bytes)"
              % (what, len(partial or b""), len(full)))
        for t in tmp:
            os.unlink(t)
        run(axl, "--sim", s, *args)
        check(read(target) == full, "%s: the next write is not the new content whole" % what)
        check(not glob.glob(os.path.join(d, ".*")), "%s: dot-files left: %r" % (what, os.listdir(d)))
    return 0


def labels_value(text, key):
    m = re.search(r"^%s=(.*)$" % re.escape(key), text.decode(), re.M)
    return m.group(1) if m else None


def case_labels_watch(axl, work):
    d = fresh(work, "labels_watch")
    s = sim(os.path.join(d, "node.json"), [H100])
    out = os.path.join(d, "features")
    p = start(axl, "--sim", s, "labels", "--watch", "--interval", "1s", "-o", out, "-v")
    first = wait_for(lambda: read(out), 10)
    check(first is not None and labels_value(first, "axl.dev/nvidia.count") == "2",
          "labels --watch: first file %r" % first)
    st = os.stat(out)
    time.sleep(2.6)  # two refreshes or more, nothing changed
    st2 = os.stat(out)
    check((st.st_ino, st.st_mtime_ns) == (st2.st_ino, st2.st_mtime_ns),
          "labels --watch: rewritten although nothing changed")
    sim(s, [dict(H100, count=4)])
    new = wait_for(lambda: labels_value(read(out) or b"", "axl.dev/nvidia.count") == "4" and read(out), 6)
    check(bool(new), "labels --watch: the count did not become 4 after the spec changed")
    check(os.stat(out).st_ino != st.st_ino, "labels --watch: not replaced by a rename")
    err = stop(p, "labels --watch")
    check("unchanged, not rewritten" in err and "rewrote the file" in err,
          "labels --watch -v: does not say when it rewrote: %r" % err[-600:])
    check(sorted(os.listdir(d)) == ["features", "node.json"], "labels --watch: left %r" % os.listdir(d))

    # --expiry 4s: written now + 4 s, renewed once 2 s have passed (not at each refresh)
    p = start(axl, "--sim", s, "labels", "--watch", "--interval", "1s", "--expiry", "4s", "-o", out)
    exp = []
    end = time.monotonic() + 6
    while time.monotonic() < end:
        m = re.match(rb"# \+expiry-time=(\S+)", read(out) or b"")
        if m and (not exp or exp[-1] != m.group(1)):
            exp.append(m.group(1))
        time.sleep(0.1)
    stop(p, "labels --watch --expiry")
    check(2 <= len(exp) <= 4, "--expiry 4s over 6 s: %d distinct expiries %r (renewed every 2 s expected)"
          % (len(exp), exp))
    return 0


def case_cdi_watch(axl, work):
    d = fresh(work, "cdi_watch")
    s = sim(os.path.join(work, "cdi_watch.json"), [H100, MI300X])
    p = start(axl, "--sim", s, "cdi", "generate", "--watch", "--interval", "1s", "-o", d, "-v")
    nv, amd = os.path.join(d, "axl-nvidia-gpu.json"), os.path.join(d, "axl-amd-gpu.json")
    check(wait_for(lambda: read(nv) and read(amd), 10), "cdi --watch: specs not written: %r" % os.listdir(d))
    snv, samd = os.stat(nv), os.stat(amd)
    time.sleep(2.5)
    check((os.stat(nv).st_ino, os.stat(amd).st_ino) == (snv.st_ino, samd.st_ino),
          "cdi --watch: rewritten although nothing changed")
    sim(s, [dict(H100, count=3), MI300X])
    check(wait_for(lambda: b"/dev/nvidia2" in (read(nv) or b""), 6), "cdi --watch: the third GPU did not appear")
    check(os.stat(amd).st_ino == samd.st_ino, "cdi --watch: the unchanged AMD spec was rewritten")
    sim(s, [dict(H100, count=3)])
    check(wait_for(lambda: not os.path.exists(amd), 6), "cdi --watch: the spec of a kind gone was not removed")
    err = stop(p, "cdi generate --watch")
    check("removed" in err and "rewrote" in err, "cdi --watch -v: %r" % err[-600:])
    check(os.listdir(d) == ["axl-nvidia-gpu.json"], "cdi --watch: left %r" % os.listdir(d))
    return 0


def case_devnodes(axl, work):
    t = tree(work, "gaudi2-8x")
    out = os.path.join(fresh(work, "devnodes"), "features")
    shutil.rmtree(os.path.join(t, "dev", "dri"), ignore_errors=True)
    p = start(axl, "--sysroot", t, "labels", "--watch", "--interval", "3600s", "-o", out, "-v")
    check(wait_for(lambda: read(out), 10), "devnodes: no first write")
    time.sleep(0.5)
    node = os.path.join(t, "dev", "accel", "accel_test")
    open(node, "w").close()
    ok = wait_for(lambda: "device nodes changed" in stderr_of(p), 5)
    check(ok, "devnodes: a node made in dev/accel did not wake --watch: %r" % stderr_of(p)[-400:])
    n1 = stderr_of(p).count("device nodes changed")
    os.mkdir(os.path.join(t, "dev", "dri"))
    time.sleep(1.5)
    n2 = stderr_of(p).count("device nodes changed")
    open(os.path.join(t, "dev", "dri", "renderD200"), "w").close()
    check(wait_for(lambda: stderr_of(p).count("device nodes changed") > n2, 5),
          "devnodes: a node in a dev/dri made while it ran did not wake it")
    check(n2 > n1, "devnodes: making dev/dri did not wake it")
    stop(p, "devnodes")
    os.unlink(node)
    shutil.rmtree(os.path.join(t, "dev", "dri"))
    return 0


def http(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except OSError:
        return None, ""


def case_agent(axl, work):
    d = fresh(work, "agent")
    s = sim(os.path.join(d, "node.json"), [H100, MI300X])
    cdi = os.path.join(d, "cdi")
    os.makedirs(cdi)
    feat = os.path.join(d, "features")
    # held 3 s in the middle of its first write: /healthz says 503 meanwhile
    p = start(axl, "agent", "--sim", s, "--listen", "127.0.0.1:0", "--labels-file", feat, "--cdi-dir", cdi,
              "--interval", "1s", "-v", env={"AXL_TEST_WRITE_PAUSE_MS": "3000"})
    m = wait_for(lambda: re.search(r"serving http://([0-9.]+):(\d+)/metrics", stderr_of(p)), 10)
    if not m and ("not available" in stderr_of(p)):
        p.wait()
        print("SKIP: this axl was built without libmicrohttpd (axl agent serves with it)")
        return 77
    check(bool(m), "agent: no 'serving' line: %r" % stderr_of(p))
    if not m:
        p.kill()
        return 1
    base = "http://%s:%s" % (m.group(1), m.group(2))
    code, body = http(base + "/healthz")
    check(code == 503, "agent: /healthz before the first write: %r %r" % (code, body))
    check(wait_for(lambda: http(base + "/healthz")[0] == 200, 15), "agent: /healthz never 200")
    check(read(feat) is not None and labels_value(read(feat), "axl.dev/nvidia.count") == "2",
          "agent: the feature file")
    check(sorted(os.listdir(cdi)) == ["axl-amd-gpu.json", "axl-nvidia-gpu.json"],
          "agent: CDI specs %r" % os.listdir(cdi))
    code, body = http(base + "/metrics")
    check(code == 200 and "axl_" in body, "agent: /metrics %r" % code)
    code, body = http(base + "/inventory")
    check(code == 200 and json.loads(body)["schema"] == "axl.inventory", "agent: /inventory")
    # a change: both outputs follow
    sim(s, [dict(H100, count=3)])
    check(wait_for(lambda: labels_value(read(feat) or b"", "axl.dev/nvidia.count") == "3", 15),
          "agent: the feature file did not follow the node")
    check(wait_for(lambda: os.listdir(cdi) == ["axl-nvidia-gpu.json"], 10),
          "agent: the CDI specs did not follow the node: %r" % os.listdir(cdi))
    err = stop(p, "agent")
    check("labels rewritten" in err, "agent -v: %r" % err[-400:])
    run(axl, "agent", "--sim", s, rc=2)  # nothing to keep current
    run(axl, "agent", "--sim", s, "--labels-file", "-", rc=2)
    return 0


def case_sim_nodes(axl, work):
    d = fresh(work, "sim_nodes")
    s = sim(os.path.join(d, "node.json"), [H100, MI300X, GAUDI2])
    inv = json.loads(run(axl, "--sim", s, "list", "--json").stdout)
    nodes = {x["id"]: x["device_nodes"] for x in inv["devices"]}
    check(nodes.get("nvidia:1") == ["/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"],
          "sim: nvidia:1 nodes %r" % nodes.get("nvidia:1"))
    check(nodes.get("amdgpu:0") == ["/dev/dri/card0", "/dev/dri/renderD128", "/dev/kfd"],
          "sim: amdgpu:0 nodes %r" % nodes.get("amdgpu:0"))
    check(nodes.get("habana:1") == ["/dev/accel/accel1"], "sim: habana:1 nodes %r" % nodes.get("habana:1"))
    check(all(x.get("device_nodes_simulated") is True for x in inv["devices"]),
          "sim: a device's nodes not marked device_nodes_simulated")
    real = json.loads(run(axl, "--sysroot", tree(work, "gaudi2-8x"), "list", "--json").stdout)
    check(all("device_nodes_simulated" not in x for x in real["devices"]),
          "a real node's devices marked device_nodes_simulated")
    specs = json.loads(run(axl, "--sim", s, "cdi", "generate").stdout)
    by_kind = {sp["kind"]: sp for sp in specs}
    check(sorted(by_kind) == ["axl.dev/amd-gpu", "axl.dev/habana-gaudi", "axl.dev/nvidia-gpu"], "sim: CDI kinds %r" % sorted(by_kind))

    def paths(sp):
        out = set()
        for dev in sp["devices"] + [{"containerEdits": sp.get("containerEdits", {})}]:
            for n in dev["containerEdits"].get("deviceNodes", []):
                out.add(n["path"])
        return out
    check({"/dev/kfd", "/dev/dri/renderD128"} <= paths(by_kind.get("axl.dev/amd-gpu", {"devices": []})),
          "sim: the AMD spec lacks /dev/kfd or the render node")
    check({"/dev/accel/accel0", "/dev/accel/accel1"} <= paths(by_kind.get("axl.dev/habana-gaudi", {"devices": []})),
          "sim: the Gaudi spec lacks its accel nodes")
    labels = run(axl, "--sim", s, "labels").stdout
    check("axl.dev/habana.count=2" in labels and "axl.dev/amdgpu.count=1" in labels, "sim: labels %r" % labels)
    return 0


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
    axl = os.path.abspath(a.axl)
    rc = globals()["case_" + a.case](axl, os.path.abspath(a.work))
    if rc == 77:
        return 77
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok:", a.case)
    return rc


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
