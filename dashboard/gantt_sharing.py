"""Which jobs a Gantt bar shares its GPUs with, for every segment at once.

Jobs that share GPUs (:mod:`engine.sharing`) run in groups: a guest's segments name their
``host_job``, the host's own segments leave it empty. A segment's partners are the other jobs
with a segment of the same group overlapping it in time. The lookup is an interval self-join
done with arrays: the segments sorted by (group, start), each row's candidates are the rows of
its group that start before it ends, from the first row by which the group's latest end so far
passes its start (``searchsorted`` over integer keys: group, then the rank of a time), the
candidate pairs are expanded with ``np.repeat`` and filtered, and each row's partners are
joined in one pass per partner count. On the Muri testbed's Muri-S run (38,975 segments) it
takes 0.18 s CPU where a loop over rows took 0.56 s (``benchmarks/bench_gantt.py``; the loop
is kept as the reference in ``tests/dashboard``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def with_sharing(segments: pd.DataFrame, jobs: pd.DataFrame) -> pd.DataFrame:
    """Adds ``sharing`` to a copy of ``segments``: the words a shared Gantt bar carries.

    Args:
        segments: a segments table (job_id, start_s, end_s; ``host_job`` when the run shared
            GPUs, :mod:`engine.metrics_sharing`).
        jobs: its jobs table; ``slowdown_from_sharing`` is read when a segment shares.

    Returns:
        ``segments`` with ``sharing``: "shares its GPUs with <jobs> · slowdown ×<s>" (the
        partners sorted, the job's slowdown from sharing with 2 decimals) for a segment that
        overlaps another job's segment of its group; else "".
    """
    segments = segments.copy()
    segments["sharing"] = ""
    if "host_job" not in segments or segments.empty:
        return segments
    partners = sharing_partners(segments)
    shares = partners != ""
    if not shares.any():
        return segments
    job = segments["job_id"].astype(str)
    slowdown = job[shares].map(jobs.set_index(jobs["job_id"].astype(str))["slowdown_from_sharing"])
    factor = pd.Series(np.char.mod("%.2f", slowdown.to_numpy(float)), index=slowdown.index)
    words = "shares its GPUs with " + partners[shares] + " · slowdown ×" + factor
    segments.loc[shares, "sharing"] = words
    return segments


def sharing_partners(segments: pd.DataFrame) -> pd.Series:
    """The other jobs each segment shares its GPUs with (module docstring).

    Args:
        segments: job_id, start_s, end_s (s) and host_job ("" for a host's own segments).

    Returns:
        On ``segments``' index: the partners' job ids, sorted as text and joined by ", "; ""
        for a segment that shares with nobody.
    """
    job, names = pd.factorize(segments["job_id"].astype(str), sort=True)  # codes in text order
    host = segments["host_job"].astype(str).to_numpy()
    group = pd.factorize(np.where(host == "", names[job], host))[0]
    start, end = segments["start_s"].to_numpy(float), segments["end_s"].to_numpy(float)
    order = np.lexsort((start, group))
    group, start, end, job = group[order], start[order], end[order], job[order]
    reach = pd.Series(end).groupby(group).cummax().to_numpy()  # latest end so far, ascending
    times = np.unique(np.concatenate([start, end]))  # a time's rank keeps the keys exact integers
    base = group.astype(np.int64) * (len(times) + 1)
    begins, reaches = base + np.searchsorted(times, start), base + np.searchsorted(times, reach)
    first = np.searchsorted(reaches, begins + 1)  # rows before it ended before this one starts
    last = np.searchsorted(begins, base + np.searchsorted(times, end))  # start before it ends
    row, other = _pairs(first, last)
    hit = (end[other] > start[row]) & (job[other] != job[row])
    pair = np.unique(order[row[hit]].astype(np.int64) * len(names) + job[other[hit]])
    rows, partner = np.divmod(pair, len(names))  # by row, then partner
    words = np.full(len(segments), "", dtype=object)
    place = np.arange(len(rows)) - np.searchsorted(rows, rows)  # a partner's place in its row
    for n in range(int(place.max(initial=-1)) + 1):  # one pass per partner count
        at = place == n
        words[rows[at]] = words[rows[at]] + ("" if n == 0 else ", ") + names[partner[at]]
    return pd.Series(words, index=segments.index)


def _pairs(first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (row, other) with ``first[row] <= other < last[row]``, as two flat arrays."""
    counts = np.maximum(last - first, 0)
    row = np.repeat(np.arange(len(first)), counts)
    step = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    return row, np.repeat(first, counts) + step
