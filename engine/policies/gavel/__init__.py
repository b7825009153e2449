"""Gavel's policies (Narayanan et al., OSDI 2020): max-min, FTF, FIFO and min-total-duration,
with the LP programs, round scheduling and priority queues they share.

Importing the package registers its policies.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
