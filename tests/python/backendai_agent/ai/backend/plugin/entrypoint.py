"""Stand-in: scan_entrypoints and match_plugin_list of ai.backend.plugin.entrypoint.

Mirrors lablup/backend.ai, src/ai/backend/plugin/entrypoint.py at commit
c0032c472e4b40e0eb012bdd1cd3f081854dd891: the allowlist and blocklist hold module-path
prefixes matched against each entry point's value ("pkg.mod:Attr" -> "pkg.mod"); two entry
points of one name and different values raise RuntimeError, the same one twice is skipped.
Upstream scans the build scripts and the installed packages' metadata; here the entry points
are given as (name, value) pairs."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class EntryPoint:
    name: str
    value: str


def match_plugin_list(entry_path: str, plugin_list: set[str]) -> bool:
    mod_path = entry_path.partition(":")[0]
    for block_pattern in plugin_list:
        if mod_path.startswith(block_pattern + ".") or mod_path == block_pattern:
            return True
    return False


def scan_entrypoints(entries: Iterable[tuple[str, str]], allowlist: set[str] | None = None,
                     blocklist: set[str] | None = None) -> Iterator[EntryPoint]:
    if blocklist is None:
        blocklist = set()
    existing_names: dict[str, EntryPoint] = {}
    for name, value in entries:
        entrypoint = EntryPoint(name, value)
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
