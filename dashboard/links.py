"""Reproducible links: a set of named scenarios (and the study settings) in one URL parameter.

Payload (JSON, keys sorted): ``{"v": 1, "scenarios": {name: ScenarioConfig.to_dict()},
"current": name, "trace_sha256": hex or "", "study": {...}}``. Encoded as zlib (level 9) then
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
        study: the Compare/Sweep settings (seeds, axes), JSON-able; {} when none.
    """

    scenarios: Mapping[str, ScenarioConfig]
    current: str
    trace_sha256: str = ""
    study: Mapping[str, Any] = field(default_factory=dict)


def encode_link(state: LinkState) -> str:
    """The URL-safe text of ``state`` (deterministic: equal states give equal text)."""
    payload = {
        "v": LINK_VERSION,
        "scenarios": {name: config.to_dict() for name, config in state.scenarios.items()},
        "current": state.current,
        "trace_sha256": state.trace_sha256,
        "study": dict(state.study),
    }
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
    return LinkState(
        scenarios=scenarios,
        current=current if current in scenarios else next(iter(scenarios)),
        trace_sha256=str(payload.get("trace_sha256") or ""),
        study=payload.get("study") or {},
    )


def _scenario(name: str, data: Any) -> ScenarioConfig:
    try:
        return ScenarioConfig.from_dict(data)
    except ConfigError as exc:
        raise ConfigError(f"the link's scenario {name!r}: {exc}") from exc
