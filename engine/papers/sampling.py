"""Paper preset: sampling-based multi-job placement (TPDS 2024), sampled vs exact vs equal split.

Claims, from the abstract (Liu, Wang, Huang, Pan, IEEE TPDS 35(6), 2024): the sampling-based
scheme's JCT is within 2.04% of the optimal (exact) one, with orders-of-magnitude shorter
algorithm running time. The baseline that divides the GPUs evenly among the jobs is the
paper's (shared/docs/schedulers.md, section A); the abstract gives no figure against it.
"""

from __future__ import annotations

from engine.config import (
    PolicySpec,
    ScenarioConfig,
)
from engine.papers.base import (
    DECISION_TIME,
    PAPERS,
    Claim,
    PaperPreset,
    synthetic_trace,
    three_type_cluster,
)

SAMPLED = "Sampled"
EXACT = "Exact"
EQUAL = "Equal split"
WITHIN = 0.0204
"""The abstract's "within 2.04% of the optimal JCT"."""


def build(seed: int) -> ScenarioConfig:
    """24 GPUs of three types, 60 synthetic jobs at 1 job/hour (Gavel's job mix).

    Small enough that exact mode enumerates every category at every decision (at most a few
    tens of thousands here, under the policy's 100,000 limit).
    """
    return ScenarioConfig(
        trace=synthetic_trace(60, 1.0),
        cluster=three_type_cluster(),
        policies=(
            PolicySpec("sampling_placement", {"mode": "sampled"}, label=SAMPLED),
            PolicySpec("sampling_placement_exact", label=EXACT),
            PolicySpec("sampling_placement_equal_split", label=EQUAL),
        ),
        seed=seed,
    )


CLAIMS = (
    Claim(
        f"Mean JCT within {100 * WITHIN:.2f}% of the optimal (exact) ({SAMPLED} vs {EXACT})",
        "jct_mean_s",
        SAMPLED,
        EXACT,
        claimed_ratio=1 / (1 + WITHIN),
        tolerance=1 - 1 / (1 + WITHIN),
    ),
    Claim(
        f"Orders of magnitude shorter decision time ({SAMPLED} vs {EXACT})",
        DECISION_TIME,
        SAMPLED,
        EXACT,
        claimed_ratio=100.0,
    ),
    Claim(
        f"Shorter mean JCT than dividing the GPUs evenly ({SAMPLED} vs {EQUAL})",
        "jct_mean_s",
        SAMPLED,
        EQUAL,
        claimed_ratio=float("nan"),
    ),
)

SAMPLING_PRESET = PaperPreset(
    name="Sampling-based placement (TPDS 2024)",
    citation=(
        'Liu, Wang, Huang, Pan, "Sampling-Based Multi-Job Placement for Heterogeneous Deep '
        'Learning Clusters", IEEE TPDS 35(6), 2024, doi 10.1109/TPDS.2024.3390109'
    ),
    setup=(
        "24 GPUs: 8 V100 and 8 P100 (two 4-GPU nodes each, one rack) and 8 K80 (two 4-GPU "
        "nodes, a second rack); 60 synthetic jobs (Gavel's Philly-derived mix of sizes and "
        "durations), Poisson arrivals at 1 job/hour; 30 s checkpoint-restore. One policy, "
        "re-planned at every arrival and completion, in three modes: Sampled (64 sampled "
        "categories plus the running jobs' current sizes), Exact (every category: at most a "
        "few tens of thousands per decision here) and Equal split (the GPUs divided evenly "
        "among the jobs, the paper's baseline), all placed by the same matching market with "
        "proportional batch split (registered as sampling_placement with mode=sampled, "
        "sampling_placement_exact and sampling_placement_equal_split). The paper's testbed, "
        "models and workloads are not known here (abstract only); the policy is a "
        "reconstruction (engine.policies.sampling.policy). Decision times are wall-clock and "
        "vary from run to run."
    ),
    build=build,
    claims=CLAIMS,
    not_shown=(
        "The decision time is shorter, but not by orders of magnitude: on seeds 0-4 Sampled "
        "decides 2.2-21x faster than Exact (about 1-2 ms against 3-42 ms per decision). A "
        "setup small enough for exact enumeration at every decision has small category "
        "spaces: Exact scores 100-1,900 categories per decision on average (at most 26,000), "
        "against Sampled's 65, and the gap grows with the space (benchmarks/"
        "bench_sampling.py: 69-85x at about 32,000 categories). The two JCT claims show on "
        "every seed 0-4: Sampled's mean JCT is between 0.7% worse and 3.7% better than "
        "Exact's (Exact is optimal for each decision, not over the whole online run), and "
        "1.02-1.21x better than Equal split's."
    ),
)
PAPERS.register(SAMPLING_PRESET.name, SAMPLING_PRESET)
