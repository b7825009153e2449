"""Tiresias LAS with Gandiva-style packing: jobs share GPUs when the queue is long.

- :mod:`~engine.policies.las_packing.policy`: the policy, registered as ``las_packing``.
- :mod:`~engine.policies.las_packing.packing`: which waiting jobs join which running ones.

Importing the package registers the policy.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
