"""Tiresias LAS (Gu et al., NSDI 2019): discretized two-dimensional least attained service.

- :mod:`~engine.policies.las.policy`: the policy (its knobs, its decisions), registered as ``las``.
- :mod:`~engine.policies.las.keys`: a job's queue key from its attained GPU-seconds.
- :mod:`~engine.policies.las.books`: what the policy keeps per job and per worker type.
- :mod:`~engine.policies.las.queues`: the waiting jobs, one list per queue.
- :mod:`~engine.policies.las.running`: the running jobs, carried in key order between decisions.
- :mod:`~engine.policies.las.fill`: GPUs granted in key order.
- :mod:`~engine.policies.las.promotion`: STARVELIMIT's promotion checks.

Compiled with mypyc (:mod:`engine.native`). Importing the package registers the policy.
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built

from engine.registry import import_submodules  # noqa: E402

import_submodules(__name__, __path__)
