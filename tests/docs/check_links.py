#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every link of the user documentation resolves inside the repository.

  check_links.py [--top DIR]            check README.md, CONTRIBUTING.md, docs/**.md,
                                        python/*.md and the descriptions in schema/*.json
  check_links.py --selftest             the checker on made-up pages (it must fail them)

A markdown link or image `[text](target)` (and a reference `[id]: target`) whose target
is not a URL (`http:`, `https:`, `mailto:`) is a path relative to the page: it must exist
and stay inside the repository. An anchor (`page.md#heading`, `#heading`) must name a
heading of that page (GitHub's slugs). Documents named as code with a path that starts with `../`
(as `../shared/spec/json-contract.md` was, a folder users do not have) must resolve inside
the repository too (a `../../../sys/x` of an example is no document), as must `docs/...`, `schema/...` paths written in schema descriptions.
"""
import argparse
import glob
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.M)
CODE_UP = re.compile(r"`(\.\./[^`\s]+\.(?:md|json))`")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
# schema descriptions name files of the repository in running text
SCHEMA_PATH = re.compile(r"\b((?:docs|schema|tests|python|data)/[A-Za-z0-9_./-]+\.(?:md|json|py|txt|1))")


def pages(top):
    out = [os.path.join(top, f) for f in ("README.md", "CONTRIBUTING.md") if os.path.isfile(os.path.join(top, f))]
    out += sorted(glob.glob(os.path.join(top, "docs", "**", "*.md"), recursive=True))
    out += sorted(glob.glob(os.path.join(top, "python", "*.md")))
    out += sorted(glob.glob(os.path.join(top, "python", "axl", "**", "*.md"), recursive=True))
    return out


def slug(heading):
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped,
    spaces to dashes."""
    h = heading.strip().lower()
    h = re.sub(r"`|\*\*|__", "", h)
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path, cache):
    if path not in cache:
        seen = {}
        out = set()
        with open(path, encoding="utf-8") as f:
            text = FENCE.sub("", f.read())
        for m in re.finditer(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, re.M):
            s = slug(m.group(1))
            n = seen.get(s, 0)
            seen[s] = n + 1
            out.add(s if n == 0 else "%s-%d" % (s, n))
        for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", text):
            out.add(m.group(1))
        cache[path] = out
    return cache[path]


def inside(top, path):
    top = os.path.realpath(top)
    real = os.path.realpath(path)
    return real == top or real.startswith(top + os.sep)


def check_target(top, page, target, what, errors, cache):
    rel = os.path.relpath(page, top)
    if EXTERNAL.match(target):
        return
    path, _, frag = target.partition("#")
    dest = page if not path else os.path.normpath(os.path.join(os.path.dirname(page), path))
    if not inside(top, dest):
        errors.append("%s: %s %s leaves the repository (%s)" % (rel, what, target, os.path.relpath(dest, top)))
        return
    if not os.path.exists(dest):
        errors.append("%s: %s %s: no such file (%s)" % (rel, what, target, os.path.relpath(dest, top)))
        return
    if frag and dest.endswith(".md") and frag not in anchors(dest, cache):
        errors.append("%s: %s %s: no heading #%s in %s" % (rel, what, target, frag, os.path.relpath(dest, top)))


def check_page(top, page, errors, cache):
    with open(page, encoding="utf-8") as f:
        raw = f.read()
    text = FENCE.sub("", raw)
    prose = INLINE_CODE.sub("", text)
    n = 0
    for m in LINK.finditer(prose):
        check_target(top, page, m.group(1), "link", errors, cache)
        n += 1
    for m in REFDEF.finditer(prose):
        check_target(top, page, m.group(1), "link", errors, cache)
        n += 1
    for m in CODE_UP.finditer(text):
        check_target(top, page, m.group(1), "path", errors, cache)
        n += 1
    return n


def check_schema(top, path, errors):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    n = 0
    rel = os.path.relpath(path, top)
    for m in re.finditer(r"\.\./[A-Za-z0-9_./-]+", text):
        errors.append("%s: %s leaves the repository" % (rel, m.group(0)))
        n += 1
    for m in SCHEMA_PATH.finditer(text):
        n += 1
        if not os.path.exists(os.path.join(top, m.group(1))):
            errors.append("%s: %s: no such file" % (rel, m.group(1)))
    return n


def check_tree(top):
    errors, cache, n = [], {}, 0
    ps = pages(top)
    for p in ps:
        n += check_page(top, p, errors, cache)
    ss = sorted(glob.glob(os.path.join(top, "schema", "*.json")))
    for s in ss:
        n += check_schema(top, s, errors)
    return errors, len(ps) + len(ss), n


def selftest():
    """The checker fails what it must: a page in a made-up repository with one good link
    and every kind of bad one."""
    ok = True
    with tempfile.TemporaryDirectory() as d:
        top = os.path.join(d, "repo")
        os.makedirs(os.path.join(top, "docs"))
        os.makedirs(os.path.join(top, "schema"))
        with open(os.path.join(d, "outside.md"), "w") as f:
            f.write("# Out\n")
        with open(os.path.join(top, "docs", "a.md"), "w") as f:
            f.write("# A page\n\n## The `Units`: one rule\n\n[b](b.md) [self](#a-page) [u](#the-units-one-rule)\n"
                    "[web](https://example.com/x) `code [x](nowhere.md)`\n\n```\n[fenced](nowhere.md)\n```\n")
        with open(os.path.join(top, "docs", "b.md"), "w") as f:
            f.write("# B\n")
        with open(os.path.join(top, "schema", "x.schema.json"), "w") as f:
            f.write('{"description": "see docs/a.md"}\n')
        errors, _, n = check_tree(top)
        if errors or n < 4:
            print("FAIL selftest: a good tree gives %r (%d links)" % (errors, n))
            ok = False
        bad = {
            "leaves": ("[o](../../outside.md)", "leaves the repository"),
            "missing": ("[m](missing.md)", "no such file"),
            "anchor": ("[h](b.md#nothing)", "no heading #nothing"),
            "own anchor": ("[h](#nothing)", "no heading #nothing"),
            "code path up": ("`../../shared/spec/json-contract.md`", "leaves the repository"),
            "reference": ("[r]: ../../outside.md", "leaves the repository"),
            "image": ("![i](img/none.png)", "no such file"),
        }
        for name, (line, want) in bad.items():
            p = os.path.join(top, "docs", "c.md")
            with open(p, "w") as f:
                f.write("# C\n\n%s\n" % line)
            errors, _, _ = check_tree(top)
            os.unlink(p)
            if len(errors) != 1 or want not in errors[0]:
                print("FAIL selftest %s: %r gives %r" % (name, line, errors))
                ok = False
        with open(os.path.join(top, "schema", "y.schema.json"), "w") as f:
            f.write('{"description": "see docs/none.md and ../shared/spec/x.md"}\n')
        errors, _, _ = check_tree(top)
        if len(errors) != 2:
            print("FAIL selftest schema: %r" % errors)
            ok = False
    print("selftest %s" % ("ok" if ok else "FAILED"))
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", default=TOP)
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()
    if a.selftest:
        return selftest()
    errors, files, n = check_tree(a.top)
    for e in errors:
        print("FAIL %s" % e)
    print("%d files, %d links and paths, %d broken" % (files, n, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
