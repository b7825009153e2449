"""The budget follows the address the server listens on (engine.budget.budget_for): localhost
fits one person's machine (the full Philly trace and a 25,000-GPU cluster pass), any other
address the shared budget; the operator's settings win; every refusal names the budget in
force and the setting that changes it."""

from __future__ import annotations

import pytest

from engine.budget import (
    GIB,
    Budget,
    BudgetError,
    budget_for,
    check_scenario,
    is_local,
    machine_budget,
)
from engine.config import ClusterSpec, NodeGroup, ScenarioConfig, TraceSpec

PHILLY_JOBS = 82_247
LAPTOP = (8 * GIB, 8)  # the smallest machine the rule is sized for: 8 GiB, 8 cores
BIG = ScenarioConfig(
    trace=TraceSpec(source="sample:philly_2000.csv"),
    cluster=ClusterSpec((NodeGroup("v100", 3125, 8, "rack0"),)),  # 25,000 GPUs
)


def test_local_addresses() -> None:
    assert is_local("localhost") and is_local("127.0.0.1") and is_local("::1")
    assert is_local(" LocalHost ") and is_local("[::1]")
    assert not is_local("") and not is_local(None)  # Streamlit's default: every address
    assert not is_local("0.0.0.0") and not is_local("10.0.0.5")


def test_machine_budget_by_hand() -> None:
    """24 GiB, 2 cores: 2 workers of 0.8 x 24 / 2 = 9.6 GiB; 60,000 jobs and 16,384 GPUs
    per GiB of that. 8 GiB, 8 cores: 4 workers of 1.6 GiB, 96,000 jobs, 26,214 GPUs."""
    server = machine_budget(24 * GIB, 2)
    assert (server.workers, server.session_workers, server.max_memory_gb) == (2, 2, 9.6)
    assert (server.max_jobs, server.max_gpus) == (576_000, 157_286)
    laptop = machine_budget(*LAPTOP)
    assert (laptop.workers, laptop.max_memory_gb, laptop.max_jobs) == (4, 1.6, 96_000)
    assert laptop.max_gpus == 26_214
    tiny = machine_budget(GIB // 4, 1)  # never below the shared budget's jobs and GPUs
    assert (tiny.max_jobs, tiny.max_gpus) == (Budget().max_jobs, Budget().max_gpus)


def test_localhost_runs_the_full_philly_trace_and_25000_gpus_without_a_setting() -> None:
    local = budget_for("localhost", *LAPTOP)
    assert check_scenario(BIG, local, PHILLY_JOBS + 1) == PHILLY_JOBS + 1  # header line too
    shared = budget_for("0.0.0.0", *LAPTOP)
    with pytest.raises(BudgetError) as refused:
        check_scenario(BIG, shared, PHILLY_JOBS + 1)
    message = str(refused.value)
    assert "the number of GPUs in the GPU mix is 25,000; this server allows at most 4,096" in (
        message
    )
    assert "GPUSCHED_MAX_GPUS changes it" in message
    assert "in force: the shared budget, as the server listens on 0.0.0.0" in message


def test_the_operator_wins_on_either_address_and_an_unknown_machine_is_shared() -> None:
    env = {"GPUSCHED_MAX_JOBS": "500"}
    assert budget_for("localhost", *LAPTOP, env=env).max_jobs == 500
    assert budget_for("localhost", *LAPTOP, env=env).max_gpus == 26_214  # the rest: the machine's
    assert budget_for("", *LAPTOP, secrets={"max_gpus": 64}).max_gpus == 64
    unknown = budget_for("localhost", 0, 0)
    assert unknown == Budget() and "memory is unknown" in unknown.in_force
    with pytest.raises(BudgetError, match="one person's machine \\(8 GiB, 8 cores\\)"):
        budget_for("localhost", *LAPTOP).check("max_jobs", 10**6, "the number of jobs")
