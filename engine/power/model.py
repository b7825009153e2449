"""The power spec of a scenario and each worker type's power figures.

Defaults and their sources:

- ``pue`` 1.56: the average annual PUE of the data centers in the Uptime Institute Global Data
  Center Survey 2024 (hyperscalers report about 1.1, e.g. Google's fleet 1.10 in 2023).
- ``grid_g_co2e_per_kwh`` 480: the world's electricity in 2023, Ember, Global Electricity
  Review 2024 (480 g CO2 per kWh); a national grid or an hourly curve can replace it.
- ``busy_power_factor`` 1.0 [R]: a GPU held by a job draws its full-load figure, the bound a
  data hall is sized for; large training jobs run near their GPUs' TDP (Patel et al.,
  "Characterizing Power Management Opportunities for LLMs in the Cloud", ASPLOS 2024). Set it
  lower for jobs that leave the GPU partly idle.
- the per-type figures: ``engine/data/power_figures.csv``, one row per (worker type, field) with
  its ``source`` column.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import NamedTuple

from engine.errors import ConfigError

POWER_CSV = Path(__file__).resolve().parents[1] / "data" / "power_figures.csv"
FIELDS = ("gpu_full_w", "gpu_idle_w", "node_other_w")


@dataclass(frozen=True)
class WorkerPower:
    """A worker type's power figures in a spec, each in watts; None keeps the built-in figure.

    Attributes:
        worker_type: the cluster's worker type (e.g. ``"H100-SXM"`` or an extra type).
        gpu_full_w: one GPU at full load (W), e.g. its TDP.
        gpu_idle_w: one GPU held by no job (W).
        node_other_w: one node's power besides its GPUs (W): CPUs, memory, fans, NICs.
    """

    worker_type: str
    gpu_full_w: float | None = None
    gpu_idle_w: float | None = None
    node_other_w: float | None = None


@dataclass(frozen=True)
class PowerSpec:
    """The site and the figures that turn a run's busy GPUs into facility power.

    Attributes:
        pue: power usage effectiveness, facility power / IT power (>= 1).
        grid_g_co2e_per_kwh: grid carbon intensity (g CO2e per kWh), used when there is no
            hourly curve.
        grid_hourly_g_co2e_per_kwh: an hourly curve (g CO2e per kWh): entry ``i`` holds from
            simulated hour ``i`` and the curve repeats (24 entries: a daily cycle); empty: the
            constant above.
        busy_power_factor: share of its full-load figure a GPU held by a job draws, in (0, 1].
        worker_types: figures that replace or add to the built-in ones.
    """

    pue: float = 1.56
    grid_g_co2e_per_kwh: float = 480.0
    grid_hourly_g_co2e_per_kwh: tuple[float, ...] = ()
    busy_power_factor: float = 1.0
    worker_types: tuple[WorkerPower, ...] = ()

    def check(self) -> None:
        """Rejects a PUE below 1, a negative intensity or watt figure, a factor outside (0, 1].

        Raises:
            ConfigError: naming the field, e.g. ``power.worker_types[1] (v100).gpu_full_w``.
        """
        if not self.pue >= 1:
            raise ConfigError(f"power.pue must be >= 1 (facility / IT power), got {self.pue}")
        if not 0 < self.busy_power_factor <= 1:
            raise ConfigError(
                f"power.busy_power_factor must be in (0, 1], got {self.busy_power_factor}"
            )
        if not self.grid_g_co2e_per_kwh >= 0:
            raise ConfigError("power.grid_g_co2e_per_kwh must be >= 0")
        for hour, value in enumerate(self.grid_hourly_g_co2e_per_kwh):
            if not value >= 0:
                raise ConfigError(f"power.grid_hourly_g_co2e_per_kwh[{hour}] must be >= 0")
        for i, entry in enumerate(self.worker_types, start=1):
            for name in FIELDS:
                value = getattr(entry, name)
                if value is not None and not value >= 0:
                    raise ConfigError(
                        f"power.worker_types[{i}] ({entry.worker_type}).{name} must be >= 0 W, "
                        f"got {value}"
                    )


class TypeFigures(NamedTuple):
    """One worker type's power figures (W) and where each comes from."""

    gpu_full_w: float
    gpu_idle_w: float
    node_other_w: float
    sources: tuple[str, str, str]


@cache
def builtin_figures() -> dict[tuple[str, str], tuple[float, str]]:
    """``engine/data/power_figures.csv`` (columns worker_type, field, watts, source) as
    (worker type, field) -> (watts, source); read with :mod:`csv`, so a scenario's config
    imports no pandas (the command line's start-up stays light)."""
    with POWER_CSV.open(newline="") as file:
        rows = list(csv.DictReader(file))
    return {(r["worker_type"], r["field"]): (float(r["watts"]), r["source"]) for r in rows}


def type_figures(spec: PowerSpec, worker_types: list[str]) -> dict[str, TypeFigures]:
    """The figures of each of ``worker_types``: the spec's, else the built-in ones.

    Raises:
        ConfigError: a type with no figure for a field, naming the type and the field; an
            idle figure above the full-load one.
    """
    builtin = builtin_figures()
    given = {entry.worker_type: entry for entry in spec.worker_types}
    out = {}
    for worker_type in worker_types:
        values: list[float] = []
        sources: list[str] = []
        for name in FIELDS:
            own = getattr(given[worker_type], name) if worker_type in given else None
            row = builtin.get((worker_type, name))
            if own is not None:
                watts, source = float(own), "scenario's power spec"
            elif row is not None:
                watts, source = row
            else:
                raise ConfigError(
                    f"power: no {name} figure for worker type {worker_type!r}; add it under "
                    "power.worker_types"
                )
            values.append(watts)
            sources.append(source)
        if values[1] > values[0]:
            raise ConfigError(
                f"power: worker type {worker_type!r} has gpu_idle_w {values[1]:g} W above its "
                f"gpu_full_w {values[0]:g} W"
            )
        out[worker_type] = TypeFigures(
            values[0], values[1], values[2], (sources[0], sources[1], sources[2])
        )
    return out
