#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Capture and replay, end to end, through the axl command.

  roundtrip.py --axl build/axl --work DIR --case NAME
  roundtrip.py --list

Cases:
  live                this machine: `axl capture`, then `axl list --json --all` on the
                      capture file and on its unpacked folder equals the live listing
                      (host, devices, links, PCI functions)
  fixture-<replay>    a replay fixture's tree as the sysroot: capture it, replay the
                      capture: the document equals the fixture's golden document byte for
                      byte (so recording from a sysroot works and the recorded set of
                      files is complete)
  capture-of-capture  a capture replayed and captured again replays the same
  direct-tarball      a real capture tarball (prometheus/procfs DRM tree) used directly
                      as the sysroot gives the golden document of its unpacked folder
  newer-manifest      a capture whose manifest says schema_version 99 replays (file and
                      folder) to the same devices as version 1, with exactly one warning
                      naming the sysroot and both versions
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "replay"))
import replay  # noqa: E402  (build_root, the fixture list)

FIXTURES = ["kfd-8x-mi300x-cpx", "hgx-8x-h100", "hwloc-power9-6x-v100-numa", "procfs-drm-vega10-i915",
            "laptop-npu-2gpu", "damaged"]
CASES = ["live", "capture-of-capture", "direct-tarball", "newer-manifest"] + ["fixture-" + f for f in FIXTURES]


def env(tmp):
    e = dict(os.environ)
    for k in ("AXL_SYSROOT", "AXL_BACKENDS"):
        e.pop(k, None)
    e["TMPDIR"] = tmp
    return e


def axl(a, args, tmp, pci_ids=None, stderr=None):
    e = env(tmp)
    if pci_ids:
        e["AXL_PCI_IDS"] = pci_ids
    p = subprocess.run([a] + args, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        raise RuntimeError("axl %s exited %d: %s" % (" ".join(args), p.returncode, p.stderr.decode(errors="replace")))
    if stderr is not None:
        stderr.append(p.stderr.decode(errors="replace"))
    return p.stdout.decode()


def check_archive(path, errors):
    """Our captures hold only directories, files and relative symlinks that stay inside,
    plus the manifest."""
    with tarfile.open(path) as t:
        names = t.getnames()
        man = json.load(t.extractfile("axl-capture/manifest.json"))
        for m in t.getmembers():
            if not (m.isdir() or m.isfile() or m.issym()):
                errors.append("member %s has type %r" % (m.name, m.type))
            if m.name.startswith("/") or ".." in m.name.split("/"):
                errors.append("member name %s" % m.name)
            if m.issym():
                if m.linkname.startswith("/"):
                    errors.append("absolute symlink %s -> %s" % (m.name, m.linkname))
                depth = len(m.name.split("/")) - 1
                for c in m.linkname.split("/"):
                    depth += -1 if c == ".." else (0 if c in ("", ".") else 1)
                    if depth < 0:
                        errors.append("symlink %s -> %s leaves the tree" % (m.name, m.linkname))
                        break
    try:
        import jsonschema
        with open(os.path.join(TOP, "schema", "axl-capture.schema.json")) as fh:
            v = jsonschema.Draft202012Validator(json.load(fh))
        for e in v.iter_errors(man):
            errors.append("manifest: /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message))
    except ImportError:
        errors.append("python3-jsonschema is not installed: cannot validate the manifest")
    for k, want in (("schema", "axl.capture"), ("schema_version", 1)):
        if man.get(k) != want:
            errors.append("manifest %s = %r" % (k, man.get(k)))
    for k in ("generator", "created", "hostname", "kernel", "tree", "vendor_answers", "command_line"):
        if k not in man:
            errors.append("manifest lacks %s" % k)
    if man.get("tree", {}).get("unrecorded_paths", 0) != 0:
        errors.append("paths that could not be recorded: %r" % man["tree"])
    if len(names) != len(set(names)):
        errors.append("duplicate members")
    return man


def unpack(path, dest):
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with tarfile.open(path) as t:
        for m in t.getmembers():
            t.extract(m, dest, set_attrs=False)


def compare(a, b, what, errors, keys=None):
    da, db = json.loads(a), json.loads(b)
    for k in keys or sorted(set(da) | set(db)):
        if da.get(k) != db.get(k):
            import difflib
            diff = difflib.unified_diff(json.dumps(da.get(k), indent=1).splitlines(),
                                        json.dumps(db.get(k), indent=1).splitlines(), "expected", what,
                                        lineterm="", n=2)
            errors.append("%s: '%s' differs:\n%s" % (what, k, "\n".join(list(diff)[:60])))


def case_live(a, work, tmp, errors):
    cap = os.path.join(work, "live.tar.gz")
    out = axl(a, ["capture", "-o", cap], tmp)
    if "wrote " + cap not in out:
        errors.append("capture output: %r" % out)
    live = axl(a, ["list", "--json", "--all"], tmp)
    man = check_archive(cap, errors)
    if man.get("rerooted") is not False:
        errors.append("manifest of a live capture says rerooted=%r" % man.get("rerooted"))
    keys = ["schema", "host", "devices", "links", "pci_functions"]
    rep = axl(a, ["list", "--json", "--all", "--sysroot", cap], tmp)
    if json.loads(rep).get("rerooted") is not True:
        errors.append("a replayed capture is not marked rerooted")
    compare(live, rep, "replay of the capture file", errors, keys)
    folder = os.path.join(work, "live-unpacked")
    unpack(cap, folder)
    compare(live, axl(a, ["list", "--json", "--all", "--sysroot", folder], tmp),
            "replay of the unpacked folder", errors, keys)
    # the table view and `show` work on it too
    axl(a, ["list", "--sysroot", cap], tmp)
    axl(a, ["show", "cpu:0", "--all", "--sysroot", cap], tmp)


def fixture_root(name, work):
    case = [c for c in replay.all_cases() if c[0] == name]
    if not case:
        raise RuntimeError("no replay case %s" % name)
    root = os.path.join(work, "fixture-" + name)
    replay.build_root(case[0][1], case[0][2], root)
    return root


def golden(name):
    with open(os.path.join(TOP, "tests", "replay", "golden", name + ".json")) as fh:
        return fh.read()


def case_fixture(a, work, tmp, name, errors):
    root = fixture_root(name, work)
    cap = os.path.join(work, name + ".tar.gz")
    axl(a, ["capture", "-o", cap, "--sysroot", root], tmp, pci_ids="/dev/null")
    man = check_archive(cap, errors)
    if man.get("rerooted") is not True or man.get("sysroot") != root:
        errors.append("manifest: rerooted=%r sysroot=%r" % (man.get("rerooted"), man.get("sysroot")))
    got = axl(a, ["list", "--json", "--all", "--sysroot", cap], tmp, pci_ids="/dev/null")
    if got != golden(name):
        compare(golden(name), got, "replay of the capture", errors)
        if not errors:
            errors.append("the document differs from the golden one in formatting")


def case_capture_of_capture(a, work, tmp, errors):
    name = "hgx-8x-h100"
    root = fixture_root(name, work)
    c1 = os.path.join(work, "c1.tar.gz")
    c2 = os.path.join(work, "c2.tar.gz")
    axl(a, ["capture", "-o", c1, "--sysroot", root], tmp, pci_ids="/dev/null")
    axl(a, ["capture", "-o", c2, "--sysroot", c1], tmp, pci_ids="/dev/null")
    check_archive(c2, errors)
    with tarfile.open(c1) as t1, tarfile.open(c2) as t2:
        n1 = set(t1.getnames())
        n2 = set(t2.getnames())
    if n1 != n2:
        errors.append("a capture of a capture holds other members: %s" % sorted(n1 ^ n2)[:20])
    got = axl(a, ["list", "--json", "--all", "--sysroot", c2], tmp, pci_ids="/dev/null")
    if got != golden(name):
        compare(golden(name), got, "replay of the second capture", errors)


def case_direct_tarball(a, work, tmp, errors):
    src = os.path.join(TOP, "tests", "replay", "fixtures", "procfs-derived-sys-class-drm-amdgpu-vega10-i915.tar.gz")
    got = axl(a, ["list", "--json", "--all", "--sysroot", src], tmp, pci_ids="/dev/null")
    if got != golden("procfs-drm-vega10-i915"):
        compare(golden("procfs-drm-vega10-i915"), got, "the tarball as the sysroot", errors)


def case_newer_manifest(a, work, tmp, errors):
    name = "hgx-8x-h100"
    root = fixture_root(name, work)
    c1 = os.path.join(work, "v1.tar.gz")
    axl(a, ["capture", "-o", c1, "--sysroot", root], tmp, pci_ids="/dev/null")
    folder = os.path.join(work, "v99")
    unpack(c1, folder)
    man = os.path.join(folder, "axl-capture", "manifest.json")
    with open(man) as fh:
        m = json.load(fh)
    m["schema_version"] = 99
    m["added_later"] = {"what": "a key this axl does not know"}
    with open(man, "w") as fh:
        json.dump(m, fh)
    c99 = os.path.join(work, "v99.tar.gz")
    with tarfile.open(c99, "w:gz") as t:
        for n in sorted(os.listdir(folder)):
            t.add(os.path.join(folder, n), n)
    want = json.loads(axl(a, ["list", "--json", "--sysroot", c1], tmp, pci_ids="/dev/null"))
    if want.get("warnings"):
        errors.append("version 1 replay warns: %r" % want["warnings"])
    for sysroot in (c99, folder):
        got = json.loads(axl(a, ["list", "--json", "--sysroot", sysroot], tmp, pci_ids="/dev/null"))
        for k in ("host", "devices", "links"):
            if got.get(k) != want.get(k):
                errors.append("%s: '%s' differs from the version 1 replay" % (sysroot, k))
        ws = [w for w in got.get("warnings", []) if "schema_version" in w.get("message", "")]
        if len(ws) != 1 or ws[0].get("path") != sysroot or "99" not in ws[0]["message"] or "(1)" not in ws[0]["message"]:
            errors.append("%s: warnings %r" % (sysroot, got.get("warnings")))
        err = []
        axl(a, ["list", "--sysroot", sysroot], tmp, pci_ids="/dev/null", stderr=err)
        lines = [l for l in err[0].splitlines() if "schema_version" in l]
        want_line = ("axl: warning: %s: axl-capture/manifest.json: schema_version 99 is newer than this axl reads (1); "
                     "reading what it understands" % sysroot)
        if lines != [want_line]:
            errors.append("%s: stderr %r" % (sysroot, err[0]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl")
    ap.add_argument("--work", default="/tmp/axl-capture-test")
    ap.add_argument("--case")
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print(";".join(CASES))
        return 0
    todo = CASES if not a.case else [a.case]
    failed = passed = 0
    for case in todo:
        work = os.path.abspath(os.path.join(a.work, case))
        shutil.rmtree(work, ignore_errors=True)
        tmp = os.path.join(work, "tmp")
        os.makedirs(tmp)
        errors = []
        exe = os.path.abspath(a.axl)
        try:
            if case == "live":
                case_live(exe, work, tmp, errors)
            elif case == "capture-of-capture":
                case_capture_of_capture(exe, work, tmp, errors)
            elif case == "direct-tarball":
                case_direct_tarball(exe, work, tmp, errors)
            elif case == "newer-manifest":
                case_newer_manifest(exe, work, tmp, errors)
            elif case.startswith("fixture-") and case[8:] in FIXTURES:
                case_fixture(exe, work, tmp, case[8:], errors)
            else:
                errors.append("no such case")
        except Exception as e:  # one broken case must not hide the others
            errors.append("%s: %s" % (type(e).__name__, e))
        if os.path.isdir(tmp) and os.listdir(tmp):
            errors.append("unpacked captures left in TMPDIR: %s" % os.listdir(tmp))
        if errors:
            failed += 1
            print("FAIL %s" % case)
            for e in errors:
                print("  " + e)
        else:
            passed += 1
            print("ok   %s" % case)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
