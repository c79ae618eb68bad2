# SPDX-License-Identifier: MIT
"""The GPU-layer fork of exo's own tests, run on axl.exo.

  run_fork_tests.py [--exo PATH] [pytest args...]

PATH: a checkout of HautlyS/exo (the fork whose src/exo/gpu README is the design axl.exo
serves, docs/exo.md) or its bare git directory: $AXL_EXO_FORK_SRC by default. The fork's
tests of its interface, factory, discovery and CPU backend (src/exo/gpu/tests/
test_backend_interface.py, test_factory.py, test_discovery.py, test_all_backends.py) are
copied as they are and run with `exo.gpu.backend`, `.factory`, `.discovery` and
`.backends.cpu_backend` answered by axl.exo (the fork's CPUBackend is axl's backend on
the cpu device). The fork's own pydantic models are not used (Debian's pydantic is 1.x,
the fork's 2.x): what it asks of its MemoryHandle, axl.exo's stand-in answers.

Deselected, each for a reason that is the fork's test and not the interface:
  - test_all_backends.py::...::test_cpu_backend_init and test_discovery.py::...::
    test_discovery_service_initialization read private attributes (_initialized,
    _devices) of the fork's own classes;
  - test_factory.py::...::test_cpu_backend_creation and test_backend_override want the
    factory to make the fork's CPUBackend class: axl's factory makes axl's backend.

Needs Debian's python3-pytest and python3-pytest-asyncio (the tests are asyncio); exits
77 (skipped) without them or without the source, 1 with a message for a source that is
not the fork's, else with pytest's status."""
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
TESTS = ["test_backend_interface.py", "test_factory.py", "test_discovery.py", "test_all_backends.py"]
DESELECT = [
    "test_all_backends.py::TestCPUBackendInitialization::test_cpu_backend_init",
    "test_discovery.py::TestGPUDiscoveryService::test_discovery_service_initialization",
    "test_factory.py::TestGPUBackendFactory::test_cpu_backend_creation",
    "test_factory.py::TestGPUBackendFactory::test_backend_override",
]
# exo.gpu.* as the fork's tests import them, answered by axl.exo
SHIM = {
    "exo/__init__.py": "",
    "exo/gpu/__init__.py": "",
    "exo/gpu/backend.py": "from axl.exo.interface import GPUBackend, GPUDevice, MemoryHandle  # noqa: F401\n",
    "exo/gpu/factory.py": "from axl.exo.factory import *  # noqa: F401,F403\n"
                          "from axl.exo.factory import GPUBackendFactory, detect_available_backends  # noqa: F401\n",
    "exo/gpu/discovery.py": "from axl.exo.discovery import *  # noqa: F401,F403\n",
    "exo/gpu/backends/__init__.py": "",
    "exo/gpu/backends/cpu_backend.py": (
        "from axl.exo import AxlGPUBackend\n\n\n"
        "class CPUBackend(AxlGPUBackend):\n"
        "    \"\"\"The fork's CPU backend: axl's backend on the cpu device.\"\"\"\n\n"
        "    def __init__(self) -> None:\n"
        "        super().__init__(\"cpu\")\n"),
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exo", default=os.environ.get("AXL_EXO_FORK_SRC"))
    args, rest = ap.parse_known_args()
    for mod, pkg in (("pytest", "python3-pytest"), ("pytest_asyncio", "python3-pytest-asyncio")):
        if subprocess.run([sys.executable, "-c", "import " + mod], capture_output=True).returncode:
            skip("%s is not installed" % pkg)
    with tempfile.TemporaryDirectory(prefix="axl-exo-fork-") as work:
        rels = ["src/exo/gpu/tests/" + t for t in TESTS]
        fork = checkout(args.exo, "exo fork", "--exo or $AXL_EXO_FORK_SRC", rels, os.path.join(work, "fork"))
        shim = os.path.join(work, "shim")
        for rel, text in SHIM.items():
            os.makedirs(os.path.dirname(os.path.join(shim, rel)), exist_ok=True)
            with open(os.path.join(shim, rel), "w") as f:
                f.write(text)
        tests = os.path.join(work, "tests")
        os.makedirs(tests)
        for t, rel in zip(TESTS, rels):
            if not os.path.isfile(os.path.join(fork, rel)):
                sys.exit("%s has no %s: not the exo fork's source" % (args.exo, rel))
            shutil.copyfile(os.path.join(fork, rel), os.path.join(tests, t))
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([shim, os.path.join(ROOT, "python")]),
                   PYTHONDONTWRITEBYTECODE="1", HOME=work)  # the discovery registry's default place
        cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-W", "ignore::DeprecationWarning",
               "-o", "asyncio_mode=strict", tests]
        # exact node ids (pytest's --deselect matches prefixes: test_backend_override
        # would take test_backend_override_invalid with it)
        with open(os.path.join(tests, "conftest.py"), "w") as f:
            f.write("DESELECT = %r\n\n\n"
                    "def pytest_collection_modifyitems(config, items):\n"
                    "    gone = [i for i in items if i.nodeid.split('/')[-1] in DESELECT]\n"
                    "    config.hook.pytest_deselected(items=gone)\n"
                    "    items[:] = [i for i in items if i not in gone]\n" % (DESELECT,))
        return subprocess.run(cmd + rest, env=env, cwd=work, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
