"""The engine's shortcuts on the restart path equal the plain computation they stand for: the
best-fit and fullest-first steps of consolidated placement, shared placement objects, lane codes
remembered by placement identity, segment rows kept in chunks, each job's chain of gang-rate
memos, and the engine's marks on the jobs that keep their grants."""

from __future__ import annotations

import dataclasses

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine.cluster
import engine.recorder
import engine.segments
from engine.allocation.grants import COMBINE_MODES, Grant
from engine.allocation.layout import NodeLayout
from engine.cluster import ClusterState, Placement
from engine.config import PolicySpec, ScenarioConfig
from engine.decision_step import changed_entries
from engine.errors import AllocationError
from engine.placement import get_placement
from engine.placement.consolidated import consolidated, fill_fullest
from engine.recorder import Recorder
from engine.scenario import load_scenario_trace
from engine.simulator import Simulation
from engine.state import JobState
from engine.step_time.rates import JobRates
from engine.step_time.throughput import load_matrix
from tests.engine.helpers import cluster

SPEC = cluster(("v100", 3, 4, "r0"), ("v100", 2, 8, "r1"), ("k80", 3, 4, "r2"))


def sorted_consolidated(free: list[int], racks: list[int], num_gpus: int) -> list[tuple[int, int]]:
    """Consolidated placement as first written: a full best-fit scan, then nodes sorted by
    (-free, position) within the tightest rack that fits, else over all nodes."""
    fits = [(f, p) for p, f in enumerate(free) if f >= num_gpus]
    if fits:
        return [(min(fits)[1], num_gpus)]
    rack_free: dict[int, int] = {}
    for rack, f in zip(racks, free, strict=True):
        rack_free[rack] = rack_free.get(rack, 0) + f
    fitting = [(total, rack) for rack, total in rack_free.items() if total >= num_gpus]
    positions = range(len(free))
    if fitting:
        rack = min(fitting)[1]
        positions = [p for p in positions if racks[p] == rack]  # type: ignore[assignment]
    taken, left = [], num_gpus
    for position in sorted(positions, key=lambda p: (-free[p], p)):
        grab = min(left, free[position])
        if left and grab:
            taken.append((position, grab))
            left -= grab
    return taken


@given(
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 3)), min_size=1, max_size=30),
    st.integers(1, 40),
)
def test_consolidated_is_the_sorted_definition(nodes: list[tuple[int, int]], num_gpus: int) -> None:
    free, racks = [f for f, _ in nodes], [r for _, r in nodes]
    if sum(free) < num_gpus:
        return
    assert consolidated(list(free), racks, num_gpus) == sorted_consolidated(free, racks, num_gpus)


@given(
    st.lists(st.integers(0, 20), min_size=0, max_size=30),
    st.data(),
    st.integers(-2, 60),
)
def test_fill_fullest_is_the_sorted_definition(
    free: list[int], data: st.DataObject, num_gpus: int
) -> None:
    """Buckets by free GPUs take the nodes a sort by (-free, position) would, as many as the
    request needs, never an empty node."""
    positions = sorted(data.draw(st.sets(st.integers(0, max(0, len(free) - 1)))) if free else [])
    expected, left = [], num_gpus
    for position in sorted(positions, key=lambda p: (-free[p], p)):
        if left <= 0 or free[position] <= 0:
            break
        grab = min(left, free[position])
        expected.append((position, grab))
        left -= grab
    assert fill_fullest(free, positions, num_gpus) == expected


def place_all(
    requests: list[tuple[bool, str, int]],
) -> list[Placement | None]:
    """Placements (None: no room) of a sequence of place (True) / release-the-oldest (False)."""
    state = ClusterState(NodeLayout.of(SPEC), get_placement("consolidated"))
    held: list[Placement] = []
    out: list[Placement | None] = []
    for place, worker_type, num_gpus in requests:
        if place:
            placement = state.place(worker_type, num_gpus)
            out.append(placement)
            if placement is not None:
                held.append(placement)
        elif held:
            state.release(held.pop(0))
    return out


REQUESTS = st.lists(
    st.tuples(st.booleans(), st.sampled_from(["v100", "k80"]), st.integers(1, 12)), max_size=40
)


@given(REQUESTS)
def test_shared_placements_equal_fresh_ones(requests: list[tuple[bool, str, int]]) -> None:
    """The same requests place the same GPUs whether multi-node placements are shared or built
    anew; shared, equal placements are one object."""
    shared = place_all(requests)
    limit = engine.cluster.SHARED_PLACEMENTS_MAX
    engine.cluster.SHARED_PLACEMENTS_MAX = 0
    try:
        fresh = place_all(requests)
    finally:
        engine.cluster.SHARED_PLACEMENTS_MAX = limit
    assert shared == fresh
    layout = NodeLayout.of(SPEC)
    for placement in shared:  # each (one-node ones from the per-type tables) as built anew
        if placement is not None:
            racks = sorted({layout.node_rack[n] for n in placement.nodes})
            level = (
                "node" if len(placement.nodes) == 1 else "rack" if len(racks) == 1 else "network"
            )
            assert placement == Placement(
                layout.node_type[placement.nodes[0]], placement.nodes, placement.counts,
                tuple(racks), level, sum(placement.counts),
            )  # fmt: skip
            assert {layout.node_type[n] for n in placement.nodes} == {placement.worker_type}
    by_value: dict[Placement, Placement] = {}
    for placement in shared:
        if placement is not None:
            assert by_value.setdefault(placement, placement) is placement


def segments_of(closes: list[tuple[int, Placement, float]], copies: bool) -> pd.DataFrame:
    """The segments table of closing each (job, placement, held seconds) in turn; ``copies``:
    every close gets a new, equal placement object (no identity can be remembered)."""
    recorder = Recorder({"v100": 20, "k80": 12})
    now_s = 0.0
    for index, placement, held_s in closes:
        job = JobState(index, f"j{index}", 0.0, "resnet50", 1, 10.0, 1.0, {}, 0.0)
        job.segment_start_s = now_s
        now_s += held_s
        job.restore_until_s = now_s - held_s / 2
        held = dataclasses.replace(placement) if copies else placement
        recorder.close_segment(job, held, now_s, "preempted" if index % 2 else "completed")
    return recorder.segments_table([f"j{i}" for i in range(4)])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.floats(0.5, 9.0)), max_size=30))
def test_lanes_remembered_by_identity_equal_lanes_built_anew(
    steps: list[tuple[int, int, float]],
) -> None:
    """Rows of the cluster's shared placements (one-node, two-node, copies) equal the rows of
    fresh copies of them: same lanes, same codes, same table."""
    placements = (
        Placement("v100", (3,), (2,), ("r1",), "node", 2),
        Placement("v100", (0, 3), (4, 8), ("r0", "r1"), "network", 12),
        Placement("k80", (5, 6), (1, 1), ("r2",), "rack", 2, (), "copies"),
    )
    closes = [(index, placements[which], held_s) for index, which, held_s in steps]
    shared, fresh = segments_of(closes, copies=False), segments_of(closes, copies=True)
    assert list(shared.dtypes) == list(fresh.dtypes)
    pd.testing.assert_frame_equal(shared, fresh, check_exact=True)


PLACEMENT_NODES = st.lists(
    st.tuples(st.integers(0, 9), st.integers(1, 8), st.sampled_from(["v100", "k80"])),
    min_size=1, max_size=4, unique_by=lambda entry: entry[0],
)  # fmt: skip


@given(PLACEMENT_NODES, st.sampled_from(COMBINE_MODES), st.booleans())
def test_lane_rows_are_those_of_the_lanes_definition(
    entries: list[tuple[int, int, str]], combine: str, mixed: bool
) -> None:
    """A placement's rows (one-node, one-type and mixed shortcuts included) carry the text of
    :func:`engine.recorder.lanes`, one row per lane, numbered from 0."""
    entries = sorted(entries)
    nodes = tuple(node for node, _, _ in entries)
    counts = tuple(count for _, count, _ in entries)
    types = tuple(wt for _, _, wt in entries) if mixed and len(set(entries)) > 1 else ()
    if len(set(types)) == 1:
        types = ()
    racks = ("r0", "r1") if len(nodes) > 1 else ("r0",)  # a one-node placement: one rack
    placement = Placement(
        types[0] if types else "v100", nodes, counts, racks, "network", sum(counts), types,
        combine,
    )  # fmt: skip
    table = segments_of([(0, placement, 1.0)], copies=False)
    expected = [
        (wt, sum(lane_counts), ",".join(f"n{n}" for n in lane_nodes), ",".join(racks), lane,
         ",".join(str(c) for c in lane_counts))
        for lane, (wt, lane_nodes, lane_counts) in enumerate(engine.recorder.lanes(placement))
    ]  # fmt: skip
    columns = ["worker_type", "num_gpus", "nodes", "racks", "lane", "node_gpus"]
    assert [tuple(row) for row in table[columns].itertuples(index=False)] == expected
    assert set(table["combine"]) == {combine}


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 40), st.lists(st.integers(0, 5), min_size=1, max_size=8))
def test_segments_in_chunks_equal_one_chunk(rows: int, lanes: list[int]) -> None:
    def table(chunk_rows: int) -> pd.DataFrame:
        default = engine.segments.CHUNK_ROWS
        engine.segments.CHUNK_ROWS = chunk_rows
        try:
            segments = engine.segments.Segments()
            codes = [segments.lane_code(("v100", n, f"n{n}", "r0", "node", 0, "gang", str(n)))
                     for n in lanes]  # fmt: skip
            for row in range(rows):
                reason = "completed" if row % 4 else "preempted"
                segments.add(
                    row % 3, row * 1.5, row * 1.5 + 1.0, 0.25, reason, codes[row % len(codes)]
                )
            return segments.table(["a", "b", "c"])
        finally:
            engine.segments.CHUNK_ROWS = default

    whole, chunked = table(1 << 20), table(3)
    pd.testing.assert_frame_equal(whole, chunked, check_exact=True)
    assert list(chunked["job_id"]) == ["abc"[row % 3] for row in range(rows)]
    assert list(chunked["start_s"]) == [row * 1.5 for row in range(rows)]
    assert list(chunked["end_s"]) == [row * 1.5 + 1.0 for row in range(rows)]
    assert list(chunked["restore_s"]) == [0.25] * rows
    reasons = ["completed" if row % 4 else "preempted" for row in range(rows)]
    assert list(chunked["end_reason"]) == reasons
    assert list(chunked["num_gpus"]) == [lanes[row % len(lanes)] for row in range(rows)]


@pytest.fixture(scope="module")
def simulation() -> Simulation:
    matrix = load_matrix()
    config = dataclasses.replace(ScenarioConfig(), policies=(PolicySpec("las"),))
    jobs = load_scenario_trace(config).jobs.head(40)
    return Simulation(jobs, config, config.policies[0], matrix)


GANGS = st.lists(
    st.tuples(
        st.integers(0, 39), st.sampled_from(["v100", "p100", "k80"]),
        st.sampled_from([1, 2, 4, 8]), st.sampled_from([10.0, 25.0, 100.0]),
    ),  # fmt: skip
    min_size=1, max_size=25,
)  # fmt: skip


@settings(max_examples=50, deadline=None)
@given(GANGS)
def test_each_jobs_gang_rate_memo_is_the_run_wide_rate(
    simulation: Simulation, gangs: list[tuple[int, str, int, float]]
) -> None:
    """Restarts on the same and on other gangs: the memoized rate (or error) is the one a fresh
    :class:`JobRates` computes for a job without a memo."""
    sim = simulation
    for index, worker_type, num_gpus, bandwidth_gbps in gangs:
        job = sim.jobs[index]
        placement = Placement(worker_type, (0,), (num_gpus,), ("r",), "node", num_gpus)
        fresh = JobRates(sim.matrix, sim.config.network, sim.rules.round_s, sim.policy)
        memo = job.gang_rate
        job.gang_rate = None
        try:
            expected = fresh.of(job, placement, bandwidth_gbps, 0.0)
        except AllocationError:
            expected = None
        job.gang_rate = memo
        try:
            got = sim.moves.rates.of(job, placement, bandwidth_gbps, 0.0)
        except AllocationError:
            got = None
        assert got == expected


CHOICES = st.lists(st.tuples(st.booleans(), st.integers(0, 3)), min_size=1, max_size=12)


@given(CHOICES)
def test_changed_entries_tell_when_the_preemption_scan_finds_nothing(
    choices: list[tuple[bool, int]],
) -> None:
    """Jobs running (or not) and granted their own grant object, an equal copy, another grant,
    or nothing: the engine's changed entries are those whose grant is not the job's, and the
    engine skips its preemption scan (every running job keeps its grant) exactly when the scan
    would find no running job without its grant."""
    own, other = Grant("v100", 2), Grant("k80", 1)
    jobs, allocation = [], {}
    for index, (running, how) in enumerate(choices):
        job = JobState(
            index, f"j{index}", 0.0, "resnet50", 2, 10.0, 1.0, {"v100": 1.0, "k80": 1.0}, 0.0
        )
        job.grant = own if running else None
        jobs.append(job)
        granted = (own, Grant("v100", 2), other, None)[how]
        if granted is not None:
            allocation[index] = granted
    changed = changed_entries(allocation, jobs, 7)
    assert changed == [
        (index, grant) for index, grant in allocation.items() if grant != jobs[index].grant
    ]
    running = [job for job in jobs if job.grant is not None]
    scan = [job for job in running if allocation.get(job.index) != job.grant]
    assert (len(allocation) - len(changed) < len(running)) == bool(scan)
    # the engine's preemption scan: the running jobs changed_entries did not mark
    assert [job for job in running if job.kept_stamp != 7] == scan
