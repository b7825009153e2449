"""Paper preset: Hare (Chen et al., IEEE TCC 2024) on a small mixed V100/P100/K80 cluster.

The paper's claim (abstract): Hare's scheduling of relaxed-synchronization jobs on heterogeneous
GPUs gives about 2.94x better average JCT than the state of the art. The scenario sets both of
Hare's policies beside Tiresias LAS and Gavel (max-min), the state-of-the-art schedulers this
project has, on the house synthetic workload. See ``not_shown`` for what the simulation shows.
"""

from __future__ import annotations

from engine.config import (
    PolicySpec,
    ScenarioConfig,
)
from engine.papers.base import (
    PAPERS,
    Claim,
    PaperPreset,
    synthetic_trace,
    three_type_cluster,
)

HLAS = "Hare HLAS"
OFFLINE = "Hare offline"
LAS = "Tiresias LAS"
GAVEL = "Gavel"
CLAIMED_JCT_RATIO = 2.94
"""Average-JCT improvement over the state of the art reported by the paper's abstract."""


def build(seed: int) -> ScenarioConfig:
    """24 GPUs of three types, 100 synthetic jobs at 1 job/hour (Gavel's job mix).

    One job an hour offers about twice what the cluster serves while jobs arrive (mean job:
    about 1.9 GPUs for about 17 V100-hours), so a backlog forms and scheduling matters.
    """
    return ScenarioConfig(
        trace=synthetic_trace(100, 1.0),
        cluster=three_type_cluster(),
        policies=(
            PolicySpec("hare_hlas", label=HLAS),
            PolicySpec("hare_offline", label=OFFLINE),
            PolicySpec("las", label=LAS),
            PolicySpec("gavel_maxmin", label=GAVEL),
        ),
        seed=seed,
    )


def _claim(policy: str, baseline: str) -> Claim:
    return Claim(
        text=f"about {CLAIMED_JCT_RATIO}x better average JCT than the state of the art "
        f"({policy} vs {baseline})",
        metric="jct_mean_s",
        policy=policy,
        baseline=baseline,
        claimed_ratio=CLAIMED_JCT_RATIO,
    )


HARE = PaperPreset(
    name="Hare (TCC 2024)",
    citation=(
        'Chen, Li, Wu, Guo, "Hare: Exploiting Inter-job and Intra-job Parallelism of '
        'Distributed Machine Learning on Heterogeneous GPUs", IEEE Transactions on Cloud '
        "Computing 12(4), 2024, doi 10.1109/TCC.2024.3414440 (first at HPDC 2022)"
    ),
    setup=(
        "24 GPUs: 8 V100 and 8 P100 (two 4-GPU nodes each, one rack) and 8 K80 (two 4-GPU "
        "nodes, a second rack); 100 synthetic jobs (Gavel's Philly-derived mix of sizes and "
        "durations), Poisson arrivals at 1 job/hour; 360 s rounds; 30 s checkpoint-restore "
        "for the baselines, 0.5 s task switches for Hare. The paper's own GPU mix, trace and "
        "cluster size are not known here (abstract only); this is a scaled-down "
        "heterogeneous cluster of the same kind. Hare's policies are reconstructions "
        "(engine.policies.hare.hlas, engine.policies.hare.offline)."
    ),
    build=build,
    claims=(
        _claim(HLAS, GAVEL),
        _claim(HLAS, LAS),
        _claim(OFFLINE, GAVEL),
        _claim(OFFLINE, LAS),
    ),
    not_shown=(
        "The 2.94x figure is not reached. On seeds 0-2 both Hare policies beat Tiresias LAS "
        "by about 1.8-2.5x, and Hare offline beats Gavel, but only by about 1.02-1.15x. "
        "Hare HLAS vs Gavel is not shown: the ratio stays near 1 (about 0.92-1.10) and its "
        "direction changes with the seed (HLAS is worse on seed 2). Likely reasons: Gavel "
        "here is already heterogeneity-aware (its LP gives each job time on the types where "
        "it runs fast), which leaves Hare only relaxed synchronization and cheap task "
        "switches as advantages; HLAS re-plans at arrivals, completions and rounds, not at "
        "every task (the engine is fluid between events); and the paper's workload and "
        "baseline settings are not known."
    ),
)
PAPERS.register(HARE.name, HARE)
