"""Stand-in: MountInfo and Container of ai.backend.agent.types.

Mirrors lablup/backend.ai, src/ai/backend/agent/types.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891: an attrs class (mode: MountTypes, src_path,
dst_path); the agent turns each into a read-only mount of type mode (agent.py,
_mount(mount_info.mode, ...): DockerKernelCreationContext.get_runner_mount, then
mount.type.value in its process_mounts; both in the stand-in's docker/agent.py). Container: what
restore_from_container is given, every field required as upstream's attrs class has it;
the docker agent's backend_obj is the aiodocker DockerContainer it listed
(docker/agent.py, container_from_docker_container)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai.backend.common.types import MountTypes


@dataclass(slots=True)
class MountInfo:
    mode: MountTypes
    src_path: Path
    dst_path: Path


@dataclass(slots=True)
class Port:
    host: str
    private_port: int
    host_port: int


@dataclass(slots=True)
class Container:
    id: str
    status: str
    image: str
    labels: Mapping[str, str]
    ports: Sequence[Port]
    backend_obj: Any  # the engine's object (docker: aiodocker's DockerContainer)
