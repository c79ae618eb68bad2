"""Shared fixtures of the Python package's tests.

Run by ctest (python.<file>) with AXL_LIBRARY (the built libaxl.so.0), AXL_CLI (the
built axl command) and PYTHONPATH (python/) set; by hand:
  PYTHONPATH=python AXL_LIBRARY=build/libaxl.so.0 AXL_CLI=build/axl /usr/bin/python3 -m pytest tests/python
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys

import pytest

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIMS = sorted(glob.glob(os.path.join(TESTS, "sim", "*.json")))
TREES = sorted(p for p in glob.glob(os.path.join(TESTS, "trees", "nodes", "*.json"))
               if not p.endswith(".expect.json"))
MKTREE = os.path.join(TESTS, "trees", "mktree.py")
sys.path.insert(0, os.path.join(TESTS, "reallibs"))
import icds  # noqa: E402  (which OpenCL ICDs a run loaded)


def axl_cli() -> str:
    cli = os.environ.get("AXL_CLI")
    if not cli:
        lib = os.environ.get("AXL_LIBRARY", "")
        cli = os.path.join(os.path.dirname(lib), "axl") if lib else "axl"
    return cli


def run_cli(*args: str, env: dict[str, str] | None = None) -> str:
    r = subprocess.run([axl_cli(), *args], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, "axl %s: %s" % (" ".join(args), r.stderr)
    return r.stdout


def cli_json(*args: str, env: dict[str, str] | None = None):
    return json.loads(run_cli(*args, env=env))


@pytest.fixture(scope="session")
def tree_dir(tmp_path_factory):
    """Build (once) the mktree sysroot of a tests/trees/nodes spec: tree_dir(spec) -> path."""
    base = tmp_path_factory.mktemp("trees")
    made: dict[str, str] = {}

    def make(spec: str) -> str:
        if spec not in made:
            out = str(base / os.path.basename(spec)[:-5])
            r = subprocess.run([sys.executable, MKTREE, spec, out], capture_output=True, text=True)
            if r.returncode != 0:
                pytest.skip("mktree cannot build %s: %s" % (spec, r.stderr.strip()))
            made[spec] = out
        return made[spec]
    return make


@pytest.fixture
def sim_h100x2() -> str:
    return os.path.join(TESTS, "sim", "h100x2.json")


def pytest_terminal_summary(terminalreporter):
    """The OpenCL ICDs this run loaded (issue 33: the tests say which they ran on), when
    it used OpenCL at all."""
    if any(os.path.basename(p).startswith("libOpenCL.so") for p in icds.mapped()):
        terminalreporter.write_line(icds.describe("self"))
