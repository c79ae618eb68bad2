"""Stand-in: SlotName, SlotTypes, MountInfo of ai.backend.common.types."""
from __future__ import annotations

import enum
from collections import UserString
from dataclasses import dataclass
from pathlib import Path


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


@dataclass
class MountInfo:
    mode: str
    src_path: Path
    dst_path: Path
