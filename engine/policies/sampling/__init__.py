"""Sampling-based multi-job placement with matching markets (Liu et al., TPDS 2024): categories, the
rate model, the plan and the matching.

Importing the package registers its policies.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
