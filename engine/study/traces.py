"""A trace store keyed by content: the bytes of every trace a study uses, under their SHA-256.

A study names its trace by hash (``RunSpec.trace_hash``) instead of threading uploaded bytes
through the layers; :func:`trace_payload` reads and hashes a trace once, and its bytes go with
the tasks to the workers.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from engine.budget import count_rows
from engine.config import ScenarioConfig
from engine.content import ContentStore, default_store_dir, sha256_hex, write_atomic
from engine.errors import TraceError
from engine.traces.resolve import TraceFile, read_trace_file


class TraceStore(ContentStore):
    """The uploaded traces (:class:`engine.content.ContentStore`): ``<root>/<sha256>`` holds the
    bytes, ``<root>/<sha256>.name`` the file name and ``<root>/<sha256>.rows`` its lines,
    counted once when it is stored (:func:`engine.budget.count_rows`, an upper bound of its
    jobs that the work budget checks before anything parses it); a hash is resolved only
    inside the store.

    Args:
        root: the directory (created on first write); default ``default_store_dir()/traces``.
    """

    def __init__(self, root: Path | str | None = None) -> None:
        super().__init__(root if root is not None else default_store_dir() / "traces")

    def put(self, name: str, data: bytes) -> str:
        """Stores ``data`` (idempotent) with its line count; returns its SHA-256 hex."""
        digest = super().put(name, data)
        if not (self.root / f"{digest}.rows").is_file():
            self._keep_rows(digest, data)
        return digest

    def rows(self, digest: str) -> int:
        """Lines of a stored trace, as counted when it was stored (a trace stored before the
        count was kept is counted now, once).

        Raises:
            TraceError: as :meth:`get`, for a hash the store does not hold.
        """
        path = self.root / f"{digest}.rows"
        if self.has(digest) and path.is_file():
            text = path.read_text(errors="replace").strip()
            if text.isascii() and text.isdigit():
                return int(text)
        return self._keep_rows(digest, self.get(digest)[1])  # none yet, or damaged: recount

    def _keep_rows(self, digest: str, data: bytes) -> int:
        """Counts ``data``'s lines and keeps the count beside it (not in a read-only store)."""
        rows = count_rows(data)
        with contextlib.suppress(OSError):
            write_atomic(self.root / f"{digest}.rows", str(rows).encode())
        return rows


def trace_payload(
    config: ScenarioConfig,
    store: TraceStore | None,
    upload_hash: str = "",
    upload: TraceFile | None = None,
) -> tuple[str, TraceFile | None]:
    """(SHA-256, (file name, bytes)) of the scenario's trace; ("", None) for a synthetic one.
    The one place a run's trace is hashed (:attr:`engine.study.spec.RunSpec.trace_hash`).

    An ``"upload:<name>"`` source takes ``upload`` when given, else is looked up in ``store``
    by ``upload_hash`` (without a store it fails: the file is no longer available); a sample
    (or a path, which only a local scenario may name: :mod:`engine.sources`) is read from disk
    (:func:`engine.traces.resolve.read_trace_file`).

    Raises:
        TraceError: for an unknown sample, an unreadable file or an upload not in the store.
    """
    source = config.trace.source
    if source == "synthetic":
        return "", None
    if source.startswith("upload:") and upload is None and store is not None:
        if not store.has(upload_hash):
            raise TraceError(
                "the uploaded file is not in the trace store; upload it again",
                file=source.removeprefix("upload:"),
            )
        return upload_hash, store.get(upload_hash)
    file = read_trace_file(config.trace, upload if source.startswith("upload:") else None)
    return sha256_hex(file[1]), file
