"""Sampling-based multi-job placement with matching markets (Liu et al., TPDS 2024): categories, the
rate model, the plan and the matching.

Importing the package registers its policies (Numba's kernels load on first use).
"""

from engine.registry import import_submodules

# the compiled kernels (Numba) are imported on first use, not to fill the registry
import_submodules(__name__, __path__, skip=("kernels", "kernels_fill", "kernels_rates"))
