#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A newcomer's first hour (issue 34 item 8), on simulated nodes (tests/sim) and synthetic
trees (tests/trees/nodes), each case failing on the behaviour it replaced:

  show_columns   axl show's values and sources each start in one column; pci.class as the
                 JSON writes it (0x0302, not 0x030200)
  topo_ids       every row and column name of axl topo's matrix is an id axl show takes
  top_narrow     axl top --batch at 32..120 columns: memory in GiB, the utilisation and
                 memory numbers whole (never "2%" for 82%), the same at every width
  serve_landing  axl serve's / is a page linking /metrics, /healthz and /inventory
  metrics_empty  axl metrics on a node without accelerators says what axl list says
  capture_count  axl capture's summary counts the accelerators (not the CPU), by kind
  labels_mig     a mixed node's labels claim MIG only for the product that has it
  errors_once    an error names its subject once

usage: check_firsthour.py --axl AXL --work DIR --case NAME
       check_firsthour.py --list
"""

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
SIMS = os.path.join(ROOT, "tests", "sim")
NODES = os.path.join(ROOT, "tests", "trees", "nodes")
MKTREE = os.path.join(ROOT, "tests", "trees", "mktree.py")
MIXED = os.path.join(SIMS, "mixed.json")

CASES = ["show_columns", "topo_ids", "top_narrow", "serve_landing", "metrics_empty", "capture_count",
         "labels_mig", "errors_once"]
failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
        print("FAIL:", msg)
    return cond


def run(axl, *args, rc=0, env=None, cwd=None):
    e = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    e["AXL_PCI_IDS"] = "/dev/null"
    e.update(env or {})
    p = subprocess.run([axl] + list(args), capture_output=True, text=True, env=e, timeout=60, cwd=cwd)
    if rc is not None:
        check(p.returncode == rc, "axl %s: exit %d, not %d: %s" % (" ".join(args), p.returncode, rc, p.stderr[-400:]))
    return p


def tree(work, node):
    dst = os.path.join(work, node)
    if not os.path.isdir(dst):
        subprocess.run([sys.executable, MKTREE, os.path.join(NODES, node + ".json"), dst], check=True,
                       stdout=subprocess.DEVNULL)
    return dst


def nodes(work):
    """(name, the arguments that select it): a simulated mixed node and two trees."""
    return [("mixed", ["--sim", MIXED]), ("hgx-8x-h100", ["--sysroot", tree(work, "hgx-8x-h100")]),
            ("laptop-npu-2gpu", ["--sysroot", tree(work, "laptop-npu-2gpu")])]


def accelerators(axl, node):
    doc = json.loads(run(axl, *node, "list", "--json").stdout)
    return [d for d in doc["devices"] if d.get("family") != "cpu"]


def case_show_columns(axl, work):
    for name, node in nodes(work):
        for d in accelerators(axl, node):
            out = run(axl, *node, "show", d["id"]).stdout.split("\n")
            check(out[0] == d["id"], "%s: show %s: first line %r" % (name, d["id"], out[0]))
            # "  KEY  VALUE  [source]": the attribute lines, up to the first section
            sections = ("device_nodes", "compute_units", "precision", "partitioning", "ports", "children")
            rows = []
            for l in out[1:]:
                if not l or l.split()[0] in sections:
                    break
                rows.append(l)
            check(all(re.match(r"^  \S+ +\S.* \[[a-z-]+\]$", l) for l in rows), "%s: show %s: %s" % (name, d["id"], rows))
            keycol = {len(l) - len(l[2:].split(" ", 1)[1].lstrip()) for l in rows}
            check(len(keycol) == 1, "%s: show %s: values start in %d columns %s" % (name, d["id"], len(keycol), sorted(keycol)))
            short = [l for l in rows if len(l[min(keycol):].rsplit(" [", 1)[0].rstrip()) <= 40]
            srccol = {l.rindex(" [") for l in short}
            check(len(srccol) == 1, "%s: show %s: sources start in %d columns" % (name, d["id"], len(srccol)))
            # the same sections line up with the attributes
            for sect in ("device_nodes", "compute_units", "precision", "partitioning"):
                ls = [l for l in out if l.startswith("  " + sect + " ")]
                if ls and keycol:
                    v = len(ls[0]) - len(ls[0][2 + len(sect):].lstrip())
                    check(v == min(keycol), "%s: show %s: %s's value at column %d, not %d" % (name, d["id"], sect, v, min(keycol)))
            cls = [l.split()[1] for l in rows if l.split()[0] == "pci.class"]
            want = d.get("pci", {}).get("class")
            if want:
                check(cls == [want], "%s: show %s: pci.class %s, the JSON's %s" % (name, d["id"], cls, want))
    return 0


def case_topo_ids(axl, work):
    for name, node in nodes(work):
        out = run(axl, *node, "topo").stdout.split("\n")
        header = out[0].split()
        cols = header[:header.index("CPU")]
        rows = []
        for l in out[1:]:
            if not l.strip():
                break
            rows.append(l.split()[0])
        ids = [d["id"] for d in accelerators(axl, node)]
        check(cols == rows and sorted(rows) == sorted(ids), "%s: topo names %s, rows %s; the ids are %s" % (name, cols, rows, ids))
        for r in rows:
            p = run(axl, *node, "show", r, rc=None)
            check(p.returncode == 0 and p.stdout.startswith(r + "\n"), "%s: topo's %s is not an id axl show takes: %r" %
                  (name, r, p.stderr))
    return 0


def top_devices(text):
    """{id: (utilisation text, memory text)} of a top --batch frame's device lines."""
    got = {}
    for l in text.split("\n"):
        m = re.match(r"^[> ](\S+:\d+) +(.*)$", l)
        if not m:
            continue
        rest = m.group(2)
        u = re.search(r"(?:GPU\[[ |]*|^)(\d+%|-)(?:\]| )", rest)
        mem = re.search(r"(?:MEM\[[ |]*| )([-\d.]+/[-\d.]+[KMGT]iB)(?:\]| )", rest + " ")
        got[m.group(1)] = (u.group(1) if u else None, mem.group(1) if mem else None)
    return got


def case_top_narrow(axl, work):
    node = ["--sim", MIXED]
    ids = [d["id"] for d in accelerators(axl, node)]
    frames = {}
    for cols in (120, 80, 60, 50, 40, 32):
        # 24 lines: one or two lines per device, as a terminal of that size shows them
        p = run(axl, *node, "top", "--batch", "--count", "1", env={"COLUMNS": str(cols), "LINES": "24"})
        frames[cols] = top_devices(p.stdout)
        check(not re.search(r"\d[KMGT]/", p.stdout), "%d columns: a unit that is not binary: %r" % (cols, p.stdout[:400]))
        title = p.stdout.split("\n")[0]
        check(re.search(r"every \d+ ms|devices? +\d\d:\d\d:\d\d$", title) is not None and
              not re.search(r"every \d+\d\d:", title), "%d columns: the title cuts a number: %r" % (cols, title))
    wide = frames[120]
    check(sorted(wide) == sorted(ids), "120 columns: devices %s, want %s" % (sorted(wide), sorted(ids)))
    for d, (u, mem) in wide.items():
        check(u is not None and mem is not None and mem.endswith("GiB"), "120 columns: %s: %r %r" % (d, u, mem))
    # the sim's values are the same at every width: the numbers must be too, whole
    for cols, f in frames.items():
        for d in ids:
            check(f.get(d) == wide.get(d), "%d columns: %s shows %s, at 120 %s" % (cols, d, f.get(d), wide.get(d)))
    return 0


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def case_serve_landing(axl, work):
    port = free_port()
    log = open(os.path.join(work, "serve.log"), "a+")
    e = {k: v for k, v in os.environ.items() if not k.startswith("AXL_")}
    p = subprocess.Popen([axl, "--sim", MIXED, "serve", "--listen", "127.0.0.1:%d" % port], stdout=log, stderr=log, env=e)
    try:
        base = "http://127.0.0.1:%d/" % port
        page = None
        for _ in range(100):
            try:
                page = urllib.request.urlopen(base, timeout=5)
                break
            except urllib.error.HTTPError as err:
                page = err
                break
            except OSError:
                time.sleep(0.05)
        if not check(page is not None and page.status == 200, "GET /: %s" % (page and page.status)):
            log.seek(0)
            print(log.read()[-800:])
            return 0
        check(page.headers.get("Content-Type", "").startswith("text/html"), "GET /: %s" % page.headers.get("Content-Type"))
        html = page.read().decode()
        links = re.findall(r'href="([^"]+)"', html)
        check(sorted(links) == ["healthz", "inventory", "metrics"], "GET /: links %s" % links)
        check("6 accelerators" in html, "GET /: the node's accelerators not said: %r" % html)
        for l in links:
            r = urllib.request.urlopen(base + l, timeout=10)
            check(r.status == 200, "GET /%s from the page: %d" % (l, r.status))
        try:
            urllib.request.urlopen(base + "nope", timeout=5)
            check(False, "GET /nope: not 404")
        except urllib.error.HTTPError as err:
            check(err.code == 404, "GET /nope: %d" % err.code)
    finally:
        p.terminate()
        p.wait(10)
    return 0


def case_metrics_empty(axl, work):
    empty = os.path.join(work, "empty-node")
    os.makedirs(os.path.join(empty, "sys", "bus", "pci", "devices"), exist_ok=True)
    hint = run(axl, "--sysroot", empty, "list").stderr
    check(hint.startswith("axl: no accelerators found; "), "axl list's hint: %r" % hint)
    for args in ([], ["--json"]):
        p = run(axl, "--sysroot", empty, "metrics", *args)
        check(p.stderr == hint, "metrics %s: %r, not axl list's %r" % (args, p.stderr, hint))
        if args:
            check(json.loads(p.stdout)["devices"] == [], "metrics --json: %r" % p.stdout[:200])
        else:
            check(p.stdout.split("\n")[1] == "(no accelerators found)", "metrics: %r" % p.stdout)
    # a node with accelerators: no hint
    p = run(axl, "--sim", MIXED, "metrics")
    check(p.stderr == "", "metrics on a node with accelerators: %r" % p.stderr)
    return 0


def case_capture_count(axl, work):
    for name, want in (("hgx-8x-h100", "8 accelerators (8 nvidia)"),
                       ("laptop-npu-2gpu", "3 accelerators (1 intel, 1 intelnpu, 1 nvidia)")):
        root = tree(work, name)
        n = len(accelerators(axl, ["--sysroot", root]))
        out = os.path.join(work, name + ".tar.gz")
        p = run(axl, "--sysroot", root, "capture", "-o", out)
        first = p.stdout.split("\n")[0]
        check(re.match(r"^wrote %s: %s; \d+ files, [\d.]+ KiB$" % (re.escape(out), re.escape(want)), first) is not None,
              "%s: %r, want %r" % (name, first, want))
        check(want.startswith("%d accelerators" % n), "%s: axl list counts %d" % (name, n))
        # the capture holds what it says
        check(len(accelerators(axl, ["--sysroot", out])) == n, "%s: the capture replays %d accelerators" % (name, n))
    return 0


# An inference node: one H100 (MIG) beside two L4s (no MIG), the L4 the most common product
H100_L4 = {"schema": "axl.sim", "schema_version": 1, "devices": [
    {"model": "NVIDIA H100 80GB HBM3", "count": 1, "numa_node": 0},
    {"model": "NVIDIA L4", "count": 2, "numa_node": 1}]}


def labels(axl, *args):
    return dict(l.split("=", 1) for l in run(axl, *args, "labels", "--gfd").stdout.split("\n") if "=" in l)


def case_labels_mig(axl, work):
    spec = os.path.join(work, "h100-l4.json")
    with open(spec, "w") as f:
        json.dump(H100_L4, f)
    lab = labels(axl, "--sim", spec)
    check(lab.get("axl.dev/nvidia.product") == "NVIDIA-L4" and lab.get("axl.dev/nvidia.count") == "3",
          "H100+2xL4: product %r count %r" % (lab.get("axl.dev/nvidia.product"), lab.get("axl.dev/nvidia.count")))
    mig = {k: v for k, v in lab.items() if "mig" in k}
    check(mig == {"nvidia.com/mig.capable": "false"}, "H100+2xL4: the L4s are labelled with MIG: %s" % mig)
    # mixed.json: H100s, L4s and an RTX 4090; the H100 is the product named (ties: the
    # smallest name), and it has MIG
    lab = labels(axl, "--sim", MIXED)
    check(lab.get("axl.dev/nvidia.product") == "NVIDIA-H100-80GB-HBM3" and
          lab.get("axl.dev/nvidia.partition.mig") == "true" and lab.get("nvidia.com/mig.capable") == "true",
          "mixed: %s" % {k: v for k, v in lab.items() if "mig" in k or "product" in k})
    # eight H100s: as before
    lab = labels(axl, "--sysroot", tree(work, "hgx-8x-h100"))
    check(lab.get("axl.dev/nvidia.partition.mig") == "true" and lab.get("nvidia.com/mig.capable") == "true",
          "hgx-8x-h100: %s" % {k: v for k, v in lab.items() if "mig" in k})
    return 0


def case_errors_once(axl, work):
    node = ["--sim", MIXED]
    for args, subject in ((["show", "nvidia:9"], "nvidia:9"), (["metrics", "nvidia:9"], "nvidia:9"),
                          (["plan", "no-such-model-x"], "no-such-model-x"),
                          (["plan", os.path.join(work, "nonexistent.json")], os.path.join(work, "nonexistent.json")),
                          (["--sysroot", os.path.join(work, "none"), "list"], os.path.join(work, "none"))):
        p = run(axl, *(node if args[0] != "--sysroot" else []), *args, rc=None)
        check(p.returncode != 0 and p.stderr.count(subject) == 1 and p.stderr.startswith("axl: "),
              "axl %s: %r names %s %d times" % (" ".join(args), p.stderr, subject, p.stderr.count(subject)))
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
    a.work = os.path.join(a.work, a.case)
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    rc = globals()["case_" + a.case](a.axl, a.work)
    if rc:
        return rc
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
