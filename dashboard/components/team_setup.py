"""The Teams page's controls above its tables: teams on or off, the trace's team column, default
quotas, fair sharing, and a Kueue YAML to upload or download.

Teams off is a scenario without queues (``ScenarioConfig.queues`` None: every result as
before); the queues switched off are kept for the session, so switching on again restores them.
"""

from __future__ import annotations

import streamlit as st

from dashboard import runner
from dashboard.state import bind, current, edit, forget_queue_tables
from engine.config import ScenarioConfig
from engine.errors import EngineError
from engine.policies.base import POLICIES, display_name, policy_display_name
from engine.quota.model import QueueConfig
from engine.traces.reading import decode_text, first_line, read_csv_text
from engine.traces.registry import FORMATS, comma_text, inspect_trace
from engine.traces.resolve import SAMPLE_DIR

NO_TEAM_COLUMN = "none"
KEPT_QUEUES = "teams_kept_queues"  # the queues of a scenario whose teams were switched off
TEAMS_FLASH = "teams_flash"  # (kind, message) a callback leaves for the Teams page


def set_queues(queues: QueueConfig | None) -> None:
    edit("queues", queues)
    forget_queue_tables()


def _on_toggle() -> None:
    s = st.session_state
    if s["teams_on"]:
        set_queues(s.pop(KEPT_QUEUES, None) or QueueConfig())
    else:
        s[KEPT_QUEUES] = current().queues
        set_queues(None)


def render_teams_toggle() -> bool:
    """The "Teams and quotas" toggle; returns whether teams are on."""
    st.session_state["teams_on"] = current().queues is not None
    return st.toggle(
        "Teams and quotas", key="teams_on", on_change=_on_toggle,
        help="Off: one queue for everyone, as before. On: each job goes to its team's queue "
        "and Kueue's rules admit it within its team's GPU quota (engine/quota).",
    )  # fmt: skip


def render_flash() -> None:
    """Shows (once) what the last upload or button did."""
    flash = st.session_state.pop(TEAMS_FLASH, None)
    if flash:
        getattr(st, flash[0])(flash[1])


@st.cache_data(show_spinner=False, max_entries=16)
def _file_columns(name: str, raw: bytes) -> list[str]:
    try:
        if not FORMATS.get(inspect_trace(raw, name).format).has_header:
            return []  # Gavel's .trace: no column names a team
        header = first_line(comma_text(decode_text(raw, name), name)[0])
        return [str(c) for c in read_csv_text(header, name).columns]
    except EngineError:
        return []  # a headerless or unreadable file: the Scenario page says why


def _trace_file(config: ScenarioConfig, upload: runner.Upload) -> tuple[str, bytes] | None:
    source = config.trace.source
    if source.startswith("sample:"):
        path = SAMPLE_DIR / source.removeprefix("sample:")
        return (path.name, path.read_bytes()) if path.is_file() else None
    return upload if source.startswith("upload:") else None


def render_team_column(config: ScenarioConfig, upload: runner.Upload) -> None:
    """The column of the trace file that names each job's team (``trace.team_column``)."""
    file = _trace_file(config, upload)
    if file is None:
        st.caption("A synthetic trace has no teams; pick or upload a trace with a team column.")
        return
    columns = _file_columns(*file)
    if not columns and not config.trace.team_column:
        st.caption(f"**{file[0]}** has no header row, so no column names a team.")
        return
    if "queue" in columns and not config.trace.team_column:
        st.caption(f"**{file[0]}** names each job's team in its own `queue` column.")
        return
    options = [NO_TEAM_COLUMN, *columns]
    if config.trace.team_column and config.trace.team_column not in options:
        options.append(config.trace.team_column)  # the file changed; the engine says so
    st.selectbox(
        f"Column of {file[0]} naming each job's team", options,
        **bind("team_column", on_change=forget_queue_tables),
        help="E.g. `cluster` in Philly's CSV (the virtual cluster a job ran in). Each value "
        "is a team: a Kueue LocalQueue.",
    )  # fmt: skip


def render_default_quotas(config: ScenarioConfig, upload: runner.Upload) -> None:
    """The button that sets one ClusterQueue per team, quotas by the trace's GPU-hours."""
    from engine.quota.defaults import default_queues

    if not st.button(
        "Quotas from the trace's GPU-hours", icon=":material/pie_chart:",
        help="One ClusterQueue and LocalQueue per team in one cohort; each GPU type's nominal "
        "quotas split in proportion to each team's GPU-hours in the trace; borrowing unlimited "
        "(engine/quota/defaults.py). Replaces the tables below.",
    ):  # fmt: skip
        return
    try:
        jobs = runner.load_trace(config, upload).jobs
        queues = default_queues(jobs, config.cluster.capacity())
    except EngineError as exc:
        st.error(str(exc))
        return
    set_queues(queues)
    st.session_state[TEAMS_FLASH] = ("success", f"Quotas for {len(queues.cluster_queues)} teams "
                                     "from the trace's GPU-hours.")  # fmt: skip
    st.rerun()


def render_fair_sharing() -> None:
    """Kueue's fair sharing switch (``fairSharing.enable`` of its manager Configuration)."""
    st.toggle(
        "Fair sharing", **bind("team_fair_sharing"),
        help="Kueue's fair sharing: pending teams are admitted in order of their dominant "
        "resource share, and a team under its fair share may preempt one above it.",
    )  # fmt: skip


def render_policy_note(config: ScenarioConfig) -> None:
    """Names the scenario's policies that cannot run under quotas (the registry says which)."""
    names = POLICIES.names()
    able = [name for name in names if POLICIES.get(name).honours_quotas]
    unable = [display_name(p) for p in config.policies if p.name in names and p.name not in able]
    if unable:
        able = [policy_display_name(name) for name in able]
        st.warning(
            f"Under teams and quotas only {', '.join(able)} run; remove "
            f"{', '.join(unable)} on the Scenario page (tab 3 · Policies) before you run."
        )
