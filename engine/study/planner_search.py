"""The planner's search: seeded starts, Optuna's constrained TPE sampler, then a neighbourhood
check of the best mixes.

The metric over a mix is noisy, its inputs are integers and it is not monotone (under FIFO,
slow K80s make jobs slower), so the search does not climb:

1. **Today**: today's cluster is simulated first, the reference (`engine.study.planner`).
2. **Starts**: today's mix, each type alone at its largest count (under the power cap, if
   any; without spares and, when the plan searches spares, also with the most spares) and, for
   a type alone that meets the target there, the fewest nodes of it that do (bisection on the
   count, with no spares if that meets the target, else with the most).
3. **Search**: Optuna's TPE sampler (Bergstra et al., NeurIPS 2011; Optuna, Akiba et al., KDD
   2019) proposes :data:`BATCH` mixes at a time (integer node counts per type within the
   bounds, and spares of each GPU type within its bound when the plan searches spares,
   ``constant_liar`` for a batch), minimising the cost in USD/h subject to the target:
   its constraint is the relative miss of the bound (``<= 0`` meets). Optuna's constrained TPE
   ranks mixes that meet the target by cost and the others by their miss, so it proposes mixes
   like the cheapest ones meeting it. The first :data:`RANDOM_TRIALS` proposals after the
   starts are uniform. Proposals of a mix already evaluated do not count.
4. **Neighbourhood check**: around the :data:`FRONTIER` cheapest mixes meeting the target,
   every cheaper mix ``s`` nodes away (one type +-s, two types +-s each, each spares
   count counting as a type, or s nodes of a type exchanged for nodes of a cheaper type,
   :func:`exchanges`) is evaluated; a new
   cheapest mix becomes part of the frontier, until no cheaper neighbour is left; then ``s``
   halves, down to 1 (:func:`steps`). If no mix meets the target, the neighbours of the
   closest mixes are tried (all, up to :data:`MISS_ROUNDS` rounds per step).

5. **Confirmation** (`engine.study.planner_confirm`): the mixes that met the target are
   judged again, cheapest first, on fresh seeds the search never used; the first that holds
   is the answer.

The sampler is seeded from the plan's key, so the same plan gives the same answer. Every
evaluation is an Optuna trial (params: node counts; user attributes: seeds, phase; constraint:
the miss), stored in a journal file beside the run store, so a re-plan of the same question
resumes: its trials come back from the run store without simulating, and the search goes on.

[R] What it guarantees: the chosen mix is the cheapest *evaluated* mix that meets the target
in the search and holds on the fresh seeds, today's cluster is always evaluated and reported,
and no mix one node away from the best mixes is cheaper and meets the target. Not guaranteed: the
cheapest mix of the whole space (a mix far from every evaluated one may be cheaper).
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import BaseDistribution, IntDistribution
from optuna.trial import TrialState

from engine.power.energy import full_load_kw
from engine.study.planner_confirm import confirm
from engine.study.planner_eval import BudgetExhausted, Evaluator, Key
from engine.study.planner_result import PlanProgressFn, PlanResult, pareto_front
from engine.study.planner_spec import Mix, PlanSpec

SPARES = "spares:"  # the spares dimensions' Optuna parameters: "spares:<worker type>"
BATCH = 8
RANDOM_TRIALS = 8
FRONTIER = 3
MISS_ROUNDS = 4


def search(
    spec: PlanSpec, ev: Evaluator, journal: Path | None, on_progress: PlanProgressFn | None
) -> PlanResult:
    """Runs the five steps of the module docstring; see :func:`engine.study.planner.plan`."""
    log: list[str] = []

    def say(line: str) -> None:
        log.append(line)
        if on_progress:
            on_progress(ev.num_simulations, line)

    tuner = Tuner(spec, ev, journal)
    target = spec.target
    side = "below" if target.at_most else "above"
    what = (f"its average, seed by seed against today's cluster on the same seeds, is no worse "
            f"than today's{' by more than the margin' if target.value else ''}"
            if target.versus_today else f"its average is {side} the target")  # fmt: skip
    say(f"Target: {target.sentence()}. A mix meets it when, over its seeds, we are "
        f"{spec.confidence:.0%} sure {what}, not just on average ({len(spec.seeds)} seeds per "
        f"mix, up to {spec.max_seeds} near the target).")  # fmt: skip
    try:
        tuner.restore()
        ev.evaluate([ev.today_key()], "today")
        tuner.record([ev.today_key()], "today")
        say(_today_words(spec, ev))
        _starts(spec, ev, tuner, say)
        _sample(spec, ev, tuner, say)
        _refine(spec, ev, tuner, say)
    except BudgetExhausted:
        say(f"Stopped: the next batch would exceed the budget of {spec.max_simulations} "
            "simulations.")  # fmt: skip
    return _result(spec, ev, confirm(spec, ev, say), say, log)


class Tuner:
    """The Optuna study of one plan: every evaluated mix is a trial."""

    def __init__(self, spec: PlanSpec, ev: Evaluator, journal: Path | None) -> None:
        self.spec, self.ev = spec, ev
        self.dists: dict[str, BaseDistribution] = {
            c.worker_type: IntDistribution(c.min_nodes, c.max_nodes) for c in spec.candidates
        }
        for worker_type, bound in spec.spared():
            self.dists[SPARES + worker_type] = IntDistribution(0, bound)
        key = spec.key(ev.digest)
        storage: Any = None
        if journal is not None:
            from optuna.storages.journal import JournalFileBackend, JournalStorage

            journal.parent.mkdir(parents=True, exist_ok=True)
            storage = JournalStorage(JournalFileBackend(str(journal)))
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            seed = int(spec.key(ev.digest, engine=False)[:8], 16)  # the question's, see key()
            sampler = optuna.samplers.TPESampler(
                seed=seed, n_startup_trials=len(spec.candidates) + 2 + RANDOM_TRIALS,
                multivariate=True, constant_liar=True,
            )  # fmt: skip
        self.study = optuna.create_study(
            storage=storage, study_name=key, load_if_exists=True, sampler=sampler
        )
        self.search_done = 0  # search proposals of a mix not evaluated before
        self.search_asked = 0  # all search proposals (a re-plan goes on counting)

    def restore(self) -> None:
        """Re-reads the stored trials' mixes (from the run store; no simulation if kept)."""
        done = [t for t in self.study.trials if t.state == TrialState.COMPLETE]
        groups: dict[tuple[str, tuple[int, ...]], list[Mix]] = {}
        for t in done:
            mix = self.mix(t.params)
            phase, seeds = str(t.user_attrs.get("phase")), tuple(t.user_attrs.get("seeds", ()))
            self.search_asked += phase == "search"
            self.search_done += phase == "search" and bool(t.user_attrs.get("new"))
            if not seeds or mix in self.ev.rows:
                continue
            if t.user_attrs.get("error"):
                self.ev.restore_error(mix, phase, str(t.user_attrs["error"]))
                continue
            groups.setdefault((phase, seeds), []).append(mix)
        for (phase, seeds), mixes in groups.items():
            self.ev.evaluate(mixes, phase, list(seeds))

    def ask(self, count: int) -> list[tuple[optuna.trial.Trial, Mix]]:
        trials = [self.study.ask(self.dists) for _ in range(count)]
        return [(t, self.mix(t.params)) for t in trials]

    def mix(self, params: dict[str, Any]) -> Mix:
        """A trial's mix: node counts in candidate order, then spares per spared type if
        searched (none for a type the mix holds no node of)."""
        mix = tuple(int(params[name]) for name in self.dists)
        held = self.spec.spares(mix)
        return (*self.spec.nodes(mix), *(held[t] for t, _ in self.spec.spared()))

    def record(self, keys: list[Key], phase: str) -> None:
        """Tells the study about evaluated mixes (today's cluster outside the space is not)."""
        for key in keys:
            if isinstance(key, tuple) and key in self.ev.rows and self.spec.in_bounds(key):
                self.study.enqueue_trial(dict(zip(self.dists, key, strict=True)))
                self.tell(self.study.ask(self.dists), key, phase, new=True)

    def tell(self, trial: optuna.trial.Trial, mix: Mix, phase: str, new: bool) -> None:
        ev = self.ev
        evaluated = mix in ev.rows
        trial.set_user_attr("phase", phase)
        trial.set_user_attr("new", new)
        trial.set_user_attr("seeds", ev.seeds_of(mix) if evaluated else [])
        trial.set_user_attr("error", ev.rows[mix]["error"] if evaluated else "")
        trial.set_constraint("miss", ev.violation(mix) if evaluated else 10.0)
        self.study.tell(trial, self.spec.cost_usd_per_h(mix))


def _starts(spec: PlanSpec, ev: Evaluator, tuner: Tuner, say: Callable[[str], None]) -> None:
    """Today's mix, each type alone at its largest count, then, for each type alone that meets
    the target there, the fewest nodes of it that do (bisection on the count, all types in one
    batch per step; it assumes more nodes of one type do not hurt, which only steers the
    starts)."""
    today = spec.today_mix()
    starts: list[Key] = [today] if today is not None and spec.in_bounds(today) else []
    largest = [_largest_alone(spec, i) for i in range(len(spec.candidates))]
    alone: list[Key] = [_alone(spec, i, n) for i, n in enumerate(largest)]
    spared: list[Key] = []
    if spec.searches_spares:
        spared = [_alone(spec, i, n, bound)
                  for i, (n, bound) in enumerate(zip(largest, spec.spare_bounds(),
                                                     strict=True))]  # fmt: skip
    tuner.record(ev.evaluate(starts + alone + spared, "start"), "start")
    spares = {i: 0 if ev.meets(alone[i]) else spec.spare_bounds()[i]
              for i in range(len(spec.candidates))
              if ev.meets(alone[i]) or (spared and ev.meets(spared[i]))}  # fmt: skip
    ranges = {i: (max(c.min_nodes, 1), largest[i]) for i, c in enumerate(spec.candidates)
              if i in spares}  # fmt: skip
    while any(lo < hi for lo, hi in ranges.values()):
        mids = {i: (lo + hi) // 2 for i, (lo, hi) in ranges.items() if lo < hi}
        batch = [_alone(spec, i, n, spares[i]) for i, n in mids.items()]
        tuner.record(ev.evaluate(batch, "start"), "start")
        for i, n in mids.items():
            lo, hi = ranges[i]
            ranges[i] = (lo, n) if ev.meets(_alone(spec, i, n, spares[i])) else (n + 1, hi)
    fewest = "; ".join(_mix_words(spec, ev, _alone(spec, i, hi, spares[i]))
                       for i, (_, hi) in ranges.items())  # fmt: skip
    alone_words = "; ".join(_mix_words(spec, ev, k) for k in alone + spared)
    say(
        f"Starts: today's mix and each GPU type alone at its largest count: {alone_words}."
        + (f" Fewest nodes of one type alone that meet the target: {fewest}." if fewest else "")
    )


def _largest_alone(spec: PlanSpec, i: int) -> int:
    """The most nodes of type ``i`` alone (the others at their minimum) within its bounds and,
    with a power cap, under it at full load (its ``max_nodes`` when no count fits: the start
    is then refused as over the cap)."""
    high = spec.candidates[i].max_nodes
    if spec.power_cap_kw is None:
        return high
    low = max(spec.candidates[i].min_nodes, 1)
    fits = [
        n
        for n in range(high, low - 1, -1)
        if full_load_kw(spec.cluster(_alone(spec, i, n)), spec.power) <= spec.power_cap_kw
    ]
    return fits[0] if fits else high


def _alone(spec: PlanSpec, i: int, count: int, spares: int = 0) -> Mix:
    """Type ``i`` at ``count`` nodes, the others at their minimum, and, when the plan searches
    spares, ``spares`` spare nodes of type ``i`` if it has a spares dimension (the other types
    none)."""
    nodes = tuple(count if j == i else c.min_nodes for j, c in enumerate(spec.candidates))
    mine = spec.candidates[i].worker_type
    return (*nodes, *(spares if t == mine else 0 for t, _ in spec.spared()))


def _sample(spec: PlanSpec, ev: Evaluator, tuner: Tuner, say: Callable[[str], None]) -> None:
    before = ev.cheapest_meeting()
    while tuner.search_done < spec.search_trials and tuner.search_asked < 3 * spec.search_trials:
        batch = tuner.ask(min(BATCH, spec.search_trials - tuner.search_done))
        tuner.search_asked += len(batch)
        new = set(ev.evaluate([m for _, m in batch if spec.in_bounds(m)], "search"))
        for trial, mix in batch:
            tuner.tell(trial, mix, "search", new=mix in new)
            if mix in new:
                new.discard(mix)
                tuner.search_done += 1
    best = ev.cheapest_meeting()
    change = ("found none cheaper" if best >= before else
              f"the cheapest meeting the target now costs {best:,.2f} USD/h")  # fmt: skip
    say(f"Search: {tuner.search_done} more mixes, each proposed from what the earlier ones "
        f"showed (cheap mixes that meet the target are tried more); {change}.")  # fmt: skip


def _refine(spec: PlanSpec, ev: Evaluator, tuner: Tuner, say: Callable[[str], None]) -> None:
    checked = 0
    for step in steps(spec):
        checked += _descend(spec, ev, tuner, step)
    meeting = [k for k in ev.rows if isinstance(k, tuple) and ev.meets(k)]
    around = "the cheapest mixes meeting the target" if meeting else "the closest mixes"
    plural = "" if checked == 1 else "es"
    say(
        f"Neighbourhood check: {checked} more mix{plural} at steps of "
        f"{', then '.join(map(str, steps(spec)))} node(s) from {around} (one or two GPU types "
        "changed, or nodes exchanged for cheaper ones), until no cheaper neighbour was left."
    )


def steps(spec: PlanSpec) -> list[int]:
    """Step sizes of the neighbourhood check: an eighth of the widest bound range, halving
    down to 1 node (a pattern search, Torczon 1997, SIAM J. Optim. 7(1))."""
    span = max(c.max_nodes - c.min_nodes for c in spec.candidates)
    out, step = [], max(1, span // 8)
    while step > 1:
        out.append(step)
        step //= 2
    return [*out, 1]


def _descend(spec: PlanSpec, ev: Evaluator, tuner: Tuner, step: int) -> int:
    """Moves the frontier to cheaper neighbours ``step`` nodes away that meet the target (or,
    while none meets it, toward the target) until none is left; returns the mixes evaluated."""
    checked, misses = 0, 0
    while True:
        mixes = [k for k in ev.rows if isinstance(k, tuple) and spec.in_bounds(k)]
        meeting = sorted((k for k in mixes if ev.standing(k)), key=lambda k: (ev.cost(k), k))
        if meeting:
            frontier = meeting[:FRONTIER]
        else:
            misses += 1
            runnable = [k for k in mixes if not ev.rows[k]["error"]]
            frontier = sorted(runnable, key=lambda k: (ev.violation(k), ev.cost(k)))[:FRONTIER]
        if misses > MISS_ROUNDS:
            return checked
        todo = [n for m in frontier for n in neighbours(m, step) + exchanges(spec, m, step)
                if spec.in_bounds(n) and n not in ev.rows
                and (not meeting or spec.cost_usd_per_h(n) < ev.cost(m))]  # fmt: skip
        if not todo:
            return checked
        new = ev.evaluate(todo, "refine")
        tuner.record(new, "refine")
        checked += len(new)


def neighbours(mix: Mix, step: int = 1) -> list[Mix]:
    """Mixes ``step`` nodes away: one type +-step, or two types +-step each (bounds not
    checked)."""
    out = []
    d = len(mix)
    for i in range(d):
        for a in (-step, step):
            out.append(_step(mix, {i: a}))
            for j in range(i + 1, d):
                out += [_step(mix, {i: a, j: b}) for b in (-step, step)]
    return out


def exchanges(spec: PlanSpec, mix: Mix, step: int = 1) -> list[Mix]:
    """Mixes with ``step`` nodes of a type exchanged for as many nodes of a cheaper type as
    cost no more (``floor(node price ratio) x step``): the composition changes at about the
    same cost, which one-node steps cannot reach when the price ratio is large [R]. Spares are
    not exchanged (their price depends on the types the mix holds)."""
    price = [c.gpus_per_node * c.price_usd_per_gpu_h for c in spec.candidates]
    out = []
    for i, j in itertools.permutations(range(len(spec.candidates)), 2):
        if price[j] > 0 and price[i] > price[j]:
            out.append(_step(mix, {i: -step, j: int(price[i] // price[j]) * step}))
    return out


def _step(mix: Mix, steps: dict[int, int]) -> Mix:
    return tuple(n + steps.get(i, 0) for i, n in enumerate(mix))


def _mix_words(spec: PlanSpec, ev: Evaluator, key: Key) -> str:
    row, target = ev.rows[key], spec.target
    if row["error"]:
        over = str(row["error"]).startswith("over the power cap")
        return f"{row['mix']} {'is over the power cap' if over else 'cannot run the trace'}"
    verdict = "meets" if row["meets"] else "misses"
    return (f"{row['mix']} ({row['cost_usd_per_h']:,.2f} USD/h) averages "
            f"{target.words(row['mean'])}{_goodput_words(row)} and "
            f"{target.sure_words(row['bound'], spec.confidence)}: {verdict}")  # fmt: skip


def _goodput_words(row: dict[str, Any] | Any) -> str:
    """``", goodput 97.3%"`` with failures on (the row has goodput), else ``""``."""
    if "goodput" not in row:
        return ""
    value = row["goodput"]
    return ", goodput n/a" if math.isnan(value) else f", goodput {value:.1%}"


def _today_words(spec: PlanSpec, ev: Evaluator) -> str:
    row, target = ev.rows[ev.today_key()], spec.target
    if row["error"]:
        error = str(row["error"])
        how = "is refused" if error.startswith("over the power cap") else "cannot run the trace"
        return f"Today's cluster ({row['mix']}) {how}: {error}"
    verdict = "meets the target" if row["meets"] else "does not meet the target"
    return (f"Today's cluster, {row['mix']} ({row['cost_usd_per_h']:,.2f} USD/h): "
            f"{target.label} {target.words(row['mean'])} over {row['seeds']} seeds, and "
            f"{target.sure_words(row['bound'], spec.confidence)}{_goodput_words(row)}: "
            f"{verdict}.")  # fmt: skip


def _result(
    spec: PlanSpec, ev: Evaluator, best: Key | None, say: Callable[[str], None], log: list[str]
) -> PlanResult:
    """The answer: ``best``, the mix confirmed on fresh seeds (`engine.study.planner_confirm`),
    or None."""
    target = spec.target
    today = ev.rows.get(ev.today_key())
    if best is None and not any(ev.meets(k) for k in ev.rows):
        runnable = [k for k in ev.rows if not ev.rows[k]["error"]]
        close = min(runnable, key=ev.violation, default=None)
        tail = "" if close is None else (
            f"; the closest, {ev.rows[close]['mix']}: "
            f"{target.sure_words(ev.rows[close]['bound'], spec.confidence)}")  # fmt: skip
        say(f"No mix evaluated meets the target on all the seeds it ran{tail}.")
    elif best is not None:
        row = ev.rows[best]
        saving = ""
        if today is not None and not math.isnan(today["cost_usd_per_h"]):
            delta = today["cost_usd_per_h"] - row["cost_usd_per_h"]
            saving = f", {abs(delta):,.2f} USD/h {'below' if delta >= 0 else 'above'} today's"
        say(
            f"Chosen: {row['mix']} at {row['cost_usd_per_h']:,.2f} USD/h{saving}: "
            f"{target.label} {target.words(row['fresh_mean'])} on {row['fresh_seeds']} fresh "
            f"seeds, and {target.sure_words(row['fresh_bound'], spec.confidence)}: it meets "
            f"the target{_goodput_words(row)}."
        )
    seeds_more = "more near the target" if spec.max_seeds > len(spec.seeds) else "no more"
    fresh = int(ev.table()["fresh_seeds"].sum()) if ev.rows else 0
    say(f"{ev.num_simulations} simulations ({len(ev.rows)} clusters; {len(spec.seeds)} seeds "
        f"each, {seeds_more}; {fresh} on fresh seeds to confirm; stored runs reused).")  # fmt: skip
    tried = ev.table()
    for c in spec.candidates:
        tried[f"nodes:{c.worker_type}"] = tried[f"nodes:{c.worker_type}"].astype(int)
    pareto = pareto_front(tried, target.at_most) if len(tried) else tried
    chosen = ev.cluster(best) if best is not None else None
    return PlanResult(
        spec,
        tried,
        pareto,
        today or {},
        chosen,
        ev.rows[best] if best is not None else None,
        log,
        ev.num_simulations,
    )
