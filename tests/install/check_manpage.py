#!/usr/bin/env python3
"""install.manpage: docs/man/axl.1 against the command it documents.

- every command of `axl --help` ("commands:" section) has an entry in COMMANDS, and every
  option the usage text names (--json, -o, ...) is in the page;
- every environment variable the usage text names is in ENVIRONMENT;
- the version in .TH is the library's (include/axl/version.h);
- groff renders it without a warning (-ww), when groff is installed
  (scripts/deps.sh --test installs groff-base).

    check_manpage.py --axl build/axl --page docs/man/axl.1 --version-h include/axl/version.h
"""
import argparse
import re
import shutil
import subprocess
import sys


def roff_text(page):
    """The page's words as a reader sees them: font escapes dropped, \\- as -."""
    t = page.replace("\\-", "-").replace("\\&", "")
    t = re.sub(r"\\f[BIRP]", "", t)
    return t


def sections(page):
    """{section name: its text}"""
    out, name = {}, None
    for line in page.splitlines():
        m = re.match(r'\.SH\s+"?([^"]+)"?', line)
        if m:
            name = m.group(1).strip()
            out[name] = []
        elif name:
            out[name].append(line)
    return {k: "\n".join(v) for k, v in out.items()}


def tp_tags(text):
    """The tag line after each .TP, as text."""
    lines = text.splitlines()
    tags = []
    for i, line in enumerate(lines):
        if line.startswith(".TP") and i + 1 < len(lines):
            tag = re.sub(r"^\.[A-Z]+\s*", "", lines[i + 1]).replace('"', "")
            tags.append(tag.strip())
    return tags


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--axl", required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("--version-h", required=True)
    a = ap.parse_args()

    raw = open(a.page, encoding="utf-8").read()
    page = roff_text(raw)
    secs = {k: roff_text(v) for k, v in sections(raw).items()}
    usage = subprocess.run([a.axl, "--help"], capture_output=True, text=True, check=True).stdout
    failures = []

    for need in ("NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "ENVIRONMENT",
                 "EXIT STATUS", "SEE ALSO"):
        if need not in secs:
            failures.append(f"no {need} section")

    # the commands: lines of the "commands:" block starting in column 3
    block = usage.split("commands:", 1)[1].split("\noptions:", 1)[0]
    commands = sorted({m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)", block, re.M)})
    tags = tp_tags(secs.get("COMMANDS", ""))
    for c in commands:
        if not any(t == c or t.startswith(c + " ") for t in tags):
            failures.append(f"command {c!r} (axl --help) has no entry in COMMANDS")
    # sub-commands named in the usage: cdi generate, limit set, partition create, ...
    for m in re.finditer(r"^  (cdi|limit) ([a-z]+)", block, re.M):
        if not any(t.startswith(f"{m.group(1)} {m.group(2)}") for t in tags):
            failures.append(f"'{m.group(1)} {m.group(2)}' has no entry in COMMANDS")
    m = re.search(r"^  partition ([a-z|]+)", block, re.M)
    if m:
        for sub in m.group(1).split("|"):
            if not any(t.startswith(f"partition {sub}") for t in tags):
                failures.append(f"'partition {sub}' has no entry in COMMANDS")

    # options, anywhere in the usage text
    options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b", usage)))
    for o in options:
        if not re.search(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])", page):
            failures.append(f"option {o} (axl --help) is not in the page")

    # environment variables the usage text names
    env = secs.get("ENVIRONMENT", "")
    for v in sorted(set(re.findall(r"\b(AXL_[A-Z_]*[A-Z]|TMPDIR)\b", usage))):
        if not re.search(r"\b" + re.escape(v) + r"\b", env):
            failures.append(f"environment variable {v} (axl --help) is not in ENVIRONMENT")

    version = re.search(r'#define AXL_VERSION_STRING "([^"]+)"', open(a.version_h).read()).group(1)
    th = re.search(r"^\.TH .*$", raw, re.M)
    if not th or f'"axl {version}"' not in th.group(0):
        failures.append(f".TH does not name axl {version}: {th.group(0) if th else 'no .TH'}")

    groff = shutil.which("groff")
    if groff:
        r = subprocess.run([groff, "-man", "-ww", "-z", "-Tutf8", a.page], capture_output=True, text=True)
        if r.returncode != 0 or r.stderr.strip():
            failures.append(f"groff -ww: {r.stderr.strip() or 'exit ' + str(r.returncode)}")
    else:
        print("groff not installed: the page is not rendered (scripts/deps.sh --test installs groff-base)")

    print(f"{len(commands)} commands, {len(options)} options checked")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
