"""Planner page: the cheapest GPU mix meeting a target, the cost/JCT Pareto chart, the search."""

import dataclasses
import time

import pandas as pd
import streamlit as st

from dashboard.charts_study import make_pareto
from dashboard.components.chart import render_chart
from dashboard.components.plan_prices import (
    candidates_state_key,
    default_candidates,
    render_price_sources,
)
from dashboard.components.run_panel import render_flash
from dashboard.components.study_controls import render_seed_count
from dashboard.components.study_run import (
    EXECUTOR_ENV,
    plan_within_budget,
    render_study_buttons,
    shared_slot,
)
from dashboard.query import trace_store, upload_sha256
from dashboard.run_queue import with_deadline
from dashboard.state import apply_config, build_config
from dashboard.study_tables import STUDY_METRICS
from engine.errors import EngineError, SimulationCancelled
from engine.study.store import default_results_dir

st.title("Planner")
st.caption(
    "The cheapest GPU mix whose metric, averaged over the seeds, meets a target: for one "
    "policy on the current scenario's trace, network and rounds. Each candidate GPU type "
    "gets its own rack; prices are editable (defaults: Gavel's GCP prices, engine.study.cost)."
)
render_flash()
s = st.session_state
try:
    import engine.study.planner  # noqa: F401
except ImportError:
    st.info("The planner is not in this engine yet.")
    st.stop()
try:
    base = build_config()
except EngineError as exc:
    st.error(f"The scenario is not valid: {exc}")
    st.stop()

TARGETS = ("jct_mean_s", "jct_p95_s", "queueing_delay_mean_s")
cols = st.columns(4)
policy = cols[0].selectbox("Policy", [p.display_name for p in base.policies], key="plan_policy")
s.setdefault("plan_metric", "jct_mean_s")
metric = cols[1].selectbox("Target metric", TARGETS, key="plan_metric",
                           format_func=lambda k: STUDY_METRICS[k].title)  # fmt: skip
unit = STUDY_METRICS[metric]
s.setdefault("plan_target", 2.0)
target = cols[2].number_input(f"At most ({unit.unit})", min_value=0.001, key="plan_target")
with cols[3]:
    seeds = render_seed_count("plan_seeds", 2)
candidates_key = candidates_state_key(base.throughputs)
s.setdefault(candidates_key, default_candidates(base.throughputs))
st.markdown("**Candidates**: GPU types the planner may buy, with a price and an upper bound")
render_price_sources(s[candidates_key])
candidates = st.data_editor(
    s[candidates_key], key=f"{candidates_key}_editor", num_rows="dynamic", hide_index=True,
    column_config={
        "worker_type": st.column_config.TextColumn("GPU type", required=True),
        "price_usd_per_gpu_h": st.column_config.NumberColumn(
            "Price (USD per GPU-hour)", min_value=0.0, format="%.3f", required=True),
        "max_nodes": st.column_config.NumberColumn("Max nodes", min_value=1, step=1),
        "gpus_per_node": st.column_config.NumberColumn("GPUs per node", min_value=1, step=1),
    },
)  # fmt: skip


def _spec():
    from engine.study.planner import Candidate, PlanSpec

    chosen = next(p for p in base.policies if p.display_name == policy)
    rows = []
    for i, row in enumerate(candidates.itertuples(index=False), start=1):
        if pd.isna(row.price_usd_per_gpu_h):
            raise EngineError(
                f"candidates row {i} ({row.worker_type}): no price; there is no citable public "
                "price for this GPU type, so enter yours (USD per GPU-hour)"
            )
        try:
            rows.append(Candidate(str(row.worker_type), float(row.price_usd_per_gpu_h),
                                  int(row.max_nodes), int(row.gpus_per_node)))  # fmt: skip
        except (TypeError, ValueError) as exc:
            raise EngineError(
                f"candidates row {i} ({row.worker_type}): a cell is empty or not a number; "
                "a GPU type without a citable price needs yours"
            ) from exc
    return PlanSpec(dataclasses.replace(base, policies=(chosen,)), tuple(rows), metric,
                    float(target) * unit.per_unit, tuple(seeds))  # fmt: skip


def _run(spec):
    import os

    from engine.study.planner import plan

    s["cancel_requested"] = False
    bar, started = st.progress(0.0, text="Planning…"), time.perf_counter()

    def on_progress(done: int, text: str) -> None:
        bar.progress(min(done / 200, 1.0), text=f"{done} simulations · {text} · "
                     f"{time.perf_counter() - started:.0f} s")  # fmt: skip

    try:
        spec, budget = plan_within_budget(spec)
        with shared_slot(bar, lambda: bool(s["cancel_requested"])) as workers:
            result = plan(spec, executor=os.environ.get(EXECUTOR_ENV, "pool"), workers=workers,
                          results_dir=default_results_dir(), on_progress=on_progress,
                          should_cancel=with_deadline(lambda: bool(s["cancel_requested"]),
                                                      budget),
                          traces=trace_store(), trace_hash=upload_sha256(),
                          limits=budget.worker_limits())  # fmt: skip
    except SimulationCancelled:
        st.warning("Planner cancelled.")
        return None
    except EngineError as exc:
        st.error(str(exc))
        return None
    finally:
        bar.empty()
    return result


def _load_chosen() -> None:
    result = s["plan_result"]
    config = dataclasses.replace(build_config(), cluster=result.chosen)
    apply_config(config)
    s["flash"] = ("success", "The chosen mix is now the current scenario's GPU mix "
                  f"({config.cluster.total_gpus} GPUs).")  # fmt: skip


spec = None
try:
    spec = _spec()
except EngineError as exc:
    st.error(str(exc))
if render_study_buttons("Plan", "run_plan", spec is not None):
    result = _run(spec)
    if result is not None:
        s["plan_result"] = result

result = s.get("plan_result")
if result is not None:
    shown = result.spec.target_value / unit.per_unit
    chosen = None
    tried = result.tried
    if result.chosen is not None:
        cap = result.chosen.capacity()
        label_of = {c.worker_type: c.gpus_per_node for c in result.spec.candidates}
        nodes = tuple(cap.get(c.worker_type, 0) // label_of[c.worker_type]
                      for c in result.spec.candidates)  # fmt: skip
        chosen = result.spec.label(nodes)
        st.success(f"Cheapest mix meeting {unit.label} ≤ {shown:g} {unit.unit}: "
                   f"**{chosen}** ({result.spec.cost_usd_per_h(nodes):.2f} USD/h).")  # fmt: skip
        st.button("Load this mix as the scenario", on_click=_load_chosen, type="primary",
                  key="load_chosen")  # fmt: skip
    else:
        st.warning("No mix within the bounds meets the target; raise the bounds or the target.")
    st.caption(f"{result.num_simulations} simulations run ({len(tried)} mixes × "
               f"{len(result.spec.seeds)} seeds, stored runs reused).")  # fmt: skip
    render_chart(make_pareto(tried, result.pareto, metric, shown, chosen), key="pareto")
    with st.expander("How the search went", expanded=True):
        st.markdown("\n".join(f"{i}. {line}" for i, line in enumerate(result.explanation, 1)))
    table = tried.assign(**{c: tried[c] / unit.per_unit for c in ("mean", "ci_low", "ci_high")})
    number = st.column_config.NumberColumn
    st.dataframe(
        table, hide_index=True, width="stretch",
        column_order=[c for c in table.columns if not str(c).startswith("nodes:")],  # in "Mix"
        column_config={
            "mix": "Mix", "cost_usd_per_h": number("Cost (USD/h)", format="%.2f"),
            "n": "Seeds", "mean": number(unit.title, format="%.2f"),
            "ci_low": number("95% low", format="%.2f"),
            "ci_high": number("95% high", format="%.2f"),
            "feasible": "Meets target", "phase": "Phase", "step": "Step",
            "error": st.column_config.TextColumn("Why not run", width="large"),
        },
    )  # fmt: skip
