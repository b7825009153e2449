"""Matrix page: every throughput of a built-in matrix at a chosen GPU count, its scaling
curves, and where each number comes from (round, submitter, system), with GPU prices."""

import pandas as pd
import streamlit as st

from dashboard.charts_matrix import make_scaling_curves
from dashboard.components.chart import render_chart
from engine.mlperf import STATISTICS, points, provenance_kind
from engine.step_time.throughput import load_matrix
from engine.study.cost import price_source, prices_with_defaults

FOCUS = ["A100-SXM-80GB", "H100-SXM", "H200-SXM", "B200", "MI300X"]

st.title("Throughput matrix")
st.caption(
    "The mlperf matrix: MLPerf Training time-to-train (MLCommons results v2.1-v5.1, Apache-2.0; "
    "engine/data/MLPERF_README.md). A job's work is counted in runs (the benchmark trained to its "
    "quality target), so its speed on n GPUs is 1 / time-to-train(n). Rules (engine/mlperf.py): "
    "available systems only, no re-submitted logs; between measured GPU counts a power law "
    "(log-log); outside them the nearest count's per-GPU rate; no result = not runnable there. "
    "The times include the runs' communication, so the network model adds nothing for them."
)
s = st.session_state
cols = st.columns([1, 1, 3])
statistic = cols[0].radio(
    "Value", STATISTICS, key="matrix_statistic", horizontal=True,
    help="typical: median over submitters; best: fastest submission",
)  # fmt: skip
gpus = int(cols[1].number_input("GPUs per job", min_value=1, max_value=16384, value=8,
                                key="matrix_gpus"))  # fmt: skip
matrix = load_matrix("mlperf" if statistic == "typical" else "mlperf-best")
chosen = cols[2].multiselect("Accelerators", matrix.worker_types, default=FOCUS,
                             key="matrix_types")  # fmt: skip

table = pd.DataFrame(
    {
        wt: [
            1 / rate / 3600 if (rate := matrix.steps_per_s(jt, wt, gpus)) > 0 else None
            for jt in matrix.job_types
        ]
        for wt in chosen
    },
    index=pd.Index(matrix.job_types, name="benchmark"),
)
kinds = pd.DataFrame(
    {wt: [provenance_kind(matrix.table, jt, wt, gpus) for jt in matrix.job_types] for wt in chosen},
    index=table.index,
)
st.subheader(f"Time to train one run on {gpus} GPUs (hours)")
MARKS = {"measured": "{:.2f}", "interpolated": "≈{:.2f}", "extrapolated": "{:.2f}*"}
COLORS = {"not runnable": "color: #999", "interpolated": "color: #1f5fa8",
          "extrapolated": "color: #b35c00"}  # fmt: skip
shown = pd.DataFrame(
    {
        wt: [
            "not runnable" if pd.isna(h) else MARKS[k].format(h)
            for h, k in zip(table[wt], kinds[wt], strict=True)
        ]
        for wt in chosen
    },
    index=table.index,
)
st.dataframe(
    shown.style.apply(lambda col: [COLORS.get(k, "") for k in kinds[col.name]]), width="stretch"
)
st.caption(
    "Plain: measured at exactly this count; ≈ (blue): interpolated between two measured counts "
    "(log-log); * (orange): extrapolated beyond the measured counts with the nearest count's "
    'per-GPU rate; "not runnable": no MLPerf result for that benchmark on that accelerator (a '
    "job of it is refused on such a cluster; no number is invented)."
)

job_type = st.selectbox("Benchmark", matrix.job_types, key="matrix_job_type",
                        index=matrix.job_types.index("llama2_70b_lora"))  # fmt: skip
measured = points(statistic)
render_chart(make_scaling_curves(matrix, job_type, chosen, measured), key="scaling")
missing = [wt for wt in chosen if not matrix.table[job_type].get(wt)]
if missing:
    st.info(f"{job_type} has no MLPerf result on {', '.join(missing)}: not runnable there.")
st.subheader("Where each number comes from")
rows = measured[(measured["job_type"] == job_type) & measured["worker_type"].isin(chosen)]
st.dataframe(
    rows.assign(hours=1 / rows["runs_per_s"] / 3600)[
        ["worker_type", "accelerators", "time_to_train_s", "hours", "submitters", "held_from",
         "sources"]
    ], hide_index=True, width="stretch",
    column_config={
        "worker_type": "Accelerator", "accelerators": "GPUs",
        "time_to_train_s": st.column_config.NumberColumn(f"{statistic} time (s)", format="%.0f"),
        "hours": st.column_config.NumberColumn("Used (h)", format="%.3f"),
        "submitters": "Submitters",
        "held_from": st.column_config.NumberColumn(
            "Held from", help="A smaller count was faster: its rate holds here (0: none)"),
        "sources": st.column_config.TextColumn("Rows: round submitter system: time", width="large"),
    },
)  # fmt: skip

st.subheader("Prices (USD per GPU-hour)")
prices = prices_with_defaults(None)
st.dataframe(
    pd.DataFrame({
        "GPU type": chosen,
        "price": [prices.get(wt) for wt in chosen],
        "source": [price_source(wt) for wt in chosen],
    }), hide_index=True, width="stretch",
    column_config={"price": st.column_config.NumberColumn("Price", format="%.3f")},
)  # fmt: skip
no_price = [wt for wt in chosen if wt not in prices]
if no_price:
    st.warning(
        f"No citable public price for {', '.join(no_price)}: enter your own on the Planner page "
        "(and in a study's prices); cost figures for these types stay blank until you do."
    )
