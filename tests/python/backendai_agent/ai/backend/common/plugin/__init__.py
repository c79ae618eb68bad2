"""Stand-in: AbstractPlugin and BasePluginContext of ai.backend.common.plugin.

Mirrors lablup/backend.ai, src/ai/backend/common/plugin/__init__.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891: a context discovers the entry points of its
group (scan_entrypoints with the class's and the caller's allow-/blocklists; no
allowlist at all loads every plugin but those with require_explicit_allow), loads each,
skips what is not an AbstractPlugin subclass, makes each with its etcd configuration
(get_prefix("config/plugins/<group key>/<entry point name>/")) and the local config,
awaits its init(context) (a plugin whose constructor or init raises is logged and left
out), keys it by its entry point's name, and watches its configuration when
config_watch_enabled (etcd.watch_prefix)."""
from __future__ import annotations

import asyncio
import logging
import re
from abc import ABCMeta, abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Generic, TypeVar

from ai.backend.plugin.entrypoint import scan_entrypoints

log = logging.getLogger(__name__)


class AbstractPlugin(metaclass=ABCMeta):
    plugin_config: Mapping[str, Any]
    local_config: Mapping[str, Any]
    config_watch_enabled: ClassVar[bool] = True
    require_explicit_allow: ClassVar[bool] = False

    def __init__(self, plugin_config: Mapping[str, Any], local_config: Mapping[str, Any]) -> None:
        self.plugin_config = plugin_config
        self.local_config = local_config

    @abstractmethod
    async def init(self, context: Any | None = None) -> None: ...

    @abstractmethod
    async def cleanup(self) -> None: ...

    @abstractmethod
    async def update_plugin_config(self, plugin_config: Mapping[str, Any]) -> None: ...


P = TypeVar("P", bound=AbstractPlugin)


class BasePluginContext(Generic[P]):
    plugin_group: ClassVar[str] = "backendai_XXX_v10"
    allowlist: ClassVar[set[str] | None] = None
    blocklist: ClassVar[set[str] | None] = None

    def __init__(self, etcd: Any, local_config: Mapping[str, Any]) -> None:
        self.etcd = etcd
        self.local_config = local_config
        self.plugins: dict[str, P] = {}
        self._config_watchers: set[asyncio.Task[Any]] = set()
        if m := re.search(r"^backendai_(\w+)_v(\d+)$", self.plugin_group):
            self._group_key = m.group(1)
        else:
            raise TypeError(f"{type(self).__name__} has invalid plugin_group class attribute",
                            self.plugin_group)

    @classmethod
    def discover_plugins(cls, plugin_group: str, allowlist: set[str] | None = None,
                         blocklist: set[str] | None = None) -> Iterator[tuple[str, type[P]]]:
        cls_allowlist = set() if cls.allowlist is None else cls.allowlist
        arg_allowlist = set() if allowlist is None else allowlist
        allowlist_enabled = allowlist is not None or cls.allowlist is not None
        cls_blocklist = set() if cls.blocklist is None else cls.blocklist
        arg_blocklist = set() if blocklist is None else blocklist
        for entrypoint in scan_entrypoints(
                plugin_group, allowlist=cls_allowlist | arg_allowlist if allowlist_enabled else None,
                blocklist=cls_blocklist | arg_blocklist):
            plugin_cls = entrypoint.load()
            if not (isinstance(plugin_cls, type) and issubclass(plugin_cls, AbstractPlugin)):
                log.warning("skipping plugin (group:%s): %s (not a valid AbstractPlugin subclass)",
                            plugin_group, entrypoint.name)
                continue
            if not allowlist_enabled and plugin_cls.require_explicit_allow:
                continue
            yield entrypoint.name, plugin_cls

    async def init(self, context: Any | None = None, allowlist: set[str] | None = None,
                   blocklist: set[str] | None = None) -> None:
        if allowlist is not None and blocklist is not None and (union := allowlist & blocklist):
            raise ValueError(f"allowlist and blocklist has union value '{union}'")
        for plugin_name, plugin_entry in self.discover_plugins(self.plugin_group, allowlist=allowlist,
                                                               blocklist=blocklist):
            plugin_config = await self.etcd.get_prefix(f"config/plugins/{self._group_key}/{plugin_name}/")
            try:
                plugin_instance = plugin_entry(plugin_config, self.local_config)
                await plugin_instance.init(context=context)
            except Exception:
                log.exception("error during initialization of plugin: %s", plugin_name)
                continue
            else:
                self.plugins[plugin_name] = plugin_instance
            if plugin_instance.config_watch_enabled:
                await self.watch_config_changes(plugin_name)
        await asyncio.sleep(0)

    async def cleanup(self) -> None:
        for t in self._config_watchers:
            t.cancel()
        await asyncio.sleep(0)
        for plugin_instance in self.plugins.values():
            await plugin_instance.cleanup()

    async def _watcher(self, plugin_name: str) -> None:
        async for _ in self.etcd.watch_prefix(f"config/plugins/{self._group_key}/{plugin_name}",
                                              wait_timeout=0.2):
            new_config = await self.etcd.get_prefix(f"config/plugins/{self._group_key}/{plugin_name}/")
            await self.plugins[plugin_name].update_plugin_config(new_config)

    async def watch_config_changes(self, plugin_name: str) -> None:
        self._config_watchers.add(asyncio.create_task(self._watcher(plugin_name)))
