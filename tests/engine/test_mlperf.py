"""The ``mlperf`` throughput matrix, hand-computed from `engine/data/mlperf_training_times.csv`."""

from __future__ import annotations

import csv
import math
import statistics

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.config import (
    JobClass,
    LLMMixSpec,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.errors import ConfigError, OversizedJobsError, TraceError
from engine.mlperf import MLPERF_CSV, points
from engine.scenario import run_scenario, scenario_matrix
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from engine.study.cost import price_source, prices_with_defaults
from engine.traces.llm_mix import generate_llm_mix
from engine.traces.resolve import trace_rng
from engine.traces.rules import draw_job_types, job_types_of_size
from tests.engine.helpers import cluster, jobs_frame

MATRIX = load_matrix("mlperf")
BEST = load_matrix("mlperf-best")


def _file_times(benchmark: str, accelerator: str, count: int) -> dict[str, float]:
    """Each submitter's best time_to_train_s in the CSV (rows that count: available, not a
    re-submission), read with the csv module, not the engine's code."""
    best: dict[str, float] = {}
    with MLPERF_CSV.open(newline="") as f:
        for row in csv.DictReader(f):
            if (
                row["benchmark_family"] == benchmark
                and row["accelerator_class"] == accelerator
                and int(row["accelerators"]) == count
                and row["status"] == "available"
                and not row["same_logs_as"]
            ):
                t = float(row["time_to_train_s"])
                best[row["submitter"]] = min(t, best.get(row["submitter"], math.inf))
    return best


def test_lone_llama2_lora_job_on_an_idle_8xh100_node_takes_the_time_to_train() -> None:
    """10 submitters ran llama2_70b_lora on 8 H100-SXM (best each: 1675.70, 1741.33, 1759.45,
    1764.04, 1778.46, 1781.99, 1827.04, 1831.03, 1896.68, 6965.20 s); the typical time is their
    median, (1778.46 + 1781.99) / 2 = 1780.225 s. One run of work: JCT = 1780.225 s."""
    times = _file_times("llama2_70b_lora", "H100-SXM", 8)
    assert len(times) == 10
    expected_s = statistics.median(times.values())
    assert expected_s == pytest.approx(1780.225)
    config = ScenarioConfig(cluster=cluster(("H100-SXM", 1, 8, "r0")), throughputs="mlperf")
    jobs = jobs_frame(("ft", 0, "llama2_70b_lora", 8, 1.0))
    result = simulate(jobs, config, PolicySpec("fifo"), scenario_matrix(config))
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(expected_s, rel=1e-9)


def test_h100_over_a100_on_bert_at_8_gpus_is_the_files_ratio() -> None:
    """Best rows: A100-SXM-80GB 945.12 s (v3.0 Dell), H100-SXM 318.34 s (v4.0 Supermicro):
    2.97x, the README's ratio; typical: medians 1012.93 / 324.245 = 3.12x."""
    a100, h100 = _file_times("bert", "A100-SXM-80GB", 8), _file_times("bert", "H100-SXM", 8)
    best_ratio = min(a100.values()) / min(h100.values())
    assert round(best_ratio, 2) == 2.97
    got = BEST.steps_per_s("bert", "H100-SXM", 8) / BEST.steps_per_s("bert", "A100-SXM-80GB", 8)
    assert got == pytest.approx(best_ratio, rel=1e-12)
    typical = statistics.median(a100.values()) / statistics.median(h100.values())
    got = MATRIX.steps_per_s("bert", "H100-SXM", 8) / MATRIX.steps_per_s("bert", "A100-SXM-80GB", 8)
    assert got == pytest.approx(typical, rel=1e-12)


def test_interpolation_between_two_measured_counts_is_log_log() -> None:
    """H200-SXM llama2_70b_lora: medians 797.04 s at 16 GPUs and 416.66 s at 32. At 24 GPUs the
    power law through both gives T(24) = 797.04 x (416.66 / 797.04) ** (log(24/16) / log 2)."""
    t16 = statistics.median(_file_times("llama2_70b_lora", "H200-SXM", 16).values())
    t32 = statistics.median(_file_times("llama2_70b_lora", "H200-SXM", 32).values())
    assert (t16, t32) == (797.04, 416.66)
    expected_s = t16 * (t32 / t16) ** (math.log(24 / 16) / math.log(2))
    assert 1 / MATRIX.steps_per_s("llama2_70b_lora", "H200-SXM", 24) == pytest.approx(expected_s)
    assert t32 < expected_s < t16


def test_outside_the_measured_counts_the_nearest_per_gpu_rate_holds() -> None:
    """H200-SXM llama2_70b_lora is measured from 8 to 512 GPUs: 4 GPUs take twice the 8-GPU
    time; 1,024 GPUs half the 512-GPU time."""
    at = {n: MATRIX.steps_per_s("llama2_70b_lora", "H200-SXM", n) for n in (4, 8, 512, 1024)}
    assert at[4] == pytest.approx(at[8] / 2)
    assert at[1024] == pytest.approx(at[512] * 2)


def test_a_larger_count_is_never_slower() -> None:
    """H100-SXM llama2_70b_lora: one submitter's 32-GPU time (2,687 s) is slower than the 16-GPU
    median (1,185 s); the 16-GPU rate holds at 32 and the table says so."""
    frame = points("typical")
    row = frame[
        (frame["job_type"] == "llama2_70b_lora")
        & (frame["worker_type"] == "H100-SXM")
        & (frame["accelerators"] == 32)
    ].iloc[0]
    assert row["held_from"] == 16
    for (_, _), group in frame.groupby(["job_type", "worker_type"]):
        assert group["runs_per_s"].is_monotonic_increasing
    sizes = [1, 2, 4, 8, 12, 16, 24, 32, 48, 64, 100, 128, 512, 1024, 4096]
    for jt in MATRIX.job_types:
        for wt in MATRIX.worker_types:
            rates = [MATRIX.steps_per_s(jt, wt, n) for n in sizes]
            assert rates == sorted(rates), (jt, wt)


def test_no_result_means_not_runnable_and_a_job_there_is_refused_naming_both() -> None:
    """MI300X has llama2_70b_lora only (tinycorp's tinygrad BERT does not count): a BERT job on
    an all-MI300X cluster is refused, and the message names the job type and MI300X."""
    assert MATRIX.steps_per_s("bert", "MI300X", 8) == 0.0
    assert MATRIX.fits("llama2_70b_lora", "MI300X")
    config = ScenarioConfig(
        cluster=cluster(("MI300X", 2, 8, "r0")),
        throughputs="mlperf",
        trace=TraceSpec(source="synthetic"),
    )
    jobs = jobs_frame(("b", 0, "bert", 8, 1.0))
    from engine.traces.cluster_fit import check_cluster_fit

    with pytest.raises(OversizedJobsError, match=r"'bert'.*no throughput on MI300X"):
        check_cluster_fit(jobs, config.cluster, scenario_matrix(config), False)


def test_names_ignore_case() -> None:
    assert MATRIX.steps_per_s("LLAMA2_70B_LORA", "h100-sxm", 8) == MATRIX.steps_per_s(
        "llama2_70b_lora", "H100-SXM", 8
    )
    config = ScenarioConfig(cluster=cluster(("h100-sxm", 1, 8, "r0")), throughputs="mlperf")
    jobs = jobs_frame(("ft", 0, "llama2_70b_lora", 8, 1.0))
    result = simulate(jobs, config, PolicySpec("fifo"), scenario_matrix(config))
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(1780.225)


def test_network_charges_nothing_on_top_of_mlperf_multi_node_times() -> None:
    """A 64-GPU job over 8 nodes in two racks, cross-rack links 1 Gb/s: MLPerf's 64-GPU time
    already holds the run's communication, so the JCT is the time-to-train."""
    config = ScenarioConfig(
        cluster=cluster(("H100-SXM", 4, 8, "r0"), ("H100-SXM", 4, 8, "r1")),
        throughputs="mlperf",
    )
    config = ScenarioConfig(
        cluster=config.cluster, throughputs="mlperf",
        network=type(config.network)(cross_rack_gbps=1.0, intra_rack_gbps=1.0),
    )  # fmt: skip
    jobs = jobs_frame(("ft", 0, "llama2_70b_lora", 64, 1.0))
    result = simulate(jobs, config, PolicySpec("fifo"), scenario_matrix(config))
    expected_s = 1 / MATRIX.steps_per_s("llama2_70b_lora", "H100-SXM", 64)
    assert result.jobs.loc[0, "jct_s"] == pytest.approx(expected_s, rel=1e-9)


def test_gavel_stays_the_default_matrix() -> None:
    assert ScenarioConfig().throughputs == "gavel"
    assert load_matrix() is load_matrix("gavel")
    assert load_matrix().name == "gavel" and load_matrix().interpolation == "gavel"


def test_trace_jobs_map_onto_benchmarks_by_gpu_count() -> None:
    sizes = np.array([1, 4, 8, 16, 64, 256, 1024])
    drawn = draw_job_types(sizes, MATRIX, "H100-SXM", np.random.default_rng(0), "t.csv")
    for n, jt in zip(sizes.tolist(), drawn, strict=True):
        assert jt in job_types_of_size(MATRIX, n)
    assert "llama31_405b" in job_types_of_size(MATRIX, 512) and "bert" in job_types_of_size(
        MATRIX, 8
    )


def test_llm_mix_follows_its_classes_and_the_daily_cycle() -> None:
    spec = SyntheticSpec(num_jobs=3000, jobs_per_hour=10.0, workload="llm")
    jobs = generate_llm_mix(spec, MATRIX, trace_rng(0))
    sizes = jobs["scale_factor"]
    assert set(sizes) <= {1, 2, 4, 8, 16, 32, 64, 256, 512}
    assert (sizes >= 256).mean() == pytest.approx(0.03, abs=0.01)
    hours = (jobs["arrival_s"] % 86_400) // 3600
    peak, trough = (hours == 14).mean(), (hours == 2).mean()
    assert peak > 2 * trough  # rate (1 + 0.5) / (1 - 0.5) = 3x at the extremes
    # work: duration on H100 x runs/s there, so the job runs its drawn duration alone on H100
    row = jobs.iloc[0]
    rate = MATRIX.steps_per_s(row["job_type"], "H100-SXM", int(row["scale_factor"]))
    assert row["total_steps"] == pytest.approx(row["duration_s"] * rate)


def test_llm_mix_rejects_a_class_with_no_runnable_type() -> None:
    mix = LLMMixSpec(classes=(JobClass("x", 1.0, 8, 8, "bert", 1.0, 2.0),),
                     reference_worker_type="MI300X")  # fmt: skip
    spec = SyntheticSpec(num_jobs=5, workload="llm", llm=mix)
    with pytest.raises(ConfigError, match=r"classes\[1\].*bert.*MI300X"):
        generate_llm_mix(spec, MATRIX, trace_rng(0))


def test_prices_have_a_source_and_date_or_say_there_is_none() -> None:
    prices = prices_with_defaults(None)
    assert prices["H100-SXM"] == 4.916 and prices["v100"] == 0.74
    assert "2025-01-01" in price_source("H100-SXM")
    assert "B200" not in prices and "no citable" in price_source("B200")


def test_2026_scenario_runs_fifo_las_and_gavel_max_min() -> None:
    from engine.presets import cluster_2026_scenario

    config = cluster_2026_scenario()
    assert config.throughputs == "mlperf"
    assert {g.worker_type for g in config.cluster.node_groups} == {"H100-SXM", "B200"}
    result = run_scenario(config)
    assert [r.summary["jobs_completed"] for r in result.results] == [
        config.trace.synthetic.num_jobs
    ] * len(config.policies)


def test_philly_sample_on_mlperf_maps_jobs_by_gpu_count_and_keeps_durations() -> None:
    """The Philly sample records no models: each job's benchmark comes from its GPU count's
    class, and its work is its duration on the assumed H100-SXM (rules 1 and 3)."""
    from engine.traces.resolve import draw_trace

    spec = TraceSpec(source="sample:philly_2000.csv", assumed_worker_type="H100-SXM")
    jobs = draw_trace(spec, MATRIX, 0).jobs
    for n, jt in zip(jobs["scale_factor"], jobs["job_type"], strict=True):
        assert jt in job_types_of_size(MATRIX, int(n))
    row = jobs.iloc[0]
    rate = MATRIX.steps_per_s(row["job_type"], "H100-SXM", int(row["scale_factor"]))
    assert row["total_steps"] == pytest.approx(row["duration_s"] * rate)


@given(
    st.dictionaries(st.integers(1, 4096), st.floats(1e-6, 1.0), min_size=1, max_size=6),
    st.integers(1, 8192),
    st.integers(1, 8192),
)
def test_loglog_rule_is_monotone_and_passes_through_the_measurements(
    rates: dict[int, float], a: int, b: int
) -> None:
    """For any measurements made monotone (running maximum over sizes), the rule is monotone in
    the size and returns each measurement at its size."""
    from engine.step_time.throughput import loglog_steps_per_s

    best, measured = 0.0, {}
    for n in sorted(rates):
        best = max(best, rates[n])
        measured[n] = best
    lo, hi = sorted((a, b))
    assert loglog_steps_per_s(measured, lo) <= loglog_steps_per_s(measured, hi) * (1 + 1e-12)
    for n, rate in measured.items():
        assert loglog_steps_per_s(measured, n) == pytest.approx(rate)


def test_a_mix_class_whose_job_type_does_not_run_on_the_reference_names_row_and_setting() -> None:
    """The generated trace's work goes through the importers' rule 3 (steps_from_duration), so a
    class whose job type does not fit the reference GPU type at its size is refused naming the
    row, the column and the setting to change (before: "total steps must be > 0")."""
    gavel = load_matrix("gavel")
    job_type = "ResNet-50 (batch size 128)"
    assert gavel.steps_per_s(job_type, "k80", 8) <= 0
    mix = LLMMixSpec(
        classes=(JobClass("x", 1.0, 8, 8, job_type, 1.0, 2.0),), reference_worker_type="k80"
    )
    spec = SyntheticSpec(num_jobs=3, workload="llm", llm=mix)
    with pytest.raises(TraceError, match=r"row 1, column 'job_type'.*reference GPU type"):
        generate_llm_mix(spec, gavel, trace_rng(0))
