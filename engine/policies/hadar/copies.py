"""How fast HadarE's copies run (Sultana, Pakka et al., arXiv 2503.10918, 2025), by the engine's
step-time model (:mod:`engine.step_time.estimator`), with the caches a priced round needs.

A ``copies`` grant's rate depends on each copy's worker type and GPUs (in node order), the racks
the copies touch and the congestion in force, not on which nodes they are: :class:`CopyRates`
keys its cache so, and asks the estimator once per distinct case.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence

from engine.policies.base import Part, PolicyContext
from engine.state import JobState
from engine.step_time.network import change_times

CopyKey = tuple[str, int, tuple[tuple[str, int], ...], tuple[str, ...], int]
"""(job type, scale factor, (worker type, GPUs) per copy in node order, racks, congestion epoch)."""


class CopyRates:
    """Rates of HadarE's copies for one run.

    Args:
        max_gpus_per_copy: GPUs a copy may take on its node (0: the job's scale factor).
        noise_scale_ratio, consolidation_fixed_s: the policy's (see :class:`Policy`).
    """

    def __init__(
        self,
        context: PolicyContext,
        max_gpus_per_copy: int,
        noise_scale_ratio: float,
        consolidation_fixed_s: float,
    ) -> None:
        self.step_time = context.step_time
        self.rack_of = context.layout.node_rack
        self.changes = change_times(self.step_time.network)
        self.max_gpus_per_copy = max_gpus_per_copy
        self.noise_scale_ratio = noise_scale_ratio
        self.consolidation_fixed_s = consolidation_fixed_s
        self.node_size = context.cluster.max_gpus_per_node()
        self.first_node: dict[str, int] = {}
        for node in context.nodes:
            self.first_node.setdefault(node.worker_type, node.node)
        self._rates: dict[CopyKey, float] = {}
        self._adding: dict[tuple[object, ...], dict[tuple[str, int, int, str], float]] = {}
        self.single_cache: dict[tuple[str, int, str, int], float] = {}
        self._empty: dict[int, tuple[tuple[str, int, float], ...]] = {}

    def gpus(self, job: JobState, free: int) -> int:
        """GPUs a copy takes on a node with ``free`` free GPUs."""
        return min(free, self.max_gpus_per_copy or job.scale_factor)

    def rate(self, job: JobState, parts: Sequence[Part], now_s: float) -> float:
        """The engine's rate (steps/s) of node-pinned copies at ``now_s``: summed measured copy
        throughputs, less the share of the round spent consolidating over the copies' nominal
        bottleneck, at the statistical efficiency of the copies' summed batch."""
        ordered = sorted(parts, key=lambda p: p.node) if len(parts) > 1 else parts
        racks = tuple(sorted({self.rack_of[p.node] for p in ordered}))
        epoch = bisect_right(self.changes, now_s)
        shape = tuple((p.worker_type, p.num_gpus) for p in ordered)
        key = (job.job_type, job.scale_factor, shape, racks, epoch)
        rate = self._rates.get(key)
        if rate is None:
            placement = self.step_time.placement_of(parts, "copies")
            rate = self._rates[key] = self.step_time.on(
                job, placement, now_s, self.noise_scale_ratio, self.consolidation_fixed_s
            ).steps_per_s
        return rate

    def adding(
        self, job: JobState, parts: Sequence[Part], now_s: float
    ) -> Callable[[str, int, int], float]:
        """``(worker type, GPUs, node) -> rate(job, (*parts, that copy), now_s)`` for copies on
        nodes ``parts`` do not use. HadarE tries an extra copy on every group of nodes, so the
        answers are kept per fixed copies and looked up by (type, GPUs, place in node order,
        rack): exactly what :meth:`rate`'s key adds for the new copy."""
        ordered = sorted(parts, key=lambda p: p.node)
        nodes = [p.node for p in ordered]
        shape = tuple((p.worker_type, p.num_gpus) for p in ordered)
        racks = frozenset(self.rack_of[node] for node in nodes)
        epoch = bisect_right(self.changes, now_s)
        base = (job.job_type, job.scale_factor, shape, racks, epoch)
        known = self._adding.get(base)
        if known is None:
            known = self._adding[base] = {}
        rack_of = self.rack_of

        def rate(worker_type: str, num_gpus: int, node: int) -> float:
            at = bisect_right(nodes, node)
            key = (worker_type, num_gpus, at, rack_of[node])
            found = known.get(key)
            if found is None:
                found = known[key] = self.rate(
                    job, (*parts, Part(worker_type, num_gpus, node)), now_s
                )
            return found

        return rate

    def single(self, job: JobState, worker_type: str, gpus: int) -> float:
        """Rate of one copy alone on ``gpus`` GPUs of a node of ``worker_type``."""
        key = (job.job_type, job.scale_factor, worker_type, gpus)
        rate = self.single_cache.get(key)
        if rate is None:
            part = Part(worker_type, gpus, self.first_node[worker_type])
            rate = self.single_cache[key] = self.rate(job, (part,), 0.0)
        return rate

    def on_empty_nodes(
        self, job: JobState, types: Iterable[str]
    ) -> tuple[tuple[str, int, float], ...]:
        """(worker type, GPUs, rate) of one copy on an empty node of each of ``types`` (the
        worker types the job fits, fixed for a job; cached per job)."""
        table = self._empty.get(job.index)
        if table is None:
            table = self._empty[job.index] = tuple(
                (wt, gpus, self.single(job, wt, gpus))
                for wt in types
                for gpus in (self.gpus(job, self.node_size[wt]),)
            )
        return table
