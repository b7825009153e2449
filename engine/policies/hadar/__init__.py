"""Hadar and HadarE (Sultana et al., IPDPS 2024 / 2025): task-level heterogeneity-aware rounds and
job forking across nodes.

Importing the package registers its policies.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
