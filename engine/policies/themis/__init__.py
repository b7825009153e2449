"""Themis (Mahajan et al., NSDI 2020) as Muri's testbed ran it: finish-time fairness.

- :mod:`~engine.policies.themis.policy`: the policy, registered as ``themis``.

Importing the package registers the policy.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
