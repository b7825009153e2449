"""Shared piece of the extension-point registries (policies, placement strategies)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable


def import_submodules(package: str, path: Iterable[str], skip: tuple[str, ...] = ("base",)) -> None:
    """Imports every module of ``package`` (whose ``__path__`` is ``path``) but ``skip``, so
    their ``@register_*`` decorators fill the registry."""
    for module in pkgutil.iter_modules(path):
        if module.name not in skip:
            importlib.import_module(f"{package}.{module.name}")
