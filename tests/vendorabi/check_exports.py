#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every vendor symbol axl resolves by name exists in the vendor's real library.

  check_exports.py --src src --absent tests/vendorabi/absent-symbols.tsv [--cc cc] [--lib NAME=PATH]...

The names come from two places, and both are checked:
  - every function src/abi/<vendor>/*.h declares (the ABI axl calls or replaces);
  - every string literal under src/ that is a vendor entry point's name ("cuMemAlloc_v2",
    "nvmlInit_v2", "rsmi_dev_busy_percent_get", ...): what dlsym, cuGetProcAddress and the
    limiter's tables look up. Each of them must also be declared in src/abi (one
    declaration of the ABI), or the test says which is not.

Each name is looked up in the dynamic symbol table (nm -D --defined-only) of the real
library Debian ships: libcuda.so.1 and libnvidia-ml.so.1 (NVIDIA 535.261.03, non-free),
librocm_smi64.so.1 (ROCm 5.2.3), libamdhip64.so.5 (ROCm 5.2.3), libze_loader.so.1 (Level
Zero 1.8.12). A name the library does not export must be listed in absent-symbols.tsv
with the release that added it (or why it is not there) and what axl does without it; an
entry for a name the library does export, or that axl no longer uses, is stale and fails
too. A library that is not installed is skipped and said so; exit 77 when none is.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_abi  # noqa: E402

# which library answers which names (the library's soname as the loader finds it)
LIBRARIES = [
    ("libcuda.so.1", "libcuda1 (non-free)", re.compile(r"^cu[A-Z]")),
    ("libnvidia-ml.so.1", "libnvidia-ml1 (non-free)", re.compile(r"^nvml[A-Z]")),
    ("librocm_smi64.so.1", "librocm-smi64-1", re.compile(r"^rsmi_")),
    ("libamdhip64.so.5", "libamdhip64-5", re.compile(r"^hip[A-Z]")),
    ("libze_loader.so.1", "libze1", re.compile(r"^ze[sl]?[A-Z]")),
]
LITERAL = re.compile(r'"((?:cu|nvml|hip|ze|zes|zel)[A-Z][A-Za-z0-9_]*|rsmi_[a-z0-9_]+)"')
# literals of those shapes that are not entry points: type and result names printed in
# messages, environment variable-like words
NOT_SYMBOLS = re.compile(r"^(hipError|hipSuccess|CUDA_|ze_result|ZE_)|_t$")


def find_library(soname, overrides):
    if soname in overrides:
        return overrides[soname]
    out = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.strip().split(" => ")
        if len(parts) == 2 and parts[0].split()[0] == soname and "x86-64" in parts[0] + "x86-64":
            return parts[1]
    for d in ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib", "/lib"):
        p = os.path.join(d, soname)
        if os.path.exists(p):
            return p
    return None


def exports(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "TtWiV":
            names.add(parts[2].split("@")[0])
    return names


def declared(src, cc):
    names = {}
    for h in sorted(glob.glob(os.path.join(src, "abi", "*", "*.h"))):
        decls = check_abi.parse(check_abi.preprocess(cc, h, [src], []))
        for f in decls.functions:
            names.setdefault(f, os.path.relpath(h, os.path.dirname(src)))
    return names


def literals(src):
    found = {}
    for path in sorted(glob.glob(os.path.join(src, "**", "*.[ch]"), recursive=True)):
        text = check_abi_strip(open(path, errors="replace").read())
        for m in LITERAL.finditer(text):
            name = m.group(1)
            if not NOT_SYMBOLS.search(name):
                found.setdefault(name, os.path.relpath(path, os.path.dirname(src)))
    return found


def check_abi_strip(text):
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", text), flags=re.S)


def load_absent(path):
    table = {}
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.rstrip("\n").split("\t")
        if len(cols) != 4 or not all(c.strip() for c in cols):
            sys.exit("%s:%d: want 4 tab-separated columns: library, symbol, added in, what axl does without it"
                     % (path, n))
        table[(cols[0], cols[1])] = (cols[2], cols[3])
    return table


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", required=True)
    ap.add_argument("--absent", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--lib", action="append", default=[], help="SONAME=PATH: use PATH for that library")
    a = ap.parse_args()
    overrides = dict(x.split("=", 1) for x in a.lib)

    decl = declared(a.src, a.cc)
    lits = literals(a.src)
    absent = load_absent(a.absent)
    problems = []
    for name, where in sorted(lits.items()):
        if name not in decl:
            problems.append("%s (a name %s looks up) is not declared in src/abi" % (name, where))
    names = dict(decl)
    for name, where in lits.items():
        names.setdefault(name, where)

    checked = skipped_libs = 0
    used_absent = set()
    for soname, package, rx in LIBRARIES:
        mine = sorted(n for n in names if rx.match(n))
        path = find_library(soname, overrides)
        if not path:
            skipped_libs += 1
            print("SKIP %s: not installed (Debian: %s); %d names not checked" % (soname, package, len(mine)))
            continue
        have = exports(path)
        missing = []
        for n in mine:
            checked += 1
            if n in have:
                continue
            if (soname, n) in absent:
                used_absent.add((soname, n))
                missing.append(n)
                continue
            problems.append("%s does not export %s (used by %s): add it to %s with the release that added it "
                            "and what axl does without it" % (soname, n, names[n], os.path.basename(a.absent)))
        for (lib, n), (since, without) in sorted(absent.items()):
            if lib == soname and n in have:
                problems.append("%s: %s is exported by %s after all: a stale entry" % (a.absent, n, path))
        print("%s (%s): %d names, %d exported, %d not exported (listed: %s)"
              % (soname, os.path.realpath(path), len(mine), len(mine) - len(missing), len(missing),
                 ", ".join("%s since %s" % (n, absent[(soname, n)][0]) for n in missing) or "none"))
    for key in sorted(absent):
        lib, n = key
        if n not in names:
            problems.append("%s: %s %s is no longer used by axl: a stale entry" % (a.absent, lib, n))
    for p in problems:
        print("FAIL: " + p)
    print("%d names axl resolves (%d declared in src/abi, %d looked up by name in src), %d checked against "
          "real libraries, %d problems" % (len(names), len(decl), len(lits), checked, len(problems)))
    if problems:
        return 1
    if skipped_libs == len(LIBRARIES):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
