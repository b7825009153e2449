"""Peak memory of one dashboard server shared by ten people, with the default work budget.

Starts ``streamlit run dashboard/app.py`` (process pool, default budget, its own stores), then
drives it with Playwright in Debian's Chromium:

1. **ten sessions**: ten browser contexts open ten links at once (the Philly sample, 2,000
   jobs, FIFO + LAS + Gavel max-min, seeds 0-9); every link runs on open (its work is under
   the autorun budget), 30 policy runs queue for the server's two workers.
2. **the largest run the budget allows**: one session opens a link with the sample repeated to
   20,000 jobs (``load.num_jobs``, the default ``max_jobs``) and the same three policies,
   which waits for Run; it is clicked.

The server process and every process it starts (pool workers, the forkserver) are sampled
from ``/proc`` every 0.2 s; it prints the peak of their summed resident memory, the server's
own high-water mark, and the wall times. Linux only.

    .venv/bin/python benchmarks/bench_shared_server.py
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.links import LinkState, encode_link  # noqa: E402
from engine.config import LoadConfig, PolicySpec, ScenarioConfig  # noqa: E402
from tests.e2e.harness import CHROMIUM, CHROMIUM_ARGS, serve_dashboard  # noqa: E402

POLICIES = (PolicySpec("fifo"), PolicySpec("las"), PolicySpec("gavel_maxmin"))
PAGE_SIZE = 4096


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _tree_rss_bytes(root: int) -> int:
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        try:
            pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except OSError:
            continue
        total += pages * PAGE_SIZE
        todo.extend(_children(pid))
    return total


def _hwm_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


class Sampler:
    """Samples the summed RSS of a process tree in a thread; ``peak`` in bytes."""

    def __init__(self, pid: int) -> None:
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, _tree_rss_bytes(self.pid))
            time.sleep(0.2)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join()
        return self.peak


def _server_pid(port: int) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"streamlit" in b" ".join(cmd) and str(port).encode() in cmd:
                return int(entry.name)
    raise RuntimeError("server process not found")


def _wait_for_table(page, timeout_ms: int) -> None:
    """Waits for the KPI table; raises with the page's message if the run failed."""
    table = page.get_by_test_id("stDataFrame").filter(has_text="Mean JCT").first
    failed = page.get_by_text("did not run").or_(page.get_by_text("worker process stopped"))
    table.or_(failed.first).first.wait_for(timeout=timeout_ms)
    if not table.is_visible():
        raise RuntimeError(page.locator("body").inner_text()[:2000])


def main() -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    store = tempfile.mkdtemp(prefix="gpusched-bench-store-")
    servers = serve_dashboard({"GPUSCHED_STORE": store, "GPUSCHED_EXECUTOR": "pool"})
    url = next(servers)
    pid = _server_pid(int(url.rsplit(":", 1)[1]))
    idle = _tree_rss_bytes(pid)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            sampler, started = Sampler(pid), time.perf_counter()
            pages = []
            for seed in range(10):
                config = ScenarioConfig(policies=POLICIES, seed=seed)
                link = encode_link(LinkState({"base": config}, "base"))
                page = browser.new_context().new_page()
                page.goto(f"{url}/results?scenario={link}", wait_until="commit")
                pages.append(page)
            waiting = pages[-1].get_by_text("in the queue").first
            try:  # the last one waits for a worker: its place in the queue
                waiting.wait_for(timeout=60_000)
                (ROOT / "artifacts").mkdir(exist_ok=True)
                pages[-1].screenshot(path=str(ROOT / "artifacts" / "queue_waiting.png"))
            except PlaywrightTimeout:
                print("(no session was seen waiting in the queue)")
            for page in pages:
                _wait_for_table(page, 900_000)
            ten_s, ten_peak = time.perf_counter() - started, sampler.stop()
            for page in pages:
                page.context.close()

            sampler, started = Sampler(pid), time.perf_counter()
            big = ScenarioConfig(policies=POLICIES, load=LoadConfig(num_jobs=20_000))
            page = browser.new_context().new_page()
            page.goto(f"{url}/?scenario={encode_link(LinkState({'base': big}, 'base'))}")
            page.get_by_text("would simulate 3 policies on 20,000 jobs").wait_for(timeout=120_000)
            page.get_by_role("button", name="Run", exact=True).click()
            _wait_for_table(page, 1_800_000)
            big_s, big_peak = time.perf_counter() - started, sampler.stop()
            browser.close()
    finally:
        hwm = _hwm_bytes(pid)
        for _ in servers:  # stops the server
            pass
    gib = 1024**3
    print("server with the default budget (2 workers, 3 GiB cap each), this machine:")
    print(f"  idle, after start (no session yet):       {idle / gib:5.2f} GiB")
    print(f"  10 sessions x 3 policies x 2,000 jobs:    peak {ten_peak / gib:5.2f} GiB "
          f"(server + workers), all 10 tables in {ten_s:5.1f} s")  # fmt: skip
    print(f"  1 session x 3 policies x 20,000 jobs:     peak {big_peak / gib:5.2f} GiB, "
          f"table in {big_s:5.1f} s")  # fmt: skip
    print(f"  server process high-water mark (VmHWM):   {hwm / gib:5.2f} GiB")


if __name__ == "__main__":
    main()
