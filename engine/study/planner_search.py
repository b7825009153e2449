"""The planner's search: greedy growth by marginal cost-effectiveness, then a local check.

1. **Start**: for each candidate type alone, the fewest nodes that hold the trace's largest job;
   the cheapest of these the policy can run is the start.
2. **Grow** (greedy): while the mix misses the target, try adding ``d = ceil(nodes / 2)`` nodes
   (at least 1, at most the type's bound) of each type, and keep the addition with the largest
   metric improvement per added USD/h (marginal cost-effectiveness). Growth by half the mix
   keeps the number of steps logarithmic in the answer's size.
3. **Refine** (local check of neighbours): from the feasible mix, try removing ``s`` nodes of
   each type (``s`` from ``d / 2`` halving to 1), and at ``s = 1`` also swapping one node of a
   type for one of another type that costs less; move to the cheapest neighbour that still
   meets the target, until none does.

[R] This is our heuristic; it assumes more GPUs never make the metric worse, which a policy
may violate, so the answer is the cheapest feasible mix *found*, not a proven optimum. Every
mix tried is in ``PlanResult.tried``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.study.planner import Mix, PlanProgressFn, PlanResult, PlanSpec, pareto_front
from engine.study.planner_eval import BudgetExhausted, Evaluator


def search(spec: PlanSpec, ev: Evaluator, on_progress: PlanProgressFn | None) -> PlanResult:
    """Runs the three phases of the module docstring; see :func:`engine.study.planner.plan`."""
    log: list[str] = []
    say = _sayer(log, ev, on_progress)
    current: Mix | None = None
    try:
        current = _start(spec, ev, say)
        if current is not None:
            current = _grow(spec, ev, current, say)
        if current is not None and ev.meets(current):
            current = _refine(spec, ev, current, say)
    except BudgetExhausted:
        say(f"stopped: the next batch would exceed {spec.max_simulations} simulations")
    tried = ev.table()
    feasible = [m for m in ev.rows if ev.meets(m)]
    best = min(feasible, key=lambda m: (spec.cost_usd_per_h(m), ev.mean(m)), default=None)
    if best is None:
        say("no mix tried meets the target")
    else:
        say(f"chosen: {spec.label(best)} at {spec.cost_usd_per_h(best):.2f} USD/h, "
            f"{spec.target_metric} {ev.mean(best):.0f} s <= {spec.target_value:.0f} s")  # fmt: skip
    say(f"{ev.num_simulations} simulations ({len(ev.rows)} mixes x {len(spec.seeds)} seeds)")
    chosen = spec.cluster(best) if best is not None else None
    return PlanResult(spec, tried, pareto_front(tried) if len(tried) else tried, chosen, log,
                      ev.num_simulations)  # fmt: skip


def _sayer(
    log: list[str], ev: Evaluator, on_progress: PlanProgressFn | None
) -> Callable[[str], None]:
    def say(line: str) -> None:
        log.append(line)
        if on_progress:
            on_progress(ev.num_simulations, line)

    return say


def _start(spec: PlanSpec, ev: Evaluator, say: Callable[[str], None]) -> Mix | None:
    largest = ev.largest_job_gpus()
    starts = []
    for i, c in enumerate(spec.candidates):
        mix = [0] * len(spec.candidates)
        mix[i] = min(c.max_nodes, math.ceil(largest / c.gpus_per_node))
        starts.append(tuple(mix))
    ev.evaluate(starts, "start", 0)
    runnable = [m for m in starts if not math.isnan(ev.mean(m))]
    if not runnable:
        union = tuple(max(col) for col in zip(*starts, strict=True))
        ev.evaluate([union], "start", 0)
        runnable = [union] if not math.isnan(ev.mean(union)) else []
    if not runnable:
        say(f"start: no single-type mix holding the largest job ({largest} GPUs) runs the trace")
        return None
    start = min(runnable, key=spec.cost_usd_per_h)
    say(
        f"start: {spec.label(start)}, the cheapest mix holding the largest job ({largest} GPUs) "
        f"that the policy runs; {spec.target_metric} {ev.mean(start):.0f} s"
    )
    return start


def _grow(spec: PlanSpec, ev: Evaluator, current: Mix, say: Callable[[str], None]) -> Mix | None:
    step = 0
    while not ev.meets(current):
        step += 1
        delta = max(1, math.ceil(sum(current) / 2))
        options = [_add(current, i, min(delta, c.max_nodes - current[i]))
                   for i, c in enumerate(spec.candidates) if current[i] < c.max_nodes]  # fmt: skip
        if not options:
            say("grow: every type is at its bound and the target is not met")
            return current
        ev.evaluate(options, "grow", step)
        gains = {m: _gain(spec, ev, current, m) for m in options}
        best = max(options, key=lambda m: gains[m])
        if not gains[best] > 0:
            say(f"grow: adding up to {delta} node(s) of any type no longer lowers the metric")
            return current
        say(f"grow {step}: + {_diff(spec, current, best)} -> {spec.label(best)}: "
            f"{spec.target_metric} {ev.mean(best):.0f} s; best gain per added USD/h "
            f"({gains[best]:,.1f} s per USD/h)")  # fmt: skip
        current = best
    return current


def _refine(spec: PlanSpec, ev: Evaluator, current: Mix, say: Callable[[str], None]) -> Mix:
    size = max(1, math.ceil(sum(current) / 4))
    while True:
        options = [_add(current, i, -size) for i in range(len(current)) if current[i] >= size]
        if size == 1:
            options += _swaps(spec, current)
        cost = spec.cost_usd_per_h(current)
        options = [m for m in options if any(m) and spec.cost_usd_per_h(m) < cost]
        ev.evaluate(options, "refine", size)
        better = [m for m in options if m in ev.rows and ev.meets(m)]
        if better:
            best = min(better, key=lambda m: (spec.cost_usd_per_h(m), ev.mean(m)))
            say(f"refine: {spec.label(best)} also meets the target, for "
                f"{spec.cost_usd_per_h(best):.2f} instead of {cost:.2f} USD/h")  # fmt: skip
            current = best
        elif size == 1:
            say(f"refine: no neighbour of {spec.label(current)} (one node fewer, or one node "
                "swapped for a cheaper type) meets the target")  # fmt: skip
            return current
        else:
            size = max(1, size // 2)


def _swaps(spec: PlanSpec, mix: Mix) -> list[Mix]:
    """One node of type i swapped for one of type j, for every pair within the bounds."""
    count = len(mix)
    return [
        _add(_add(mix, i, -1), j, 1)
        for i in range(count)
        for j in range(count)
        if i != j and mix[i] >= 1 and mix[j] < spec.candidates[j].max_nodes
    ]


def _gain(spec: PlanSpec, ev: Evaluator, current: Mix, option: Mix) -> float:
    """Metric decrease per added USD/h; a mix the policy cannot run gains nothing, and any
    runnable mix gains infinitely over an unrunnable current one."""
    new, old = ev.mean(option), ev.mean(current)
    if math.isnan(new):
        return -math.inf
    if math.isnan(old):
        return math.inf
    added = spec.cost_usd_per_h(option) - spec.cost_usd_per_h(current)
    return (old - new) / added if added > 0 else math.inf


def _add(mix: Mix, i: int, count: int) -> Mix:
    return tuple(n + count if j == i else n for j, n in enumerate(mix))


def _diff(spec: PlanSpec, before: Mix, after: Mix) -> str:
    return ", ".join(
        f"{b - a} {c.worker_type}"
        for c, a, b in zip(spec.candidates, before, after, strict=True)
        if b != a
    )
