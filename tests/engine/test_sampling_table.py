"""The sampling policy's per-job table gives the same stacked inputs, current GPUs and job
classes as building them per decision from the jobs (Liu et al., TPDS 2024 policy)."""

from __future__ import annotations

import numpy as np

from engine.cluster import Placement
from engine.config import NetworkConfig
from engine.jobs import reference_speeds
from engine.policies.sampling.model import job_row
from engine.policies.sampling.table import JobTable
from engine.state import JobState
from engine.step_time.throughput import gradient_bytes, load_matrix
from tests.engine.reference.sampling_model import stack_rows

MATRIX = load_matrix()
TYPES = ["k80", "p100", "v100"]


def make_jobs(count: int, seed: int) -> list[JobState]:
    """Jobs of random types and scale factors 1..16, indices shuffled (a table grows by index)."""
    rng = np.random.default_rng(seed)
    names = MATRIX.job_types
    jobs = []
    for i in rng.permutation(count).tolist():
        job_type = names[int(rng.integers(len(names)))]
        sf = int(rng.choice([1, 1, 1, 2, 4, 8, 16]))
        rates = {wt: MATRIX.steps_per_s(job_type, wt, sf) for wt in TYPES}
        speeds = reference_speeds(MATRIX, job_type, TYPES)
        arrival_s = float(rng.integers(100))
        grad = gradient_bytes(job_type)
        jobs.append(JobState(i, f"j{i}", arrival_s, job_type, sf, 1e4, 1.0, rates, grad, speeds))
    return jobs


def test_table_inputs_equal_stacked_rows() -> None:
    net = NetworkConfig()
    jobs = make_jobs(60, 1)
    table = JobTable(TYPES, net, MATRIX)
    for subset in (jobs[:5], jobs[10:50], jobs[::3], jobs):  # the table grows between decisions
        idx = table.indices(subset)
        assert idx.tolist() == [j.index for j in subset]
        got = table.inputs(idx)
        want = stack_rows([job_row(j, TYPES, net, MATRIX) for j in subset], subset)
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert np.array_equal(a, b)


def test_classes_are_distinct_valuations_in_order_of_first_appearance() -> None:
    jobs = make_jobs(40, 2)
    table = JobTable(TYPES, NetworkConfig(), MATRIX)
    idx = table.indices(jobs)
    values, job_class = table.classes(idx)
    one_gpu = table.inputs(idx).one_gpu
    assert np.array_equal(values[job_class], one_gpu)  # each job's class holds its valuation
    firsts = [int(np.flatnonzero(job_class == c)[0]) for c in range(len(values))]
    assert firsts == sorted(firsts)  # classes numbered by first appearance
    assert len({row.tobytes() for row in values}) == len(values)


def test_current_follows_placement_changes() -> None:
    jobs = make_jobs(3, 3)
    table = JobTable(TYPES, NetworkConfig(), MATRIX)
    idx = table.indices(jobs)
    assert table.current(jobs, idx).tolist() == [[0, 0, 0]] * 3
    jobs[1].placement = Placement("v100", (0,), (2,), ("r0",), "node", 2)
    assert table.current(jobs, idx)[1].tolist() == [0, 0, 2]
    mixed = Placement("v100", (0, 3), (1, 2), ("r0", "r1"), "rack", 3, ("v100", "k80"))
    jobs[1].placement = mixed
    assert table.current(jobs, idx)[1].tolist() == [2, 0, 1]
    jobs[1].placement = None
    assert table.current(jobs, idx)[1].tolist() == [0, 0, 0]
