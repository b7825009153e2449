"""Reproducible links: a set of named scenarios (and the study settings) in one URL parameter.

Payload (JSON, keys sorted): ``{"v": 1, "scenarios": {name: ScenarioConfig.to_dict()},
"current": name, "trace_sha256": hex or "", "study": {page: {setting: value}}, "page": name,
"results": {"scenario": name, "config": ScenarioConfig.to_dict()}}``; the last two are
optional (older links lack them). Encoded as zlib (level 9) then
URL-safe base64 without padding, so a three-variant comparison fits in well under 2 kB of
URL. Pure functions: no Streamlit here.

A link is written by whoever sends it, so :func:`decode_link` reads it with limits: at most
:data:`MAX_LINK_CHARS` of text, inflated to at most :data:`MAX_JSON_BYTES` (a bounded
``zlib.decompressobj``, so a small link cannot inflate to gigabytes), JSON nested at most
:data:`MAX_JSON_DEPTH` deep (checked before parsing, so deep nesting cannot exhaust the stack),
no NaN or infinity, and scenarios loaded as shared ones (:mod:`engine.sources`: never a server
path or URL). Every failure is one :class:`ConfigError` that begins with :data:`DAMAGED`.
Keys the reader does not know are ignored, so newer links add fields without a new version.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.config import ScenarioConfig
from engine.content import is_sha256
from engine.errors import ConfigError
from engine.sources import Origin

LINK_VERSION = 1
LINK_PARAM = "scenario"
DAMAGED = "the link is damaged or not from this tool"
MAX_LINK_CHARS = 200_000  # URL text; a 12-scenario study is about 6 kB
MAX_JSON_BYTES = 1_000_000  # inflated payload; a scenario is about 2 kB of JSON
MAX_JSON_DEPTH = 32  # a scenario nests 5 deep (policies -> params -> value)
MAX_NAME_CHARS = 200  # a scenario's name
_SPECIAL = re.compile(rb'[\[\]{}"\\]')  # brackets, quotes and backslashes


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
    """The state encoded by :func:`encode_link`, read with the limits of the module docstring.

    Raises:
        ConfigError: beginning with :data:`DAMAGED`, then what is wrong: text that does not
            decode (cut short when copied?), a limit exceeded, or the scenario loader's
            message naming the scenario and field.
    """
    payload = _payload(text)
    named = payload.get("scenarios")
    if not isinstance(named, dict) or not named:
        raise ConfigError(f"{DAMAGED}: it names no scenario")
    if any(not isinstance(n, str) or not n or len(n) > MAX_NAME_CHARS for n in named):
        raise ConfigError(f"{DAMAGED}: a scenario's name is empty or too long")
    scenarios = {name: _scenario(name, data) for name, data in named.items()}
    current = payload.get("current", "")
    digest = payload.get("trace_sha256") or ""
    if digest and not is_sha256(digest):
        raise ConfigError(f"{DAMAGED}: trace_sha256 is not a SHA-256 (64 hex digits)")
    study = payload.get("study") or {}
    if not isinstance(study, dict):
        raise ConfigError(f"{DAMAGED}: study is not an object")
    results = payload.get("results") or {}
    if not isinstance(results, dict):
        raise ConfigError(f"{DAMAGED}: results is not an object")
    ran = results.get("scenario") or ""
    ran = ran if isinstance(ran, str) and ran in scenarios else ""
    config = results.get("config")
    page = payload.get("page") or ""
    return LinkState(
        scenarios=scenarios,
        current=current if current in scenarios else next(iter(scenarios)),
        trace_sha256=digest,
        study=study,
        page=page if isinstance(page, str) and len(page) <= MAX_NAME_CHARS else "",
        results_scenario=ran,
        results_config=None if config is None or not ran else _scenario(ran, config),
    )


def _payload(text: str) -> dict[str, Any]:
    """The link's JSON object, inflated and parsed within the limits. Raises ConfigError."""
    if not isinstance(text, str) or len(text) > MAX_LINK_CHARS:
        raise ConfigError(f"{DAMAGED}: longer than {MAX_LINK_CHARS:,} characters")
    try:
        packed = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_JSON_BYTES)
        if inflater.unconsumed_tail:
            raise ConfigError(f"{DAMAGED}: it inflates to more than {MAX_JSON_BYTES:,} bytes")
        if not inflater.eof:
            raise ValueError("incomplete")
    except (binascii.Error, zlib.error, ValueError) as exc:
        raise ConfigError(f"{DAMAGED} (cut short when copied?)") from exc
    if json_depth(raw) > MAX_JSON_DEPTH:
        raise ConfigError(f"{DAMAGED}: nested more than {MAX_JSON_DEPTH} levels deep")
    try:
        payload = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise ConfigError(f"{DAMAGED}: not JSON") from exc
    if not isinstance(payload, dict) or payload.get("v") != LINK_VERSION:
        raise ConfigError(f"{DAMAGED}: its format is not version {LINK_VERSION}")
    return payload


def json_depth(raw: bytes, stop_above: int = MAX_JSON_DEPTH) -> int:
    """The deepest nesting of ``[`` and ``{`` in a JSON text (brackets inside strings not
    counted), found without parsing: one linear pass over the bytes that matter, constant
    stack; counting stops once it passes ``stop_above`` (the result is then above it)."""
    depth = deepest = 0
    in_string, escaped_at = False, -1  # escaped_at: the position a backslash escapes
    for match in _SPECIAL.finditer(raw):
        at, char = match.start(), match.group()
        if at == escaped_at:
            continue
        if in_string:
            if char == b"\\":
                escaped_at = at + 1
            elif char == b'"':
                in_string = False
        elif char == b'"':
            in_string = True
        elif char in b"[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > stop_above:
                break
        elif char in b"]}":
            depth -= 1
    return deepest


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a link may carry")


def _scenario(name: str, data: Any) -> ScenarioConfig:
    try:
        return ScenarioConfig.from_dict(data, Origin.SHARED)
    except ConfigError as exc:
        raise ConfigError(f"{DAMAGED}: scenario {name[:60]!r}: {exc}") from exc
