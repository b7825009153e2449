"""Evaluating GPU mixes for the planner: the plan's seeds in one batch on the chosen executor,
then more seeds for mixes near the target.

**Sequential seeds** [R: our rule]: after the plan's seeds, a mix whose one-sided bounds at the
plan's confidence lie on both sides of the target (the bad-side bound misses it, the good-side
bound meets it) gets :data:`SEEDS_PER_ROUND` more seeds (the next integers after the plan's
largest seed), round after round, until the bounds agree or it has ``max_seeds``; then the
bad-side bound decides. Only mixes that could still change the answer get them: today's
cluster (the reference) and mixes cheaper than the cheapest one already meeting the target
(and not refused by the fresh seeds: before each confirmation, the cheaper mixes that could
still win get seeds by the same rule, `engine.study.planner_confirm`).
Deciding after each round is a sequential test, so the stated confidence is nominal.

A mix the policy cannot run (a job it never starts, a job larger than the mix) is recorded with
the engine's message as its error, and does not meet the target. So is a mix that cannot run
some seed's draw of a trace whose job types are drawn from their sizes
(:func:`engine.traces.resolve.draw_misfit`), before any simulation: its seeds could otherwise
all draw jobs it runs, and a plan confirm it on them.

With failures on (`engine.config.FailureConfig`), every run simulates them and each row also
carries ``goodput``: the mean over the mix's seeds of the run's goodput (useful over allocated
GPU-hours, `engine.metrics`), a fraction; with a spares dimension, ``spares:<type>`` too.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from engine.budget import WorkerLimits
from engine.config import ClusterSpec, spares_of
from engine.errors import EngineError
from engine.power.energy import full_load_kw
from engine.results import RunResult
from engine.scenario import scenario_matrix
from engine.step_time.throughput import ThroughputMatrix
from engine.study.executors import Payload, execute_or_error, run_tasks
from engine.study.planner_power import over_cap
from engine.study.planner_spec import Mix, PlanSpec, spares_words
from engine.study.planner_target import gpu_name
from engine.study.spec import RunSpec
from engine.study.stats import mean_ci, t_interval
from engine.study.store import ResultStore
from engine.study.traces import TraceStore, trace_payload
from engine.traces import FORMATS, TraceLoad, draw_trace, inspect_trace
from engine.traces.resolve import draw_misfit

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

SEEDS_PER_ROUND = 2
TODAY = "today"
Key = Mix | str  # a mix, or TODAY for today's cluster when it is not a mix of the candidates
RunOutcome = RunResult | EngineError


class BudgetExhausted(Exception):
    """The next batch would exceed ``PlanSpec.max_simulations``."""


class Evaluator:
    """Simulates mixes on seeds (in batches, on the chosen executor) and keeps one row each."""

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
        self.values: dict[Key, dict[int, float]] = {}  # key -> seed -> judged value
        self.goodput: dict[Key, dict[int, float]] = {}  # key -> seed -> goodput (failures on)
        self.errors: dict[Key, str] = {}
        self.fresh: dict[Key, dict[int, float]] = {}  # key -> fresh seed -> value (confirmed)
        self.fresh_errors: dict[Key, str] = {}
        self.fresh_confidence: dict[Key, float] = {}  # key -> the bound's confidence
        self.limit: float = spec.max_simulations  # the confirmation lifts it
        self.rows: dict[Key, dict[str, Any]] = {}
        self.num_simulations = 0
        self.pool: ProcessPoolExecutor | None = None  # an open pool to run batches on
        self.drawn: TraceLoad | None = None  # one draw, when the trace's job types are drawn
        self.matrix: ThroughputMatrix | None = None  # the plan's matrix, with self.drawn

    def use_trace(self, traces: TraceStore | None, trace_hash: str = "") -> None:
        """Reads the trace once (from ``traces`` by ``trace_hash`` for an upload) and, when its
        format draws job types from sizes, draws it once on the plan's first seed (its sizes,
        for :func:`engine.traces.resolve.draw_misfit`)."""
        self.digest, self.payload = trace_payload(self.spec.base, traces, trace_hash)
        base = self.spec.base
        if self.payload is None:
            return
        name = base.trace.format
        if name == "auto":
            name = inspect_trace(self.payload[1], self.payload[0]).format
        if FORMATS.get(name).draws_job_types:
            self.matrix = scenario_matrix(base)
            self.drawn = draw_trace(
                base.trace, self.matrix, self.spec.seeds[0], self.payload, base.load
            )

    # --- what the search reads -------------------------------------------------------------
    def meets(self, key: Key) -> bool:
        return bool(self.rows[key]["meets"])

    def violation(self, key: Key) -> float:
        return self.spec.target.violation(float(self.rows[key]["bound"]))

    def cost(self, key: Key) -> float:
        return float(self.rows[key]["cost_usd_per_h"])

    def standing(self, key: Key) -> bool:
        """Meets the target on the search's seeds and the fresh seeds have not refused it
        (`engine.study.planner_confirm`)."""
        return self.meets(key) and self.rows[key]["confirmed"] is not False

    def cheapest_meeting(self) -> float:
        """The cost of the cheapest :meth:`standing` mix; inf if none."""
        return min((self.cost(k) for k in self.rows if self.standing(k)), default=math.inf)

    def seeds_of(self, key: Key) -> list[int]:
        return sorted(self.values.get(key, {})) or list(self.spec.seeds)

    def restore_error(self, key: Key, phase: str, error: str) -> None:
        """Records a mix the policy could not run, from a stored search (the run store keeps
        finished runs only)."""
        self.errors[key] = error
        self._row(key, phase)

    def table(self) -> pd.DataFrame:
        return pd.DataFrame(list(self.rows.values()))

    # --- evaluating ------------------------------------------------------------------------
    def evaluate(
        self, mixes: Iterable[Key], phase: str, seeds: list[int] | None = None
    ) -> list[Key]:
        """Simulates the keys not yet evaluated on the plan's seeds (or ``seeds``, when
        restoring a stored search), then adds seeds near the target (module docstring).

        Returns:
            The keys evaluated now, in order.

        Raises:
            BudgetExhausted: if a batch would exceed the simulation budget (rows of the
                batches already run are kept).
        """
        new = [k for k in dict.fromkeys(mixes) if k not in self.rows]
        for k in new:
            refusal = self._refusal(k)
            if refusal:
                self.errors[k] = refusal
        runnable = [k for k in new if k not in self.errors]
        self._record(self._run({k: seeds or list(self.spec.seeds) for k in runnable}))
        for k in new:
            self._row(k, phase)
        if seeds is None:
            self.add_seeds(new, phase)
        return new

    def add_seeds(self, keys: Iterable[Key], phase: str | None = None, trend: bool = False) -> None:
        """Adds search seeds, round after round, to the ``keys`` that could change the answer
        and are undecided (module docstring); with ``trend``, only while they are
        :meth:`on_trend` too (the confirmation's rivals, `engine.study.planner_confirm`);
        ``phase`` None keeps each row's phase."""
        keys = list(keys)
        pool = list(self.spec.search_seeds()[len(self.spec.seeds) :])
        while True:
            cap = self.cheapest_meeting()
            near = [k for k in keys if self._undecided(k) and (not trend or self.on_trend(k))
                    and (k == self.today_key() or self.cost(k) < cap)]  # fmt: skip
            if not near:
                return
            todo = {}
            for k in near:
                have = len(self.values[k])
                todo[k] = pool[have - len(self.spec.seeds) :][:SEEDS_PER_ROUND]
            self._record(self._run(todo))
            for k in near:
                self._row(k, phase or str(self.rows[k]["phase"]))

    def pair(self, keys: Iterable[Key], count: int) -> None:
        """Runs each of ``keys`` on the first ``count`` search seeds it has not run on, so it is
        judged on the same seeds as a mix that has ``count`` (a mix's search seeds are always
        the first of :meth:`PlanSpec.search_seeds`); the confirmation's screen of its candidate
        (`engine.study.planner_confirm`)."""
        first = self.spec.search_seeds()[:count]
        todo = {k: [s for s in first if s not in self.values.get(k, {})] for k in keys}
        self._record(self._run({k: seeds for k, seeds in todo.items() if seeds}))
        for k in todo:
            self._row(k, str(self.rows[k]["phase"]))

    def on_trend(self, key: Key) -> bool:
        """On its current trend, ``key`` would meet the target on ``max_seeds`` seeds: the bound
        its values' mean and spread give at ``max_seeds`` seeds meets it (True with one value:
        no spread yet). [R: a futility rule on the current trend, after the stochastic
        curtailment of Lan, Simon & Halperin, Sequential Analysis 1(3), 1982]"""
        values = self.judged(key)
        if len(values) < 2:
            return True
        target, spec = self.spec.target, self.spec
        return target.meets(target.bound(values, spec.confidence, at_n=spec.max_seeds))

    def _undecided(self, key: Key) -> bool:
        row, target = self.rows[key], self.spec.target
        if row["error"] or len(self.values[key]) >= self.spec.max_seeds:
            return False
        good = target.bound(self.judged(key), self.spec.confidence, worst=False)
        return not row["meets"] and (math.isnan(good) or target.meets(good))  # 1 seed: no bound

    def today_key(self) -> Key:
        today = self.spec.today_mix()
        return TODAY if today is None else today

    def cluster(self, key: Key) -> ClusterSpec:
        if key == TODAY or isinstance(key, str):
            return self.spec.base.cluster
        return self.spec.cluster(key)

    def _refusal(self, key: Key) -> str:
        """Why ``key`` is refused before any simulation ("" if it is not): over the plan's
        power cap (:func:`engine.study.planner_power.over_cap`), or unable to run some seed's
        draw of the trace (:func:`engine.traces.resolve.draw_misfit`)."""
        cluster, spec = self.cluster(key), self.spec
        if spec.power_cap_kw is not None:
            why = over_cap(cluster, spec.power_cap_kw, spec.power)
            if why:
                return f"over the power cap: {why}"
        if self.drawn is None or self.matrix is None:
            return ""
        why = draw_misfit(self.drawn, spec.base.trace, cluster, self.matrix)
        return f"cannot run every draw of the trace: {why}" if why else ""

    def confirm(self, key: Key, seeds: Iterable[int], confidence: float) -> list[float]:
        """Runs ``key`` on ``seeds`` (the plan's fresh seeds) apart from its search values and
        adds the outcome to its row (``fresh_seeds``, ``fresh_mean``, ``fresh_bound`` at
        ``confidence``, ``fresh_confidence``, ``confirmed``); returns the judged values (empty
        if the policy could not run it).

        Raises:
            BudgetExhausted: if the runs would exceed :attr:`limit`.
        """
        self.fresh_confidence[key] = confidence
        for (k, s), result in self._run({key: list(seeds)}).items():
            if isinstance(result, EngineError):
                self.fresh_errors.setdefault(k, str(result))
            else:
                self.fresh.setdefault(k, {})[s] = self.spec.target.of_run(result)
        self._row(key, str(self.rows[key]["phase"]))
        return [] if key in self.fresh_errors else list(self.fresh.get(key, {}).values())

    def _run(self, seeds_by_key: dict[Key, list[int]]) -> dict[tuple[Key, int], RunOutcome]:
        """Runs (or loads from the store) every (key, seed).

        Raises:
            BudgetExhausted: if the runs not stored would exceed :attr:`limit`.
        """
        seeds_by_key = self._with_today(seeds_by_key)
        specs = {(k, s): self._spec(k, s) for k, seeds in seeds_by_key.items() for s in seeds}
        stored = self.store.keys() if self.store else set()
        results: dict[tuple[Key, int], RunOutcome] = {}
        for ks, spec in specs.items():
            if self.store and spec.key() in stored:
                results[ks] = self.store.load(spec)
        todo = [(ks, spec) for ks, spec in specs.items() if ks not in results]
        if self.num_simulations + len(todo) > self.limit:
            raise BudgetExhausted

        def done(i: int, result: RunResult | EngineError) -> None:
            results[todo[i][0]] = result
            if self.store and isinstance(result, RunResult):
                self.store.save(result)

        tasks = [(spec, self.payload) for _, spec in todo]
        run_tasks(tasks, done, fn=execute_or_error, pool=self.pool, **self.run_options)  # type: ignore[arg-type]
        self.num_simulations += len(todo)
        return results

    def _record(self, results: dict[tuple[Key, int], RunOutcome]) -> None:
        """Records the search's values (and goodput with failures on) and errors."""
        for (k, s), result in results.items():
            if isinstance(result, EngineError):
                self.errors.setdefault(k, str(result))
            else:
                self.values.setdefault(k, {})[s] = self.spec.target.of_run(result)
                if self.spec.base.failures.enabled:
                    self.goodput.setdefault(k, {})[s] = float(result.summary["goodput"])
        today = self.today_key()
        if self.spec.versus_today and today in self.rows:  # it ran on the others' seeds too
            self._row(today, str(self.rows[today]["phase"]))

    def _with_today(self, seeds_by_key: dict[Key, list[int]]) -> dict[Key, list[int]]:
        """Against today's (``PlanSpec.versus_today``), today's cluster runs on every seed the
        others run on and it has not, so each mix is judged on the same seeds as today's."""
        if not self.spec.versus_today:
            return seeds_by_key
        today = self.today_key()
        ran = {*self.values.get(today, {}), *self.fresh.get(today, {}),
               *seeds_by_key.get(today, [])}  # fmt: skip
        need = sorted({s for seeds in seeds_by_key.values() for s in seeds} - ran)
        if not need:
            return seeds_by_key
        return {**seeds_by_key, today: [*seeds_by_key.get(today, []), *need]}

    def judged(self, key: Key, fresh: bool = False) -> list[float]:
        """The values the target's bound is over: the key's metric per search seed (or fresh
        seed), or against today's (``PlanSpec.versus_today``) its metric minus today's on each
        seed both ran (module docstring of `engine.study.planner_target`)."""
        runs = self.fresh if fresh else self.values
        mine = runs.get(key, {})
        if not self.spec.versus_today:
            return list(mine.values())
        today = runs.get(self.today_key(), {})
        return [v - today[s] for s, v in mine.items() if s in today]

    def _spec(self, key: Key, seed: int) -> RunSpec:
        base = self.spec.scenario(None if isinstance(key, str) else key)
        trace = dataclasses.replace(base.trace, drop_oversized=False)
        scenario = dataclasses.replace(
            base, cluster=self.cluster(key), trace=trace, seed=seed, trace_seed=seed
        )
        return RunSpec(scenario, "plan", seed, seed, self.digest, "summary")

    def _row(self, key: Key, phase: str) -> None:
        spec, target = self.spec, self.spec.target
        error = self.errors.get(key, "")
        values = [] if error else self.judged(key)
        n, mean, low, high = (t_interval if spec.versus_today else mean_ci)(values)
        bound = target.bound(values, spec.confidence) if values else math.nan
        capacity = self.cluster(key).capacity()
        row: dict[str, Any] = {"mix": self._label(key)}
        spares = self._spares(key)
        for c in spec.candidates:
            nodes = capacity.get(c.worker_type, 0) // c.gpus_per_node
            row[f"nodes:{c.worker_type}"] = nodes - spares.get(c.worker_type, 0) if nodes else 0
        for worker_type, _ in spec.spared():
            row[f"spares:{worker_type}"] = spares.get(worker_type, 0)
        cluster = self.cluster(key)
        if spec.power_cap_kw is not None or spec.ownership is not None:
            row["power_full_kw"] = full_load_kw(cluster, spec.power)
        row.update(
            cost_usd_per_h=spec.objective_usd_per_h(cluster), seeds=n, mean=mean, ci_low=low,
            ci_high=high, bound=bound, meets=target.meets(bound), today=key == self.today_key(),
            phase=phase, error=error,
        )  # fmt: skip
        if spec.versus_today:  # the metric itself, beside its difference from today's
            own = [] if error else list(self.values.get(key, {}).values())
            row["metric_mean"] = mean_ci(own)[1]
        if spec.base.failures.enabled:
            goodput = [] if error else list(self.goodput.get(key, {}).values())
            row["goodput"] = sum(goodput) / len(goodput) if goodput else math.nan
        self.rows[key] = {**row, **self._fresh_columns(key)}

    def _fresh_columns(self, key: Key) -> dict[str, Any]:
        """The confirmation's columns of a row: fresh seeds run, mean and one-sided bound over
        them at the confidence it was confirmed at, that confidence, and ``confirmed`` (True /
        False; None for a mix not confirmed)."""
        values = [] if key in self.fresh_errors else self.judged(key, fresh=True)
        if key not in self.fresh_confidence:
            return {"fresh_seeds": 0, "fresh_mean": math.nan, "fresh_bound": math.nan,
                    "fresh_confidence": math.nan, "confirmed": None}  # fmt: skip
        level = self.fresh_confidence[key]
        bound = self.spec.target.bound(values, level) if values else math.nan
        return {"fresh_seeds": len(self.fresh.get(key, {})), "fresh_mean": mean_ci(values)[1],
                "fresh_bound": bound, "fresh_confidence": level,
                "confirmed": self.spec.target.meets(bound)}  # fmt: skip

    def _spares(self, key: Key) -> dict[str, int]:
        """Spare nodes per GPU type held in the key's cluster (counted in its capacity) when the
        plan searches spares; none otherwise (the row's node counts are the cluster's, as
        before)."""
        if not self.spec.searches_spares:
            return {}
        if isinstance(key, str):
            failures = self.spec.base.failures
            return {t: spares_of(failures, t) for t in self.spec.base.cluster.capacity()}
        return self.spec.spares(key)

    def _label(self, key: Key) -> str:
        if isinstance(key, str):
            capacity = self.spec.base.cluster.capacity()
            words = " + ".join(f"{g} {gpu_name(t)} GPUs" for t, g in capacity.items())
            if self.spec.searches_spares:
                words += spares_words(self._spares(key))
            return words
        return self.spec.label(key) if isinstance(key, tuple) else str(key)
