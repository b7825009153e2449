"""The compiled engine core (engine/native.py): in use after set-up, the recorded results in both
compiled and plain Python, and never used stale.

Each CASE's result tables (summary, jobs, segments, utilization, decisions) are hashed, values
rounded to 10 significant digits, and compared with the hashes recorded in
``tests/engine/data/native_reference.json``: by this process (compiled after set-up, plain
Python under ``ENGINE_NATIVE=0``) and by a plain-Python subprocess. So the test fails when either
build's results drift, whichever mode runs it.

The reference is written by plain Python:

    ENGINE_NATIVE=0 .venv/bin/python -m tests.engine.test_native

(the 8 cases in about a minute). Rewrite it only when a change is meant to change
results, and say so in the commit; the diff of the file shows which case and table changed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import engine.simulator
from engine import native
from engine.config import (
    ClusterSpec,
    CongestionEpisode,
    FailureConfig,
    LoadConfig,
    NetworkConfig,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    TraceSpec,
)
from engine.presets import gavel_compatible
from engine.results import SimulationResult
from engine.scenario import load_scenario_trace
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(__file__).resolve().parent / "data" / "native_reference.json"
CONGESTED = NetworkConfig(
    share_links=True, uplink_oversubscription=4.0,
    congestion=(CongestionEpisode(0.0, 400_000.0, 4.0, "cross_rack"),
                CongestionEpisode(86_400.0, 172_800.0, 2.0, "inter_node")),
)  # fmt: skip
# (policy, scenario): the loops the compiled modules run: a non-preemptive event loop, rounds with
# restarts, the engine's own mid-round starts, Gavel's round loop (lease_rounds) and queues, copies
# grants, and Gavel's priority order, greedy pass and mid-round pairs (gavel rounds, pairs), and
# node failures with spares, rack failures and checkpoints (engine.faults); and busy: 96 GPUs
# (larger jobs dropped), arrivals 10x as often, where LAS preempts 162 times (74 with requeue),
# SRTF 45 times
CASES = (
    ("fifo", "congested"), ("las", "congested"), ("srtf", "default"), ("hadare", "congested"),
    ("gavel_maxmin", "gavel"), ("gavel_fifo", "gavel"), ("gavel_maxmin", "default"),
    ("las", "failures"), ("las", "busy"), ("las-requeue", "busy"), ("srtf", "busy"),
)  # fmt: skip
SPECS = {"las-requeue": PolicySpec("las", {"queue_thresholds_gpu_s": "600, 3600", "requeue": True})}
SMALL = ClusterSpec(
    tuple(NodeGroup(t, 4, 8, f"rack{i}") for i, t in enumerate(("v100", "p100", "k80")))
)
BUSY_TRACE = TraceSpec(drop_oversized=True)
FAILURES = FailureConfig(enabled=True, node_mtbf_h=50.0, rack_mtbf_h=500.0, spares_per_type=1)
NUM_JOBS = 300
FLOAT_FORMAT = "%.10g"  # rounding before hashing: 10 significant digits


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def result_hashes(result: SimulationResult) -> dict[str, str]:
    """sha256 of each result table as CSV (column dtypes first, floats as :data:`FLOAT_FORMAT`)."""
    summary = {name: FLOAT_FORMAT % value for name, value in sorted(result.summary.items())}
    hashes = {"summary": _sha256(json.dumps(summary))}
    tables = {
        "jobs": result.jobs, "segments": result.segments, "utilization": result.utilization,
        "decisions": result.decisions,
    }  # fmt: skip
    for name, table in tables.items():
        assert table is not None
        dtypes = repr(list(table.dtypes.astype(str).items()))
        hashes[name] = _sha256(dtypes + "\n" + table.to_csv(float_format=FLOAT_FORMAT))
    return hashes


def case_hashes() -> dict[str, dict[str, str]]:
    """``"policy/scenario"`` -> table name -> hash, for every CASE run in this process."""
    matrix = load_matrix()
    scenarios = {
        "default": ScenarioConfig(),
        "congested": ScenarioConfig(network=CONGESTED),
        "gavel": gavel_compatible(ScenarioConfig()),
        "failures": ScenarioConfig(failures=FAILURES),
        "busy": ScenarioConfig(
            cluster=SMALL, trace=BUSY_TRACE, load=LoadConfig(arrival_scale=10.0)
        ),
    }
    hashes = {}
    for policy, scenario in CASES:
        spec = SPECS.get(policy, PolicySpec(policy))
        config = dataclasses.replace(scenarios[scenario], policies=(spec,))
        jobs = load_scenario_trace(config).jobs.iloc[:NUM_JOBS]
        result = simulate(jobs, config, config.policies[0], matrix)
        hashes[f"{policy}/{scenario}"] = result_hashes(result)
    return hashes


def _recorded() -> dict[str, dict[str, str]]:
    return json.loads(REFERENCE.read_text(encoding="utf-8"))["cases"]


@pytest.mark.skipif(os.environ.get("ENGINE_NATIVE") == "0", reason="plain Python asked for")
def test_the_compiled_core_is_in_use_after_set_up() -> None:
    """scripts/test.sh builds it (through _bootstrap.sh); a failed build must not pass unseen."""
    assert native.ACTIVE, "the engine core is not compiled: run scripts/build_native.py"
    assert Path(engine.simulator.__file__).is_relative_to(native.BUILD_DIR)
    assert not engine.simulator.__file__.endswith(".py")


def test_this_process_gives_the_recorded_tables() -> None:
    """Compiled after set-up, plain Python under ``ENGINE_NATIVE=0``: the recorded hashes."""
    assert case_hashes() == _recorded()


@pytest.mark.skipif(not native.ACTIVE, reason="this process runs plain Python already")
def test_plain_python_gives_the_recorded_tables() -> None:
    """The same runs in a plain-Python process (``ENGINE_NATIVE=0``) give the recorded hashes."""
    script = "import json; from tests.engine.test_native import case_hashes; "
    script += "print(json.dumps(case_hashes()))"
    env = {**os.environ, "ENGINE_NATIVE": "0"}
    plain = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    assert json.loads(plain) == _recorded()


def test_an_edited_module_is_not_run_compiled(tmp_path: Path, monkeypatch) -> None:
    """The stamp covers every compiled module's bytes: one changed byte makes the build stale."""
    for module in native.MODULES:
        copy = tmp_path / module
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_bytes((ROOT / module).read_bytes())
    monkeypatch.setattr(native, "ROOT", tmp_path)
    monkeypatch.setattr(native, "STAMP", tmp_path / "STAMP")
    assert not native.is_current()  # no build yet
    native.STAMP.write_text(native.source_hash() + "\n", encoding="utf-8")
    assert native.is_current()
    edited = tmp_path / native.MODULES[-1]
    edited.write_text(edited.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert not native.is_current()


def write_reference() -> None:
    """Runs the CASES in plain Python and writes their hashes to :data:`REFERENCE`."""
    if native.ACTIVE:
        sys.exit("run with ENGINE_NATIVE=0 (the reference is plain Python's)")
    reference = {
        "written_by": "ENGINE_NATIVE=0 .venv/bin/python -m tests.engine.test_native",
        "num_jobs": NUM_JOBS,
        "float_format": FLOAT_FORMAT,
        "cases": case_hashes(),
    }
    REFERENCE.parent.mkdir(exist_ok=True)
    REFERENCE.write_text(json.dumps(reference, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {REFERENCE.relative_to(ROOT)}")


if __name__ == "__main__":
    write_reference()
