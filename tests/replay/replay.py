#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replay tests: run `axl list --json --all` on real-machine captures and synthetic
trees, and compare with the golden documents in tests/replay/golden/.

  replay.py --axl build/axl --work build/replay --case NAME     one case (CTest runs these)
  replay.py --axl build/axl --work build/replay --all           every case
  replay.py --axl build/axl --work build/replay --all --update  regenerate the goldens
  replay.py --list                                               the case names

Each case also validates the document against schema/axl-inventory.schema.json and,
where tests/trees/nodes/<case>.expect.json exists, checks the facts written there by
hand (device count, ids, memory, device nodes, NUMA, ...) independently of the golden.
"""
import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
FIX = os.path.join(HERE, "fixtures")
NODES = os.path.join(TOP, "tests", "trees", "nodes")
SCHEMA = os.path.join(TOP, "schema", "axl-inventory.schema.json")
sys.path.insert(0, os.path.join(TOP, "tests", "tools"))
import visvars  # noqa: E402  the visibility variables, cleared: a shell's do not reach the goldens

# Real captures: (case, kind, file). kind "tree": a sysroot tarball with one top folder
# (hwloc-gather-topology); "root": a tarball rooted at / ; "kfd": a KFD topology folder.
CAPTURES = [
    ("hwloc-2s-xeon-phi-mic", "tree", "hwloc-32em64t-2n8c+dax+nvme+mic+dimms.tar.bz2"),
    ("hwloc-2s-8x-nec-ve", "tree", "hwloc-32intel64-2p8co2t+8ve.tar.bz2"),
    ("hwloc-power9-6x-v100-numa", "tree", "hwloc-nvidiagpunumanodes-p9-v100.tar.bz2"),
    ("procfs-drm-vega10-i915", "root", "procfs-derived-sys-class-drm-amdgpu-vega10-i915.tar.gz"),
    ("kfd-2x-vega10", "kfd", "rocm-k8s-kfd-topology-2x-vega10.tar.gz"),
    ("kfd-8x-mi210-xgmi", "kfd", "rocm-k8s-kfd-topology-8x-mi210-xgmi-pcie.tar.gz"),
    ("kfd-8x-mi300x-cpx", "kfd", "rocm-k8s-kfd-topology-8x-mi300x-cpx.tar.gz"),
    ("kfd-8x-mi308x-partitioned", "kfd", "rocm-k8s-kfd-topology-8x-mi308x-partitioned.tar.gz"),
]


def spec_cases():
    out = []
    if not os.path.isdir(NODES):
        return out
    for f in sorted(os.listdir(NODES)):
        if f.endswith(".expect.json"):
            continue
        if f.endswith(".json"):
            out.append((f[:-5], "spec", os.path.join(NODES, f)))
        elif f.endswith(".json.gz"):
            out.append((f[:-8], "spec", os.path.join(NODES, f)))
    return out


def all_cases():
    return [(n, k, os.path.join(FIX, f)) for n, k, f in CAPTURES] + spec_cases()


def safe_extract(tar, dest, strip):
    """Extract members under dest, refusing absolute paths and '..' (and links that
    leave the tree are kept as links: axl resolves them inside the sysroot)."""
    for m in tar.getmembers():
        parts = [p for p in m.name.split("/") if p not in ("", ".")]
        if strip:
            parts = parts[strip:]
        if not parts or ".." in parts:
            continue
        m.name = "/".join(parts)
        if m.islnk():
            continue
        if not (m.isfile() or m.isdir() or m.issym()):
            continue
        tar.extract(m, dest, set_attrs=False)


def build_root(kind, src, root):
    if os.path.isdir(root):
        subprocess.run(["chmod", "-R", "u+rwX", root], check=False)
        shutil.rmtree(root)
    os.makedirs(root)
    if kind in ("tree", "root"):
        with tarfile.open(src) as t:
            safe_extract(t, root, 1 if kind == "tree" else 0)
    elif kind == "kfd":
        tmp = root + ".kfd"
        if os.path.isdir(tmp):
            shutil.rmtree(tmp)
        os.makedirs(tmp)
        with tarfile.open(src) as t:
            safe_extract(t, tmp, 1)
        top = os.path.join(tmp, "topology") if os.path.isdir(os.path.join(tmp, "topology")) else tmp
        dest = os.path.join(root, "sys", "class", "kfd", "kfd")
        os.makedirs(dest)
        shutil.move(top, os.path.join(dest, "topology"))
        shutil.rmtree(tmp, ignore_errors=True)
    elif kind == "spec":
        spec = src
        if src.endswith(".gz"):
            spec = root + ".spec.json"
            with gzip.open(src, "rb") as f, open(spec, "wb") as o:
                o.write(f.read())
        subprocess.run([sys.executable, os.path.join(TOP, "tests", "trees", "mktree.py"), spec, root],
                       check=True, stdout=subprocess.DEVNULL)
    else:
        raise ValueError(kind)


# Cases whose `axl topo` matrix is also kept as a golden text (golden/<case>.topo.txt):
# the multi-accelerator boards.
TOPO_CASES = {"hgx-8x-h100", "gpud-hgx-8x-h100-lspci-vvv", "gpud-azure-8x-a100-lspci-nn", "mi300x-8x",
              "gaudi2-8x", "dgx2h-16x-v100-hwloc", "kfd-8x-mi210-xgmi", "hwloc-power9-6x-v100-numa",
              "hwloc-2s-8x-nec-ve", "hwloc-2s-xeon-phi-mic", "damaged"}


def run_axl(axl, root, pci_ids=None, args=("list", "--json", "--all"), backends=None):
    env = visvars.clean(os.environ)
    env.pop("AXL_SYSROOT", None)
    env.pop("AXL_BACKENDS", None)
    if backends:
        env["AXL_BACKENDS"] = backends
    # names from pci.ids vary by distribution: keep them out, unless the case brings
    # its own extract (a spec's "pci_ids", relative to tests/trees)
    env["AXL_PCI_IDS"] = pci_ids or "/dev/null"
    p = subprocess.run([axl] + list(args) + ["--sysroot", root], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        raise RuntimeError("axl exited %d: %s" % (p.returncode, p.stderr.decode(errors="replace")))
    return p.stdout.decode()


def cell_code(link):
    """The axl topo / nvidia-smi topo -m code of a link (computed here from the JSON, not
    by axl)."""
    if link is None:
        return "-"
    k = link["kind"]
    if k == "nvlink":
        return "NV%d" % link["link_count"] if "link_count" in link else "NV"
    if k == "roce":
        return "RC%d" % link["link_count"] if "link_count" in link else "RC"
    if k == "pcie-switch":
        return "PXB" if link.get("pcie_switches", 1) > 1 else "PIX"
    return {"nvswitch": "NVS", "xgmi": "XGMI", "host-bridge": "PHB", "numa": "NODE", "system": "SYS"}.get(k, k)


def check_topology(doc, want, errors, tag=""):
    """The expected matrices (rows: devices; cells as axl topo prints them) and fabric facts."""
    links = {}
    for l in doc["links"]:
        links[(l["a"], l["b"])] = links[(l["b"], l["a"])] = l
    nic_links = {(l["a"], l["b"]): l for l in doc.get("nic_links", [])}
    devs = want.get("devices", [])
    for i, row in enumerate(want.get("matrix", [])):
        cells = row.split()
        for j, c in enumerate(cells):
            got = "X" if i == j else cell_code(links.get((devs[i], devs[j])))
            if got != c:
                errors.append("%stopology %s~%s: %s, expected %s" % (tag, devs[i], devs[j], got, c))
    nics = want.get("nics", [])
    if "nics" in want:
        names = [n["name"] for n in doc.get("nics", [])]
        if names != nics:
            errors.append("%sNICs %r, expected %r" % (tag, names, nics))
    for i, row in enumerate(want.get("nic_matrix", [])):
        for j, c in enumerate(row.split()):
            got = cell_code(nic_links.get((devs[i], nics[j])))
            if got != c:
                errors.append("%stopology %s~%s: %s, expected %s" % (tag, devs[i], nics[j], got, c))
    for name, facts in want.get("nic_facts", {}).items():
        found = [n for n in doc.get("nics", []) if n["name"] == name]
        if not found:
            errors.append("%sno NIC %s" % (tag, name))
            continue
        for k, v in facts.items():
            if found[0].get(k) != v:
                errors.append("%sNIC %s: %s = %r, expected %r" % (tag, name, k, found[0].get(k), v))
    if "switches" in want:
        sw = doc.get("switches", [])
        w = want["switches"]
        if len(sw) != w["count"]:
            errors.append("%s%d switches, expected %d" % (tag, len(sw), w["count"]))
        for k in ("generation", "driver", "device_id"):
            if k in w:
                bad = [x["pci_address"] for x in sw if x.get(k) != w[k]]
                if bad:
                    errors.append("%sswitches %s: %s is not %r" % (tag, ", ".join(bad), k, w[k]))
    for kind, facts in want.get("link_facts", {}).items():
        of_kind = [l for l in doc["links"] if l["kind"] == kind]
        if not of_kind:
            errors.append("%sno %s links" % (tag, kind))
        for l in of_kind:
            for k, v in facts.items():
                if l.get(k) != v:
                    errors.append("%slink %s~%s: %s = %r, expected %r" % (tag, l["a"], l["b"], k, l.get(k), v))
                    break


def get_path(obj, dotted):
    cur = obj
    for part in dotted.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return KeyError
        cur = cur[part]
    return cur


def matches(got, want):
    """Expected objects are subsets (keys not named are not checked); lists match
    element by element; anything else must be equal."""
    if isinstance(want, dict):
        return isinstance(got, dict) and all(k in got and matches(got[k], v) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(matches(g, w) for g, w in zip(got, want))
    return got == want


def check_expect(doc, expect, errors):
    devs = [d for d in doc["devices"] if d.get("family") != "cpu"]
    by_id = {d["id"]: d for d in devs}
    if "device_count" in expect and len(devs) != expect["device_count"]:
        errors.append("device count %d, expected %d (%s)" % (len(devs), expect["device_count"],
                                                             ", ".join(sorted(by_id))))
    if "numa_node_count" in expect and len(doc["host"]["numa_nodes"]) != expect["numa_node_count"]:
        errors.append("NUMA nodes %d, expected %d" % (len(doc["host"]["numa_nodes"]), expect["numa_node_count"]))
    for did, facts in expect.get("devices", {}).items():
        d = by_id.get(did)
        if d is None:
            errors.append("%s: not listed" % did)
            continue
        for k, want in facts.items():
            if k == "_absent":
                continue
            got = get_path(d, k)
            if got is KeyError:
                got = "(absent)"
            if not matches(got, want):
                errors.append("%s: %s = %r, expected %r" % (did, k, got, want))
        for k in facts.get("_absent", []):
            if get_path(d, k) is not KeyError:
                errors.append("%s: %s should be unknown (absent)" % (did, k))
    addrs = {d.get("pci", {}).get("address") for d in devs}
    for a in expect.get("not_devices", []):
        if a in addrs:
            errors.append("%s is listed as an accelerator but is not one" % a)
    isa = doc["host"].get("cpu", {}).get("isa", [])
    for k, want in expect.get("host", {}).items():
        if k == "cpu.isa_includes":
            for f in want:
                if f not in isa:
                    errors.append("host.cpu.isa lacks %r (has %r)" % (f, isa))
            continue
        if k == "cpu.isa_excludes":
            for f in want:
                if f in isa:
                    errors.append("host.cpu.isa has %r, which the CPU does not" % f)
            continue
        got = get_path(doc["host"], k)
        if not matches(got, want):
            errors.append("host.%s = %r, expected %r" % (k, "(absent)" if got is KeyError else got, want))
    for k, want in expect.get("links", {}).items():
        a, b = k.split("~")
        found = [l for l in doc["links"] if {l["a"], l["b"]} == {a, b}]
        if not found:
            errors.append("no link between %s and %s" % (a, b))
        elif isinstance(want, dict):
            # {"kind": "xgmi", "link_count": 1, ...}: a partial link object
            if not matches(found[0], want):
                errors.append("link %s: %r, expected %r" % (k, found[0], want))
        elif found[0]["kind"] != want:
            errors.append("link %s: %s, expected %s" % (k, found[0]["kind"], want))
    if "topology" in expect:
        check_topology(doc, expect["topology"], errors)
    if "link_count" in expect and len(doc["links"]) != expect["link_count"]:
        errors.append("%d links, expected %d" % (len(doc["links"]), expect["link_count"]))
    paths = " ".join(w.get("path", "") + " " + w["message"] for w in doc["warnings"])
    for frag in expect.get("warnings_mention", []):
        if frag not in paths:
            errors.append("no warning mentions %r" % frag)
    if "min_warnings" in expect and len(doc["warnings"]) < expect["min_warnings"]:
        errors.append("%d warnings, expected at least %d" % (len(doc["warnings"]), expect["min_warnings"]))


def validate(text, errors):
    try:
        import jsonschema
    except ImportError:
        errors.append("python3-jsonschema is not installed: cannot validate")
        return
    with open(SCHEMA) as f:
        schema = json.load(f)
    v = jsonschema.Draft202012Validator(schema)
    for e in sorted(v.iter_errors(json.loads(text)), key=lambda e: list(e.absolute_path)):
        errors.append("schema: /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message))


def run_case(case, axl, work, update):
    name, kind, src = case
    root = os.path.join(work, name)
    build_root(kind, src, root)
    pci_ids = None
    if kind == "spec" and src.endswith(".json"):
        with open(src) as f:
            rel = json.load(f).get("pci_ids")
        if rel:
            pci_ids = os.path.join(TOP, "tests", "trees", rel)
    text = run_axl(axl, root, pci_ids)
    errors = []
    try:
        doc = json.loads(text)
    except ValueError as e:
        return ["output is not JSON: %s" % e]
    validate(text, errors)
    exp = os.path.join(NODES, name + ".expect.json")
    if os.path.exists(exp):
        with open(exp) as f:
            expect = json.load(f)
        check_expect(doc, expect, errors)
        # the same tree with some backends off (the device database: the PCIe paths
        # behind an NVSwitch fabric)
        for v in expect.get("variants", []):
            vdoc = json.loads(run_axl(axl, root, pci_ids, backends=v["backends"]))
            check_topology(vdoc, v["topology"], errors, "AXL_BACKENDS=%s: " % v["backends"])
    if name in TOPO_CASES:
        topo = run_axl(axl, root, pci_ids, args=("topo",))
        tgold = os.path.join(HERE, "golden", name + ".topo.txt")
        if update:
            with open(tgold, "w") as f:
                f.write(topo)
        elif not os.path.exists(tgold):
            errors.append("no golden file %s (run with --update)" % tgold)
        else:
            with open(tgold) as f:
                twant = f.read()
            if twant != topo:
                import difflib
                diff = list(difflib.unified_diff(twant.splitlines(), topo.splitlines(), "golden", "now", lineterm="", n=1))
                errors.append("axl topo differs from %s:\n%s" % (tgold, "\n".join(diff[:60])))
    golden = os.path.join(HERE, "golden", name + ".json")
    if update:
        with open(golden, "w") as f:
            f.write(text)
    elif not os.path.exists(golden):
        errors.append("no golden file %s (run with --update)" % golden)
    else:
        with open(golden) as f:
            want = f.read()
        if want != text:
            import difflib
            diff = list(difflib.unified_diff(want.splitlines(), text.splitlines(), "golden", "now", lineterm="", n=2))
            errors.append("differs from the golden document:\n" + "\n".join(diff[:80]))
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work", default="/tmp/axl-replay")
    ap.add_argument("--case")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--update", action="store_true")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    cases = all_cases()
    if a.list:
        print(";".join(c[0] for c in cases))
        return 0
    todo = cases if a.all else [c for c in cases if c[0] == a.case]
    if not todo:
        print("no such case: %s" % a.case)
        return 2
    os.makedirs(a.work, exist_ok=True)
    passed = failed = 0
    for c in todo:
        try:
            errs = run_case(c, os.path.abspath(a.axl), a.work, a.update)
        except Exception as e:  # a broken case must not hide the others
            errs = ["%s: %s" % (type(e).__name__, e)]
        if errs:
            failed += 1
            print("FAIL %s" % c[0])
            for e in errs:
                print("  " + e)
        else:
            passed += 1
            print("ok   %s%s" % (c[0], " (golden updated)" if a.update else ""))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
