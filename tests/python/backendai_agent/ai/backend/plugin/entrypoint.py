"""Stand-in: scan_entrypoints and match_plugin_list of ai.backend.plugin.entrypoint.

Mirrors lablup/backend.ai, src/ai/backend/plugin/entrypoint.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891: scan_entrypoints(group_name, allowlist,
blocklist) walks the entry points the build scripts declare, then those of the installed
packages' metadata (importlib.metadata), keeps those the allowlist (when given) and not
the blocklist match (module-path prefixes of the entry point's value, "pkg.mod:Attr" ->
"pkg.mod"), skips one seen twice with the same value and raises RuntimeError on two of
one name with different values. The build-script walk (BUILD files of a Pants checkout)
finds nothing here: this tree has none, as an installed agent has none."""
from __future__ import annotations

import itertools
from collections.abc import Iterator
from importlib.metadata import EntryPoint, entry_points


def scan_entrypoints(group_name: str, allowlist: set[str] | None = None,
                     blocklist: set[str] | None = None) -> Iterator[EntryPoint]:
    seen: dict[str, str] = {}  # name -> value
    for ep in itertools.chain(scan_entrypoint_from_buildscript(group_name),
                              scan_entrypoint_from_package_metadata(group_name)):
        if allowlist is not None and not match_plugin_list(ep.value, allowlist):
            continue
        if blocklist and match_plugin_list(ep.value, blocklist):
            continue
        if ep.name in seen:
            if seen[ep.name] == ep.value:
                continue  # the same plugin found twice (build script and metadata)
            # upstream's words: the agent stops on them
            raise RuntimeError(f"Detected a duplicate plugin entrypoint name {ep.name!r} "
                               f"from {seen[ep.name]} and {ep.value}")
        seen[ep.name] = ep.value
        yield ep


def match_plugin_list(entry_path: str, plugin_list: set[str]) -> bool:
    """Is the entry point's module (value before ":") one of the list's, or inside one?"""
    module = entry_path.split(":", 1)[0]
    return any(module == p or module.startswith(p + ".") for p in plugin_list)


def scan_entrypoint_from_package_metadata(group_name: str) -> Iterator[EntryPoint]:
    yield from entry_points().select(group=group_name)


def scan_entrypoint_from_buildscript(group_name: str) -> Iterator[EntryPoint]:
    return iter(())
