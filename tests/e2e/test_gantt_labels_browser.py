"""The Gantt's partner labels in Chromium (issue 38, rough edges): a shared bar wide enough
writes its partner in the bar at a readable size; a bar too short for it at
:data:`dashboard.gantt.LABEL_MIN_PX` shows no label rather than one shrunk unreadably, and its
hover still names the partner. The figure is the sharing lesson's (Muri-S, 2 jobs per GPU),
drawn by Plotly's own JavaScript in a page of its own (screenshots
``artifacts/gantt_labels_<view>.png``)."""

from __future__ import annotations

import pytest

from dashboard.gantt import LABEL_MIN_PX, make_gantt
from tests.dashboard.test_sharing_views import SHARED, sim
from tests.e2e.harness import ARTIFACTS

pytestmark = pytest.mark.e2e
LABELS = """() => [...document.querySelectorAll('.point')].flatMap(p => {
  const t = p.querySelector('text.bartext'), bar = p.querySelector('path');
  const drawn = t && t.getBoundingClientRect();
  if (!t || !t.textContent || !drawn.width) return [];  // no label, or hidden
  const scale = drawn.width / t.getBBox().width;
  return [{text: t.textContent, size_px: parseFloat(getComputedStyle(t).fontSize) * scale,
           width: drawn.width, bar: bar.getBoundingClientRect().width}];
})"""
WIDE_AXIS = 60
"""The narrow view: the time axis this many times the run's end, so each shared bar is a few
pixels wide (20 min of a 20 h axis on a 1,000-px chart: about 17 px)."""


def _labels(new_page, fig, name: str) -> list[dict]:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"gantt_labels_{name}.html"
    fig.write_html(path, include_plotlyjs=True, full_html=True)
    page = new_page({"width": 1280, "height": 720})
    page.goto(path.as_uri())
    page.locator(".js-plotly-plot").wait_for()
    page.wait_for_timeout(800)
    page.screenshot(path=str(ARTIFACTS / f"gantt_labels_{name}.png"))
    return page.evaluate(LABELS)


def test_a_label_that_does_not_fit_is_hidden_not_shrunk(new_page) -> None:
    run = sim(SHARED)
    wide = _labels(new_page, make_gantt(run.segments, run.jobs, {"v100": "#E69F00"}), "wide")
    assert any("shares with" in label["text"] for label in wide), wide
    for label in wide:
        assert label["size_px"] >= LABEL_MIN_PX - 0.1 and label["width"] <= label["bar"] + 1
    end_s = float(run.segments["end_s"].max())
    fig = make_gantt(run.segments, run.jobs, {"v100": "#E69F00"}, shown_end_s=WIDE_AXIS * end_s)
    narrow = _labels(new_page, fig, "narrow")
    assert narrow == []  # none fits at 10 px: none drawn, none shrunk
    hovers = [str(t.customdata[0][-1]) for t in fig.data if t.customdata is not None]
    assert any("shares its GPUs with" in h for h in hovers), hovers  # the hover names them
