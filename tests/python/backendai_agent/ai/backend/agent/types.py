"""Stand-in: MountInfo and Container of ai.backend.agent.types.

Mirrors lablup/backend.ai, src/ai/backend/agent/types.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891: an attrs class (mode: MountTypes, src_path,
dst_path); the agent turns each into a read-only mount of type mode
(agent.py, _mount(mount_info.mode, ...), then mount.type.value in process_mounts). Container:
what restore_from_container is given; the docker agent's backend_obj is the aiodocker
DockerContainer it listed (docker/agent.py, container_from_docker_container)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai.backend.common.types import MountTypes


@dataclass(slots=True)
class MountInfo:
    mode: MountTypes
    src_path: Path
    dst_path: Path


def process_mount(info: MountInfo) -> dict:
    """What DockerAgent.process_mounts makes of one mount (docker/agent.py): it reads
    mount.type.value, so a mode that is not a MountTypes fails there as it fails upstream."""
    return {"Target": str(info.dst_path), "Source": str(info.src_path), "Type": info.mode.value,
            "ReadOnly": True}


@dataclass(slots=True)
class Container:
    id: str
    status: str
    image: str
    labels: Mapping[str, str] = field(default_factory=dict)
    ports: Sequence[Any] = field(default_factory=list)
    backend_obj: Any = None  # the engine's object (docker: aiodocker's DockerContainer)
