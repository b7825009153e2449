"""A study: a base scenario, named variants (overrides), seeds; expanded into run specs.

Variants are what-ifs of the base scenario: a GPU mix (``cluster.node_groups``), extra GPU
types, network and congestion, rounds, placement, policies and their parameters, load
(``load.arrival_scale``, ``load.num_jobs``, ``trace.synthetic.jobs_per_hour``). :func:`grid`
builds a cartesian product of one or two axes ("portfolios" in OpenDC's terms). Expansion is
pure: :func:`expand` gives one :class:`RunSpec` per (variant, policy, seed).
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.config import ScenarioConfig, json_object
from engine.errors import ConfigError
from engine.policies.base import display_name
from engine.presets import apply_preset
from engine.sources import Origin
from engine.study.overrides import apply_overrides
from engine.study.spec import RECORD_MODES, RunSpec

STUDY_KEYS = (
    "base", "preset", "variants", "grid", "seeds", "baseline", "record", "vary_trace", "prices",
)  # fmt: skip


@dataclass(frozen=True)
class Variant:
    """A named what-if: dotted ScenarioConfig paths -> JSON values (see `engine.study.overrides`).

    Attributes:
        axes: for a grid variant, its value on each axis (path -> value), for charts.
    """

    name: str
    overrides: Mapping[str, Any] = field(default_factory=dict)
    axes: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Study:
    """A set of what-ifs to run over seeds.

    Attributes:
        base: the base scenario; its policies are run in every variant (unless a variant
            overrides ``policies``).
        variants: the what-ifs; an empty tuple means the base alone, named "base".
        seeds: each seed s runs with simulation seed s and, with ``vary_trace``, trace seed s
            (else the base's trace seed for all), so variants are paired on the same seeds.
        baseline: the variant paired differences are taken against ("" = the first).
        record: "summary" or "full" (see :class:`RunSpec`).
        vary_trace: draw the trace's random rules anew with each seed.
        prices: USD per GPU-hour per worker type for the cost KPIs (missing: the defaults of
            `engine.study.cost`).
        trace_hash: SHA-256 of an uploaded trace in the trace store (``"upload:"`` sources).
    """

    base: ScenarioConfig
    variants: tuple[Variant, ...] = ()
    seeds: tuple[int, ...] = (0,)
    baseline: str = ""
    record: str = "summary"
    vary_trace: bool = True
    prices: Mapping[str, float] = field(default_factory=dict)
    trace_hash: str = ""

    def all_variants(self) -> tuple[Variant, ...]:
        return self.variants or (Variant("base"),)

    @property
    def baseline_name(self) -> str:
        return self.baseline or self.all_variants()[0].name

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base.to_dict(),
            "variants": [
                {"name": v.name, "overrides": dict(v.overrides), "axes": dict(v.axes)}
                for v in self.variants
            ],
            "seeds": list(self.seeds),
            "baseline": self.baseline,
            "record": self.record,
            "vary_trace": self.vary_trace,
            "prices": dict(self.prices),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], origin: Origin = Origin.SHARED) -> Study:
        """Builds a study; ``"preset": name`` applies a scenario preset to the base first
        (:mod:`engine.presets`; variants override it), ``"grid": {path: [values], ...}`` adds
        grid variants. ``origin``: whether the base scenario may name local files
        (:mod:`engine.sources`).

        Raises:
            ConfigError: for unknown keys, a bad variant, seed or scenario (names the key).
        """
        unknown = sorted(set(data) - set(STUDY_KEYS))
        if unknown:
            raise ConfigError(f"study: unknown key(s) {unknown}; allowed: {sorted(STUDY_KEYS)}")
        base = ScenarioConfig.from_dict(dict(data.get("base", {})), origin)
        if data.get("preset"):
            base = apply_preset(str(data["preset"]), base)
        variants = tuple(_variant(v, i) for i, v in enumerate(data.get("variants", []), 1))
        if data.get("grid"):
            variants += grid(base, data["grid"])
        seeds = data.get("seeds", [0])
        if not seeds or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
            raise ConfigError(f"study.seeds: expected a non-empty list of integers, got {seeds!r}")
        study = cls(
            base, variants, tuple(seeds), str(data.get("baseline", "")),
            str(data.get("record", "summary")), bool(data.get("vary_trace", True)),
            {str(k): float(v) for k, v in dict(data.get("prices", {})).items()},
        )  # fmt: skip
        validate_study(study)
        return study

    @classmethod
    def from_json(cls, text: str, origin: Origin = Origin.SHARED) -> Study:
        return cls.from_dict(json_object(text, "study"), origin)


def validate_study(study: Study) -> None:
    """Unique variant names, a known baseline, distinct seeds, a known record mode.

    Raises:
        ConfigError: naming the problem.
    """
    names = [v.name for v in study.all_variants()]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates or not all(names):
        raise ConfigError(f"variant names must be non-empty and distinct; repeated: {duplicates}")
    if study.baseline and study.baseline not in names:
        raise ConfigError(f"baseline {study.baseline!r} is not a variant; variants: {names}")
    if len(set(study.seeds)) != len(study.seeds) or not study.seeds:
        raise ConfigError(f"seeds must be distinct and non-empty, got {list(study.seeds)}")
    if study.record not in RECORD_MODES:
        raise ConfigError(f"record must be one of {RECORD_MODES}, got {study.record!r}")


def expand(study: Study, trace_hash: str = "") -> list[RunSpec]:
    """One RunSpec per (variant, policy, seed), in that nesting order. Pure.

    Raises:
        ConfigError: for a bad variant override or study (names the variant and path).
    """
    validate_study(study)
    specs = []
    for variant in study.all_variants():
        config = apply_overrides(study.base, variant.overrides, f"variant {variant.name!r}")
        labels = [display_name(p) for p in config.policies]
        if not labels or len(set(labels)) != len(labels):
            raise ConfigError(
                f"variant {variant.name!r}: policies {labels} must be non-empty and distinct; "
                "give a repeated policy a label"
            )
        for policy in config.policies:
            for seed in study.seeds:
                trace_seed = seed if study.vary_trace else study.base.effective_trace_seed
                scenario = dataclasses.replace(
                    config, policies=(policy,), seed=seed, trace_seed=trace_seed
                )
                specs.append(
                    RunSpec(scenario, variant.name, trace_seed, seed, trace_hash, study.record)
                )
    return specs


def grid(base: ScenarioConfig, axes: Mapping[str, Sequence[Any]]) -> tuple[Variant, ...]:
    """Variants for the cartesian product of one or two axes (dotted path -> values).

    Names read ``"round_duration_s=600, arrival_scale=1.5"`` (last path part = value; a list
    or object value is shown by its position on the axis, ``"node_groups=#2"``).

    Raises:
        ConfigError: for no axis, more than two, or an axis without values; a bad path fails
            at :func:`expand`.
    """
    del base  # the axes are validated against the base when expanded
    if not 1 <= len(axes) <= 2:
        raise ConfigError(f"a grid has one or two axes, got {len(axes)}")
    for path, values in axes.items():
        if not isinstance(values, list | tuple) or not values:
            raise ConfigError(f"grid axis {path!r}: expected a non-empty list of values")
    paths = list(axes)
    out = []
    for combo in itertools.product(*(list(enumerate(axes[p])) for p in paths)):
        labels = [
            f"{p.rsplit('.', 1)[-1]}={_label(v, i)}" for p, (i, v) in zip(paths, combo, strict=True)
        ]
        chosen = {p: v for p, (_, v) in zip(paths, combo, strict=True)}
        out.append(Variant(", ".join(labels), chosen, chosen))
    return tuple(out)


def _label(value: Any, index: int) -> str:
    if isinstance(value, dict | list):
        return f"#{index + 1}"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _variant(data: Any, i: int) -> Variant:
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ConfigError(f"study.variants[{i}]: expected an object with a 'name'")
    unknown = sorted(set(data) - {"name", "overrides", "axes"})
    if unknown:
        raise ConfigError(f"study.variants[{i}]: unknown key(s) {unknown}")
    overrides = data.get("overrides", {})
    if not isinstance(overrides, dict):
        raise ConfigError(f"study.variants[{i}].overrides: expected an object")
    return Variant(data["name"], overrides, dict(data.get("axes", {})))
