"""Node failures of a scenario: failure rates, checkpoints and spare nodes (part of
:class:`engine.config.ScenarioConfig`; the model is :mod:`engine.faults`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

LLAMA3_NODE_MTBF_H = 54 * 24 * (16_384 / 8) / 419
"""Mean time between failures of one 8-GPU node, hours: 419 unexpected interruptions (of 466;
47 were planned) in a 54-day snapshot of Llama 3 405B pre-training on 16,384 H100 GPUs in 8-GPU
servers (2,048 nodes), about 78% of the unexpected ones attributed to confirmed or suspected
hardware issues (Dubey et al., "The Llama 3 Herd of Models", arXiv 2407.21783, 2024, sec.
3.3.4): 54 x 24 x 2,048 / 419 = 6,335 node-hours. [R] every interruption counted as a failure
of one node (the paper gives no split by node); its hardware share alone would give 8,120 h.

Cited for context, no number here comes from them: Kokolis et al. ("Revisiting Reliability in
Large-Scale Machine Learning Research Clusters", arXiv 2410.21680, 2024; HPCA 2025) analyse 11
months of two A100 research clusters at Meta (about 16K and 8K GPUs; 4 million jobs, over 150
million GPU-hours) and fit a failure model that projects a job's mean time to failure from its
GPU count [R: that their node failure rates are of the same order as the figure above is our
reading, not verified against the paper's numbers]. Hu et al. ("Characterization of Large
Language Model Development in the Datacenter", NSDI '24) study job failures over six months of
LLM development on Acme. Jeon et al. ("Analysis of Large-Scale Multi-Tenant GPU Clusters for
DNN Training Workloads", ATC '19) study failures during training on two months of Philly [R:
that most of its failed jobs fail for user errors, which this node model leaves out, is our
reading, not verified against the paper]."""


@dataclass(frozen=True)
class TypeMtbf:
    """A worker type whose nodes fail at another rate than :attr:`FailureConfig.node_mtbf_h`."""

    worker_type: str = field(metadata={"help": "GPU type, e.g. k80"})
    node_mtbf_h: float = field(metadata={"help": "Mean time between failures of one node (h)"})


@dataclass(frozen=True)
class TypeSpares:
    """A worker type holding another number of spare nodes than
    :attr:`FailureConfig.spares_per_type` (the planner holds spares per GPU type,
    `engine.study.planner_spec`)."""

    worker_type: str = field(metadata={"help": "GPU type, e.g. k80"})
    spares: int = field(metadata={"help": "Nodes of this GPU type held in reserve as spares"})


@dataclass(frozen=True)
class FailureConfig:
    """Node failures, checkpoints and spare nodes (:mod:`engine.faults`); off by default.

    When ``enabled`` is False nothing here is read and every result is that of a cluster whose
    GPUs never fail. When on, each node of the schedulable cluster fails as a renewal process
    drawn from its own seeded generator (``seed`` and a stream of its own, so the policies'
    random draws are the same with failures on or off); a failed node evicts the jobs holding
    GPUs on it, which lose the work since their last checkpoint and wait again under their
    policy (for FIFO at the back of the queue, as a preempted job would) [R]. The node returns
    after ``repair_h``, or after ``spare_swap_s`` when a spare node of its type is in reserve
    (the broken one joins the reserve once repaired).

    Attributes (defaults and sources):
        node_mtbf_h: :data:`LLAMA3_NODE_MTBF_H` (Dubey et al. 2024, sec. 3.3.4) [R].
        distribution: ``"exponential"`` (memoryless; Daly 2006's model) or ``"weibull"``.
        weibull_shape: shape k of the Weibull time between failures; 0.7 [R] from Schroeder &
            Gibson (DSN 2006), who fit shapes of 0.7-0.8 to LANL's node failures (k < 1: a
            repaired node is likelier to fail again soon).
        repair_h: hours before a failed node is back in service (no spare); 24 h [R], our
            reading of a next-business-day hardware swap, no source gives one figure.
        rack_mtbf_h: mean time between failures of a whole rack (switch or power), every node
            of it at once; 0 turns correlated failures off (the default) [R].
        checkpoint_interval_s: work between checkpoints (s); None uses Young's optimum
            ``sqrt(2 x checkpoint_cost_s x the job's MTBF)`` (Young, CACM 1974; Daly, FGCS
            2006), the job's MTBF being its nodes' (and racks') failure rates summed; with a
            checkpoint cost of 0 that is 0: the job loses no work to a failure.
        checkpoint_cost_s: time a checkpoint takes, without progress; 60 s [R] (an
            asynchronous save of a large model's state to shared storage).
        spares_per_type: nodes of each worker type held in reserve (taken from the GPU mix:
            the last nodes of that type); they replace failed nodes.
        type_spares: worker types holding another number of spares than
            ``spares_per_type`` (empty: every type holds ``spares_per_type``).
        spare_swap_s: time to swap a spare in for a failed node; 600 s [R].
        seed: seed of the failure generator; None uses the scenario's seed.
    """

    enabled: bool = field(default=False, metadata={"help": "Simulate node failures"})
    node_mtbf_h: float = field(
        default=LLAMA3_NODE_MTBF_H,
        metadata={"help": "Mean time between failures of one node (h); Llama 3: 6,335 h"},
    )
    distribution: str = field(
        default="exponential", metadata={"help": "Time between failures: exponential or weibull"}
    )
    weibull_shape: float = field(default=0.7, metadata={"help": "Weibull shape k (> 0)"})
    repair_h: float = field(default=24.0, metadata={"help": "Repair time of a failed node (h)"})
    rack_mtbf_h: float = field(
        default=0.0, metadata={"help": "Mean time between whole-rack failures (h); 0 = none"}
    )
    checkpoint_interval_s: float | None = field(
        default=None,
        metadata={"help": "Work between checkpoints (s); empty = Young/Daly optimum"},
    )
    checkpoint_cost_s: float = field(
        default=60.0, metadata={"help": "Time one checkpoint takes (s)"}
    )
    spares_per_type: int = field(
        default=0, metadata={"help": "Nodes of each GPU type held in reserve as spares"}
    )
    spare_swap_s: float = field(
        default=600.0, metadata={"help": "Time to swap a spare in for a failed node (s)"}
    )
    type_mtbf: tuple[TypeMtbf, ...] = ()
    type_spares: tuple[TypeSpares, ...] = ()
    seed: int | None = field(
        default=None, metadata={"help": "Seed of the failure draws; empty = scenario seed"}
    )


FAILURE_DISTRIBUTIONS = ("exponential", "weibull")


def spares_of(failures: FailureConfig, worker_type: str) -> int:
    """Spare nodes ``worker_type`` holds: its ``type_spares`` entry, else ``spares_per_type``."""
    by_type = {entry.worker_type: entry.spares for entry in failures.type_spares}
    return by_type.get(worker_type, failures.spares_per_type)
