"""The event loop stepped by hand (engine/event_loop.py): ``next_event_s`` picks the earliest
source, ``step`` handles one instant; and Gavel's round loop composes the loop's public steps.
Every expected time is derived here from the throughput matrix, never read back."""

from __future__ import annotations

import ast
import math
from pathlib import Path

import pytest

from engine.config import CongestionEpisode, NetworkConfig, PolicySpec, RoundConfig, ScenarioConfig
from engine.event_loop import Simulation
from engine.lease_rounds import LeaseRounds
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import RESNET50, cluster, jobs_frame

MATRIX = load_matrix()
TRANSFORMER = "Transformer (batch size 64)"


def stepped(sim: Simulation) -> list[tuple[float, int]]:
    """(event time s, jobs completed then) of every instant, stepping the loop to its end."""
    instants = []
    while (t := sim.next_event_s()) != math.inf:
        instants.append((t, sim.step(t)))
    return instants


def test_two_jobs_on_one_gpu_step_through_their_arrivals_and_completions() -> None:
    """FIFO, mid-round admission (no round boundaries): a (1000 steps) arrives at 0, b (500)
    at 10; a completes at 1000/r, b, started then, at 1500/r (r: ResNet-50 on one v100)."""
    config = ScenarioConfig(
        cluster=cluster(("v100", 1, 1, "r0")), rounds=RoundConfig(admit_mid_round=True)
    )
    jobs = jobs_frame(("a", 0, RESNET50, 1, 1000), ("b", 10, RESNET50, 1, 500))
    sim = Simulation(jobs, config, PolicySpec("fifo"), MATRIX)
    r = MATRIX.steps_per_s(RESNET50, "v100", 1)
    instants = stepped(sim)
    assert [t for t, _ in instants] == pytest.approx([0.0, 10.0, 1000 / r, 1500 / r])
    assert [done for _, done in instants] == [0, 0, 1, 1]
    assert sim.clock.num_decisions == 2  # at a's arrival and at a's completion (b starts)
    assert not sim.sets.waiting and not sim.sets.running


def test_a_congestion_change_is_an_event_only_while_jobs_are_in_the_system() -> None:
    """A Transformer on two nodes of one rack (its ring crosses the rack link); an episode from
    100 s to 1e6 s: the start, mid-job, is an event (the job is re-rated); the end, long after
    the job completed, is not."""
    network = NetworkConfig(congestion=(CongestionEpisode(100.0, 1e6, 4.0, "inter_node"),))
    rounds = RoundConfig(admit_mid_round=True)
    config = ScenarioConfig(cluster=cluster(("v100", 2, 2, "r0")), network=network, rounds=rounds)
    jobs = jobs_frame(("a", 0, TRANSFORMER, 4, 5000))
    sim = Simulation(jobs, config, PolicySpec("fifo"), MATRIX)
    times = [t for t, _ in stepped(sim)]
    calm = Simulation(jobs, ScenarioConfig(cluster=config.cluster, rounds=rounds),
                      PolicySpec("fifo"), MATRIX)  # fmt: skip
    calm_times = [t for t, _ in stepped(calm)]
    assert times[:2] == [0.0, 100.0] and len(calm_times) == 2
    assert len(times) == 3 and calm_times[1] < times[2] < 1e6  # then its completion, slowed
    assert sim.congestion_s == [1e6]  # the episode's end: never reached, nothing ran by then


def test_lease_rounds_compose_the_loops_public_steps() -> None:
    """Gavel's round loop is a step object over a :class:`Simulation`, not a subclass, and
    reads no private attribute of another object (``x._name`` with ``x`` not ``self``)."""
    assert not issubclass(LeaseRounds, Simulation)
    source = Path(__file__).resolve().parents[2] / "engine" / "lease_rounds.py"
    private = [
        f"{ast.unparse(node)} (line {node.lineno})"
        for node in ast.walk(ast.parse(source.read_text()))
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not (isinstance(node.value, ast.Name) and node.value.id == "self")
    ]
    assert not private, f"lease_rounds.py reaches into private parts: {private}"
