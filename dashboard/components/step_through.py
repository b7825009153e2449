"""The Step-through page's time control and the moment it shows, drawn in a fragment.

Stepping, playing and the moment slider rerun only the fragment (``st.fragment``), not the page:
the runs are indexed once per result (:class:`dashboard.replay.Replay`, kept in the session),
and a moment is HTML text (:mod:`dashboard.cluster_view`). Keys: Left / Right step to the
previous / next event, Space plays or pauses, Home / End go to the start / end.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import streamlit as st

from dashboard.cluster_view import (
    STYLE,
    cluster_html,
    decision_html,
    job_colors,
    policy_panel,
    queue_html,
    side_by_side,
    team_job_colors,
)
from dashboard.decision_brief import brief
from dashboard.decision_words import Explainer, clock
from dashboard.replay import EVENT_KINDS, Replay, next_event, previous_event
from dashboard.session_keys import keep_widget_state
from engine.allocation.layout import NodeLayout
from engine.config import PolicySpec
from engine.policies.base import display_name
from engine.results import ComparisonResult
from engine.scenario import scenario_matrix

MAX_POLICIES = 4
TICK_S = 0.5  # wall seconds between frames while playing
SPEEDS = {  # label -> simulated seconds per wall second (0: one event per frame)
    "1 min per second": 60.0, "5 min per second": 300.0, "15 min per second": 900.0,
    "1 h per second": 3600.0, "one event per frame": 0.0,
}  # fmt: skip
_CACHE = "_replays"
# the page's widgets outside the fragment
PAGE_WIDGETS = ("step_policies", "replay_kinds", "step_by_team")


@dataclass(frozen=True)
class Shown:
    """What a moment is drawn from: the chosen policies' replays and explainers, the job colours."""

    replays: list[Replay]
    explainers: list[Explainer]
    colors: dict[str, int]
    end_s: float


def indexed(result: ComparisonResult, policies: list[str], by_team: bool = False) -> Shown:
    """The replays of ``policies`` (indexed once per result and kept in the session); each job
    in its own colour, or with ``by_team`` (a run under queues) in its team's."""
    s = st.session_state
    cached = s.get(_CACHE)
    if cached is None or cached[0] is not result:
        cached = s[_CACHE] = (result, {})
    store = cached[1]
    config = result.config
    layout, matrix = NodeLayout.of(config.cluster), None
    specs = {display_name(spec): spec for spec in config.policies}
    by_name = {sim.policy: sim for sim in result.results}
    for policy in policies:
        if policy not in store:
            matrix = matrix or scenario_matrix(config)
            replay = Replay(by_name[policy], layout, _round_s(result, policy))
            spec = specs.get(policy, PolicySpec(policy))
            store[policy] = (replay, Explainer(replay, spec, matrix))
    replays = [store[p][0] for p in policies]
    jobs = result.results[0].jobs.sort_values(["arrival_s", "job_id"])
    ids = jobs["job_id"].astype(str)
    if by_team and "cluster_queue" in jobs:
        colors = team_job_colors(ids, jobs["cluster_queue"].astype(str))
    else:
        colors = job_colors(ids)
    end_s = max((r.end_s for r in replays), default=0.0)
    return Shown(replays, [store[p][1] for p in policies], colors, end_s)


def _round_s(result: ComparisonResult, policy: str) -> float:
    from engine.policies.base import get_policy, list_policies

    spec = next((p for p in result.config.policies if display_name(p) == policy), None)
    if spec is None or spec.name not in list_policies():
        return 0.0
    return result.config.rounds.round_duration_s if get_policy(spec.name).uses_rounds else 0.0


def render_stepper(shown: Shown) -> None:
    """The time control and the moment, in a fragment that reruns alone (every TICK_S while
    playing)."""
    s = st.session_state
    s.setdefault("replay_t", 0.0)
    s["replay_t"] = min(max(float(s["replay_t"]), 0.0), shown.end_s)
    playing = bool(s.get("replay_playing", False))

    @st.fragment(run_every=TICK_S if playing else None)
    def moment() -> None:
        # A fragment's run drops the state of widgets outside it (other pages' kept widgets,
        # this page's policy picker) unless it keeps them itself (streamlit/streamlit#10805;
        # a whole run keeps them in app.py)
        keep_widget_state()
        for key in PAGE_WIDGETS:
            if key in s:
                s[key] = s[key]
        if s.get("replay_playing", False) and _advance(shown):
            s["replay_playing"] = False
            st.rerun()  # the whole page, to stop the fragment's timer
        _controls(shown)
        draw_moment(shown, float(s["replay_t"]))

    moment()


def _advance(shown: Shown) -> bool:
    """Moves the moment on by one frame of play; True when it reached the end."""
    s = st.session_state
    speed = SPEEDS[s.get("replay_speed", next(iter(SPEEDS)))]
    now = time.monotonic()
    elapsed = min(now - s.get("_replay_tick", now - TICK_S), 2 * TICK_S)
    s["_replay_tick"] = now
    t = float(s["replay_t"])
    if speed == 0.0:
        t = next_event(shown.replays, t, _kinds())
    else:
        t += speed * elapsed
    s["replay_t"] = min(t, shown.end_s)
    return s["replay_t"] >= shown.end_s


def _kinds() -> set[str]:
    return set(st.session_state.get("replay_kinds") or EVENT_KINDS)


def _step(shown: Shown, where: str) -> None:
    s = st.session_state
    t = float(s["replay_t"])
    if where == "next":
        t = next_event(shown.replays, t, _kinds())
    elif where == "previous":
        t = previous_event(shown.replays, t, _kinds())
    elif where == "start":
        t = 0.0
    elif where == "end":
        t = shown.end_s
    s["replay_t"] = t


def go_to(time_s: float) -> None:
    """Callback: show the moment ``time_s`` (s)."""
    st.session_state["replay_t"] = time_s


def _toggle_play() -> None:
    s = st.session_state
    s["replay_playing"] = not s.get("replay_playing", False)
    s["_replay_tick"] = time.monotonic()


def _controls(shown: Shown) -> None:
    s = st.session_state
    row = st.container(horizontal=True, vertical_alignment="center")
    row.button("", key="step_start", icon=":material/first_page:", shortcut="Home",
               help="Start of the run", on_click=_step, args=(shown, "start"))  # fmt: skip
    row.button("", key="step_prev", icon=":material/chevron_left:", shortcut="Left",
               help="Previous event", on_click=_step, args=(shown, "previous"))  # fmt: skip
    playing = s.get("replay_playing", False)
    if row.button("Pause" if playing else "Play", key="step_play", type="primary",
                  icon=":material/pause:" if playing else ":material/play_arrow:",
                  shortcut="Space", on_click=_toggle_play):  # fmt: skip
        st.rerun()  # the whole page: the fragment's timer starts or stops
    row.button("Next", key="step_next", icon=":material/chevron_right:", shortcut="Right",
               help="Next event", on_click=_step, args=(shown, "next"))  # fmt: skip
    row.button("", key="step_end", icon=":material/last_page:", shortcut="End",
               help="End of the run", on_click=_step, args=(shown, "end"))  # fmt: skip
    row.selectbox("Speed", list(SPEEDS), key="replay_speed", width=150,
                  label_visibility="collapsed", help="Speed of Play")  # fmt: skip
    row.markdown(f"#### :material/schedule: {clock(float(s['replay_t']))}", width="content")
    st.slider(
        "Moment (simulated seconds)", 0.0, max(shown.end_s, 1.0), key="replay_t", step=1.0,
        label_visibility="collapsed", format="%.0f s",
        help="Drag, or use the buttons; keys: ← → previous / next event, Space play / pause, "
        "Home / End.",
    )  # fmt: skip


def draw_moment(shown: Shown, time_s: float) -> None:
    """Each policy's cluster, latest decision in words and queue, side by side (one HTML
    element: a step redraws one element, not a dozen), so every policy's words stand in view
    together on a projector."""
    st.html(moment_html(shown, time_s))


def moment_html(shown: Shown, time_s: float) -> str:
    """The policies' clusters, decisions and queues at ``time_s``, side by side, as one HTML
    text."""
    panels = []
    for replay, explainer in zip(shown.replays, shown.explainers, strict=True):
        policy = replay.sim.policy
        at, sentences = explainer.moment(time_s)
        panels.append(policy_panel(
            policy,
            cluster_html(
                replay.layout, replay.owners(time_s), shown.colors, policy, time_s,
                replay.slowdowns,
            ),
            queue_html(replay.queue(time_s), shown.colors, policy, time_s),
            decision_html(
                policy, "" if at is None else clock(at), sentences,
                "" if at is None else brief(explainer, at),
            ),
        ))  # fmt: skip
    return STYLE + side_by_side(panels)
