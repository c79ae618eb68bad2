# SPDX-License-Identifier: MIT
"""The visibility variables (docs/visibility.md): the names the backends declare
(`vis_vars` in each backend's row, `const char *const axl__<vendor>_vis_vars[] = {...}`
in src/lib/backend/<vendor>/), read from the sources so that a variable a backend adds
is cleared too.

A developer's shell (CUDA_VISIBLE_DEVICES=0) must not change what a test sees: on the
live system the variables apply, and on a simulated or re-rooted node they draw a
warning. Tests that compare documents run axl with clean(os.environ).
"""
import glob
import os
import re

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_DECL = re.compile(r"const\s+char\s*\*\s*const\s+axl__\w+_vis_vars\s*\[\s*\]\s*=\s*\{([^}]*)\}")


def names():
    """The union of the names the backends declare, sorted; raises when none is found
    (the declarations moved: this file must follow them)."""
    found = set()
    for path in sorted(glob.glob(os.path.join(TOP, "src", "lib", "backend", "*", "*.c"))):
        with open(path, encoding="utf-8", errors="replace") as f:
            for m in _DECL.finditer(f.read()):
                found.update(re.findall(r'"([A-Z0-9_]+)"', m.group(1)))
    if not found:
        raise RuntimeError("no vis_vars declaration under src/lib/backend (tests/tools/visvars.py)")
    return sorted(found)


def clean(env):
    """A copy of env without the visibility variables."""
    drop = set(names())
    return {k: v for k, v in env.items() if k not in drop}


if __name__ == "__main__":
    print(" ".join(names()))
