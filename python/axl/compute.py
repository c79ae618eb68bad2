"""Moving bytes onto accelerators (compute.h; docs/compute.md).

    with axl.open() as inv, axl.compute.open(inv) as c:
        dev = c.devices[0]                       # the host CPU (always there)
        buf = c.alloc(dev, 1 << 20)              # device memory
        buf.write(b"hello")                      # any buffer-protocol object, no extra copy
        out = bytearray(5); buf.read_into(out)

Python objects are reached without copying through the buffer protocol: their memory
is wrapped (axl_buffer_wrap) for the time of a copy, which is waited for before the
call returns, so the object stays alive and unchanged in size throughout.
"""

from __future__ import annotations

import ctypes
import threading
from ctypes import POINTER, Structure, c_char_p, c_int, c_int64, c_ssize_t, c_uint, c_uint64, c_void_p
from dataclasses import dataclass
from typing import Any

from ._lib import check, dec, enc, lib
from .errors import ClosedError, InvalidArgumentError
from .inventory import Device, Inventory

MEMORY_DEVICE, MEMORY_PINNED, MEMORY_HOST = 1, 2, 3
_KINDS = {"device": MEMORY_DEVICE, "pinned": MEMORY_PINNED, "host": MEMORY_HOST}
_U64_MAX = (1 << 64) - 1
_MAX_SIZE = (1 << 63) - 1


class _ComputeOptions(Structure):
    _fields_ = [("version", c_uint), ("backend", c_char_p)]


class _PyBuffer(Structure):
    _fields_ = [("buf", c_void_p), ("obj", ctypes.py_object), ("len", c_ssize_t),
                ("itemsize", c_ssize_t), ("readonly", c_int), ("ndim", c_int),
                ("format", c_char_p), ("shape", POINTER(c_ssize_t)),
                ("strides", POINTER(c_ssize_t)), ("suboffsets", POINTER(c_ssize_t)),
                ("internal", c_void_p)]


_get_buffer = ctypes.pythonapi.PyObject_GetBuffer
_get_buffer.argtypes = [ctypes.py_object, POINTER(_PyBuffer), c_int]
_get_buffer.restype = c_int
_release_buffer = ctypes.pythonapi.PyBuffer_Release
_release_buffer.argtypes = [POINTER(_PyBuffer)]
_release_buffer.restype = None
_PyBUF_SIMPLE, _PyBUF_WRITABLE = 0, 1


class _HostView:
    """A buffer-protocol export of a C-contiguous object: its address and length, held
    (the object alive, a bytearray unresizable) until release()."""

    def __init__(self, obj: Any, writable: bool) -> None:
        self._view: _PyBuffer | None = None
        v = _PyBuffer()
        try:
            _get_buffer(obj, ctypes.byref(v), _PyBUF_WRITABLE if writable else _PyBUF_SIMPLE)
        except (BufferError, ValueError) as e:
            raise TypeError("%s object is not a %scontiguous buffer: %s" %
                            (type(obj).__name__, "writable " if writable else "", e)) from None
        self._view = v
        self.ptr: int = v.buf or 0
        self.len: int = v.len

    def release(self) -> None:
        if self._view is not None:
            _release_buffer(ctypes.byref(self._view))
            self._view = None

    def __del__(self) -> None:
        self.release()


def _size(name: str, v: Any, lo: int = 0) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError("%s must be an int, not %s" % (name, type(v).__name__))
    if v < lo or v > _MAX_SIZE:
        raise ValueError("%s out of range: %d" % (name, v))
    return v


@dataclass(frozen=True)
class CopyResult:
    """How a copy went: path "host", "device", "peer" or "staged"; ``event`` completes with
    it (None unless asked for)."""

    path: str
    event: "Event | None" = None


class ComputeDevice:
    """A device a compute backend drives (index 0: the host CPU)."""

    def __init__(self, compute: "Compute", ptr: int, index: int) -> None:
        self._compute = compute
        self._ptr = ptr
        self.index = index
        L = lib()
        self.backend: str = dec(L.axl_compute_device_backend(ptr)) or ""
        self.name: str = dec(L.axl_compute_device_name(ptr)) or ""
        invdev = L.axl_compute_device_inventory(ptr)
        #: Its inventory device id; None for the host CPU and emulated devices.
        self.inventory_id: str | None = dec(L.axl_device_id(invdev)) if invdev else None

    def memory(self) -> tuple[int, int]:
        """(free, total) bytes as the runtime sees them."""
        c = self._compute._handle()
        free, total = c_uint64(), c_uint64()
        check(lib().axl_compute_device_memory(c, self._ptr, ctypes.byref(free), ctypes.byref(total)))
        return free.value, total.value

    def sync(self) -> None:
        """Wait until everything queued on the device is done."""
        check(lib().axl_compute_device_sync(self._compute._handle(), self._ptr))

    def __repr__(self) -> str:
        return "<axl.compute.ComputeDevice %d %s %r%s>" % (
            self.index, self.backend, self.name,
            " (%s)" % self.inventory_id if self.inventory_id else "")


class _Handle:
    _what = "handle"

    def __init__(self, compute: "Compute", h: int) -> None:
        self._compute = compute
        self._h: int | None = h
        compute._objects[id(self)] = self

    @property
    def handle(self) -> int:
        """The libaxl handle (raises ClosedError when freed)."""
        self._compute._handle()
        if self._h is None:
            raise ClosedError(self._what)
        return self._h

    @property
    def closed(self) -> bool:
        return self._h is None or self._compute.closed

    def _forget(self) -> None:
        self._h = None
        self._compute._objects.pop(id(self), None)

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.free()

    def free(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError


class Buffer(_Handle):
    """Memory of a device (``kind`` "device", "pinned" or "host")."""

    _what = "buffer"

    def __init__(self, compute: "Compute", h: int, view: _HostView | None = None) -> None:
        super().__init__(compute, h)
        self._view = view
        size, kind, dev = c_uint64(), c_int(), c_void_p()
        check(lib().axl_buffer_info(compute._handle(), h, ctypes.byref(size), ctypes.byref(kind),
                                    ctypes.byref(dev)))
        self.size: int = size.value
        self.kind: str = dec(lib().axl_memory_kind_name(kind.value)) or "unknown"
        self.device: ComputeDevice | None = compute._device_by_ptr(dev.value)

    def free(self) -> None:
        """Free the buffer after what is queued on it is done. Idempotent."""
        if self._h is None:
            return
        h = self._h
        self._forget()
        try:
            if not self._compute.closed:
                check(lib().axl_buffer_free(self._compute._c, h))
        finally:
            if self._view is not None:
                self._view.release()
                self._view = None

    def _release(self) -> None:  # the context was freed
        self._h = None
        if self._view is not None:
            self._view.release()
            self._view = None

    def host_pointer(self) -> int:
        """The CPU address of a host or pinned buffer (InvalidArgumentError for device memory)."""
        p = c_void_p()
        check(lib().axl_buffer_host_pointer(self._compute._handle(), self.handle, ctypes.byref(p)))
        return p.value or 0

    def memoryview(self) -> memoryview:
        """A writable view of a host or pinned buffer's bytes (valid until it is freed)."""
        p = self.host_pointer()
        return memoryview((ctypes.c_char * self.size).from_address(p)).cast("B")

    def write(self, data: Any, offset: int = 0, queue: "Queue | None" = None) -> CopyResult:
        """Copy a buffer-protocol object (bytes, bytearray, memoryview, numpy array) into
        the buffer at offset; returns when the copy is done."""
        return self._compute.copy_from(self, data, offset=offset, queue=queue)

    def read_into(self, out: Any, offset: int = 0, queue: "Queue | None" = None) -> CopyResult:
        """Copy len(out) bytes at offset into a writable buffer-protocol object."""
        return self._compute.copy_to(out, self, offset=offset, queue=queue)

    def read(self, size: int | None = None, offset: int = 0) -> bytes:
        """The buffer's bytes (size bytes from offset; default: to the end)."""
        _size("offset", offset)
        if size is None:
            size = max(self.size - offset, 0)
        out = bytearray(_size("size", size))
        if size:
            self.read_into(out, offset)
        return bytes(out)

    def fill(self, value: int, offset: int = 0, size: int | None = None,
             queue: "Queue | None" = None) -> None:
        """Set size bytes from offset to value and wait."""
        self._compute.fill(self, value, offset=offset, size=size, queue=queue)

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return "<axl.compute.Buffer %s %d bytes%s>" % (self.kind, self.size,
                                                       " freed" if self.closed else "")


class Queue(_Handle):
    """A queue (stream) on a device: what is enqueued on it runs in order."""

    _what = "queue"

    def __init__(self, compute: "Compute", h: int, device: ComputeDevice) -> None:
        super().__init__(compute, h)
        self.device = device

    def sync(self) -> None:
        check(lib().axl_queue_sync(self._compute._handle(), self.handle))

    def record(self) -> "Event":
        """An event that completes when what was enqueued before it is done."""
        e = c_uint64()
        check(lib().axl_event_record(self._compute._handle(), self.handle, ctypes.byref(e)))
        return Event(self._compute, e.value)

    def free(self) -> None:
        if self._h is None:
            return
        h = self._h
        self._forget()
        if not self._compute.closed:
            check(lib().axl_queue_free(self._compute._c, h))

    def _release(self) -> None:
        self._h = None


class Event(_Handle):
    """Completes when the work before it is done."""

    _what = "event"

    def wait(self) -> None:
        check(lib().axl_event_wait(self._compute._handle(), self.handle))

    def elapsed_ns(self, end: "Event") -> int:
        """Nanoseconds from this event to ``end`` (both completed, one device)."""
        if not isinstance(end, Event):
            raise TypeError("end must be an Event")
        if end._compute is not self._compute:
            raise InvalidArgumentError(-1, "events of two compute contexts", "EINVAL")
        ns = c_int64()
        check(lib().axl_event_elapsed_ns(self._compute._handle(), self.handle, end.handle,
                                         ctypes.byref(ns)))
        return ns.value

    def notify(self, fd: int) -> None:
        """Have the event's handle (8 bytes, native byte order: ``self.handle``) written to
        fd, a blocking pipe's write end, once it has completed (axl_event_notify): an
        event loop reads the pipe's other end, then wait() returns at once. Once per
        event; fd stays open until the handle came or the event was freed."""
        if not isinstance(fd, int) or isinstance(fd, bool):
            raise TypeError("fd must be an int")
        check(lib().axl_event_notify(self._compute._handle(), self.handle, fd))

    def free(self) -> None:
        if self._h is None:
            return
        h = self._h
        self._forget()
        if not self._compute.closed:
            check(lib().axl_event_free(self._compute._c, h))

    def _release(self) -> None:
        self._h = None


class Compute:
    """A compute context over an inventory (axl_compute). ``devices[0]`` is the host CPU."""

    def __init__(self, inventory: Inventory, backend: str | None = None) -> None:
        if not isinstance(inventory, Inventory):
            raise TypeError("inventory must be an axl.Inventory, not %s" % type(inventory).__name__)
        _ctx, inv = inventory._handles()
        opts = _ComputeOptions()
        opts.version = 1
        opts.backend = enc(backend, "backend")
        c = c_void_p()
        self._c: c_void_p | None = None
        self._objects: dict[int, Any] = {}
        self._lock = threading.Lock()
        check(lib().axl_compute_open(ctypes.byref(c), inv, ctypes.byref(opts)))
        self._c = c
        self._inventory = inventory
        inventory._add_dependent(self)
        L = lib()
        self.devices: list[ComputeDevice] = [
            ComputeDevice(self, L.axl_compute_device_at(c, i), i)
            for i in range(L.axl_compute_device_count(c))]
        self._default_queue: Queue | None = None

    # -- lifetime -------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._c is None

    def close(self) -> None:
        """Wait for everything queued, free every buffer, queue and event. Idempotent."""
        if self._c is None:
            return
        c, self._c = self._c, None
        lib().axl_compute_free(c)
        for obj in list(self._objects.values()):
            obj._release()
        self._objects.clear()

    def __enter__(self) -> "Compute":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _handle(self) -> c_void_p:
        if self._c is None:
            raise ClosedError("compute context")
        return self._c

    def _device_by_ptr(self, p: int | None) -> ComputeDevice | None:
        for d in self.devices:
            if d._ptr == p:
                return d
        return None

    def _dev(self, device: ComputeDevice | Device | str | int | None) -> ComputeDevice:
        self._handle()
        if device is None:
            return self.devices[0]
        if isinstance(device, ComputeDevice):
            if device._compute is not self:
                raise InvalidArgumentError(-1, "a device of another compute context", "EINVAL")
            return device
        if isinstance(device, bool):
            raise TypeError("device must be a ComputeDevice, an index or an inventory id")
        if isinstance(device, int):
            if not 0 <= device < len(self.devices):
                raise InvalidArgumentError(-1, "no compute device %d" % device, "EINVAL")
            return self.devices[device]
        if isinstance(device, Device):
            device = device.id
        if isinstance(device, str):
            for d in self.devices:
                if d.inventory_id == device:
                    return d
            raise InvalidArgumentError(-1, "no compute device for %r" % device, "EINVAL")
        raise TypeError("device must be a ComputeDevice, an index or an inventory id")

    def device(self, device: ComputeDevice | Device | str | int | None) -> ComputeDevice:
        """The compute device for an index, an inventory id/Device (None: the host CPU)."""
        return self._dev(device)

    def _queue(self, queue: Queue | None, device: ComputeDevice | None = None) -> Queue:
        if queue is not None:
            if not isinstance(queue, Queue):
                raise TypeError("queue must be an axl.compute.Queue")
            if queue._compute is not self:
                raise InvalidArgumentError(-1, "a queue of another compute context", "EINVAL")
            return queue
        dev = device or self.devices[0]
        q = self._default_queues().get(dev.index)
        if q is None or q.closed:
            q = self.queue(dev)
            self._dq[dev.index] = q
        return q

    def _default_queues(self) -> dict[int, Queue]:
        if not hasattr(self, "_dq"):
            self._dq: dict[int, Queue] = {}
        return self._dq

    # -- objects --------------------------------------------------------------------
    def alloc(self, device: ComputeDevice | Device | str | int | None, size: int,
              kind: str = "device") -> Buffer:
        """A buffer of size bytes (> 0) of kind "device", "pinned" or "host" on device."""
        dev = self._dev(device)
        _size("size", size, 1)
        if kind not in _KINDS:
            raise ValueError("kind must be one of %s" % ", ".join(_KINDS))
        b = c_uint64()
        check(lib().axl_buffer_alloc(self._handle(), dev._ptr, _KINDS[kind], size, ctypes.byref(b)))
        return Buffer(self, b.value)

    def wrap(self, obj: Any, writable: bool = True) -> Buffer:
        """A host buffer over a buffer-protocol object's memory, which stays exported
        (alive, not resizable) until the buffer is freed. writable=False accepts bytes."""
        view = _HostView(obj, writable)
        try:
            if view.len <= 0:
                raise ValueError("cannot wrap an empty buffer")
            b = c_uint64()
            check(lib().axl_buffer_wrap(self._handle(), view.ptr, view.len, ctypes.byref(b)))
        except BaseException:
            view.release()
            raise
        return Buffer(self, b.value, view)

    def _wrap_address(self, ptr: int, size: int) -> Buffer:
        """A host buffer over size bytes at address ptr, holding no export of the object
        behind it: the caller keeps that memory mapped, unmoved, until the buffer is freed
        (axl.exo's HostBuffer frees it before it unmaps)."""
        _size("size", size, 1)
        if not isinstance(ptr, int) or ptr <= 0:
            raise ValueError("cannot wrap address %r" % (ptr,))
        b = c_uint64()
        check(lib().axl_buffer_wrap(self._handle(), ptr, size, ctypes.byref(b)))
        return Buffer(self, b.value)

    def queue(self, device: ComputeDevice | Device | str | int | None = None) -> Queue:
        """A new queue on device (None: the host CPU)."""
        dev = self._dev(device)
        q = c_uint64()
        check(lib().axl_queue_create(self._handle(), dev._ptr, ctypes.byref(q)))
        return Queue(self, q.value, dev)

    def _buf(self, b: Any, name: str) -> Buffer:
        if not isinstance(b, Buffer):
            raise TypeError("%s must be an axl.compute.Buffer, not %s" % (name, type(b).__name__))
        if b._compute is not self:
            raise InvalidArgumentError(-1, "%s belongs to another compute context" % name, "EINVAL")
        b.handle  # raises when freed
        return b

    def _qfor(self, queue: Queue | None, *bufs: Buffer) -> Queue:
        if queue is not None:
            return self._queue(queue)
        for b in bufs:
            if b.kind == "device" and b.device is not None:
                return self._queue(None, b.device)
        return self._queue(None)

    # -- work -----------------------------------------------------------------------
    def copy(self, dst: Buffer, src: Buffer, size: int | None = None, *, dst_offset: int = 0,
             src_offset: int = 0, queue: Queue | None = None, event: bool = False) -> CopyResult:
        """Enqueue a copy of size bytes (default: all of src from src_offset) between two
        buffers. With an explicit queue the copy may still be running on return (wait on
        the event, or the queue); without one it is waited for."""
        self._buf(dst, "dst")
        self._buf(src, "src")
        _size("dst_offset", dst_offset)
        _size("src_offset", src_offset)
        if size is None:
            size = src.size - src_offset
        _size("size", size, 1)
        q = self._qfor(queue, dst, src)
        path, ev = c_int(), c_uint64()
        check(lib().axl_copy(self._handle(), q.handle, dst.handle, dst_offset, src.handle,
                             src_offset, size, ctypes.byref(path),
                             ctypes.byref(ev) if event else None))
        if queue is None:
            q.sync()
        return CopyResult(dec(lib().axl_copy_path_name(path.value)) or "unknown",
                          Event(self, ev.value) if event else None)

    def _enqueue_copy(self, dst: Buffer, src: Buffer, size: int, dst_offset: int,
                      src_offset: int, queue: Queue) -> int:
        """copy(dst, src, size, ..., queue=queue, event=True) for a caller that checked
        its arguments and keeps dst, src and queue alive (axl.exo's host buffers): the
        done event as a raw handle for _event_finish, no Python objects made. libaxl
        still checks every handle and range."""
        ev = c_uint64()
        check(lib().axl_copy(self._handle(), queue.handle, dst.handle, dst_offset, src.handle,
                             src_offset, size, None, ctypes.byref(ev)))
        return ev.value

    def _event_notify(self, e: int, fd: int) -> None:
        """Event.notify for a raw event of _enqueue_copy."""
        check(lib().axl_event_notify(self._handle(), e, fd))

    def _event_finish(self, e: int) -> None:
        """Wait for a raw event of _enqueue_copy, then free it; nothing once the context
        is closed (closing it waited for its queues and freed its events)."""
        c = self._c
        if c is None:
            return
        try:
            check(lib().axl_event_wait(c, e))
        finally:
            lib().axl_event_free(c, e)

    def copy_from(self, dst: Buffer, data: Any, *, offset: int = 0,
                  queue: Queue | None = None) -> CopyResult:
        """Copy a buffer-protocol object into dst at offset (no Python-side copy); waits."""
        self._buf(dst, "dst")
        _size("offset", offset)
        view = _HostView(data, False)
        try:
            return self._host_copy(view, dst, offset, to_device=True, queue=queue)
        finally:
            view.release()

    def copy_to(self, out: Any, src: Buffer, *, offset: int = 0,
                queue: Queue | None = None) -> CopyResult:
        """Copy len(out) bytes of src from offset into a writable buffer-protocol object;
        waits."""
        self._buf(src, "src")
        _size("offset", offset)
        view = _HostView(out, True)
        try:
            return self._host_copy(view, src, offset, to_device=False, queue=queue)
        finally:
            view.release()

    def _host_copy(self, view: _HostView, buf: Buffer, offset: int, to_device: bool,
                   queue: Queue | None) -> CopyResult:
        if view.len == 0:
            return CopyResult("host")
        if offset + view.len > buf.size:
            raise InvalidArgumentError(-1, "%d bytes at offset %d do not fit in a buffer of %d"
                                       % (view.len, offset, buf.size), "EINVAL")
        L = lib()
        c = self._handle()
        h = c_uint64()
        check(L.axl_buffer_wrap(c, view.ptr, view.len, ctypes.byref(h)))
        try:
            q = self._qfor(queue, buf)
            path = c_int()
            if to_device:
                check(L.axl_copy(c, q.handle, buf.handle, offset, h.value, 0, view.len,
                                 ctypes.byref(path), None))
            else:
                check(L.axl_copy(c, q.handle, h.value, 0, buf.handle, offset, view.len,
                                 ctypes.byref(path), None))
            q.sync()
        finally:
            L.axl_buffer_free(c, h.value)
        return CopyResult(dec(L.axl_copy_path_name(path.value)) or "unknown")

    def fill(self, dst: Buffer, value: int, *, offset: int = 0, size: int | None = None,
             queue: Queue | None = None, event: bool = False) -> Event | None:
        """Set size bytes (default: to the end) of dst from offset to value (0..255).
        Without a queue it is waited for."""
        self._buf(dst, "dst")
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 255:
            raise ValueError("value must be an int 0..255")
        _size("offset", offset)
        if size is None:
            size = dst.size - offset
        _size("size", size, 1)
        q = self._qfor(queue, dst)
        ev = c_uint64()
        check(lib().axl_fill(self._handle(), q.handle, dst.handle, offset, size, value,
                             ctypes.byref(ev) if event else None))
        if queue is None:
            q.sync()
        return Event(self, ev.value) if event else None

    def __repr__(self) -> str:
        return "<axl.compute.Compute %s>" % ("closed" if self.closed else
                                            "%d devices" % len(self.devices))


def open(inventory: Inventory, backend: str | None = None) -> Compute:
    """Open a compute context over inventory. backend: "cuda", "hip", "level-zero",
    "opencl", "vulkan" or "cpu" for the accelerators (None: $AXL_COMPUTE, else each
    device's best); emulating runtimes (PoCL, lavapipe) are driven only when named."""
    return Compute(inventory, backend)
