# SPDX-License-Identifier: MIT
"""Stand-ins for the third-party modules Backend.AI's agent imports but the code paths
tests/python/test_backendai.py drives never run (aiohttp, pydantic, redis, trafaret, ...),
so that upstream's own ai.backend.* modules can be imported and run without them.

install(names) adds a finder that answers for those top-level names (and everything
under them) with a module whose every attribute is a permissive class: it can be
subclassed (also beside ABC), called, subscripted (Foo[int]), combined with | and used as
a decorator; names ending in Error/Exception or starting with HTTP are exception
classes, names ending in Meta are metaclasses. Nothing here is upstream's or a library's
code; what upstream's code does with a real value is never answered by a stand-in: the
modules that carry the checked behaviour (attrs, networkx, more_itertools, aiodocker) are
the real ones (tests/compat/backendai/run_upstream.py)."""
from __future__ import annotations

import abc
import importlib.abc
import importlib.machinery
import sys
import types
from collections.abc import Iterable
from typing import Any


class _Permissive(abc.ABCMeta):
    """The metaclass of every stand-in class."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _make(name)

    def __getitem__(cls, item: Any) -> Any:
        return cls

    def __call__(cls, *a: Any, **k: Any) -> Any:
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]  # used as a decorator: the decorated function itself
        return super().__call__(*a, **k)

    def __or__(cls, other: Any) -> Any:
        return cls

    __ror__ = __or__

    def __iter__(cls) -> Any:
        return iter(())

    def __bool__(cls) -> bool:
        return True


def _attr(self: Any, name: str) -> Any:
    if name.startswith("__") and name.endswith("__"):
        raise AttributeError(name)
    return _make(name)


def _make(name: str) -> Any:
    if name.endswith(("Error", "Exception")) or name.startswith("HTTP"):
        return _Permissive(name, (Exception,), {"__getattr__": _attr})
    if name.endswith("Meta"):
        return type(name, (_Permissive,), {})
    return _Permissive(name, (object,), {
        "__init__": lambda self, *a, **k: None,
        "__getattr__": _attr,
        "__call__": lambda self, *a, **k: _make("result")(),
        "__getitem__": lambda self, k: _make("item")(),
        "__or__": lambda self, o: self, "__ror__": lambda self, o: self,
        "__and__": lambda self, o: self, "__rshift__": lambda self, o: self,
        "__iter__": lambda self: iter(()),
    })


class _Module(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        v = _make(name)
        setattr(self, name, v)
        return v


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, names: Iterable[str]) -> None:
        self.names = set(names)

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if fullname.partition(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec: Any) -> types.ModuleType:
        m = _Module(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module: types.ModuleType) -> None:
        pass


def install(names: Iterable[str]) -> None:
    """Answer imports of these top-level modules with stand-ins (after the real finders:
    a module that is installed is the real one)."""
    sys.meta_path.append(_Finder(names))
