"""The unit of work of a study: one scenario, one policy, one trace seed, one simulation seed.

A :class:`RunSpec` is frozen and picklable, so any executor (a process pool, Ray) can ship it;
the engine resolves it entirely (:func:`engine.scenario.run`) and returns one result. Its
:meth:`RunSpec.key` names the stored result: the SHA-256 of the spec's canonical JSON plus a
digest of the engine's own code and data, so a change of the engine never reuses stale results.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from engine.config import ScenarioConfig
from engine.errors import ConfigError

RECORD_MODES = ("summary", "full")
ENGINE_DIR = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class RunSpec:
    """One simulation.

    Attributes:
        scenario: the variant's scenario with exactly one policy in ``policies``; its ``seed`` is
            ``sim_seed`` and its ``trace_seed`` is ``trace_seed``, so it alone fixes the run.
        variant: the variant's name ("base", "more V100s", ...).
        trace_seed: seeds the trace rules (job types drawn), synthetic draws and load.
        sim_seed: seeds the simulator's (the policy's) rng.
        trace_hash: SHA-256 hex of the trace file's bytes ("" for a synthetic trace).
        record: ``"summary"`` (KPIs and the jobs table) or ``"full"`` (plus segments and
            utilization tables).
    """

    scenario: ScenarioConfig
    variant: str
    trace_seed: int
    sim_seed: int
    trace_hash: str
    record: str = "summary"

    def __post_init__(self) -> None:
        if len(self.scenario.policies) != 1:
            raise ConfigError(
                f"variant {self.variant!r}: a run spec holds exactly one policy, "
                f"got {len(self.scenario.policies)}"
            )
        if self.record not in RECORD_MODES:
            raise ConfigError(f"record must be one of {RECORD_MODES}, got {self.record!r}")

    @property
    def policy_label(self) -> str:
        """The policy's display name (its label, else its registry name)."""
        from engine.policies.base import display_name  # (this module stays light to import)

        return display_name(self.scenario.policies[0])

    def canonical(self) -> dict[str, Any]:
        """The spec as plain JSON data (all fields), plus the engine's code digest."""
        return {
            "scenario": self.scenario.to_dict(),
            "variant": self.variant,
            "trace_seed": self.trace_seed,
            "sim_seed": self.sim_seed,
            "trace_hash": self.trace_hash,
            "record": self.record,
            "engine": engine_digest(),
        }

    def key(self) -> str:
        """SHA-256 hex of the canonical JSON (sorted keys, no spaces): the result store's key."""
        text = json.dumps(self.canonical(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


@cache
def engine_digest() -> str:
    """SHA-256 over the engine's Python sources and data files (sorted by path).

    Any edit of the engine changes every key, so stored results of an older engine are not
    reused.
    """
    digest = hashlib.sha256()
    files = sorted(p for p in ENGINE_DIR.rglob("*") if p.is_file() and p.suffix in (".py", ".csv"))
    for path in files:
        digest.update(path.relative_to(ENGINE_DIR).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()
