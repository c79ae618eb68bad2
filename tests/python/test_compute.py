"""Compute on the cpu backend (and opencl / vulkan by name when PoCL / lavapipe are there):
bytes, bytearray, memoryview and numpy round trips."""

from __future__ import annotations

import os
import select
import sys

import pytest

import axl

SIZE = 1 << 20


def _roundtrip(c: axl.compute.Compute, dev) -> None:
    src = bytes(range(256)) * (SIZE // 256)
    for kind in ("device", "pinned", "host"):
        with c.alloc(dev, SIZE, kind) as buf:
            assert buf.size == SIZE and buf.kind == kind
            assert buf.write(src).path in ("host", "device", "peer", "staged")
            assert buf.read() == src
            ba = bytearray(SIZE)
            buf.read_into(ba)
            assert ba == src
            mv = memoryview(bytearray(100))
            buf.read_into(mv, offset=10)
            assert bytes(mv) == src[10:110]
            buf.write(memoryview(b"xyz"), offset=5)
            assert buf.read(8) == src[:5] + b"xyz"
            buf.fill(7, offset=100, size=50)
            assert buf.read(50, 100) == b"\x07" * 50
            try:
                import numpy as np
            except ImportError:
                continue
            a = np.arange(SIZE // 4, dtype=np.uint32)
            buf.write(a)
            b = np.zeros_like(a)
            buf.read_into(b)
            assert (a == b).all()
            with pytest.raises(TypeError):   # not contiguous
                buf.write(a[::2])
    # device to device within the context, with events
    q = c.queue(dev)
    a = c.alloc(dev, SIZE)
    b = c.alloc(dev, SIZE)
    a.write(src)
    start = q.record()
    r = c.copy(b, a, queue=q, event=True)
    r.event.wait()
    end = q.record()
    end.wait()
    assert start.elapsed_ns(end) >= 0
    assert b.read() == src
    # Event.notify (axl_event_notify): the event's handle comes on the pipe once it has
    # completed, then wait() returns at once; once per event; a bad fd is refused
    rfd, wfd = os.pipe()
    try:
        c.fill(b, 0x5A, queue=q)
        r2 = c.copy(a, b, queue=q, event=True)
        assert r2.event is not None
        r2.event.notify(wfd)
        ready, _, _ = select.select([rfd], [], [], 10)
        assert ready and os.read(rfd, 64) == r2.event.handle.to_bytes(8, sys.byteorder)
        r2.event.wait()
        assert a.read(4) == b"\x5a" * 4
        with pytest.raises(axl.AxlError):
            r2.event.notify(wfd)
        with pytest.raises(TypeError):
            r2.event.notify("1")  # type: ignore[arg-type]
        r3 = c.copy(b, a, queue=q, event=True)
        assert r3.event is not None
        with pytest.raises(axl.AxlError):
            r3.event.notify(-1)
        r3.event.free()
        r2.event.free()
    finally:
        os.close(rfd)
        os.close(wfd)
    for x in (start, end, r.event, a, b, q):
        x.free()


def test_cpu(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv, axl.compute.open(inv) as c:
        host = c.devices[0]
        assert host.backend == "cpu" and host.inventory_id is None
        free, total = host.memory()
        assert 0 < free <= total
        _roundtrip(c, host)
        host.sync()


def test_wrap(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv, axl.compute.open(inv) as c:
        data = bytearray(b"a" * 4096)
        w = c.wrap(data)
        assert w.kind == "host" and w.size == 4096
        with pytest.raises(BufferError):   # exported: not resizable
            data.extend(b"x")
        d = c.alloc(0, 4096)
        d.write(b"b" * 4096)
        c.copy(w, d)
        assert data == b"b" * 4096
        assert bytes(w.memoryview()[:4]) == b"bbbb"
        w.free()
        data.extend(b"x")                   # released
        ro = c.wrap(b"readonly", writable=False)
        assert ro.read() == b"readonly"
        with pytest.raises(TypeError):
            c.wrap(b"readonly")
    assert ro.closed and d.closed


@pytest.mark.parametrize("backend", ["opencl", "vulkan"])
def test_emulated_backend(sim_h100x2, backend):
    with axl.open(sim=sim_h100x2) as inv:
        try:
            c = axl.compute.open(inv, backend=backend)
        except axl.AxlError as e:
            pytest.skip("%s: %s" % (backend, e))
        with c:
            devs = [d for d in c.devices if d.backend == backend]
            if not devs:
                pytest.skip("no %s device (PoCL / lavapipe not installed)" % backend)
            _roundtrip(c, devs[0])
