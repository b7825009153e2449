"""The Planner's chart on a projector (issue 38 point 4, 1280 x 720, and at a desk's
1600 x 1000): every mix is drawn where
it is judged (at its bound: no "misses" dot inside the green band, no "meets" dot outside), the
labels of today's cluster and the chosen mix sit by their markers, and a line that says a mix
misses the target states the bound it was judged on (screenshots
``artifacts/plan_chart_<width>.png``, the chart in the window, and
``plan_chart_<width>_full.png``)."""

from __future__ import annotations

import re

import pytest

from engine.config import (
    ClusterSpec,
    NodeGroup,
    PolicySpec,
    ScenarioConfig,
    SyntheticSpec,
    TraceSpec,
)
from tests.e2e.harness import fill_number, load_scenario, open_page, screenshot

pytestmark = pytest.mark.e2e
SIZES = {"1280x720": {"width": 1280, "height": 720}, "1600x1000": {"width": 1600, "height": 1000}}
SMALL = ScenarioConfig(
    trace=TraceSpec(source="synthetic", synthetic=SyntheticSpec(120, 20.0)),
    cluster=ClusterSpec((NodeGroup("v100", 2, 8, "rack0"), NodeGroup("k80", 2, 8, "rack1"))),
    policies=(PolicySpec("fifo"),),
)
TARGET_H = 60.0
"""Between the small scenario's cheap mixes' bounds and today's, so some meet and some miss."""
NEAR_PX = 90
"""A label sits by its marker: its centre within this many pixels of the marker's [R]."""
READ = """(gd) => {
  const L = gd._fullLayout, s = L._size;
  const px = (x, y) => [s.l + L.xaxis.d2p(x), s.t + L.yaxis.d2p(y)];
  const judged = gd._fullData.filter(t => t.meta === "judged")
    .map(t => ({name: t.name, ys: Array.from(t.y)}));
  const marks = gd._fullData.filter(t => /^(today's cluster|chosen): /.test(t.name || ""))
    .map(t => ({name: t.name.split(":")[0], at: px(t.x[0], t.y[0])}));
  const labels = L.annotations.filter(a => a.showarrow)
    .map(a => ({text: a.text, at: px(a.x, a.y), ax: a.ax, ay: a.ay}));
  return {judged, marks, labels, range: L.yaxis.range};
}"""


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """Plans run in the server process, one simulation at a time (a small CI machine)."""
    return {"GPUSCHED_EXECUTOR": "serial"}


@pytest.mark.parametrize("size", list(SIZES))
def test_the_planners_chart_reads_on_a_projector(
    server: str, new_page, tmp_path, size: str
) -> None:
    window = SIZES[size]
    page = new_page(window)
    load_scenario(page, server, SMALL, tmp_path, "small.json")
    open_page(page, "Planner")
    fill_number(page, "At most (h)", f"{TARGET_H}")
    fill_number(page, "Seeds", "2")
    page.get_by_role("button", name="Plan", exact=True).click()
    page.get_by_text(re.compile(r"\d+ simulations in this plan")).wait_for(timeout=600_000)
    chart = page.locator(".js-plotly-plot").first
    chart.wait_for()
    chart.scroll_into_view_if_needed()
    screenshot(page, f"plan_chart_{window['width']}", whole_page=False)
    drawn = chart.evaluate(READ)
    by_name = {t["name"]: t["ys"] for t in drawn["judged"]}
    assert all(y <= TARGET_H + 1e-9 for y in by_name.get("meets the target", [])), drawn
    assert all(y > TARGET_H for y in by_name.get("misses it", [])), drawn
    assert by_name.get("meets the target") and by_name.get("misses it"), by_name.keys()
    for mark in drawn["marks"]:  # today's cluster and the chosen mix: each label by its marker
        label = next(a for a in drawn["labels"] if a["text"] == mark["name"])
        centre = (label["at"][0] + label["ax"], label["at"][1] + label["ay"])
        gap = ((centre[0] - mark["at"][0]) ** 2 + (centre[1] - mark["at"][1]) ** 2) ** 0.5
        assert gap < NEAR_PX, (mark, label)
    box = chart.bounding_box()
    assert box["x"] + box["width"] <= window["width"], box  # the legend inside the page
    misses = page.get_by_text(re.compile(r"misses the target"))
    for i in range(misses.count()):
        line = misses.nth(i).inner_text()
        assert re.search(r"sure .* (below|above) [\d.]+ h", line), line
    assert page.get_by_test_id("stException").count() == 0
    screenshot(page, f"plan_chart_{window['width']}_full")
