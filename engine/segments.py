"""The Gantt segments of a run, stored column by column, and the ``segments`` result table.

A row's placement columns (worker type, GPUs, nodes, racks, level, lane, combine, GPUs per node)
repeat across restarts: a run of the full Philly trace under Tiresias LAS closes about 980,000
segments on a few hundred distinct lanes. Each row stores the code of its lane and of its end
reason; the table is built once at the end by indexing small vocabularies (numpy for numbers,
Arrow's ``take`` for text), not by converting a million Python tuples and strings.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from engine.results import SEGMENT_COLUMNS

Lane = tuple[str, int, str, str, str, int, str, str]
"""A row's placement columns: worker_type, num_gpus, nodes, racks, level, lane, combine,
node_gpus (see :mod:`engine.results`)."""

_TEXT = pd.Series(["text"]).dtype  # the dtype pandas gives a column of Python strings


CHUNK_ROWS = 1 << 16
"""Rows :class:`Segments` holds as Python lists before turning them into arrays."""


class Segments:
    """The rows closed so far: the latest in one list per column, earlier ones in :attr:`chunks`."""

    def __init__(self) -> None:
        self.job: list[int] = []  # the job's index (position in the arrival-sorted table)
        self.start_s: list[float] = []
        self.end_s: list[float] = []
        self.restore_s: list[float] = []
        self.reason: list[int] = []  # code into ``reasons``
        self.lane: list[int] = []  # code into ``lanes``
        self.reasons: dict[str, int] = {}
        self.lanes: dict[Lane, int] = {}
        self.chunks: list[list[np.ndarray]] = []  # earlier rows, as arrays (see :meth:`add`)
        self._last_reason: str | None = None  # the reason of the last row added, and its code
        self._last_code = -1

    def add(
        self, job: int, start_s: float, end_s: float, restore_s: float, reason: str, lane: int
    ) -> None:
        """Appends one row; ``lane`` is a code from :meth:`lane_code`. Every :data:`CHUNK_ROWS`
        rows the lists become arrays (:meth:`flush`): their million Python floats and ints
        would otherwise all live to the end, fresh memory the kernel pages in, and be freed
        one by one at the end; a chunk's objects are freed, and their memory reused, at once."""
        if reason is self._last_reason:  # runs of one reason (a round's preemptions)
            code = self._last_code
        else:
            found = self.reasons.get(reason)
            if found is None:
                found = self.reasons[reason] = len(self.reasons)
            code = found
            self._last_reason, self._last_code = reason, code
        self.job.append(job)
        self.start_s.append(start_s)
        self.end_s.append(end_s)
        self.restore_s.append(restore_s)
        self.reason.append(code)
        self.lane.append(lane)
        if len(self.job) >= CHUNK_ROWS:
            self.flush()

    def flush(self) -> None:
        """Moves the rows held in lists into :attr:`chunks` (one array per column)."""
        if not self.job:
            return
        self.chunks.append([
            _array(self.job, np.int64), _array(self.start_s, float), _array(self.end_s, float),
            _array(self.restore_s, float), _array(self.reason, np.int64),
            _array(self.lane, np.int64),
        ])  # fmt: skip
        self.job, self.start_s, self.end_s, self.restore_s = [], [], [], []
        self.reason, self.lane = [], []

    def column(self, position: int) -> np.ndarray:
        """Every row's value of one column (0 job, 1 start, 2 end, 3 restore, 4 reason, 5 lane),
        after :meth:`flush`."""
        parts = [chunk[position] for chunk in self.chunks]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def lane_code(self, lane: Lane) -> int:
        """The code of a row's placement columns (a new one for a lane not seen before)."""
        code = self.lanes.get(lane)
        if code is None:
            code = self.lanes[lane] = len(self.lanes)
        return code

    def table(self, job_ids: list[str]) -> pd.DataFrame:
        """The ``segments`` table; ``job_ids`` by job index. The same values and dtypes as a
        DataFrame built from the rows as tuples (empty: pandas' own empty frame)."""
        self.flush()
        if not self.chunks:  # a copy of pandas' own empty frame, built once (1 ms each time)
            return _empty().copy()
        lanes = list(self.lanes)  # in code order
        lane = self.column(5)
        columns: dict[str, Any] = {
            "job_id": _text(job_ids, self.column(0)),
            "start_s": self.column(1),
            "end_s": self.column(2),
            "restore_s": self.column(3),
            "end_reason": _text(list(self.reasons), self.column(4)),
        }
        for position in (1, 5):  # num_gpus, lane
            numbers = [int(row[position]) for row in lanes]
            columns[_LANE_COLUMNS[position]] = np.array(numbers, dtype=np.int64)[lane]
        for position in (0, 2, 3, 4, 6, 7):
            text = [str(row[position]) for row in lanes]
            columns[_LANE_COLUMNS[position]] = _text(text, lane)
        return pd.DataFrame(columns, columns=list(SEGMENT_COLUMNS))


def _array(values: list[Any], dtype: Any) -> np.ndarray:
    """``np.array(values, dtype)``, without its pass that discovers the values' shape and type
    (numpy's fromiter: the same values, about 1.5x faster)."""
    return np.fromiter(values, dtype=dtype, count=len(values))


_LANE_COLUMNS = (
    "worker_type", "num_gpus", "nodes", "racks", "level", "lane", "combine", "node_gpus",
)  # fmt: skip


def _empty() -> pd.DataFrame:
    global _EMPTY
    if _EMPTY is None:
        _EMPTY = pd.DataFrame([], columns=list(SEGMENT_COLUMNS))
    return _EMPTY


_EMPTY: pd.DataFrame | None = None


def _text(vocabulary: list[str], codes: np.ndarray) -> Any:
    """The strings ``vocabulary[codes]`` as the column pandas would make of them."""
    if _ARROW_TEXT:
        import pyarrow as pa

        taken = pa.array(vocabulary, type=pa.large_string()).take(pa.array(codes))
        return pd.array(taken, dtype=_TEXT)
    return [vocabulary[code] for code in codes.tolist()]


def text_column(values: list[str]) -> Any:
    """A column of Python strings as pandas would make it, converted by Arrow when pandas keeps
    text in Arrow (pandas >= 3: about 4x faster than pandas' own conversion). Empty: the list,
    whose dtype pandas decides."""
    if _ARROW_TEXT and values:
        import pyarrow as pa

        return pd.array(pa.array(values, type=pa.large_string()), dtype=_TEXT)
    return values


_ARROW_TEXT = isinstance(_TEXT, pd.StringDtype) and _TEXT.storage == "pyarrow"
