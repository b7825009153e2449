"""Node failures, checkpoints and spare nodes (engine.faults) against closed forms and rules."""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config import (
    FAILURE_DISTRIBUTIONS,
    FailureConfig,
    NetworkConfig,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
    TypeMtbf,
)
from engine.errors import ConfigError
from engine.faults import checkpoint_time_s, since_checkpoint_s
from engine.metrics import failures_by_size
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from engine.validate import validate_config
from tests.engine.helpers import RESNET50, cluster, jobs_frame
from tests.engine.test_properties import _max_concurrent_gpus, scenarios

MATRIX = load_matrix()


def daly_expected_s(
    solve_s: float, interval_s: float, cost_s: float, restore_s: float, mtbf_s: float
) -> float:
    """Daly's expected wall time (FGCS 22(3), 2006, eq. 13 with no downtime) of ``solve_s``
    seconds of work in segments of ``interval_s`` each followed by a checkpoint of ``cost_s``,
    exponential failures of mean ``mtbf_s`` (also during restores), restore ``restore_s``:
    ``M e^(R/M) (e^((tau+delta)/M) - 1) T_s / tau``."""
    m = mtbf_s
    segments = solve_s / interval_s
    return m * math.exp(restore_s / m) * math.expm1((interval_s + cost_s) / m) * segments


def _one_job_runs(
    nodes: int, node_mtbf_h: float, cost_s: float, restore_s: float, solve_s: float,
    interval_s: float | None, seeds: range,
) -> np.ndarray:  # fmt: skip
    """JCTs of one job of ``solve_s`` seconds of work on every GPU of ``nodes`` one-GPU nodes,
    no network cost, instant repair, one failure seed per run."""
    rate = MATRIX.steps_per_s(RESNET50, "v100", nodes)
    jobs = jobs_frame(("a", 0, RESNET50, nodes, solve_s * rate))
    base = ScenarioConfig(
        cluster=cluster(("v100", nodes, 1, "r0")),
        network=NetworkConfig(enabled=False),
        rounds=RoundConfig(checkpoint_restore_s=restore_s),
    )
    jcts = []
    for seed in seeds:
        failures = FailureConfig(
            enabled=True, node_mtbf_h=node_mtbf_h, repair_h=0.0, checkpoint_cost_s=cost_s,
            checkpoint_interval_s=interval_s, seed=seed,
        )  # fmt: skip
        config = dataclasses.replace(base, failures=failures)
        result = simulate(jobs, config, PolicySpec("fifo"), MATRIX, record_segments=False,
                          decision_log=False)  # fmt: skip
        jcts.append(result.jobs.loc[0, "jct_s"])
    return np.array(jcts)


def test_daly_mean_completion_time_and_young_interval_is_fastest() -> None:
    """One job on 4 nodes failing at 1/(40 h) each (job MTBF M = 10 h), checkpoint cost 300 s,
    restore 600 s, instant repair. Young's interval tau_Y = sqrt(2 x 300 x 36,000) = 4,648 s;
    work 8 tau_Y (a whole number of segments for every interval tried). Over 1,000 failure
    seeds the mean JCT is within 3% of Daly's closed form at tau_Y/4, tau_Y/2, tau_Y, 2 tau_Y
    and 4 tau_Y, and tau_Y (the engine's own choice, interval None) is the fastest of them
    within two standard errors of the paired difference (the same seeds for every interval).
    Measured: -0.2%, -0.1%, -0.2%, -0.9% and -2.2% off the closed form (standard errors 0.1,
    0.2, 0.3, 0.5, 0.9%); on seeds 2,000-4,999, -0.03% to -0.3% (November 2026)."""
    nodes, node_mtbf_h, cost_s, restore_s = 4, 40.0, 300.0, 600.0
    job_mtbf_s = node_mtbf_h * 3600 / nodes
    young_s = math.sqrt(2 * cost_s * job_mtbf_s)
    solve_s = 8 * young_s
    seeds = range(1000)
    means: dict[float, float] = {}
    runs: dict[float, np.ndarray] = {}
    for factor in (0.25, 0.5, 1.0, 2.0, 4.0):
        interval = None if factor == 1.0 else factor * young_s
        jct = _one_job_runs(nodes, node_mtbf_h, cost_s, restore_s, solve_s, interval, seeds)
        expected = daly_expected_s(solve_s, factor * young_s, cost_s, restore_s, job_mtbf_s)
        assert jct.mean() == pytest.approx(expected, rel=0.03), factor
        means[factor], runs[factor] = jct.mean(), jct
    closed = {f: daly_expected_s(solve_s, f * young_s, cost_s, restore_s, job_mtbf_s)
              for f in means}  # fmt: skip
    assert min(closed, key=closed.__getitem__) == 1.0  # the closed form agrees
    for factor, jct in runs.items():
        if factor == 1.0:
            continue
        diff = jct - runs[1.0]  # paired: the same failure seeds
        standard_error = diff.std(ddof=1) / math.sqrt(len(diff))
        assert diff.mean() > -2 * standard_error, factor


def test_daly_without_failures_pays_only_the_checkpoints() -> None:
    """A node MTBF far beyond the run: wall time = work x (tau + delta) / tau exactly."""
    jct = _one_job_runs(2, 1e12, 50.0, 0.0, 4000.0, 1000.0, range(1))
    assert jct[0] == pytest.approx(4000.0 * 1050.0 / 1000.0, rel=1e-9)


def test_checkpoint_cycle_arithmetic() -> None:
    """Cycles of 100 s of work then 10 s of checkpoint: at 235 s two are done (220 s), 15 s
    since; at 215 s the second checkpoint is being written (105 s since the first)."""
    assert since_checkpoint_s(235.0, 100.0, 10.0) == pytest.approx(15.0)
    assert since_checkpoint_s(215.0, 100.0, 10.0) == pytest.approx(105.0)
    assert checkpoint_time_s(235.0, 100.0, 10.0) == pytest.approx(20.0)
    assert checkpoint_time_s(215.0, 100.0, 10.0) == pytest.approx(15.0)


def test_failure_loses_work_since_the_last_checkpoint_and_logs_why() -> None:
    """Two one-GPU nodes, job on both; node MTBF tiny for a seed that fails early, no
    checkpoint cost 0: the job's lost work, the failed segment and the log's "failed" row."""
    rate = MATRIX.steps_per_s(RESNET50, "v100", 2)
    jobs = jobs_frame(("a", 0, RESNET50, 2, 20_000 * rate))
    config = ScenarioConfig(
        cluster=cluster(("v100", 2, 1, "r0")),
        network=NetworkConfig(enabled=False),
        failures=FailureConfig(enabled=True, node_mtbf_h=2.0, repair_h=0.5,
                               checkpoint_interval_s=1000.0, checkpoint_cost_s=0.0, seed=3),
    )  # fmt: skip
    result = simulate(jobs, config, PolicySpec("fifo"), MATRIX)
    row = result.jobs.iloc[0]
    failed = result.segments[result.segments["end_reason"] == "failed"]
    assert row["num_failures"] == len(failed) > 0
    restore = config.rounds.checkpoint_restore_s
    lost_s = sum(
        (end - start - rs) % 1000.0 for start, end, rs in
        zip(failed["start_s"], failed["end_s"], failed["restore_s"], strict=True)
    )  # fmt: skip
    # lost work: time since each failed segment's last checkpoint, plus every restore after a
    # failure that finished before the next one (x 2 GPUs)
    restores = result.segments["restore_s"].iloc[1:].sum()
    assert row["lost_work_gpu_s"] == pytest.approx(2 * (lost_s + restores), rel=1e-9)
    assert restore > 0
    log = result.decisions
    assert log is not None
    rows = log[log["event"] == "failed"]
    assert len(rows) == len(failed)
    assert rows["detail"].str.contains(r"node n[01] failed; [\d,]+ s of work").all()
    # no GPU-time is lost beyond what the job held; goodput below 1
    assert result.summary["goodput"] < 1.0
    assert result.summary["job_failures_total"] == row["num_failures"]
    assert result.summary["node_failures"] >= row["num_failures"]  # (a failure of an idle node)


def test_failures_off_leaves_the_results_and_the_rng_alone() -> None:
    """FailureConfig() (off) gives the same tables as before the feature; turning failures
    on with a node MTBF far beyond the run and free checkpoints changes no JCT either."""
    jobs = jobs_frame(*[(f"j{i}", 100.0 * i, RESNET50, 1 + i % 2, 3000) for i in range(12)])
    base = ScenarioConfig(cluster=cluster(("v100", 2, 2, "r0"), ("k80", 2, 2, "r1")))
    far = dataclasses.replace(base, failures=FailureConfig(
        enabled=True, node_mtbf_h=1e15, checkpoint_cost_s=0.0))  # fmt: skip
    for policy in ("fifo", "las", "srtf"):
        off = simulate(jobs, base, PolicySpec(policy), MATRIX)
        on = simulate(jobs, far, PolicySpec(policy), MATRIX)
        assert off.jobs["jct_s"].tolist() == on.jobs["jct_s"].tolist()
        assert "goodput" not in off.summary and on.summary["goodput"] == 1.0


@pytest.mark.parametrize("policy", ["fifo", "las", "srtf"])
def test_every_job_completes_under_failures_spares_and_rack_failures(policy: str) -> None:
    """Frequent node and rack failures with a spare per type: every job completes once, no
    GPU is over-allocated (utilization <= 1), lost work is never negative."""
    sizes = (1, 2, 4)
    jobs = jobs_frame(*[(f"j{i}", 600.0 * i, RESNET50, sizes[i % 3], 40_000) for i in range(30)])
    config = ScenarioConfig(
        cluster=cluster(("v100", 3, 4, "r0"), ("k80", 3, 4, "r1")),
        failures=FailureConfig(enabled=True, node_mtbf_h=3.0, repair_h=1.0, rack_mtbf_h=20.0,
                               spares_per_type=1, spare_swap_s=300.0, seed=1),
    )  # fmt: skip
    result = simulate(jobs, config, PolicySpec(policy), MATRIX)
    assert result.jobs["completion_s"].notna().all()
    assert result.jobs["num_failures"].sum() > 0
    assert (result.jobs["lost_work_gpu_s"] >= 0).all()
    assert (result.utilization["busy_gpus"] <= result.utilization["capacity_gpus"] - 4).all()
    table = failures_by_size(result.jobs)
    assert table["jobs"].sum() == 30 and list(table["scale_factor"]) == [1, 2, 4]


def test_spares_shorten_the_wait_for_a_failed_node() -> None:
    """One job needing both nodes of a 3-node cluster (one of them a spare): a failure is
    repaired in 10 h without a spare and swapped in 10 min with one."""
    rate = MATRIX.steps_per_s(RESNET50, "v100", 2)
    jobs = jobs_frame(("a", 0, RESNET50, 2, 50_000 * rate))
    failures = FailureConfig(enabled=True, node_mtbf_h=10.0, repair_h=10.0, seed=5,
                             checkpoint_cost_s=0.0)  # fmt: skip
    two = ScenarioConfig(cluster=cluster(("v100", 2, 1, "r0")), failures=failures,
                         network=NetworkConfig(enabled=False))  # fmt: skip
    three = dataclasses.replace(
        two, cluster=cluster(("v100", 3, 1, "r0")),
        failures=dataclasses.replace(failures, spares_per_type=1),
    )  # fmt: skip
    without = simulate(jobs, two, PolicySpec("fifo"), MATRIX).jobs.iloc[0]
    with_spare = simulate(jobs, three, PolicySpec("fifo"), MATRIX).jobs.iloc[0]
    assert without["num_failures"] > 0 and with_spare["num_failures"] > 0
    assert with_spare["jct_s"] < without["jct_s"]


@pytest.mark.parametrize(
    ("failures", "field"),
    [
        (FailureConfig(enabled=True, node_mtbf_h=-5.0), "failures.node_mtbf_h"),
        (FailureConfig(enabled=True, checkpoint_interval_s=0.0), "failures.checkpoint_interval_s"),
        (FailureConfig(enabled=True, spares_per_type=2), "failures.spares_per_type"),
        (FailureConfig(enabled=True, repair_h=-1.0), "failures.repair_h"),
        (FailureConfig(enabled=True, distribution="lognormal"), "failures.distribution"),
        (FailureConfig(enabled=True, seed=-1), "failures.seed"),
        (
            FailureConfig(enabled=True, type_mtbf=(TypeMtbf("v100", 10.0), TypeMtbf("v100", 20.0))),
            "failures.type_mtbf[1].worker_type",
        ),
        (
            FailureConfig(enabled=True, type_mtbf=(TypeMtbf("a100", 10.0),)),
            "failures.type_mtbf[0].worker_type",
        ),
        (
            FailureConfig(enabled=True, type_mtbf=(TypeMtbf("v100", -3.0),)),
            "failures.type_mtbf[0].node_mtbf_h",
        ),
    ],
)
def test_bad_failure_settings_name_the_field(failures: FailureConfig, field: str) -> None:
    config = ScenarioConfig(cluster=cluster(("v100", 2, 4, "r0")), failures=failures,
                            policies=(PolicySpec("fifo"),))  # fmt: skip
    with pytest.raises(ConfigError, match=re.escape(field)):
        validate_config(config, MATRIX)


def test_a_policy_without_failure_handling_is_refused_by_name() -> None:
    config = ScenarioConfig(failures=FailureConfig(enabled=True),
                            policies=(PolicySpec("gavel_maxmin"),))  # fmt: skip
    with pytest.raises(ConfigError, match="does not model failed nodes"):
        validate_config(config, MATRIX)


def test_a_job_that_fits_only_with_the_spares_is_refused() -> None:
    """Two 4-GPU nodes, one a spare: a 8-GPU job could never start (it would wait forever)."""
    jobs = jobs_frame(("big", 0, RESNET50, 8, 1000))
    config = ScenarioConfig(cluster=cluster(("v100", 2, 4, "r0")),
                            failures=FailureConfig(enabled=True, spares_per_type=1))  # fmt: skip
    with pytest.raises(ConfigError, match=r"failures\.spares_per_type: job big needs 8 GPUs"):
        simulate(jobs, config, PolicySpec("fifo"), MATRIX)


@pytest.mark.parametrize("distribution", ["exponential", "weibull"])
def test_first_failure_times_have_the_configured_mean(distribution: str) -> None:
    """4,000 nodes' first times to failure average the node MTBF (100 h) within 5% (the
    Weibull scaled by 1 / Gamma(1 + 1/k), k = 0.7), and are drawn the same for the same seed."""
    from engine.allocation.layout import NodeLayout
    from engine.faults import FAIL, FaultModel

    layout = NodeLayout.of(cluster(("v100", 4000, 8, "r0")))
    failures = FailureConfig(enabled=True, node_mtbf_h=100.0, distribution=distribution)

    def first_failures(seed: int) -> list[float]:
        model = FaultModel(failures, layout, seed)
        times = []
        while model.next_s < float("inf"):
            at_s = model.next_s
            kind, node, _ = model.pop()
            assert kind == FAIL and node >= 0
            times.append(at_s)
        return times

    times = first_failures(7)
    assert len(times) == 4000
    assert np.mean(times) == pytest.approx(100.0 * 3600, rel=0.05)
    assert first_failures(7) == times and first_failures(8) != times


@pytest.mark.parametrize("policy", ["fifo", "las", "srtf"])
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=scenarios(), failure=st.tuples(
    st.floats(0.2, 5.0), st.sampled_from([0.0, 0.5, 2.0]), st.sampled_from([0.0, 3.0]),
    st.sampled_from(FAILURE_DISTRIBUTIONS), st.sampled_from([None, 120.0]),
    st.integers(0, 5),
))  # fmt: skip
def test_invariants_hold_under_failures(
    policy: str, data: tuple[pd.DataFrame, ScenarioConfig],
    failure: tuple[float, float, float, str, float | None, int],
) -> None:  # fmt: skip
    """Random small clusters, traces and failure settings: every job completes exactly once,
    no worker type has more GPUs held at once than it has, a failed segment ends where the
    job's failure count says, and the same scenario gives the same tables."""
    jobs, config = data
    mtbf_h, repair_h, rack_mtbf_h, distribution, interval_s, seed = failure
    config = dataclasses.replace(config, failures=FailureConfig(
        enabled=True, node_mtbf_h=mtbf_h, repair_h=repair_h, rack_mtbf_h=rack_mtbf_h,
        distribution=distribution, checkpoint_interval_s=interval_s, checkpoint_cost_s=30.0,
        seed=seed,
    ))  # fmt: skip
    result = simulate(jobs, config, PolicySpec(policy), MATRIX)
    capacity = config.cluster.capacity()
    for worker_type, peak in _max_concurrent_gpus(result.segments).items():
        assert peak <= capacity[worker_type]
    completed = result.segments[result.segments["end_reason"] == "completed"]
    assert sorted(completed["job_id"]) == sorted(jobs["job_id"])
    assert result.jobs["completion_s"].notna().all()
    failed = result.segments[result.segments["end_reason"] == "failed"].groupby("job_id").size()
    counts = result.jobs.set_index("job_id")["num_failures"]
    assert (counts[counts > 0] == failed.reindex(counts[counts > 0].index)).all()
    assert (result.jobs["lost_work_gpu_s"] >= 0).all()
    assert 0 <= result.summary["goodput"] <= 1
    again = simulate(jobs, config, PolicySpec(policy), MATRIX)
    pd.testing.assert_frame_equal(result.jobs, again.jobs)


def test_a_node_fails_at_the_same_times_whatever_the_spares() -> None:
    """Common random numbers: each node draws from its own stream, so holding the last node
    of each type as a spare leaves the other nodes' first failures where they were."""
    from engine.allocation.layout import NodeLayout
    from engine.faults import FaultModel

    layout = NodeLayout.of(cluster(("v100", 4, 8, "r0"), ("k80", 4, 8, "r1")))

    def first_failure_by_node(spares: int) -> dict[int, float]:
        model = FaultModel(FailureConfig(enabled=True, spares_per_type=spares), layout, 3)
        times = {}
        while model.next_s < float("inf"):
            at_s = model.next_s
            times[model.pop()[1]] = at_s
        return times

    without, with_spares = first_failure_by_node(0), first_failure_by_node(1)
    assert sorted(with_spares) == [0, 1, 2, 4, 5, 6]  # nodes 3 and 7 are the spares
    assert all(with_spares[node] == without[node] for node in with_spares)


def test_a_checkpoint_cycle_far_beyond_the_job_mtbf_is_refused() -> None:
    """Node MTBF 0.1 h on 4 one-GPU nodes: the 4-GPU job fails every 90 s; a 2-hour interval
    would need about e^80 attempts per checkpoint, so the run is refused up front."""
    jobs = jobs_frame(("wide", 0, RESNET50, 4, 1000))
    config = ScenarioConfig(cluster=cluster(("v100", 4, 1, "r0")), failures=FailureConfig(
        enabled=True, node_mtbf_h=0.1, checkpoint_interval_s=7200.0))  # fmt: skip
    with pytest.raises(ConfigError, match=r"failures\.checkpoint_interval_s: job wide fails"):
        simulate(jobs, config, PolicySpec("fifo"), MATRIX)
