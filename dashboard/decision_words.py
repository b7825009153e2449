"""The decisions of a run in words: what a policy just did, and why, from its decision log.

The decision log (:mod:`engine.decision_log`) says what happened (started, preempted, migrated,
waiting for a reason); the why is read from the policy's own rule applied to the run's tables
[R: reconstructions, the engine keeps no policy internals]:

- Tiresias LAS (and the LAS underneath Dally and its consolidation baselines): attained service
  in GPU-hours (GPUs x time held, from the segments) since the job's last promotion, and the
  queue it puts the job in (``queue_thresholds_gpu_s``; promotion after waiting
  ``promote_knob`` x its last run, checked at round boundaries, as ``engine/policies/las/``).
- SRTF: remaining work (total steps less the steps done at each segment's logged rate, after
  its restore) over the job's fastest rate on a worker type of the cluster (the throughput
  matrix), as ``engine/policies/srtf.py`` ranks jobs.
- FIFO: arrival time. Other policies: who got the GPUs, without a ranking key.
- Migrations: the rate before and after (steps/s, from the log's ``started`` rows).
- HadarE's copies: one copy per node sharing one step counter (:mod:`engine.step_time.progress`).
- Waiting: the log's reason, with the free GPUs per worker type at that moment.
"""

from __future__ import annotations

import math
import re

import pandas as pd

from dashboard.replay import Replay
from engine.config import PolicySpec
from engine.step_time.throughput import ThroughputMatrix

LAS_FAMILY = {"las": None, "dally": 0.0, "consolidation_strict": 0.0,
              "consolidation_none": 0.0, "consolidation_tiresias": 0.0}  # fmt: skip
"""Policies ranking by LAS queues -> their promotion knob (None: the policy's parameter)."""
_RATE = re.compile(r"([\d,.]+) steps/s")


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
        matrix: the scenario's throughput matrix (SRTF's remaining time).
    """

    def __init__(self, replay: Replay, spec: PolicySpec, matrix: ThroughputMatrix) -> None:
        self.replay, self.spec, self.matrix = replay, spec, matrix
        self.name = replay.sim.policy
        self._jobs = replay.sim.jobs.set_index(replay.sim.jobs["job_id"].astype(str))
        segments = replay.sim.segments
        self._segment_rows = segments.groupby(segments["job_id"].astype(str)).indices
        self._started = self._started_rows()

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
        if moved and not victims and self._key_name():
            lines.append(self._key_name())
        lines += [self.start(job, at) for job in started]
        waiting = rows[rows["event"] == "waiting"]
        for reason, group in waiting.groupby("reason", sort=False):
            jobs = list(group["job_id"].astype(str))
            who = f"Job {jobs[0]} waits" if len(jobs) == 1 else f"Jobs {_names(jobs)} wait"
            lines.append(f"{who}: {self.waiting_many(jobs, str(reason), at)}")
        return lines

    def _preemption(self, victims: list[str], started: list[str], at: float) -> str:
        keyed = self._key_name()
        victim_text = "; ".join(f"job {j}{self._key(j, at)}" for j in victims)
        text = f"{self.name} preempted {victim_text}"
        if started:
            text += "; for " + ", ".join(f"job {j}{self._key(j, at)}" for j in started)
        else:
            text += " (no job took its GPUs at once)"
        return text + (f". {keyed}" if keyed else ".")

    def preempted_why(self, job: str, at: float) -> str:
        """Why ``job`` was preempted at ``at``, in a sentence."""
        rows = self.replay.rows_at(at)
        started = rows[(rows["event"] == "started")]["job_id"].astype(str).tolist()
        moved = set(rows[rows["event"] == "migrated"]["job_id"].astype(str))
        return self._preemption([job], [j for j in started if j not in moved], at)

    def _key_name(self) -> str:
        if self.spec.name == "dally":
            return (
                "Dally ranks jobs as LAS does (lowest queue first) and, at a round boundary, "
                "may preempt a job less network-sensitive (step time across racks over "
                "node-local) to give a more sensitive one a consolidated placement."
            )
        if self.spec.name in LAS_FAMILY:
            return "LAS serves the lowest queue first (least attained service), FIFO within it."
        if self.spec.name == "srtf":
            return "SRTF serves the least remaining work first."
        if self.spec.name.startswith("gavel"):
            return (
                "Gavel re-solves each job's share of time on each GPU type and jobs take "
                "turns round by round, those furthest behind their share first."
            )
        return ""

    def _key(self, job: str, at: float) -> str:
        """The policy's ranking key of ``job`` at ``at``, as ``": 3.1 GPU-h attained, queue 2"``."""
        if self.spec.name in LAS_FAMILY:
            attained, queue = self.las_queue(job, at)
            text = f": {_gpu_h(attained)} GPU-h attained, queue {queue + 1}"
            if self.spec.name == "dally":
                sensitivity = float(self._jobs.loc[job, "network_sensitivity"])
                text += f", network sensitivity {sensitivity:.2f}×"
            promoted = self._promoted_at(job, at)
            if promoted > 0:
                text += (
                    f" (promoted to queue 1 at {clock(promoted)}: it had waited "
                    f"{self._knob():g}× its last run)"
                )
            return text
        if self.spec.name == "srtf":
            return f": {duration_text(self.remaining_s(job, at))} of work left on its fastest GPU"
        if self.spec.name.startswith("fifo") or self.spec.name == "gavel_fifo":
            return f": arrived at {clock(self.replay.arrival_s[job])}"
        return ""

    def attained_gpu_s(self, job: str, at: float, since: float = 0.0) -> float:
        """GPU-seconds ``job`` held between ``since`` and ``at`` (segments, all lanes)."""
        rows = self._segments(job)
        if rows is None:
            return 0.0
        start = rows["start_s"].clip(lower=since)
        held = (rows["end_s"].clip(upper=at) - start).clip(lower=0.0)
        return float((held * rows["num_gpus"]).sum())

    def las_queue(self, job: str, at: float) -> tuple[float, int]:
        """(attained GPU-s since the last promotion, 0-based LAS queue) of ``job`` at ``at``."""
        from engine.policies.las.policy import parse_thresholds

        thresholds = parse_thresholds(str(self.spec.params.get("queue_thresholds_gpu_s", "3600")))
        since = self._promoted_at(job, at)
        service = self.attained_gpu_s(job, at, since)
        return service, sum(service >= t for t in thresholds)

    def _promoted_at(self, job: str, at: float) -> float:
        """The last promotion time of ``job`` before ``at`` (0 if none): a preempted job that
        waited ``promote_knob`` x its last run is promoted at the next round boundary."""
        knob = self._knob()
        rows = self._segments(job)
        round_s = self.replay.round_s
        if rows is None or knob <= 0 or round_s <= 0:
            return 0.0
        stretches = rows.drop_duplicates("start_s").sort_values("start_s")
        promoted = 0.0
        starts = stretches["start_s"].tolist()
        for i, row in enumerate(stretches.itertuples(index=False)):
            if row.end_reason != "preempted":
                continue
            due = row.end_s + knob * (row.end_s - row.start_s)
            boundary = math.ceil(due / round_s - 1e-9) * round_s
            restart = starts[i + 1] if i + 1 < len(starts) else math.inf
            if boundary <= at and boundary <= restart:
                promoted = boundary
        return promoted

    def _knob(self) -> float:
        knob = LAS_FAMILY.get(self.spec.name)
        return float(self.spec.params.get("promote_knob", 2.0)) if knob is None else knob

    def remaining_s(self, job: str, at: float) -> float:
        """SRTF's remaining time of ``job`` at ``at``: steps left over its fastest rate."""
        info = self._jobs.loc[job]
        done = 0.0
        rows = self._segments(job)
        rates = dict(self._started.get(job, ()))
        for row in () if rows is None else rows.drop_duplicates("start_s").itertuples():
            productive = min(row.end_s, at) - row.start_s - row.restore_s
            done += max(0.0, productive) * (_rate(rates.get(row.start_s, "")) or 0.0)
        best = max(
            (self.matrix.steps_per_s(str(info["job_type"]), wt, int(info["scale_factor"]))
             for wt in self.replay.layout.capacity
             if self.matrix.fits(str(info["job_type"]), wt)),
            default=0.0,
        )  # fmt: skip
        left = max(0.0, float(info["total_steps"]) - done)
        return left / best if best > 0 else math.inf

    def migration(self, job: str, at: float) -> str:
        """``"Gavel moved job 3 from 1 × k80 on n1 (0.62 steps/s) to ... (7.1× the speed)"``."""
        before = self._started_detail(job, at, before=True)
        after = self._started_detail(job, at, before=False)
        text = f"{self.name} moved job {job} from {_placement(before)} to {_placement(after)}"
        old, new = _rate(before), _rate(after)
        if old and new:
            text += f": {new / old:.2g}× the speed"
        return text + "."

    def start(self, job: str, at: float) -> str:
        """``"FIFO started job 4 on 2 × v100 on n0 (node-local), 3.10 steps/s."``, with HadarE's
        copies said in words."""
        detail = self._started_detail(job, at, before=False)
        rows = self._segments(job)
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
            if self.spec.name == "fifo" and not self.spec.params.get("backfill", False):
                queue = self.replay.queue(at)
                if queue and queue[0].job_id not in jobs:
                    text += (
                        f". FIFO without backfill starts no job behind the head of the queue "
                        f"(job {queue[0].job_id}, {_gpus(queue[0].scale_factor)}), which does "
                        "not fit: head-of-line blocking"
                    )
            return text + "."
        return f"{reason}."

    def _segments(self, job: str) -> pd.DataFrame | None:
        """``job``'s rows of the segments table (None if it never ran)."""
        rows = self._segment_rows.get(job)
        return None if rows is None else self.replay.sim.segments.iloc[rows]

    def _started_detail(self, job: str, at: float, before: bool) -> str:
        """The log's detail of ``job``'s start at ``at`` (``before``: its last start before)."""
        starts = self._started.get(job, [])
        if before:
            earlier = [detail for time_s, detail in starts if time_s < at]
            return earlier[-1] if earlier else ""
        return next((detail for time_s, detail in starts if time_s == at), "")

    def _started_rows(self) -> dict[str, list[tuple[float, str]]]:
        """Job -> its "started" rows of the log as (time, detail), in time order."""
        log = self.replay.log
        started: dict[str, list[tuple[float, str]]] = {}
        if log.empty:
            return started
        rows = log[log["event"] == "started"]
        for job, time_s, detail in zip(
            rows["job_id"].astype(str), rows["time_s"], rows["detail"], strict=True
        ):
            started.setdefault(job, []).append((float(time_s), str(detail)))
        return started

    def _sf(self, job: str) -> int:
        return int(self.replay.scale_factor[job])

    def _jct(self, job: str) -> float:
        return float(self._jobs.loc[job, "jct_s"])


def _names(jobs: list[str]) -> str:
    """``["a", "b", "c"] -> "a, b and c"``."""
    return jobs[0] if len(jobs) == 1 else f"{', '.join(jobs[:-1])} and {jobs[-1]}"


def _gpus(count: int) -> str:
    return f"{count} GPU" + ("" if count == 1 else "s")


def _rate(detail: str) -> float | None:
    found = _RATE.search(detail)
    return float(found.group(1).replace(",", "")) if found else None


def _rate_text(detail: str) -> str:
    rate = _rate(detail)
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
