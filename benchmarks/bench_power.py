"""The power layer's cost and what it reports: the default Philly sample and the 2026 cluster.

Prints, per case and policy, the wall time of the simulation and of the power KPIs
(:func:`engine.power.energy.with_power` on the run's utilization table), and the KPIs
themselves with the default figures (PUE 1.56, 480 g CO2e/kWh).

    .venv/bin/python benchmarks/bench_power.py
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.config import PolicySpec, ScenarioConfig, TraceSpec  # noqa: E402
from engine.power.energy import POWER_METRICS, full_load_kw, with_power  # noqa: E402
from engine.power.model import PowerSpec  # noqa: E402
from engine.presets import cluster_2026_scenario  # noqa: E402
from engine.scenario import load_scenario_trace, run_matrix  # noqa: E402
from engine.simulator import simulate  # noqa: E402

CASES = {
    "philly_2000 on the default cluster": ScenarioConfig(
        trace=TraceSpec(source="sample:philly_2000.csv")
    ),
    "2026 cluster (LLM mix, 200 jobs)": cluster_2026_scenario(),
}


def main() -> None:
    spec = PowerSpec()
    for name, config in CASES.items():
        trace = load_scenario_trace(config)
        matrix = run_matrix(config, trace)
        print(f"{name}: every GPU busy {full_load_kw(config.cluster, spec):,.0f} kW facility")
        for policy in ("fifo", "las"):
            one = dataclasses.replace(config, policies=(PolicySpec(policy),))
            started = time.perf_counter()
            result = simulate(trace.jobs, one, PolicySpec(policy), matrix, record_segments=False,
                              decision_log=False)  # fmt: skip
            simulated_s = time.perf_counter() - started
            started = time.perf_counter()
            summary = with_power(result, config.cluster, spec).summary
            power_s = time.perf_counter() - started
            kpis = ", ".join(f"{key} {summary[key]:,.1f}" for key in POWER_METRICS)
            print(f"  {policy}: simulation {simulated_s:.2f} s, power KPIs {power_s * 1000:.1f} ms "
                  f"({len(result.utilization):,} utilization rows); {kpis}")  # fmt: skip


if __name__ == "__main__":
    main()
