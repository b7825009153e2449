"""A server a whole meeting shares, in a real browser: crafted links get one clear message,
never a server file (a canary the server could read never appears), and the server keeps
serving fresh sessions; ten people opening ten links at once each see their own results.

The module's server has its stores in a temporary directory, with a canary file beside them and
one inside the trace store under a name that is not a hash.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from dashboard.links import DAMAGED, LinkState, encode_link
from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from tests.e2e.harness import (
    WAIT_MS,
    assert_each_sees_own_kpis,
    kpi_table,
    open_links_at_once,
    open_scenario_page,
    screenshot,
)

pytestmark = pytest.mark.e2e
CANARY = "CANARY-e2e-4d7f1a-do-not-show"
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(60, 20.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 8, "rack0"), NodeGroup("k80", 2, 8, "rack1"))),
    policies=(PolicySpec("fifo"),),
)


@pytest.fixture(scope="module")
def canaries(tmp_path_factory) -> dict[str, Path]:
    """Canary files the server process could read: one beside its store, one inside its trace
    store under a name that is not a hash, one shaped like a throughput matrix."""
    root = tmp_path_factory.mktemp("shared")
    (root / "store" / "traces").mkdir(parents=True)
    files = {
        "beside": root / "canary.csv",
        "in_store": root / "store" / "traces" / "canary.csv",
        "matrix": root / "matrix.csv",
    }
    files["beside"].write_text(f"job_id,arrival_s,num_gpus,duration_s\n{CANARY},0,1,60\n")
    files["in_store"].write_text(f"job_id,arrival_s,num_gpus,duration_s\n{CANARY},0,1,60\n")
    files["matrix"].write_text(
        "worker_type,model,batch_size,scale_factor,isolated_steps_per_sec\n"
        f"{CANARY},ResNet-50,64,1,1.0\n"
    )
    return files


@pytest.fixture(scope="module")
def server_env(canaries) -> dict[str, str]:
    """The module's server keeps its stores where the canaries are, and runs in a process
    pool as a shared server does."""
    store = canaries["in_store"].parents[1]
    return {"GPUSCHED_STORE": str(store), "GPUSCHED_EXECUTOR": "pool"}


def _pack(payload: object) -> str:
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def _link(scenario: dict | None = None, **top) -> str:
    payload = {"v": 1, "scenarios": {"base": scenario or SMALL.to_dict()}, "current": "base"}
    return _pack({**payload, **top})


def _with(**changes) -> dict:
    data = SMALL.to_dict()
    for path, value in changes.items():
        node = data
        *parents, last = path.split("__")
        for part in parents:
            node = node[part]
        node[last] = value
    return data


def crafted(canaries: dict[str, Path]) -> dict[str, str]:
    beside, in_store, matrix = (str(canaries[k]) for k in ("beside", "in_store", "matrix"))
    up = "../" * 10
    return {
        "absolute trace path": _link(_with(trace__source=beside)),
        "traversal trace path": _link(_with(trace__source=up + beside.lstrip("/"))),
        "sample name with a path": _link(_with(trace__source=f"sample:../../{Path(beside).name}")),
        "trace URL": _link(_with(trace__source="http://127.0.0.1:9/trace.csv")),
        "absolute matrix path": _link(_with(throughputs=matrix)),
        "matrix URL": _link(_with(throughputs="https://example.com/matrix.csv")),
        "store hash by traversal": _link(trace_sha256="../canary.csv"),
        "store hash absolute": _link(trace_sha256=in_store),
        "store name not a hash": _link(trace_sha256="canary.csv"),
        "deep nesting": _pack(b"[" * 100_000),
        "decompression bomb": _pack(b" " * 40_000_000),  # 40 MB in a 53 kB URL
        "a million jobs": _link(_with(trace__synthetic__num_jobs=1_000_000)),
        "a thousand policies": _link(_with(policies=[
            {"name": "fifo", "params": {}, "label": f"f{i}"} for i in range(1000)])),
    }  # fmt: skip


def test_crafted_links_show_one_message_and_never_a_server_file(
    server: str, new_page, canaries
) -> None:
    """Each crafted link, in a fresh browser context, shows "This link cannot be opened" with
    its reason, no error box, no traceback and no canary; a fresh session then still loads
    the default scenario."""
    from playwright.sync_api import expect

    for i, (name, link) in enumerate(crafted(canaries).items()):
        page = new_page()
        page.goto(f"{server}/?scenario={link}")
        notice = page.get_by_text("This link cannot be opened").first
        notice.wait_for()
        expect(page.get_by_role("heading", name="Scheduling what-if")).to_be_visible()
        text = page.locator("body").inner_text()
        assert CANARY not in text, name
        assert "Traceback" not in text and str(canaries["beside"].parent) not in text, name
        assert page.get_by_test_id("stException").count() == 0, name
        if name in ("absolute trace path", "store hash by traversal", "a million jobs"):
            assert DAMAGED in text or "this server allows" in text, name
            if i == 0:
                screenshot(page, "crafted_link_message")
        page.context.close()
    fresh = new_page()
    open_scenario_page(fresh, server)
    expect(fresh.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=WAIT_MS)
    assert "This link cannot be opened" not in fresh.locator("body").inner_text()
    assert fresh.get_by_test_id("stException").count() == 0
    screenshot(fresh, "fresh_session_after_crafted_links")


SESSIONS = tuple(((policy,), seed) for seed, policy in enumerate(
    ("fifo", "las", "srtf", "gavel_maxmin", "fifo", "las", "srtf", "gavel_maxmin", "fifo", "las")
))  # fmt: skip


def test_ten_sessions_at_once_stay_isolated(server: str, new_page) -> None:
    """Ten browser contexts open ten links (policy and seed differ) at the same time; the
    server queues their runs on its two workers, and each person sees their own policy's
    KPI table, no one else's, and no error."""
    configs = [
        dataclasses.replace(SMALL, policies=tuple(PolicySpec(p) for p in policies), seed=seed + 40)
        for policies, seed in SESSIONS
    ]
    pages = open_links_at_once(new_page, server, configs)
    assert_each_sees_own_kpis(pages, configs, timeout_ms=240_000)
    screenshot(pages[-1], "ten_sessions_last")


@pytest.fixture
def one_worker_server(start_server) -> Iterator[str]:
    """A server with one worker for everyone (``GPUSCHED_WORKERS=1``)."""
    yield from start_server({"GPUSCHED_EXECUTOR": "pool", "GPUSCHED_WORKERS": "1"})


def test_a_queued_session_sees_its_place_and_cancel_frees_it(one_worker_server, new_page) -> None:
    """With one worker, a second session's linked run waits "1st in the queue" while the
    first one runs; its Cancel takes it out (a notice says so, no error), and a third
    session then gets the worker and its results."""
    from playwright.sync_api import expect

    server = one_worker_server
    busy = ScenarioConfig(  # the Philly sample under three slow policies: about 20 s of work
        policies=(PolicySpec("sampling_placement"), PolicySpec("hare_hlas"),
                  PolicySpec("gavel_ftf_agnostic"))
    )  # fmt: skip
    first = new_page()
    first.goto(f"{server}/results?scenario={encode_link(LinkState({'base': busy}, 'base'))}")
    first.get_by_text("Simulating 3 policies").first.wait_for(timeout=120_000)
    second = new_page()
    waiting = dataclasses.replace(SMALL, seed=77)
    second.goto(f"{server}/results?scenario={encode_link(LinkState({'base': waiting}, 'base'))}")
    second.get_by_text("1st in the queue").wait_for()
    screenshot(second, "queued_session", whole_page=False)
    second.get_by_role("button", name="Cancel").click()
    second.get_by_text("run was cancelled").wait_for()
    assert first.get_by_text("Simulating 3 policies").count() == 1  # still running: it waited
    second.get_by_text("No results yet").wait_for()
    assert kpi_table(second).count() == 0
    assert second.get_by_test_id("stException").count() == 0
    kpi_table(first).wait_for(timeout=300_000)
    third = new_page()
    later = dataclasses.replace(SMALL, seed=78)
    third.goto(f"{server}/results?scenario={encode_link(LinkState({'base': later}, 'base'))}")
    expect(kpi_table(third)).to_be_visible(timeout=120_000)
    assert "in the queue" not in third.locator("body").inner_text()
