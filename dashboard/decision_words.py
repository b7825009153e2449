"""The decisions of a run in words: what a policy just did, and why, from its decision log.

The decision log (:mod:`engine.decision_log`) says what happened (started, preempted, migrated,
waiting for a reason); the why comes from the policy itself: its
:class:`~engine.policies.explain.Explanation` (``Policy.explanation``) gives its rule in a
sentence and each job's ranking key at a moment as terms with units (attained GPU-hours and the
queue for LAS, remaining work for SRTF, arrival for FIFO, ...). One writer here turns any
policy's terms into words by their units, so no policy's name or rule is written here [R].

- Migrations: the rate before and after (steps/s, from the log's ``started`` rows).
- HadarE's copies: one copy per node sharing one step counter (:mod:`engine.step_time.progress`).
- Waiting: the log's reason, with the free GPUs per worker type at that moment; a policy that
  blocks behind the head of its queue says so (``Explanation.blocking``).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import pandas as pd

from dashboard.replay import QueueEntry, Replay
from engine.config import PolicySpec
from engine.policies.base import build_params, get_policy, list_policies
from engine.policies.explain import Explanation, KeyTerm, RunRecords, log_rate
from engine.step_time.throughput import ThroughputMatrix


def clock(time_s: float) -> str:
    """Simulated time as a clock, ``3725 -> "1:02:05"`` (days as ``"2 d 1:02:05"``)."""
    if not math.isfinite(time_s):
        return "–"
    whole = int(round(time_s))
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    text = f"{hours}:{rest // 60:02d}:{rest % 60:02d}"
    return f"{days} d {text}" if days else text


class Explainer:
    """Words for one policy's decisions.

    Args:
        replay: the policy's run (:class:`dashboard.replay.Replay`).
        spec: the policy as the scenario lists it (name and parameters).
        matrix: the scenario's throughput matrix (remaining work on the fastest type).
    """

    def __init__(self, replay: Replay, spec: PolicySpec, matrix: ThroughputMatrix) -> None:
        self.replay, self.spec = replay, spec
        self.name = replay.sim.policy
        records = RunRecords(replay.sim, matrix, replay.layout.capacity, replay.round_s)
        self.records = records
        self.explanation = _explanation(spec, records)

    def moment(self, time_s: float) -> tuple[float | None, list[str]]:
        """The latest decision time at or before ``time_s`` and its events in words."""
        at = self.replay.decision_time(time_s)
        if at is None:
            return None, []
        rows = self.replay.rows_at(at)
        return at, self._sentences(rows, at)

    def _sentences(self, rows: pd.DataFrame, at: float) -> list[str]:
        by_event = {e: list(g["job_id"].astype(str)) for e, g in rows.groupby("event", sort=False)}
        moved = set(by_event.get("migrated", []))
        started = [j for j in by_event.get("started", []) if j not in moved]
        lines = [  # what happened first (completions, arrivals), then what the policy did
            f"Job {job} completed (JCT {duration_text(self._jct(job))})."
            for job in by_event.get("completed", [])
        ]
        arrived = [j for j in by_event.get("arrived", []) if j not in by_event.get("started", [])]
        for job in arrived:
            lines.append(f"Job {job} arrived, asking for {_gpus(self._sf(job))}.")
        victims = by_event.get("preempted", [])
        if victims:
            lines.append(self._preemption(victims, started, at))
        lines += [self.migration(job, at) for job in by_event.get("migrated", [])]
        rule = self.explanation.rule
        if moved and not victims and rule:
            lines.append(rule)
        lines += [self.start(job, at) for job in started]
        waiting = rows[rows["event"] == "waiting"]
        for reason, group in waiting.groupby("reason", sort=False):
            jobs = list(group["job_id"].astype(str))
            who = f"Job {jobs[0]} waits" if len(jobs) == 1 else f"Jobs {job_names(jobs)} wait"
            lines.append(f"{who}: {self.waiting_many(jobs, str(reason), at)}")
        return lines

    def _preemption(self, victims: list[str], started: list[str], at: float) -> str:
        rule = self.explanation.rule
        victim_text = "; ".join(f"job {j}{self._key(j, at)}" for j in victims)
        text = f"{self.name} preempted {victim_text}"
        if started:
            text += "; for " + ", ".join(f"job {j}{self._key(j, at)}" for j in started)
        else:
            text += " (no job took its GPUs at once)"
        return text + (f". {rule}" if rule else ".")

    def preempted_why(self, job: str, at: float) -> str:
        """Why ``job`` was preempted at ``at``, in a sentence."""
        rows = self.replay.rows_at(at)
        started = rows[(rows["event"] == "started")]["job_id"].astype(str).tolist()
        moved = set(rows[rows["event"] == "migrated"]["job_id"].astype(str))
        return self._preemption([job], [j for j in started if j not in moved], at)

    def key_terms(self, job: str, at: float) -> tuple[KeyTerm, ...]:
        """What the policy ranked ``job`` by at ``at`` (its own explanation's terms)."""
        return self.explanation.key(job, at)

    def _key(self, job: str, at: float) -> str:
        """The policy's ranking key of ``job`` at ``at``, as ``": 3.1 GPU-h attained, queue 2"``."""
        return key_words(self.key_terms(job, at))

    def migration(self, job: str, at: float) -> str:
        """``"Gavel moved job 3 from 1 × k80 on n1 (0.62 steps/s) to ... (7.1× the speed)"``."""
        before = self.records.started_detail(job, at, before=True)
        after = self.records.started_detail(job, at, before=False)
        text = f"{self.name} moved job {job} from {_placement(before)} to {_placement(after)}"
        old, new = log_rate(before), log_rate(after)
        if old and new:
            text += f": {new / old:.2g}× the speed"
        return text + "."

    def start(self, job: str, at: float) -> str:
        """``"FIFO started job 4 on 2 × v100 on n0 (node-local), 3.10 steps/s."``, with HadarE's
        copies said in words."""
        detail = self.records.started_detail(job, at, before=False)
        rows = self.records.segments(job)
        lanes = rows[rows["start_s"] == at] if rows is not None else None
        if lanes is not None and len(lanes) > 1 and (lanes["combine"] == "copies").any():
            nodes = ", ".join(lanes["nodes"].astype(str))
            return (
                f"{self.name} started job {job} as {len(lanes)} copies, one per node ({nodes}): "
                "each copy trains on its own node at that node's speed and all advance one "
                "shared step counter, their models averaged once a round (HadarE's copies), "
                f"{_rate_text(detail)}."
            )
        return f"{self.name} started job {job} on {_placement(detail)}."

    def waiting(self, job: str, reason: str, at: float) -> str:
        """Why ``job`` waits at ``at``, from the log's ``reason``, with the free GPUs then."""
        return self.waiting_many([job], reason, at)

    def waiting_many(self, jobs: list[str], reason: str, at: float) -> str:
        """Why ``jobs`` (waiting for one ``reason``) wait at ``at``, in one sentence."""
        free = self.replay.free_gpus(at)
        free_text = ", ".join(f"{n} × {wt}" for wt, n in free.items())
        one = len(jobs) == 1
        sizes = sorted({self._sf(job) for job in jobs})
        size = _gpus(sizes[0]) if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]} GPUs"
        if reason == "no room":
            who = "it needs" if one else "each needs"
            return f"no room: {who} {size} of one type at once; free: {free_text}."
        if reason == "held for consolidation":
            who, whose = ("it", "its ring") if one else ("them", "their rings")
            return (
                f"held for consolidation: {self.name} keeps {who} waiting for a placement on "
                f"fewer nodes or one rack ({whose} would cross slower links); free: {free_text}."
            )
        if reason == "lower priority":
            enough = f"enough for its {size}" if one else "enough for each"
            text = (
                f"lower priority: {free_text} free, {enough}, but {self.name} gave them to "
                "jobs it ranks higher or chose to wait"
            )
            rank = self._key(jobs[0], at).removeprefix(": ") if one else ""
            if rank:
                text += f" (its rank: {rank})"
            head = self.blocking_head(jobs, at)
            if head is not None:
                text += (
                    f". {self.explanation.blocking} (job {head.job_id}, "
                    f"{_gpus(head.scale_factor)}), which does not fit: head-of-line blocking"
                )
            return text + "."
        return f"{reason}."

    def blocking_head(self, jobs: list[str], at: float) -> QueueEntry | None:
        """The head of the queue that ``jobs`` (waiting for lower priority) wait behind at
        ``at``, for a policy that blocks behind its head (``Explanation.blocking``); None when
        it does not block or the head is one of ``jobs``."""
        queue = self.replay.queue(at) if self.explanation.blocking else []
        return queue[0] if queue and queue[0].job_id not in jobs else None

    def _sf(self, job: str) -> int:
        return int(self.replay.scale_factor[job])

    def _jct(self, job: str) -> float:
        return self.records.job_value(job, "jct_s")


def _explanation(spec: PolicySpec, records: RunRecords) -> Explanation:
    """The policy's own explanation of its decisions (none for a name not registered)."""
    if spec.name not in list_policies():
        return Explanation(None, records)
    cls = get_policy(spec.name)
    return cls.explanation(build_params(cls, spec.params), records)


_READ: dict[str, Callable[[float], str]] = {
    "gpu_s": lambda gpu_s: _gpu_h(gpu_s),
    "moment_s": lambda time_s: clock(time_s),
    "duration_s": lambda seconds: duration_text(seconds),
    "ratio": lambda ratio: f"{ratio:.2f}",
    "count": lambda count: f"{count:g}",
}
"""How each unit of :data:`engine.policies.explain.UNITS` reads."""


def key_words(terms: tuple[KeyTerm, ...]) -> str:
    """A ranking key in words, ``": 3.1 GPU-h attained, queue 2 (promoted ...)"`` ("" for none):
    the terms in order, the asides in brackets after them."""
    if not terms:
        return ""
    said = [term.text.format(_READ[term.unit](term.value)) for term in terms]
    main = ", ".join(text for text, term in zip(said, terms, strict=True) if not term.aside)
    asides = "".join(f" ({text})" for text, term in zip(said, terms, strict=True) if term.aside)
    return ": " + f"{main}{asides}".lstrip()  # a key of asides alone starts at its bracket


def job_names(jobs: list[str]) -> str:
    """``["a", "b", "c"] -> "a, b and c"``."""
    return jobs[0] if len(jobs) == 1 else f"{', '.join(jobs[:-1])} and {jobs[-1]}"


def _gpus(count: int) -> str:
    return f"{count} GPU" + ("" if count == 1 else "s")


def _rate_text(detail: str) -> str:
    rate = log_rate(detail)
    return f"{rate:,.2f} steps/s in all" if rate else "rate unknown"


def _placement(detail: str) -> str:
    """A logged placement as read aloud ("network-local" is the engine's word for a ring
    across racks)."""
    return detail.replace("(network-local)", "(across racks)") if detail else "its GPUs"


def _gpu_h(gpu_s: float) -> str:
    value = gpu_s / 3600.0
    return f"{value:.2f}" if value < 1 else f"{value:.1f}"


def duration_text(seconds: float) -> str:
    """A duration a class reads: ``"12 min"``, ``"1.9 h"``, ``"45 s"`` [local to this page]."""
    if not math.isfinite(seconds):
        return "–"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
