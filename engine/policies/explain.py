"""How a policy explains its decisions: its rule in a sentence and each job's ranking key.

Every policy names an :class:`Explanation` (``Policy.explanation``, :mod:`engine.policies.base`)
that reads the run's records after the run (:class:`RunRecords`: the jobs, segments and decision
log tables) and says, for a job at a moment, what the policy ranked it by and the values
(:class:`KeyTerm`). The run itself is untouched: nothing here is in the result tables, so their
hashes (``tests/engine/test_native.py``) cannot change. A caller (the dashboard's words) turns
the terms into text by their units alone, so it needs no policy's name or rule [R].

The terms shared by several policies are here: arrival time (FIFO order), remaining work on the
job's fastest worker type (SRTF, Gu et al.'s and Gavel's baseline) and attained service
(Tiresias LAS, Gu et al., NSDI 2019). A policy family's own terms live in its package
(:mod:`engine.policies.las.explain`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import pandas as pd

from engine.step_time.throughput import ThroughputMatrix

UNITS = ("gpu_s", "moment_s", "duration_s", "ratio", "count")
"""How a :class:`KeyTerm` value reads: GPU-seconds (said as GPU-hours), a moment of the run
(s, said as a clock), a duration (s), a plain ratio, a whole number."""
_RATE = re.compile(r"([\d,.]+) steps/s")


@dataclass(frozen=True)
class KeyTerm:
    """One value a policy ranked a job by at a moment.

    Attributes:
        text: the words, with ``{}`` where the value goes (``"{} GPU-h attained"``).
        value: the value in the unit ``unit`` names.
        unit: one of :data:`UNITS`.
        aside: said in brackets after the other terms (a state, not a rank).
    """

    text: str
    value: float
    unit: str
    aside: bool = False

    def __post_init__(self) -> None:
        if self.unit not in UNITS:
            raise ValueError(f"KeyTerm {self.text!r}: unit {self.unit!r} is not one of {UNITS}")


class RunTables(Protocol):
    """The tables of a policy's result an explanation reads (:class:`engine.results.
    SimulationResult` is one; named here so that this module, which :mod:`engine.policies.base`
    imports, does not import the results module back)."""

    @property
    def jobs(self) -> pd.DataFrame: ...
    @property
    def segments(self) -> pd.DataFrame: ...
    @property
    def decisions(self) -> pd.DataFrame | None: ...


class RunRecords:
    """One policy's run indexed for explanations: per job, its segments and its starts.

    Args:
        sim: the policy's result (jobs, segments; ``decisions`` may be None).
        matrix: the scenario's throughput matrix (steps/s per job type, worker type, GPUs).
        worker_types: the cluster's worker types (their names).
        round_s: the round length (s); 0 for a policy without rounds.
    """

    def __init__(
        self,
        sim: RunTables,
        matrix: ThroughputMatrix,
        worker_types: Iterable[str],
        round_s: float,
    ) -> None:
        self.sim, self.matrix, self.round_s = sim, matrix, round_s
        self.worker_types = tuple(worker_types)
        self.jobs = sim.jobs.set_index(sim.jobs["job_id"].astype(str))
        segments = sim.segments
        self._segment_rows = segments.groupby(segments["job_id"].astype(str)).indices
        self.started = _started_rows(sim.decisions)
        self._columns: dict[str, dict[str, float]] = {}
        self._ids: list[str] = sim.jobs["job_id"].astype(str).tolist()

    def segments(self, job: str) -> pd.DataFrame | None:
        """``job``'s rows of the segments table (None if it never ran)."""
        rows = self._segment_rows.get(job)
        return None if rows is None else self.sim.segments.iloc[rows]

    def job_value(self, job: str, column: str) -> float:
        """``job``'s number in ``column`` of the jobs table."""
        values = self._columns.get(column)
        if values is None:
            column_values: list[float] = self.jobs[column].astype(float).tolist()
            values = dict(zip(self._ids, column_values, strict=True))
            self._columns[column] = values
        return values[job]

    def attained_gpu_s(self, job: str, at_s: float, since_s: float = 0.0) -> float:
        """GPU-seconds ``job`` held between ``since_s`` and ``at_s`` (segments, all lanes)."""
        rows = self.segments(job)
        if rows is None:
            return 0.0
        start = rows["start_s"].clip(lower=since_s)
        held = (rows["end_s"].clip(upper=at_s) - start).clip(lower=0.0)
        return float((held * rows["num_gpus"]).sum())

    def started_detail(self, job: str, at_s: float, before: bool) -> str:
        """The log's detail of ``job``'s start at ``at_s`` (``before``: its last start before)."""
        starts = self.started.get(job, [])
        if before:
            earlier = [detail for time_s, detail in starts if time_s < at_s]
            return earlier[-1] if earlier else ""
        return next((detail for time_s, detail in starts if time_s == at_s), "")

    def remaining_s(self, job: str, at_s: float) -> float:
        """Seconds of work ``job`` has left at ``at_s`` on its fastest fitting worker type: total
        steps less the steps done in each stretch (after its restore) at the rate the log gave
        its start, over the best steps/s of the throughput matrix (inf if it fits nowhere)."""
        rates = dict(self.started.get(job, ()))
        done = 0.0
        rows = self.segments(job)
        if rows is not None:
            stretches = rows.drop_duplicates("start_s")
            starts: list[float] = stretches["start_s"].astype(float).tolist()
            ends: list[float] = stretches["end_s"].astype(float).tolist()
            restores: list[float] = stretches["restore_s"].astype(float).tolist()
            for start_s, end_s, restore_s in zip(starts, ends, restores, strict=True):
                productive = min(end_s, at_s) - start_s - restore_s
                done += max(0.0, productive) * (log_rate(rates.get(start_s, "")) or 0.0)
        job_type = str(self.jobs.loc[job, "job_type"])
        gpus = int(self.job_value(job, "scale_factor"))
        best = max(
            (self.matrix.steps_per_s(job_type, wt, gpus)
             for wt in self.worker_types if self.matrix.fits(job_type, wt)),
            default=0.0,
        )  # fmt: skip
        left = max(0.0, self.job_value(job, "total_steps") - done)
        return left / best if best > 0 else math.inf


class Explanation:
    """A policy's own account of its decisions (the default: no rule, no ranking key).

    Args:
        params: the policy's ``Params`` as the run used them.
        records: the run (:class:`RunRecords`).

    Attributes:
        rule: the policy's rule in a sentence (said when it preempts or migrates); "" for none.
        blocking: for a policy that starts no job behind a head of the queue that does not fit,
            what it does in words (``"FIFO without backfill starts no job behind the head of
            the queue"``); "" for a policy that never blocks so.
    """

    rule: ClassVar[str] = ""

    def __init__(self, params: Any, records: RunRecords) -> None:
        self.params, self.records = params, records
        self.blocking = ""

    def key(self, job: str, at_s: float) -> tuple[KeyTerm, ...]:
        """What the policy ranked ``job`` by at ``at_s``, most significant first."""
        return ()


class ArrivalOrder(Explanation):
    """Jobs in arrival order (FIFO)."""

    def key(self, job: str, at_s: float) -> tuple[KeyTerm, ...]:
        arrival_s = self.records.job_value(job, "arrival_s")
        return (KeyTerm("arrived at {}", arrival_s, "moment_s"),)


class RemainingWork(Explanation):
    """Least remaining work first (SRTF: remaining steps over the fastest steps/s)."""

    rule: ClassVar[str] = "SRTF serves the least remaining work first."

    def key(self, job: str, at_s: float) -> tuple[KeyTerm, ...]:
        left_s = self.records.remaining_s(job, at_s)
        return (KeyTerm("{} of work left on its fastest GPU", left_s, "duration_s"),)


class RemainingGpuWork(Explanation):
    """Least remaining work x GPUs first (SRSF, Tiresias's and Muri's baseline)."""

    rule: ClassVar[str] = "SRSF serves the least remaining GPU-time (work left × GPUs) first."

    def key(self, job: str, at_s: float) -> tuple[KeyTerm, ...]:
        gpus = self.records.job_value(job, "scale_factor")
        gpu_s = self.records.remaining_s(job, at_s) * gpus
        return (KeyTerm("{} GPU-h of work left on its fastest GPUs", gpu_s, "gpu_s"),)


class AttainedService(Explanation):
    """Least attained service first (GPU-seconds held so far, from the segments)."""

    def key(self, job: str, at_s: float) -> tuple[KeyTerm, ...]:
        held = self.records.attained_gpu_s(job, at_s)
        return (KeyTerm("{} GPU-h attained", held, "gpu_s"),)


def log_rate(detail: str) -> float | None:
    """The steps/s a decision-log detail states (``"... 3.10 steps/s"``), None if none."""
    found = _RATE.search(detail)
    return float(found.group(1).replace(",", "")) if found else None


def _started_rows(log: pd.DataFrame | None) -> dict[str, list[tuple[float, str]]]:
    """Job -> its "started" rows of the log as (time, detail), in time order."""
    started: dict[str, list[tuple[float, str]]] = {}
    if log is None or log.empty:
        return started
    rows = log[log["event"] == "started"]
    for job, time_s, detail in zip(
        rows["job_id"].astype(str), rows["time_s"], rows["detail"], strict=True
    ):
        started.setdefault(job, []).append((float(time_s), str(detail)))
    return started
