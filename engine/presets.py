"""Scenario presets: named transformations of a ScenarioConfig.

``gavel_compatible`` reproduces the rules of Gavel's own simulator (Narayanan et al., OSDI 2020;
stanford-futuredata/gavel ``scheduler/scheduler.py``): new jobs are admitted only at round
boundaries and the allocation is recomputed at most every 1920 s; Gavel's policies run in its
micro-task round loop with its per-type priority queues (``RoundConfig.gavel_rules``, see
:mod:`engine.micro_tasks` and :mod:`engine.policies.gavel.queues`). It also turns off what Gavel
does not model: the checkpoint-restore cost of a preemption and the network penalty of a spread
placement. Results under this preset can be set beside Gavel's
(``tests/engine/test_fidelity_gavel.py``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from engine.config import ScenarioConfig

GAVEL_REALLOCATION_INTERVAL_S = 1920.0


def gavel_compatible(config: ScenarioConfig) -> ScenarioConfig:
    """Gavel's simulator rules (see module docstring); round length is kept."""
    rounds = dataclasses.replace(
        config.rounds,
        admit_mid_round=False,
        reallocation_interval_s=GAVEL_REALLOCATION_INTERVAL_S,
        checkpoint_restore_s=0.0,
        gavel_rules=True,
    )
    network = dataclasses.replace(config.network, enabled=False)
    return dataclasses.replace(config, rounds=rounds, network=network)


PRESETS: dict[str, Callable[[ScenarioConfig], ScenarioConfig]] = {
    "Gavel-compatible": gavel_compatible,
}
