"""Progress and Cancel between a caller and its worker processes: files in a folder.

A worker (:func:`engine.study.executors.execute` given a :class:`ProgressFiles`) writes
"fraction started elapsed_s" of its run to ``<run>.progress`` (atomically, at most every
:data:`REPORT_EVERY_S`) and stops when a ``cancel`` file appears; the caller (the dashboard's
:mod:`dashboard.parallel_run`) reads the files between the executor's waits. Files need no
extra process and no pickled queue, and work the same for a pool or the serial executor.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

REPORT_EVERY_S = 0.2  # a worker writes its progress (and checks for a cancel) at most this often


@dataclass(frozen=True)
class ProgressFiles:
    """A folder shared by the caller and its workers: ``<run>.progress`` holds "fraction
    started elapsed_s" of one run (``started``: epoch seconds; written atomically), ``cancel``
    asks every run to stop. A worker reports (and checks for a cancel) at most every
    ``every_s`` seconds."""

    folder: Path
    every_s: float = REPORT_EVERY_S

    def _path(self, run: str) -> Path:
        return self.folder / f"{hashlib.sha1(run.encode()).hexdigest()[:16]}.progress"

    def report(self, run: str, fraction: float, started: float) -> None:
        path = self._path(run)
        temporary = path.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_text(f"{fraction:.6f} {started:.3f} {time.time() - started:.3f}")
        os.replace(temporary, path)

    def read(self, run: str) -> tuple[float, float, float] | None:
        """(fraction, started, elapsed_s) last reported by ``run``, None before it started."""
        try:
            fraction, started, elapsed_s = self._path(run).read_text().split()
        except (OSError, ValueError):
            return None
        return float(fraction), float(started), float(elapsed_s)

    def request_cancel(self) -> None:
        (self.folder / "cancel").touch()

    def cancel_requested(self) -> bool:
        return (self.folder / "cancel").exists()


class RunReporter:
    """A worker's progress and cancel checks, each at most every ``files.every_s``."""

    def __init__(self, files: ProgressFiles, run: str, poll: Callable[[], bool] | None) -> None:
        self.files, self.run, self.poll = files, run, poll
        self.started = time.time()
        self.reported = self.checked = time.monotonic()
        files.report(run, 0.0, self.started)

    def progress(self, fraction: float) -> None:
        now = time.monotonic()
        if now - self.reported >= self.files.every_s or fraction >= 1.0:
            self.files.report(self.run, fraction, self.started)
            self.reported = now

    def should_cancel(self) -> bool:
        now = time.monotonic()
        if now - self.checked < self.files.every_s:
            return False
        self.checked = now
        return self.files.cancel_requested() or bool(self.poll and self.poll())
