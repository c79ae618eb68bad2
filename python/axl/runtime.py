"""What a container needs to use a device: its runtime files (runtime.h).

``axl_device_runtime()`` describes, per vendor, the CDI kind, the user-space libraries and
programs to bind-mount, the control device nodes every container of the kind needs and
the environment to set. The description is static: it says what to look for, not what is
installed.
"""

from __future__ import annotations

import ctypes
from ctypes import POINTER, Structure, c_char_p, c_uint, c_void_p
from dataclasses import dataclass

from ._lib import check, dec, lib
from .inventory import Inventory

#: A partition needs its parent's own device nodes too (NVIDIA MIG).
RUNTIME_CHILD_NEEDS_PARENT = 0x1
#: A limiter preloaded into the workload (LD_PRELOAD) can hold a memory/compute share.
RUNTIME_PRELOAD_LIMITS = 0x2


class _Runtime(Structure):
    # The leading fields of struct axl_runtime (fields are only ever appended).
    _fields_ = [("kind", c_char_p), ("vendor", c_char_p),
                ("libraries", POINTER(c_char_p)), ("library_dirs", POINTER(c_char_p)),
                ("binaries", POINTER(c_char_p)), ("binary_dirs", POINTER(c_char_p)),
                ("control_nodes", POINTER(c_char_p)), ("env", POINTER(c_char_p)),
                ("flags", c_uint), ("partitions", c_char_p), ("attrs", c_void_p),
                ("labels", c_void_p)]


def _strv(p: "ctypes._Pointer[c_char_p]") -> list[str]:
    out: list[str] = []
    if not p:
        return out
    i = 0
    while p[i] is not None:
        out.append(p[i].decode())
        i += 1
    return out


@dataclass(frozen=True)
class Runtime:
    """The runtime files of a device, as the backend that owns it describes them.

    kind: the CDI kind / Kubernetes resource ("nvidia.com/gpu"), None when the vendor has
    none; control_nodes: device nodes every container of the kind needs; env:
    NAME=VALUE strings; flags: RUNTIME_* bits; partitions: the partitioning technology
    whose partitions are devices of their own (None: none).
    """

    kind: str | None
    vendor: str | None
    libraries: list[str]
    library_dirs: list[str]
    binaries: list[str]
    binary_dirs: list[str]
    control_nodes: list[str]
    env: list[str]
    flags: int
    partitions: str | None

    @property
    def child_needs_parent(self) -> bool:
        return bool(self.flags & RUNTIME_CHILD_NEEDS_PARENT)

    @property
    def preload_limits(self) -> bool:
        return bool(self.flags & RUNTIME_PRELOAD_LIMITS)


def device_runtime(inventory: Inventory, device: str) -> Runtime | None:
    """The runtime files of a device (id, UUID or PCI address) of the inventory; None when
    no backend describes any (an unknown PCI accelerator, a CPU). NotFoundError for a
    device not in the inventory."""
    if not isinstance(inventory, Inventory):
        raise TypeError("inventory must be an axl.Inventory")
    if not isinstance(device, str):
        raise TypeError("device must be a str, not %s" % type(device).__name__)
    dev = inventory._device_ptr(device)
    p = lib().axl_device_runtime(dev)
    if not p:
        return None
    r = ctypes.cast(p, POINTER(_Runtime)).contents
    return Runtime(kind=dec(r.kind), vendor=dec(r.vendor), libraries=_strv(r.libraries),
                   library_dirs=_strv(r.library_dirs), binaries=_strv(r.binaries),
                   binary_dirs=_strv(r.binary_dirs), control_nodes=_strv(r.control_nodes),
                   env=_strv(r.env), flags=int(r.flags), partitions=dec(r.partitions))


def cdi_kind(inventory: Inventory, device: str) -> str:
    """axl's CDI kind for a device (id, UUID or PCI address; a partition: its parent's), as
    `axl cdi generate` writes its specs: "axl.dev/nvidia-gpu" for the vendor's
    "nvidia.com/gpu", "axl.dev/<family>" when the vendor has none
    (axl_device_cdi_kind). NotFoundError for a device not in the inventory."""
    if not isinstance(inventory, Inventory):
        raise TypeError("inventory must be an axl.Inventory")
    if not isinstance(device, str):
        raise TypeError("device must be a str, not %s" % type(device).__name__)
    dev = inventory._device_ptr(device)
    buf = ctypes.create_string_buffer(128)
    n = lib().axl_device_cdi_kind(dev, buf, len(buf))
    check(n if n < 0 else 0)
    return buf.value.decode()
