"""Fixtures of every browser test: a dashboard server per test module, Chromium, pages.

A module whose server needs other settings defines its own ``server_env`` (studies run in the
server process; a store with canary files in it); a module that needs another window defines
its own ``page`` from ``new_page``. The steps the tests take are in :mod:`tests.e2e.harness`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, DESKTOP, WAIT_MS, serve_dashboard


@pytest.fixture(scope="session")
def start_server(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Iterator[str]]:
    """``yield from start_server(env)`` in a fixture: a dashboard server with ``env`` added to
    its environment, stopped when the fixture ends. Each server gets a result and trace store
    of its own (``GPUSCHED_STORE``, unless ``env`` names one): runs stored by an earlier server
    on this machine (``~/.cache/gpusched``) would come back at once and hide the progress a
    test reads."""

    def start(env: dict[str, str] | None = None) -> Iterator[str]:
        store = str(tmp_path_factory.mktemp("store"))
        return serve_dashboard({"GPUSCHED_STORE": store, **(env or {})})

    return start


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """What the module's server adds to its environment: nothing by default (the dashboard's
    own defaults, as a user gets them)."""
    return {}


@pytest.fixture(scope="module")
def server(start_server, server_env: dict[str, str]) -> Iterator[str]:
    """URL of the module's dashboard server (:func:`start_server` with ``server_env``)."""
    yield from start_server(server_env)


@pytest.fixture
def browser():
    """Debian's Chromium driven by Playwright, closed after the test; skips without either."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def new_page(browser) -> Callable[..., object]:
    """``new_page(viewport=DESKTOP, **context_options)``: a page in a fresh browser context
    (its own cookies and storage, as another person's browser), with the tests' timeout."""

    def open_page(viewport: dict[str, int] = DESKTOP, **context_options):
        tab = browser.new_context(viewport=viewport, **context_options).new_page()
        tab.set_default_timeout(WAIT_MS)
        return tab

    return open_page


@pytest.fixture
def page(new_page):
    """A fresh page at :data:`~tests.e2e.harness.DESKTOP` size."""
    return new_page()
