"""The compiled engine core (engine/native.py): in use after set-up, bit for bit the same results as
plain Python, and never used stale."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import engine.simulator
from engine import native
from engine.config import (
    CongestionEpisode,
    FailureConfig,
    NetworkConfig,
    PolicySpec,
    ScenarioConfig,
)
from engine.presets import gavel_compatible
from engine.scenario import load_scenario_trace
from engine.simulator import simulate
from engine.throughput import load_matrix

ROOT = Path(__file__).resolve().parents[2]
CONGESTED = NetworkConfig(
    share_links=True, uplink_oversubscription=4.0,
    congestion=(CongestionEpisode(0.0, 400_000.0, 4.0, "cross_rack"),
                CongestionEpisode(86_400.0, 172_800.0, 2.0, "inter_node")),
)  # fmt: skip
# (policy, scenario): the loops the compiled modules run: a non-preemptive event loop, rounds with
# restarts, the engine's own mid-round starts, Gavel's round loop (micro_tasks) and queues, copies
# grants, and Gavel's priority order, greedy pass and mid-round pairs (gavel rounds, pairs), and
# node failures with spares, rack failures and checkpoints (engine.faults)
CASES = (
    ("fifo", "congested"), ("las", "congested"), ("srtf", "default"), ("hadare", "congested"),
    ("gavel_maxmin", "gavel"), ("gavel_fifo", "gavel"), ("gavel_maxmin", "default"),
    ("las", "failures"),
)  # fmt: skip
FAILURES = FailureConfig(enabled=True, node_mtbf_h=50.0, rack_mtbf_h=500.0, spares_per_type=1)
NUM_JOBS = 300


def table_hashes() -> list[str]:
    """sha256 of each case's result tables (values and dtypes) and summary, in this process."""
    matrix = load_matrix()
    scenarios = {
        "default": ScenarioConfig(),
        "congested": ScenarioConfig(network=CONGESTED),
        "gavel": gavel_compatible(ScenarioConfig()),
        "failures": ScenarioConfig(failures=FAILURES),
    }
    hashes = []
    for policy, scenario in CASES:
        config = dataclasses.replace(scenarios[scenario], policies=(PolicySpec(policy),))
        jobs = load_scenario_trace(config).jobs.iloc[:NUM_JOBS]
        result = simulate(jobs, config, config.policies[0], matrix)
        digest = hashlib.sha256(repr(sorted(result.summary.items())).encode())
        for table in (result.jobs, result.segments, result.utilization, result.decisions):
            assert table is not None
            digest.update(repr(list(table.dtypes.astype(str).items())).encode())
            digest.update(pd.util.hash_pandas_object(table, index=True).to_numpy().tobytes())
        hashes.append(f"{policy}/{scenario} {digest.hexdigest()}")
    return hashes


@pytest.mark.skipif(os.environ.get("ENGINE_NATIVE") == "0", reason="plain Python asked for")
def test_the_compiled_core_is_in_use_after_set_up() -> None:
    """scripts/test.sh builds it (through _bootstrap.sh); a failed build must not pass unseen."""
    assert native.ACTIVE, "the engine core is not compiled: run scripts/build_native.py"
    assert Path(engine.simulator.__file__).is_relative_to(native.BUILD_DIR)
    assert not engine.simulator.__file__.endswith(".py")


def test_compiled_and_plain_python_give_identical_tables() -> None:
    """The same runs in a plain-Python process give the same tables to the last bit."""
    script = "from tests.engine.test_native import table_hashes; print(*table_hashes(), sep='\\n')"
    env = {**os.environ, "ENGINE_NATIVE": "0"}
    plain = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True,
        check=True,
    ).stdout.split("\n")  # fmt: skip
    assert plain[: len(CASES)] == table_hashes()


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
