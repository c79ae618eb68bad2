#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Hostile and broken capture files given as the sysroot: each must be refused with a
clear message, and nothing may be written outside axl's private temporary directory
(which must be gone afterwards).

  hostile.py --axl build/axl --work DIR [--case NAME]
"""
import argparse
import bz2
import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import zlib


def tar_bytes(members, fmt=tarfile.PAX_FORMAT):
    """members: (TarInfo, data or None). Header fields are taken as given."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for ti, data in members:
            t.addfile(ti, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def info(name, kind=tarfile.REGTYPE, size=0, link=""):
    ti = tarfile.TarInfo(name)
    ti.type = kind
    ti.size = size
    ti.linkname = link
    ti.mtime = 0
    ti.mode = 0o644
    return ti


def f(name, data=b"x\n"):
    return (info(name, size=len(data)), data)


def d(name):
    return (info(name, tarfile.DIRTYPE), None)


def gz(raw):
    return gzip.compress(raw, 6)


def good_tree():
    """A small well-formed sysroot (used as the base of damaged ones)."""
    return [d("proc"), f("proc/cpuinfo", b"processor\t: 0\nmodel name\t: test\n" * 40),
            d("sys"), d("sys/devices"), f("sys/devices/x", b"1\n")]


def huge_header(fmt):
    ti = info("sys/huge", size=100 * 10**9)
    return ti.tobuf(fmt)


def many_members(n):
    h = info("f").tobuf(tarfile.USTAR_FORMAT)
    co = zlib.compressobj(1, zlib.DEFLATED, 31)
    out = []
    chunk = h * 2048
    for _ in range(n // 2048):
        out.append(co.compress(chunk))
    out.append(co.compress(h * (n % 2048)))
    out.append(co.compress(b"\0" * 1024))
    out.append(co.flush())
    return b"".join(out)


def bad_checksum():
    raw = bytearray(tar_bytes(good_tree(), tarfile.USTAR_FORMAT))
    raw[512 + 1] ^= 0x01  # the second header's name, checksum left as it was
    return bytes(raw)


def cases(work):
    outside = os.path.join(work, "outside")
    good = gz(tar_bytes(good_tree()))
    return [
        # name, archive bytes, fragment the message must hold
        ("traversal", gz(tar_bytes([d("sys"), f("../../evil-traversal")])), "'..' in the name"),
        ("traversal-inner", gz(tar_bytes([d("sys"), f("sys/../../evil-traversal2")])), "'..' in the name"),
        ("absolute", gz(tar_bytes([f(outside + "/evil-absolute")])), "absolute name"),
        ("symlink-absolute", gz(tar_bytes([(info("sys/l", tarfile.SYMTYPE, link=outside), None),
                                           f("sys/l/evil-through-link")])), "absolute target"),
        ("symlink-escapes", gz(tar_bytes([d("sys"), (info("sys/l", tarfile.SYMTYPE, link="../../.."), None),
                                          f("sys/l/evil-through-link")])), "target leaves the capture"),
        ("write-through-symlink", gz(tar_bytes([d("sys"), d("sys/a"),
                                                (info("sys/a/up", tarfile.SYMTYPE, link=".."), None),
                                                f("sys/a/up/evil-through-link")])), "written through a symlink"),
        ("hardlink", gz(tar_bytes([f("sys/a"), (info("sys/b", tarfile.LNKTYPE, link="sys/a"), None)])),
         "hard links are not allowed"),
        ("char-device", gz(tar_bytes([(info("dev/mem", tarfile.CHRTYPE), None)])), "device nodes are not allowed"),
        ("fifo", gz(tar_bytes([(info("sys/fifo", tarfile.FIFOTYPE), None)])), "FIFOs are not allowed"),
        ("control-char", gz(tar_bytes([f("sys/bad\nname")])), "control character"),
        ("huge-member-pax", gz(huge_header(tarfile.PAX_FORMAT)), "more than the"),
        ("huge-member-gnu", gz(huge_header(tarfile.GNU_FORMAT)), "more than the"),
        ("too-many-members", many_members(1000001), "more than 1000000 members"),
        ("truncated-gzip", good[: len(good) // 2], "truncated gzip stream"),
        ("truncated-tar", tar_bytes(good_tree(), tarfile.USTAR_FORMAT)[:1536 + 100], "truncated archive"),
        ("corrupt-gzip", good[:20] + bytes(b ^ 0x55 for b in good[20:40]) + good[40:], "gzip stream"),
        ("bad-checksum", bad_checksum(), "checksum mismatch"),
        ("trailing-garbage-gzip", good + b"garbage", "after the end of the gzip stream"),
        ("trailing-garbage-tar", tar_bytes(good_tree(), tarfile.USTAR_FORMAT) + b"\1" * 512,
         "after the end of the archive"),
        ("zero-bomb", gz(tar_bytes(good_tree(), tarfile.USTAR_FORMAT) + b"\0" * (8 << 20)),
         "of padding after the archive"),
        ("not-a-tar", b"hello, this is not a capture\n" * 40, "neither a directory nor a tar"),
        ("empty-file", b"", "empty file"),
        ("bzip2", bz2.compress(tar_bytes(good_tree())), "bzip2"),
    ]


def snapshot(root):
    out = set()
    for dp, dn, fn in os.walk(root):
        for n in dn + fn:
            out.add(os.path.relpath(os.path.join(dp, n), root))
    return out


def run_case(axl, work, name, data, fragment):
    arch = os.path.join(work, "archives", name + ".tar.gz")
    with open(arch, "wb") as fh:
        fh.write(data)
    tmp = os.path.join(work, "tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    before = snapshot(work)
    env = dict(os.environ, TMPDIR=tmp)
    env.pop("AXL_SYSROOT", None)
    p = subprocess.run([axl, "list", "--sysroot", arch], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    err = p.stderr.decode(errors="replace").strip()
    errors = []
    if p.returncode == 0:
        errors.append("accepted (exit 0); stdout: %s" % p.stdout.decode(errors="replace")[:200])
    if fragment not in err:
        errors.append("message %r lacks %r" % (err, fragment))
    if "refused" not in err and "sysroot" not in err:
        errors.append("message %r does not say the capture was refused" % err)
    if os.listdir(tmp):
        errors.append("left behind in TMPDIR: %s" % os.listdir(tmp))
    new = snapshot(work) - before
    if new:
        errors.append("written outside the temporary directory: %s" % sorted(new))
    for leak in ("/evil-traversal", "/evil-traversal2"):
        if os.path.exists(os.path.join(os.path.dirname(work), leak.strip("/"))):
            errors.append("a member escaped to %s" % leak)
    return errors, err


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--case")
    a = ap.parse_args()
    # deep enough that "../../" from the temporary directory still lands in work/
    work = os.path.abspath(os.path.join(a.work, "w1", "w2"))
    shutil.rmtree(os.path.abspath(a.work), ignore_errors=True)
    os.makedirs(os.path.join(work, "archives"))
    os.makedirs(os.path.join(work, "outside"))
    passed = failed = 0
    for name, data, frag in cases(work):
        if a.case and name != a.case:
            continue
        errs, msg = run_case(os.path.abspath(a.axl), work, name, data, frag)
        if errs:
            failed += 1
            print("FAIL %s" % name)
            for e in errs:
                print("  " + e)
        else:
            passed += 1
            print("ok   %-24s %s" % (name, msg))
    # and nothing escaped anywhere above the work folder
    for dp, dn, fn in os.walk(os.path.abspath(a.work)):
        for n in fn:
            if n.startswith("evil"):
                failed += 1
                print("FAIL a member was written: %s" % os.path.join(dp, n))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import workdir  # noqa: E402
    sys.exit(workdir.finish(main()))
