"""Rough edges of the trace panel in a real browser (issue 38, point 10).

Muri's testbed trace on a V100-only cluster says which control to change and fixes it in one
click; a ``.bin`` upload is refused on the page, naming the file and the accepted formats,
and the previous file's error goes. At 1600 x 1000 and 1280 x 720;
screenshots: ``artifacts/trace_edges_*_<width>.png``.
"""

from __future__ import annotations

import pytest

from engine.config import ClusterSpec, NodeGroup, PolicySpec, ScenarioConfig
from tests.e2e.harness import DESKTOP, ROOT, load_scenario, screenshot, upload_trace

MURI_TRACE = ROOT / "sample_traces" / "muri_cluster_trace.csv"
V100_ONLY = ClusterSpec(node_groups=(NodeGroup("v100", 8, 8, "rack0"),))

pytestmark = pytest.mark.e2e


@pytest.fixture(params=[DESKTOP, {"width": 1280, "height": 720}], ids=["1600x1000", "1280x720"])
def page(new_page, request):
    """A desk's window and a projector's (issue 38: every point at both sizes)."""
    return new_page(request.param)


def _shot(page, name: str) -> None:
    screenshot(page, f"{name}_{page.viewport_size['width']}")


def test_muris_trace_on_v100s_names_the_control_and_one_click_runs_it(
    server: str, page, tmp_path
) -> None:
    config = ScenarioConfig(cluster=V100_ONLY, policies=(PolicySpec("srtf"),))
    load_scenario(page, server, config, tmp_path)
    page.get_by_role("tab", name="1 · Jobs").click()
    upload_trace(page, MURI_TRACE)
    hint = page.get_by_text('change "Iteration times were measured on" above to v100')
    hint.wait_for()
    _shot(page, "trace_edges_muri_refused")
    page.get_by_role("button", name="Measured on v100").click()
    page.get_by_text("Speeds from the trace").filter(has_text="measured on v100").wait_for()
    assert hint.count() == 0
    _shot(page, "trace_edges_muri_fixed")


def test_a_bin_upload_is_refused_in_view_and_the_previous_error_goes(
    server: str, page, tmp_path
) -> None:
    broken, weights = tmp_path / "broken.csv", tmp_path / "weights.bin"
    broken.write_text("job_id,submit_time\nx,1\n", encoding="utf-8")
    weights.write_bytes(b"\x00\x01\x02\x03")
    page.goto(server)
    page.get_by_role("heading", name="Scheduling what-if").wait_for()
    upload_trace(page, broken)
    previous = page.get_by_test_id("stAlert").filter(has_text="broken.csv")
    previous.first.wait_for()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Trace file")
    uploader.locator("input[type=file]").set_input_files(str(weights))
    page.get_by_text("weights.bin is not a trace file this panel reads").wait_for()
    page.get_by_text("upload a .csv, .trace, .tsv, .txt, .yaml or .yml file").wait_for()
    assert previous.count() == 0
    _shot(page, "trace_edges_bin_refused")
