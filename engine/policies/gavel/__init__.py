"""Gavel's policies (Narayanan et al., OSDI 2020): max-min, FTF, FIFO and min-total-duration,
with the LP programs, round scheduling and priority queues they share.

Importing the package registers its policies.
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built

from engine.registry import import_submodules  # noqa: E402

import_submodules(__name__, __path__)
