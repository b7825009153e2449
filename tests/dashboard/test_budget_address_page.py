"""The dashboard's budget follows Streamlit's ``server.address`` (dashboard.run_queue)."""

from __future__ import annotations

import pytest
from streamlit import config

from dashboard.run_queue import machine, server_budget
from engine.budget import Budget, budget_for


@pytest.fixture
def address():
    before = config.get_option("server.address")
    yield lambda value: config.set_option("server.address", value)
    config.set_option("server.address", before)


def test_localhost_gets_the_machines_budget_and_other_addresses_the_shared_one(
    address, monkeypatch
) -> None:
    monkeypatch.delenv("GPUSCHED_MAX_JOBS", raising=False)
    memory, cores = machine()
    assert memory > 0 and cores > 0  # Linux: sysconf and the affinity mask
    address("localhost")
    local = server_budget()
    assert local == budget_for("localhost", memory, cores)
    assert "one person's machine" in local.in_force and local.max_jobs >= Budget().max_jobs
    address("0.0.0.0")
    shared = server_budget()
    assert shared == Budget() and "listens on 0.0.0.0" in shared.in_force
    monkeypatch.setenv("GPUSCHED_MAX_JOBS", "123")
    address("localhost")
    assert server_budget().max_jobs == 123  # the operator's setting wins
