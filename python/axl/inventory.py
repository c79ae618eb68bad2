"""Opening a node and reading its inventory (context.h, inventory.h).

The inventory is read from ``axl_inventory_json()``, the same "axl.inventory" document
``axl list --json`` prints (docs/json.md): the dataclasses give typed access to the
common facts (``None`` when not known) and every object keeps its JSON object in
``.raw`` so that no fact is lost.
"""

from __future__ import annotations

import ctypes
import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from ctypes import POINTER, Structure, c_char_p, c_int, c_uint, c_void_p
from dataclasses import dataclass, field
from typing import Any

from . import _lib
from ._lib import check, enc, lib
from .errors import ClosedError, NotFoundError

#: axl_context_options flags.
CONTEXT_NO_ENV = 1 << 0
CONTEXT_NO_PCI_IDS = 1 << 1
#: axl_inventory_open flag: also the host CPU as a device and every PCI function.
INVENTORY_ALL = 1 << 0


class _DeviceFilter(Structure):
    """struct axl_device_filter (include/axl/inventory.h), version 1."""
    _fields_ = [("version", ctypes.c_uint), ("family", ctypes.c_int), ("vendor", ctypes.c_char_p),
                ("min_memory_bytes", ctypes.c_int64), ("precision", ctypes.c_int), ("visible", ctypes.c_int),
                ("numa_node", ctypes.c_int)]


def _enum_value(name_fn: Any, name: str, what: str) -> int:
    """The enum value whose C name is name (axl_family_name, axl_format_name, ...)."""
    want = name.lower()
    for v in range(64):
        n = _lib.dec(name_fn(v))
        if n is None:
            break
        if n.lower() == want:
            return v
    raise ValueError("unknown %s %r" % (what, name))


_RANKS = {"memory": 1, "bandwidth": 2, "compute": 3}
_FILTER_KEYS = ("family", "vendor", "min_memory", "precision", "visible", "numa")


def _filter_kw(filters: Mapping[str, Any]) -> "_DeviceFilter":
    extra = set(filters) - set(_FILTER_KEYS)
    if extra:
        raise TypeError("unknown filter %s" % ", ".join(sorted(extra)))
    return _filter(*(filters.get(k) for k in _FILTER_KEYS))


def _filter(family: str | None, vendor: str | None, min_memory: int | None, precision: str | None,
            visible: bool | None, numa: int | None) -> _DeviceFilter:
    L = lib()
    f = _DeviceFilter(1, -1, None, 0, -1, -1, -1)
    if family is not None:
        f.family = _enum_value(L.axl_family_name, family, "family")
    if vendor is not None:
        f.vendor = enc(vendor, "vendor")
    if min_memory is not None:
        if isinstance(min_memory, bool) or not isinstance(min_memory, int) or min_memory < 0:
            raise ValueError("min_memory must be a number of bytes >= 0")
        f.min_memory_bytes = min_memory
    if precision is not None:
        f.precision = _enum_value(L.axl_format_name, precision, "precision")
    if visible is not None:
        f.visible = 1 if visible else 0
    if numa is not None:
        if isinstance(numa, bool) or not isinstance(numa, int) or numa < 0:
            raise ValueError("numa must be a NUMA node number >= 0")
        f.numa_node = numa
    return f


class _ContextOptions(Structure):
    _fields_ = [("version", c_uint), ("sysroot", c_char_p), ("backends", c_char_p),
                ("log", c_void_p), ("log_userdata", c_void_p), ("log_level", c_int),
                ("flags", c_uint), ("pci_ids_path", c_char_p),
                ("env", POINTER(c_char_p)), ("sim", c_char_p), ("driver_root", c_char_p)]


def _hex(v: Any) -> int | None:
    if isinstance(v, str):
        try:
            return int(v, 16)
        except ValueError:
            return None
    return v if isinstance(v, int) else None


def _get(d: Mapping[str, Any] | None, path: str) -> Any:
    cur: Any = d
    for part in path.split("."):
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(part)
    return cur


@dataclass(frozen=True)
class Memory:
    """A device's memory (``memory`` of the JSON): sizes in bytes, bandwidth in GB/s
    (10^9 bytes/s); the per-unit figures are per compute unit (SM, CU)."""

    total_bytes: int | None
    type: str | None
    bus_width_bits: int | None
    bandwidth_gbps: float | None
    l2_cache_bytes: int | None
    l1_cache_bytes_per_unit: int | None
    shared_memory_bytes_per_unit: int | None
    channels: int | None
    stacks: int | None

    @classmethod
    def from_json(cls, m: Mapping[str, Any] | None) -> "Memory":
        m = m or {}
        return cls(total_bytes=m.get("total_bytes"), type=m.get("type"), bus_width_bits=m.get("bus_width_bits"),
                   bandwidth_gbps=m.get("bandwidth_gbps"), l2_cache_bytes=m.get("l2_cache_bytes"),
                   l1_cache_bytes_per_unit=m.get("l1_cache_bytes_per_unit"),
                   shared_memory_bytes_per_unit=m.get("shared_memory_bytes_per_unit"),
                   channels=m.get("channels"), stacks=m.get("stacks"))


@dataclass(frozen=True)
class ComputeUnit:
    """A kind of unit and how many the device has ("SM" 132, "Tensor Core" 528)."""

    name: str
    count: int | None
    source: str | None


@dataclass(frozen=True)
class Precision:
    """A number format and the device's support of it: "native", "emulated" or "none";
    a format not listed is not known (not "none"). Peak in TFLOPS (TOPS for integers),
    dense."""

    format: str
    support: str | None
    peak_tflops: float | None
    source: str | None


@dataclass(frozen=True)
class Partitioning:
    """A partitioning technology the device offers ("MIG", AMD's partition modes)."""

    technology: str
    max_partitions: int | None
    mode: str | None
    profiles: list[str]
    source: str | None
    raw: dict[str, Any] = field(repr=False, compare=True)


@dataclass(frozen=True)
class Device:
    """An accelerator (or, with ``all=True``, the host CPU; or a partition in ``children``).

    Every field is ``None`` when axl does not know it; :meth:`source` says where a fact
    came from ("sysfs", "devicedb", "nvml", "sim", ...).
    """

    id: str
    index: int | None
    family: str
    uuid: str | None
    vendor: str | None
    vendor_id: int | None
    device_id: int | None
    model: str | None
    architecture: str | None
    pci_address: str | None
    numa_node: int | None
    driver: str | None
    memory_total_bytes: int | None
    memory_bandwidth_gbps: float | None
    visible: bool | None
    device_nodes: list[str]
    sources: list[str]
    field_sources: dict[str, str]
    children: list["Device"]
    memory: Memory
    compute_units: list[ComputeUnit]
    precision: list[Precision]
    partitioning: list[Partitioning]
    raw: dict[str, Any] = field(repr=False, compare=True)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Device":
        return cls(
            id=d["id"], index=d.get("index"), family=d.get("family", "unknown"),
            uuid=d.get("uuid"), vendor=d.get("vendor"), vendor_id=_hex(d.get("vendor_id")),
            device_id=_hex(d.get("device_id")), model=d.get("model"),
            architecture=d.get("architecture"), pci_address=_get(d, "pci.address"),
            numa_node=d.get("numa_node"), driver=_get(d, "driver.name"),
            memory_total_bytes=_get(d, "memory.total_bytes"),
            memory_bandwidth_gbps=_get(d, "memory.bandwidth_gbps"),
            visible=_get(d, "visibility.visible"), device_nodes=list(d.get("device_nodes", [])),
            sources=list(d.get("sources", [])), field_sources=dict(d.get("field_sources", {})),
            children=[Device.from_json(c) for c in d.get("children", [])],
            memory=Memory.from_json(d.get("memory")),
            compute_units=[ComputeUnit(name=u.get("name", ""), count=u.get("count"), source=u.get("source"))
                           for u in d.get("compute_units", [])],
            precision=[Precision(format=p.get("format", ""), support=p.get("support"),
                                 peak_tflops=p.get("peak_tflops"), source=p.get("source"))
                       for p in d.get("precision", [])],
            partitioning=[Partitioning(technology=p.get("technology", ""), max_partitions=p.get("max_partitions"),
                                       mode=p.get("mode"), profiles=list(p.get("profiles", [])),
                                       source=p.get("source"), raw=dict(p))
                          for p in d.get("partitioning", [])],
            raw=dict(d))

    def precision_of(self, fmt: str) -> str | None:
        """The support of number format fmt ("FP8"): "native", "emulated", "none", or
        None when not known."""
        for p in self.precision:
            if p.format.upper() == fmt.upper():
                return p.support
        return None

    def source(self, key: str) -> str | None:
        """Where the fact at ``key`` ("memory.total_bytes", "model") came from; None when
        not known."""
        return self.field_sources.get(key)

    def get(self, key: str, default: Any = None) -> Any:
        """Any fact of the JSON object by dotted key ("pci.link.max_gen")."""
        v = _get(self.raw, key)
        return default if v is None else v


@dataclass(frozen=True)
class Host:
    """The node: host name, kernel, CPU, memory, NUMA nodes."""

    hostname: str | None
    kernel: str | None
    cpu_model: str | None
    cpu_vendor: str | None
    cpu_architecture: str | None
    cpu_cores: int | None
    cpu_threads: int | None
    memory_total_bytes: int | None
    numa_nodes: list[dict[str, Any]]
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Host":
        return cls(hostname=d.get("hostname"), kernel=d.get("kernel"),
                   cpu_model=_get(d, "cpu.model"), cpu_vendor=_get(d, "cpu.vendor"),
                   cpu_architecture=_get(d, "cpu.architecture"), cpu_cores=_get(d, "cpu.cores"),
                   cpu_threads=_get(d, "cpu.threads"),
                   memory_total_bytes=_get(d, "memory.total_bytes"),
                   numa_nodes=list(d.get("numa_nodes", [])), raw=dict(d))


@dataclass(frozen=True)
class Link:
    """The best path between two devices (or, in ``nic_links``, a device and a NIC)."""

    a: str
    b: str
    kind: str
    bandwidth_gbps: float | None
    source: str | None
    link_count: int | None
    pcie_switches: int | None
    p2p: Any
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Link":
        return cls(a=d["a"], b=d["b"], kind=d.get("kind", "unknown"),
                   bandwidth_gbps=d.get("bandwidth_gbps"), source=d.get("source"),
                   link_count=d.get("link_count"), pcie_switches=d.get("pcie_switches"),
                   p2p=d.get("p2p"), raw=dict(d))


@dataclass(frozen=True)
class Nic:
    """An RDMA network adapter."""

    name: str
    pci_address: str | None
    numa_node: int | None
    link_layer: str | None
    rate_gbps: float | None
    state: str | None
    port_count: int | None
    node_guid: str | None
    source: str | None
    raw: dict[str, Any] = field(repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Nic":
        f = {k: d.get(k) for k in ("name", "pci_address", "numa_node", "link_layer",
                                    "rate_gbps", "state", "port_count", "node_guid", "source")}
        # GB/s, as every rate in axl's JSON; an axl.inventory of schema_version 1 gave
        # the port rate in Gb/s as "rate_gbit"
        if f["rate_gbps"] is None and isinstance(d.get("rate_gbit"), (int, float)):
            f["rate_gbps"] = d["rate_gbit"] / 8
        return cls(**f, raw=dict(d))


@dataclass(frozen=True)
class Warning:
    """Something that could not be read or made sense of."""

    source: str
    path: str | None
    message: str

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Warning":
        return cls(source=d.get("source", ""), path=d.get("path"), message=d.get("message", ""))


def _env_array(env: Mapping[str, str] | Sequence[str]) -> Any:
    if isinstance(env, Mapping):
        items = ["%s=%s" % (k, v) for k, v in env.items()]
    elif isinstance(env, (str, bytes)) or not isinstance(env, Sequence):
        raise TypeError("env must be a mapping or a sequence of 'NAME=value' strings")
    else:
        items = list(env)
    arr = (c_char_p * (len(items) + 1))()
    for i, s in enumerate(items):
        b = enc(s, "env entry")
        assert b is not None
        if b"=" not in b:
            raise ValueError("env entry %r is not NAME=value" % s)
        arr[i] = b
    arr[len(items)] = None
    return arr


class Inventory:
    """A snapshot of a node (axl_inventory). Use as a context manager or call close().

    Attributes: ``devices``, ``host``, ``links``, ``nics``, ``nic_links``, ``switches``,
    ``warnings`` and ``raw`` (the whole "axl.inventory" document as a dict).
    """

    def __init__(self, ctx: c_void_p, inv: c_void_p, doc: dict[str, Any]) -> None:
        self._ctx: c_void_p | None = ctx
        self._inv: c_void_p | None = inv
        self._dependents: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self.raw: dict[str, Any] = doc
        self.devices: list[Device] = [Device.from_json(d) for d in doc.get("devices", [])]
        self.host: Host = Host.from_json(doc.get("host", {}))
        self.links: list[Link] = [Link.from_json(x) for x in doc.get("links", [])]
        self.nic_links: list[Link] = [Link.from_json(x) for x in doc.get("nic_links", [])]
        self.nics: list[Nic] = [Nic.from_json(x) for x in doc.get("nics", [])]
        self.switches: list[dict[str, Any]] = list(doc.get("switches", []))
        self.warnings: list[Warning] = [Warning.from_json(x) for x in doc.get("warnings", [])]
        self.rerooted: bool = bool(doc.get("rerooted", False))

    # -- lifetime -------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._inv is None

    def close(self) -> None:
        """Close what was opened over it (samplers, compute contexts), then free it.
        Idempotent."""
        for dep in list(self._dependents):
            dep.close()
        if self._inv is not None:
            lib().axl_inventory_free(self._inv)
            self._inv = None
        if self._ctx is not None:
            lib().axl_context_free(self._ctx)
            self._ctx = None

    def __enter__(self) -> "Inventory":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def _handles(self) -> tuple[c_void_p, c_void_p]:
        if self._inv is None or self._ctx is None:
            raise ClosedError("inventory")
        return self._ctx, self._inv

    def _add_dependent(self, obj: Any) -> None:
        self._dependents.add(obj)

    # -- reading ----------------------------------------------------------------------
    def __iter__(self) -> Iterator[Device]:
        return iter(self.devices)

    def __len__(self) -> int:
        return len(self.devices)

    def device(self, key: str) -> Device:
        """A device (or partition) by id ("nvidia:0"), UUID or PCI address; NotFoundError
        when none matches."""
        if not isinstance(key, str):
            raise TypeError("device key must be a str, not %s" % type(key).__name__)
        for d in self._all_devices():
            if key in (d.id, d.uuid, d.pci_address):
                return d
        raise NotFoundError(-3, "no device %r in the inventory" % key, "ENOENT")

    # -- the registry questions (axl_inventory_select/best/total_memory) ----------------
    def select(self, *, family: str | None = None, vendor: str | None = None, min_memory: int | None = None,
               precision: str | None = None, visible: bool | None = None,
               numa: int | None = None) -> list[Device]:
        """The devices matching every filter given (``axl list --family ... --min-memory ...``):
        family ("gpu", "npu", ...), vendor ("NVIDIA" or the id prefix "nvidia"), min_memory in
        bytes, precision a format the device runs natively ("fp8", "bf16", ...), visible to
        this process or not, NUMA node. A device whose value is not known never matches a
        filter on it. ValueError for an unknown family or precision."""
        _ctx, inv = self._handles()
        f = _filter(family, vendor, min_memory, precision, visible, numa)
        n = ctypes.c_size_t()
        check(lib().axl_inventory_select(inv, ctypes.byref(f), None, 0, ctypes.byref(n)))
        ptrs = (c_void_p * max(n.value, 1))()
        check(lib().axl_inventory_select(inv, ctypes.byref(f), ptrs, n.value, ctypes.byref(n)))
        return [self.device(_lib.dec(lib().axl_device_id(ptrs[i])) or "") for i in range(n.value)]

    def best(self, rank: str = "memory", **filters: Any) -> Device:
        """The matching device with the most memory, bandwidth or compute (rank "memory",
        "bandwidth" or "compute"; filters as select()). NotFoundError when none matches,
        UnknownError when none of them knows its value."""
        if rank not in _RANKS:
            raise ValueError("rank must be one of %s" % ", ".join(_RANKS))
        _ctx, inv = self._handles()
        f = _filter_kw(filters)
        out = c_void_p()
        check(lib().axl_inventory_best(inv, ctypes.byref(f), _RANKS[rank], ctypes.byref(out)))
        return self.device(_lib.dec(lib().axl_device_id(out)) or "")

    def total_memory(self, **filters: Any) -> tuple[int, int]:
        """(bytes, unknown): the accelerator memory of the matching devices added up, and how
        many of them do not know theirs (filters as select())."""
        _ctx, inv = self._handles()
        f = _filter_kw(filters)
        total, unknown = ctypes.c_int64(), ctypes.c_size_t()
        check(lib().axl_inventory_total_memory(inv, ctypes.byref(f), ctypes.byref(total), ctypes.byref(unknown)))
        return total.value, unknown.value

    def _all_devices(self) -> Iterator[Device]:
        for d in self.devices:
            yield d
            yield from d.children

    def _device_ptr(self, key: str) -> c_void_p:
        _ctx, inv = self._handles()
        p = lib().axl_inventory_find(inv, enc(key, "device"))
        if not p:
            raise NotFoundError(-3, "no device %r in the inventory" % key, "ENOENT")
        return p

    @property
    def state_dir(self) -> str | None:
        """The state directory of limits and partitions (None: none)."""
        ctx, _ = self._handles()
        return _lib.dec(lib().axl_state_dir(ctx))

    @property
    def simulated(self) -> bool:
        ctx, _ = self._handles()
        return bool(lib().axl_context_is_simulated(ctx))

    @property
    def sysroot(self) -> str:
        ctx, _ = self._handles()
        return _lib.dec(lib().axl_context_sysroot(ctx)) or "/"

    def json(self, pretty: bool = False) -> str:
        """The "axl.inventory" document as text (what ``axl list --json`` prints)."""
        _ctx, inv = self._handles()
        out = c_void_p()
        check(lib().axl_inventory_json(inv, 1 if pretty else 0, ctypes.byref(out), None))
        return _lib.take_text(out)

    def __repr__(self) -> str:
        state = "closed" if self.closed else "%d devices" % len(self.devices)
        return "<axl.Inventory %s %s>" % (self.host.hostname, state)


def open(sysroot: str | os.PathLike[str] | None = None, *, sim: str | os.PathLike[str] | None = None,
         backends: str | Sequence[str] | None = None,
         env: Mapping[str, str] | Sequence[str] | None = None, all: bool = False,
         ignore_environment: bool = False, pci_ids: str | None = None,
         use_pci_ids: bool = True, driver_root: str | os.PathLike[str] | None = None) -> Inventory:
    """Open a node and take its inventory.

    sysroot: another node's tree (a directory or a capture .tar.gz); sim: an "axl.sim"
    spec (docs/sim.md); backends: "nvidia,amdgpu", "-vulkan" or a list of names; env:
    the environment axl reads in place of the process's (visibility variables,
    AXL_STATE_DIR, ...) as a mapping or "NAME=value" strings; all: also the host CPU as
    a device (``axl list --all``); ignore_environment: ignore the process environment
    (AXL_SYSROOT, AXL_SIM, CUDA_VISIBLE_DEVICES, ...); driver_root: where the vendor's
    libraries (NVML, ROCm SMI, Level Zero) are looked for, the host's root as this
    process sees it ("/host" in a container that mounts it there; AXL_DRIVER_ROOT).
    """
    if backends is not None and not isinstance(backends, str):
        if not isinstance(backends, Sequence) or not all_str(backends):
            raise TypeError("backends must be a str or a sequence of str")
        backends = ",".join(backends)
    opts = _ContextOptions()
    opts.version = 4
    opts.sysroot = enc(sysroot, "sysroot")
    opts.driver_root = enc(driver_root, "driver_root")
    opts.sim = enc(sim, "sim")
    opts.backends = enc(backends, "backends")
    opts.log_level = 0
    opts.flags = (CONTEXT_NO_ENV if ignore_environment else 0) | (0 if use_pci_ids else CONTEXT_NO_PCI_IDS)
    opts.pci_ids_path = enc(pci_ids, "pci_ids")
    env_arr = None
    if env is not None:
        env_arr = _env_array(env)
        opts.env = ctypes.cast(env_arr, POINTER(c_char_p))
    L = lib()
    ctx = c_void_p()
    check(L.axl_context_open(ctypes.byref(ctx), ctypes.byref(opts)))
    inv = c_void_p()
    try:
        check(L.axl_inventory_open(ctypes.byref(inv), ctx, INVENTORY_ALL if all else 0))
        out = c_void_p()
        check(L.axl_inventory_json(inv, 0, ctypes.byref(out), None))
        doc = _lib.take_json(out)
    except BaseException:
        if inv.value:
            L.axl_inventory_free(inv)
        L.axl_context_free(ctx)
        raise
    return Inventory(ctx, inv, doc)


def all_str(seq: Sequence[Any]) -> bool:
    return all(isinstance(x, str) for x in seq)


def backends() -> list[str]:
    """The backends compiled into libaxl, in probe order."""
    L = lib()
    return [_lib.dec(L.axl_backend_name(i)) or "" for i in range(L.axl_backend_count())]
