#!/usr/bin/python3
"""deploy/kubernetes/dra's DeviceClasses and docs/kubernetes.md's claims, against what the
driver really publishes: axl dra-plugin --publish-only on the 8xH100 (NVSwitch), 8xMI300X
and mixed sims, to the fake API server of tests/compat/dra (fake_apiserver.py, which
validates each slice against the resource.k8s.io/v1 schema); then every attribute and
capacity a class's or a claim's CEL reads, every matchAttribute and capacity request, is
one the published devices carry (qualified names as the scheduler resolves them: an
unqualified name is in the driver's domain), and every string a selector compares an
attribute with is a value published on a sim or, for a vendor or family no sim has, one
the sources write (the backends' AXL_ATTR_VENDOR strings, include/axl/device.h's
AXL_FAMILY_LIST). A renamed attribute fails here. CEL itself is not evaluated (no
cluster: docs/kubernetes.md).

usage: check_dra_classes.py --axl AXL --work DIR
The work directory is removed when the check passes, kept when it fails (tests/workdir.py).
"""
import argparse
import glob
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "compat", "dra"))
sys.path.insert(0, os.path.join(TOP, "tests"))
sys.path.insert(0, HERE)
import check_manifests as cm  # noqa: E402
import check_slices as cs  # noqa: E402

SIMS = ["h100x8-nvswitch.json", "mi300x8.json", "mixed.json"]


def published(axl, work):
    """the devices the driver publishes on each sim, as the fake API server stores them"""
    cs.make_certs(work)
    nodes = ["node-%d" % i for i in range(len(SIMS))]
    srv = cs.Server(work, nodes)
    srv.start()
    plugins = []
    try:
        kcfg = cs.kubeconfig(work, srv.port, ca_inline=True)
        devices = []
        for i, sim in enumerate(SIMS):
            path = os.path.join(work, "node%d.json" % i)
            cs.write_sim(path, sim)
            plugins.append(cs.Plugin(axl, work, path, nodes[i], kcfg))
        for p, node, sim in zip(plugins, nodes, SIMS):
            devs = cs.wait_for("%s published" % sim, lambda: cs.pool_devices(srv, node), 15, p)
            print("%s: %d devices published" % (sim, len(devs)))
            devices += devs
        cs.check(not srv.stats()["rejected"], "slices refused: %s" % srv.stats()["rejected"])
        return devices
    finally:
        for p in plugins:
            p.stop()
        srv.stop()


def qualified(name):
    return name if "/" in name else cm.DRIVER + "/" + name


def source_values():
    """what the sources can write for an attribute no sim shows"""
    vendors = set()
    for f in glob.glob(os.path.join(TOP, "src", "lib", "**", "*.c"), recursive=True):
        vendors |= set(re.findall(r'AXL_ATTR_VENDOR,\s*AXL_SOURCE_\w+,\s*"([^"]+)"', open(f).read()))
    h = open(os.path.join(TOP, "include", "axl", "device.h")).read()
    fam = re.search(r"#define AXL_FAMILY_LIST\(X\)(.*?)\n\n", h, re.S).group(1)
    families = set(re.findall(r'X\(\w+,\s*"([^"]+)"\)', fam)) - {"unknown"}
    return {"vendor": vendors, "family": families}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    try:
        devices = published(a.axl, work)
    except cs.Fail as e:
        print("FAIL: %s\n(the work directory %s is kept)" % (e, work))
        return 1
    attrs, caps, values = set(), set(), {}
    for d in devices:
        for k, v in d["attributes"].items():
            attrs.add(qualified(k))
            values.setdefault(qualified(k), set()).update(str(x) for x in v.values())
        caps |= {qualified(k) for k in d.get("capacity", {})}
    print("published: %d attributes, %d capacities" % (len(attrs), len(caps)))
    src = source_values()

    _, byfile = cm.dra_documents()
    classes = [d for ds in byfile.values() for d in ds if d["kind"] == "DeviceClass"]
    claims = cm.doc_claims()
    cm.check(classes and len(claims) >= 3, "%d classes, %d claims" % (len(classes), len(claims)))
    for obj in classes + claims:
        for where, expr in cm.selectors_of(obj):
            refs, whole = cm.cel_refs(expr)
            cm.check(whole, "%s: a device.attributes/capacity read not understood: %s" % (where, expr))
            for kind, dom, name in refs:
                q = dom + "/" + name
                cm.check(q in (attrs if kind == "attributes" else caps), "%s: reads %s %s, which the driver does not publish"
                         % (where, kind, q))
            # "== value" and startsWith("prefix") comparisons of an attribute
            for dom, name, op, val in re.findall(
                    r'device\.attributes\[\s*"([^"]+)"\s*\]\.(\w+)\s*(==|\.startsWith\()\s*"([^"]*)"', expr):
                q = dom + "/" + name
                pub = values.get(q, set())
                ok = any(v.startswith(val) for v in pub) if op != "==" else (val in pub or val in src.get(name, set()))
                cm.check(ok, "%s: %s %s %r: not among the published values %r%s" % (
                    where, q, op, val, sorted(pub), " or the sources' %r" % sorted(src[name]) if name in src else ""))
        if obj["kind"] != "DeviceClass":
            for r in obj["spec"]["devices"]["requests"]:
                for c in r.get("exactly", {}).get("capacity", {}).get("requests", {}):
                    cm.check(qualified(c) in caps, "%s: requests capacity %s, not published" % (obj["metadata"]["name"], c))
            for con in obj["spec"]["devices"].get("constraints", []):
                cm.check(con["matchAttribute"] in attrs, "%s: matchAttribute %s, not published" % (obj["metadata"]["name"], con["matchAttribute"]))
    if cm.failures:
        print("%d failure(s)\n(the work directory %s is kept)" % (len(cm.failures), work))
        return 1
    print("ok: %d classes, %d claims" % (len(classes), len(claims)))
    return 0


if __name__ == "__main__":
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
