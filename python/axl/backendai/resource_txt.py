"""resource.txt of :mod:`axl.backendai`: :func:`read_resource_txt` (the allocations a
container's ``<SLOT>_SHARES`` lines hold), the config folder of a container, and
:class:`ResourceTxtError`."""

from __future__ import annotations

import os
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .errors import BackendAIPluginError


class ResourceTxtError(BackendAIPluginError):
    """A resource.txt that cannot be read or parsed."""


def read_resource_txt(path: str | os.PathLike[str]) -> dict[str, dict[str, dict[str, Decimal]]]:
    """The allocations of a resource.txt: device name -> slot -> device id -> amount,
    from its ``<SLOT>_SHARES=devid:amount,...`` lines (KernelResourceSpec's format).
    ResourceTxtError for a file that cannot be read or a malformed line."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ResourceTxtError("cannot read %s: %s" % (path, e)) from None
    out: dict[str, dict[str, dict[str, Decimal]]] = {}
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line:
            raise ResourceTxtError("%s:%d: not KEY=VALUE: %r" % (path, n, line[:80]))
        k, v = line.split("=", 1)
        if not k.endswith("_SHARES"):
            continue
        slot = k[:-len("_SHARES")].lower()
        if not slot:
            raise ResourceTxtError("%s:%d: empty slot name" % (path, n))
        per: dict[str, Decimal] = {}
        for item in filter(None, (x.strip() for x in v.split(","))):
            devid, sep, amount = item.rpartition(":")
            if not sep or not devid:
                raise ResourceTxtError("%s:%d: %r is not devid:amount" % (path, n, item))
            try:
                amt = Decimal(amount)
            except InvalidOperation:
                raise ResourceTxtError("%s:%d: %r is not a number" % (path, n, amount)) from None
            if not amt.is_finite() or amt < 0:
                raise ResourceTxtError("%s:%d: %r is not a non-negative amount" % (path, n, amount))
            per[devid] = amt
        out.setdefault(slot.split(".", 1)[0], {})[slot] = per
    return out


def _config_dir_of(container: Any) -> Path | None:
    """The host folder mounted at /home/config in a container (dict or object forms)."""
    for attr in ("config_dir",):
        v = getattr(container, attr, None)
        if v:
            return Path(v)
    obj = getattr(container, "backend_obj", container)
    if isinstance(obj, Mapping):
        for m in obj.get("Mounts", []) or []:
            if isinstance(m, Mapping) and m.get("Destination") == "/home/config" and m.get("Source"):
                return Path(m["Source"])
    return None
