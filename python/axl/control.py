"""Partitions (partition.h) and per-device limits (state.h)."""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from ctypes import POINTER, Structure, c_char_p, c_int, c_int64, c_size_t, c_void_p
from dataclasses import dataclass

from . import _lib
from ._lib import check, dec, enc, lib
from .inventory import Inventory

PARTITION_CONFIRM = 1 << 0
_I64_MAX = (1 << 63) - 1


class _Partition(Structure):
    _fields_ = [("id", c_char_p), ("device", c_char_p), ("parent", c_char_p),
                ("parent_uuid", c_char_p), ("kind", c_char_p), ("profile", c_char_p),
                ("profile_id", c_int64), ("memory_bytes", c_int64), ("compute_units", c_int64),
                ("env", POINTER(c_char_p)), ("device_nodes", POINTER(c_char_p)),
                ("owner_pid", c_int), ("owner_alive", c_int), ("created", c_int64),
                ("source", c_int), ("owner", c_int)]


class _Limit(Structure):
    _fields_ = [("device", c_char_p), ("uuid", c_char_p), ("memory_bytes", c_int64),
                ("compute_percent", c_int), ("pid", c_int), ("created", c_int64)]


def _strv(p: "ctypes._Pointer[c_char_p]") -> list[str]:
    out: list[str] = []
    if not p:
        return out
    i = 0
    while p[i] is not None:
        out.append(p[i].decode("utf-8", "replace"))
        i += 1
    return out


def _opt(v: int) -> int | None:
    return None if v < 0 else v


@dataclass(frozen=True)
class Partition:
    """A partition (a MIG instance): what a container given it needs is in ``env`` and
    ``device_nodes``. Numbers are None when not known; owner_pid/created None when axl
    did not create it. ``owner``: "workload" (the process owner_pid; cleanup removes it
    once that process is gone), "operator" (only a destroy removes it) or None (not
    known)."""

    id: str
    device: str | None
    parent: str | None
    parent_uuid: str | None
    kind: str | None
    profile: str | None
    profile_id: int | None
    memory_bytes: int | None
    compute_units: int | None
    env: dict[str, str]
    device_nodes: list[str]
    owner_pid: int | None
    owner_alive: bool
    created: int | None
    source: str
    owner: str | None = None

    @classmethod
    def _from_c(cls, p: _Partition) -> "Partition":
        env = {}
        for s in _strv(p.env):
            k, _, v = s.partition("=")
            env[k] = v
        return cls(id=dec(p.id) or "", device=dec(p.device), parent=dec(p.parent),
                   parent_uuid=dec(p.parent_uuid), kind=dec(p.kind), profile=dec(p.profile),
                   profile_id=_opt(p.profile_id), memory_bytes=_opt(p.memory_bytes),
                   compute_units=_opt(p.compute_units), env=env,
                   device_nodes=_strv(p.device_nodes), owner_pid=p.owner_pid or None,
                   owner_alive=bool(p.owner_alive), created=p.created or None,
                   source=_lib.source_name(p.source),
                   owner={1: "workload", 2: "operator"}.get(p.owner))


@dataclass(frozen=True)
class Limit:
    """A device's recorded limits: memory bytes and compute percent, None for no limit."""

    device: str
    uuid: str | None
    memory_bytes: int | None
    compute_percent: int | None
    pid: int
    created: int


def _inv(inventory: Inventory) -> tuple[c_void_p, c_void_p]:
    if not isinstance(inventory, Inventory):
        raise TypeError("inventory must be an axl.Inventory, not %s" % type(inventory).__name__)
    return inventory._handles()


def partitions(inventory: Inventory) -> list[Partition]:
    """Every partition of the inventory's devices and every record whose partition is
    gone (device None)."""
    ctx, inv = _inv(inventory)
    out, n = c_void_p(), c_size_t()
    check(lib().axl_partition_list(ctx, inv, ctypes.byref(out), ctypes.byref(n)))
    try:
        rows = ctypes.cast(out, POINTER(_Partition))
        return [Partition._from_c(rows[i]) for i in range(n.value)]
    finally:
        lib().axl_free(out)


def create_partition(inventory: Inventory, device: str, profile: str | int) -> Partition:
    """Create a partition of ``device`` from a profile name ("1g.10gb"), "mig-1g.10gb" or
    a vendor profile id. Open a new inventory to see it as a device."""
    ctx, inv = _inv(inventory)
    if isinstance(profile, int) and not isinstance(profile, bool):
        profile = str(profile)
    out = c_void_p()
    check(lib().axl_partition_create(ctx, inv, enc(device, "device"), enc(profile, "profile"),
                                     0, ctypes.byref(out)))
    try:
        return Partition._from_c(ctypes.cast(out, POINTER(_Partition)).contents)
    finally:
        lib().axl_free(out)


def destroy_partition(inventory: Inventory, partition: str, device: str | None = None) -> int:
    """Destroy a partition by id (or device id); returns how many went (0: already gone)."""
    ctx, inv = _inv(inventory)
    n = c_size_t()
    check(lib().axl_partition_destroy(ctx, inv, enc(device, "device"),
                                      enc(partition, "partition"), 0, ctypes.byref(n)))
    return n.value


def cleanup_partitions(inventory: Inventory) -> int:
    """Destroy the partitions whose owner was a workload process that is now gone (never
    the operator's); returns how many went."""
    ctx, inv = _inv(inventory)
    n = c_size_t()
    check(lib().axl_partition_cleanup(ctx, inv, ctypes.byref(n)))
    return n.value


def set_partition_mode(inventory: Inventory, device: str, kind: str, mode: str) -> None:
    """Switch an AMD device's "compute" or "memory" partition mode (destroys its
    partitions; the caller confirms by calling this)."""
    ctx, inv = _inv(inventory)
    check(lib().axl_partition_set_mode(ctx, inv, enc(device, "device"), enc(kind, "kind"),
                                       enc(mode, "mode"), PARTITION_CONFIRM))


def set_limit(inventory: Inventory, device: str, *, memory_bytes: int | None = None,
              compute_percent: int | None = None) -> None:
    """Record limits for a device (replacing its earlier ones); at least one is needed."""
    _ctx, inv = _inv(inventory)
    for name, v in (("memory_bytes", memory_bytes), ("compute_percent", compute_percent)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            raise TypeError("%s must be an int or None" % name)
    if memory_bytes is not None and not 0 < memory_bytes <= _I64_MAX:
        raise ValueError("memory_bytes out of range: %d" % memory_bytes)
    if compute_percent is not None and not 0 < compute_percent <= 100:
        raise ValueError("compute_percent must be 1..100, not %d" % compute_percent)
    check(lib().axl_limit_set(inv, enc(device, "device"),
                              -1 if memory_bytes is None else memory_bytes,
                              -1 if compute_percent is None else compute_percent))


def clear_limit(inventory: Inventory, device: str) -> int:
    """Forget a device's limits; returns how many records went."""
    ctx, inv = _inv(inventory)
    n = c_size_t()
    check(lib().axl_limit_clear(ctx, inv, enc(device, "device"), ctypes.byref(n)))
    return n.value


def limits(inventory: Inventory) -> list[Limit]:
    """Every recorded limit, in the order they were set."""
    ctx, _inv_p = _inv(inventory)
    out, n = c_void_p(), c_size_t()
    check(lib().axl_limit_list(ctx, ctypes.byref(out), ctypes.byref(n)))
    try:
        rows = ctypes.cast(out, POINTER(_Limit))
        return [Limit(device=dec(r.device) or "", uuid=dec(r.uuid),
                      memory_bytes=_opt(r.memory_bytes),
                      compute_percent=None if r.compute_percent < 0 else r.compute_percent,
                      pid=r.pid, created=r.created)
                for r in (rows[i] for i in range(n.value))]
    finally:
        lib().axl_free(out)


def limit_env(inventory: Inventory, devices: Sequence[str]) -> dict[str, str]:
    """The environment a workload using these devices gets (AXL_LIMIT_*, and HAMi-core's
    CUDA_DEVICE_MEMORY_LIMIT_<i> / CUDA_DEVICE_SM_LIMIT for NVIDIA devices)."""
    _ctx, inv = _inv(inventory)
    if isinstance(devices, str) or not isinstance(devices, Sequence):
        raise TypeError("devices must be a sequence of str")
    arr = (c_char_p * max(len(devices), 1))()
    for i, d in enumerate(devices):
        arr[i] = enc(d, "device")
    out = c_void_p()
    check(lib().axl_limit_env(inv, arr, len(devices), ctypes.byref(out)))
    try:
        env = {}
        for s in _strv(ctypes.cast(out, POINTER(c_char_p))):
            k, _, v = s.partition("=")
            env[k] = v
        return env
    finally:
        lib().axl_free(out)
