"""The one registry class of the engine's extension points, and the discovery that fills it.

Four extension points keep their entries by name in a :class:`Registry`: policies
(:data:`engine.policies.base.POLICIES`), placement strategies
(:data:`engine.placement.base.PLACEMENTS`), paper presets (:data:`engine.papers.base.PAPERS`)
and trace formats (:data:`engine.traces.registry.FORMATS`). The model is Vidur's
``BaseRegistry`` (microsoft/vidur, ``vidur/utils/base_registry.py``): register, unregister and
get by key, with an error naming the unknown key and the known ones.

There is one way to register, the same in a module compiled with mypyc (:mod:`engine.native`,
which compiles no class decorator) and in a plain one: a call after the definition,
``POLICIES.register("fifo", Fifo)``. A registry lives in its extension point's package, so
whoever reaches it has imported that package, whose ``__init__`` imports every module of it
(:func:`import_submodules`; :mod:`engine.traces` lists its format modules): a lookup never sees
a half-filled registry. That discovery is the engine's only import by a computed name
(``tests/test_import_circles.py`` allows it here and nowhere else).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from typing import Generic, TypeVar

from engine.errors import ConfigError

T = TypeVar("T")


class Registry(Generic[T]):
    """Entries of one extension point by name, in registration order.

    Args:
        kind: what an entry is, for messages (e.g. "policy", "trace format").
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._entries: dict[str, T] = {}

    def register(self, name: str, entry: T) -> T:
        """Adds ``entry`` under ``name`` and returns it.

        Raises:
            ValueError: ``name`` is taken (two modules claiming one name is a bug).
        """
        if name in self._entries:
            raise ValueError(f"{self.kind} {name!r} registered twice")
        self._entries[name] = entry
        return entry

    def unregister(self, name: str) -> None:
        """Removes ``name`` (e.g. a policy a notebook registered for one experiment).

        Raises:
            ConfigError: ``name`` is not registered (naming the known ones).
        """
        self.get(name)
        del self._entries[name]

    def get(self, name: str) -> T:
        """The entry registered as ``name``.

        Raises:
            ConfigError: ``name`` is not registered (naming the known ones).
        """
        if name not in self._entries:
            raise ConfigError(f"unknown {self.kind} {name!r}; known: {', '.join(self._entries)}")
        return self._entries[name]

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._entries)

    def items(self) -> list[tuple[str, T]]:
        """(name, entry) pairs, in registration order."""
        return list(self._entries.items())

    def __contains__(self, name: object) -> bool:
        return name in self._entries


def import_submodules(package: str, path: Iterable[str], skip: tuple[str, ...] = ("base",)) -> None:
    """Imports every module of ``package`` (whose ``__path__`` is ``path``) but ``skip``, so
    their registration calls fill the package's registry."""
    for module in pkgutil.iter_modules(path):
        if module.name not in skip:
            importlib.import_module(f"{package}.{module.name}")
