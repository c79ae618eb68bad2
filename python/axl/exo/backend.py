"""AxlGPUBackend: exo's asynchronous GPU backend interface over axl's compute API.

Blocking libaxl calls (opening the runtime, allocating, freeing, waiting for an event or
a device) never run on the event loop: each backend has one waiter thread that makes
them and completes an asyncio Future with ``loop.call_soon_threadsafe``. Copies are
enqueued from the loop (the compute API's enqueueing returns at once), an event is
recorded after each, and the waiter thread waits for that event; nothing polls or sleeps.
"""

from __future__ import annotations

import asyncio
import ctypes
import mmap
import os
import queue
import sys
import threading
from typing import Any, Callable, Optional, TypeVar

from .. import compute as _compute
from ..errors import AxlError
from ..inventory import Device, Inventory
from ..inventory import open as _open_inventory
from ..metrics import Sample, Sampler
from .interface import (CLOCK_UNKNOWN_MHZ, SOFTWARE_VENDOR, UNKNOWN_FLOAT, UNKNOWN_INT,
                        UNKNOWN_STR, AxlGPUDevice, GPUBackend,
                        GPUDevice, MemoryHandle)
from .opencl_facts import opencl_device_facts

__all__ = ["AxlGPUBackend", "EXO_TO_AXL", "cuda_compute_capability", "device_telemetry",
           "inventory_facts"]

T = TypeVar("T")

#: exo backend names (and a few aliases) -> axl compute backends.
EXO_TO_AXL: dict[str, str] = {
    "cuda": "cuda", "rocm": "hip", "hip": "hip", "vulkan": "vulkan", "opencl": "opencl",
    "level-zero": "level-zero", "levelzero": "level-zero", "cpu": "cpu",
}
_AXL_TO_EXO = {"cuda": "cuda", "hip": "rocm", "vulkan": "vulkan", "opencl": "opencl",
               "level-zero": "level-zero", "cpu": "cpu"}
#: compute-unit rows of the inventory that are tensor/matrix units, not the main units.
_TENSOR_UNITS = ("Tensor Core", "Matrix Core", "XMX")
_VENDOR_RUNTIME = {"nvidia": "cuda", "amd": "hip", "intel": "level-zero"}


def cuda_compute_capability(architecture: str | None, model: str | None) -> str | None:
    """NVIDIA's CUDA compute capability ("9.0") of an architecture, by model where one
    architecture has several (NVIDIA's published table); None when it cannot be told."""
    a = (architecture or "").lower()
    m = (model or "").upper()
    if a == "hopper":
        return "9.0"
    if a in ("ada", "ada lovelace"):
        return "8.9"
    if a == "turing":
        return "7.5"
    if a == "volta":
        return "7.2" if "XAVIER" in m else "7.0"
    if a == "ampere":
        if any(x in m for x in ("A100", "A800", "A30")):
            return "8.0"
        return "8.7" if "ORIN" in m else "8.6"
    if a == "blackwell":
        if any(x in m for x in ("B300", "GB300")):
            return "10.3"
        if any(x in m for x in ("B100", "B200", "GB200")):
            return "10.0"
        if "RTX" in m:
            return "12.0"
    return None


def inventory_facts(d: Device) -> dict[str, Any]:
    """The GPUDevice facts of an inventory accelerator, each of exo's type, unknown as
    UNKNOWN_*: vendor (lower case), compute_capability (the inventory's, else NVIDIA's
    CUDA compute capability of the architecture and model, else for other vendors the
    architecture, as exo's "RDNA2"), compute_units (the first compute_units row that is
    not a tensor unit), tensor_core_count (the "Tensor Core" / "Matrix Core" / "XMX"
    row), clock_rate_mhz (clocks.graphics_max_mhz, else sm_max_mhz), bandwidth_gbps
    (memory.bandwidth_gbps), driver_version (driver.version) and flops: {format:
    FLOPS} of the inventory's dense peak_tflops."""
    vendor = (d.vendor or "").lower() or UNKNOWN_STR
    units = tensor = None
    for row in d.raw.get("compute_units") or []:
        if row.get("name") in _TENSOR_UNITS:
            tensor = row.get("count")
        elif units is None:
            units = row.get("count")
    clocks = d.raw.get("clocks") or {}
    cc = d.get("compute_capability")
    if cc is None:
        cc = (cuda_compute_capability(d.architecture, d.model) if vendor == "nvidia"
              else d.architecture)
    flops = {p.format.upper(): p.peak_tflops * 1e12 for p in d.precision
             if p.peak_tflops is not None}
    bw = d.memory_bandwidth_gbps
    return dict(vendor=vendor, compute_capability=cc or UNKNOWN_STR,
                compute_units=units if units is not None else UNKNOWN_INT,
                tensor_core_count=tensor if tensor is not None else UNKNOWN_INT,
                clock_rate_mhz=(clocks.get("graphics_max_mhz") or clocks.get("sm_max_mhz")
                                or CLOCK_UNKNOWN_MHZ),
                bandwidth_gbps=float(bw) if bw is not None else UNKNOWN_FLOAT,
                driver_version=d.get("driver.version") or UNKNOWN_STR, flops=flops)


def device_telemetry(sample: Sample, inventory_id: str) -> dict[str, Optional[float]]:
    """Temperature (°C), power (W), clock (MHz) and utilisation (%) of an inventory
    device in an axl sample; a value the sampler does not have is None."""
    try:
        d = sample.device(inventory_id)
    except KeyError:
        return {"temperature_celsius": None, "power_watts": None, "clock_mhz": None,
                "utilization_percent": None}
    clock = d.get("sm_clock_mhz")
    if clock is None:
        clock = d.get("graphics_clock_mhz")
    return {"temperature_celsius": d.get("temperature_celsius"),
            "power_watts": d.get("power_watts"), "clock_mhz": clock,
            "utilization_percent": d.get("utilization_percent")}


class _Waiter:
    """One thread that runs blocking calls in order and hands their results to the
    event loop that asked (call_soon_threadsafe)."""

    def __init__(self, name: str) -> None:
        self._jobs: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, loop, fut, discard = job
            try:
                r = fn()
            except BaseException as e:  # handed to the awaiting coroutine
                if loop is not None:
                    loop.call_soon_threadsafe(_settle, self, fut, None, e, None)
            else:
                if loop is not None:
                    loop.call_soon_threadsafe(_settle, self, fut, r, None, discard)

    def submit(self, fn: Callable[[], T],
               discard: Callable[[T], None] | None = None) -> "asyncio.Future[T]":
        """Run fn on the thread; its result completes the returned Future. discard, when
        given, releases a result nobody will receive (the Future was cancelled): it runs
        on this thread, in order with the other jobs."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[T] = loop.create_future()
        self._jobs.put((fn, loop, fut, discard))
        return fut

    def post(self, fn: Callable[[], Any]) -> None:
        """Run fn on the thread, its result and errors ignored (a clean-up nobody awaits)."""
        self._jobs.put((fn, None, None, None))

    def stop(self) -> None:
        self._jobs.put(None)
        if threading.current_thread() is not self._thread:
            self._thread.join()


def _settle(waiter: _Waiter, fut: "asyncio.Future[Any]", r: Any, e: BaseException | None,
            discard: Callable[[Any], None] | None) -> None:
    if fut.cancelled():
        # the awaiting coroutine was cancelled: what the call made (an allocation) has no
        # owner but this; release it rather than drop it
        if e is None and discard is not None:
            waiter.post(lambda: discard(r))
        return
    if e is None:
        fut.set_result(r)
    else:
        fut.set_exception(e)


class HostBuffer(mmap.mmap):
    """What AxlGPUBackend.host_buffer() returns: page-aligned anonymous memory (an
    mmap.mmap in every other respect) that the backend's compute context has wrapped
    once, so copy_from_device(out=) into it enqueues the copy straight away, as the C
    path does with its host buffer, instead of wrapping and unwrapping the caller's
    memory around every copy.

    The wrapping holds no export of the memory, so dropping the buffer frees it; in
    exchange the buffer guards its mapping itself: close() (and ``with``) while a copy
    into it is in flight raise BufferError, as an mmap with exports does; a closed
    buffer first gives its wrapping back; resize() is refused (it could move the
    memory). Used with another backend, or after its backend shut down, it is copied
    into the ordinary way."""

    __slots__ = ("_wrap", "_flights")

    def _own(self, wrap: "_compute.Buffer | None") -> None:
        self._wrap: "_compute.Buffer | None" = wrap
        self._flights: set[int] = set()  # ids of the transfers writing into it

    def _wrap_for(self, c: "_compute.Compute") -> "_compute.Buffer | None":
        w = getattr(self, "_wrap", None)
        if w is None or w._compute is not c or w.closed or self.closed:
            return None
        return w

    def _unwrap(self) -> None:
        w = getattr(self, "_wrap", None)
        self._wrap = None
        if w is not None:
            try:
                w.free()
            except AxlError:
                pass  # the context is gone: it released the wrapping itself

    def close(self) -> None:
        if getattr(self, "_flights", None):
            raise BufferError("cannot close a host buffer while a copy into it is in flight")
        self._unwrap()
        super().close()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def resize(self, newsize: int) -> None:
        raise BufferError("a host buffer cannot be resized: allocate another")

    def __del__(self) -> None:
        # before the base type unmaps: nothing is in flight (a transfer holds the buffer)
        try:
            self._unwrap()
        except Exception:  # noqa: BLE001 (interpreter shutdown: nothing left to free it)
            pass


def _bytes_like(src: Any) -> memoryview:
    try:
        mv = memoryview(src)
    except TypeError:
        raise RuntimeError("src must be bytes-like, not %s" % type(src).__name__) from None
    except (ValueError, BufferError) as e:  # a closed mmap, ...
        raise RuntimeError("src cannot be read: %s" % e) from None
    if not mv.c_contiguous:
        raise RuntimeError("src must be a contiguous buffer")
    return mv.cast("B") if mv.format != "B" or mv.ndim != 1 else mv


_bytes_new = ctypes.pythonapi.PyBytes_FromStringAndSize
_bytes_new.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t]
_bytes_new.restype = ctypes.py_object
_BYTES_DATA = bytes.__basicsize__ - 1  # offset of a bytes object's characters (ob_sval)


def _new_bytes(size: int) -> tuple[bytes, Any]:
    """A new bytes object of size bytes and a writable ctypes view of its characters, to
    be filled before anything else sees the object (CPython's PyBytes_FromStringAndSize
    with no source, as C extensions build bytes): the copy lands straight in the result
    instead of in a bytearray copied once more."""
    out = _bytes_new(None, size)
    view = (ctypes.c_char * size).from_address(id(out) + _BYTES_DATA)
    return out, view


def _int_arg(name: str, v: Any) -> int:
    if not isinstance(v, int) or isinstance(v, bool):
        raise RuntimeError("%s must be an int, not %s" % (name, type(v).__name__))
    return v


def _free_quietly(buf: _compute.Buffer) -> None:
    """Free an allocation nobody holds (its allocate() was cancelled). When the context
    closed first, it freed the buffer with everything else."""
    try:
        buf.free()
    except AxlError:
        pass


class _RawEvent:
    """A done event kept as libaxl's handle (Compute._enqueue_copy): wait() waits for
    it and frees it, free() is then nothing; free() alone (the wait failed to run)
    waits and frees too, since libaxl must not keep it."""

    __slots__ = ("_c", "_e")

    def __init__(self, c: _compute.Compute, e: int) -> None:
        self._c, self._e = c, e

    def wait(self) -> None:
        e, self._e = self._e, 0
        if e:
            self._c._event_finish(e)  # noqa: SLF001

    def free(self) -> None:
        if self._e:
            try:
                self.wait()
            except AxlError:
                pass


class _Transfer:
    """A queued copy's event, the wrapped host buffers it reads or writes and the host
    object behind them, held together until release() (after the event completed)."""

    __slots__ = ("event", "wrapped", "host")

    def __init__(self, event: "_compute.Event | _RawEvent", wrapped: tuple[_compute.Buffer, ...],
                 host: Any) -> None:
        self.event, self.wrapped, self.host = event, wrapped, host

    def release(self) -> None:
        try:
            self.event.free()
        finally:
            for b in self.wrapped:
                b.free()
            self.wrapped, self.host = (), None


def _vendor_deadline_s() -> float:
    """libaxl's vendor deadline ($AXL_VENDOR_TIMEOUT_MS, 5000 by default), in seconds."""
    try:
        ms = int(os.environ.get("AXL_VENDOR_TIMEOUT_MS", "5000"))
    except ValueError:
        ms = 5000
    return (ms if 0 < ms <= 3600000 else 5000) / 1000.0


class _Notes:
    """Copies' completions as libaxl writes them (axl_event_notify): each event's handle
    on a pipe whose read end the event loop watches, so an await is woken once, by the
    thread the runtime woke, and not through the waiter thread as well (a wake fewer:
    about 0.1 ms on a virtual machine whose idle CPUs halt; docs/exo.md).

    What a transfer holds is released here, on the loop, when its handle comes: the
    event (its wait returns at once), the guard of a HostBuffer, and the wrapped host
    buffers (their unwrapping may block: it runs on the waiter thread). A handle that
    has not come by the vendor deadline is handed to the waiter thread, whose wait has
    the deadline of libaxl's own and says what hung."""

    def __init__(self, c: _compute.Compute, waiter: _Waiter) -> None:
        self._c, self._waiter = c, waiter
        self._r, self._w = os.pipe()
        os.set_blocking(self._r, False)
        self._loop: asyncio.AbstractEventLoop | None = None
        # handle -> [transfer, guard, future, due (loop time), what]
        self._pending: dict[int, list[Any]] = {}
        # one timer for the earliest due: an await costs no timer of its own
        self._timer: asyncio.TimerHandle | None = None
        self._deadline = _vendor_deadline_s()
        self._rest = b""
        self._empty: asyncio.Future[None] | None = None

    def _attach(self) -> asyncio.AbstractEventLoop:
        loop = asyncio.get_running_loop()
        if loop is not self._loop:
            self._detach()
            loop.add_reader(self._r, self._ready)
            self._loop = loop
        return loop

    def _detach(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._r)
        self._loop = None

    def watch(self, e: int, t: "_Transfer", guard: "HostBuffer | None",
              what: str) -> "asyncio.Future[None]":
        """A future that completes when event e does (an AxlError when it cannot be
        notified: then nothing was registered)."""
        loop = self._attach()
        self._c._event_notify(e, self._w)  # noqa: SLF001
        fut: asyncio.Future[None] = loop.create_future()
        due = loop.time() + self._deadline
        self._pending[e] = [t, guard, fut, due, what]
        if self._timer is None or due < self._timer.when():
            self._arm(loop, due)
        return fut

    def _arm(self, loop: asyncio.AbstractEventLoop, due: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = loop.call_at(due, self._sweep)

    def _sweep(self) -> None:
        """The earliest due came: hand every handle past its due to the waiter thread,
        and wait for the next due."""
        self._timer = None
        loop = self._loop
        if loop is None:
            return
        now = loop.time()
        for e in [e for e, ent in self._pending.items() if ent[3] <= now]:
            self._late(e)
        if self._pending:
            self._arm(loop, min(ent[3] for ent in self._pending.values()))

    def _ready(self) -> None:
        try:
            data = os.read(self._r, 8 * 512)
        except BlockingIOError:
            return
        if self._rest:
            data = self._rest + data
        n = len(data) & ~7
        self._rest = data[n:]
        for i in range(0, n, 8):
            self._complete(int.from_bytes(data[i:i + 8], sys.byteorder))

    def _complete(self, e: int) -> None:
        ent = self._pending.pop(e, None)
        if ent is None:  # handed to the waiter thread at the deadline
            return
        self._popped()
        t, guard, fut, _due, what = ent
        err: BaseException | None = None
        try:
            t.event.wait()  # notified: at once, with how the copy ended
        except Exception as x:  # noqa: BLE001 (an AxlError, or anything: never a hung await)
            err = x
        if t.wrapped:
            # unwrapping may block: on the waiter thread, and the await returns after it,
            # as it does without a notification (the host object is let go by then)
            self._chain(self._waiter.submit(lambda: self._done(t, guard)), fut, what, err)
            return
        try:
            self._done(t, guard)
        except Exception as x:  # noqa: BLE001
            err = err or x
        self._settle(fut, what, err)

    @staticmethod
    def _settle(fut: "asyncio.Future[None]", what: str, err: BaseException | None) -> None:
        if fut.done() or fut.get_loop().is_closed():
            return  # the await was cancelled: what it held is released all the same
        if err is None:
            fut.set_result(None)
        else:
            fut.set_exception(RuntimeError("%s failed: %s" % (what, err)))

    def _chain(self, w: "asyncio.Future[None]", fut: "asyncio.Future[None]", what: str,
               err: BaseException | None) -> None:
        """Settle fut when the waiter's job w is done: with err, else w's error."""
        w.add_done_callback(lambda w: self._settle(fut, what, err or w.exception()))

    # set by the backend: AxlGPUBackend._transfer_done
    _done: Callable[["_Transfer", "HostBuffer | None"], None]

    def _late(self, e: int) -> None:
        """The deadline passed without the handle: the waiter thread waits (under
        libaxl's deadline, which marks a hung runtime as such) and settles it."""
        ent = self._pending.pop(e, None)
        if ent is None:
            return
        self._popped()
        t, guard, fut, _due, what = ent

        def wait() -> None:
            try:
                t.event.wait()
            finally:
                self._done(t, guard)
        self._chain(self._waiter.submit(wait), fut, what, None)

    def _popped(self) -> None:
        if not self._pending and self._empty is not None and not self._empty.done():
            self._empty.set_result(None)

    async def drain(self) -> None:
        """Until every watched event has come (or was handed to the waiter thread)."""
        if self._pending:
            self._empty = self._attach().create_future()
            await self._empty

    def close(self) -> None:
        self._detach()
        for fd in (self._r, self._w):
            try:
                os.close(fd)
            except OSError:
                pass


class _Dev:
    """What the backend keeps of a device: the compute device, its copy queue and, for
    an accelerator, the inventory device."""

    def __init__(self, cdev: _compute.ComputeDevice, q: _compute.Queue, inv: Device | None,
                 gpu: GPUDevice) -> None:
        self.cdev, self.queue, self.inv, self.gpu = cdev, q, inv, gpu


class AxlGPUBackend(GPUBackend):
    """exo's GPUBackend on one axl compute backend.

    ``backend``: an exo name ("cuda", "rocm", "vulkan", "cpu") or axl's ("hip",
    "opencl", "level-zero"). Device ids are ``"<exo name>:<n>"`` ("cuda:0", "rocm:1";
    the host CPU is "cpu:0"). ``inventory``: an open axl inventory to use (kept open by
    the caller), else the live system's is opened by initialize() (or ``sim``'s).
    ``allow_emulated``: also drive a runtime's emulated host device (PoCL, lavapipe).
    """

    def __init__(self, backend: str = "cpu", *, inventory: Inventory | None = None,
                 sim: str | os.PathLike[str] | None = None, allow_emulated: bool = True) -> None:
        if not isinstance(backend, str) or backend.lower() not in EXO_TO_AXL:
            raise RuntimeError("Unknown backend: %r (known: %s)" % (backend, ", ".join(EXO_TO_AXL)))
        if inventory is not None and not isinstance(inventory, Inventory):
            raise TypeError("inventory must be an axl.Inventory")
        self.axl_backend: str = EXO_TO_AXL[backend.lower()]
        self.name: str = _AXL_TO_EXO[self.axl_backend]
        self._inventory = inventory
        self._own_inventory = inventory is None
        self._sim = sim
        self._allow_emulated = allow_emulated
        self._compute: _compute.Compute | None = None
        self._sampler: Sampler | None = None
        self._devs: dict[str, _Dev] = {}
        self._handles: dict[str, tuple[_compute.Buffer, _Dev, MemoryHandle]] = {}
        self._inflight: set[_Transfer] = set()
        self._waiter: _Waiter | None = None
        self._notes: _Notes | None = None
        self._state = "new"  # new, open, closed

    # -- helpers ---------------------------------------------------------------------
    def _open(self) -> _Waiter:
        if self._state != "open" or self._waiter is None:
            raise RuntimeError("%s backend is %s" % (self.name, "not initialized"
                                                     if self._state == "new" else "shut down"))
        return self._waiter

    async def _call(self, what: str, fn: Callable[[], T],
                    discard: Callable[[T], None] | None = None) -> T:
        """Run fn on the waiter thread. discard releases its result when the caller is
        cancelled: before fn returns (the Future is cancelled; the waiter releases it when
        it is made) or after (the result came, the task was cancelled before resuming)."""
        waiter = self._open()
        fut = waiter.submit(fn, discard)
        try:
            return await fut
        except asyncio.CancelledError:
            if discard is not None and fut.done() and not fut.cancelled() \
                    and fut.exception() is None:
                r = fut.result()
                waiter.post(lambda: discard(r))
            raise
        except (AxlError, ValueError, OverflowError, MemoryError) as e:
            raise RuntimeError("%s %s failed: %s" % (self.name, what, e)) from e

    def _dev(self, device_id: Any) -> _Dev:
        self._open()
        if not isinstance(device_id, str):
            raise RuntimeError("Invalid device: device_id must be a str, not %s"
                               % type(device_id).__name__)
        d = self._devs.get(device_id)
        if d is None:
            raise RuntimeError("Invalid device: %r (this %s backend has %s)"
                               % (device_id, self.name, ", ".join(self._devs) or "none"))
        return d

    def _buf(self, handle: Any) -> tuple[_compute.Buffer, _Dev]:
        self._open()
        hid = getattr(handle, "handle_id", None)
        if not isinstance(hid, str):
            raise RuntimeError("Invalid memory handle: a MemoryHandle is needed, not %s"
                               % type(handle).__name__)
        entry = self._handles.get(hid)
        if entry is None or entry[2] != handle:
            raise RuntimeError("Invalid memory handle: %s (freed, or not of this %s backend)"
                               % (hid, self.name))
        return entry[0], entry[1]

    def _gpu_device(self, cdev: _compute.ComputeDevice, n: int, inv: Device | None,
                    free: int | None, total: int | None,
                    rt: dict[str, Any] | None) -> AxlGPUDevice:
        """The GPUDevice of a compute device: an accelerator's facts from axl's inventory
        (inventory_facts); the host CPU's and an emulated device's from the inventory's
        host and, on OpenCL, the runtime (rt: clGetDeviceInfo); memory from the runtime."""
        host = cdev.index == 0
        emulated = not host and inv is None
        assert self._inventory is not None
        hw = self._inventory.host
        if inv is not None:
            f = inventory_facts(inv)
        else:
            # the host CPU and a runtime's emulated device (lavapipe, PoCL) are software
            # on the host: vendor "system", as exo's CPUBackend says, never the CPU's
            # maker (llvmpipe on an AMD CPU is not an AMD device)
            f = dict(vendor=SOFTWARE_VENDOR,
                     compute_capability="N/A",  # not a GPU: exo's CPU backend says "N/A"
                     compute_units=hw.cpu_threads or UNKNOWN_INT,
                     tensor_core_count=0,       # "0 if not applicable"
                     clock_rate_mhz=CLOCK_UNKNOWN_MHZ, bandwidth_gbps=UNKNOWN_FLOAT,
                     driver_version=UNKNOWN_STR, flops={})
        rt = rt or {}
        if rt.get("compute_units"):
            f["compute_units"] = rt["compute_units"]
        if rt.get("clock_mhz") and f["clock_rate_mhz"] == CLOCK_UNKNOWN_MHZ:
            f["clock_rate_mhz"] = rt["clock_mhz"]
        if rt.get("driver_version") and f["driver_version"] == UNKNOWN_STR:
            f["driver_version"] = rt["driver_version"]
        if host or (inv is not None and _VENDOR_RUNTIME.get(f["vendor"]) == self.axl_backend):
            level = "full"
        elif emulated:
            level = "experimental"
        else:
            level = "partial"
        mem = (inv.memory_total_bytes if inv is not None and inv.memory_total_bytes
               else total)
        flops = f["flops"]
        return AxlGPUDevice(
            device_id="%s:%d" % (self.name, n),
            name=(inv.model if inv is not None and inv.model else cdev.name),
            vendor=f["vendor"],
            backend=self.name,
            compute_capability=f["compute_capability"],
            memory_bytes=mem if mem is not None else UNKNOWN_INT,
            memory_available=free if free is not None else UNKNOWN_INT,
            compute_units=f["compute_units"],
            tensor_core_count=f["tensor_core_count"],
            max_threads_per_block=rt.get("max_work_group_size") or UNKNOWN_INT,
            clock_rate_mhz=f["clock_rate_mhz"],
            bandwidth_gbps=f["bandwidth_gbps"],
            support_level=level,
            driver_version=f["driver_version"],
            backend_name="axl-%s" % self.axl_backend,
            inventory_id=inv.id if inv is not None else "",
            host_memory=inv is None,
            peak_flops_fp32=flops.get("FP32", UNKNOWN_FLOAT),
            peak_flops_fp16=flops.get("FP16", UNKNOWN_FLOAT),
            peak_flops_int8=flops.get("INT8", UNKNOWN_FLOAT),
        )

    # -- device management -----------------------------------------------------------
    async def initialize(self) -> None:
        """Open axl's inventory and compute context on the waiter thread and list the
        devices this backend drives; RuntimeError when there are none (as exo's
        backends do, so that the factory falls through)."""
        if self._state == "open":
            return
        if self._state == "closed":
            raise RuntimeError("%s backend is shut down" % self.name)
        self._waiter = _Waiter("axl-exo-%s" % self.name)
        self._state = "open"

        def setup() -> dict[str, _Dev]:
            if self._inventory is None:
                self._inventory = (_open_inventory(sim=self._sim) if self._sim is not None
                                   else _open_inventory())
            c = _compute.open(self._inventory, backend=self.axl_backend)
            self._compute = c
            rt = opencl_device_facts() if self.axl_backend == "opencl" else {}
            devs: dict[str, _Dev] = {}
            for cd in c.devices:
                if self.axl_backend == "cpu":
                    if cd.index != 0:
                        continue
                elif cd.backend != self.axl_backend or cd.index == 0:
                    continue
                inv = self._inventory.device(cd.inventory_id) if cd.inventory_id else None
                if inv is None and cd.index != 0 and not self._allow_emulated:
                    continue
                try:
                    free, total = cd.memory()
                except AxlError:
                    free = total = None  # type: ignore[assignment]
                g = self._gpu_device(cd, len(devs), inv, free, total, rt.get(cd.name))
                devs[g.device_id] = _Dev(cd, c.queue(cd), inv, g)
            return devs

        try:
            devs = await self._call("initialization", setup)
        except BaseException:
            await self._teardown()
            raise
        if not devs:
            await self._teardown()
            raise RuntimeError("No %s devices detected by axl" % self.name)
        self._devs = devs
        assert self._compute is not None and self._waiter is not None
        try:
            self._notes = _Notes(self._compute, self._waiter)
        except OSError:  # no pipe (out of file descriptors): the waiter thread waits
            self._notes = None
        else:
            self._notes._done = self._transfer_done

    async def _teardown(self) -> None:
        waiter = self._waiter
        self._state = "closed"
        notes, self._notes = self._notes, None
        if notes is not None:
            try:
                await notes.drain()  # what is in flight completes before the context closes
            finally:
                if waiter is None:
                    notes.close()

        def close() -> None:
            self._handles.clear()
            self._inflight.clear()  # their waits ran before this job (one thread, in order)
            if self._sampler is not None:
                self._sampler.close()
            if self._compute is not None:
                self._compute.close()
            if self._own_inventory and self._inventory is not None:
                self._inventory.close()

        if waiter is not None:
            fut = waiter.submit(close)
            try:
                await fut
            finally:
                waiter.stop()
                if notes is not None:  # closing the context wrote what it had left
                    notes.close()
        self._waiter = None
        self._devs = {}

    async def shutdown(self) -> None:
        """Wait for what is queued, free every allocation and close axl. Idempotent."""
        if self._state != "closed":
            await self._teardown()

    def list_devices(self) -> list[GPUDevice]:
        return [d.gpu for d in self._devs.values()]

    @property
    def _initialized(self) -> bool:
        """Whether initialize() has run and shutdown() not: the flag the fork's backends
        keep under this name, which its tests read."""
        return self._state == "open"

    def get_device(self, device_id: str) -> Optional[GPUDevice]:
        d = self._devs.get(device_id) if isinstance(device_id, str) else None
        return d.gpu if d is not None else None

    # -- memory ----------------------------------------------------------------------
    async def allocate(self, device_id: str, size_bytes: int) -> MemoryHandle:
        d = self._dev(device_id)
        size = _int_arg("size_bytes", size_bytes)
        if size <= 0:
            raise RuntimeError("allocation of %d bytes: the size must be positive" % size)
        c = self._compute
        assert c is not None

        def alloc() -> _compute.Buffer:
            # exo's rule: an allocation past the device's available memory is a
            # RuntimeError, on every backend; the runtime's own answer cannot say it
            # where memory is overcommitted (the cpu backend, host-memory devices) or a
            # heap is a fixed budget (lavapipe): the runtime's free bytes, now, do
            # (a runtime that cannot say its free memory leaves the answer to the alloc)
            try:
                free: int | None = d.cdev.memory()[0]
            except AxlError:
                free = None
            if free is not None and size > free:
                raise MemoryError("out of memory: %d bytes asked, %d available" % (size, free))
            return c.alloc(d.cdev, size)
        buf = await self._call("allocation of %d bytes on %s" % (size, device_id),
                               alloc, discard=_free_quietly)
        h = MemoryHandle(device_id=device_id, size_bytes=size)
        if self._state != "open":  # shut down meanwhile: the context freed it
            raise RuntimeError("%s backend was shut down during the allocation" % self.name)
        self._handles[h.handle_id] = (buf, d, h)
        return h

    async def deallocate(self, handle: MemoryHandle) -> None:
        """Free the memory (after what is queued on it). A handle already freed, or of
        another backend, is a RuntimeError."""
        buf, _d = self._buf(handle)
        del self._handles[handle.handle_id]
        await self._call("deallocation", buf.free)

    def _range(self, what: str, size: int, offset: int, buf: _compute.Buffer) -> None:
        if offset < 0 or size < 0 or offset + size > buf.size:
            raise RuntimeError("%s: %d bytes at offset %d do not fit in an allocation of %d"
                               % (what, size, offset, buf.size))

    async def _finish(self, what: str, ev: "_compute.Event | _RawEvent", *extra: _compute.Buffer,
                      host: Any = None, guard: HostBuffer | None = None) -> None:
        """Await a queued copy's event. The backend, not the awaiting coroutine, owns what
        the copy touches until the event has completed: the event, the wrapped host
        buffers (extra) and the host object they wrap (host: the result being filled).
        A cancelled await leaves them owned here; the waiter thread waits for the event
        and only then frees the wrapping and lets the host object go."""
        t = _Transfer(ev, extra, host)
        if self._state != "open":  # shut down meanwhile: closing the context freed them
            raise RuntimeError("%s backend was shut down during the %s" % (self.name, what))
        self._inflight.add(t)
        if guard is not None:  # a HostBuffer is not closed under the copy (set ops: atomic)
            guard._flights.add(id(t))

        notes = self._notes
        if notes is not None:
            # woken by libaxl's notification (_Notes); the waiter thread when it cannot
            try:
                fut = notes.watch(ev._e if isinstance(ev, _RawEvent) else ev.handle, t, guard,
                                  "%s %s" % (self.name, what))
            except AxlError:
                pass
            else:
                await fut
                return

        def wait() -> None:
            try:
                ev.wait()
            finally:
                self._transfer_done(t, guard)
        await self._call(what, wait)

    def _transfer_done(self, t: _Transfer, guard: HostBuffer | None) -> None:
        """After t's event completed (or its wait failed): its HostBuffer may be closed
        again, what it wrapped is freed and its host object let go, it is no longer in
        flight. Where the unwrapping may block, on the waiter thread."""
        try:
            if guard is not None:
                guard._flights.discard(id(t))  # noqa: SLF001
            t.release()
        finally:
            self._inflight.discard(t)

    def inflight(self) -> int:
        """How many queued copies whose host memory the backend holds (awaited or not)."""
        return len(self._inflight)

    async def copy_to_device(self, src: bytes, dst_handle: MemoryHandle,
                             offset_bytes: int = 0) -> None:
        buf, d = self._buf(dst_handle)
        mv = _bytes_like(src)
        off = _int_arg("offset_bytes", offset_bytes)
        self._range("copy to device", mv.nbytes, off, buf)
        if mv.nbytes == 0:
            return
        c = self._compute
        assert c is not None
        try:
            w = c.wrap(mv, writable=False)
            try:
                r = c.copy(buf, w, mv.nbytes, dst_offset=off, queue=d.queue, event=True)
            except BaseException:
                w.free()
                raise
        except AxlError as e:
            raise RuntimeError("%s copy to device failed: %s" % (self.name, e)) from e
        assert r.event is not None
        await self._finish("copy to device", r.event, w, host=src)

    def host_buffer(self, size_bytes: int) -> HostBuffer:
        """A buffer for copy_from_device(out=), to allocate once and reuse: size_bytes of
        page-aligned anonymous memory, its pages mapped now (MAP_POPULATE where there is
        one), writable, a buffer-protocol object (an mmap.mmap: slice it, memoryview it,
        numpy.frombuffer it), wrapped once by this backend's compute context so a copy
        into it is enqueued with nothing to set up (HostBuffer). Page alignment is what
        the runtimes' fast paths need: a bytearray, 16 bytes past a page, copies at about
        half the speed at 256 MiB and more (docs/exo.md). The caller owns it; it is freed
        with close() or when no longer referenced."""
        size = _int_arg("size_bytes", size_bytes)
        if size <= 0:
            raise RuntimeError("host buffer of %d bytes: the size must be positive" % size)
        self._open()  # not initialized, or shut down: a RuntimeError saying which
        c = self._compute
        assert c is not None
        flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_ANONYMOUS", 0x20) | \
            getattr(mmap, "MAP_POPULATE", 0)
        try:
            hb = HostBuffer(-1, size, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        except (OSError, OverflowError, ValueError) as e:
            raise RuntimeError("host buffer of %d bytes: %s" % (size, e)) from e
        probe = ctypes.c_char.from_buffer(hb)
        addr = ctypes.addressof(probe)
        del probe  # the export it held
        try:
            w: _compute.Buffer | None = c._wrap_address(addr, size)
        except (AxlError, ValueError):
            w = None  # a runtime that cannot wrap it: copies wrap it one at a time
        hb._own(w)
        return hb

    async def copy_from_device(self, src_handle: MemoryHandle, offset_bytes: int,
                               size_bytes: int, *, out: Any = None) -> Any:
        """Copy size_bytes at offset_bytes of the allocation to the host: a new bytes
        object (exo's signature), or, with ``out`` (a writable C-contiguous buffer of at
        least size_bytes: host_buffer() is the fast one; bytearray, memoryview, numpy
        array, mmap work too), into out's first size_bytes, returning out. Reusing one
        ``out`` skips what every new bytes object costs: memory the copy has to fault in
        first."""
        buf, d = self._buf(src_handle)
        off = _int_arg("offset_bytes", offset_bytes)
        size = _int_arg("size_bytes", size_bytes)
        self._range("copy from device", size, off, buf)
        c = self._compute
        assert c is not None
        if out is not None:
            pw = (out._wrap_for(c) if isinstance(out, HostBuffer) and not out.closed
                  and 0 < size <= len(out) else None)
            if pw is not None:
                # wrapped when it was made: enqueue into it, and hold it (open, mapped)
                # until the copy is done; the event stays a raw handle (no Python
                # objects per copy: a quarter of a small copy's await)
                try:
                    e = c._enqueue_copy(pw, buf, size, 0, off, d.queue)
                except AxlError as err:
                    raise RuntimeError("%s copy from device failed: %s"
                                       % (self.name, err)) from err
                await self._finish("copy from device", _RawEvent(c, e), host=out, guard=out)
                return out
            try:
                mv = memoryview(out)
            except TypeError:
                raise RuntimeError("out must be a writable buffer, not %s"
                                   % type(out).__name__) from None
            except (ValueError, BufferError) as e:  # a closed mmap or HostBuffer, ...
                raise RuntimeError("out cannot be written: %s" % e) from None
            if mv.readonly or not mv.c_contiguous:
                raise RuntimeError("out must be a writable C-contiguous buffer")
            if mv.nbytes < size:
                raise RuntimeError("out holds %d bytes, %d are copied" % (mv.nbytes, size))
            target: Any = mv.cast("B")[:size] if size else None
            result: Any = out
        elif size == 0:
            return b""
        else:
            result, target = _new_bytes(size)
        if size == 0:
            return result
        try:
            w = c.wrap(target)
            try:
                r = c.copy(w, buf, size, src_offset=off, queue=d.queue, event=True)
            except BaseException:
                w.free()
                raise
        except AxlError as e:
            raise RuntimeError("%s copy from device failed: %s" % (self.name, e)) from e
        assert r.event is not None
        # the result (the new bytes, or the caller's out) is the transfer's until the
        # copy is done, whether or not this coroutine is still there to return it
        await self._finish("copy from device", r.event, w, host=result)
        return result

    async def copy_device_to_device(self, src_handle: MemoryHandle, dst_handle: MemoryHandle,
                                    size_bytes: int) -> None:
        """Copy size_bytes from the start of one allocation to the start of another. On
        one device it is enqueued and its event awaited; across two devices (a peer or
        staged copy, which the compute API may make before returning) it runs on the
        waiter thread."""
        sbuf, sd = self._buf(src_handle)
        dbuf, dd = self._buf(dst_handle)
        size = _int_arg("size_bytes", size_bytes)
        self._range("device to device copy (source)", size, 0, sbuf)
        self._range("device to device copy (destination)", size, 0, dbuf)
        if size == 0:
            return
        if sbuf is dbuf:
            raise RuntimeError("device to device copy within one allocation overlaps")
        c = self._compute
        assert c is not None
        if sd is dd:
            try:
                r = c.copy(dbuf, sbuf, size, queue=sd.queue, event=True)
            except AxlError as e:
                raise RuntimeError("%s device to device copy failed: %s" % (self.name, e)) from e
            assert r.event is not None
            await self._finish("device to device copy", r.event)
            return

        def cross() -> None:
            r = c.copy(dbuf, sbuf, size, queue=sd.queue, event=True)
            assert r.event is not None
            try:
                r.event.wait()
            finally:
                r.event.free()
        await self._call("device to device copy", cross)

    # -- synchronisation and monitoring -----------------------------------------------
    async def synchronize(self, device_id: str) -> None:
        d = self._dev(device_id)
        await self._call("synchronize", d.cdev.sync)

    async def get_device_memory_info(self, device_id: str) -> dict[str, int]:
        """total_bytes and available_bytes as the runtime reports them, used_bytes the
        difference; reserved_bytes 0 (the runtime's figures count all memory as used or
        free)."""
        d = self._dev(device_id)
        free, total = await self._call("memory info", d.cdev.memory)
        return {"total_bytes": total, "used_bytes": total - free, "available_bytes": free,
                "reserved_bytes": 0}

    async def _telemetry(self, device_id: str, key: str) -> Optional[float]:
        d = self._dev(device_id)
        if d.inv is None:  # the host CPU, an emulated device: no device sensors
            return None
        inv_id = d.inv.id

        def read() -> Optional[float]:
            try:
                if self._sampler is None:
                    assert self._inventory is not None
                    self._sampler = Sampler(self._inventory)
                return device_telemetry(self._sampler.sample(), inv_id)[key]
            except AxlError:
                return None  # telemetry is soft: unavailable, not an error
        return await self._open().submit(read)

    async def get_device_temperature(self, device_id: str) -> Optional[float]:
        return await self._telemetry(device_id, "temperature_celsius")

    async def get_device_power_usage(self, device_id: str) -> Optional[float]:
        return await self._telemetry(device_id, "power_watts")

    async def get_device_clock_rate(self, device_id: str) -> Optional[int]:
        v = await self._telemetry(device_id, "clock_mhz")
        return None if v is None else int(round(v))

    async def get_device_utilization(self, device_id: str) -> Optional[float]:
        """axl's addition to exo's interface: the device's compute utilisation (%) from
        axl's sampler (``utilization_percent``), None when unknown (as the other
        telemetry: the host CPU, emulated devices, a failed sample)."""
        return await self._telemetry(device_id, "utilization_percent")

    def __repr__(self) -> str:
        return "<axl.exo.AxlGPUBackend %s (%s) %s, %d devices>" % (
            self.name, self.axl_backend, self._state, len(self._devs))
