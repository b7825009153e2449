"""A trace store keyed by content: the bytes of every trace a study uses, under their SHA-256.

A study names its trace by hash (``RunSpec.trace_hash``) instead of threading uploaded bytes
through the layers; workers get the bytes from the store (or shipped with the task).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from engine.config import ScenarioConfig
from engine.errors import TraceError
from engine.traces.resolve import source_path

DEFAULT_DIR = Path.home() / ".cache" / "gpusched"
STORE_ENV = "GPUSCHED_STORE"


def default_store_dir() -> Path:
    """``$GPUSCHED_STORE`` if set, else ``~/.cache/gpusched``."""
    return Path(os.environ.get(STORE_ENV) or DEFAULT_DIR)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class TraceStore:
    """Directory-backed: ``<dir>/<sha256>`` holds the bytes, ``<dir>/<sha256>.name`` the name.

    Args:
        root: the directory (created on first write); default ``default_store_dir()/traces``.
    """

    def __init__(self, root: Path | str | None = None) -> None:
        self.root = Path(root) if root is not None else default_store_dir() / "traces"

    def put(self, name: str, data: bytes) -> str:
        """Stores ``data`` (idempotent) and returns its SHA-256 hex."""
        digest = sha256_hex(data)
        if not self.has(digest):
            self.root.mkdir(parents=True, exist_ok=True)
            _atomic_write(self.root / f"{digest}.name", name.encode())
            _atomic_write(self.root / digest, data)
        return digest

    def has(self, digest: str) -> bool:
        return bool(digest) and (self.root / digest).is_file()

    def get(self, digest: str) -> tuple[str, bytes]:
        """(file name, bytes) of a stored trace.

        Raises:
            TraceError: if the store has no trace with this hash.
        """
        if not self.has(digest):
            raise TraceError(f"no trace with SHA-256 {digest[:12]}… in the store {self.root}")
        name_path = self.root / f"{digest}.name"
        name = name_path.read_text() if name_path.is_file() else digest[:12]
        return name, (self.root / digest).read_bytes()


def trace_payload(
    config: ScenarioConfig, store: TraceStore | None, upload_hash: str = ""
) -> tuple[str, tuple[str, bytes] | None]:
    """(SHA-256, (file name, bytes)) of the scenario's trace; ("", None) for a synthetic one.

    An ``"upload:<name>"`` source is looked up in ``store`` by ``upload_hash``; a sample or a
    path is read from disk.

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


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
