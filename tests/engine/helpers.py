"""Small builders shared by engine tests."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from engine.config import ClusterSpec, NodeGroup

RESNET50 = "ResNet-50 (batch size 64)"


def jobs_frame(*rows: tuple[str, float, str, int, float]) -> pd.DataFrame:
    """Canonical jobs table from (job_id, arrival_s, job_type, scale_factor, total_steps) rows."""
    return pd.DataFrame(
        {
            "job_id": [r[0] for r in rows],
            "arrival_s": [float(r[1]) for r in rows],
            "job_type": [r[2] for r in rows],
            "scale_factor": [int(r[3]) for r in rows],
            "total_steps": [float(r[4]) for r in rows],
            "priority_weight": [1.0] * len(rows),
            "duration_s": [math.nan] * len(rows),
            "source_row": list(range(1, len(rows) + 1)),
        }
    )


def cluster(*groups: tuple[str, int, int, str]) -> ClusterSpec:
    """ClusterSpec from (worker_type, nodes, gpus_per_node, rack) rows."""
    return ClusterSpec(tuple(NodeGroup(*g) for g in groups))


def spy_gavel_maxmin(
    monkeypatch: pytest.MonkeyPatch, method: str, record: Callable[[tuple[Any, ...]], None]
) -> None:
    """Registers, for the test, a ``gavel_maxmin`` whose ``method`` (of GavelMaxMin) passes its
    arguments to ``record`` first: an interpreted subclass, since compiled methods cannot be
    monkeypatched (engine.native). The LP path stays the class's own (``solves_by_class``)."""
    from engine.policies.gavel.max_min import GavelMaxMin, GavelMaxMinAware

    real = getattr(GavelMaxMin, method)

    def spy(self: GavelMaxMin, *args: Any) -> Any:
        record(args)
        return real(self, *args)

    attributes = ("name", "display_name", "group", "Params", "heterogeneity_aware")
    namespace: dict[str, Any] = {a: getattr(GavelMaxMinAware, a) for a in attributes}
    spying = type("SpyingGavelMaxMin", (GavelMaxMin,), {**namespace, method: spy})
    use_policy(monkeypatch, "gavel_maxmin", spying)


def use_policy(monkeypatch: pytest.MonkeyPatch, name: str, policy: type[Any]) -> None:
    """For one test, policies are looked up in a registry of their own in which ``name`` is
    ``policy`` (added, or in place of the policy registered under that name)."""
    from engine.policies import base

    registry = base.PolicyRegistry("policy")
    for key, cls in base.POLICIES.items():
        if key != name:
            registry.register(key, cls)
    registry.register(name, policy)
    monkeypatch.setattr(base, "POLICIES", registry)
