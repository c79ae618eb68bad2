# SPDX-License-Identifier: MIT
"""tests/python/test_backendai.py against Backend.AI's own code, not the stand-in.

  run_upstream.py [--backendai PATH] [--aiodocker PATH] [--python PY] [--package DIR]
                  [pytest args...]

PATH: a checkout of lablup/backend.ai (aio-libs/aiodocker), or its bare git directory
(then HEAD's files are exported with git archive). Defaults: $AXL_BACKENDAI_SRC,
$AXL_AIODOCKER_SRC. PY runs upstream's code, which needs Python 3.12 or later (it
imports typing.override; the agent's own tooling pins 3.13): $AXL_UPSTREAM_PYTHON, else
python3.13, python3.12 on PATH. DIR: the folder holding the axl package (default: this
checkout's python/; another revision's shows which checks fail without a fix).

Upstream's ai.backend.agent, .common, .plugin, .logging and .accelerator packages and
aiodocker are put first on the path, so the test's imports (AbstractComputePlugin,
KernelResourceSpec, DockerContainer, alloc maps and AffinityMap, MountInfo,
DockerKernelCreationContext, scan_entrypoints, ComputePluginContext, ...) are upstream's;
AXL_BACKENDAI_UPSTREAM=1 keeps the test from putting the stand-in first. attrs,
more_itertools, networkx, pytest and jsonschema are Debian's (pure Python, taken from
this interpreter's dist-packages: python3-attr, python3-more-itertools, python3-networkx,
python3-pytest, python3-jsonschema); the other third-party modules the agent imports are
stood in for (upstream_stubs.py, names in STUBBED). Exits 77 (skipped) when a source or
the interpreter is missing, 1 with a message for a source that is not one, else with
pytest's status."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
from upstream_source import checkout, skip  # noqa: E402  (tests/compat)

# imported by ai.backend.* on the way to what the test drives; never run by it
STUBBED = ("aiohttp aiofiles aiomonitor aiotools async_timeout cachetools callosum coloredlogs "
           "dateutil etcd_client glide humps ifaddr janus jwt lark msgpack multidict "
           "opentelemetry orjson prometheus_client psutil pydantic pydantic_core "
           "pythonjsonlogger redis temporenc tenacity tomli trafaret typeguard yarl zmq").split()
# Debian's pure-Python packages the checked code runs for real
REAL = ("attr", "attrs", "more_itertools", "networkx", "_pytest", "pytest", "pluggy", "iniconfig",
        "packaging", "py.py", "jsonschema", "pyrsistent")
BACKENDAI_PATHS = ["src/ai/backend/agent", "src/ai/backend/common", "src/ai/backend/plugin",
                   "src/ai/backend/logging", "src/ai/backend/accelerator", "VERSION"]


def interpreter(given: str | None) -> str:
    for py in ([given] if given else ["python3.13", "python3.12"]):
        exe = shutil.which(py)
        if exe:
            ok = subprocess.run([exe, "-c", "import sys; assert sys.version_info >= (3, 12)"],
                                capture_output=True, check=False).returncode == 0
            if ok:
                return exe
    skip("no Python 3.12 or later to run upstream's code (--python or $AXL_UPSTREAM_PYTHON)")
    raise AssertionError


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backendai", default=os.environ.get("AXL_BACKENDAI_SRC"))
    ap.add_argument("--aiodocker", default=os.environ.get("AXL_AIODOCKER_SRC"))
    ap.add_argument("--python", default=os.environ.get("AXL_UPSTREAM_PYTHON"))
    ap.add_argument("--package", default=os.path.join(ROOT, "python"))
    args, rest = ap.parse_known_args()
    py = interpreter(args.python)
    work = tempfile.mkdtemp(prefix="axl-upstream-")
    try:
        bai = checkout(args.backendai, "backendai", "--backendai or $AXL_BACKENDAI_SRC", BACKENDAI_PATHS,
                       os.path.join(work, "backendai"))
        aio = checkout(args.aiodocker, "aiodocker", "--aiodocker or $AXL_AIODOCKER_SRC", ["aiodocker"],
                       os.path.join(work, "aiodocker"))
        if not os.path.isdir(os.path.join(bai, "src", "ai", "backend", "agent")):
            sys.exit("%s has no src/ai/backend/agent: not a backend.ai source" % bai)
        if not os.path.isdir(os.path.join(aio, "aiodocker")):
            sys.exit("%s has no aiodocker package: not an aiodocker source" % aio)
        site = os.path.join(work, "site")
        os.makedirs(site)
        dist = next((p for p in sys.path if p.endswith("dist-packages") and
                     os.path.isdir(os.path.join(p, "attr"))), None)
        missing = [m for m in REAL if not dist or not os.path.exists(os.path.join(dist, m))]
        if missing:
            skip("Debian's %s not installed for %s" % (", ".join(missing), sys.executable))
        for m in REAL:
            os.symlink(os.path.join(dist, m), os.path.join(site, m))
        boot = ("import os, sys\n"
                "sys.path[:0] = %r\n"
                "import upstream_stubs\n"
                "upstream_stubs.install(%r)\n"
                "import pytest\n"
                "sys.exit(pytest.main(%r))\n") % (
            [HERE, os.path.join(bai, "src"), aio, site, os.path.abspath(args.package)],
            list(STUBBED),
            ["-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
             os.path.join(ROOT, "tests", "python", "test_backendai.py")] + rest)
        env = dict(os.environ, AXL_BACKENDAI_UPSTREAM="1", PYTHONPATH="", PYTHONDONTWRITEBYTECODE="1")
        ver = subprocess.run([py, "--version"], capture_output=True, text=True).stdout.strip()
        print("running tests/python/test_backendai.py on upstream's classes with %s (%s)" % (py, ver))
        sys.stdout.flush()
        return subprocess.run([py, "-c", boot], env=env, cwd=work, check=False).returncode
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
