"""Reproducible links: a set of named scenarios (and the study settings) in one URL parameter.

Payload (JSON, keys sorted): ``{"v": 1, "scenarios": {name: ScenarioConfig.to_dict()},
"current": name, "trace_sha256": hex or "", "study": {page: {setting: value}}, "page": name,
"results": {"scenario": name, "config": ScenarioConfig.to_dict()}}``; the last two are
optional (older links lack them). Encoded as zlib (level 9) then
URL-safe base64 without padding, so a three-variant comparison fits in well under 2 kB of
URL. Pure functions: no Streamlit here.
"""

from __future__ import annotations

import base64
import binascii
import json
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.config import ScenarioConfig
from engine.errors import ConfigError

LINK_VERSION = 1
LINK_PARAM = "scenario"


@dataclass(frozen=True)
class LinkState:
    """What a link carries.

    Attributes:
        scenarios: name -> scenario, in order (the first is the comparison's baseline).
        current: the name the Scenario page shows.
        trace_sha256: SHA-256 of an uploaded trace's bytes ("" for a sample or synthetic trace).
        study: the Compare, Sweep and Planner settings (`dashboard.page_settings`), JSON-able;
            {} when none.
        page: the page the sender was on ("results", "compare", ...; "" for none).
        results_scenario: the scenario whose results the sender saw ("" for none).
        results_config: that scenario as it was run, when it differs from
            ``scenarios[results_scenario]`` (edited since the run); else None.
    """

    scenarios: Mapping[str, ScenarioConfig]
    current: str
    trace_sha256: str = ""
    study: Mapping[str, Any] = field(default_factory=dict)
    page: str = ""
    results_scenario: str = ""
    results_config: ScenarioConfig | None = None


def encode_link(state: LinkState) -> str:
    """The URL-safe text of ``state`` (deterministic: equal states give equal text)."""
    payload = {
        "v": LINK_VERSION,
        "scenarios": {name: config.to_dict() for name, config in state.scenarios.items()},
        "current": state.current,
        "trace_sha256": state.trace_sha256,
        "study": dict(state.study),
    }
    if state.page:
        payload["page"] = state.page
    if state.results_scenario:
        results: dict[str, Any] = {"scenario": state.results_scenario}
        if state.results_config is not None:
            results["config"] = state.results_config.to_dict()
        payload["results"] = results
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def decode_link(text: str) -> LinkState:
    """The state encoded by :func:`encode_link`.

    Raises:
        ConfigError: "the link is damaged" for text that does not decode, or the scenario
            loader's message (naming the field) for a scenario that does not validate.
    """
    try:
        raw = zlib.decompress(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)))
        payload = json.loads(raw)
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise ConfigError(f"the link is damaged (cut short when copied?): {exc}") from exc
    if not isinstance(payload, dict) or payload.get("v") != LINK_VERSION:
        raise ConfigError(f"the link's format is not version {LINK_VERSION}")
    named = payload.get("scenarios")
    if not isinstance(named, dict) or not named:
        raise ConfigError("the link names no scenario")
    scenarios = {str(n): _scenario(str(n), d) for n, d in named.items()}
    current = str(payload.get("current", ""))
    results = payload.get("results") or {}
    if not isinstance(results, dict):
        raise ConfigError("the link's field 'results' must be an object")
    ran = str(results.get("scenario") or "")
    config = results.get("config")
    return LinkState(
        scenarios=scenarios,
        current=current if current in scenarios else next(iter(scenarios)),
        trace_sha256=str(payload.get("trace_sha256") or ""),
        study=payload.get("study") or {},
        page=str(payload.get("page") or ""),
        results_scenario=ran if ran in scenarios else "",
        results_config=None if config is None or ran not in scenarios else _scenario(ran, config),
    )


def _scenario(name: str, data: Any) -> ScenarioConfig:
    try:
        return ScenarioConfig.from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"the link's scenario {name!r}: {exc}") from exc
