"""A Run parses the trace in its workers only: the server counts the trace's lines to order
the runs (issue 36), and a bad trace still comes back with the importer's message."""

from __future__ import annotations

import pytest
import streamlit as st

from dashboard import runner
from dashboard.lessons import lesson
from engine import scenario
from engine.errors import TraceError
from engine.study import executors


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each parse of a trace (``load_scenario_trace``) as True when a worker made it (inside
    ``executors.execute``), False when the server did; runs in this process (serial)."""
    seen: list[bool] = []
    inside = [False]
    parse, execute = scenario.load_scenario_trace, executors.execute

    def counting_parse(*args: object, **kwargs: object) -> object:
        seen.append(inside[0])
        return parse(*args, **kwargs)  # type: ignore[arg-type]

    def marking_execute(*args: object, **kwargs: object) -> object:
        inside[0] = True
        try:
            return execute(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            inside[0] = False

    monkeypatch.setattr(scenario, "load_scenario_trace", counting_parse)
    monkeypatch.setattr(executors, "execute", marking_execute)
    monkeypatch.setenv("GPUSCHED_EXECUTOR", "serial")
    st.cache_data.clear()
    st.cache_resource.clear()
    return seen


def test_a_run_parses_the_trace_only_in_its_workers(parses: list[bool]) -> None:
    chosen = lesson("fifo_hol")
    upload = chosen.upload
    result, simulated = runner.run(chosen.config(), upload, lambda statuses: None, lambda: False)
    assert simulated == 4 and len(result.results[0].jobs) == 7
    assert parses and all(parses), parses  # one parse per process; none in the server


def test_a_bad_trace_fails_with_the_importers_message(parses: list[bool]) -> None:
    chosen = lesson("fifo_hol")
    bad = chosen.trace_bytes().replace(b",4,", b",four,", 1)
    with pytest.raises(TraceError, match="scale_factor"):
        runner.run(chosen.config(), (chosen.file_name, bad), lambda s: None, lambda: False)
