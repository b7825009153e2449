"""The placement layer's search by consolidation level, and which policies honour the scenario's
placement strategy through it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.config import PolicySpec, ScenarioConfig
from engine.placement import get_placement
from engine.placement.levels import NETWORK, NODE, RACK, level_of, place_within
from engine.policies import get_policy, list_policies
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

FIRST_FIT = get_placement("first_fit")
CONSOLIDATED = get_placement("consolidated")


def test_first_fit_within_a_node_takes_the_first_node_with_room() -> None:
    """Free [1, 3, 4, 2]: first fit alone would split 2 GPUs over n0 and n1 (rack level); held
    to one node it takes the first node with 2 free (position 1), consolidated the tightest
    (position 3)."""
    free, racks = [1, 3, 4, 2], [0, 0, 1, 1]
    assert FIRST_FIT(free, racks, 2) == [(0, 1), (1, 1)]
    assert place_within(FIRST_FIT, free, racks, 2, NODE) == [(1, 2)]
    assert place_within(CONSOLIDATED, free, racks, 2, NODE) == [(3, 2)]
    assert place_within(FIRST_FIT, free, racks, 2, NETWORK) == [(0, 1), (1, 1)]


def test_first_fit_within_a_rack_takes_the_first_rack_with_room() -> None:
    """Free [1, 1, 2, 2] in racks [0, 0, 1, 1], 3 GPUs: rack 0 has only 2 free, so first fit
    held to one rack fills rack 1 in node order; no node has 3 free."""
    free, racks = [1, 1, 2, 2], [0, 0, 1, 1]
    assert place_within(FIRST_FIT, free, racks, 3, RACK) == [(2, 2), (3, 1)]
    assert place_within(CONSOLIDATED, free, racks, 3, RACK) == [(2, 2), (3, 1)]
    assert place_within(FIRST_FIT, free, racks, 3, NODE) is None
    assert place_within(CONSOLIDATED, free, racks, 3, NODE) is None


@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 2)), min_size=1, max_size=8),
    st.integers(1, 8),
    st.sampled_from([NODE, RACK, NETWORK]),
    st.sampled_from(["first_fit", "consolidated"]),
)
def test_a_placement_within_a_level_is_valid_and_found_when_one_exists(
    nodes: list[tuple[int, int]], num_gpus: int, max_level: int, strategy: str
) -> None:
    """Whatever the free GPUs: an answer takes exactly ``num_gpus`` free GPUs at ``max_level``
    or better, and there is none only when no node (rack) of the level has room."""
    free, racks = [f for f, _ in nodes], [r for _, r in nodes]
    if sum(free) < num_gpus:
        return
    taken = place_within(get_placement(strategy), free, racks, num_gpus, max_level)
    rack_free = {r: sum(f for f, q in nodes if q == r) for r in racks}
    possible = {NODE: max(free), RACK: max(rack_free.values()), NETWORK: sum(free)}[max_level]
    assert (taken is None) == (possible < num_gpus)
    if taken is not None:
        assert sum(count for _, count in taken) == num_gpus
        assert all(0 < count <= free[p] for p, count in taken)
        assert len({p for p, _ in taken}) == len(taken)
        assert level_of(taken, racks) <= max_level


# n0 has 4 GPUs, n1 has 2: a 2-GPU job fits on either (first fit: n0; best fit: n1)
UNEVEN = cluster(("v100", 1, 4, "r0"), ("v100", 1, 2, "r0"))
ONE_JOB = jobs_frame(("A", 0.0, RESNET50, 2, 1_000.0))


@pytest.mark.parametrize(
    ("policy", "placement", "node"),
    [
        ("dally", "consolidated", "n1"),
        ("dally", "first_fit", "n0"),
        ("consolidation_strict", "consolidated", "n1"),
        ("consolidation_strict", "first_fit", "n0"),
        ("consolidation_none", "consolidated", "n0"),  # first fit by definition
        ("doubling", "first_fit", "n0"),
    ],
)
def test_the_scenarios_placement_picks_the_node_within_a_level(
    policy: str, placement: str, node: str
) -> None:
    config = ScenarioConfig(cluster=UNEVEN, placement=placement)
    params = {"max_gpus_per_job": 2} if policy == "doubling" else {}
    result = simulate(ONE_JOB, config, PolicySpec(policy, params), load_matrix())
    assert result.segments["nodes"].tolist()[0] == node


def test_a_policy_that_pins_nodes_says_why() -> None:
    """Every policy either honours the placement setting or names its reason for the UI."""
    pinning = {n for n in list_policies() if not get_policy(n).honours_placement}
    assert {"hadar", "hadare", "consolidation_none", "consolidation_tiresias"} <= pinning
    assert not {"dally", "consolidation_strict", "doubling", "fifo"} & pinning
    assert all(get_policy(n).placement_note for n in pinning)
