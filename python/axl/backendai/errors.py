"""The exception of :mod:`axl.backendai`'s plugins for bad input."""

from __future__ import annotations


class BackendAIPluginError(ValueError):
    """Bad input to a plugin method: an unknown device id, an unknown slot, a malformed
    resource.txt or plugin_config."""
