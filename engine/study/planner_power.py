"""The planner under a facility power cap and at total cost of ownership (issue 34).

Both are off unless a plan sets them (``PlanSpec.power_cap_kw``, ``PlanSpec.ownership``); a plan
without them prices mixes by rental (USD per GPU-hour, :mod:`engine.study.cost`) as before.

- **Power cap** [R]: a mix must fit the cap at full load, every GPU held by a job: the facility
  power :func:`engine.power.energy.full_load_kw` gives (the figure a data hall is sized for,
  with the scenario's power spec: PUE and per-type figures with their sources,
  :mod:`engine.power.model`). A mix over the cap is refused before any simulation.
- **Total cost of ownership** per hour [R: straight-line amortization plus energy]: each GPU's
  purchase price (the node's price over its GPUs, entered by the user: there is no public list
  price to cite for most of them) spread evenly over ``years`` of 8,760 hours, plus the
  facility's full-load power at ``electricity_usd_per_kwh`` (an upper bound on the energy bill:
  an idle GPU draws less; the bound keeps a mix's cost known before it is simulated, so the
  search compares mixes on a number that no seed changes). Five years is the default life
  [R: a common straight-line depreciation period for servers; the user states their own].
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.config import ClusterSpec
from engine.errors import ConfigError
from engine.power.energy import full_load_kw
from engine.power.model import PowerSpec

HOURS_PER_YEAR = 8760.0
ELECTRICITY_USD_PER_KWH = 0.0806
"""The Planner page's default electricity price: the US average retail price of electricity to
the industrial sector in 2023, 8.06 cents/kWh (US EIA, Electric Power Annual 2023, released
October 2024: average price to ultimate customers by end-use sector). A site's contract differs
(the same table: 5.75 cents in New Mexico, 18.64 in California); the user enters their own."""


@dataclass(frozen=True)
class Ownership:
    """What owning a mix costs: purchase prices, their life and the electricity price.

    Attributes:
        purchase_usd_per_gpu: (worker type, USD per GPU) pairs: a node's price over its GPUs.
        electricity_usd_per_kwh: the site's price of facility energy (USD per kWh).
        years: the life the purchase is spread over (straight line).
    """

    purchase_usd_per_gpu: tuple[tuple[str, float], ...]
    electricity_usd_per_kwh: float
    years: float = 5.0

    def check(self, worker_types: Sequence[str]) -> None:
        """Every one of ``worker_types`` has a purchase price >= 0; years > 0; electricity >= 0.

        Raises:
            ConfigError: naming the field, e.g. ``ownership.purchase_usd_per_gpu.B200``.
        """
        prices = dict(self.purchase_usd_per_gpu)
        missing = [t for t in worker_types if t not in prices]
        if missing:
            raise ConfigError(
                f"ownership.purchase_usd_per_gpu: no purchase price for {', '.join(missing)} "
                "(USD per GPU: a node's price over its GPUs)"
            )
        for worker_type, price in prices.items():
            if not price >= 0:
                raise ConfigError(
                    f"ownership.purchase_usd_per_gpu.{worker_type} must be >= 0, got {price}"
                )
        if not self.years > 0:
            raise ConfigError(f"ownership.years must be > 0, got {self.years}")
        price = self.electricity_usd_per_kwh
        if not price >= 0:
            raise ConfigError(f"ownership.electricity_usd_per_kwh must be >= 0, got {price}")

    def usd_per_h(self, cluster: ClusterSpec, power: PowerSpec) -> float:
        """USD per hour of owning ``cluster``: purchase over its life plus full-load energy;
        NaN for a worker type without a purchase price (today's cluster may hold one)."""
        prices = dict(self.purchase_usd_per_gpu)
        capacity = cluster.capacity()
        if any(t not in prices for t in capacity):
            return float("nan")
        purchase = sum(gpus * prices[t] for t, gpus in capacity.items())
        energy = full_load_kw(cluster, power) * self.electricity_usd_per_kwh
        return purchase / (self.years * HOURS_PER_YEAR) + energy

    def to_dict(self) -> dict[str, Any]:
        return {
            "purchase_usd_per_gpu": dict(self.purchase_usd_per_gpu),
            "electricity_usd_per_kwh": self.electricity_usd_per_kwh,
            "years": self.years,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ownership:
        """From a plan's ``ownership`` object (``purchase_usd_per_gpu`` a mapping).

        Raises:
            ConfigError: naming an unknown or missing key.
        """
        known = {"purchase_usd_per_gpu", "electricity_usd_per_kwh", "years"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"ownership: unknown key(s) {unknown}; allowed: {sorted(known)}")
        try:
            prices = tuple((str(t), float(p)) for t, p in data["purchase_usd_per_gpu"].items())
            return cls(prices, float(data["electricity_usd_per_kwh"]), float(data.get("years", 5)))
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ConfigError(f"ownership: {exc!r}") from exc


def over_cap(cluster: ClusterSpec, cap_kw: float, power: PowerSpec) -> str:
    """Why ``cluster`` does not fit a facility power cap of ``cap_kw`` ("" if it does)."""
    drawn = full_load_kw(cluster, power)
    if drawn <= cap_kw:
        return ""
    return f"it draws {drawn:,.0f} kW at full load, over the power cap of {cap_kw:,.0f} kW"
