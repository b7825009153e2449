"""Gavel's ECOS programs: the matrices built from entries are the ones scipy.sparse stacking
built (same values, zeros and signs, row indices and column starts), and ECOS gives the same
point on them (issue 11: the stacking was most of a finish-time fairness solve)."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
import scipy.sparse as sp

from engine.errors import EngineError
from engine.policies.gavel import ecos as gavel_ecos


def _base(scale_factors: np.ndarray, capacity: np.ndarray) -> sp.csr_matrix:
    """The base rows as stacked before (commit 904c31c)."""
    n, num_types = scale_factors.size, capacity.size
    m = n * num_types
    pairs = np.arange(m)
    job_of, type_of = pairs // num_types, pairs % num_types
    nonnegative = -sp.identity(m, format="csr")
    room = sp.csr_matrix((scale_factors[job_of], (type_of, pairs)), shape=(num_types, m))
    time = sp.csr_matrix((np.ones(m), (job_of, pairs)), shape=(n, m))
    return sp.vstack([nonnegative, room, time], format="csr")


def _stacked_max_min(coefficients: np.ndarray, scale_factors: np.ndarray, capacity: np.ndarray):  # type: ignore[no-untyped-def]
    n, num_types = coefficients.shape
    m = n * num_types
    base = _base(scale_factors, capacity)
    pairs = np.arange(m)
    fairness = sp.hstack(
        [
            sp.csr_matrix((-coefficients.ravel(), (pairs // num_types, pairs)), shape=(n, m)),
            sp.csr_matrix(np.ones((n, 1))),
        ]
    )
    return sp.vstack([fairness, sp.hstack([base, sp.csr_matrix((base.shape[0], 1))])])


def _stacked_feasible(throughputs: np.ndarray, scale_factors: np.ndarray, capacity: np.ndarray):  # type: ignore[no-untyped-def]
    n, num_types = throughputs.shape
    m = n * num_types
    pairs = np.arange(m)
    demand = sp.csr_matrix((-throughputs.ravel(), (pairs // num_types, pairs)), shape=(n, m))
    return sp.vstack([_base(scale_factors, capacity), demand])


def _stacked_ftf(  # type: ignore[no-untyped-def]
    throughputs: np.ndarray,
    scale_factors: np.ndarray,
    capacity: np.ndarray,
    remaining_steps: np.ndarray,
    isolated_s: np.ndarray,
):
    n, num_types = throughputs.shape
    m = n * num_types
    base = _base(scale_factors, capacity)
    pairs = np.arange(m)
    jobs = np.arange(n)
    rate = sp.csr_matrix((throughputs.ravel(), (pairs // num_types, pairs)), shape=(n, m))
    w = sp.identity(n, format="csr")
    zero_n, zero_1 = sp.csr_matrix((n, n)), sp.csr_matrix((n, 1))
    ratio = sp.hstack(
        [sp.csr_matrix((n, m)), sp.diags(remaining_steps / isolated_s), -np.ones((n, 1))]
    )
    linear = sp.vstack([sp.hstack([base, sp.csr_matrix((base.shape[0], n + 1))]), ratio])
    cone_rows = []
    for sign_w, block in ((1.0, rate), (0.0, None), (-1.0, rate)):
        part = sp.csr_matrix((n, m)) if block is None else -block
        cone_rows.append(sp.hstack([part, -sign_w * w if sign_w else zero_n, zero_1]))
    order = np.ravel(np.column_stack([jobs, n + jobs, 2 * n + jobs]))
    cones = sp.vstack(cone_rows, format="csr")[order]
    return sp.vstack([linear, cones])


def _case(seed: int) -> dict[str, np.ndarray]:
    """Random inputs with the awkward values: pairs where a job does not run (0), finished
    jobs (0 steps left), an infinite isolated time."""
    rng = np.random.default_rng(seed)
    n, num_types = int(rng.integers(1, 9)), int(rng.integers(1, 4))
    tput = rng.uniform(0.5, 4.0, (n, num_types)) * (rng.random((n, num_types)) < 0.7)
    remaining = rng.choice([0.0, 50.0, 1e4, 3e5], n)
    isolated = rng.choice([np.inf, 100.0, 5e3], n)
    return {
        "tput": tput,
        "sfs": rng.choice([1.0, 2.0, 4.0], n),
        "capacity": rng.choice([2.0, 4.0, 8.0], num_types),
        "remaining": remaining,
        "isolated": isolated,
        "elapsed": rng.uniform(0.0, 1e4, n),
    }


def _captured(monkeypatch: pytest.MonkeyPatch) -> list[sp.csc_matrix]:
    """The matrices handed to ECOS, recorded."""
    seen: list[sp.csc_matrix] = []
    real = gavel_ecos.solve

    def recording(objective, rows, rhs, cones=None, accept_inaccurate=False):  # type: ignore[no-untyped-def]
        seen.append(rows)
        return real(objective, rows, rhs, cones, accept_inaccurate)

    monkeypatch.setattr(gavel_ecos, "solve", recording)
    return seen


def _same(built: sp.csc_matrix, stacked: sp.spmatrix) -> None:
    reference = sp.csc_matrix(stacked)
    assert built.shape == reference.shape
    assert np.array_equal(built.indptr, reference.indptr)
    assert np.array_equal(built.indices, reference.indices)
    assert np.array_equal(built.data, reference.data)
    assert np.array_equal(np.signbit(built.data), np.signbit(reference.data))  # -0.0 stays


@pytest.mark.parametrize("seed", range(40))
def test_ecos_matrices_are_the_stacked_blocks(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    c = _case(seed)
    seen = _captured(monkeypatch)
    coefficients = gavel_ecos.max_min_coefficients_all_pairs(
        c["tput"], c["sfs"], np.ones(c["sfs"].size), c["capacity"], True
    )
    with contextlib.suppress(EngineError):  # the matrix is recorded before ECOS answers
        gavel_ecos.max_min_shares(coefficients, c["sfs"], c["capacity"])
    _same(seen[-1], _stacked_max_min(coefficients, c["sfs"], c["capacity"]))
    gavel_ecos.feasible_shares(c["tput"], c["sfs"], c["capacity"], c["remaining"] + 1.0, 1e4)
    _same(seen[-1], _stacked_feasible(c["tput"], c["sfs"], c["capacity"]))
    gavel_ecos.finish_time_fairness_shares(
        c["tput"], c["sfs"], c["capacity"], c["elapsed"], c["remaining"], c["isolated"]
    )
    expected = _stacked_ftf(c["tput"], c["sfs"], c["capacity"], c["remaining"], c["isolated"])
    _same(seen[-1], expected)
