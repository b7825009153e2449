"""Crafted links: decoded with limits, checked against the work budget, answered with one
clear message; a big link waits for a click; the server's run queue is fair and frees its
slots on cancel. Link level (pure functions) and pages (AppTest)."""

from __future__ import annotations

import base64
import dataclasses
import json
import threading
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from dashboard.links import (
    DAMAGED,
    MAX_JSON_DEPTH,
    LinkState,
    decode_link,
    encode_link,
    json_depth,
)
from dashboard.query import check_link
from dashboard.run_queue import RunQueue, ordinal
from engine.budget import Budget, BudgetError
from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.errors import ConfigError, SimulationCancelled

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
CANARY = "CANARY-5b1e-never-shown"
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(40, 30.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 4, "rack0"), NodeGroup("k80", 2, 4, "rack1"))),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.csv"
    path.write_text(f"job_id,arrival_s\n{CANARY},0\n")
    return path


@pytest.fixture(autouse=True)
def _store(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path / "store"))


def pack(payload: object) -> str:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def payload(**changes) -> dict:
    data = {"v": 1, "scenarios": {"base": SMALL.to_dict()}, "current": "base",
            "trace_sha256": "", "study": {}}  # fmt: skip
    data.update(changes)
    return data


def scenario(**changes) -> dict:
    data = SMALL.to_dict()
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for part in parents:
            node = node[part]
        node[last] = value
    return data


def damaged(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        decode_link(text)
    message = str(info.value)
    assert message.startswith(DAMAGED), message
    assert CANARY not in message and "Traceback" not in message
    return message


def crafted_links(canary: Path) -> dict[str, str]:
    """Name -> link text of every class of crafted link."""
    traversal = "../" * 8 + str(canary).lstrip("/")
    return {
        "garbage": "not a link at all!!",
        "cut short": encode_link(LinkState({"base": SMALL}, "base"))[:40],
        "not zlib": base64.urlsafe_b64encode(b"hello world").decode(),
        "deep nesting": pack(b"[" * 100_000 + b"]" * 100_000),
        "bomb": pack(b" " * 100_000_000),
        "NaN": pack(b'{"v": 1, "scenarios": {"base": {"seed": NaN}}}'),
        "not an object": pack([1, 2, 3]),
        "other version": pack(payload(v=99)),
        "no scenario": pack(payload(scenarios={})),
        "traversal hash": pack(payload(trace_sha256=traversal)),
        "absolute hash": pack(payload(trace_sha256=str(canary))),
        "non-hex hash": pack(payload(trace_sha256="z" * 64)),
        "path trace": pack(payload(scenarios={"base": scenario(trace__source=str(canary))})),
        "traversal trace": pack(payload(scenarios={"base": scenario(trace__source=traversal)})),
        "sample path": pack(payload(scenarios={"base": scenario(
            trace__source=f"sample:../../{canary.name}")})),
        "url trace": pack(payload(scenarios={"base": scenario(
            trace__source="http://127.0.0.1:9/t.csv")})),
        "path matrix": pack(payload(scenarios={"base": scenario(throughputs=str(canary))})),
        "url matrix": pack(payload(scenarios={"base": scenario(
            throughputs="https://example.com/m.csv")})),
        "bad matrix hash": pack(payload(scenarios={"base": scenario(
            throughputs="sha256:../../" + canary.name)})),
        "unknown key": pack(payload(scenarios={"base": {**SMALL.to_dict(), "x": 1}})),
        "long name": pack(payload(scenarios={"n" * 500: SMALL.to_dict()})),
        "study not object": pack(payload(study=[1])),
    }  # fmt: skip


def test_every_crafted_link_is_damaged_with_a_clear_reason(canary: Path) -> None:
    reasons = {name: damaged(text) for name, text in crafted_links(canary).items()}
    assert "nested more than" in reasons["deep nesting"]
    assert "inflates to more than" in reasons["bomb"]
    assert "trace_sha256" in reasons["traversal hash"]
    assert "trace.source" in reasons["path trace"] and "throughputs" in reasons["url matrix"]


def test_a_bomb_is_refused_without_inflating_it() -> None:
    bomb = pack(b"[" * 200_000_000)  # 200 MB inflated, about 200 kB of link
    tracemalloc.start()
    damaged(bomb)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 8_000_000, peak  # the limit (1 MB) and the packed bytes, not 200 MB


def test_a_huge_link_text_is_refused_before_decoding() -> None:
    assert "longer than" in damaged("A" * 300_000)


def test_json_depth_counts_brackets_outside_strings() -> None:
    assert json_depth(b'["[[[[", {"a": [1, {"b": "\\"]]"}]}]') == 4
    assert json_depth(b'["\\\\", ["a"]]') == 2
    assert json_depth(b"[" * 1_000_000) == MAX_JSON_DEPTH + 1  # stops counting
    # escaped quotes in an unterminated string: a backtracking regex takes minutes here
    assert json_depth(b'"' + b'\\"' * 500_000 + b"[[") == 0


def test_a_link_from_the_tool_still_decodes() -> None:
    state = LinkState({"base": SMALL, "v2": dataclasses.replace(SMALL, seed=3)}, "v2",
                      "ab" * 32, {"ran": "compare", "seeds": 3})  # fmt: skip
    assert decode_link(encode_link(state)) == state


def test_unknown_top_level_keys_are_ignored_so_links_can_grow() -> None:
    assert decode_link(pack(payload(page="compare", sweep={"axis": "x"}))).current == "base"


# --- the budget at link level ---------------------------------------------------------------

BUDGET = Budget(max_jobs=1_000, max_gpus=64, max_policies=3, max_scenarios=2, min_round_s=60)


def link_of(*configs: ScenarioConfig) -> LinkState:
    return LinkState({f"s{i}": c for i, c in enumerate(configs)}, "s0")


@pytest.mark.parametrize(
    ("configs", "named"),
    [
        ((SMALL,) * 3, "GPUSCHED_MAX_SCENARIOS"),
        ((dataclasses.replace(SMALL, policies=tuple(
            PolicySpec("fifo", label=f"f{i}") for i in range(1000))),), "GPUSCHED_MAX_POLICIES"),
        ((dataclasses.replace(SMALL, cluster=ClusterSpec((NodeGroup("v100", 100, 8),))),),
         "GPUSCHED_MAX_GPUS"),
        ((dataclasses.replace(SMALL, trace=TraceSpec(
            source="synthetic", synthetic=SyntheticSpec(10_000_000, 1.0))),), "GPUSCHED_MAX_JOBS"),
        ((ScenarioConfig.from_dict(scenario(trace__source="sample:philly_2000.csv",
                                            load__num_jobs=50_000_000)),), "50,000,000"),
        ((ScenarioConfig.from_dict(scenario(rounds__round_duration_s=1.0)),),
         "GPUSCHED_MIN_ROUND_S"),
    ],
)  # fmt: skip
def test_a_link_beyond_the_budget_names_the_limit(configs, named: str) -> None:
    with pytest.raises(BudgetError, match=named):
        check_link(link_of(*configs), BUDGET, None)


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"seed": -1}, "seed"),
        ({"network__background_load": 5.0}, "background_load"),
        ({"network__latency_s": 1e300}, "latency_s"),
        ({"failures__node_mtbf_h": 0.0001}, "failures.node_mtbf_h"),  # its widget takes >= 0.001
        ({"rounds__step_time_overhead": 1.5}, "step_time_overhead"),
        (
            {
                "cluster__node_groups": [
                    {"worker_type": "v100", "nodes": 1, "gpus_per_node": 500, "rack": "r"}
                ]
            },
            r"node_groups\[0\].gpus_per_node",
        ),
        ({"network__congestion": [{"start_s": 0, "end_s": 9, "factor": 1e12}]}, "factor"),
        ({"trace__synthetic__num_jobs": 0}, "num_jobs"),
        ({"placement": "nowhere"}, "placement"),
        ({"trace__format": "../x"}, "trace.format"),
        ({"policies": [{"name": "no_such_policy", "params": {}, "label": ""}]}, "no_such_policy"),
        ({"policies": [{"name": "las", "params": {"x": 1}, "label": ""}]}, "unknown parameter"),
    ],
)
def test_a_link_the_widgets_cannot_show_is_refused_by_name(changes: dict, named: str) -> None:
    """A value outside a widget's range would stop the page once written into it."""
    with pytest.raises(ConfigError, match=named):
        check_link(link_of(ScenarioConfig.from_dict(scenario(**changes))), Budget(), None)


@pytest.mark.parametrize(
    ("text", "named"), [("1, inf", "finite"), ("nan", "finite"), (",".join(["1"] * 41), "at most")]
)
def test_a_typed_axis_is_bounded_before_a_grid_is_built(text: str, named: str) -> None:
    from dashboard.sweep_axes import parse_values

    with pytest.raises(ConfigError, match=named):
        parse_values(SMALL, "load.arrival_scale", text)


def test_the_tools_own_link_passes_the_budget() -> None:
    check_link(link_of(SMALL, ScenarioConfig()), Budget(), None)


# --- pages (AppTest) --------------------------------------------------------------------------


def open_link(text: str, env: dict[str, str] | None = None, monkeypatch=None) -> AppTest:
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["scenario"] = text
    return at.run()


def page_text(at: AppTest) -> str:
    parts = [e.value for kind in ("error", "warning", "info", "success") for e in at.get(kind)]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("name", ["deep nesting", "bomb", "traversal hash", "path trace",
                                  "url matrix", "cut short"])  # fmt: skip
def test_a_crafted_link_shows_one_message_and_the_page_still_works(name: str, canary) -> None:
    at = open_link(crafted_links(canary)[name])
    assert not at.exception
    text = page_text(at)
    assert "This link cannot be opened: " + DAMAGED in text
    assert CANARY not in text and str(canary.parent) not in text
    assert at.session_state["result"] is None
    assert at.session_state["scenarios"]["base"].trace.source == "sample:philly_2000.csv"


def test_a_link_beyond_the_budget_shows_the_limit_and_runs_nothing(monkeypatch) -> None:
    big = dataclasses.replace(SMALL, trace=TraceSpec(
        source="synthetic", synthetic=SyntheticSpec(5_000, 30.0)))  # fmt: skip
    at = open_link(encode_link(link_of(big)), {"GPUSCHED_MAX_JOBS": "1000"}, monkeypatch)
    assert not at.exception
    assert "the number of jobs is 5,000; this server allows at most 1,000" in page_text(at)
    assert at.session_state["result"] is None


def test_a_big_link_is_restored_but_waits_for_run(monkeypatch) -> None:
    """Work above the autorun budget: the scenario is restored, the notice says what Run
    would start, and nothing is simulated until the click."""
    at = open_link(encode_link(link_of(SMALL)), {"GPUSCHED_AUTORUN_S": "0"}, monkeypatch)
    assert not at.exception
    assert at.session_state["result"] is None
    assert at.session_state["scenarios"]["s0"] == SMALL
    text = page_text(at)
    assert "would simulate 2 policies on 40 jobs" in text and "press **Run**" in text
    next(b for b in at.button if b.key == "run").click().run()
    assert at.session_state["result"] is not None
    assert "would simulate" not in page_text(at)


def test_a_small_link_runs_on_open() -> None:
    at = open_link(encode_link(link_of(SMALL)))
    assert not at.exception and at.session_state["result"] is not None


def test_a_session_beyond_its_runs_is_told_so(monkeypatch) -> None:
    """Two policies to simulate (a seed no other test ran, so none comes from the cache)
    against a session budget of three runs: the first run passes, the second is refused."""
    monkeypatch.setenv("GPUSCHED_SESSION_RUNS", "3")
    at = open_link(encode_link(link_of(dataclasses.replace(SMALL, seed=9_101))))
    assert at.session_state["result"] is not None
    at.switch_page("app_pages/scenario.py").run()
    at.number_input(key="seed").set_value(9_102).run()
    next(b for b in at.button if b.key == "run").click().run()
    assert not at.exception
    errors = "\n".join(e.value for e in at.error)
    assert "the runs this session has started is 4; this server allows at most 3" in errors


def test_a_form_beyond_the_budget_names_the_limit_before_parsing(monkeypatch) -> None:
    """An upload of more rows than the budget's jobs: the preview says which limit and value
    (nothing parsed) and Run is off; a cut (first N jobs) lets it run."""
    monkeypatch.setenv("GPUSCHED_MAX_JOBS", "50")
    sample = Path(APP).parents[1] / "sample_traces" / "philly_2000.csv"
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="trace_file").upload("big.csv", sample.read_bytes(), "text/csv").run()
    assert not at.exception
    rows = sample.read_bytes().count(b"\n")
    limit = (
        "the number of jobs (counted as the trace file's lines, header included, before parsing; "
        f'"Use only the first N jobs" lowers it) is {rows:,}; this server allows at most 50 '
        "(GPUSCHED_MAX_JOBS"
    )
    assert any(limit in e.value for e in at.error)
    assert next(b for b in at.button if b.key == "run").disabled
    at.number_input(key="max_jobs").set_value(40).run()
    next(b for b in at.button if b.key == "run").click().run()
    assert at.session_state["result"] is not None


def test_an_uploaded_scenario_json_naming_a_server_file_is_refused(canary: Path) -> None:
    """The dashboard's "Load a scenario JSON" is a shared door: a path is refused by field,
    and the canary's content never appears."""
    data = scenario(trace__source=str(canary))
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="scenario_file").upload(
        "evil.json", json.dumps(data).encode(), "application/json"
    )
    at.run()
    assert not at.exception
    errors = "\n".join(e.value for e in at.error)
    assert "evil.json: trace.source" in errors and CANARY not in errors
    assert at.session_state["scenarios"]["base"].trace.source == "sample:philly_2000.csv"


def test_a_study_beyond_the_budget_names_the_limit_and_runs_nothing(monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_MAX_RUNS", "5")
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="scenario_file").upload(
        "small.json", SMALL.to_json().encode(), "application/json"
    )
    at.run()
    at.switch_page("app_pages/compare.py").run()
    next(b for b in at.button if b.key == "run_compare").click().run()  # 2 policies x 3 seeds
    assert not at.exception
    errors = "\n".join(e.value for e in at.error)
    assert "the number of runs (scenarios × policies × seeds) is 6" in errors
    assert "GPUSCHED_MAX_RUNS" in errors and at.session_state.get("compare_result") is None


# --- the run queue ----------------------------------------------------------------------------


def test_the_queue_grants_in_order_and_reports_each_place() -> None:
    queue = RunQueue(2)
    places: dict[str, list[int]] = {"a": [], "b": [], "c": []}
    order: list[str] = []
    release = threading.Event()

    def run(name: str, want: int) -> None:
        with queue.slot(want, lambda place, busy: places[name].append(place), lambda: False):
            order.append(name)
            release.wait(5)

    first = threading.Thread(target=run, args=("a", 2))
    first.start()
    time.sleep(0.2)
    assert queue.busy() == 2  # a took both slots (it wanted two, both were free)
    others = [threading.Thread(target=run, args=(n, 1)) for n in ("b", "c")]
    for t in others:
        t.start()
        time.sleep(0.3)
    assert places["b"][-1] == 1 and places["c"][-1] == 2  # b first in the queue, c second
    release.set()
    for t in (first, *others):
        t.join(5)
    assert order == ["a", "b", "c"] and queue.busy() == 0


def test_cancel_leaves_the_queue_and_an_error_frees_the_slot() -> None:
    queue = RunQueue(1)
    cancel = threading.Event()
    hold, waited = threading.Event(), []

    def holder() -> None:
        with queue.slot(1, lambda p, b: None, lambda: False):
            hold.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    time.sleep(0.1)

    def waiter() -> None:
        try:
            with queue.slot(1, lambda p, b: waited.append(p), cancel.is_set):
                pytest.fail("granted while the slot was held")
        except SimulationCancelled:
            waited.append("cancelled")

    w = threading.Thread(target=waiter)
    w.start()
    time.sleep(0.3)
    cancel.set()
    w.join(5)
    assert waited[0] == 1 and waited[-1] == "cancelled"
    hold.set()
    t.join(5)
    with pytest.raises(RuntimeError), queue.slot(1, lambda p, b: None, lambda: False):
        raise RuntimeError("the run failed")
    assert queue.busy() == 0  # freed by the failure


def test_a_run_past_its_wall_time_is_stopped_with_the_limit_named() -> None:
    from dashboard.run_queue import with_deadline

    check = with_deadline(lambda: False, Budget(max_run_s=0.2))
    assert check() is False
    time.sleep(0.3)
    with pytest.raises(BudgetError, match="stopped after 0.2 s.*GPUSCHED_MAX_RUN_S"):
        check()


def test_ordinal() -> None:
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]  # fmt: skip
