"""The doubling heuristic (Capes et al., arXiv:1908.08082, 2019): elastic re-sizing of ring
all-reduce jobs; the heuristic in :mod:`.policy`, the speed and size rules in :mod:`.speed`.

Importing the package registers its policy.
"""

from engine.policies.doubling.speed import RingSpeed, fastest_types, largest_power_of_two
from engine.registry import import_submodules

import_submodules(__name__, __path__)

__all__ = ["RingSpeed", "fastest_types", "largest_power_of_two"]
