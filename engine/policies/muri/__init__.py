"""Muri's policies (Zhao et al., SIGCOMM 2022): Muri-S and Muri-L, which put up to ``k`` jobs on
the same GPUs when the scenario's sharing layer allows it (:mod:`engine.sharing`).

- :mod:`~engine.policies.muri.policy`: the policies, registered as ``muri_s`` and ``muri_l``.
- :mod:`~engine.policies.muri.grouping`: Muri's choice of candidates and their groups.

Importing the package registers the policies.
"""

from engine.registry import import_submodules

import_submodules(__name__, __path__)
