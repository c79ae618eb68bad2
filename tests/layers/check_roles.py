#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""layers.roles: no circle between source files of different roles (issue 25).

A file A uses a file B when A's object file needs a symbol B's defines (nm: U in A, T/D/B/R
in B). In each tree checked, every strongly connected component of that graph (files that
reach each other, directly or around a circle) must be one file, or files of one vendor's
folder of the limiter (src/limiter/nvidia/, src/limiter/amd/: a side's files may call each
other). So:

  src/limiter/   the core (front door, sides' table, dl, log, limits, allocation map, region,
                 state, compute limit) reaches a side only through sides.c's table, and no
                 side reaches another side
  src/compat/    each file of the TensorFusion provider
  src/lib/metrics/  the sampler, the sample writer, the collectors

  check_roles.py --build BUILD_DIR --source SOURCE_DIR [--tree src/limiter ...]

The object files are the build's (CMakeFiles/<target>.dir/<source>.o). Prints each circle
with the symbols that close it; exits 1 when there is one, 0 otherwise.
"""
import argparse
import glob
import os
import subprocess
import sys

TREES = ["src/limiter", "src/compat", "src/lib/metrics"]
# folders whose files may call each other (one vendor's side of the limiter)
ONE_ROLE = ["src/limiter/nvidia/", "src/limiter/amd/"]
# defined here under a libc name (the front door interposes dlsym): a call to it is a call
# to libc's, not a use of the file that interposes it
INTERPOSED = {"dlsym"}


def objects(build, source, tree):
    """{source path relative to source: object path} for the C files under tree"""
    out = {}
    for obj in glob.glob(os.path.join(build, "CMakeFiles", "*.dir", tree, "**", "*.c.o"), recursive=True):
        rel = obj.split(".dir" + os.sep, 1)[1][:-2]  # drop ".o"
        if os.path.exists(os.path.join(source, rel)):
            # a file built into several targets: any one object tells the same symbols
            out.setdefault(rel, obj)
    return out


def symbols(obj):
    r = subprocess.run(["nm", obj], capture_output=True, text=True, check=True)
    defined, used = set(), set()
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRVW" and parts[1].isupper():
            defined.add(parts[2])
    return defined, used


def sccs(nodes, edges):
    """Tarjan's strongly connected components"""
    index, low, on, stack, out, n = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def one_role(files):
    return any(all(f.startswith(folder) for f in files) for folder in ONE_ROLE)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--tree", action="append")
    a = ap.parse_args()
    bad = 0
    for tree in a.tree or TREES:
        objs = objects(a.build, a.source, tree)
        if not objs:
            print("FAIL %s: no object files under %s (built?)" % (tree, a.build))
            bad += 1
            continue
        syms = {f: symbols(o) for f, o in objs.items()}
        owner = {}
        for f, (defined, _) in syms.items():
            for s in defined - INTERPOSED:
                owner.setdefault(s, f)
        edges, why = {}, {}
        for f, (_, used) in syms.items():
            for s in used:
                g = owner.get(s)
                if g and g != f:
                    edges.setdefault(f, set()).add(g)
                    why.setdefault((f, g), []).append(s)
        circles = [c for c in sccs(list(syms), edges) if len(c) > 1 and not one_role(c)]
        for c in circles:
            bad += 1
            print("FAIL %s: a circle between %s" % (tree, ", ".join(c)))
            for f in c:
                for g in sorted(edges.get(f, ())):
                    if g in c:
                        print("    %s -> %s (%s)" % (f, g, ", ".join(sorted(why[(f, g)])[:4])))
        print("%s: %d files, %d uses between files, %d circle(s) across roles"
              % (tree, len(syms), sum(len(v) for v in edges.values()), len(circles)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
