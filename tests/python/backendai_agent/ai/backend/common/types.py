"""Stand-in: SlotName, SlotTypes, MountPermission, MountTypes, BinarySize of
ai.backend.common.types.

Mirrors lablup/backend.ai, src/ai/backend/common/types.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891 (MountTypes: a StrEnum; BinarySize's "s" format,
what KernelResourceSpec writes for a "bytes" slot; MountInfo is not here but in
ai.backend.agent.types, as upstream has it)."""
from __future__ import annotations

import enum
from collections import UserString
from decimal import Decimal


class SlotTypes(enum.StrEnum):
    COUNT = "count"
    BYTES = "bytes"
    UNIQUE = "unique"
    UNIFIED = "unified"


class SlotName(UserString):
    """<device_name>.<major_type>[:<minor_type>], parsed on first '.' then first ':'."""

    @property
    def device_name(self) -> str:
        return self.data.split(".", 1)[0]

    @property
    def major_type(self) -> str:
        rest = self.data.split(".", 1)[1] if "." in self.data else ""
        return rest.split(":", 1)[0]

    @property
    def minor_type(self) -> str:
        rest = self.data.split(".", 1)[1] if "." in self.data else ""
        return rest.split(":", 1)[1] if ":" in rest else ""

    def is_accelerator(self) -> bool:
        return self.major_type in ("device", "devices", "share", "shares")

    def __hash__(self) -> int:
        return hash(self.data)


class MountPermission(enum.StrEnum):
    READ_ONLY = "ro"
    READ_WRITE = "rw"
    RW_DELETE = "wd"


class MountTypes(enum.StrEnum):
    VOLUME = "volume"
    BIND = "bind"
    TMPFS = "tmpfs"
    OVERLAY = "overlay"
    K8S_GENERIC = "k8s-generic"
    K8S_HOSTPATH = "k8s-hostpath"


class BinarySize(int):
    """Only what KernelResourceSpec.write_to_string uses, as upstream's __format__ does:
    format(size, "s"), the value scaled to its largest binary unit with a lower-case
    suffix ("8g", "1.5g", "512m"), and format(size, "m"), in that unit ("0m")."""

    suffices = (" ", "K", "M", "G", "T", "P", "E", "Z", "Y")
    suffix_map = {"y": 2**80, "z": 2**70, "e": 2**60, "p": 2**50, "t": 2**40, "g": 2**30,
                  "m": 2**20, "k": 2**10, " ": 1}

    @staticmethod
    def _quantize(val: int, multiplier: int) -> Decimal:
        d = Decimal(val) / Decimal(multiplier)
        return d.quantize(Decimal(1)) if d == d.to_integral() else d.quantize(Decimal(".00")).normalize()

    def __format__(self, spec: str) -> str:
        if len(spec) != 1:
            raise ValueError("format-string for BinarySize can be only one character.")
        if spec != "s":
            # a given scale ("m": SCRATCH_SIZE)
            mult = self.suffix_map.get(spec.lower())
            if mult is None:
                raise ValueError("Unsupported scale unit.", spec)
            return f"{self._quantize(int(self), mult):f}{spec.lower()}".strip()
        scale, idx = int(self), 0
        while scale >= 1024:
            scale //= 1024
            idx += 1
        if idx == 0:
            return f"{int(self)}"
        suffix = self.suffices[idx]
        value = self._quantize(int(self), self.suffix_map[suffix.lower()])
        return f"{value:f}{suffix.lower()}"
