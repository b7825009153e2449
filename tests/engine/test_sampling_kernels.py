"""The compiled hand-out and step-time model of the sampling-based placement policy (Liu et al.,
TPDS 2024) equal the vectorized numpy code they replaced, bit for bit. The references below are
transcriptions of that code (engine/policies/sampling/fill.py and model.py at 5d4ebe2); the
market's compiled solver is checked against the plain-Python one in test_sampling_ssp_one.py."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.config import CongestionEpisode, NetworkConfig
from engine.policies.sampling.model import JobInputs, LinkModel, bandwidths, link_model
from tests.engine.helpers import cluster
from tests.engine.reference.sampling_model import step_rates


def numpy_step_rates(
    counts: np.ndarray, inputs: JobInputs, links: LinkModel, bw: np.ndarray, net: NetworkConfig
) -> np.ndarray:
    """The vectorized step-time model (old ``model.step_rates``)."""
    workers = counts.sum(axis=-1)
    present = counts > 0
    n_types = counts.shape[2]
    jobs = np.arange(counts.shape[1])[None, :, None]
    at_m = np.minimum(workers, inputs.sync.shape[2] - 1)[..., None]
    sync = inputs.sync[jobs, np.arange(n_types)[None, None, :], at_m]
    measured = np.where(present, sync, 0.0).max(axis=-1, initial=0.0)
    measured = np.where(workers > 1, measured, 0.0)
    mask = (present * (1 << np.arange(n_types))).sum(axis=-1)
    level = np.where(
        workers <= links.node_max[mask], 0, np.where(workers <= links.rack_max[mask], 1, 2)
    )
    if net.enabled:
        share = 2 * np.maximum(workers - 1, 0) / np.maximum(workers, 1)
        share = share * inputs.gradient_bytes * 8 / 1e9
        extra = np.maximum(share / bw[mask, level] - share / net.intra_node_gbps, 0.0)
    else:
        extra = np.zeros(workers.shape)
    full = inputs.full[jobs[..., 0], present.argmax(axis=-1)]
    gang = (present.sum(axis=-1) == 1) & (workers == inputs.scale_factor) & (full > 0)
    speed = counts[..., 0] * inputs.one_gpu[None, :, 0]
    for t in range(1, n_types):  # left to right, as the old sum over slices
        speed = speed + counts[..., t] * inputs.one_gpu[None, :, t]
    with np.errstate(divide="ignore", invalid="ignore"):
        proportional = inputs.scale_factor / (inputs.scale_factor / speed + measured + extra)
        whole = workers / (workers / full + extra)
        rate = np.where(gang, whole, proportional)
    return np.where(workers > 0, rate, 0.0)


CLUSTER = cluster(("v100", 2, 4, "r0"), ("v100", 1, 4, "r1"), ("k80", 2, 4, "r1"),
                  ("p100", 1, 8, "r2"))  # fmt: skip
TYPES = ["k80", "p100", "v100"]


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.booleans())
def test_compiled_step_rates_equal_the_vectorized_ones(seed: int, enabled: bool) -> None:
    """Random inputs (zeros where a job does not fit, a sync table per size) and counts."""
    rng = np.random.default_rng(seed)
    n_cat, n_jobs, width = (int(rng.integers(low, high)) for low, high in ((1, 5), (1, 8), (2, 10)))
    one_gpu = rng.random((n_jobs, 3)) * (rng.random((n_jobs, 3)) < 0.8)
    full = one_gpu * rng.uniform(1, 6, (n_jobs, 3)) * (rng.random((n_jobs, 3)) < 0.8)
    sync = rng.random((n_jobs, 3, width)) * 0.1 - 0.01
    scale_factor, gradient_bytes = rng.integers(1, width, n_jobs), rng.uniform(0, 1e9, n_jobs)
    inputs = JobInputs(one_gpu, full, sync, scale_factor, gradient_bytes)
    counts = rng.integers(0, 5, (n_cat, n_jobs, 3)) * (rng.random((n_cat, n_jobs, 3)) < 0.6)
    net = NetworkConfig(enabled=enabled, congestion=(CongestionEpisode(0.0, 10.0, 3.0),))
    links = link_model(CLUSTER, TYPES)
    bw = bandwidths(links, net, float(rng.integers(0, 20)))
    ours = step_rates(counts, inputs, links, bw, net)
    expected = numpy_step_rates(counts, inputs, links, bw, net)
    assert np.array_equal(ours, expected)  # bit for bit (NaN nowhere: zeros where no GPU)


def numpy_jcts(settled, others, current, inputs, links, bw, net, *tail):  # type: ignore[no-untyped-def]
    """The vectorized JCT estimate (old ``plan.score_categories`` and ``plan._rates``)."""
    lost_moved, lost_kept, remaining, ideal = tail
    counts = np.repeat(current[None], len(others), axis=0)
    counts[:, ~settled] = others
    rate = numpy_step_rates(counts, inputs, links, bw, net)
    moved = (counts != current[None]).any(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        jct = np.where(moved, lost_moved, lost_kept) + remaining / rate
    placed = rate > 0
    slowest = np.where(placed, jct, 0.0).max(axis=1, keepdims=True)
    return np.where(placed, jct, slowest + ideal)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_compiled_jcts_equal_the_vectorized_ones(seed: int) -> None:
    """Settled jobs keep their GPUs; the others' GPUs vary by category, some are left out."""
    from engine.policies.sampling.kernels_rates import jct_rows
    from engine.policies.sampling.model import model_arrays

    rng = np.random.default_rng(seed)
    n_cat, n_jobs, width = (int(rng.integers(low, high)) for low, high in ((1, 5), (1, 8), (2, 10)))
    one_gpu = rng.uniform(0.1, 2, (n_jobs, 3))
    full = one_gpu * rng.uniform(1, 6, (n_jobs, 3)) * (rng.random((n_jobs, 3)) < 0.8)
    sync = rng.random((n_jobs, 3, width)) * 0.1
    scale_factor, gradient_bytes = rng.integers(1, width, n_jobs), rng.uniform(0, 1e9, n_jobs)
    inputs = JobInputs(one_gpu, full, sync, scale_factor, gradient_bytes)
    current = rng.integers(0, 3, (n_jobs, 3)) * (rng.random((n_jobs, 1)) < 0.7)
    settled = (rng.random(n_jobs) < 0.5) & (current.sum(axis=1) > 0)
    others = rng.integers(0, 3, (n_cat, int((~settled).sum()), 3))
    others *= rng.random((n_cat, 1, 3)) < 0.7
    net = NetworkConfig(congestion=(CongestionEpisode(0.0, 10.0, 3.0),))
    links = link_model(CLUSTER, TYPES)
    bw = bandwidths(links, net, 5.0)
    lost_moved, lost_kept = rng.choice([0.0, 30.0], n_jobs), rng.choice([0.0, 12.5, 30.0], n_jobs)
    remaining, ideal = rng.uniform(0, 1e4, n_jobs), rng.uniform(0, 1e3, n_jobs)
    tail = (lost_moved, lost_kept, remaining, ideal)
    ours = jct_rows(settled, others, current, model_arrays(inputs, links, bw, net), *tail)
    expected = numpy_jcts(settled, others, current, inputs, links, bw, net, *tail)
    assert np.array_equal(ours, expected)
