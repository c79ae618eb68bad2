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
        m = re.fullmatch(r"backendai_(\w+)_v(\d+)", self.plugin_group)
        if m is None:
            raise TypeError("%s: plugin_group %r is not backendai_<key>_v<n>"
                            % (type(self).__name__, self.plugin_group))
        self._group_key = m.group(1)
        self.etcd = etcd
        self.local_config = local_config
        self.plugins: dict[str, P] = {}
        self._config_watchers: set[asyncio.Task[Any]] = set()

    @classmethod
    def discover_plugins(cls, plugin_group: str, allowlist: set[str] | None = None,
                         blocklist: set[str] | None = None) -> Iterator[tuple[str, type[P]]]:
        # an allowlist is in force when either the class or the caller gives one: then
        # both count; the blocklists always add up
        allow: set[str] | None = None
        if cls.allowlist is not None or allowlist is not None:
            allow = set(cls.allowlist or ()) | set(allowlist or ())
        block = set(cls.blocklist or ()) | set(blocklist or ())
        for ep in scan_entrypoints(plugin_group, allowlist=allow, blocklist=block):
            loaded = ep.load()
            if not isinstance(loaded, type) or not issubclass(loaded, AbstractPlugin):
                log.warning("plugin %s of %s is not an AbstractPlugin: skipped", ep.name, plugin_group)
            elif allow is None and loaded.require_explicit_allow:
                log.info("plugin %s of %s loads only when allowed by name: skipped", ep.name, plugin_group)
            else:
                yield ep.name, loaded

    async def init(self, context: Any | None = None, allowlist: set[str] | None = None,
                   blocklist: set[str] | None = None) -> None:
        if allowlist and blocklist and allowlist & blocklist:
            raise ValueError("plugins both allowed and blocked: %s" % sorted(allowlist & blocklist))
        for name, plugin_cls in self.discover_plugins(self.plugin_group, allowlist=allowlist,
                                                      blocklist=blocklist):
            cfg = await self.etcd.get_prefix("config/plugins/%s/%s/" % (self._group_key, name))
            try:
                plugin = plugin_cls(cfg, self.local_config)
                await plugin.init(context=context)
            except Exception:  # one plugin that cannot start leaves the others
                log.exception("plugin %s failed to initialise", name)
                continue
            self.plugins[name] = plugin
            if plugin.config_watch_enabled:
                await self.watch_config_changes(name)
        await asyncio.sleep(0)

    async def cleanup(self) -> None:
        for task in self._config_watchers:
            task.cancel()
        await asyncio.sleep(0)
        for plugin in self.plugins.values():
            await plugin.cleanup()

    async def _watch(self, name: str) -> None:
        prefix = "config/plugins/%s/%s" % (self._group_key, name)
        async for _ in self.etcd.watch_prefix(prefix, wait_timeout=0.2):
            await self.plugins[name].update_plugin_config(await self.etcd.get_prefix(prefix + "/"))

    async def watch_config_changes(self, plugin_name: str) -> None:
        self._config_watchers.add(asyncio.create_task(self._watch(plugin_name)))
