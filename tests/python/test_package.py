"""The package as docs/python.md uses it: every submodule the page names works after a
plain `import axl` (issue 34: `axl.runtime` needed `import axl.runtime`), and importing
loads no library."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import SIMS, cli_json

H100X2 = [s for s in SIMS if os.path.basename(s) == "h100x2.json"][0]


def _fresh(code: str, **env: str) -> subprocess.CompletedProcess:
    """`code` in a new interpreter: nothing imported before it."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, **env})


def test_submodules_after_import_axl():
    code = ("import axl, sys\n"
            "for m in ('runtime', 'compute'):\n"
            "    print(m, type(getattr(axl, m)).__name__, 'axl.' + m in sys.modules)\n"
            "print(callable(axl.runtime.device_runtime), callable(axl.runtime.cdi_kind))\n")
    r = _fresh(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["runtime module True", "compute module True", "True True"]


def test_import_loads_no_library(tmp_path):
    # a library that is not there: importing (the submodules too) still works
    r = _fresh("import axl\nprint(axl.runtime.RUNTIME_PRELOAD_LIMITS)\n",
               AXL_LIBRARY=str(tmp_path / "libaxl.so.0"))
    assert r.returncode == 0 and r.stdout == "2\n", r.stderr


def test_runtime_after_import_axl():
    # the page's call, in a fresh interpreter, against `axl cdi list`'s kind
    code = ("import axl\n"
            "with axl.open(sim=%r) as inv:\n"
            "    print(axl.runtime.cdi_kind(inv, 'nvidia:0'))\n"
            "    print(axl.runtime.device_runtime(inv, 'nvidia:0').kind)\n" % H100X2)
    r = _fresh(code)
    assert r.returncode == 0, r.stderr
    kind, vendor_kind = r.stdout.splitlines()
    names = cli_json("cdi", "list", "--json", "--sim", H100X2)
    assert any(n.startswith(kind + "=") for n in names), (kind, names)
    assert vendor_kind == "nvidia.com/gpu"
