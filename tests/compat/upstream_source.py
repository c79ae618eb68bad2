# SPDX-License-Identifier: MIT
"""An upstream project's files for the optional runs against upstream code
(tests/compat/backendai/run_upstream.py, tests/compat/exo/run_fork_tests.py): a checkout
as it is, or HEAD of a bare git directory exported with git archive. A missing source is
a skip (exit 77), not a failure: a clean clone has none; a source given that is not one
(not a directory, a bare directory git cannot read, files missing) is an error."""
from __future__ import annotations

import os
import subprocess
import sys

SKIP = 77


def skip(why: str) -> None:
    print("skipped: %s" % why)
    sys.exit(SKIP)


def checkout(path: str | None, what: str, hint: str, paths: list[str], into: str) -> str:
    """A directory holding paths of the project what: path itself, or HEAD's paths
    exported from path (a bare git directory) into into. hint: how to give the source."""
    if not path:
        skip("no %s source given (%s)" % (what, hint))
    if not os.path.isdir(path):
        sys.exit("%s source %s is not a directory" % (what, path))
    if not (os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(os.path.join(path, "objects"))):
        return path
    os.makedirs(into)
    arch = subprocess.run(["git", "--git-dir", path, "archive", "HEAD"] + paths,
                          capture_output=True, check=False)
    if arch.returncode != 0:
        # a source was given and is broken: an error, not a skip
        sys.exit("%s: git archive of %s failed: %s" % (what, path, arch.stderr.decode(errors="replace").strip()))
    subprocess.run(["tar", "-x", "-C", into], input=arch.stdout, check=True)
    commit = subprocess.run(["git", "--git-dir", path, "rev-parse", "HEAD"], capture_output=True,
                            text=True, check=False).stdout.strip()
    print("%s: %s at %s" % (what, path, commit or "?"))
    return into
