"""Load as a what-if on a resolved jobs table: repeat or trim to N jobs, scale the arrival rate.

The rules are those of :class:`engine.config.LoadConfig` [R: our reconstruction; no paper in
``shared/docs`` defines how to scale a real trace's load]. They are deterministic: the same
table and config give the same jobs, whatever the cluster.
"""

from __future__ import annotations

import pandas as pd

from engine.config import LoadConfig
from engine.errors import ConfigError
from engine.traces.validate import sort_jobs

REPEAT_SEPARATOR = "~"  # job id of copy k of job "philly-12": "philly-12~k"


def apply_load(jobs: pd.DataFrame, load: LoadConfig) -> pd.DataFrame:
    """The jobs under ``load`` (see :class:`engine.config.LoadConfig`).

    Args:
        jobs: a canonical jobs table (`engine.traces.schema`), sorted by arrival.

    Returns:
        A canonical jobs table, sorted by arrival then job id; ``jobs`` itself when the load is
        the default.

    Raises:
        ConfigError: for ``arrival_scale <= 0`` or ``num_jobs < 1``.
    """
    if not load.arrival_scale > 0:
        raise ConfigError(f"load.arrival_scale must be > 0, got {load.arrival_scale}")
    if load.num_jobs is not None and load.num_jobs < 1:
        raise ConfigError(f"load.num_jobs must be >= 1, got {load.num_jobs}")
    if load.arrival_scale == 1.0 and load.num_jobs is None:
        return jobs
    out = jobs if load.num_jobs is None else repeat_or_trim(jobs, load.num_jobs)
    if load.arrival_scale != 1.0:
        out = out.assign(arrival_s=out["arrival_s"] / load.arrival_scale)
    return sort_jobs(out)


def repeat_or_trim(jobs: pd.DataFrame, num_jobs: int) -> pd.DataFrame:
    """The first ``num_jobs`` jobs of the trace repeated back to back (rule 1 of LoadConfig).

    Copy k (k >= 1) arrives ``k x period`` later, ``period = span + span / (n - 1)`` for a trace
    of n jobs spanning ``span`` seconds (one mean inter-arrival gap between copies; 1 s for a
    one-job trace, whose span is 0).
    """
    n = len(jobs)
    if num_jobs <= n:
        return jobs.head(num_jobs).reset_index(drop=True)
    arrivals = jobs["arrival_s"].to_numpy(dtype=float)
    span = float(arrivals.max() - arrivals.min())
    period = span + span / (n - 1) if n > 1 and span > 0 else max(span, 1.0)
    copies = [jobs]
    for k in range(1, -(-num_jobs // n)):
        copies.append(
            jobs.assign(
                job_id=jobs["job_id"] + f"{REPEAT_SEPARATOR}{k}",
                arrival_s=jobs["arrival_s"] + k * period,
            )
        )
    return pd.concat(copies, ignore_index=True).head(num_jobs).reset_index(drop=True)


def load_note(load: LoadConfig, before: int, after: int) -> str | None:
    """A note for the user when the load changed the trace, else None."""
    if load.arrival_scale == 1.0 and load.num_jobs is None:
        return None
    parts = []
    if load.num_jobs is not None:
        verb = "repeated" if load.num_jobs > before else "trimmed"
        parts.append(f"{verb} from {before} to {after} jobs")
    if load.arrival_scale != 1.0:
        parts.append(f"arrival rate x{load.arrival_scale:g} (inter-arrival times / factor)")
    return "load what-if: " + ", ".join(parts)
