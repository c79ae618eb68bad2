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
        def fix_unsupported_perm(folder_perm: MountPermission) -> MountPermission:
            if folder_perm == MountPermission.RW_DELETE:
                return MountPermission.READ_WRITE
            return folder_perm

        container_config = {
            "HostConfig": {
                "Mounts": [
                    {
                        "Target": str(mount.target),
                        "Source": str(mount.source),
                        "Type": mount.type.value,
                        "ReadOnly": fix_unsupported_perm(mount.permission) == MountPermission.READ_ONLY,
                        f"{mount.type.value.capitalize()}Options": mount.opts if mount.opts else {},
                    }
                    for mount in mounts
                ],
            },
        }
        self.container_configs.append(container_config)
