"""Loading libaxl and declaring the C functions the package calls (internal).

The library is looked for, in order: the file named by ``$AXL_LIBRARY``; a
``libaxl.so.0`` placed in this package's directory; ``ctypes.util.find_library("axl")``;
the plain name ``libaxl.so.0`` (the dynamic loader's search path).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import threading
from ctypes import (POINTER, c_char_p, c_double, c_int, c_int64, c_size_t, c_uint, c_uint8,
                    c_uint64, c_void_p)
from typing import Any

from .errors import AxlError, error_from_code

#: The major version of libaxl this package speaks; 0.x also needs minor >= MIN_MINOR.
SUPPORTED_MAJOR = 0
MIN_MINOR = 1

_lock = threading.Lock()
_lib: ctypes.CDLL | None = None
_path: str | None = None


def _candidates() -> list[str]:
    out = []
    env = os.environ.get("AXL_LIBRARY")
    if env:
        out.append(env)
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "libaxl.so.0")
    if os.path.exists(here):
        out.append(here)
    found = ctypes.util.find_library("axl")
    if found:
        out.append(found)
    out.append("libaxl.so.0")
    return out


class LibraryNotFoundError(AxlError):
    """libaxl could not be loaded, or its version is not one this package speaks."""

    def __init__(self, message: str) -> None:
        super().__init__(-10, message)


def lib() -> ctypes.CDLL:
    """The loaded library (loaded and checked on first use)."""
    global _lib, _path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        errors = []
        for cand in _candidates():
            try:
                handle = ctypes.CDLL(cand)
            except OSError as e:
                errors.append("%s: %s" % (cand, e))
                if cand == os.environ.get("AXL_LIBRARY"):
                    raise LibraryNotFoundError("AXL_LIBRARY=%s cannot be loaded: %s" % (cand, e)) from None
                continue
            _declare(handle)
            num = handle.axl_version_number()
            major, minor = num >> 16, (num >> 8) & 0xFF
            if major != SUPPORTED_MAJOR or minor < MIN_MINOR:
                raise LibraryNotFoundError(
                    "%s is libaxl %s; this package needs %d.%d or a later %d.x" %
                    (cand, handle.axl_version().decode(), SUPPORTED_MAJOR, MIN_MINOR, SUPPORTED_MAJOR))
            _lib, _path = handle, cand
            return handle
        raise LibraryNotFoundError("libaxl.so.0 not found (set AXL_LIBRARY): " + "; ".join(errors))


def library_path() -> str:
    """The path (or name) libaxl was loaded from."""
    lib()
    assert _path is not None
    return _path


P = c_void_p
_SIGS: dict[str, tuple[Any, list[Any]]] = {
    "axl_version": (c_char_p, []),
    "axl_version_number": (c_uint, []),
    "axl_strerror": (c_char_p, [c_int]),
    "axl_err_name": (c_char_p, [c_int]),
    "axl_error_last": (c_char_p, []),
    "axl_free": (None, [P]),
    "axl_source_name": (c_char_p, [c_int]),
    "axl_context_open": (c_int, [POINTER(P), P]),
    "axl_context_free": (None, [P]),
    "axl_context_sysroot": (c_char_p, [P]),
    "axl_context_is_rerooted": (c_int, [P]),
    "axl_context_is_simulated": (c_int, [P]),
    "axl_backend_count": (c_size_t, []),
    "axl_backend_name": (c_char_p, [c_size_t]),
    "axl_inventory_open": (c_int, [POINTER(P), P, c_uint]),
    "axl_inventory_free": (None, [P]),
    "axl_inventory_find": (P, [P, c_char_p]),
    "axl_inventory_json": (c_int, [P, c_uint, POINTER(P), POINTER(c_size_t)]),
    "axl_device_id": (c_char_p, [P]),
    "axl_family_name": (c_char_p, [c_int]),
    "axl_format_name": (c_char_p, [c_int]),
    "axl_rank_name": (c_char_p, [c_int]),
    "axl_inventory_select": (c_int, [P, P, POINTER(P), c_size_t, POINTER(c_size_t)]),
    "axl_inventory_best": (c_int, [P, P, c_int, POINTER(P)]),
    "axl_inventory_total_memory": (c_int, [P, P, POINTER(c_int64), POINTER(c_size_t)]),
    "axl_device_rank_value": (c_int, [P, c_int, POINTER(ctypes.c_double)]),
    "axl_device_runtime": (P, [P]),
    "axl_device_cdi_kind": (c_int, [P, c_char_p, c_size_t]),
    "axl_metric_name": (c_char_p, [c_int]),
    "axl_metric_unit": (c_char_p, [c_int]),
    "axl_metric_is_counter": (c_int, [c_int]),
    "axl_sampler_open": (c_int, [POINTER(P), P, c_uint]),
    "axl_sampler_free": (None, [P]),
    "axl_sampler_sample": (c_int, [P, POINTER(P)]),
    "axl_sample_free": (None, [P]),
    "axl_sample_time_ns": (c_int64, [P]),
    "axl_sample_interval_ms": (c_double, [P]),
    "axl_sample_cost_us": (c_double, [P]),
    "axl_sample_device_count": (c_size_t, [P]),
    "axl_sample_device": (P, [P, c_size_t]),
    "axl_sample_device_state": (c_int, [P, c_size_t]),
    "axl_sample_state_name": (c_char_p, [c_int]),
    "axl_sample_get": (c_int, [P, c_size_t, c_int, POINTER(c_double), POINTER(c_int)]),
    "axl_sample_process_count": (c_size_t, [P]),
    "axl_sample_process": (P, [P, c_size_t]),
    "axl_sample_json": (c_int, [P, c_uint, POINTER(P), POINTER(c_size_t)]),
    "axl_sample_prometheus": (c_int, [P, c_uint, POINTER(P), POINTER(c_size_t)]),
    "axl_partition_create": (c_int, [P, P, c_char_p, c_char_p, c_uint, POINTER(P)]),
    "axl_partition_destroy": (c_int, [P, P, c_char_p, c_char_p, c_uint, POINTER(c_size_t)]),
    "axl_partition_list": (c_int, [P, P, POINTER(P), POINTER(c_size_t)]),
    "axl_partition_cleanup": (c_int, [P, P, POINTER(c_size_t)]),
    "axl_partition_set_mode": (c_int, [P, P, c_char_p, c_char_p, c_char_p, c_uint]),
    "axl_state_dir": (c_char_p, [P]),
    "axl_limit_set": (c_int, [P, c_char_p, c_int64, c_int]),
    "axl_limit_clear": (c_int, [P, P, c_char_p, POINTER(c_size_t)]),
    "axl_limit_list": (c_int, [P, POINTER(P), POINTER(c_size_t)]),
    "axl_limit_env": (c_int, [P, POINTER(c_char_p), c_size_t, POINTER(P)]),
    "axl_model_open": (c_int, [POINTER(P), c_char_p]),
    "axl_model_free": (None, [P]),
    "axl_model_get_info": (c_int, [P, P]),
    "axl_model_catalog_count": (c_size_t, []),
    "axl_model_catalog_id": (c_char_p, [c_size_t]),
    "axl_model_catalog_alias": (c_char_p, [c_size_t]),
    "axl_planner_new": (c_int, [POINTER(P)]),
    "axl_planner_free": (None, [P]),
    "axl_planner_add_inventory": (c_int, [P, P, c_char_p]),
    "axl_planner_add_json": (c_int, [P, c_char_p, c_size_t, c_char_p]),
    "axl_planner_device_count": (c_size_t, [P]),
    "axl_plan_compute": (c_int, [POINTER(P), P, P, P]),
    "axl_plan_free": (None, [P]),
    "axl_plan_get_summary": (c_int, [P, P]),
    "axl_model_catalog_entry": (c_char_p, [P]),
    "axl_plan_json": (c_int, [P, POINTER(P), POINTER(c_size_t)]),
    "axl_plan_text": (c_int, [P, POINTER(P), POINTER(c_size_t)]),
    "axl_compute_open": (c_int, [POINTER(P), P, P]),
    "axl_compute_free": (None, [P]),
    "axl_compute_device_count": (c_size_t, [P]),
    "axl_compute_device_at": (P, [P, c_size_t]),
    "axl_compute_device_inventory": (P, [P]),
    "axl_compute_device_backend": (c_char_p, [P]),
    "axl_compute_device_name": (c_char_p, [P]),
    "axl_compute_device_memory": (c_int, [P, P, POINTER(c_uint64), POINTER(c_uint64)]),
    "axl_compute_device_sync": (c_int, [P, P]),
    "axl_buffer_alloc": (c_int, [P, P, c_int, c_uint64, POINTER(c_uint64)]),
    "axl_buffer_wrap": (c_int, [P, P, c_uint64, POINTER(c_uint64)]),
    "axl_buffer_free": (c_int, [P, c_uint64]),
    "axl_buffer_info": (c_int, [P, c_uint64, POINTER(c_uint64), POINTER(c_int), POINTER(P)]),
    "axl_buffer_host_pointer": (c_int, [P, c_uint64, POINTER(P)]),
    "axl_queue_create": (c_int, [P, P, POINTER(c_uint64)]),
    "axl_queue_free": (c_int, [P, c_uint64]),
    "axl_queue_sync": (c_int, [P, c_uint64]),
    "axl_copy": (c_int, [P, c_uint64, c_uint64, c_uint64, c_uint64, c_uint64, c_uint64,
                         POINTER(c_int), POINTER(c_uint64)]),
    "axl_fill": (c_int, [P, c_uint64, c_uint64, c_uint64, c_uint64, c_uint8, POINTER(c_uint64)]),
    "axl_event_record": (c_int, [P, c_uint64, POINTER(c_uint64)]),
    "axl_event_wait": (c_int, [P, c_uint64]),
    "axl_event_elapsed_ns": (c_int, [P, c_uint64, c_uint64, POINTER(c_int64)]),
    "axl_event_notify": (c_int, [P, c_uint64, c_int]),
    "axl_event_free": (c_int, [P, c_uint64]),
    "axl_copy_path_name": (c_char_p, [c_int]),
    "axl_memory_kind_name": (c_char_p, [c_int]),
}


def _declare(handle: ctypes.CDLL) -> None:
    for name, (res, args) in _SIGS.items():
        fn = getattr(handle, name)
        fn.restype = res
        fn.argtypes = args


def check(rc: int) -> None:
    """Raise the AxlError of a negative return code (with axl_error_last's message)."""
    if rc < 0:
        L = lib()
        raise error_from_code(rc, dec(L.axl_error_last()) or dec(L.axl_strerror(rc)) or "",
                              dec(L.axl_err_name(rc)) or "EUNKNOWNCODE")


def dec(b: bytes | None) -> str | None:
    """A C string as str (None for NULL)."""
    return None if b is None else b.decode("utf-8", "replace")


def enc(s: str | None, what: str = "argument") -> bytes | None:
    """A str as a C string; None stays NULL. Refuses other types and NUL characters."""
    if s is None:
        return None
    if isinstance(s, os.PathLike):
        s = os.fspath(s)
    if not isinstance(s, str):
        raise TypeError("%s must be a str, not %s" % (what, type(s).__name__))
    if "\0" in s:
        raise ValueError("%s contains a NUL character" % what)
    return s.encode("utf-8")


def take_text(ptr: c_void_p) -> str:
    """Copy a malloc'd NUL-terminated string from libaxl and free it."""
    try:
        return ctypes.string_at(ptr.value).decode("utf-8", "replace") if ptr.value else ""
    finally:
        if ptr.value:
            lib().axl_free(ptr)


def take_json(ptr: c_void_p) -> Any:
    return json.loads(take_text(ptr))


def source_name(src: int) -> str:
    return dec(lib().axl_source_name(src)) or "unknown"
