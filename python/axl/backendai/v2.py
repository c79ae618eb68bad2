"""BEP-1016 (lablup/beps proposals/BEP-1016-accelerator-interface-v2.md at b2e7659):
the ``Workload`` and ``WorkloadConfig`` structs and axl's ``AbstractLifecycleHook``.

The hook composes the workload's configuration from the plugin's current (docker-shaped)
methods, so the v2 interface and the one the agent calls today give the same devices,
mounts, environment, groups and resource data."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .errors import BackendAIPluginError

if TYPE_CHECKING:  # pragma: no cover
    from .plugin import AxlComputePlugin


@dataclass(frozen=True)
class Workload:
    """BEP-1016 ``Workload``: a container id or a process tree's leader pid."""
    id: str
    type: Literal["container", "process_tree"] = "container"

    def __post_init__(self) -> None:
        if self.type not in ("container", "process_tree"):
            raise BackendAIPluginError("workload type %r is not container or process_tree" % (self.type,))
        if not str(self.id):
            raise BackendAIPluginError("workload id is empty")


@dataclass
class WorkloadMount:
    """One host-to-workload mount: a device node (``kind="device"``) or a bind mount."""
    source: str
    target: str
    kind: Literal["device", "bind"]
    read_only: bool = True
    permissions: str | None = None  # cgroup permissions of a device node ("mrw")


@dataclass
class WorkloadConfig:
    """BEP-1016 ``WorkloadConfig``; every field optional (empty)."""
    mounts: list[WorkloadMount] = field(default_factory=list)
    env_vars: dict[str, str] = field(default_factory=dict)
    resource_data: dict[str, str] = field(default_factory=dict)
    networks: list[str] = field(default_factory=list)
    extra_gids: list[int] = field(default_factory=list)
    extra_syscalls: list[str] = field(default_factory=list)
    #: Device requests a container runtime resolves itself (nvidia / CDI injectors):
    #: docker's DeviceRequests entries; empty with the "devices" injector.
    device_requests: list[dict[str, Any]] = field(default_factory=list)


class AxlLifecycleHook:
    """BEP-1016 ``AbstractLifecycleHook`` for an axl plugin. Stateless: everything is
    derived from the plugin and the allocation, so an agent restart loses nothing."""

    def __init__(self, plugin: AxlComputePlugin, workload: Workload, device_alloc: Any) -> None:
        if not isinstance(workload, Workload):
            raise BackendAIPluginError("workload must be a Workload")
        self.plugin = plugin
        self.workload = workload
        self.device_alloc = device_alloc
        plugin._alloc(device_alloc)  # a bad allocation fails here, before anything is created

    async def pre_create(self) -> WorkloadConfig:
        p = self.plugin
        cfg = WorkloadConfig()
        args = await p.generate_docker_args(None, self.device_alloc)
        host = args.get("HostConfig", {})
        for d in host.get("Devices", []):
            cfg.mounts.append(WorkloadMount(d["PathOnHost"], d["PathInContainer"], "device",
                                            read_only=False, permissions=d.get("CgroupPermissions")))
        cfg.device_requests = list(host.get("DeviceRequests", []))
        for e in args.get("Env", []):
            k, sep, v = e.partition("=")
            if not sep:
                raise BackendAIPluginError("environment entry %r is not NAME=VALUE" % e)
            cfg.env_vars[k] = v
        gids = []
        for g in host.get("GroupAdd", []):
            if str(g).isdigit():
                gids.append(int(g))
            else:
                import grp
                gids.append(grp.getgrnam(str(g)).gr_gid)
        cfg.extra_gids = list(dict.fromkeys(gids + list(p.get_additional_gids())))
        for m in await p.generate_mounts(Path("/"), self.device_alloc):
            cfg.mounts.append(WorkloadMount(str(m.src_path), str(m.dst_path), "bind", read_only=True))
        cfg.resource_data = dict(await p.generate_resource_data(self.device_alloc))
        cfg.networks = list(await p.get_docker_networks(self.device_alloc))
        cfg.extra_syscalls = list(p.get_additional_allowed_syscalls())
        return cfg

    async def post_create(self) -> None:
        """Nothing to do after creation: axl keeps no per-workload state."""

    async def pre_terminate(self) -> None:
        """Nothing to defer: axl holds no per-workload resource to release."""

    async def post_terminate(self) -> None:
        """Nothing to clean: the agent frees the allocation in its alloc map."""
