"""Live metrics and the processes using each device (metrics.h)."""

from __future__ import annotations

import ctypes
from ctypes import POINTER, Structure, c_char_p, c_double, c_int, c_int64, c_void_p
from dataclasses import dataclass, field
from typing import Any

from . import _lib
from ._lib import check, dec, lib
from .errors import ClosedError
from .inventory import Inventory

SAMPLER_PROCESSES = 1 << 0


class _Process(Structure):
    _fields_ = [("pid", c_int), ("device", c_char_p), ("name", c_char_p), ("type", c_char_p),
                ("memory_used_bytes", c_int64), ("utilization_percent", c_double),
                ("encoder_utilization_percent", c_double),
                ("decoder_utilization_percent", c_double), ("cgroup", c_char_p),
                ("container_id", c_char_p), ("source", c_int)]


def metric_names() -> list[str]:
    """Every metric's key ("utilization_percent", "ecc_errors.corrected", ...), in
    axl_metric order."""
    L = lib()
    out = []
    i = 0
    while True:
        n = L.axl_metric_name(i)
        if n is None:
            return out
        out.append(n.decode())
        i += 1


def metric_unit(name: str) -> str:
    """The base unit of a metric ("percent", "bytes", "watts", ...)."""
    names = metric_names()
    if name not in names:
        raise KeyError(name)
    return dec(lib().axl_metric_unit(names.index(name))) or ""


@dataclass(frozen=True)
class Process:
    """A process using a device; numbers None when not known."""

    pid: int
    device: str
    name: str | None
    type: str | None
    memory_used_bytes: int | None
    utilization_percent: float | None
    encoder_utilization_percent: float | None
    decoder_utilization_percent: float | None
    cgroup: str | None
    container_id: str | None
    source: str


@dataclass(frozen=True)
class DeviceSample:
    """One device in a sample: state "ok", "lost" or "none"; ``metrics`` holds the known
    values (base units) by key, ``sources`` where each came from."""

    id: str
    state: str
    metrics: dict[str, float]
    sources: dict[str, str]

    def get(self, name: str) -> float | None:
        return self.metrics.get(name)


@dataclass(frozen=True)
class Sample:
    """What every device was doing at ``time_ns``. ``raw`` is the "axl.metrics" document
    (what ``axl metrics --json`` prints); ``prometheus`` its text exposition."""

    time_ns: int
    interval_ms: float | None
    cost_us: float
    devices: list[DeviceSample]
    processes: list[Process]
    raw: dict[str, Any] = field(repr=False)
    prometheus: str = field(repr=False)

    def device(self, id: str) -> DeviceSample:
        for d in self.devices:
            if d.id == id:
                return d
        raise KeyError(id)


def _neg_none(v: float) -> float | None:
    return None if v < 0 else v


class Sampler:
    """Samples the devices of an inventory (axl_sampler). Rates need two samples: the
    first one of a sampler leaves them unknown unless the device reports them."""

    def __init__(self, inventory: Inventory, processes: bool = False) -> None:
        if not isinstance(inventory, Inventory):
            raise TypeError("inventory must be an axl.Inventory")
        _ctx, inv = inventory._handles()
        self._inventory = inventory
        self._s: c_void_p | None = None
        s = c_void_p()
        check(lib().axl_sampler_open(ctypes.byref(s), inv, SAMPLER_PROCESSES if processes else 0))
        self._s = s
        inventory._add_dependent(self)

    @property
    def closed(self) -> bool:
        return self._s is None

    def close(self) -> None:
        """Free the sampler. Idempotent. The inventory must outlive it (metrics.h): when
        the garbage collector has already freed the inventory (a cycle collected at
        once clears the inventory's weak list of dependents before finalizers run), the
        C sampler is left unfreed rather than freed after its inventory."""
        if self._s is not None:
            s, self._s = self._s, None
            if not self._inventory.closed:
                lib().axl_sampler_free(s)

    def __enter__(self) -> "Sampler":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def sample(self) -> Sample:
        """Take a sample of every device now."""
        if self._s is None:
            raise ClosedError("sampler")
        self._inventory._handles()
        L = lib()
        smp = c_void_p()
        check(L.axl_sampler_sample(self._s, ctypes.byref(smp)))
        try:
            names = metric_names()
            devices = []
            for i in range(L.axl_sample_device_count(smp)):
                did = dec(L.axl_device_id(L.axl_sample_device(smp, i))) or ""
                st = dec(L.axl_sample_state_name(L.axl_sample_device_state(smp, i))) or "none"
                vals: dict[str, float] = {}
                srcs: dict[str, str] = {}
                v, s = c_double(), c_int()
                for m, name in enumerate(names):
                    if L.axl_sample_get(smp, i, m, ctypes.byref(v), ctypes.byref(s)) == 0:
                        vals[name] = v.value
                        srcs[name] = _lib.source_name(s.value)
                devices.append(DeviceSample(did, st, vals, srcs))
            procs = []
            for i in range(L.axl_sample_process_count(smp)):
                p = ctypes.cast(L.axl_sample_process(smp, i), POINTER(_Process)).contents
                procs.append(Process(
                    pid=p.pid, device=dec(p.device) or "", name=dec(p.name), type=dec(p.type),
                    memory_used_bytes=None if p.memory_used_bytes < 0 else p.memory_used_bytes,
                    utilization_percent=_neg_none(p.utilization_percent),
                    encoder_utilization_percent=_neg_none(p.encoder_utilization_percent),
                    decoder_utilization_percent=_neg_none(p.decoder_utilization_percent),
                    cgroup=dec(p.cgroup), container_id=dec(p.container_id),
                    source=_lib.source_name(p.source)))
            out = c_void_p()
            check(L.axl_sample_json(smp, 0, ctypes.byref(out), None))
            raw = _lib.take_json(out)
            out = c_void_p()
            check(L.axl_sample_prometheus(smp, 0, ctypes.byref(out), None))
            prom = _lib.take_text(out)
            return Sample(time_ns=L.axl_sample_time_ns(smp),
                          interval_ms=_neg_none(L.axl_sample_interval_ms(smp)),
                          cost_us=L.axl_sample_cost_us(smp), devices=devices, processes=procs,
                          raw=raw, prometheus=prom)
        finally:
            L.axl_sample_free(smp)


def sample(inventory: Inventory, processes: bool = False) -> Sample:
    """One sample with a fresh sampler (rates are unknown: use a Sampler for them)."""
    with Sampler(inventory, processes) as s:
        return s.sample()
