"""Hare (Chen et al., TCC 2024): HLAS and the offline schedule over relaxed-synchronization tasks.

Importing the package registers its policies.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
