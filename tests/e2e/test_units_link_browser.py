"""Issue 38, points 1 and 2 in a real browser, at a desk (1600 x 1000) and on a projector
(1280 x 720): the Results tables name one unit along each group (JCTs and the makespan; the
waits), and the sidebar's "Copy link" gives an address that, opened in a fresh browser
context (another person's browser), shows the same numbers."""

from __future__ import annotations

import re

import pytest

from dashboard.links import LinkState, encode_link
from engine.config import PolicySpec, ScenarioConfig, TraceSpec
from tests.e2e.harness import DESKTOP, assert_tables_fit, kpi_table, screenshot, tables_too_wide

PROJECTOR = {"width": 1280, "height": 720}
CONFIG = ScenarioConfig(
    trace=TraceSpec(source="sample:philly_2000.csv", max_jobs=300),
    policies=(PolicySpec("fifo"), PolicySpec("las")),
)
UNIT = re.compile(r"\((s|min|h|d)\)")


def header_units(table) -> list[str]:
    """The time units the headers of a Results table name, left to right."""
    return [m.group(1) for h in table.locator("th").all_inner_texts() if (m := UNIT.search(h))]


@pytest.mark.parametrize("viewport", [DESKTOP, PROJECTOR], ids=["1600x1000", "1280x720"])
def test_units_agree_along_each_group_and_the_copied_link_shows_the_same_numbers(
    server: str, new_page, viewport: dict[str, int]
) -> None:
    page = new_page(viewport=viewport)
    link = encode_link(LinkState({"base": CONFIG}, "base", page="results"))
    page.goto(f"{server}/results?scenario={link}")
    table = kpi_table(page)
    table.wait_for()
    jct = header_units(table)  # the "Job completion" table
    assert len(jct) == 5 and len(set(jct)) == 1, jct  # mean, median, p95, p99, makespan
    assert page.get_by_role("button", name="Cancel").count() == 0  # no stray control
    if viewport == DESKTOP:
        assert_tables_fit(page)  # the groups, the utilization three ways among them
    else:  # the policy column as wide as "Tiresias LAS": the JCT group's six columns in view
        assert not [t for t in tables_too_wide(page) if "JCT" in t["headers"]]
    name = f"units_link_{viewport['width']}"
    screenshot(page, f"{name}_results", whole_page=viewport == DESKTOP)
    page.get_by_test_id("stSidebar").get_by_role("button", name="Copy link").click()
    code = page.get_by_test_id("stCode").filter(has_text="scenario=")
    code.wait_for()
    address = re.sub(r"\s+", "", code.inner_text())
    assert address.startswith(f"{server}/results?scenario=")
    assert page.get_by_text("Opens this page with the scenario(s)").count() == 1
    screenshot(page, f"{name}_copy_link", whole_page=False)
    numbers = table.text_content()
    other = new_page(viewport=viewport)  # a fresh context: another person's browser
    other.goto(address)
    again = kpi_table(other)
    again.wait_for()
    assert again.text_content() == numbers
    screenshot(other, f"{name}_opened", whole_page=False)
