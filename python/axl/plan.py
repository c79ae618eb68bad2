"""Will a model fit, how to split it, how fast it runs (plan.h; docs/plan.md)."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from ctypes import Structure, c_char_p, c_double, c_int, c_int64, c_uint, c_void_p
from dataclasses import dataclass, field
from typing import Any

from . import _lib
from ._lib import check, dec, enc, lib
from .inventory import Inventory

MAX_CONTEXT = 1 << 28
MAX_BATCH = 65536


class _ModelInfo(Structure):
    _fields_ = [("name", c_char_p), ("alias", c_char_p), ("architecture", c_char_p),
                ("source", c_char_p), ("weights_dtype", c_char_p), ("params", c_int64),
                ("active_params", c_int64), ("layers", c_int64), ("hidden", c_int64),
                ("heads", c_int64), ("kv_heads", c_int64), ("head_dim", c_int64),
                ("experts", c_int64), ("experts_per_token", c_int64), ("max_context", c_int64),
                ("attention", c_char_p), ("sliding_window", c_int64)]


class _Request(Structure):
    _fields_ = [("version", c_uint), ("quantization", c_char_p), ("kv_dtype", c_char_p),
                ("context_tokens", c_int64), ("batch", c_int64), ("devices", c_char_p),
                ("network_gbps", c_double)]


class _Summary(Structure):
    _fields_ = [("fits", c_int), ("total_bytes", c_int64), ("shortfall_bytes", c_int64),
                ("tp", c_int), ("pp", c_int), ("dp", c_int), ("ep", c_int),
                ("decode_tokens_per_s", c_double), ("prefill_tokens_per_s", c_double),
                ("bound", c_char_p)]


@dataclass(frozen=True)
class ModelInfo:
    """What a model description says; counts None when not given."""

    name: str
    alias: str | None
    architecture: str | None
    source: str | None
    weights_dtype: str | None
    params: int | None
    active_params: int | None
    layers: int | None
    hidden: int | None
    heads: int | None
    kv_heads: int | None
    head_dim: int | None
    experts: int | None
    experts_per_token: int | None
    max_context: int | None
    attention: str | None
    sliding_window: int | None
    catalog_entry: str | None


@dataclass(frozen=True)
class Plan:
    """The plan's headline; ``raw`` is the "axl.plan" document (``axl plan --json``) and
    ``text`` what ``axl plan`` prints."""

    fits: bool
    total_bytes: int
    shortfall_bytes: int
    tp: int
    pp: int
    dp: int
    ep: int
    decode_tokens_per_s: float
    prefill_tokens_per_s: float
    bound: str | None
    raw: dict[str, Any] = field(repr=False)
    text: str = field(repr=False)


def _open_model(name: str | os.PathLike[str]) -> c_void_p:
    m = c_void_p()
    check(lib().axl_model_open(ctypes.byref(m), enc(name, "model")))
    return m


def model_info(name: str | os.PathLike[str]) -> ModelInfo:
    """Describe a model: a catalog name or alias, or a config.json / safetensors / GGUF
    path."""
    L = lib()
    m = _open_model(name)
    try:
        i = _ModelInfo()
        check(L.axl_model_get_info(m, ctypes.byref(i)))

        def n(v: int) -> int | None:
            return None if v < 0 else v
        return ModelInfo(name=dec(i.name) or "", alias=dec(i.alias),
                         architecture=dec(i.architecture), source=dec(i.source),
                         weights_dtype=dec(i.weights_dtype), params=n(i.params),
                         active_params=n(i.active_params), layers=n(i.layers),
                         hidden=n(i.hidden), heads=n(i.heads), kv_heads=n(i.kv_heads),
                         head_dim=n(i.head_dim), experts=n(i.experts),
                         experts_per_token=n(i.experts_per_token), max_context=n(i.max_context),
                         attention=dec(i.attention), sliding_window=n(i.sliding_window),
                         catalog_entry=dec(L.axl_model_catalog_entry(m)))
    finally:
        L.axl_model_free(m)


def catalog() -> list[tuple[str, str | None]]:
    """The built-in model catalog: (repo id, alias) pairs."""
    L = lib()
    return [(dec(L.axl_model_catalog_id(i)) or "", dec(L.axl_model_catalog_alias(i)))
            for i in range(L.axl_model_catalog_count())]


def _int_arg(name: str, v: int | None, hi: int) -> int:
    if v is None:
        return 0
    if not isinstance(v, int) or isinstance(v, bool):
        raise TypeError("%s must be an int" % name)
    if not 0 < v <= hi:
        raise ValueError("%s must be 1..%d, not %d" % (name, hi, v))
    return v


def plan(model: str | os.PathLike[str], inventory: Inventory | Sequence[Inventory | str | dict] | None = None,
         *, quantization: str | None = None, kv_dtype: str | None = None,
         context_tokens: int | None = None, batch: int | None = None,
         devices: str | Sequence[str] | None = None, network_gbps: float | None = None) -> Plan:
    """Plan ``model`` on one node or several.

    inventory: an Inventory, or a list of Inventories and "axl.inventory" documents
    (dicts or JSON text, as ``axl plan --node FILE``); None: this node (axl.open()).
    The other arguments are ``axl plan``'s --quant, --kv-dtype, --ctx, --batch,
    --devices and --network-gbps.
    """
    L = lib()
    req = _Request()
    req.version = 1
    req.quantization = enc(quantization, "quantization")
    req.kv_dtype = enc(kv_dtype, "kv_dtype")
    req.context_tokens = _int_arg("context_tokens", context_tokens, MAX_CONTEXT)
    req.batch = _int_arg("batch", batch, MAX_BATCH)
    if devices is not None and not isinstance(devices, str):
        devices = ",".join(devices)
    req.devices = enc(devices, "devices")
    if network_gbps is not None:
        if not isinstance(network_gbps, (int, float)) or isinstance(network_gbps, bool):
            raise TypeError("network_gbps must be a number")
        if not network_gbps > 0 or network_gbps == float("inf"):
            raise ValueError("network_gbps must be > 0")
        req.network_gbps = float(network_gbps)
    own: Inventory | None = None
    if inventory is None:
        from .inventory import open as _open
        own = inventory = _open()
    nodes: list[Any] = [inventory] if isinstance(inventory, Inventory) else list(inventory)
    if isinstance(inventory, (str, bytes)):
        raise TypeError("inventory must be an Inventory or a list of them")
    planner, m, p = c_void_p(), c_void_p(), c_void_p()
    try:
        check(L.axl_planner_new(ctypes.byref(planner)))
        for node in nodes:
            if isinstance(node, Inventory):
                _c, inv = node._handles()
                check(L.axl_planner_add_inventory(planner, inv, None))
            elif isinstance(node, (str, dict)):
                import json as _json
                text = node if isinstance(node, str) else _json.dumps(node)
                b = enc(text, "inventory document") or b""
                check(L.axl_planner_add_json(planner, b, len(b), None))
            else:
                raise TypeError("a node must be an Inventory, a dict or JSON text, not %s"
                                % type(node).__name__)
        m = _open_model(model)
        check(L.axl_plan_compute(ctypes.byref(p), planner, m, ctypes.byref(req)))
        s = _Summary()
        check(L.axl_plan_get_summary(p, ctypes.byref(s)))
        out = c_void_p()
        check(L.axl_plan_json(p, ctypes.byref(out), None))
        raw = _lib.take_json(out)
        out = c_void_p()
        check(L.axl_plan_text(p, ctypes.byref(out), None))
        text = _lib.take_text(out)
        return Plan(fits=bool(s.fits), total_bytes=s.total_bytes, shortfall_bytes=s.shortfall_bytes,
                    tp=s.tp, pp=s.pp, dp=s.dp, ep=s.ep, decode_tokens_per_s=s.decode_tokens_per_s,
                    prefill_tokens_per_s=s.prefill_tokens_per_s, bound=dec(s.bound), raw=raw,
                    text=text)
    finally:
        if p.value:
            L.axl_plan_free(p)
        if m.value:
            L.axl_model_free(m)
        if planner.value:
            L.axl_planner_free(planner)
        if own is not None:
            own.close()
