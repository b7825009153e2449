"""Step-through page: a schedule a class can watch, moment by moment, up to four policies.

A lesson (one click) or the last run; the time control steps to the next event or plays; at
each moment every GPU of the cluster shows the job holding it, the queue shows who waits and
why, and the decision just made is said in words.
"""

import streamlit as st

from dashboard.components.lesson_picker import (
    current_lesson,
    render_lesson_buttons,
    render_lesson_notes,
)
from dashboard.components.results_common import render_run_caption
from dashboard.components.step_through import MAX_POLICIES, go_to, indexed, render_stepper
from dashboard.replay import EVENT_KINDS

heading = st.empty()
render_lesson_buttons()  # a lesson pressed runs here
lesson = current_lesson()
if lesson is None:
    heading.title("Step through")
else:  # a smaller heading: the lesson, its moments and all four views fit a projector
    heading.subheader("Step through")
result = st.session_state.get("result")
if result is None:
    st.info("Pick a lesson (left), or set up a scenario and press **Run** on the Scenario page.")
    st.stop()
if lesson is not None:
    render_lesson_notes(lesson, go_to)
else:
    render_run_caption(result)
shown_key = "step_policies"
if shown_key not in st.session_state or not set(st.session_state[shown_key]) <= set(
    result.policies
):  # a new run: its first four policies
    st.session_state[shown_key] = result.policies[:MAX_POLICIES]
policies = list(st.session_state[shown_key])
by_team = result.config.queues is not None and st.session_state.get("step_by_team", False)
if policies:
    render_stepper(indexed(result, policies, by_team))
left, right = st.columns(2)
left.multiselect(
    f"Policies side by side (up to {MAX_POLICIES})", result.policies,
    max_selections=MAX_POLICIES, key=shown_key,
)  # fmt: skip
right.multiselect(
    "Previous / Next step to", EVENT_KINDS, default=list(EVENT_KINDS), key="replay_kinds",
    help="Which events the Previous and Next buttons (and keys ← →) stop at, e.g. only "
    "preemptions; a round boundary where no job starts or stops is never a stop.",
)  # fmt: skip
if result.config.queues is not None:
    st.toggle(
        "Colour by team", key="step_by_team",
        help="Each job in its team's colour (its ClusterQueue) instead of its own.",
    )  # fmt: skip
st.caption(
    "Each square is a GPU, in its node (grey box) and rack; the job id holding it is printed "
    "in it, in the job's colour (the same under every policy; white: free). Under each "
    "cluster, the decision its policy made last, in brief (yellow; click it for the decision "
    "in full: placements, rates and the policy's rule); then the queue: the jobs "
    "waiting, in the order they joined it, with the reason the decision log gives."
)
