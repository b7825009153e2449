"""Sampling-based multi-job placement with matching markets (Liu et al., TPDS 2024): categories, the
rate model, the plan and the matching.

Importing the package registers its policies (Numba's kernels load on first use).
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__, skip=("kernels", "kernels_rates"))  # compiled: on first use
