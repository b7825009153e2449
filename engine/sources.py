"""Where a scenario's files may come from: the one rule that tells a link from a local file.

A scenario names two files: its trace (``TraceSpec.source``) and its throughput matrix
(``ScenarioConfig.throughputs``). Who wrote the scenario decides what those names may be
(:class:`Origin`):

- **shared** (a link, a form, an uploaded scenario JSON: anything a server receives from a
  browser): a trace is ``"sample:<name>"`` with a name from :func:`list_samples`,
  ``"synthetic"``, or ``"upload:<file name>"`` (the bytes come from the upload or from the trace
  store by a 64-hex-digit SHA-256); a matrix is built in (``"gavel"``, ``"mlperf"``,
  ``"mlperf-best"``) or ``"sha256:<64 hex digits>"`` (an uploaded matrix in the store). Never
  a path or a URL.
- **local** (the command line reading the user's own files): the same, plus a path to a trace
  or matrix file on that machine. A URL is never fetched: paths are opened as files.

:meth:`engine.config.ScenarioConfig.from_dict` takes the origin and calls
:func:`check_sources`; nothing else decides it.
"""

from __future__ import annotations

import enum
from pathlib import Path

from engine.content import is_sha256
from engine.errors import ConfigError

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "sample_traces"
SAMPLE_SUFFIXES = (".csv", ".trace")
BUILTIN_MATRIX = "gavel"
BUILTIN_MATRICES = (BUILTIN_MATRIX, "mlperf", "mlperf-best")
"""Built-in throughput matrices: Gavel's (the default) and MLPerf Training's (typical, best;
:mod:`engine.mlperf`)."""
MATRIX_HASH_PREFIX = "sha256:"
MAX_NAME_CHARS = 255  # an uploaded file's name, as browsers send it


class Origin(enum.Enum):
    """Who wrote a scenario: ``LOCAL`` (the user's own file, read by the CLI) or ``SHARED``
    (a link, form or upload received by the dashboard's server)."""

    LOCAL = "local"
    SHARED = "shared"


def list_samples() -> list[str]:
    """File names of the sample traces shipped in ``sample_traces/``, sorted."""
    if not SAMPLE_DIR.is_dir():
        return []
    return sorted(p.name for p in SAMPLE_DIR.iterdir() if p.suffix in SAMPLE_SUFFIXES)


def check_sources(trace_source: str, throughputs: str, origin: Origin) -> None:
    """Refuses a trace source or matrix name that ``origin`` may not use.

    Raises:
        ConfigError: naming the field (``trace.source`` or ``throughputs``) and what it may be;
            the message never repeats a path's contents.
    """
    check_trace_source(trace_source, origin)
    check_matrix_name(throughputs, origin)


def check_trace_source(source: str, origin: Origin) -> None:
    """See :func:`check_sources` (``trace.source``)."""
    if source == "synthetic":
        return
    kind, _, name = source.partition(":")
    if kind == "sample":
        if name not in list_samples():
            raise ConfigError(
                f"trace.source: no sample trace {name[:80]!r}; available: "
                f"{', '.join(list_samples())}"
            )
        return
    if kind == "upload":
        if len(name) > MAX_NAME_CHARS or any(c in name for c in "/\\\0"):
            raise ConfigError("trace.source: an uploaded file's name may not be a path")
        return
    if origin is Origin.SHARED:
        raise ConfigError(
            "trace.source: a shared scenario names a sample (sample:<name>), an uploaded "
            "file (upload:<name>) or synthetic, never a file on the server"
        )


def check_matrix_name(name: str, origin: Origin) -> None:
    """See :func:`check_sources` (``throughputs``)."""
    if name in BUILTIN_MATRICES:
        return
    if name.startswith(MATRIX_HASH_PREFIX):
        if not is_sha256(name.removeprefix(MATRIX_HASH_PREFIX)):
            raise ConfigError("throughputs: sha256: must be followed by 64 hex digits")
        return
    if origin is Origin.SHARED:
        raise ConfigError(
            f"throughputs: a shared scenario uses a built-in matrix "
            f"({', '.join(BUILTIN_MATRICES)}) or an uploaded matrix "
            f"({MATRIX_HASH_PREFIX}<64 hex digits>), never a file on the server"
        )
