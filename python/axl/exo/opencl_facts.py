"""What an OpenCL runtime says of its devices (clGetDeviceInfo through the ICD loader),
for the GPUDevice fields axl's compute API does not report: compute units, the largest
work-group (exo's max_threads_per_block), the clock and the driver version.

Read once, by device name, when an opencl backend starts; an OpenCL that cannot be
loaded or asked gives no facts (the fields then carry the documented "unknown")."""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

__all__ = ["opencl_device_facts"]

_CL_DEVICE_TYPE_ALL = 0xFFFFFFFF
_CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002
_CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004
_CL_DEVICE_MAX_CLOCK_FREQUENCY = 0x100C
_CL_DEVICE_NAME = 0x102B
_CL_DRIVER_VERSION = 0x102D


def _load() -> Any:
    for name in ("libOpenCL.so.1", ctypes.util.find_library("OpenCL")):
        if name:
            try:
                return ctypes.CDLL(name)
            except OSError:
                continue
    return None


def opencl_device_facts() -> dict[str, dict[str, Any]]:
    """{device name: {"compute_units", "max_work_group_size", "clock_mhz",
    "driver_version"}} of every OpenCL device; {} when OpenCL is not there."""
    cl = _load()
    if cl is None:
        return {}
    u32, sz = ctypes.c_uint32, ctypes.c_size_t
    n = u32()
    if cl.clGetPlatformIDs(0, None, ctypes.byref(n)) != 0 or n.value == 0:
        return {}
    plats = (ctypes.c_void_p * n.value)()
    if cl.clGetPlatformIDs(n.value, plats, None) != 0:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for p in plats:
        nd = u32()
        if cl.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_uint64(_CL_DEVICE_TYPE_ALL), 0, None,
                             ctypes.byref(nd)) != 0 or nd.value == 0:
            continue
        devs = (ctypes.c_void_p * nd.value)()
        if cl.clGetDeviceIDs(ctypes.c_void_p(p), ctypes.c_uint64(_CL_DEVICE_TYPE_ALL), nd.value,
                             devs, None) != 0:
            continue
        for d in devs:
            def info(param: int, ctype: Any) -> Any:
                v = ctype()
                r = cl.clGetDeviceInfo(ctypes.c_void_p(d), u32(param), sz(ctypes.sizeof(v)),
                                       ctypes.byref(v), None)
                return v.value if r == 0 else None

            def text(param: int) -> str | None:
                buf = ctypes.create_string_buffer(1024)
                r = cl.clGetDeviceInfo(ctypes.c_void_p(d), u32(param), sz(len(buf)), buf, None)
                return buf.value.decode("utf-8", "replace").strip() or None if r == 0 else None

            name = text(_CL_DEVICE_NAME)
            if name is None:
                continue
            out[name] = {"compute_units": info(_CL_DEVICE_MAX_COMPUTE_UNITS, u32),
                         "max_work_group_size": info(_CL_DEVICE_MAX_WORK_GROUP_SIZE, sz),
                         "clock_mhz": info(_CL_DEVICE_MAX_CLOCK_FREQUENCY, u32),
                         "driver_version": text(_CL_DRIVER_VERSION)}
    return out
