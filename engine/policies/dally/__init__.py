"""Dally (Sharma et al., 2024): network-sensitive delay scheduling, with its consolidation levels,
timers, auto-tuner and preemption.

Importing the package registers its policies.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
