"""Evaluating GPU mixes for the planner: every seed, in batches on the chosen executor.

A mix the policy cannot run (a job it never starts, a job larger than the mix) is recorded with
the engine's message as its error, and counts as not meeting the target.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from engine.errors import EngineError
from engine.study.executors import WorkerLimits, execute_or_error, run_tasks
from engine.study.planner import Mix, PlanSpec
from engine.study.single import Payload, RunResult
from engine.study.spec import RunSpec
from engine.study.stats import mean_ci
from engine.study.store import ResultStore
from engine.study.traces import TraceStore, trace_payload
from engine.throughput import load_matrix
from engine.traces import draw_trace


class BudgetExhausted(Exception):
    """The next batch would exceed ``PlanSpec.max_simulations``."""


class Evaluator:
    """Simulates mixes on every seed (in batches, on the chosen executor) and remembers them."""

    def __init__(
        self,
        spec: PlanSpec,
        executor: str,
        workers: int | None,
        ray_address: str | None,
        results_dir: Path | str | None,
        should_cancel: Callable[[], bool] | None,
        limits: WorkerLimits | None = None,
    ) -> None:
        self.spec = spec
        self.run_options = {
            "executor": executor, "workers": workers, "ray_address": ray_address,
            "should_cancel": should_cancel, "limits": limits,
        }  # fmt: skip
        self.store = ResultStore(results_dir) if results_dir is not None else None
        self.digest = ""
        self.payload: Payload = None
        self.rows: dict[Mix, dict[str, object]] = {}
        self.num_simulations = 0

    def use_trace(self, traces: TraceStore | None, trace_hash: str = "") -> None:
        """Reads the trace once (from ``traces`` by ``trace_hash`` for an upload)."""
        self.digest, self.payload = trace_payload(self.spec.base, traces, trace_hash)

    def largest_job_gpus(self) -> int:
        """The largest scale factor of the trace (first seed's draw)."""
        base = self.spec.base
        drawn = draw_trace(
            base.trace, load_matrix(base.throughputs), self.spec.seeds[0],
            load=base.load, raw=self.payload,
        )  # fmt: skip
        return int(drawn.jobs["scale_factor"].max())

    def mean(self, mix: Mix) -> float:
        value = self.rows[mix]["mean"]
        return float(value) if isinstance(value, float) else math.nan

    def meets(self, mix: Mix) -> bool:
        return bool(self.rows[mix]["feasible"])

    def evaluate(self, mixes: list[Mix], phase: str, step: int) -> None:
        """Simulates the mixes not yet tried (all seeds), in one batch.

        Raises:
            BudgetExhausted: if the batch would exceed the simulation budget.
        """
        new = [m for m in dict.fromkeys(mixes) if m not in self.rows and any(m)]
        specs = [self._spec(m, s) for m in new for s in self.spec.seeds]
        stored = self.store.keys() if self.store else set()
        results: dict[str, RunResult | EngineError] = {}
        for spec in specs:
            if self.store and spec.key() in stored:
                results[spec.key()] = self.store.load(spec)
        todo = [(s, self.payload) for s in specs if s.key() not in results]
        if self.num_simulations + len(todo) > self.spec.max_simulations:
            raise BudgetExhausted

        def done(i: int, result: RunResult | EngineError) -> None:
            results[todo[i][0].key()] = result
            if self.store and isinstance(result, RunResult):
                self.store.save(result)

        run_tasks(todo, done, fn=execute_or_error, **self.run_options)  # type: ignore[arg-type]
        self.num_simulations += len(todo)
        for m in new:
            outcome = [results[self._spec(m, s).key()] for s in self.spec.seeds]
            self.rows[m] = self._row(m, outcome, phase, step)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.rows.values()))

    def _spec(self, mix: Mix, seed: int) -> RunSpec:
        base = self.spec.base
        trace = dataclasses.replace(base.trace, drop_oversized=False)
        scenario = dataclasses.replace(
            base, cluster=self.spec.cluster(mix), trace=trace, seed=seed, trace_seed=seed
        )
        return RunSpec(scenario, self.spec.label(mix), seed, seed, self.digest, "summary")

    def _row(
        self, mix: Mix, outcome: list[RunResult | EngineError], phase: str, step: int
    ) -> dict[str, object]:
        errors = [str(r) for r in outcome if isinstance(r, EngineError)]
        values = [r.summary[self.spec.target_metric] for r in outcome if isinstance(r, RunResult)]
        n, mean, low, high = mean_ci(values) if not errors else (0, math.nan, math.nan, math.nan)
        row: dict[str, object] = {"mix": self.spec.label(mix)}
        for c, count in zip(self.spec.candidates, mix, strict=True):
            row[f"nodes:{c.worker_type}"] = count
        row.update(
            cost_usd_per_h=self.spec.cost_usd_per_h(mix), n=n, mean=mean, ci_low=low,
            ci_high=high, feasible=bool(not errors and mean <= self.spec.target_value),
            phase=phase, step=step, error=errors[0] if errors else "",
        )  # fmt: skip
        return row
