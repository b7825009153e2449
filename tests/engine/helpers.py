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
    from engine.policies import base
    from engine.policies.gavel.max_min import GavelMaxMin, GavelMaxMinAware

    real = getattr(GavelMaxMin, method)

    def spy(self: GavelMaxMin, *args: Any) -> Any:
        record(args)
        return real(self, *args)

    attributes = ("name", "display_name", "group", "Params", "heterogeneity_aware")
    namespace: dict[str, Any] = {a: getattr(GavelMaxMinAware, a) for a in attributes}
    spying = type("SpyingGavelMaxMin", (GavelMaxMin,), {**namespace, method: spy})
    monkeypatch.setitem(base._REGISTRY, "gavel_maxmin", spying)
