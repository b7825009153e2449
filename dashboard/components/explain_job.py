"""Explain a job: pick a policy and a job id, read its life from the engine's decision log."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.formatting import human_duration
from engine.results import SimulationResult
from engine.simulator import DECISION_LOG_MAX_JOBS

WHY = {
    "no room": "no GPU type it can use had enough free GPUs",
    "held for consolidation": "the policy held it back for a better-consolidated placement",
    "lower priority": "GPUs were free, but the policy gave them to jobs it ranks higher",
}


def job_story(log: pd.DataFrame, job_id: str) -> list[str]:
    """One sentence per row of ``job_id``'s decision log, in time order."""
    lines = []
    for row in log[log["job_id"].astype(str) == job_id].itertuples(index=False):
        at = f"at {human_duration(float(row.time_s))}"
        if row.event == "waiting":
            lines.append(
                f"{at}: waiting, #{row.queue_position} in the queue, because "
                f"{WHY.get(str(row.reason), row.reason)} ({row.detail})."
            )
        elif row.event == "started":
            lines.append(f"{at}: started on {row.detail}.")
        elif row.event in ("preempted", "migrated"):
            lines.append(f"{at}: {row.event} {row.detail}.")
        else:
            lines.append(f"{at}: {row.event}.")
    return lines


def render_explain_job(sims: list[SimulationResult], default_job: str | None = None) -> None:
    """A policy picker, a job picker (or typed id) and the job's story under that policy."""
    st.subheader("Explain a job")
    usable = [s for s in sims if s.decisions is not None]
    if not usable:
        st.caption(
            "This run recorded no decision log: it is kept for traces of at most "
            f"{DECISION_LOG_MAX_JOBS:,} jobs, because it grows with the queue's length times "
            "the number of times free GPUs change."
        )
        return
    left, right = st.columns([1, 2])
    names = [s.policy for s in usable]
    policy = left.selectbox("Under policy", names, key="explain_policy")
    sim = usable[names.index(policy)]
    ids = list(sim.jobs.sort_values(["arrival_s", "job_id"])["job_id"].astype(str))
    job_id = right.selectbox(
        "Job (type to search its id)", ids, key="explain_job",
        index=ids.index(default_job) if default_job in ids else 0,
    )  # fmt: skip
    story = job_story(sim.decisions, str(job_id))
    st.markdown("\n".join(f"- {line}" for line in story) or "No events recorded.")
