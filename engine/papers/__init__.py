"""Paper presets: one-click scenarios that set a seed paper's policy beside its baselines.

Each module registers one :class:`PaperPreset` by a call after it,
``PAPERS.register(PRESET.name, PRESET)`` (:class:`engine.registry.Registry`). See
:mod:`engine.papers.base` for the contract; the dashboard lists them from the registry.
"""

from engine.papers.base import (
    PAPERS,
    Claim,
    PaperPreset,
    claims_table,
    get_paper_preset,
    list_paper_presets,
    simulated_ratio,
)
from engine.registry import import_submodules

import_submodules(__name__, __path__)

__all__ = [
    "PAPERS",
    "Claim",
    "PaperPreset",
    "claims_table",
    "get_paper_preset",
    "list_paper_presets",
    "simulated_ratio",
]
