"""A trace store keyed by content: the bytes of every trace a study uses, under their SHA-256.

A study names its trace by hash (``RunSpec.trace_hash``) instead of threading uploaded bytes
through the layers; workers get the bytes from the store (or shipped with the task).
"""

from __future__ import annotations

from pathlib import Path

from engine.config import ScenarioConfig
from engine.content import ContentStore, default_store_dir, sha256_hex
from engine.errors import TraceError
from engine.traces.resolve import source_path


class TraceStore(ContentStore):
    """The uploaded traces (:class:`engine.content.ContentStore`): ``<root>/<sha256>`` holds the
    bytes, ``<root>/<sha256>.name`` the file name; a hash is resolved only inside the store.

    Args:
        root: the directory (created on first write); default ``default_store_dir()/traces``.
    """

    def __init__(self, root: Path | str | None = None) -> None:
        super().__init__(root if root is not None else default_store_dir() / "traces")


def trace_payload(
    config: ScenarioConfig, store: TraceStore | None, upload_hash: str = ""
) -> tuple[str, tuple[str, bytes] | None]:
    """(SHA-256, (file name, bytes)) of the scenario's trace; ("", None) for a synthetic one.

    An ``"upload:<name>"`` source is looked up in ``store`` by ``upload_hash``; a sample (or a
    path, which only a local scenario may name: :mod:`engine.sources`) is read from disk.

    Raises:
        TraceError: for an unknown sample, an unreadable file or an upload not in the store.
    """
    source = config.trace.source
    if source == "synthetic":
        return "", None
    if source.startswith("upload:"):
        if store is None or not store.has(upload_hash):
            raise TraceError(
                "the uploaded file is not in the trace store; upload it again",
                file=source.removeprefix("upload:"),
            )
        return upload_hash, store.get(upload_hash)
    path = source_path(source)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceError(f"cannot read the file: {exc.strerror}", file=str(path)) from exc
    return sha256_hex(data), (path.name, data)
