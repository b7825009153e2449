"""A shared scenario never names a server file or URL; local ones may name files; the stores
resolve hashes only inside themselves; policy parameters are checked; the work budget.

Each refusal is checked against a canary file the process could read: its content never
appears in a message, and nothing is fetched from a URL.
"""

from __future__ import annotations

import dataclasses
import json
import urllib.request
from pathlib import Path

import pytest

from engine.budget import (
    Budget,
    BudgetError,
    check_scenario,
    check_study,
    count_rows,
    jobs_bound,
    load_budget,
    trace_rows,
)
from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    RoundConfig,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from engine.content import ContentStore, is_sha256
from engine.errors import ConfigError, TraceError
from engine.scenario import load_scenario_trace, scenario_matrix
from engine.sources import Origin
from engine.step_time.throughput import GAVEL_CSV, load_matrix, matrix_store
from engine.study.overrides import apply_overrides
from engine.study.planner import PlanSpec
from engine.study.study import Study
from engine.study.traces import TraceStore
from engine.validate import validate_config

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_traces" / "philly_2000.csv"
CANARY = "CANARY-7f3a9c-server-secret"


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A file the server could read, holding a line no message may repeat."""
    path = tmp_path / "secret.csv"
    path.write_text(f"worker_type,{CANARY}\nv100,{CANARY}\n")
    return path


@pytest.fixture(autouse=True)
def no_fetch(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any attempt to open a URL fails the test."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"a URL was fetched: {args[:1]}")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


def scenario_dict(**changes) -> dict:
    data = ScenarioConfig().to_dict()
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for part in parents:
            node = node[part]
        node[last] = value
    return data


def bad_file_names(canary: Path) -> list[str]:
    return [
        str(canary),  # absolute path
        "../" * 8 + str(canary).lstrip("/"),  # traversal
        f"file://{canary}",
        "http://127.0.0.1:9/x.csv",
        "https://example.com/trace.csv",
        "//server/share/x.csv",
    ]


# --- every file field of a shared scenario -------------------------------------------------


@pytest.mark.parametrize("field", ["trace__source", "throughputs"])
def test_a_shared_scenario_never_names_a_path_or_url(field: str, canary: Path) -> None:
    for name in bad_file_names(canary):
        with pytest.raises(ConfigError) as info:
            ScenarioConfig.from_dict(scenario_dict(**{field: name}))
        message = str(info.value)
        assert field.replace("__", ".") in message
        assert CANARY not in message


@pytest.mark.parametrize(
    "source",
    ["sample:../../etc/passwd", "sample:/etc/passwd", "sample:philly_2000.csv/..", "sample:"],
)
def test_a_sample_name_must_be_one_of_the_samples(source: str) -> None:
    with pytest.raises(ConfigError, match="no sample trace"):
        ScenarioConfig.from_dict(scenario_dict(trace__source=source))


@pytest.mark.parametrize("name", ["../x.csv", "/etc/passwd", "a\\b.csv", "x" * 300])
def test_an_upload_name_is_a_name_not_a_path(name: str) -> None:
    with pytest.raises(ConfigError, match="trace.source"):
        ScenarioConfig.from_dict(scenario_dict(trace__source=f"upload:{name}"))


@pytest.mark.parametrize("name", ["sha256:", "sha256:../../etc/passwd", "sha256:" + "G" * 64,
                                  "sha256:" + "ab" * 31, "sha256:" + "AB" * 32])  # fmt: skip
def test_a_stored_matrix_is_named_by_64_lowercase_hex_digits(name: str) -> None:
    with pytest.raises(ConfigError, match="64 hex digits"):
        ScenarioConfig.from_dict(scenario_dict(throughputs=name))


def test_the_shared_names_a_link_may_use_load() -> None:
    for source in ("synthetic", "sample:philly_2000.csv", "upload:my trace (v2).csv"):
        assert ScenarioConfig.from_dict(scenario_dict(trace__source=source)).trace.source
    digest = "0123456789abcdef" * 4
    config = ScenarioConfig.from_dict(scenario_dict(throughputs=f"sha256:{digest}"))
    assert config.throughputs == f"sha256:{digest}"


def test_study_and_plan_files_are_shared_unless_the_cli_says_local(canary: Path) -> None:
    base = scenario_dict(trace__source=str(canary))
    with pytest.raises(ConfigError, match="trace.source"):
        Study.from_dict({"base": base})
    with pytest.raises(ConfigError, match="trace.source"):
        PlanSpec.from_dict({"base": base, "candidates": [], "target_metric": "jct_mean_s",
                            "target_value": 1.0})  # fmt: skip
    study = Study.from_dict({"base": base}, Origin.LOCAL)
    assert study.base.trace.source == str(canary)


def test_a_variant_never_names_a_file_even_in_a_local_study(canary: Path) -> None:
    """The base's own file (local) is kept by the variants; an override naming another file
    is refused, so a study file cannot smuggle a path past the base's check."""
    local = ScenarioConfig.from_dict(scenario_dict(trace__source=str(SAMPLE)), Origin.LOCAL)
    assert apply_overrides(local, {"seed": 3}).trace.source == str(SAMPLE)
    for field in ("trace.source", "throughputs"):
        with pytest.raises(ConfigError, match=field):
            apply_overrides(local, {field: str(canary)})


# --- the local side: the CLI's own files -----------------------------------------------------


def test_a_local_scenario_reads_its_own_trace_and_matrix_files(tmp_path: Path) -> None:
    trace = tmp_path / "mine.csv"
    trace.write_bytes(SAMPLE.read_bytes())
    matrix = tmp_path / "matrix.csv"
    matrix.write_bytes(GAVEL_CSV.read_bytes())
    data = scenario_dict(trace__source=str(trace), throughputs=str(matrix))
    data["trace"]["max_jobs"] = 20
    config = ScenarioConfig.from_json(json.dumps(data), Origin.LOCAL)
    jobs = load_scenario_trace(config).jobs
    assert len(jobs) == 20
    assert scenario_matrix(config).worker_types == load_matrix().worker_types


def test_the_cli_runs_a_scenario_file_naming_local_files(tmp_path: Path) -> None:
    """The same JSON a link may not carry (a path) is the CLI user's own file: it runs."""
    from engine.cli import main

    trace = tmp_path / "mine.csv"
    trace.write_bytes(SAMPLE.read_bytes())
    data = scenario_dict(trace__source=str(trace), throughputs=str(GAVEL_CSV))
    data["trace"]["max_jobs"] = 30
    data["policies"] = [{"name": "fifo", "params": {}, "label": ""}]
    scenario = tmp_path / "scenario.json"
    scenario.write_text(json.dumps(data))
    assert main(["run", str(scenario), "--out", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "summary.txt").is_file()
    with pytest.raises(ConfigError, match="trace.source"):  # the shared door refuses it
        ScenarioConfig.from_json(scenario.read_text())


def test_a_local_matrix_url_is_opened_as_a_file_never_fetched() -> None:
    """pandas would fetch a URL given to read_csv; the loader opens paths as files."""
    with pytest.raises(TraceError, match="cannot read the file"):
        load_matrix("http://127.0.0.1:9/matrix.csv")


def test_a_missing_local_matrix_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    with pytest.raises(TraceError, match="cannot read the file") as info:
        load_matrix(tmp_path / "nope.csv")
    assert str(tmp_path) not in str(info.value)


# --- the stores: a hash is resolved inside the store ----------------------------------------


@pytest.mark.parametrize("store_class", [TraceStore, ContentStore])
def test_a_store_resolves_only_hashes_inside_itself(
    store_class, tmp_path: Path, canary: Path
) -> None:
    store = store_class(tmp_path / "store")
    digest = store.put("mine.csv", b"job_id\n1\n")
    assert store.get(digest) == ("mine.csv", b"job_id\n1\n")
    outside = [
        str(canary), "../secret.csv", "../" * 6 + str(canary).lstrip("/"),
        "g" * 64, digest.upper(), digest[:-1], digest + "0", "", f"{digest}.name",
    ]  # fmt: skip
    for name in outside:
        assert not store.has(name), name
        with pytest.raises(TraceError) as info:
            store.get(name)
        assert CANARY not in str(info.value) and str(tmp_path) not in str(info.value)


def test_is_sha256() -> None:
    assert is_sha256("ab" * 32)
    assert not any(is_sha256(x) for x in ("AB" * 32, "ab" * 31, "ab" * 32 + "\n", None, 7))


def test_an_uploaded_matrix_is_stored_by_hash_and_loaded(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("GPUSCHED_STORE", str(tmp_path))
    digest = matrix_store().put("mine.csv", GAVEL_CSV.read_bytes())
    assert (tmp_path / "throughputs" / digest).is_file()
    config = ScenarioConfig.from_dict(scenario_dict(throughputs=f"sha256:{digest}"))
    assert scenario_matrix(config).worker_types == load_matrix().worker_types
    with pytest.raises(TraceError, match="not on this server"):
        load_matrix("sha256:" + "0" * 64)


# --- policy parameters -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"no_such_knob": 1}, "unknown parameter.*no_such_knob"),
        ({"num_samples": "many"}, "'num_samples' expects int, got 'many'"),
        ({"num_samples": True}, "'num_samples' expects int, got True"),
        ({"beta": float("nan")}, "'beta' must be a finite number"),
        ({"beta": [1, 2]}, "'beta' expects float"),
    ],
)
def test_policy_parameters_are_checked_before_any_run(params: dict, named: str) -> None:
    config = ScenarioConfig(policies=(PolicySpec("fifo"), PolicySpec("sampling_placement", params)))
    with pytest.raises(ConfigError, match=named) as info:
        validate_config(config, scenario_matrix(config))
    assert "policies[2]" in str(info.value)


def test_a_parameter_with_choices_takes_only_those() -> None:
    config = ScenarioConfig(policies=(PolicySpec("hadar", {"combine": "rm -rf"}),))
    with pytest.raises(ConfigError, match="'combine' is one of"):
        validate_config(config, scenario_matrix(config))


def test_non_finite_numbers_are_refused_by_the_loader() -> None:
    with pytest.raises(ConfigError, match="finite"):
        ScenarioConfig.from_dict(scenario_dict(rounds__round_duration_s=float("inf")))


# --- the work budget -----------------------------------------------------------------------

SMALL_BUDGET = Budget(max_jobs=100, max_gpus=1024, max_policies=3, max_scenarios=2, max_seeds=3,
                      max_runs=10, min_round_s=60.0)  # fmt: skip
SYNTH = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(50, 10.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 8),)),
    policies=(PolicySpec("fifo"),),
)


def refused(config: ScenarioConfig, limit: str, value: str, rows: int | None = None) -> str:
    with pytest.raises(BudgetError) as info:
        check_scenario(config, SMALL_BUDGET, rows)
    message = str(info.value)
    assert f"GPUSCHED_{limit.upper()}" in message and value in message
    return message


def test_each_scenario_limit_is_named_with_the_value() -> None:
    check_scenario(SYNTH, SMALL_BUDGET, None)  # within
    many = tuple(PolicySpec("fifo", label=f"f{i}") for i in range(1000))
    refused(dataclasses.replace(SYNTH, policies=many), "max_policies", "1,000")
    big = ClusterSpec((NodeGroup("v100", 200, 8),))
    refused(dataclasses.replace(SYNTH, cluster=big), "max_gpus", "1,600")
    fast = dataclasses.replace(SYNTH, rounds=RoundConfig(round_duration_s=1.0))
    refused(fast, "min_round_s", "1")
    synth = dataclasses.replace(SYNTH.trace, synthetic=SyntheticSpec(10_000_000, 10.0))
    refused(dataclasses.replace(SYNTH, trace=synth), "max_jobs", "10,000,000")
    grown = ScenarioConfig.from_dict(scenario_dict(load__num_jobs=50_000_000))
    refused(grown, "max_jobs", "50,000,000", trace_rows(grown))
    episodes = [{"start_s": i, "end_s": i + 1, "factor": 2.0} for i in range(300)]
    congested = ScenarioConfig.from_dict(scenario_dict(network__congestion=episodes))
    congested = dataclasses.replace(congested, cluster=SYNTH.cluster, trace=SYNTH.trace)
    assert "congestion episodes is 300" in refused(congested, "max_table_rows", "300")


def test_the_jobs_bound_counts_rows_and_the_cut() -> None:
    sample = ScenarioConfig()
    rows = trace_rows(sample)
    assert rows == SAMPLE.read_bytes().count(b"\n")  # the sample ends with a newline
    assert jobs_bound(sample, rows) == rows
    cut = dataclasses.replace(sample, trace=dataclasses.replace(sample.trace, max_jobs=80))
    assert jobs_bound(cut, rows) == 80
    refused(sample, "max_jobs", f"{rows:,}", rows)
    assert count_rows(b"a\nb\nc") == count_rows(b"a\nb\nc\n") == 3
    assert trace_rows(sample, 7) == rows  # an upload's count is not the sample's
    upload = dataclasses.replace(sample, trace=TraceSpec(source="upload:mine.csv"))
    assert trace_rows(upload, 7) == 7
    assert trace_rows(upload) == 0  # its bytes are not here: it fails later, for want of them


def test_the_trace_store_keeps_a_traces_lines_from_when_it_was_stored(tmp_path: Path) -> None:
    store = TraceStore(tmp_path)
    digest = store.put("a.csv", b"h\n1\n2\n")
    assert store.rows(digest) == 3 and (tmp_path / f"{digest}.rows").read_text() == "3"
    (tmp_path / f"{digest}.rows").write_text("99")  # read, never counted again
    assert store.rows(digest) == 99
    (tmp_path / f"{digest}.rows").unlink()  # stored before the count was kept: counted once
    assert store.rows(digest) == 3 and (tmp_path / f"{digest}.rows").is_file()
    (tmp_path / f"{digest}.rows").write_bytes(b"\xff1e9")  # damaged: counted again, no crash
    assert store.rows(digest) == 3 and (tmp_path / f"{digest}.rows").read_text() == "3"
    with pytest.raises(TraceError, match="not on this server"):
        store.rows("0" * 64)


def test_a_read_only_store_counts_a_traces_lines_without_keeping_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A store written before the count was kept, now read-only: counted, no crash."""
    from engine.study import traces

    store = TraceStore(tmp_path)
    digest = store.put("a.csv", b"h\n1\n")
    (tmp_path / f"{digest}.rows").unlink()

    def read_only(path: Path, data: bytes) -> None:
        raise PermissionError(path)

    monkeypatch.setattr(traces, "write_atomic", read_only)
    assert store.rows(digest) == 2 and not (tmp_path / f"{digest}.rows").exists()


def test_each_study_limit_is_named_with_the_value() -> None:
    assert check_study([SYNTH, SYNTH], 3, SMALL_BUDGET) == 6
    for scenarios, seeds, limit in (([SYNTH] * 3, 1, "MAX_SCENARIOS"), ([SYNTH], 4, "MAX_SEEDS"),
                                    ([dataclasses.replace(SYNTH, policies=SYNTH.policies * 3)] * 2,
                                     2, "MAX_RUNS")):  # fmt: skip
        with pytest.raises(BudgetError, match=limit):
            check_study(scenarios, seeds, SMALL_BUDGET)


def test_the_budget_comes_from_secrets_and_the_environment_which_wins() -> None:
    assert load_budget({}, {}) == Budget()
    budget = load_budget({"GPUSCHED_MAX_JOBS": "500"}, {"max_jobs": 100, "max_seeds": 7})
    assert (budget.max_jobs, budget.max_seeds) == (500, 7)
    assert load_budget({"GPUSCHED_MAX_MEMORY_GB": "0"}).max_memory_bytes is None
    assert Budget().max_memory_bytes == 3 * 1024**3
    for env, secrets in (({"GPUSCHED_MAX_JOBS": "lots"}, {}), ({}, {"max_jobz": 1}),
                         ({"GPUSCHED_MAX_RUNS": "-1"}, {})):  # fmt: skip
        with pytest.raises(ConfigError):
            load_budget(env, secrets)
