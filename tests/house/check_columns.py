#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""style.columns: no line of the tree's C, nor of the Python package, is longer than
.clang-format's ColumnLimit.

  check_columns.py [--top DIR]    every .c and .h under src/, include/, tests/, bench/
                                  and tools/, and every .py under python/; prints each
                                  line over the limit as path:line: N columns, then the
                                  count per file
  check_columns.py --selftest     the checker on made-up files (it must fail them)

The limit and the tab width are read from .clang-format (ColumnLimit, TabWidth): a tab
advances to the next multiple of TabWidth, as clang-format counts it. Columns are
counted in characters of the UTF-8 text, not bytes. Nothing is exempt: a file written
elsewhere and copied in (a vendor's header) is not C of this tree's and is not under
these folders (src/abi declares the vendors' ABIs in this tree's style).
"""
import argparse
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
# (folder, the endings checked there)
FOLDERS = (("src", (".c", ".h")), ("include", (".c", ".h")), ("tests", (".c", ".h")), ("bench", (".c", ".h")),
           ("tools", (".c", ".h")), ("python", (".py",)))


def style(top):
    """ColumnLimit and TabWidth of .clang-format (LLVM's defaults, 80 and 8, if absent)."""
    limit, tab = 80, 8
    with open(os.path.join(top, ".clang-format"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r"^\s*(ColumnLimit|TabWidth)\s*:\s*(\d+)\s*(#.*)?$", line)
            if m and m.group(1) == "ColumnLimit":
                limit = int(m.group(2))
            elif m:
                tab = int(m.group(2))
    return limit, tab


def width(line, tab):
    col = 0
    for ch in line:
        col = (col // tab + 1) * tab if ch == "\t" else col + 1
    return col


def files(top):
    for folder, exts in FOLDERS:
        root = os.path.join(top, folder)
        for dp, dns, fs in os.walk(root):
            dns[:] = sorted(d for d in dns if d != "__pycache__" and not d.startswith("."))
            for f in sorted(fs):
                if f.endswith(exts):
                    yield os.path.join(dp, f)


def check(top):
    limit, tab = style(top)
    per_file = {}
    bad = []
    for path in files(top):
        rel = os.path.relpath(path, top)
        with open(path, encoding="utf-8", errors="replace") as f:
            for i, line in enumerate(f, 1):
                n = width(line.rstrip("\r\n"), tab)
                if n > limit:
                    bad.append("%s:%d: %d columns (limit %d)" % (rel, i, n, limit))
                    per_file[rel] = per_file.get(rel, 0) + 1
    return limit, tab, bad, per_file


def report(top):
    limit, tab, bad, per_file = check(top)
    for b in bad:
        print(b)
    for rel, n in sorted(per_file.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %4d  %s" % (n, rel))
    print("style.columns: %d lines over %d columns (tabs of %d) in %d files" % (len(bad), limit, tab, len(per_file)))
    return 1 if bad else 0


def selftest():
    fails = 0
    with tempfile.TemporaryDirectory(prefix="axl-columns-") as d:
        with open(os.path.join(d, ".clang-format"), "w") as f:
            f.write("# a comment: ColumnLimit: 7\nColumnLimit: 20\nTabWidth: 8\n")
        os.makedirs(os.path.join(d, "src", "x"))
        os.makedirs(os.path.join(d, "tests"))
        os.makedirs(os.path.join(d, "python", "p"))
        cases = {
            "src/x/ok.c": "a" * 20 + "\n\t" + "b" * 12 + "\n\xe9" * 3 + "\n",      # 20, 8 + 12, é
            "src/x/long.h": "a" * 21 + "\n",                                       # 21
            "tests/tab.c": "\t\t" + "c" * 5 + "\n",                                # 16 + 5 = 21
            "tests/midtab.c": "abc\t" + "d" * 13 + "\n",                           # 8 + 13 = 21
            "tests/notc.py": "x" * 99 + "\n",                                      # not C
            "python/p/long.py": "y" * 21 + "\n",                                  # the package
            "python/p/ok.py": "y" * 20 + "\n",
        }
        for rel, text in cases.items():
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
        limit, tab, bad, per_file = check(d)
        want = {"src/x/long.h", "tests/tab.c", "tests/midtab.c", "python/p/long.py"}
        if (limit, tab) != (20, 8):
            print("FAIL: read limit %d, tab %d from .clang-format, expected 20, 8" % (limit, tab))
            fails += 1
        if set(per_file) != want or len(bad) != 4:
            print("FAIL: flagged %s, expected %s" % (sorted(bad), sorted(want)))
            fails += 1
        if any(":1: 21 columns" not in b for b in bad):
            print("FAIL: widths %s, expected 21 each" % bad)
            fails += 1
    print("style.columns selftest: %s" % ("FAIL" if fails else "ok"))
    return 1 if fails else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", default=TOP)
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    return selftest() if a.selftest else report(a.top)


if __name__ == "__main__":
    sys.exit(main())
