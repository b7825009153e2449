"""Collects the simulation's output rows and turns them into the result tables."""

from __future__ import annotations

from array import array

import numpy as np
import pandas as pd

from engine.cluster import Placement
from engine.results import JOB_RESULT_COLUMNS, UTILIZATION_COLUMNS
from engine.segments import Segments, text_column
from engine.state import JobState

_PLACEMENT_LANES_MAX = 65_536
"""Bound on the placement objects :class:`Recorder` remembers by identity (a cluster shares one
per distinct placement; objects beyond the bound take the keyed path)."""


class Recorder:
    """Appends Gantt segments and utilization steps as the run goes."""

    def __init__(self, capacity: dict[str, int]) -> None:
        self.capacity = capacity  # live: less the failed and spare nodes (engine.faults)
        self.table_capacity = dict(capacity)  # the whole GPU mix, the tables' capacity_gpus
        self.segments = Segments()
        self.util_rows: list[tuple[float, str, int]] = []
        self._last_busy: dict[str, int] = {}
        self.keep_segments = True  # False: close_segment records nothing (summary-only runs)
        self._one_node_lanes: dict[tuple[object, ...], int] = {}
        self._placement_lanes: dict[int, tuple[Placement, tuple[int, ...]]] = {}  # by id()
        self.shared_s: dict[int, float] = {}  # by job index: wall time in shared groups
        self.shared_exclusive_s: dict[int, float] = {}  # the same progress at exclusive speed
        self.hosts: dict[tuple[int, float], int] = {}  # (job index, segment start) -> host index

    def shared_segment(self, job: JobState, held_s: float, share_speed: float, host: int) -> None:
        """Books the ``held_s`` seconds ``job``'s segment ran in a shared group at
        ``share_speed`` of its exclusive speed, on the GPUs of job index ``host`` (-1: its own)
        (:class:`engine.allocation.grants.Grant`; :mod:`engine.sharing`)."""
        index = job.index
        if host >= 0:
            self.hosts[(index, job.segment_start_s)] = host
        self.shared_s[index] = self.shared_s.get(index, 0.0) + held_s
        exclusive_s = self.shared_exclusive_s.get(index, 0.0)
        self.shared_exclusive_s[index] = exclusive_s + held_s * share_speed

    def close_segment(self, job: JobState, placement: Placement, now_s: float, reason: str) -> None:
        """One row per lane of the placement (:func:`lanes`)."""
        if not self.keep_segments:
            return
        restore_until_s = job.restore_until_s
        if now_s < restore_until_s:  # min(restore_until_s, now_s), without boxing floats
            restore_until_s = now_s
        restore_s = restore_until_s - job.segment_start_s
        if not restore_s > 0.0:  # max(0.0, restore_s)
            restore_s = 0.0
        segments = self.segments
        seen = self._placement_lanes.get(id(placement))
        if seen is not None and seen[0] is placement:  # the cluster's shared placements
            codes = seen[1]
        else:
            codes = self._lane_codes(placement)
        start_s = job.segment_start_s
        if len(codes) == 1:
            segments.add(job.index, start_s, now_s, restore_s, reason, codes[0])
            return
        for code in codes:
            segments.add(job.index, start_s, now_s, restore_s, reason, code)

    def _lane_codes(self, placement: Placement) -> tuple[int, ...]:
        """The lane codes of a placement's rows, the text of each distinct lane made once. The
        first :data:`_PLACEMENT_LANES_MAX` placement objects are also remembered by identity
        (the entry holds the object, so its id is not reused): the cluster shares one object
        per distinct placement (:meth:`engine.cluster.ClusterState.place`), so restarts find
        their lanes without building and hashing a key."""
        segments = self.segments
        if len(placement.nodes) == 1:  # the common case, without building lanes
            node, count = placement.nodes[0], placement.counts[0]
            key = (node, count, placement.worker_type, placement.num_gpus, placement.racks[0],
                   placement.level, placement.combine)  # fmt: skip
            code = self._one_node_lanes.get(key)
            if code is None:  # the row's text, made once per key
                code = self._one_node_lanes[key] = segments.lane_code(
                    (placement.worker_type, placement.num_gpus, f"n{node}", placement.racks[0],
                     placement.level, 0, placement.combine, str(count))
                )  # fmt: skip
            codes: tuple[int, ...] = (code,)
        elif placement.combine != "copies" and not placement.node_types:  # one lane, one type
            nodes, counts = placement.nodes, placement.counts
            codes = (
                segments.lane_code(
                    (placement.worker_type, sum(counts), ",".join([f"n{n}" for n in nodes]),
                     ",".join(placement.racks), placement.level, 0, placement.combine,
                     ",".join([str(c) for c in counts]))
                ),
            )  # fmt: skip
        else:
            codes = tuple(
                segments.lane_code(
                    (
                        worker_type,
                        sum(counts),
                        ",".join(f"n{n}" for n in nodes),
                        ",".join(placement.racks),
                        placement.level,
                        lane,
                        placement.combine,
                        ",".join(str(c) for c in counts),
                    )
                )  # fmt: skip
                for lane, (worker_type, nodes, counts) in enumerate(lanes(placement))
            )
        if len(self._placement_lanes) < _PLACEMENT_LANES_MAX:
            self._placement_lanes[id(placement)] = (placement, codes)
        return codes

    def utilization(self, now_s: float, free_gpus: dict[str, int]) -> None:
        """Records busy GPUs per worker type if they changed since the last record."""
        for worker_type, capacity in self.capacity.items():
            busy = capacity - free_gpus[worker_type]
            if self._last_busy.get(worker_type) != busy:
                self._last_busy[worker_type] = busy
                self.util_rows.append((now_s, worker_type, busy))

    def segments_table(self, job_ids: list[str]) -> pd.DataFrame:
        """The ``segments`` table (:mod:`engine.results`); ``job_ids`` by job index."""
        return self.segments.table(job_ids)

    def utilization_table(self) -> pd.DataFrame:
        """The utilization step functions (:mod:`engine.results`): rows by worker type, then
        time; of several rows of one type at one time, the last. Built from per-type lists
        (rows arrive in time order), not by a pandas dedupe, map and sort."""
        if not self.util_rows:  # the empty frame's dtypes are pandas' own
            return self._utilization_frame()
        by_type: dict[str, tuple[list[float], list[int]]] = {}
        for now_s, worker_type, busy in self.util_rows:
            times, busy_gpus = by_type.setdefault(worker_type, ([], []))
            if times and times[-1] >= now_s:
                if times[-1] > now_s:  # out of time order: never from the engine's clock
                    return self._utilization_frame()
                busy_gpus[-1] = busy
                continue
            times.append(now_s)
            busy_gpus.append(busy)
        names = sorted(by_type)
        time_s = [t for name in names for t in by_type[name][0]]
        busy_column = np.array([b for name in names for b in by_type[name][1]], dtype=np.int64)
        capacity = np.repeat(
            np.array([self.table_capacity[name] for name in names], dtype=np.int64),
            [len(by_type[name][0]) for name in names],
        )
        columns = {
            "time_s": np.array(time_s, dtype=float),
            "worker_type": [name for name in names for _ in by_type[name][0]],
            "busy_gpus": busy_column,
            "capacity_gpus": capacity,
            "utilization": busy_column / capacity,
        }
        return pd.DataFrame(columns, columns=list(UTILIZATION_COLUMNS))

    def _utilization_frame(self) -> pd.DataFrame:
        """:meth:`utilization_table` with pandas, for rows in any order."""
        frame = pd.DataFrame(self.util_rows, columns=["time_s", "worker_type", "busy_gpus"])
        frame = frame.drop_duplicates(["time_s", "worker_type"], keep="last")
        frame["capacity_gpus"] = frame["worker_type"].map(self.table_capacity).astype(int)
        frame["utilization"] = frame["busy_gpus"] / frame["capacity_gpus"]
        return frame.sort_values(["worker_type", "time_s"], kind="stable").reset_index(drop=True)[
            list(UTILIZATION_COLUMNS)
        ]


def jobs_table(
    jobs: list[JobState], isolated_s: np.ndarray, area_at_end: np.ndarray, total_gpus: int
) -> pd.DataFrame:
    """The per-job result table (see :mod:`engine.results`).

    Built column by column from one pass over the jobs (each attribute read directly, not by
    name), the arithmetic in numpy (the same IEEE operations, in the same order, as per-row
    Python floats).

    Args:
        isolated_s: each job's run time alone on the whole cluster's capacity-weighted mix.
        area_at_end: integral of the number of jobs in the system up to each job's completion.
        total_gpus: cluster size C. A 1/N share holds C/N GPUs, so an ``sf``-GPU gang runs a
            ``min(1, C / (N sf))`` fraction of the time (Themis / Gavel finish-time fairness).
    """
    c = _JobColumns(jobs)
    arrival, scale_factor, first, completion = c.arrival, c.scale_factor, c.first, c.completion
    held, productive, attained = c.held, c.productive, c.attained
    with np.errstate(divide="ignore", invalid="ignore"):
        jct = completion - arrival
        in_system = np.where(jct > 0, (area_at_end - c.area_at_arrival) / jct, 1.0)
        share = in_system * scale_factor / total_gpus
        isolated = np.asarray(isolated_s, dtype=float) * np.where(share > 1.0, share, 1.0)
        columns = (
            text_column(c.job_id), arrival, text_column(c.job_type), scale_factor,
            c.total_steps, c.priority_weight, first, completion,
            jct, first - arrival, held, c.num_preemptions,
            np.where(productive > 0, c.comm / productive, 0.0), attained, c.attained_ref,
            np.where(held <= 0, 0.0, attained / (held * scale_factor)),  # held per requested
            isolated, jct / isolated, c.network_sensitivity, c.consolidation_wait,
            text_column(c.main_worker_type), c.num_failures, c.lost_work, c.checkpoint,
        )  # fmt: skip
    # copy=False: the frame takes these fresh arrays as they are, without a second, consolidated
    # copy of its float columns (~160 MB at the peak of a 1,000,000-job run, issue 37)
    return pd.DataFrame(dict(zip(JOB_RESULT_COLUMNS, columns, strict=True)), copy=False)


class _JobColumns:
    """Every job's values of the jobs table's inputs, read in one pass (floats as float64
    arrays, counts as int64, text as lists). Floats are gathered in ``array('d')`` buffers, 8
    bytes a value, not lists of float objects (32 bytes a value; 15 lists of them were ~480 MB
    at the peak of a 1,000,000-job run, issue 37), and handed to numpy without a copy."""

    def __init__(self, jobs: list[JobState]) -> None:
        nan = float("nan")
        job_id: list[str] = []
        job_type: list[str] = []
        main_type: list[str] = []
        ints: tuple[list[int], list[int], list[int]] = ([], [], [])  # + num_failures
        arrival = _doubles()
        total_steps = _doubles()
        priority_weight = _doubles()
        first = _doubles()
        completion = _doubles()
        held = _doubles()
        productive = _doubles()
        comm = _doubles()
        attained = _doubles()
        attained_ref = _doubles()
        area_at_arrival = _doubles()
        sensitivity = _doubles()
        wait = _doubles()
        lost_work = _doubles()
        checkpoint = _doubles()
        for job in jobs:
            job_id.append(job.job_id)
            job_type.append(job.job_type)
            main_type.append(job.main_worker_type())
            ints[0].append(job.scale_factor)
            ints[1].append(job.num_preemptions)
            arrival.append(job.arrival_s)
            total_steps.append(job.total_steps)
            priority_weight.append(job.priority_weight)
            first.append(nan if job.first_start_s is None else job.first_start_s)
            completion.append(nan if job.completion_s is None else job.completion_s)
            held.append(job.held_s)
            productive.append(job.productive_s)
            comm.append(job.comm_s)
            attained.append(job.attained_service_gpu_s)
            attained_ref.append(job.attained_service_ref_gpu_s)
            area_at_arrival.append(job.area_at_arrival)
            sensitivity.append(job.network_sensitivity)
            wait.append(job.consolidation_wait_s)
            ints[2].append(job.num_failures)
            lost_work.append(job.lost_work_gpu_s)
            checkpoint.append(job.checkpoint_gpu_s)
        self.job_id, self.job_type, self.main_worker_type = job_id, job_type, main_type
        self.scale_factor = np.array(ints[0], dtype=np.int64)
        self.num_preemptions = np.array(ints[1], dtype=np.int64)
        self.arrival, self.total_steps = _floats(arrival), _floats(total_steps)
        self.priority_weight, self.first = _floats(priority_weight), _floats(first)
        self.completion, self.held = _floats(completion), _floats(held)
        self.productive, self.comm = _floats(productive), _floats(comm)
        self.attained, self.attained_ref = _floats(attained), _floats(attained_ref)
        self.area_at_arrival = _floats(area_at_arrival)
        self.network_sensitivity, self.consolidation_wait = _floats(sensitivity), _floats(wait)
        self.num_failures = np.array(ints[2], dtype=np.int64)
        self.lost_work, self.checkpoint = _floats(lost_work), _floats(checkpoint)


def _doubles() -> array[float]:
    return array("d")


def _floats(values: array[float]) -> np.ndarray:
    return np.frombuffer(values, dtype=np.float64)


def lanes(placement: Placement) -> list[tuple[str, list[int], list[int]]]:
    """Gantt lanes of a placement as (worker type, nodes, GPUs per node): one per copy for
    ``copies`` (each node entry is a copy), one per worker type for a mixed placement, else one."""
    entries = zip(placement.types_of_nodes(), placement.nodes, placement.counts, strict=True)
    if placement.combine == "copies":
        return [(wt, [node], [count]) for wt, node, count in entries]
    if not placement.node_types:
        return [(placement.worker_type, list(placement.nodes), list(placement.counts))]
    by_type: dict[str, tuple[list[int], list[int]]] = {}
    for wt, node, count in entries:
        nodes, counts = by_type.setdefault(wt, ([], []))
        nodes.append(node)
        counts.append(count)
    return [(wt, nodes, counts) for wt, (nodes, counts) in by_type.items()]
