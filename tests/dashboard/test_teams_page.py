"""The Teams page (teams on and off, default quotas, the tables, Kueue YAML) and a run's Teams
section on the Results page."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.cluster_view import team_job_colors
from dashboard.links import LinkState, decode_link, encode_link
from engine.config import ScenarioConfig
from engine.quota.kueue_yaml import write_kueue_yaml
from engine.quota.model import QueueConfig

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
TEAMS = "app_pages/teams.py"


def _teams_page(max_jobs: int = 200) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.number_input(key="max_jobs").set_value(max_jobs).run()
    at.switch_page(TEAMS).run()
    assert not at.exception
    return at


def _queues(at: AppTest) -> QueueConfig | None:
    return at.session_state["scenarios"]["base"].queues


def _default_quotas(at: AppTest) -> AppTest:
    at.toggle(key="teams_on").set_value(True).run()
    at.selectbox(key="team_column").set_value("cluster").run()
    next(b for b in at.button if "GPU-hours" in b.label).click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    return at


def test_teams_are_off_by_default_and_the_toggle_keeps_the_queues() -> None:
    at = _teams_page()
    assert _queues(at) is None and not at.toggle(key="teams_on").value
    assert any("Teams are off" in i.value for i in at.info)
    at.toggle(key="teams_on").set_value(True).run()
    assert _queues(at) == QueueConfig()
    assert any("only" in w.value and "Gavel" in w.value for w in at.warning)  # cannot run
    _default_quotas(at)
    queues = _queues(at)
    at.toggle(key="teams_on").set_value(False).run()
    assert _queues(at) is None
    at.toggle(key="teams_on").set_value(True).run()
    assert _queues(at) == queues


def test_default_quotas_from_the_philly_samples_cluster_column() -> None:
    at = _default_quotas(_teams_page())
    queues = _queues(at)
    assert at.session_state["scenarios"]["base"].trace.team_column == "cluster"
    teams = [cq.name for cq in queues.cluster_queues]
    assert teams == sorted(teams) and "11cb48" in teams and len(teams) >= 5
    capacity = at.session_state["scenarios"]["base"].cluster.capacity()
    for worker_type, gpus in capacity.items():  # each type's quotas add up to the cluster's
        assert sum(q.nominal_gpus for cq in queues.cluster_queues for q in cq.flavors
                   if q.flavor == worker_type) == gpus  # fmt: skip
    table = at.session_state["team_quotas"]
    assert len(table) == len(teams) * len(capacity)
    assert any("Quotas for" in s.value for s in at.success)


def _edit(at: AppTest, key: str, frame: pd.DataFrame) -> AppTest:
    at.session_state[key] = frame
    at.session_state["table_version"] = at.session_state["table_version"] + 1
    return at.run()


def test_a_bad_quota_is_named_by_object_and_field_and_a_rename_follows() -> None:
    at = _default_quotas(_teams_page())
    quotas = at.session_state["team_quotas"].copy()
    first = quotas.iloc[0]
    quotas.loc[0, "lending_limit_gpus"] = int(first["nominal_gpus"]) + 5
    _edit(at, "team_quotas", quotas)
    assert not at.exception
    message = [e.value for e in at.error]
    assert any(f"ClusterQueue '{first['cluster_queue']}'" in m and "lendingLimit" in m
               and "nominalQuota" in m for m in message), message  # fmt: skip
    quotas.loc[0, "lending_limit_gpus"] = None
    _edit(at, "team_quotas", quotas)
    assert not at.error, [e.value for e in at.error]
    queues = at.session_state["team_cluster_queues"].copy()
    old = queues.loc[0, "name"]
    queues.loc[0, "name"] = "research"
    _edit(at, "team_cluster_queues", queues)
    assert not at.error, [e.value for e in at.error]
    renamed = _queues(at)
    assert renamed.cluster_queues[0].name == "research" and renamed.cluster_queues[0].flavors
    assert renamed.cluster_queue_of(old) == "research"  # its LocalQueue follows
    assert "research" in set(at.session_state["team_quotas"]["cluster_queue"])


def test_a_quota_row_of_an_unknown_cluster_queue_is_named() -> None:
    at = _default_quotas(_teams_page())
    quotas = at.session_state["team_quotas"].copy()
    quotas.loc[0, "cluster_queue"] = "nobody"
    _edit(at, "team_quotas", quotas)
    assert any("quotas row 1" in e.value and "'nobody'" in e.value for e in at.error)


def test_kueue_yaml_download_and_upload_round_trip() -> None:
    at = _default_quotas(_teams_page())
    queues = _queues(at)
    assert any("Kueue YAML" in b.proto.label for b in at.get("download_button"))
    text = write_kueue_yaml(queues)
    at.toggle(key="teams_on").set_value(False).run()
    at.session_state["teams_kept_queues"] = None  # on again: empty queues
    at.toggle(key="teams_on").set_value(True).run()
    assert _queues(at) == QueueConfig()
    at.file_uploader(key="kueue_file").upload("kueue.yaml", text.encode(), "application/yaml")
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert [cq.name for cq in _queues(at).cluster_queues] == [
        cq.name for cq in queues.cluster_queues
    ]
    at.file_uploader(key="kueue_file").upload("bad.yaml", b"kind: [", "application/yaml").run()
    assert any("bad.yaml" in e.value for e in at.error)


def test_queues_travel_in_the_link_and_the_scenario_json() -> None:
    at = _default_quotas(_teams_page())
    config = at.session_state["scenarios"]["base"]
    assert decode_link(encode_link(LinkState({"base": config}, "base"))).scenarios["base"] == config
    assert ScenarioConfig.from_json(config.to_json()) == config
    text = at.query_params["scenario"]
    text = text[0] if isinstance(text, list) else text
    assert decode_link(text).scenarios["base"].queues == config.queues


def test_a_run_under_quotas_shows_the_per_team_tables_and_charts() -> None:
    at = _default_quotas(_teams_page(max_jobs=150))
    at.switch_page("app_pages/scenario.py").run()
    at.multiselect(key="policies").set_value(["fifo"]).run()
    next(b for b in at.button if b.key == "run").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.switch_page("app_pages/results.py").run()
    assert not at.exception
    assert "**Waiting and completion** · FIFO" in [m.value for m in at.markdown]
    tables = [d.value for d in at.dataframe if "Jobs" in d.value.columns]
    teams = tables[0]
    assert "11cb48" in teams.index and teams["Jobs"].sum() == 150
    assert any(c.startswith("Mean wait (") for c in teams.columns)
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert any("each team's jobs waited" in t for t in titles)
    assert any("nominal quotas" in t for t in titles)
    at.switch_page("app_pages/schedule.py").run()
    at.radio(key="gantt_color_by").set_value("cluster_queue").run()
    assert not at.exception
    names = {trace.get("name") for chart in at.get("plotly_chart")
             for trace in json.loads(chart.proto.spec)["data"]}  # fmt: skip
    assert "11cb48" in names
    at.switch_page("app_pages/step_through.py").run()
    at.toggle(key="step_by_team").set_value(True).run()
    assert not at.exception
    jobs = at.session_state["result"].results[0].jobs
    team_of = dict(zip(jobs["job_id"].astype(str), jobs["cluster_queue"], strict=True))
    shown = {job: int(color) for body in (h.proto.body for h in at.get("html"))
             for color, job in re.findall(r'class="gpu[^"]* p(\d+)"[^>]*data-job="([^"]+)"', body)
             if job in team_of}  # fmt: skip
    color_of_team: dict[str, set[int]] = {}
    for job, color in shown.items():
        color_of_team.setdefault(team_of[job], set()).add(color)
    assert shown and all(len(colors) == 1 for colors in color_of_team.values()), color_of_team
    assert len({next(iter(c)) for c in color_of_team.values()}) == len(color_of_team)


def test_team_job_colors_one_colour_per_team() -> None:
    colors = team_job_colors(["a1", "b1", "a2", "c1"], ["ta", "tb", "ta", "tc"])
    assert colors == {"a1": 0, "a2": 0, "b1": 1, "c1": 2}


def test_a_scenario_with_more_queues_than_the_budget_allows_is_refused() -> None:
    from engine.budget import Budget, BudgetError, check_scenario
    from engine.quota.model import ClusterQueue

    queues = QueueConfig(cluster_queues=tuple(ClusterQueue(f"team-{i}") for i in range(6)))
    config = ScenarioConfig(queues=queues)  # 4 GPU-mix rows
    check_scenario(config, Budget(max_table_rows=6), 10)
    with pytest.raises(BudgetError, match="the number of ClusterQueues is 6"):
        check_scenario(config, Budget(max_table_rows=5), 10)
