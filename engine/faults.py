"""Node failures, repairs, spare nodes and checkpoints (:class:`engine.config.FailureConfig`).

Each schedulable node fails as a renewal process: a time to failure drawn at the start and
whenever the node returns to service, exponential or Weibull with the node's MTBF (its worker
type's, else the scenario's). With ``rack_mtbf_h`` a rack fails as a whole as well (every node
of it at once). A failed node returns after the repair time; when a spare node of its type is
in reserve it returns after the swap time instead, and the broken unit joins the reserve once
repaired [R: a pool of working units, the simplest model of a spare; a spare in reserve does
not fail]. The spares are the last nodes of each worker type in the GPU mix, held out of the
schedulable cluster for the whole run.

Every node (and rack) draws its times to failure from a generator of its own, derived from the
failure seed with the spawn key (:data:`FAULT_STREAM`, the node's index): turning failures on
or off shifts no other random draw, and a node's sequence of times between failures is the same
whatever the spares or the jobs (common random numbers for paired what-ifs).

A job checkpoints every ``interval`` seconds of work, each checkpoint taking ``cost`` seconds
without progress: it runs at ``interval / (interval + cost)`` of its rate
(:func:`checkpoint_keep`), which is exact at every checkpoint; when a node it holds fails it
keeps only the work of its last completed checkpoint (:func:`since_checkpoint_s`; the steps
taken back at its current rate, exact unless congestion re-rated it since [R]). Young's
interval ``sqrt(2 x cost x MTBF)`` (Young, CACM 1974; Daly, FGCS 2006) uses the job's MTBF: one
over its nodes' and racks' failure rates summed (:meth:`FaultModel.job_mtbf_s`).
"""

from __future__ import annotations

import math
from heapq import heappop, heappush

import numpy as np

from engine.allocation.layout import NodeLayout
from engine.config import FailureConfig, spares_of
from engine.errors import ConfigError
from engine.state import JobState

FAULT_STREAM = 27
"""First word of the failure generators' spawn keys: node ``i``'s generator is seeded by
``SeedSequence(seed, spawn_key=(FAULT_STREAM, i))`` (racks follow the nodes), numpy's way of
deriving independent child streams (what ``SeedSequence.spawn`` does); apart from the run's
generator, seeded by the scenario's seed alone. (Seeding by the list ``[seed, 27, i]`` instead
gave 7.9 first failures in 600 h over seeds 0-19 where 5.8 are expected, 4 standard errors
off; spawn keys give 5.5, measured November 2026.)"""

MAX_CYCLE_OVER_MTBF = 10.0
"""Largest (checkpoint interval + checkpoint cost + restore) over a job's MTBF a run accepts:
beyond it a job expects more than e^10 = 22,000 attempts per checkpoint (Daly 2006's
``e^((tau + delta + R) / M)``), which would keep a shared server busy for ever [R]."""

FAIL, RETURN, SPARE_READY, RACK_FAIL = 0, 1, 2, 3
"""Kinds of failure events: a node fails, a node returns to service, a repaired unit joins its
type's reserve, a whole rack fails."""


def checkpoint_keep(interval_s: float, cost_s: float) -> float:
    """Share of a job's wall time that makes progress: ``interval / (interval + cost)``."""
    return interval_s / (interval_s + cost_s)


def young_interval_s(cost_s: float, mtbf_s: float) -> float:
    """Young's optimum checkpoint interval ``sqrt(2 x cost x MTBF)`` (s); 0 for free
    checkpoints (then a job checkpoints continuously and a failure loses no work)."""
    return math.sqrt(2.0 * cost_s * mtbf_s)


def since_checkpoint_s(productive_s: float, interval_s: float, cost_s: float) -> float:
    """Wall time since the job's last completed checkpoint, after ``productive_s`` seconds of
    running (restore excluded) in cycles of ``interval_s`` of work then ``cost_s`` of
    checkpoint: the work a failure now loses, with the checkpoint being written."""
    cycle = interval_s + cost_s
    return productive_s - math.floor(productive_s / cycle) * cycle


def checkpoint_time_s(productive_s: float, interval_s: float, cost_s: float) -> float:
    """Wall time spent writing checkpoints in ``productive_s`` seconds of running."""
    cycle = interval_s + cost_s
    done = math.floor(productive_s / cycle)
    return done * cost_s + max(0.0, productive_s - done * cycle - interval_s)


class FaultModel:
    """The failure process of one run: which nodes are down, the spare reserve, and the next
    events (a heap keyed ``(time, seq)``).

    Attributes:
        reserved: the spare nodes held out of the schedulable cluster (node indices).
        down: nodes failed and not yet back, in the schedulable cluster.
        next_s: time of the next event (``inf`` when none).
        node_failures: failures of schedulable nodes so far (rack failures count each node).
    """

    def __init__(self, config: FailureConfig, layout: NodeLayout, seed: int) -> None:
        streams = len(layout.nodes) + len(layout.racks)  # one per node, then one per rack
        self.rngs = [
            np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FAULT_STREAM, i)))
            for i in range(streams)
        ]
        self.weibull = config.distribution == "weibull"
        self.shape = config.weibull_shape
        self.repair_s = config.repair_h * 3600.0
        self.swap_s = config.spare_swap_s
        by_type = {entry.worker_type: entry.node_mtbf_h for entry in config.type_mtbf}
        self.node_mtbf_s = [by_type.get(wt, config.node_mtbf_h) * 3600.0 for wt in layout.node_type]
        self.rack_mtbf_s = config.rack_mtbf_h * 3600.0
        self.node_type = layout.node_type
        self.node_gpus = layout.node_gpus
        self.reserved: set[int] = set()
        self.spares: dict[str, int] = {}
        for worker_type, nodes in layout.type_nodes.items():
            count = spares_of(config, worker_type)
            self.spares[worker_type] = count
            self.reserved.update(nodes[len(nodes) - count :] if count else ())
        self.rack_nodes: dict[str, list[int]] = {rack: [] for rack in layout.racks}
        for node in range(len(layout.nodes)):
            if node not in self.reserved:
                self.rack_nodes[layout.node_rack[node]].append(node)
        self.down: set[int] = set()
        self.events: list[tuple[float, int, int, int, str, int]] = []
        self.epoch = [0] * len(layout.nodes)  # failures of each node so far (stale FAIL events)
        self.seq = 0
        self.next_s = math.inf
        self.node_failures = 0
        self.rack_stream = {rack: len(layout.nodes) + i for i, rack in enumerate(layout.racks)}
        for node in range(len(layout.nodes)):
            if node not in self.reserved:
                self._push(self._time_to_failure(self.node_mtbf_s[node], node), FAIL, node)
        if self.rack_mtbf_s > 0:
            for rack in layout.racks:
                at_s = self._time_to_failure(self.rack_mtbf_s, self.rack_stream[rack])
                self._push(at_s, RACK_FAIL, -1, rack)

    def _time_to_failure(self, mean_s: float, stream: int) -> float:
        rng = self.rngs[stream]
        if self.weibull:  # scale so that the mean is mean_s
            return mean_s / math.gamma(1.0 + 1.0 / self.shape) * float(rng.weibull(self.shape))
        return float(rng.exponential(mean_s))

    def _push(self, at_s: float, kind: int, node: int, rack: str = "") -> None:
        self.seq += 1
        epoch = self.epoch[node] if node >= 0 else 0
        heappush(self.events, (at_s, self.seq, kind, node, rack, epoch))
        self.next_s = self.events[0][0]

    def pop(self) -> tuple[int, int, str]:
        """The next event as (kind, node, rack), removed from the heap; a node's failure drawn
        before a rack failure took it down comes back as a failure of node -1 (nothing)."""
        _, _, kind, node, rack, epoch = heappop(self.events)
        self.next_s = self.events[0][0] if self.events else math.inf
        if kind == FAIL and epoch != self.epoch[node]:
            return FAIL, -1, rack
        return kind, node, rack

    def fail(self, node: int, now_s: float) -> bool:
        """Books the failure of an up node (a spare swapped in, else its repair); False for a
        node already down (a rack failure over a failed node)."""
        if node < 0 or node in self.down:
            return False
        self.down.add(node)
        self.epoch[node] += 1
        self.node_failures += 1
        worker_type = self.node_type[node]
        if self.spares[worker_type] > 0:
            self.spares[worker_type] -= 1
            self._push(now_s + self.swap_s, RETURN, node)
            self._push(now_s + self.repair_s, SPARE_READY, node)
        else:
            self._push(now_s + self.repair_s, RETURN, node)
        return True

    def returned(self, node: int, now_s: float) -> None:
        """Books a node's return to service and draws its next failure."""
        self.down.discard(node)
        self._push(now_s + self._time_to_failure(self.node_mtbf_s[node], node), FAIL, node)

    def spare_ready(self, node: int) -> None:
        """A repaired unit of ``node``'s type joins the reserve."""
        self.spares[self.node_type[node]] += 1

    def rack_failed(self, rack: str, now_s: float) -> list[int]:
        """The rack's schedulable nodes (all fail now); draws the rack's next failure."""
        at_s = now_s + self._time_to_failure(self.rack_mtbf_s, self.rack_stream[rack])
        self._push(at_s, RACK_FAIL, -1, rack)
        return list(self.rack_nodes[rack])

    def job_mtbf_s(self, nodes: tuple[int, ...], racks: tuple[str, ...]) -> float:
        """Mean time between failures of a job on ``nodes`` in ``racks``: one over the sum of
        their failure rates (independent processes in series)."""
        rate = 0.0
        for node in nodes:
            rate += 1.0 / self.node_mtbf_s[node]
        if self.rack_mtbf_s > 0:
            rate += len(racks) / self.rack_mtbf_s
        return 1.0 / rate


def check_jobs(
    jobs: list[JobState],
    capacity: dict[str, int],
    faults: FaultModel,
    config: FailureConfig,
    restore_s: float,
) -> None:
    """Refuses a run whose jobs could never finish: a job larger than every worker type
    outside its spares (it would wait for ever while failures come and go), or one whose
    checkpoint cycle is far longer than its MTBF (:data:`MAX_CYCLE_OVER_MTBF`), its MTBF taken
    on the fewest nodes of the usable worker type where it fails least often.

    Raises:
        ConfigError: naming the job and the field (``failures.<name>``) to change.
    """
    gpus_per_node: dict[str, int] = {}
    mtbf_s: dict[str, float] = {}
    for node, worker_type in enumerate(faults.node_type):
        gpus_per_node[worker_type] = max(gpus_per_node.get(worker_type, 0), faults.node_gpus[node])
        mtbf_s[worker_type] = min(mtbf_s.get(worker_type, math.inf), faults.node_mtbf_s[node])
    cost_s = config.checkpoint_cost_s
    for job in jobs:
        usable = [wt for wt, rate in job.steps_per_s.items()
                  if rate > 0 and capacity[wt] >= job.scale_factor]  # fmt: skip
        if not usable:
            raise ConfigError(
                f"failures.spares_per_type: job {job.job_id} needs {job.scale_factor} GPUs, "
                "more than any GPU type has outside its spare node(s)"
            )
        job_mtbf_s = max(
            1.0 / (math.ceil(job.scale_factor / gpus_per_node[wt]) / mtbf_s[wt]
                   + (1.0 / faults.rack_mtbf_s if faults.rack_mtbf_s > 0 else 0.0))
            for wt in usable
        )  # fmt: skip
        interval_s = config.checkpoint_interval_s
        if interval_s is None:
            interval_s = young_interval_s(cost_s, job_mtbf_s)
        if (interval_s + cost_s + restore_s) / job_mtbf_s > MAX_CYCLE_OVER_MTBF:
            raise ConfigError(
                f"failures.checkpoint_interval_s: job {job.job_id} fails every "
                f"{job_mtbf_s / 3600:,.2f} h on average (failures.node_mtbf_h over its nodes); "
                f"a checkpoint cycle of {interval_s + cost_s + restore_s:,.0f} s (interval, "
                "cost and restore) would almost never complete; checkpoint more often or "
                "make failures rarer"
            )
