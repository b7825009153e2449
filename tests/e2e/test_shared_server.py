"""A server a whole meeting shares, in a real browser: crafted links get one clear message,
never a server file (a canary the server could read never appears), and the server keeps
serving fresh sessions; ten people opening ten links at once each see their own results.

Same harness as :mod:`tests.e2e.test_browser`; the server has its own stores in a temporary
directory, with a canary file beside them and one inside the trace store under a name that is
not a hash.
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
from engine.policies.base import policy_display_name
from tests.e2e.test_browser import (
    ARTIFACTS,
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_MS,
    _screenshot,
    serve_dashboard,
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
def server(canaries) -> Iterator[str]:
    store = canaries["in_store"].parents[1]
    yield from serve_dashboard({"GPUSCHED_STORE": str(store), "GPUSCHED_EXECUTOR": "pool"})


@pytest.fixture
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


def _new_page(browser):
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    return page


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
    server: str, browser, canaries
) -> None:
    """Each crafted link, in a fresh browser context, shows "This link cannot be opened" with
    its reason, no error box, no traceback and no canary; a fresh session then still loads
    the default scenario."""
    from playwright.sync_api import expect

    for i, (name, link) in enumerate(crafted(canaries).items()):
        page = _new_page(browser)
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
                _screenshot(page, "crafted_link_message")
        page.context.close()
    fresh = _new_page(browser)
    fresh.goto(server)
    fresh.get_by_role("heading", name="Scheduling what-if").wait_for()
    expect(fresh.get_by_role("button", name="Run", exact=True)).to_be_enabled(timeout=WAIT_MS)
    assert "This link cannot be opened" not in fresh.locator("body").inner_text()
    assert fresh.get_by_test_id("stException").count() == 0
    _screenshot(fresh, "fresh_session_after_crafted_links")


SESSIONS = tuple(((policy,), seed) for seed, policy in enumerate(
    ("fifo", "las", "srtf", "gavel_maxmin", "fifo", "las", "srtf", "gavel_maxmin", "fifo", "las")
))  # fmt: skip


def test_ten_sessions_at_once_stay_isolated(server: str, browser) -> None:
    """Ten browser contexts open ten links (policy and seed differ) at the same time; the
    server queues their runs on its two workers, and each person sees their own policy's
    KPI table, no one else's, and no error."""
    pages = []
    for policies, seed in SESSIONS:
        config = dataclasses.replace(
            SMALL, policies=tuple(PolicySpec(p) for p in policies), seed=seed + 40
        )
        link = encode_link(LinkState(scenarios={"base": config}, current="base"))
        page = _new_page(browser)
        page.goto(f"{server}/results?scenario={link}", wait_until="commit")
        pages.append(page)
    everyone = {policy_display_name(p) for policies, _ in SESSIONS for p in policies}
    for page, (policies, _seed) in zip(pages, SESSIONS, strict=True):
        table = page.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first
        table.wait_for(timeout=240_000)
        text = table.text_content() or ""
        mine = {policy_display_name(p) for p in policies}
        assert all(name in text for name in mine), (mine, text[:200])
        assert not any(name in text for name in everyone - mine), (mine, text[:200])
        assert page.get_by_test_id("stException").count() == 0
    _screenshot(pages[-1], "ten_sessions_last")


@pytest.fixture
def one_worker_server(tmp_path) -> Iterator[str]:
    """A server with one worker for everyone (``GPUSCHED_WORKERS=1``)."""
    yield from serve_dashboard({"GPUSCHED_STORE": str(tmp_path / "store"),
                                "GPUSCHED_EXECUTOR": "pool", "GPUSCHED_WORKERS": "1"})  # fmt: skip


def test_a_queued_session_sees_its_place_and_cancel_frees_it(one_worker_server, browser) -> None:
    """With one worker, a second session's linked run waits "1st in the queue" while the
    first one runs; its Cancel takes it out (a notice says so, no error), and a third
    session then gets the worker and its results."""
    from playwright.sync_api import expect

    server = one_worker_server
    busy = ScenarioConfig(  # the Philly sample under three slow policies: about 20 s of work
        policies=(PolicySpec("sampling_placement"), PolicySpec("hare_hlas"),
                  PolicySpec("gavel_ftf_agnostic"))
    )  # fmt: skip
    first = _new_page(browser)
    first.goto(f"{server}/results?scenario={encode_link(LinkState({'base': busy}, 'base'))}")
    first.get_by_text("Simulating 3 policies").first.wait_for(timeout=120_000)
    second = _new_page(browser)
    waiting = dataclasses.replace(SMALL, seed=77)
    second.goto(f"{server}/results?scenario={encode_link(LinkState({'base': waiting}, 'base'))}")
    second.get_by_text("1st in the queue").wait_for()
    (ARTIFACTS / "queued_session.png").parent.mkdir(exist_ok=True)
    second.screenshot(path=str(ARTIFACTS / "queued_session.png"))
    second.get_by_role("button", name="Cancel").click()
    second.get_by_text("run was cancelled").wait_for()
    assert first.get_by_text("Simulating 3 policies").count() == 1  # still running: it waited
    second.get_by_text("No results yet").wait_for()
    assert second.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").count() == 0
    assert second.get_by_test_id("stException").count() == 0
    first.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first.wait_for(timeout=300_000)
    third = _new_page(browser)
    later = dataclasses.replace(SMALL, seed=78)
    third.goto(f"{server}/results?scenario={encode_link(LinkState({'base': later}, 'base'))}")
    expect(third.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first).to_be_visible(
        timeout=120_000
    )
    assert "in the queue" not in third.locator("body").inner_text()
