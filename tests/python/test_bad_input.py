"""Bad input everywhere: exceptions, never a crash."""

from __future__ import annotations

import pytest

import axl


def test_open_bad(tmp_path):
    with pytest.raises(axl.AxlError) as e:
        axl.open(sim=str(tmp_path / "missing.json"))
    assert e.value.code < 0 and e.value.name.startswith("E") and e.value.message
    bad = tmp_path / "bad.json"
    bad.write_text("{nope")
    with pytest.raises(axl.AxlError):
        axl.open(sim=str(bad))
    with pytest.raises(axl.InvalidArgumentError) as e:
        axl.open(backends="nosuchbackend")
    assert e.value.name == "EINVAL"
    with pytest.raises(TypeError):
        axl.open(sim=42)
    with pytest.raises(TypeError):
        axl.open(backends=[1, 2])
    with pytest.raises(ValueError):
        axl.open(sim="a\0b")
    with pytest.raises(TypeError):
        axl.open(env="CUDA_VISIBLE_DEVICES=0")
    with pytest.raises(ValueError):
        axl.open(env=["NOEQUALS"])
    with pytest.raises(axl.AxlError):
        axl.open(str(tmp_path / "no-such-root"))


def test_closed_inventory(sim_h100x2):
    inv = axl.open(sim=sim_h100x2)
    c = axl.compute.open(inv)
    s = axl.Sampler(inv)
    buf = c.alloc(0, 64)
    inv.close()
    inv.close()
    assert c.closed and s.closed and buf.closed
    for call in (lambda: inv.json(), lambda: axl.Sampler(inv), lambda: axl.compute.open(inv),
                 lambda: axl.plan("llama3.1-8b", inv), lambda: axl.limits(inv),
                 lambda: axl.partitions(inv), lambda: s.sample(), lambda: buf.read(),
                 lambda: c.alloc(0, 1), lambda: inv.state_dir):
        with pytest.raises(axl.ClosedError):
            call()
    assert inv.devices  # the parsed facts stay readable


def test_wrong_types(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv:
        for bad in (None, "inv", 3, object()):
            with pytest.raises(TypeError):
                axl.Sampler(bad)
            with pytest.raises(TypeError):
                axl.compute.open(bad)
            with pytest.raises(TypeError):
                axl.limits(bad)
        with pytest.raises(TypeError):
            inv.device(0)
        with pytest.raises(axl.NotFoundError):
            inv.device("nvidia:99")
        with pytest.raises(TypeError):
            axl.set_limit(inv, 0, compute_percent=5)
        with pytest.raises(TypeError):
            axl.limit_env(inv, "nvidia:0")
        with pytest.raises(axl.NotFoundError):
            axl.limit_env(inv, ["nvidia:42"])
        with pytest.raises(axl.NotFoundError):
            axl.create_partition(inv, "nvidia:42", "1g.10gb")
        with pytest.raises(TypeError):
            axl.plan(3, inv)
        with pytest.raises(axl.NotFoundError):
            axl.plan("no-such-model-xyz", inv)
        with pytest.raises(axl.InvalidArgumentError):
            axl.plan("llama3.1-8b", inv, quantization="q99")
        with pytest.raises(axl.InvalidArgumentError):
            axl.plan("llama3.1-8b", inv, devices="nvidia:42")
        for kw in ({"batch": 0}, {"batch": 1 << 40}, {"context_tokens": -1},
                   {"network_gbps": -1.0}, {"network_gbps": float("nan")}):
            with pytest.raises(ValueError):
                axl.plan("llama3.1-8b", inv, **kw)
        with pytest.raises(TypeError):
            axl.plan("llama3.1-8b", inv, batch="8")
        with pytest.raises(TypeError):
            axl.plan("llama3.1-8b", [object()])
        with pytest.raises(axl.ParseError):
            axl.plan("llama3.1-8b", ["{}"])
        with pytest.raises(axl.InvalidArgumentError):
            axl.compute.open(inv, backend="nosuch")


def test_compute_bad(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv, axl.compute.open(inv) as c:
        for size in (0, -1, 1 << 64, 1 << 70):
            with pytest.raises(ValueError):
                c.alloc(0, size)
        with pytest.raises(axl.AxlError):
            c.alloc(0, 1 << 62)              # huge: ENOMEM, not a crash
        with pytest.raises(TypeError):
            c.alloc(0, 1.5)
        with pytest.raises(ValueError):
            c.alloc(0, 16, kind="gpu")
        with pytest.raises(axl.InvalidArgumentError):
            c.alloc(99, 16)
        with pytest.raises(axl.InvalidArgumentError):
            c.alloc("nvidia:42", 16)
        with pytest.raises(TypeError):
            c.alloc(object(), 16)
        buf = c.alloc(0, 16)
        with pytest.raises(TypeError):
            buf.write("a str")
        with pytest.raises(TypeError):
            buf.write(12)
        with pytest.raises(TypeError):
            buf.read_into(b"readonly")
        with pytest.raises(axl.InvalidArgumentError):
            buf.write(b"x" * 17)
        with pytest.raises(axl.InvalidArgumentError):
            buf.write(b"x", offset=16)
        with pytest.raises(ValueError):
            buf.write(b"x", offset=-1)
        with pytest.raises(ValueError):
            buf.fill(256)
        with pytest.raises(axl.InvalidArgumentError):
            buf.fill(1, offset=8, size=9)
        with pytest.raises(axl.InvalidArgumentError):
            buf.host_pointer() if buf.kind == "device" and c.devices[0].backend != "cpu" else \
                c.copy(buf, buf, 16, dst_offset=1)
        with pytest.raises(TypeError):
            c.copy(buf, b"bytes")
        with pytest.raises(TypeError):
            c.copy(buf, buf, queue="q")
        buf.free()
        buf.free()
        for call in (lambda: buf.read(), lambda: buf.write(b"x"), lambda: buf.fill(0),
                     lambda: c.copy(buf, buf), lambda: buf.host_pointer()):
            with pytest.raises(axl.ClosedError):
                call()
        q = c.queue()
        e = q.record()
        e.wait()
        with pytest.raises(TypeError):
            e.elapsed_ns(3)
        e.free()
        with pytest.raises(axl.ClosedError):
            e.wait()
        q.free()
        with pytest.raises(axl.ClosedError):
            q.sync()
        with axl.open(sim=sim_h100x2) as inv2, axl.compute.open(inv2) as c2:
            other = c2.alloc(0, 16)
            mine = c.alloc(0, 16)
            with pytest.raises(axl.InvalidArgumentError):
                c.copy(mine, other)
    with pytest.raises(axl.ClosedError):
        c.alloc(0, 16)
    with pytest.raises(axl.ClosedError):
        mine.read()


def test_error_attributes():
    e = axl.AxlError(-3, "msg")
    assert e.code == -3 and e.name == "ENOENT" and e.message == "msg"
    assert issubclass(axl.NotFoundError, LookupError)
    assert issubclass(axl.InvalidArgumentError, ValueError)
    assert issubclass(axl.PermissionDeniedError, PermissionError)


def test_library_not_found(tmp_path):
    import os
    import subprocess
    import sys
    code = ("import axl\ntry:\n    axl.open()\nexcept axl.LibraryNotFoundError as e:\n"
            "    print('refused', e.name)\n")
    env = {**os.environ, "AXL_LIBRARY": str(tmp_path / "libaxl.so.0")}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0 and "refused EVERSION" in r.stdout, r.stderr
