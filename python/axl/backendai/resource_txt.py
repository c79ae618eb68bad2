"""resource.txt of :mod:`axl.backendai`: :func:`read_resource_txt` (the allocations a
container's ``<SLOT>_SHARES`` lines hold), the config folder of a container, and
:class:`ResourceTxtError`."""

from __future__ import annotations

import os
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from .errors import BackendAIPluginError


class ResourceTxtError(BackendAIPluginError):
    """A resource.txt that cannot be read or parsed."""


# BinarySize's suffixes and the endings its parser strips (ai.backend.common.types,
# lablup/backend.ai c0032c47): KernelResourceSpec writes a "bytes" slot's amounts as
# f"{BinarySize(x):s}": "8g", "1.5g", "512m", or a plain number under 1 KiB
_SUFFIX = {"k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40, "p": 2**50, "e": 2**60, "z": 2**70,
           "y": 2**80, " ": 1}
_ENDINGS = ("ibytes", "ibyte", "ib", "bytes", "byte", "b")
# no slot holds more than this (a yobibyte): larger amounts are garbage, refused before
# they are turned into integers (1e999999999g would take forever)
_MAX = Decimal(2**80)


def _too_large(d: Decimal) -> bool:
    """Beyond _MAX, judged without arithmetic (which would overflow the context)."""
    return d.is_finite() and (d.adjusted() > _MAX.adjusted() or (d.adjusted() == _MAX.adjusted() and
                                                                    d.copy_abs().compare_total(_MAX) > 0))


def _amount(raw: str) -> Decimal:
    """An amount as the agent reads it back: a number ("1", "0.5"), or a binary size as
    BinarySize._parse_str reads one ("8g", "1.5 GiB", "512m", "2K", "4096 bytes", in
    whole bytes); ValueError otherwise."""
    expr = raw.strip().replace("_", "")
    try:
        plain = Decimal(expr)
    except InvalidOperation:
        pass
    else:
        if _too_large(plain):
            raise ValueError("larger than any slot holds")
        return plain
    low = expr.lower()
    if low in ("inf", "infinite", "infinity"):
        raise ValueError("an infinite amount")
    for ending in _ENDINGS:
        stem = low.removesuffix(ending)
        if stem != low:
            suffix, number = stem[-1:], stem[:-1]
            break
    else:
        if not low or low[-1].isnumeric():
            raise ValueError("not a number or a size")
        suffix, number = low[-1], low[:-1]
    mult = _SUFFIX.get(suffix)
    if mult is None:
        raise ValueError("not a number or a size (suffix %r)" % suffix)
    try:
        base = Decimal(number)
        value = base * mult if not _too_large(base) else None
    except ArithmeticError:  # InvalidOperation, Overflow
        raise ValueError("not a number or a size") from None
    if value is None or not value.is_finite() or _too_large(value):
        raise ValueError("not a finite size a slot can hold")
    return Decimal(int(value))


def read_resource_txt(path: str | os.PathLike[str]) -> dict[str, dict[str, dict[str, Decimal]]]:
    """The allocations of a resource.txt: device name -> slot -> device id -> amount,
    from its ``<SLOT>_SHARES=devid:amount,...`` lines, read the way the agent's
    KernelResourceSpec.read_from_string reads them (lablup/backend.ai c0032c47,
    src/ai/backend/agent/resources.py): lines without "=" and entries without a device
    id or an amount are skipped, the device id is what comes before the first ":", and an
    amount is a number or, for a "bytes" slot, a binary size with a unit ("8g", as
    ``MEM_SHARES=root:8g``). ResourceTxtError for a file that cannot be read or an amount
    that is neither."""
    try:
        text = Path(path).read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise ResourceTxtError("cannot read %s: %s" % (path, e)) from None
    out: dict[str, dict[str, dict[str, Decimal]]] = {}
    for n, line in enumerate(text.split("\n"), 1):
        if "=" not in line:
            continue
        k, v = line.strip().split("=", 1)
        if not k.endswith("_SHARES") or len(k) == len("_SHARES"):
            continue
        slot = k[:-len("_SHARES")].lower()
        per: dict[str, Decimal] = {}
        for item in v.split(","):
            devid, _, amount = item.partition(":")
            if not devid or not amount:
                continue
            try:
                amt = _amount(amount)
            except ValueError as e:
                raise ResourceTxtError("%s:%d: %s amount %r: %s" % (path, n, slot, amount, e)) from None
            if not amt.is_finite() or amt < 0:
                raise ResourceTxtError("%s:%d: %r is not a non-negative amount" % (path, n, amount))
            per[devid] = amt
        out.setdefault(slot.split(".", 1)[0], {})[slot] = per
    return out


def _mounts_of(info: Any) -> list[Any]:
    """The mounts of a container's inspect data, as the docker agent reads them
    (get_resource_spec_from_container, src/ai/backend/agent/docker/resources.py):
    HostConfig.Mounts when it has any, else Mounts. info is what the agent keeps as the
    container's backend_obj: an aiodocker DockerContainer (subscriptable, not a Mapping),
    or a plain dict."""
    for path in (("HostConfig", "Mounts"), ("Mounts",)):
        try:
            v = info
            for key in path:
                v = v[key]
        except (KeyError, TypeError, IndexError):
            continue
        if v:
            return list(v)
    return []


def _config_dir_of(container: Any) -> Path | None:
    """The host folder mounted at /home/config in a container: the agent passes its
    Container, whose backend_obj is the engine's object (the docker agent: an aiodocker
    DockerContainer; the kubernetes agent: the same inspect layout); a bare inspect
    object works too."""
    info = getattr(container, "backend_obj", container)
    for m in _mounts_of(info):
        try:
            target = m.get("Target") or m.get("Destination")
            source = m["Source"]
        except (AttributeError, KeyError, TypeError):
            continue
        if target == "/home/config" and source:
            return Path(source)
    return None
