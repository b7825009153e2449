"""The Gantt's sharing words as first written (a Python loop over each group's segments),
kept as the plain reference that :func:`dashboard.gantt_sharing.with_sharing` is checked
against (``test_gantt_sharing.py``) and timed against (``benchmarks/bench_gantt.py``)."""

from __future__ import annotations

import numpy as np
import pandas as pd


def with_sharing_by_loop(segments: pd.DataFrame, jobs: pd.DataFrame) -> pd.DataFrame:
    """``segments`` with ``sharing``: "shares its GPUs with <jobs> · slowdown ×<s>" for a
    segment that overlaps another job's segment in its group (``host_job``, or the job itself
    when empty); else ""."""
    segments = segments.copy()
    segments["sharing"] = ""
    if "host_job" not in segments or segments.empty:
        return segments
    job = segments["job_id"].astype(str)
    group = segments["host_job"].astype(str).where(segments["host_job"].astype(str) != "", job)
    slowdown = job.map(jobs.set_index(jobs["job_id"].astype(str))["slowdown_from_sharing"])
    factor = [f"{value:.2f}" for value in slowdown.to_numpy(float)]
    start, end = segments["start_s"].to_numpy(float), segments["end_s"].to_numpy(float)
    ids, words = job.to_numpy(), segments["sharing"].to_numpy(dtype=object)
    for where in segments.groupby(group.to_numpy(), sort=False).indices.values():
        if len(where) < 2:
            continue
        where = where[np.argsort(start[where], kind="stable")]
        s, e, j = start[where], end[where], ids[where]
        first = np.searchsorted(s, s - float((e - s).max()), side="left")  # earlier may overlap
        last = np.searchsorted(s, e, side="left")  # rows starting before this one ends
        for row, (low, high) in enumerate(zip(first.tolist(), last.tolist(), strict=True)):
            if high - low < 2:
                continue  # only itself
            hit = (e[low:high] > s[row]) & (j[low:high] != j[row])
            if hit.any():
                others = ", ".join(sorted(set(j[low:high][hit].tolist())))
                i = where[row]
                words[i] = f"shares its GPUs with {others} · slowdown ×{factor[i]}"
    segments["sharing"] = words
    return segments
