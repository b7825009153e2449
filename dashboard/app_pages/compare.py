"""Compare page: policies and named variants of the scenario over seeds, paired seed by seed."""

import streamlit as st

from dashboard.charts_study import make_delta_chart, make_variant_cdf
from dashboard.components.chart import render_chart
from dashboard.components.run_panel import render_flash
from dashboard.components.scenario_picker import render_scenario_picker
from dashboard.components.study_controls import (
    render_metric_picker,
    render_pair_picker,
    render_pairs,
    render_seed_count,
    render_seed_note,
    render_variant_editor,
)
from dashboard.components.study_run import execute_study, render_study_buttons
from dashboard.page_settings import mark_ran
from dashboard.query import upload_sha256
from dashboard.scenarios import all_scenarios
from dashboard.study_tables import (
    cell_key,
    cell_of,
    default_pair,
    delta_table,
    describe_scenarios,
    pair_table,
    paired_frame,
    runs_table,
    split_delta_table,
    study_from_scenarios,
    team_columns,
    verdict_caption,
)
from engine.study.paired import cells, every_pair

SHOWN = ("jct_mean_s", "jct_p95_s", "queueing_delay_mean_s", "makespan_s", "cost_per_job_usd")

st.title("Compare")
st.caption(
    "Run the scenario's policies, and variants of it (another GPU mix, network, load or policy "
    "parameters), over several seeds. Seed s replays the same jobs in every run, so any two "
    "policies, or one policy in two variants, are set side by side seed by seed (paired): "
    "is the difference more than seed noise?"
)
render_flash()
s = st.session_state
with st.container(border=True):
    render_scenario_picker()
    render_variant_editor()
named = all_scenarios()
st.dataframe(describe_scenarios(named), hide_index=True, width="stretch")
seeds = render_seed_count("compare_seeds")
runs = sum(len(c.policies) for c in named.values()) * len(seeds)
st.caption(f"{len(named)} scenario(s) × their policies × {len(seeds)} seed(s) = {runs} runs.")
autorun = s.pop("autorun_study", "") == "compare"
if render_study_buttons("Run all", "run_compare", runs > 0) or autorun:
    study = study_from_scenarios(named, seeds, upload_sha256())
    result = execute_study(study, runs)
    if result is not None:
        s["compare_result"] = result
        mark_ran("compare")

result = s.get("compare_result")
if result is not None:
    ran_seeds = result.study.seeds
    st.markdown(
        f"Results of scenario(s) **{'**, **'.join(result.variants())}** · seeds "
        f"{', '.join(map(str, ran_seeds))} ({len(ran_seeds)} per policy and scenario)"
    )
    if study_from_scenarios(named, seeds, upload_sha256()) != result.study:
        st.warning("The scenarios or seeds changed since this run; press **Run all** to update.")
    render_seed_note(len(ran_seeds))
    runs = result.runs  # every variant with failures on: goodput is a metric of each
    failures = "goodput" in runs.columns and bool(runs["goodput"].notna().all())
    metrics = [m for m in (*SHOWN, *(("goodput",) if failures else ())) if m in runs.columns]
    st.subheader("A against B, on the same seeds")
    options = [cell_key(c) for c in cells(result)]
    pair = default_pair(result)
    if pair is None:
        st.info("One policy in one scenario: add a policy (Scenario page) or duplicate the "
                "scenario as a variant to compare two.")  # fmt: skip
    else:
        one = len(result.variants()) == 1
        a, b = render_pair_picker(
            ("compare_pair_a", "compare_pair_b"), options, pair,
            lambda k: cell_of(k)[1] if one else " in ".join(reversed(cell_of(k))),
        )  # fmt: skip
        render_pairs(pair_table(result, a, b, metrics))
        teams = team_columns(runs)  # scenarios with queues: each team's waits, paired
        if teams:
            st.markdown("**Per team** (ClusterQueue), on the same seeds")
            render_pairs(pair_table(result, a, b, teams))
        st.caption(verdict_caption(len(metrics)))
        st.download_button(
            "Download every pair (paired.csv)", lambda: every_pair(result, metrics).to_csv(
                index=False), file_name="paired.csv", mime="text/csv", key="paired_csv",
            help="Each policy against the first in its scenario, and each variant against the "
            "baseline: the rows the command-line sweep writes.",
        )  # fmt: skip
    if len(result.variants()) > 1:
        baseline = result.study.baseline_name
        st.subheader(f"Every scenario against the baseline: {baseline}")
        means, deltas = split_delta_table(delta_table(result, metrics))
        st.markdown("**Mean over seeds** [95% interval]")
        st.dataframe(means, hide_index=True, width="stretch")
        st.markdown("**Δ: the paired difference variant − baseline** on the same seeds "
                    "[95% interval]")  # fmt: skip
        st.dataframe(deltas, hide_index=True, width="stretch")
        metric = render_metric_picker("compare_metric", failures=failures)
        paired, fmt = paired_frame(result, metric)
        render_chart(make_delta_chart(paired, metric, baseline, fmt.unit), key="compare_delta")
        st.caption("Green: better than the baseline beyond seed noise; red: worse; grey: the "
                   "95% interval includes no difference.")  # fmt: skip
    if len(result.variants()) > 1:  # one scenario: the Results page draws its policies' CDFs
        jobs = result.jobs()
        policies = list(dict.fromkeys(jobs["policy"]))
        if s.get("compare_cdf_policy") not in policies:
            s["compare_cdf_policy"] = policies[0]
        policy = st.selectbox("Policy of the CDF", policies, key="compare_cdf_policy")
        render_chart(make_variant_cdf(jobs, policy, result.variants()), key="compare_cdf")
    with st.expander("Every run (one row per scenario, policy and seed)"):
        st.dataframe(runs_table(result, SHOWN), hide_index=True)
