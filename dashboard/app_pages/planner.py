"""Planner page: the cheapest GPU mix meeting a target at a stated confidence, beside today's
cluster; the cost/metric chart with the Pareto front; the search in words; every cluster tried."""

import dataclasses
import math
import os
import time

import pandas as pd
import streamlit as st

from dashboard.charts_planner import make_plan_chart
from dashboard.components.chart import render_chart
from dashboard.components.plan_objective import read_candidates, render_objective_inputs
from dashboard.components.plan_prices import (
    candidates_state_key,
    default_candidates,
    render_candidates_editor,
    render_price_fields,
    render_price_sources,
    trace_idle_types,
)
from dashboard.components.run_panel import render_flash
from dashboard.components.run_progress import cancel_shown
from dashboard.components.study_controls import render_seed_count, study_base
from dashboard.components.study_run import (
    EXECUTOR_ENV,
    STUDY_CANCEL_HELP,
    plan_within_budget,
    render_study_buttons,
    shared_slot,
)
from dashboard.page_settings import widget_range
from dashboard.query import trace_store, upload_sha256
from dashboard.run_queue import with_deadline
from dashboard.state import current_config, set_current
from engine.errors import EngineError, SimulationCancelled
from engine.policies.base import display_name, get_policy, policy_display_name
from engine.study.planner_confirm import seeds_words
from engine.study.planner_target import TARGET_METRICS, Target
from engine.study.stats import FIRM_SEEDS, INTERVAL_METHOD
from engine.study.store import default_results_dir
from engine.validate import failure_policies

TARGET_TITLES = {"jct_mean_s": "Mean JCT", "jct_p95_s": "p95 JCT",
                 "queueing_delay_mean_s": "Mean queueing delay",
                 "start_within_share": "Share of jobs starting within T",
                 "worst_team_queueing_p95_s": "Every team's p95 queueing delay"}  # fmt: skip
PHASES = {"today": "today's cluster", "start": "start", "search": "search",
          "refine": "neighbourhood check"}  # fmt: skip

st.title("Planner")
st.caption(
    "The cheapest GPU mix that meets a target for one policy on the current scenario's trace, "
    "network and rounds, set beside today's cluster (the scenario's GPU mix). Prices are USD "
    "per GPU-hour and editable; each default's source is listed above the table."
)
render_flash()
s = st.session_state
base = study_base()

cols = st.columns(4)
policy = cols[0].selectbox("Policy", [display_name(p) for p in base.policies], key="plan_policy")
s.setdefault("plan_metric", "jct_mean_s")
metric = cols[1].selectbox("Target", TARGET_METRICS, key="plan_metric",
                           format_func=TARGET_TITLES.get)  # fmt: skip
probe = Target(metric, 0.5 if metric == "start_within_share" else 1.0)
word = "At least" if not probe.at_most else "At most"
target_shown = cols[2].number_input(
    f"{word} ({probe.unit})", **widget_range(f"plan_target_{metric}"), value=None,
    placeholder="no worse than today's", key=f"plan_target_{metric}",
    help="Blank: no worse than today's cluster. Each mix runs on the same seeds (the same "
    "jobs) as today's cluster and is compared with it seed by seed; it meets the target when "
    "we are as sure as the plan asks that it is on average no worse than today's. Type a "
    "number to ask for a fixed target instead.",
)  # fmt: skip
as_today = target_shown is None
with cols[3]:
    seeds = render_seed_count("plan_seeds", 3)
cols = st.columns(4)
s.setdefault("plan_within_h", 1.0)
within_h = cols[0].number_input("T: jobs start within (h)", **widget_range("plan_within_h"),
                                key="plan_within_h", disabled=probe.at_most)  # fmt: skip
s.setdefault("plan_confidence", 95)
confidence = cols[1].slider(
    "Confidence (%)", **widget_range("plan_confidence"), key="plan_confidence",
    help="A mix meets the target when we are this sure, over its seeds, that its average "
    "meets it (the chart draws each mix at that bound); 50% decides on the average alone.",
)  # fmt: skip
s.setdefault("plan_max_seeds", 10)
max_seeds = cols[2].number_input("Seeds near the target, at most",
                                 **widget_range("plan_max_seeds"), key="plan_max_seeds",
                                 help="A mix whose interval straddles the target gets 2 more "
                                 "seeds at a time, up to this many.")  # fmt: skip
failures = base.failures
chosen_policy = next(p for p in base.policies if display_name(p) == policy)
models_failures = get_policy(chosen_policy.name).models_failures
max_spares = 0
if failures.enabled:
    cols = st.columns([1, 3])
    s.setdefault("plan_max_spares", 2)
    max_spares = cols[0].number_input(
        "Spare nodes per GPU type, at most", **widget_range("plan_max_spares"), step=1,
        key="plan_max_spares",
        help="The search also chooses how many spare nodes to hold of each GPU type (0 up to "
        "this, or up to the type's own number in the table below); spares are bought like "
        "other nodes and swap in for failed ones. 0 everywhere keeps the scenario's own "
        "spares in every mix.",
    )  # fmt: skip
    cols[1].info(
        f"Failures are on (node MTBF {failures.node_mtbf_h:,.0f} h, repair "
        f"{failures.repair_h:g} h, {failures.spares_per_type} spare node(s) per type today): "
        "every mix is simulated with failures, the target is judged on those runs, and each "
        "mix reports its goodput (useful over allocated GPU-hours)."
    )  # fmt: skip
    if not models_failures:
        names = ", ".join(policy_display_name(n) for n in failure_policies())
        st.warning(
            f"**{policy} does not model node failures**, and failures are on in this scenario, "
            f"so the planner cannot judge it. Pick a policy that does ({names}), or turn "
            "failures off in the scenario's Failures tab to plan without them."
        )
objective = render_objective_inputs()
candidates_key = candidates_state_key(base.throughputs)
today_types = {g.worker_type for g in base.cluster.node_groups}
idle = [wt for wt in trace_idle_types(base, s.get("upload")) if wt not in today_types]
s.setdefault(candidates_key, default_candidates(base, idle))
st.markdown("**GPU types to buy**: a price, the most nodes the plan may hold and the node size"
            + (", and the most spare nodes of each type (blank: the number above)"
               if failures.enabled else "")
            + (", and the purchase price per GPU (a node's price over its GPUs)"
               if objective.ownership else ""))  # fmt: skip
render_price_sources(s[candidates_key])
candidates = render_candidates_editor(base, spares=failures.enabled, purchase=objective.ownership)
render_price_fields(candidates_key, candidates, objective.ownership)
unused = [str(wt) for wt in candidates["worker_type"] if wt in idle]
offered = set(default_candidates(base)["worker_type"])  # what the default table offers
dropped = [wt for wt in idle if wt in offered]
if dropped:
    st.caption(
        f"Not offered: {', '.join(dropped)}: no job of this trace runs on "
        f"{'them' if len(dropped) > 1 else 'it'} (no throughput on the "
        f"{base.throughputs} matrix), so nodes of that type would be paid for and idle."
    )
if unused:
    st.warning(
        f"Left out of the plan: {', '.join(unused)}, which runs none of this trace's "
        "jobs; a mix holding such nodes would pay for GPUs no job can use."
    )
    candidates = candidates[~candidates["worker_type"].isin(unused)]


def _spec():
    from engine.study.planner import PlanSpec

    rows, ownership = read_candidates(candidates, objective, spares=failures.enabled)
    return PlanSpec(
        dataclasses.replace(base, policies=(chosen_policy,)), rows, metric,
        0.0 if as_today else float(target_shown) * probe.per_unit, tuple(seeds),
        confidence=confidence / 100,
        max_seeds=max(int(max_seeds), len(seeds)), start_within_s=float(within_h) * 3600,
        max_spares=int(max_spares), power_cap_kw=objective.power_cap_kw, ownership=ownership,
        versus_today=as_today,
    )  # fmt: skip


def _run(spec):
    from engine.study.planner import plan

    s["cancel_requested"] = False
    bar, started = st.progress(0.0, text="Planning…"), time.perf_counter()

    def on_progress(done: int, text: str) -> None:
        bar.progress(min(done / spec.max_simulations, 1.0), text=f"{done} simulations · {text} "
                     f"· {time.perf_counter() - started:.0f} s")  # fmt: skip

    try:
        spec, budget = plan_within_budget(spec)
        with (
            cancel_shown("plan_cancel", STUDY_CANCEL_HELP),
            shared_slot(bar, lambda: bool(s["cancel_requested"])) as workers,
        ):
            options = dict(executor=os.environ.get(EXECUTOR_ENV, "pool"), workers=workers,
                           results_dir=default_results_dir(),
                           should_cancel=with_deadline(lambda: bool(s["cancel_requested"]),
                                                       budget),
                           traces=trace_store(), trace_hash=upload_sha256(),
                           limits=budget.worker_limits())  # fmt: skip
            return plan(spec, on_progress=on_progress, **options)
    except SimulationCancelled:
        st.warning("Planner cancelled; a new plan resumes from the mixes already simulated.")
    except EngineError as exc:
        st.error(str(exc))
    finally:
        bar.empty()
    return None


def _load_chosen() -> None:
    result = s["plan_result"]
    config = dataclasses.replace(current_config(), cluster=result.chosen)
    if result.spec.searches_spares:  # the chosen mix's spares come with it
        config = dataclasses.replace(config, failures=result.chosen_scenario.failures)
    set_current(config)
    s["flash"] = ("success", "The chosen mix is now the current scenario's GPU mix "
                  f"({config.cluster.total_gpus} GPUs).")  # fmt: skip


def _objective_words(spec) -> str:
    """What the plan's cost figures are, in words."""
    own = spec.ownership
    if own is None:
        return "rental price (USD per hour at the table's GPU-hour prices)"
    return (f"total cost of ownership per hour (purchase over {own.years:g} years, plus "
            f"full-load energy at {own.electricity_usd_per_kwh:g} USD/kWh)")  # fmt: skip


def _power(row) -> str:
    """``", 412 kW at full load"`` for a row with a power figure, else ``""``."""
    if not row or "power_full_kw" not in row or pd.isna(row["power_full_kw"]):
        return ""
    return f", {row['power_full_kw']:,.0f} kW at full load"


def _family(spec, row) -> str:
    """How the answer's confidence covers every confirmation run (issue 34): the k-th is judged
    at 1 - (1 - c)/2^k (`engine.study.planner_confirm`)."""
    from engine.study.planner_target import percent

    refused = int((s["plan_result"].tried["confirmed"] == False).sum())  # noqa: E712
    before = (f"{refused} cheaper mix{'es were' if refused > 1 else ' was'} refused before it, "
              if refused else "")  # fmt: skip
    miss = 1 - spec.confidence
    return (f"({before}confirmation {refused + 1} was judged at "
            f"{percent(row['fresh_confidence'])}: the k-th confirmation is judged at "
            f"1 - {percent(miss)}/2^k, so all of them together keep the plan's "
            f"{percent(spec.confidence)}, however many ran.)")  # fmt: skip


def _value_words(target, row) -> str:
    """``"mean JCT 3.62 h"``; against today's ``"mean JCT 3.62 h (+0.10 h against today's)"``."""
    if not target.versus_today:
        return f"{target.label} {target.words(row['mean'])}"
    return (f"{target.metric_label} {target.metric_words(row['metric_mean'])} "
            f"({target.words(row['mean'])} against today's)")  # fmt: skip


def _today_words(target, row) -> str:
    """Today's value: against today's, its own metric (its difference from itself is 0)."""
    if not target.versus_today:
        return _value_words(target, row)
    return f"{target.metric_label} {target.metric_words(row['metric_mean'])}"


def _verdict(row, target, confidence: float) -> str:
    """``"misses the target: we are 95% sure the mean JCT is below 160.2 h"``: the verdict with
    the bound it was judged on (issue 38 point 4), as the chart draws it."""
    if row.get("error"):
        return "cannot run the trace"
    verdict = "meets the target" if row["meets"] else "misses the target"
    return f"{verdict}: {target.sure_words(row['bound'], confidence)}"


def _goodput(row) -> str:
    """``", goodput 93.8%"`` for a row with failures on, else ``""``."""
    if not row or "goodput" not in row or pd.isna(row["goodput"]):
        return ""
    return f", goodput {row['goodput']:.1%}"


spec = None
if models_failures or not failures.enabled:  # else the warning above says why not
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
    target, today, chosen = result.spec.target, result.today, result.chosen_row
    st.subheader(f"{target.sentence()[0].upper()}{target.sentence()[1:]}")
    if target.versus_today:
        mean = today.get("metric_mean", math.nan) if today else math.nan
        st.caption(f"The cheapest mix not worse than today's: each mix ran on the same seeds as "
                   f"today's cluster (the same jobs), and its {target.metric_label} is taken "
                   "minus today's on each seed; it meets the target when we are "
                   f"{result.spec.confidence:.0%} sure that difference averages at most "
                   f"{target.metric_words(target.value)} (a paired comparison). Today's cluster "
                   f"averages {target.metric_words(float(mean))} over its seeds. Type a target "
                   "above to ask for a fixed number instead.")  # fmt: skip
    cost_name = "Ownership" if result.spec.ownership is not None else "Rental"
    st.caption(f"Costs below are the {_objective_words(result.spec)}"
               + (f"; every mix must fit a facility power cap of "
                  f"{result.spec.power_cap_kw:,.0f} kW at full load"
                  if result.spec.power_cap_kw is not None else "") + ".")  # fmt: skip
    left, right = st.columns(2)
    if today:
        left.metric("Today's cluster", f"{today['cost_usd_per_h']:,.2f} USD/h")
        verdict = (
            "what every mix is compared with"
            if target.versus_today
            else _verdict(today, target, result.spec.confidence)
        )
        left.caption(f"{today['mix']}: {_today_words(target, today)} "
                     f"({verdict}){_goodput(today)}{_power(today)}")  # fmt: skip
    if chosen is not None:
        saving = today["cost_usd_per_h"] - chosen["cost_usd_per_h"] if today else 0.0
        right.metric("Chosen mix", f"{chosen['cost_usd_per_h']:,.2f} USD/h",
                     f"{-saving:+,.2f} USD/h against today", delta_color="inverse")  # fmt: skip
        right.caption(f"{chosen['mix']}: {_value_words(target, chosen)}"
                      f"{_goodput(chosen)}{_power(chosen)}")  # fmt: skip
        fresh = result.spec.fresh_seeds()
        st.success(f"Cheapest mix found that meets the target: **{chosen['mix']}**, "
                   f"{chosen['cost_usd_per_h']:,.2f} USD/h ({cost_name.lower()})"
                   f"{_goodput(chosen)}{_power(chosen)}. Confirmed on "
                   f"**{chosen['fresh_seeds']} fresh seeds** ({seeds_words(fresh)}, none used "
                   f"by the search): {target.label} {target.words(chosen['fresh_mean'])}, "
                   f"and {target.sure_words(chosen['fresh_bound'], result.spec.confidence)}. "
                   f"{_family(result.spec, chosen)}")  # fmt: skip
        loadable = result.chosen_scenario
        if loadable is not None and (loadable.cluster != base.cluster
                                     or loadable.failures != base.failures):  # fmt: skip
            st.button("Load this mix as the scenario", on_click=_load_chosen, type="primary",
                      key="load_chosen")  # fmt: skip
    elif (result.tried["confirmed"] == False).any():  # noqa: E712 (None: not confirmed)
        refused = int((result.tried["confirmed"] == False).sum())  # noqa: E712
        st.warning(f"{refused} mix{'es' if refused > 1 else ''} met the target on the search's "
                   "seeds but not on fresh seeds, and no mix was confirmed; raise the bounds "
                   "or the target, lower the confidence, or give more seeds.")  # fmt: skip
    else:
        st.warning("No mix the planner evaluated meets the target; raise the bounds or the "
                   "target, or lower the confidence.")  # fmt: skip
    n = len(result.spec.seeds)
    if n < FIRM_SEEDS:
        st.info(
            f"With {n} seed{'s' if n != 1 else ''} per mix the intervals are wide: Student's "
            f"t with {max(n - 1, 1)} degree{'s' if n > 2 else ''} of freedom, and the "
            "seeds' spread is itself uncertain. Mixes near the target got more seeds (up to "
            f"{result.spec.max_seeds}); run {FIRM_SEEDS} or more for a firmer answer."
        )
    render_chart(make_plan_chart(result.tried, result.pareto, target, today, chosen),
                 key="plan_chart")  # fmt: skip
    st.caption(f"Each dot is where we are {result.spec.confidence:.0%} sure the mix's average "
               f"lies {'below' if target.at_most else 'above'} (that is what is judged); the "
               "light ring is its average over seeds. The table's 95% interval: "
               f"{INTERVAL_METHOD}. "
               f"{result.num_simulations} simulations in this plan (runs already stored are "
               "reused).")  # fmt: skip
    with st.expander("How the search went", expanded=True):
        st.markdown("\n".join(f"{i}. {line}" for i, line in enumerate(result.explanation, 1)))
    per = target.per_unit
    table = result.tried.sort_values(["today", "cost_usd_per_h"], ascending=[False, True])
    table = table.assign(
        **{c: table[c] / per for c in ("mean", "ci_low", "ci_high", "bound", "fresh_mean",
                                       "fresh_bound")},
        phase=table["phase"].map(PHASES), today=table["today"].map({True: "today", False: ""}),
    )  # fmt: skip
    spares = [c for c in table.columns if c.startswith("spares:")]
    extra = [*spares, *(c for c in ("goodput", "power_full_kw") if c in table.columns)]
    table["confirmed"] = table["confirmed"].map({True: "confirmed", False: "refused"})
    if "goodput" in table.columns:
        table["goodput"] = table["goodput"] * 100
    number = st.column_config.NumberColumn
    side = "below" if target.at_most else "above"
    st.dataframe(
        table, hide_index=True, width="stretch",
        column_order=["today", "mix", "cost_usd_per_h", "mean", "ci_low", "ci_high", "bound",
                      "meets", *extra, "seeds", "confirmed", "fresh_mean", "fresh_bound",
                      "phase", "error"],
        column_config={
            "today": "", "mix": "Mix",
            "cost_usd_per_h": number(f"{cost_name} (USD/h)", format="%.2f"),
            "power_full_kw": number("Full-load power (kW)", format="%.0f",
                                    help="Facility power with every GPU busy, PUE included"),
            "mean": number(f"{TARGET_TITLES[target.metric]} ({target.unit})", format="%.2f"),
            "ci_low": number("95% low", format="%.2f"),
            "ci_high": number("95% high", format="%.2f"),
            "bound": number(f"{result.spec.confidence:.0%} sure {side} ({target.unit})",
                            format="%.2f"),
            "meets": "Meets target", "seeds": "Seeds", "phase": "Found by",
            **{c: number(f"Spares {c.removeprefix('spares:').upper()}") for c in spares},
            "confirmed": st.column_config.TextColumn(
                "On fresh seeds", help=f"The answer is confirmed on {result.spec.max_seeds} "
                "seeds the search never used, cheapest mix first"),
            "fresh_mean": number(f"Fresh mean ({target.unit})", format="%.2f"),
            "fresh_bound": number(
                f"Fresh seeds: sure {side} ({target.unit})", format="%.2f",
                help="The bound on the fresh seeds at the plan's confidence"),
            "goodput": number("Goodput (%)", format="%.1f",
                              help="Useful over allocated GPU-hours, mean over seeds"),
            "error": st.column_config.TextColumn("Why it cannot run", width="large"),
        },
    )  # fmt: skip
