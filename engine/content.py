"""A store of files keyed by content: the bytes under their SHA-256, resolved inside the store.

The dashboard keeps every uploaded trace and throughput matrix here, and a link names them by
hash. A hash is 64 lowercase hex digits and nothing else, so a name from a link can never leave
the store's folder (no ``..``, no separator, no absolute path): :func:`is_sha256` is checked
before any path is built.
"""

from __future__ import annotations

import hashlib
import os
import re
from functools import lru_cache
from pathlib import Path

from engine.errors import TraceError

DEFAULT_DIR = Path.home() / ".cache" / "gpusched"
STORE_ENV = "GPUSCHED_STORE"
_SHA256 = re.compile(r"[0-9a-f]{64}")


def default_store_dir() -> Path:
    """``$GPUSCHED_STORE`` if set, else ``~/.cache/gpusched``."""
    return Path(os.environ.get(STORE_ENV) or DEFAULT_DIR)


@lru_cache(maxsize=2)
def sha256_hex(data: bytes) -> str:
    """SHA-256 of ``data`` in hex: every hash of a trace or matrix is taken here.

    The last two byte strings' hashes are remembered [R], so the server hashes an upload once
    however many pages, links and runs ask (Python caches a ``bytes`` object's own hash, so a
    repeated call costs no pass over the data)."""
    return hashlib.sha256(data).hexdigest()


def is_sha256(text: object) -> bool:
    """Whether ``text`` is a SHA-256 in hex: exactly 64 characters of 0-9 and a-f."""
    return isinstance(text, str) and _SHA256.fullmatch(text) is not None


class ContentStore:
    """Directory-backed: ``<root>/<sha256>`` holds the bytes, ``<root>/<sha256>.name`` the name.

    Args:
        root: the directory (created on first write).
    """

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def put(self, name: str, data: bytes) -> str:
        """Stores ``data`` (idempotent) and returns its SHA-256 hex."""
        digest = sha256_hex(data)
        if not self.has(digest):
            self.root.mkdir(parents=True, exist_ok=True)
            write_atomic(self.root / f"{digest}.name", name.encode())
            write_atomic(self.root / digest, data)
        return digest

    def has(self, digest: str) -> bool:
        """Whether the store holds ``digest`` (False for anything that is not a hash)."""
        return is_sha256(digest) and (self.root / digest).is_file()

    def get(self, digest: str) -> tuple[str, bytes]:
        """(file name, bytes) of a stored file.

        Raises:
            TraceError: for a text that is not a SHA-256, or a hash the store does not hold
                (the message names neither the store's folder nor anything outside it).
        """
        if not is_sha256(digest):
            raise TraceError("not a SHA-256 (64 hex digits); the link is damaged")
        if not self.has(digest):
            raise TraceError(f"the file with SHA-256 {digest[:12]}… is not on this server")
        name_path = self.root / f"{digest}.name"
        name = name_path.read_text() if name_path.is_file() else digest[:12]
        return name, (self.root / digest).read_bytes()


def write_atomic(path: Path, data: bytes) -> None:
    """Writes ``data`` to ``path`` whole or not at all (a temporary file, then a rename)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
