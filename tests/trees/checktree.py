#!/usr/bin/env python3
"""Sanity-check a tree built by mktree.py: the invariants real sysfs keeps.

usage: checktree.py TREE [--damaged]

Checks every sys/bus/pci/devices/* link resolves to a directory under
sys/devices/pci*, that its driver link resolves to sys/bus/pci/drivers/<name>
and the driver dir links back, that vendor/device/class agree with config,
that every sys/class/*/* and sys/dev/char/* link resolves to a directory with
a matching 'dev' file, that iommu_group links resolve, and that no file
exceeds 64 KiB (except /proc/cpuinfo, whose real size grows with the CPU
count).  With --damaged, broken entries are reported but not counted.
Exit status 0 when clean.
"""

import os
import struct
import sys


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    root = os.path.abspath(sys.argv[1])
    damaged = "--damaged" in sys.argv
    errors = []
    notes = []

    def err(msg):
        (notes if damaged else errors).append(msg)

    sysd = os.path.join(root, "sys")
    busdev = os.path.join(sysd, "bus/pci/devices")
    for name in sorted(os.listdir(busdev)) if os.path.isdir(busdev) else []:
        p = os.path.join(busdev, name)
        if not os.path.islink(p):
            err("%s: not a symlink" % name)
            continue
        real = os.path.realpath(p)
        if not os.path.isdir(real):
            err("%s: link does not resolve (%s)" % (name, os.readlink(p)))
            continue
        rel = os.path.relpath(real, sysd)
        if not rel.startswith("devices/pci") or os.path.basename(real) != name:
            err("%s: resolves outside sys/devices/pci*: %s" % (name, rel))
        drv = os.path.join(p, "driver")
        if os.path.lexists(drv):
            dreal = os.path.realpath(drv)
            dname = os.path.basename(os.readlink(drv))
            if os.path.relpath(dreal, sysd) != "bus/pci/drivers/" + dname or not os.path.isdir(dreal):
                err("%s: driver link resolves to %s" % (name, dreal))
            elif os.path.realpath(os.path.join(dreal, name)) != real:
                err("%s: driver %s has no back link" % (name, dname))
        try:
            with open(os.path.join(p, "config"), "rb") as f:
                cfg = f.read(64)
            vid, did = struct.unpack_from("<HH", cfg, 0)
            with open(os.path.join(p, "vendor")) as f:
                v = int(f.read().strip(), 16)
            with open(os.path.join(p, "device")) as f:
                d = int(f.read().strip(), 16)
            with open(os.path.join(p, "class")) as f:
                c = int(f.read().strip(), 16)
            if (vid, did) != (v, d) or (cfg[11] << 16 | cfg[10] << 8 | cfg[9]) != c:
                err("%s: config disagrees with vendor/device/class" % name)
        except (OSError, ValueError, struct.error):
            pass
        g = os.path.join(p, "iommu_group")
        if os.path.lexists(g):
            greal = os.path.realpath(g)
            if not os.path.relpath(greal, sysd).startswith("kernel/iommu_groups/"):
                err("%s: iommu_group resolves to %s" % (name, greal))
    cls = os.path.join(sysd, "class")
    for c in sorted(os.listdir(cls)) if os.path.isdir(cls) else []:
        for n in sorted(os.listdir(os.path.join(cls, c))):
            p = os.path.join(cls, c, n)
            if not os.path.islink(p):
                continue
            real = os.path.realpath(p)
            if not os.path.isdir(real):
                err("class/%s/%s: dangling" % (c, n))
                continue
            sub = os.path.join(real, "subsystem")
            if os.path.lexists(sub) and os.path.realpath(sub) != os.path.join(sysd, "class", c):
                err("class/%s/%s: subsystem link wrong" % (c, n))
            dev = os.path.join(real, "device")
            if os.path.lexists(dev) and not os.path.isdir(os.path.realpath(dev)):
                err("class/%s/%s: device link dangling" % (c, n))
    chard = os.path.join(sysd, "dev/char")
    for n in sorted(os.listdir(chard)) if os.path.isdir(chard) else []:
        p = os.path.join(chard, n)
        try:
            with open(os.path.join(os.path.realpath(p), "dev")) as f:
                if f.read().strip() != n:
                    err("dev/char/%s: dev file mismatch" % n)
        except OSError:
            err("dev/char/%s: unresolvable" % n)
    for dp, dns, fns in os.walk(root):
        for fn in fns:
            p = os.path.join(dp, fn)
            if os.path.islink(p):
                continue
            try:
                size = os.path.getsize(p)
            except OSError:
                continue
            if size > 65536 and os.path.relpath(p, root) != "proc/cpuinfo":
                err("%s: %d bytes" % (os.path.relpath(p, root), size))
    for m in errors:
        print("ERROR", m)
    for m in notes:
        print("damaged:", m)
    print("%s: %d errors" % (os.path.basename(root), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
