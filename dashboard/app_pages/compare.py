"""Compare page: named variants of the scenario, run over seeds, deltas against the baseline."""

import streamlit as st

from dashboard.charts_study import make_delta_chart, make_variant_cdf
from dashboard.components.chart import render_chart
from dashboard.components.run_panel import render_flash
from dashboard.components.scenario_picker import render_scenario_picker
from dashboard.components.study_controls import (
    render_metric_picker,
    render_seed_count,
    render_variant_editor,
)
from dashboard.components.study_run import execute_study, render_study_buttons
from dashboard.query import upload_sha256
from dashboard.scenarios import all_scenarios
from dashboard.study_tables import (
    delta_table,
    describe_scenarios,
    paired_frame,
    split_delta_table,
    study_from_scenarios,
)

st.title("Compare what-ifs")
st.caption(
    "Duplicate the scenario as a variant, change its GPU mix, network, load or policy "
    "parameters, and run every variant over several seeds. The first scenario is the "
    "baseline: each variant's KPIs are set against it, policy by policy, on the same seeds."
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
st.caption(f"{len(named)} variant(s) × their policies × {len(seeds)} seed(s) = {runs} runs.")
autorun = s.pop("autorun_study", "") == "compare"
if render_study_buttons("Run all variants", "run_compare", runs > 0) or autorun:
    study = study_from_scenarios(named, seeds, upload_sha256())
    s["study_settings"] = {"ran": "compare", "seeds": len(seeds)}
    result = execute_study(study, runs)
    if result is not None:
        s["compare_result"] = result

result = s.get("compare_result")
if result is not None:
    baseline = result.study.baseline_name
    if study_from_scenarios(named, seeds, upload_sha256()) != result.study:
        st.warning("The variants or seeds changed since this run; run again to update.")
    st.subheader(f"Against the baseline: {baseline}")
    runs = result.runs  # every variant with failures on: goodput is a metric of each
    failures = "goodput" in runs.columns and bool(runs["goodput"].notna().all())
    metric = render_metric_picker("compare_metric", failures=failures)
    shown = [m for m in ("jct_mean_s", "jct_p95_s", "queueing_delay_mean_s", "makespan_s",
                         "cost_per_job_usd", *(("goodput",) if failures else ()))
             if m in runs.columns]  # fmt: skip
    means, deltas = split_delta_table(delta_table(result, shown))
    st.markdown("**Mean over seeds** [95% interval]")
    st.dataframe(means, hide_index=True, width="stretch")
    st.markdown("**Δ: the paired difference variant − baseline** on the same seeds [95% interval]")
    st.dataframe(deltas, hide_index=True, width="stretch")
    st.caption("An interval that excludes 0 is a difference the seeds do not explain.")
    paired = paired_frame(result, metric)
    if len(paired):
        render_chart(make_delta_chart(paired, metric, baseline), key="compare_delta")
        st.caption("Green: better than the baseline beyond seed noise; red: worse; grey: the "
                   "95% interval includes no difference.")  # fmt: skip
    jobs = result.jobs()
    policy = st.selectbox("Policy of the CDF", list(dict.fromkeys(jobs["policy"])),
                          key="compare_cdf_policy")  # fmt: skip
    render_chart(make_variant_cdf(jobs, policy, result.variants()), key="compare_cdf")
    with st.expander("Every run (one row per variant, policy and seed)"):
        st.dataframe(result.runs, hide_index=True)
