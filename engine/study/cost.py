"""Cost: a price per GPU-hour per worker type, and the cost KPIs of a run.

Default prices (USD per GPU-hour) are the ones Gavel's code carries for GCP, in
``scheduler/utils.py`` ``read_per_instance_type_spot_prices_json`` of
https://github.com/stanford-futuredata/gavel (commit c4fa400, January 2022; read in
``/work/.mirror``): v100 0.74, p100 0.43, k80 0.135. The function reads spot prices, so these
are GCP's preemptible GPU prices of that time, GPU only (no host VM). For the ``mlperf`` matrix,
H100-SXM, H200-SXM and A100-SXM-40GB carry AWS's public Capacity Blocks list price (per GPU,
host included; :data:`MLPERF_PRICES_USD_PER_GPU_H`). Any other worker type has no default: the
user enters it (its cost KPIs are NaN until then; :func:`price_source` says so).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from engine.config import ClusterSpec
from engine.metrics import Metric

DEFAULT_PRICES_USD_PER_GPU_H: Mapping[str, float] = {"v100": 0.74, "p100": 0.43, "k80": 0.135}

AWS_CAPACITY_BLOCKS = (
    "AWS EC2 Capacity Blocks for ML price list (aws.amazon.com/ec2/capacityblocks/pricing), "
    "effective accelerator hourly rate, US East, rates in force until 2025-01-01; "
    "a reservation price, GPU with its host"
)
MLPERF_PRICES_USD_PER_GPU_H: Mapping[str, float] = {
    "H100-SXM": 4.916,  # p5.48xlarge, 8 x H100, $39.33/h, US East (N. Virginia)
    "H200-SXM": 5.408,  # p5e.48xlarge, 8 x H200, $43.26/h, US East (Ohio)
    "A100-SXM-40GB": 1.844,  # p4d.24xlarge, 8 x A100 40 GB, $14.75/h, US East (Ohio)
}
"""Prices of the ``mlperf`` matrix's worker types with a citable public list price (USD per
GPU-hour; source and date in :data:`PRICE_SOURCES`). B200, MI300X and the other MLPerf types have
none we could cite: the user enters it, and the dashboard says so."""

PRICE_SOURCES: Mapping[str, str] = {
    **{wt: "GCP preemptible GPU price in Gavel's code (c4fa400, January 2022)"
       for wt in DEFAULT_PRICES_USD_PER_GPU_H},
    **{wt: AWS_CAPACITY_BLOCKS for wt in MLPERF_PRICES_USD_PER_GPU_H},
}  # fmt: skip
"""Where each default price comes from, with its date."""


def price_source(worker_type: str) -> str:
    """The source and date of ``worker_type``'s default price, or a sentence saying there is
    none to cite (the user's number is then required)."""
    return PRICE_SOURCES.get(
        worker_type, "no citable public price found: enter your own (USD per GPU-hour)"
    )


COST_KPIS = ("cluster_cost_usd_per_h", "work_cost_usd", "cost_per_job_usd", "makespan_cost_usd")


def prices_with_defaults(prices: Mapping[str, float] | None) -> dict[str, float]:
    """The defaults (Gavel's and the MLPerf types' cited prices), overridden by ``prices``
    (worker type -> USD per GPU-hour)."""
    return {**DEFAULT_PRICES_USD_PER_GPU_H, **MLPERF_PRICES_USD_PER_GPU_H, **(prices or {})}


def cluster_cost_usd_per_h(cluster: ClusterSpec, prices: Mapping[str, float]) -> float:
    """Sum over worker types of GPUs x price; NaN if a type of the mix has no price."""
    return sum(
        gpus * prices.get(worker_type, math.nan) for worker_type, gpus in cluster.capacity().items()
    )


def cost_kpis(summary: Mapping[str, float], prices: Mapping[str, float]) -> dict[str, float]:
    """The cost KPIs of one run from its summary (see `engine.results.RunResult`).

    - ``cluster_cost_usd_per_h``: the GPU mix's price per hour (``capacity_gpus:<type>``).
    - ``work_cost_usd``: GPU-hours allocated to jobs x price, summed over types (``gpu_h:<type>``;
      checkpoint-restore time counts, idle GPUs do not).
    - ``cost_per_job_usd``: work cost / jobs completed.
    - ``makespan_cost_usd``: the whole cluster rented for the makespan (idle GPUs included).

    A worker type without a price makes the KPIs that need it NaN.
    """
    capacity = {k.split(":", 1)[1]: v for k, v in summary.items() if k.startswith("capacity_gpus:")}
    used = {k.split(":", 1)[1]: v for k, v in summary.items() if k.startswith("gpu_h:")}
    per_h = sum(gpus * prices.get(wt, math.nan) for wt, gpus in capacity.items())
    work = sum(gpu_h * prices.get(wt, math.nan) for wt, gpu_h in used.items())
    done = summary.get("jobs_completed", 0.0)
    return {
        "cluster_cost_usd_per_h": per_h,
        "work_cost_usd": work,
        "cost_per_job_usd": work / done if done else math.nan,
        "makespan_cost_usd": per_h * summary.get("makespan_s", math.nan) / 3600.0,
    }


COST_METRICS: Mapping[str, Metric] = {
    "cluster_cost_usd_per_h": Metric("Cluster cost", "USD/h", True),
    "work_cost_usd": Metric("Work cost", "USD", True),
    "cost_per_job_usd": Metric("Work cost per completed job", "USD", True),
    "makespan_cost_usd": Metric("Cluster cost over the makespan", "USD", True),
}
"""How each of :data:`COST_KPIS` reads (label, unit, lower is better), as `engine.metrics.METRICS`
describes the simulation's KPIs."""
