"""Rough edges of the trace panel (issue 38, point 10): a refused trace says which control to
change, an unsupported file is refused in view, and notes speak the controls' words."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
MURI_TRACE = ROOT / "sample_traces" / "muri_cluster_trace.csv"
V100_ONLY = ClusterSpec(node_groups=(NodeGroup("v100", 8, 8, "rack0"),))  # Muri's testbed


def _app_with(config: ScenarioConfig) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.file_uploader(key="scenario_file").upload(
        "s.json", config.to_json().encode(), "application/json"
    ).run()
    return at


def _upload(at: AppTest, name: str, raw: bytes) -> None:
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="trace_file").upload(name, raw, "text/csv").run()


def test_muris_trace_on_a_v100_cluster_names_the_control_and_the_type_that_runs_it() -> None:
    """The default "measured on" type (p100) is not in a V100-only cluster: every job used to
    be refused with "has no throughput on v100" and a button that dropped all 400 of them."""
    at = _app_with(ScenarioConfig(cluster=V100_ONLY, policies=(PolicySpec("srtf"),)))
    _upload(at, "cluster_trace.csv", MURI_TRACE.read_bytes())
    assert not at.exception
    assert at.session_state["assumed_worker_type"] == "p100"
    (error,) = at.error
    assert '"Iteration times were measured on"' in error.value
    assert "now p100" in error.value and "above to v100." in error.value
    assert not any(b.label.startswith("Drop them") for b in at.button)
    next(b for b in at.button if b.key == "measured_on.v100").click().run()
    assert not at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.selectbox(key="assumed_worker_type").value == "v100"
    assert {m.label: m.value for m in at.metric}["Jobs"] == "400"


def test_a_trace_without_its_own_speeds_keeps_the_engines_message_and_drop_button() -> None:
    """The Philly sample's jobs run on their job types' GPU types: no "measured on" type cures
    a cluster too small for them, so the engine's message and its Drop button stay."""
    tiny = ClusterSpec(node_groups=(NodeGroup("v100", 1, 4, "rack0"),))
    at = _app_with(ScenarioConfig(cluster=tiny, policies=(PolicySpec("fifo"),)))
    assert not at.exception
    (error,) = at.error
    assert "need more GPUs than the cluster has" in error.value
    assert "measured on" not in error.value
    assert any(b.label.startswith("Drop them") for b in at.button)


def test_an_unsupported_file_is_refused_in_view_and_the_previous_files_error_goes() -> None:
    """A .bin used to be refused only in the uploader's tooltip, the last CSV's error still on
    screen."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    _upload(at, "broken.csv", b"job_id,submit_time\nx,1\n")
    assert any("broken.csv" in e.value for e in at.error)
    at.file_uploader(key="trace_file").upload("weights.bin", b"\x00\x01\x02", "x").run()
    assert not at.exception
    (error,) = at.error
    assert error.value.startswith("weights.bin is not a trace file")
    assert all(s in error.value for s in (".csv", ".tsv", ".txt", ".trace"))
    assert at.session_state["upload"] is None
    assert any("Upload a trace file" in w.value for w in at.warning)  # nothing runs
    at.file_uploader(key="trace_file").upload(
        "cluster_trace.csv", MURI_TRACE.read_bytes(), "text/csv"
    ).run()
    assert not at.error, [e.value for e in at.error]
    assert {m.label: m.value for m in at.metric}["Jobs"] == "400"


def test_notes_name_the_trace_setting_by_its_label_not_its_field() -> None:
    """The Philly note used to say "trace.assumed_worker_type"; the Muri note "the trace
    panel's GPU type"."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    notes = [info.value for info in at.info]
    assert any('(the trace setting "Durations were measured on")' in n for n in notes), notes
    assert at.selectbox(key="assumed_worker_type").label == "Durations were measured on"
    _upload(at, "cluster_trace.csv", MURI_TRACE.read_bytes())
    notes += [info.value for info in at.info]
    assert any('the trace setting "Iteration times were measured on"' in n for n in notes)
    assert at.selectbox(key="assumed_worker_type").label == "Iteration times were measured on"
    assert not any("trace." in n or "assumed_worker_type" in n for n in notes), notes


def test_kueue_workloads_yaml_is_an_upload_the_panel_reads() -> None:
    """The uploader's extensions come from the registered formats: Kueue's Workloads YAML
    (format ``kueue-workloads``) used to be refused as "not a trace file" by a hand list."""
    at = AppTest.from_file(APP, default_timeout=120).run()
    raw = (ROOT / "tests" / "engine" / "data" / "kueue" / "workloads.yaml").read_bytes()
    _upload(at, "workloads.yaml", raw)
    assert not at.exception
    assert not any("not a trace file" in e.value for e in at.error), [e.value for e in at.error]
    assert at.session_state["upload"] is not None
    assert any("Kueue Workloads" in m.value for m in at.markdown), "detected format not shown"


def test_an_upload_is_hashed_and_stored_once_when_it_arrives() -> None:
    """The SHA-256 that Compare, Sweep, Planner and links carry is taken at upload; a redraw
    neither hashes nor stores the file again (issue 36)."""
    import hashlib

    from engine.study.traces import TraceStore

    raw = MURI_TRACE.read_bytes()
    at = AppTest.from_file(APP, default_timeout=120).run()
    _upload(at, "cluster_trace.csv", raw)
    digest = hashlib.sha256(raw).hexdigest()
    assert at.session_state["upload_sha256"] == digest
    assert TraceStore().has(digest)
    at.session_state["upload_sha256"] = "kept"  # a redraw must not take it again
    at.run()
    assert at.session_state["upload_sha256"] == "kept"


def test_an_uploads_lines_are_counted_once_when_it_arrives_and_travel_with_it() -> None:
    """The work budget's jobs bound of an upload is its line count taken when it was stored
    (kept beside it in the trace store, and in the session): a redraw checks the budget with
    that count instead of counting the bytes again (issue 36)."""
    from engine.study.traces import TraceStore

    raw = MURI_TRACE.read_bytes()
    at = AppTest.from_file(APP, default_timeout=120).run()
    _upload(at, "cluster_trace.csv", raw)
    assert not at.exception
    rows = raw.count(b"\n") + (0 if raw.endswith(b"\n") else 1)
    assert at.session_state["upload_rows"] == rows == 401  # a header and 400 jobs
    assert TraceStore().rows(at.session_state["upload_sha256"]) == rows
    at.session_state["upload_rows"] = 1_000_000_000  # planted: a recount would not see it
    at.run()
    assert any("1,000,000,000" in e.value and "MAX_JOBS" in e.value for e in at.error), [
        e.value for e in at.error
    ]
