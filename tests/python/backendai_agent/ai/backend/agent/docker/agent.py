"""Stand-in: what the docker agent's kernel creation context does with a plugin's mounts.

Mirrors lablup/backend.ai, src/ai/backend/agent/docker/agent.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891, class DockerKernelCreationContext: the kernel
creation context's _mount(mount_info.mode, mount_info.src_path, dst) (agent.py,
AbstractKernelCreationContext) calls get_runner_mount(type, src, target,
MountPermission.READ_ONLY), which makes a resources.Mount; process_mounts turns each into
the container's HostConfig.Mounts entry, reading mount.type.value and mount.permission.
Only these two methods; the tests call them on a bare instance (container_configs = [])."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ai.backend.agent.resources import Mount
from ai.backend.common.types import MountPermission, MountTypes


class DockerKernelCreationContext:
    container_configs: list[dict]

    def get_runner_mount(self, type: MountTypes, src: str | Path, target: str | Path,
                         perm: MountPermission = MountPermission.READ_ONLY,
                         opts: Mapping[str, Any] | None = None) -> Mount:
        return Mount(type, Path(src), Path(target), MountPermission(perm), opts=opts)

    async def process_mounts(self, mounts: Sequence[Mount]) -> None:
        entries = []
        for m in mounts:
            # docker has no "delete" right: a read-write-delete folder is mounted read-write
            perm = MountPermission.READ_WRITE if m.permission == MountPermission.RW_DELETE else m.permission
            kind = m.type.value  # an enum's value: a plain string here fails, as upstream
            entries.append({"Target": str(m.target), "Source": str(m.source), "Type": kind,
                            "ReadOnly": perm == MountPermission.READ_ONLY,
                            kind.capitalize() + "Options": dict(m.opts or {})})
        self.container_configs.append({"HostConfig": {"Mounts": entries}})
