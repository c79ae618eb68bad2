"""exo_node_profile(): what upstream exo's placement reads of a node, from axl.

Upstream exo (exo-explore/exo) has no GPU layer. Its master places a model on cycles of
nodes by each node's ``MemoryUsage`` (``ram_total``, ``ram_available``, ``swap_total``,
``swap_available``; placement sums ``ram_available`` over a cycle and splits layers in
proportion to it), by the topology's connections between nodes, and, for its RDMA
(MlxJaccl) instances, by whether each node has RDMA. Those figures come from psutil:
host RAM, right on Apple's unified memory, wrong on a node whose model goes into GPU
memory. Until exo grows a GPU layer, this function is the bridge: it gives exo the same
figures from axl's inventory (and axl's sampler for memory in use), so that a node
agent can fill ``MemoryUsage.from_bytes(**profile["memory"])`` with accelerator memory
where the node has accelerators.
"""

from __future__ import annotations

import os
from typing import Any

from .. import compute as _compute
from ..errors import AxlError
from ..inventory import Inventory
from ..inventory import open as _open_inventory
from ..metrics import sample as _sample
from .backend import _AXL_TO_EXO

__all__ = ["exo_node_profile"]


def _meminfo() -> dict[str, int]:
    out: dict[str, int] = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                k, _, v = line.partition(":")
                parts = v.split()
                if parts and parts[0].isdigit():
                    out[k] = int(parts[0]) * 1024
    except OSError:
        pass
    return out


def exo_node_profile(inventory: Inventory | None = None, *,
                     sim: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The node as upstream exo's placement reads it, from axl's inventory:

    - ``memory``: the keyword arguments of exo's ``MemoryUsage.from_bytes``. With
      accelerators: ``ram_total`` their memory added up (the inventory's), and
      ``ram_available`` that total less what axl's sampler says is in use; a device
      whose size or use is not known adds nothing to either and is counted in
      ``memory_unknown_devices``; ``swap_*`` 0 (device memory does not swap). Without
      accelerators: the host's RAM and swap (/proc/meminfo MemTotal, MemAvailable,
      SwapTotal, SwapFree), what exo reads through psutil today.
    - ``memory_source``: "accelerators" or "host".
    - ``memory_unknown_devices``: accelerators left out of ``memory``.
    - ``devices``: each accelerator: ``id``, ``model``, ``memory_total_bytes``,
      ``memory_used_bytes`` (None when not known).
    - ``backends``: the exo backend names that drive a device here ("cuda", "rocm",
      "vulkan", ... and "cpu", always), from axl's compute API.
    - ``links``: the inventory's links between devices (``a``, ``b``, ``kind``,
      ``bandwidth_gbps``), for exo's topology.
    - ``rdma``: whether the node has an RDMA adapter that is up, and ``nics``: each
      RDMA adapter (``name``, ``link_layer``, ``rate_gbps`` (GB/s), ``state``).

    ``inventory``: an open inventory (left open), else the live system's (or ``sim``'s),
    opened and closed here.
    """
    own = inventory is None
    inv = inventory if inventory is not None else (
        _open_inventory(sim=sim) if sim is not None else _open_inventory())
    try:
        accels = [d for d in inv.devices if d.family != "cpu"]
        used: dict[str, int | None] = {d.id: None for d in accels}
        if accels:
            try:
                smp = _sample(inv)
                for d in accels:
                    try:
                        v = smp.device(d.id).get("memory_used_bytes")
                    except KeyError:
                        v = None
                    used[d.id] = int(v) if v is not None else None
            except AxlError:
                pass
        devices = [{"id": d.id, "model": d.model, "memory_total_bytes": d.memory_total_bytes,
                    "memory_used_bytes": used[d.id]} for d in accels]
        if accels:
            known = [x for x in devices
                     if x["memory_total_bytes"] is not None and x["memory_used_bytes"] is not None]
            total = sum(x["memory_total_bytes"] for x in known)
            memory = {"ram_total": total,
                      "ram_available": sum(max(x["memory_total_bytes"] - x["memory_used_bytes"], 0)
                                           for x in known),
                      "swap_total": 0, "swap_available": 0}
            source, unknown = "accelerators", len(devices) - len(known)
        else:
            mi = _meminfo()
            memory = {"ram_total": mi.get("MemTotal", 0),
                      "ram_available": mi.get("MemAvailable", mi.get("MemFree", 0)),
                      "swap_total": mi.get("SwapTotal", 0),
                      "swap_available": mi.get("SwapFree", 0)}
            source, unknown = "host", 0
        backends: list[str] = []
        try:
            with _compute.open(inv) as c:
                for cd in c.devices:
                    name = _AXL_TO_EXO.get(cd.backend)
                    if cd.index != 0 and name and name not in backends:
                        backends.append(name)
        except AxlError:
            pass
        backends.append("cpu")
        nics = [{"name": n.name, "link_layer": n.link_layer, "rate_gbps": n.rate_gbps,
                 "state": n.state} for n in inv.nics]
        return {
            "memory": memory, "memory_source": source, "memory_unknown_devices": unknown,
            "devices": devices, "backends": backends,
            "links": [{"a": x.a, "b": x.b, "kind": x.kind, "bandwidth_gbps": x.bandwidth_gbps}
                      for x in inv.links],
            "rdma": any((n["state"] or "").upper() in ("ACTIVE", "UP") for n in nics),
            "nics": nics,
        }
    finally:
        if own:
            inv.close()
