"""The planner under a facility power cap and at total cost of ownership (issue 34): costs
computed by hand, and a cap that changes the chosen mix to one that fits it."""

from __future__ import annotations

import dataclasses

import pytest

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig, TraceSpec
from engine.errors import ConfigError
from engine.power.energy import full_load_kw
from engine.power.model import PowerSpec, WorkerPower
from engine.study.planner import Candidate, PlanSpec, plan
from engine.study.planner_power import Ownership, over_cap

POWER = PowerSpec(pue=1.5, worker_types=(WorkerPower("v100", 300.0, 50.0, 1000.0),))
TWO_V100_NODES = ClusterSpec((NodeGroup("v100", 2, 4, "r0"),))


def test_ownership_per_hour_by_hand() -> None:
    """8 V100s at 10,000 USD each over 5 years: 80,000 / 43,800 h = 1.82648 USD/h. Full load:
    1.5 x (8 x 300 W + 2 x 1,000 W) = 6.6 kW, at 0.10 USD/kWh = 0.66 USD/h."""
    owning = Ownership((("v100", 10_000.0),), electricity_usd_per_kwh=0.10, years=5.0)
    assert full_load_kw(TWO_V100_NODES, POWER) == pytest.approx(6.6)
    assert owning.usd_per_h(TWO_V100_NODES, POWER) == pytest.approx(80_000 / 43_800 + 0.66)


def test_the_cap_refuses_by_full_load_power() -> None:
    assert over_cap(TWO_V100_NODES, 7.0, POWER) == ""
    assert over_cap(TWO_V100_NODES, 6.0, POWER) == (
        "it draws 7 kW at full load, over the power cap of 6 kW"
    )


PRICES = (("v100", 0.30), ("p100", 0.43), ("k80", 0.135))  # a cheap V100: the cap matters
TODAY = ClusterSpec(tuple(NodeGroup(t, 2, 4, f"r{i}") for i, (t, _) in enumerate(PRICES)))
BASE = ScenarioConfig(trace=TraceSpec(max_jobs=80), policies=(PolicySpec("fifo"),), cluster=TODAY)
SPEC = PlanSpec(BASE, tuple(Candidate(t, p, 3, 4) for t, p in PRICES), "jct_p95_s",
                3 * 3600.0, (1, 2, 3), max_seeds=10, search_trials=16)  # fmt: skip


def _chosen(spec: PlanSpec) -> tuple[str, float]:
    row = plan(spec, executor="serial").chosen_row
    assert row is not None
    mix = tuple(int(row[f"nodes:{t}"]) for t, _ in PRICES)
    return str(row["mix"]), full_load_kw(spec.cluster(mix), spec.power)


def test_a_power_cap_changes_the_chosen_mix_to_one_that_fits_it() -> None:
    free_mix, free_kw = _chosen(SPEC)
    cap_kw = 0.99 * free_kw  # the answer without a cap no longer fits
    capped_mix, capped_kw = _chosen(dataclasses.replace(SPEC, power_cap_kw=cap_kw))
    assert capped_mix != free_mix
    assert capped_kw <= cap_kw


def test_bad_power_fields_are_named() -> None:
    with pytest.raises(ConfigError, match="power_cap_kw must be > 0"):
        dataclasses.replace(SPEC, power_cap_kw=0.0)
    with pytest.raises(ConfigError, match=r"purchase_usd_per_gpu: no purchase price for k80"):
        dataclasses.replace(
            SPEC, ownership=Ownership((("v100", 1.0), ("p100", 1.0)), electricity_usd_per_kwh=0.1)
        )
    with pytest.raises(ConfigError, match="ownership: unknown key"):
        PlanSpec.from_dict({**SPEC.to_dict(), "ownership": {"price": 1}})


def test_a_plan_without_power_keeps_its_key_and_round_trips_with_it() -> None:
    assert "power_cap_kw" not in SPEC.to_dict() and "ownership" not in SPEC.to_dict()
    owning = Ownership(tuple((t, 5_000.0) for t, _ in PRICES), electricity_usd_per_kwh=0.08)
    spec = dataclasses.replace(SPEC, power_cap_kw=50.0, ownership=owning)
    assert PlanSpec.from_dict(spec.to_dict()) == spec
    assert spec.key() != SPEC.key()


def test_with_ownership_the_plan_minimises_the_cost_of_owning() -> None:
    """Every mix's cost is its ownership per hour; the answer is the cheapest to own among the
    mixes confirmed."""
    owning = Ownership((("v100", 9_000.0), ("p100", 5_000.0), ("k80", 900.0)),
                       electricity_usd_per_kwh=0.10)  # fmt: skip
    spec = dataclasses.replace(SPEC, ownership=owning)
    result = plan(spec, executor="serial")
    tried = result.tried
    for _, row in tried[tried["error"] == ""].iterrows():
        mix = tuple(int(row[f"nodes:{t}"]) for t, _ in PRICES)
        assert row["cost_usd_per_h"] == pytest.approx(
            owning.usd_per_h(spec.cluster(mix), spec.power)
        )
    assert result.chosen_row is not None
    assert "power_full_kw" in tried.columns
