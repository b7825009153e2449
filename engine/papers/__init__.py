"""Paper presets: one-click scenarios that set a seed paper's policy beside its baselines.

Each module registers one :class:`PaperPreset` with ``@register_paper_preset``. See
:mod:`engine.papers.base` for the contract; the dashboard lists them from the registry.
"""

from engine.papers.base import (
    Claim,
    PaperPreset,
    claims_table,
    get_paper_preset,
    list_paper_presets,
    register_paper_preset,
    simulated_ratio,
)
from engine.registry import import_submodules

import_submodules(__name__, __path__)

__all__ = [
    "Claim",
    "PaperPreset",
    "claims_table",
    "get_paper_preset",
    "list_paper_presets",
    "register_paper_preset",
    "simulated_ratio",
]
