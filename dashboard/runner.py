"""The one cached bridge to the engine.

Results are cached with ``st.cache_data`` keyed by the scenario JSON (frozen config) plus a hash
of the uploaded trace bytes, so re-running an unchanged scenario or revisiting a page is instant.

Progress: the engine calls ``on_progress`` from inside the cached function. Streamlit records
elements drawn inside a cached function for replay, and a progress bar created outside it cannot
be replayed; so the callback runs in the caller's ``contextvars`` context, where nothing is
recorded. Cancel: see :func:`run`.
"""

from __future__ import annotations

import contextvars
import hashlib
from collections.abc import Callable

import streamlit as st

from engine.config import ScenarioConfig
from engine.results import ComparisonResult
from engine.traces import TraceLoad

Upload = tuple[str, bytes] | None
ProgressFn = Callable[[float, str], None]


def upload_digest(upload: Upload) -> str:
    """SHA-256 of the uploaded bytes ("" without an upload): the cache key of a file."""
    return hashlib.sha256(upload[1]).hexdigest() if upload else ""


@st.cache_data(show_spinner=False)
def worker_types() -> list[str]:
    """Worker types of the built-in throughput matrix, e.g. ``["k80", "p100", "v100"]``."""
    from engine.throughput import load_matrix

    return load_matrix().worker_types


@st.cache_data(show_spinner=False, max_entries=32)
def _load_trace(key_json: str, digest: str, _upload: Upload) -> TraceLoad:
    from engine.scenario import load_scenario_trace, scenario_matrix

    config = ScenarioConfig.from_json(key_json)
    return load_scenario_trace(config, scenario_matrix(config), _upload)


def load_trace(config: ScenarioConfig, upload: Upload) -> TraceLoad:
    """The scenario's validated jobs table (cached by trace, cluster, seed and upload hash).

    Raises:
        TraceError, OversizedJobsError, ConfigError: with the engine's user-facing message.
    """
    key = ScenarioConfig(
        trace=config.trace,
        cluster=config.cluster,
        seed=config.seed,
        trace_seed=config.trace_seed,
        load=config.load,
        throughputs=config.throughputs,
        extra_worker_types=config.extra_worker_types,
    )
    return _load_trace(key.to_json(), upload_digest(upload), upload)


@st.cache_data(show_spinner=False, max_entries=16)
def _run(
    config_json: str, digest: str, _upload: Upload, _progress: ProgressFn, _cancel: Callable
) -> ComparisonResult:
    from engine.scenario import run_scenario

    config = ScenarioConfig.from_json(config_json)
    return run_scenario(config, upload=_upload, on_progress=_progress, should_cancel=_cancel)


def run(
    config: ScenarioConfig,
    upload: Upload,
    on_progress: ProgressFn,
    should_cancel: Callable[[], bool],
) -> ComparisonResult:
    """Runs (or fetches from the cache) every policy of ``config``.

    Cancelling: the run happens in the script thread. Pressing Cancel makes Streamlit stop the
    script at its next element update, which is the next progress callback, so the run stops
    within one progress step; ``should_cancel`` also reads the session's cancel flag.

    Raises:
        EngineError: with a user-facing message; SimulationCancelled when cancelled.
    """
    outer = contextvars.copy_context()

    def progress(fraction: float, label: str) -> None:
        outer.run(on_progress, fraction, label)

    return _run(config.to_json(), upload_digest(upload), upload, progress, should_cancel)
