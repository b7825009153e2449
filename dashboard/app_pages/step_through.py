"""Step-through page: a schedule a class can watch, moment by moment, up to four policies.

A lesson (one click) or the last run; the time control steps to the next event or plays; at
each moment every GPU of the cluster shows the job holding it, the queue shows who waits and
why, and the decision just made is said in words.
"""

import streamlit as st

from dashboard.components.lesson_picker import current_lesson, render_lesson_buttons
from dashboard.components.results_common import render_run_caption
from dashboard.components.step_through import MAX_POLICIES, indexed, render_stepper

st.title("Step through")
render_lesson_buttons()
result = st.session_state.get("result")
if result is None:
    st.info("Pick a lesson above, or set up a scenario and press **Run** on the Scenario page.")
    st.stop()
lesson = current_lesson()
if lesson is not None:
    st.info(f"**{lesson.title}.** {lesson.look_for}", icon=":material/school:")
else:
    render_run_caption(result)
policies = st.multiselect(
    f"Policies side by side (up to {MAX_POLICIES})", result.policies,
    default=result.policies[:MAX_POLICIES], max_selections=MAX_POLICIES, key="step_policies",
)  # fmt: skip
if not policies:
    st.stop()
render_stepper(indexed(result, [p for p in policies if p in result.policies]), lesson)
st.caption(
    "Each square is a GPU, in its node (grey box) and rack; the job id holding it is printed "
    "in it, in the job's colour (the same under every policy; white: free). The queue lists "
    "the jobs waiting, in the order they joined it, with the reason the decision log gives."
)
