"""Explain a job: pick a policy and a job id, read its life from the engine's decision log,
each event with its why (:mod:`dashboard.decision_words`)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.decision_words import Explainer
from dashboard.formatting import human_duration
from engine.results import ComparisonResult, SimulationResult
from engine.simulator import DECISION_LOG_MAX_JOBS

WHY = {
    "no room": "no GPU type it can use had enough free GPUs",
    "held for consolidation": "the policy held it back for a better-consolidated placement",
    "lower priority": "GPUs were free, but the policy gave them to jobs it ranks higher",
}


def job_story(log: pd.DataFrame, job_id: str, explainer: Explainer | None = None) -> list[str]:
    """One sentence per row of ``job_id``'s decision log, in time order; with the policy's
    ``explainer``, each preemption, migration, start and wait says why."""
    lines = []
    for row in log[log["job_id"].astype(str) == job_id].itertuples(index=False):
        at = f"at {human_duration(float(row.time_s))}"
        time_s = float(row.time_s)
        if row.event == "waiting":
            why = f"{WHY.get(str(row.reason), row.reason)} ({row.detail})."
            if explainer is not None:
                why = explainer.waiting(job_id, str(row.reason), time_s)
            lines.append(f"{at}: waiting, #{row.queue_position} in the queue, because {why}")
        elif explainer is not None and row.event == "started":
            lines.append(f"{at}: {explainer.start(job_id, time_s)}")
        elif explainer is not None and row.event == "preempted":
            lines.append(f"{at}: {explainer.preempted_why(job_id, time_s)}")
        elif explainer is not None and row.event == "migrated":
            lines.append(f"{at}: {explainer.migration(job_id, time_s)}")
        elif row.event == "started":
            lines.append(f"{at}: started on {row.detail}.")
        elif row.event in ("preempted", "migrated"):
            lines.append(f"{at}: {row.event} {row.detail}.")
        else:
            lines.append(f"{at}: {row.event}.")
    return lines


def render_explain_job(
    sims: list[SimulationResult],
    default_job: str | None = None,
    result: ComparisonResult | None = None,
) -> None:
    """A policy picker, a job picker (or typed id) and the job's story under that policy (with
    ``result``, the run ``sims`` come from, each event says why)."""
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
    explainer = None
    if result is not None and policy in result.policies:
        from dashboard.components.step_through import indexed

        explainer = indexed(result, [policy]).explainers[0]
    story = job_story(sim.decisions, str(job_id), explainer)
    st.markdown("\n".join(f"- {line}" for line in story) or "No events recorded.")
