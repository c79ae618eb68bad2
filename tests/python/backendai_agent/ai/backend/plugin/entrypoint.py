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
    if blocklist is None:
        blocklist = set()
    existing_names: dict[str, EntryPoint] = {}
    for entrypoint in itertools.chain(scan_entrypoint_from_buildscript(group_name),
                                      scan_entrypoint_from_package_metadata(group_name)):
        if allowlist is not None and not match_plugin_list(entrypoint.value, allowlist):
            continue
        if match_plugin_list(entrypoint.value, blocklist):
            continue
        if existing := existing_names.get(entrypoint.name):
            if existing.value == entrypoint.value:
                continue
            raise RuntimeError(f"Detected a duplicate plugin entrypoint name {entrypoint.name!r} "
                               f"from {existing.value} and {entrypoint.value}")
        existing_names[entrypoint.name] = entrypoint
        yield entrypoint


def match_plugin_list(entry_path: str, plugin_list: set[str]) -> bool:
    mod_path = entry_path.partition(":")[0]
    for block_pattern in plugin_list:
        if mod_path.startswith(block_pattern + ".") or mod_path == block_pattern:
            return True
    return False


def scan_entrypoint_from_package_metadata(group_name: str) -> Iterator[EntryPoint]:
    yield from entry_points().select(group=group_name)


def scan_entrypoint_from_buildscript(group_name: str) -> Iterator[EntryPoint]:
    return iter(())
