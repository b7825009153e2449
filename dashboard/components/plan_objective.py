"""The Planner's power cap and objective (rental price or total cost of ownership, issue 34),
and the candidates table read into the plan's candidates, every missing price named at once
(issue 38, point 3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import streamlit as st

from dashboard.page_settings import PLAN_OBJECTIVES, widget_range
from engine.errors import EngineError
from engine.study.planner_power import ELECTRICITY_USD_PER_KWH, Ownership
from engine.study.planner_spec import Candidate


@dataclass(frozen=True)
class Objective:
    """The page's choice: a power cap (None: no cap), and ownership figures (None: rental)."""

    power_cap_kw: float | None
    ownership: bool
    years: float
    electricity_usd_per_kwh: float


def render_objective_inputs() -> Objective:
    """The power cap (kW; 0 = none) and the objective with its years and electricity price;
    every value is a link setting (`dashboard.page_settings`)."""
    s = st.session_state
    s.setdefault("plan_power_cap_kw", 0.0)
    s.setdefault("plan_objective", "rental")
    s.setdefault("plan_years", 5.0)
    s.setdefault("plan_electricity_usd_per_kwh", ELECTRICITY_USD_PER_KWH)
    cols = st.columns(4)
    cap = cols[0].number_input(
        "Facility power cap (kW, 0 = none)", **widget_range("plan_power_cap_kw"), step=100.0,
        key="plan_power_cap_kw",
        help="A mix must fit this facility power at full load (every GPU busy, times the "
        "site's PUE); a mix over it is refused before any simulation.",
    )  # fmt: skip
    objective = cols[1].selectbox(
        "Cost to minimise", list(PLAN_OBJECTIVES), format_func=PLAN_OBJECTIVES.get,
        key="plan_objective",
    )  # fmt: skip
    owning = objective == "ownership"
    years = cols[2].number_input("Years to spread the purchase over", **widget_range("plan_years"),
                                 step=1.0, key="plan_years", disabled=not owning)  # fmt: skip
    electricity = cols[3].number_input(
        "Electricity (USD/kWh)", **widget_range("plan_electricity_usd_per_kwh"), step=0.01,
        format="%.3f", key="plan_electricity_usd_per_kwh", disabled=not owning,
        help="The site's price of facility energy; enter your contract's. Default 0.0806: the "
        "US average industrial price in 2023, 8.06 cents/kWh (US EIA, Electric Power Annual "
        "2023).",
    )  # fmt: skip
    return Objective(float(cap) or None, owning, float(years), float(electricity))


def _blank(value: Any) -> bool:
    return value is None or bool(pd.isna(value))


def missing_prices(candidates: pd.DataFrame, objective: Objective) -> str:
    """Every candidate row without the price the objective needs, in one sentence ("" if
    none): the rental price per GPU-hour, or with ownership the purchase price per GPU."""
    column, what = (("purchase_usd_per_gpu", "a purchase price (USD per GPU)")
                    if objective.ownership else
                    ("price_usd_per_gpu_h", "a price (USD per GPU-hour)"))  # fmt: skip
    rows = candidates.to_dict("records")
    missing = [str(r["worker_type"]) for r in rows if _blank(r.get(column))]
    if not missing:
        return ""
    names = ", ".join(missing)
    return (f"Enter {what} for {names} in the fields above: there is no public price to cite "
            f"for {'these types' if len(missing) > 1 else 'this type'}, so the plan needs "
            "yours. Or type it in the table, or delete the row to leave the type out."
            )  # fmt: skip


def read_candidates(
    candidates: pd.DataFrame, objective: Objective, spares: bool
) -> tuple[tuple[Candidate, ...], Ownership | None]:
    """The plan's candidates (and ownership figures) from the table.

    Raises:
        EngineError: naming every row without its price at once, or a row with a cell that
            is not a number.
    """
    why = missing_prices(candidates, objective)
    if why:
        raise EngineError(why)
    rows, purchase = [], []
    for i, row in enumerate(candidates.to_dict("records"), start=1):
        try:
            rental = row["price_usd_per_gpu_h"]
            spare = row.get("max_spares")
            rows.append(Candidate(
                str(row["worker_type"]), 0.0 if _blank(rental) else float(rental),
                int(row["max_nodes"]), int(row["gpus_per_node"]),
                max_spares=None if not spares or _blank(spare) else int(spare)))  # fmt: skip
            if objective.ownership:
                purchase.append((str(row["worker_type"]), float(row["purchase_usd_per_gpu"])))
        except (TypeError, ValueError) as exc:
            raise EngineError(
                f"GPU types row {i} ({row['worker_type']}): the node count or GPUs per node "
                "is empty or not a number"
            ) from exc
    if not objective.ownership:
        return tuple(rows), None
    return tuple(rows), Ownership(tuple(purchase), objective.electricity_usd_per_kwh,
                                  objective.years)  # fmt: skip
