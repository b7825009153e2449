"""Tiresias LAS's account of its decisions (:class:`~engine.policies.explain.Explanation`).

A job's key at a moment, read from the run's records after the run: its attained service in
GPU-seconds (GPUs x time held, from the segments) since its last promotion, and the queue that
puts it in (:func:`~engine.policies.las.keys.queue_of` on ``queue_thresholds_gpu_s``). The last
promotion is found again from the segments: a stretch ended by preemption falls due at
:func:`~engine.policies.las.promotion.promotion_due_s` and is promoted at the next round
boundary, unless the job started again first (Gu et al., NSDI 2019, STARVELIMIT; checked at round
boundaries as :mod:`engine.policies.las.promotion` does). Not compiled: it runs once per
sentence a person reads, on pandas tables.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from engine.policies.explain import Explanation, KeyTerm, RunRecords
from engine.policies.las.keys import parse_thresholds, queue_of
from engine.policies.las.promotion import promotion_due_s


class LasExplanation(Explanation):
    """Tiresias LAS: attained service since the last promotion, its queue, the promotion."""

    rule: ClassVar[str] = (
        "LAS serves the lowest queue first (least attained service), FIFO within it."
    )

    def __init__(self, params: Any, records: RunRecords) -> None:
        super().__init__(params, records)
        self.thresholds = parse_thresholds(params.queue_thresholds_gpu_s)
        self.promote_knob = float(getattr(params, "promote_knob", 0.0))

    def key(self, job: str, at_s: float) -> tuple[KeyTerm, ...]:
        promoted_s = self.promoted_at_s(job, at_s)
        service = self.records.attained_gpu_s(job, at_s, promoted_s)
        queue = queue_of(self.thresholds, service)
        terms = [
            KeyTerm("{} GPU-h attained", service, "gpu_s"),
            KeyTerm("queue {}", queue + 1, "count"),
            *self.extra_terms(job),
        ]
        if promoted_s > 0:
            words = (
                f"promoted to queue 1 at {{}}: it had waited {self.promote_knob:g}× its last run"
            )
            terms.append(KeyTerm(words, promoted_s, "moment_s", aside=True))
        return tuple(terms)

    def extra_terms(self, job: str) -> tuple[KeyTerm, ...]:
        """Terms a policy ranking by LAS adds after the queue (none for LAS itself)."""
        return ()

    def promoted_at_s(self, job: str, at_s: float) -> float:
        """The last promotion of ``job`` at or before ``at_s`` (s; 0 if none)."""
        knob, round_s = self.promote_knob, self.records.round_s
        rows = self.records.segments(job)
        if rows is None or knob <= 0 or round_s <= 0:
            return 0.0
        stretches = rows.drop_duplicates("start_s").sort_values("start_s")
        starts: list[float] = stretches["start_s"].astype(float).tolist()
        ends: list[float] = stretches["end_s"].astype(float).tolist()
        reasons: list[str] = stretches["end_reason"].astype(str).tolist()
        promoted = 0.0
        for i, (start_s, end_s, reason) in enumerate(zip(starts, ends, reasons, strict=True)):
            if reason != "preempted":
                continue
            due_s = promotion_due_s(end_s, end_s - start_s, knob)
            boundary = math.ceil(due_s / round_s - 1e-9) * round_s
            restart = starts[i + 1] if i + 1 < len(starts) else math.inf
            if boundary <= at_s and boundary <= restart:
                promoted = boundary
        return promoted
