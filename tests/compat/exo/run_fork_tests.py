# SPDX-License-Identifier: MIT
"""The GPU-layer fork of exo's own tests, run on axl.exo.

  run_fork_tests.py [--exo PATH] [pytest args...]

PATH: a checkout of HautlyS/exo (the fork whose src/exo/gpu README is the design axl.exo
serves, docs/exo.md) or its bare git directory: $AXL_EXO_FORK_SRC by default. All nine
of the fork's GPU test files (src/exo/gpu/tests/test_*.py, TESTS below) are copied as
they are and run with `exo.gpu.backend`, `.factory`, `.discovery`, `.monitoring`,
`.backends.cpu_backend` and `.backends.cuda_backend` answered by axl.exo (the fork's
CPUBackend and CUDABackend are axl's backends on the cpu device and on CUDA). The fork's
own pydantic models are not used (Debian's pydantic is 1.x, the fork's 2.x): what it asks
of its MemoryHandle, axl.exo's stand-in answers.

Deselected: the tests that contradict the fork's own interface or read the fork's
private code, each with its reason in DESELECT below. test_cuda_backend.py's tests of
the backend skip themselves without CuPy (the fork's CUDA backend is CuPy's), which axl
does not need: they run where CuPy is installed.

Needs Debian's python3-pytest and python3-pytest-asyncio (the tests are asyncio) and
python3-numpy (test_precision_loss.py); exits 77 (skipped) without them or without the
source, 1 with a message for a source that is not the fork's, else with pytest's
status."""
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
TESTS = ["test_backend_interface.py", "test_factory.py", "test_discovery.py", "test_all_backends.py",
         "test_gpu_reliability.py", "test_platform_detection.py", "test_precision_loss.py",
         "test_monitoring.py", "test_cuda_backend.py"]
# node id -> why it is not run (HautlyS/exo 1c6dd01)
DESELECT = {
    "test_all_backends.py::TestCPUBackendInitialization::test_cpu_backend_init":
        "reads _devices, a private attribute of the fork's CPUBackend",
    "test_discovery.py::TestGPUDiscoveryService::test_discovery_service_initialization":
        "reads _initialized and _devices, private attributes of the fork's discovery service",
    "test_gpu_reliability.py::TestGPUInitialization::test_device_info_completeness":
        "asks the factory's default device for a hardware vendor (nvidia, amd, intel, apple, "
        "qualcomm) and bandwidth_gbps > 0 without skipping the CPU fallback, as its other "
        "tests do (skip_if_cpu_backend): the fork's own CPUBackend (vendor \"system\", "
        "bandwidth 0.0) fails it on every GPU-less node",
    "test_gpu_reliability.py::TestGPUInitialization::test_device_not_found":
        "wants RuntimeError from get_device() of an unknown id; the fork's GPUBackend.get_device "
        "docstring says \"GPUDevice or None if device not found\", and its test_cuda_backend "
        "asserts None",
    "test_gpu_reliability.py::TestMonitoring::test_memory_info":
        "looks for keys \"used\"/\"available\"; the fork's get_device_memory_info docstring "
        "and every backend of it return used_bytes/available_bytes",
    "test_gpu_reliability.py::TestMonitoring::test_temperature_monitoring":
        "compares the answer with 0; the fork's docstring returns None when not available "
        "(its CPUBackend always does), so None >= 0 is a TypeError",
    "test_gpu_reliability.py::TestMonitoring::test_power_usage_monitoring":
        "compares the answer with 0; the fork's docstring returns None when not available",
    "test_gpu_reliability.py::TestMonitoring::test_clock_rate_monitoring":
        "compares the answer with 0; the fork's docstring returns None when not available",
    "test_platform_detection.py::TestAvailableBackendDetection::test_detect_available_backends":
        "calls detect_available_backends() without await; in the fork it is a coroutine "
        "function (factory.py: async def detect_available_backends), and the fork's own "
        "test_factory awaits it",
    "test_platform_detection.py::TestAvailableBackendDetection::test_available_backends_format":
        "iterates detect_available_backends() without await (a coroutine, as above)",
    "test_platform_detection.py::TestAvailableBackendDetection::test_get_gpu_backend_info":
        "calls GPUBackendFactory.get_gpu_backend_info, which the fork's factory class does not "
        "have (a module function), and wants a \"backend\" or \"available_backends\" key where its "
        "docstring returns {backend name: devices}",
    "test_precision_loss.py::TestMultiDevicePrecisionChain::test_precision_loss_chain_accumulation":
        "asserts that a second float32->float16->float32 round trip adds error; a value already "
        "rounded to float16 converts exactly (IEEE 754), so error_3 == error_1 always; numpy "
        "only, no GPU layer in it",
    "test_cuda_backend.py::TestCUDAMemoryOperations::test_memory_deallocation":
        "wants a second deallocate() not to raise; the fork's GPUBackend.deallocate docstring "
        "says RuntimeError on failure (test_gpu_reliability's test_double_deallocate_handling "
        "asserts it)",
    "test_cuda_backend.py::TestCUDABandwidthEstimate::test_bandwidth_estimate_ampere":
        "tests _estimate_bandwidth, the fork's private table of guessed bandwidths per compute "
        "capability (500 GB/s for any unknown); axl reports the inventory's bandwidth or unknown",
    "test_cuda_backend.py::TestCUDABandwidthEstimate::test_bandwidth_estimate_ada":
        "_estimate_bandwidth: the fork's private guess table, as above",
    "test_cuda_backend.py::TestCUDABandwidthEstimate::test_bandwidth_estimate_unknown":
        "_estimate_bandwidth: asserts the made-up 500 GB/s for an unknown GPU, as above",
}
# exo.gpu.* as the fork's tests import them, answered by axl.exo
SHIM = {
    "exo/__init__.py": "",
    "exo/gpu/__init__.py": "",
    "exo/gpu/backend.py": "from axl.exo.interface import GPUBackend, GPUDevice, MemoryHandle  # noqa: F401\n",
    "exo/gpu/factory.py": "from axl.exo.factory import *  # noqa: F401,F403\n"
                          "from axl.exo.factory import GPUBackendFactory, detect_available_backends  # noqa: F401\n",
    "exo/gpu/discovery.py": "from axl.exo.discovery import *  # noqa: F401,F403\n",
    "exo/gpu/backends/__init__.py": "",
    "exo/gpu/monitoring.py": "from axl.exo.monitoring import *  # noqa: F401,F403\n",
    "exo/gpu/backends/cpu_backend.py": "from axl.exo.backends.cpu_backend import CPUBackend  # noqa: F401\n",
    "exo/gpu/backends/cuda_backend.py": "from axl.exo.backends.cuda_backend import CUDABackend  # noqa: F401\n",
}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exo", default=os.environ.get("AXL_EXO_FORK_SRC"))
    args, rest = ap.parse_known_args()
    for mod, pkg in (("pytest", "python3-pytest"), ("pytest_asyncio", "python3-pytest-asyncio"),
                     ("numpy", "python3-numpy")):
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
        for node, why in DESELECT.items():
            print("deselected %s: %s" % (node, why))
        sys.stdout.flush()
        return subprocess.run(cmd + rest, env=env, cwd=work, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
