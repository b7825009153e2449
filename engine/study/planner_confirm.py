"""Confirming the planner's answer on fresh seeds: the stage after the search
(`engine.study.planner_search`).

The search may use seeds as it likes, and it favours mixes whose seeds were lucky twice: it
adds seeds to a mix only until its bound meets the target, and it keeps the cheapest mix that
met it. So a mix's search bound does not carry the stated confidence. The answer is therefore
judged again on seeds the search never used (``PlanSpec.fresh_seeds``: ``max_seeds`` of them,
the integers after the largest seed the search may use), by the same one-sided bound at the
plan's confidence, on those fresh seeds alone [R: a hold-out confirmation, the split of
selection and inference of e.g. Cox, "A note on data-splitting for the evaluation of
significance levels", Biometrika 62(2), 1975]. The mixes that meet the target in the search
are confirmed cheapest first; one the fresh seeds refuse is reported as refused and the next
is confirmed, until one holds (the answer) or none is left (no
answer). Every mix is confirmed on the same fresh seeds, so they are compared on the same jobs.

**More seeds for the cheaper mixes that could still win** [R]: the search adds seeds only
to mixes cheaper than the cheapest one already meeting the target, so once a cheap lucky mix
met it, dearer mixes stay at the plan's 3 seeds, and after its refusal a cheap mix tried on 3
seeds may lose to a dearer one by the luck of its 3 (on the Gavel max-min p95 grid of
`tests/engine/test_planner_search.py` eight mixes between 5.92 and 10.44 USD/h averaged under
the target on 3 seeds, and the plan answered today's mix at 10.44). So before a mix is
confirmed, every cheaper mix whose mean over its seeds meets the target (its bound does not)
and that could still win (:meth:`Evaluator.on_trend`: the bound its mean and spread would
give on ``max_seeds`` seeds meets the target) gets search seeds by the search's own rule
(:meth:`Evaluator.add_seeds`, 2 at a time, the same seeds for every mix), each until it
meets the target, is clearly out (off that trend, or its good-side bound misses), reaches
``max_seeds``, or a cheaper one met it; the cheapest that meets the target then is the
candidate. **The candidate's screen**: it runs on all ``max_seeds`` search seeds (a fixed
sample, :meth:`Evaluator.pair`) and is confirmed only if it still meets the target there; a mix
whose first seeds were lucky is then dropped on search seeds, not on fresh ones, where each
refusal costs ``max_seeds`` runs and halves the error left for the next confirmation. Its
confidence is still stated from the fresh seeds alone. Only search seeds are
added, never fresh ones, and no new mix is tried (an earlier neighbourhood check after each
refusal let the Philly FIFO 4 h plan find ten lucky mixes and end with no answer). Not solved:
a cheap mix the search never tried (Gavel's 1 V100 + 3 P100 nodes, 8.12 USD/h) stays untried.
An earlier rule ran every such cheaper mix on all ``max_seeds`` search seeds too: on the
Philly FIFO 4 h plan (`benchmarks/bench_study.py --case plan`) those runs were 140 of its 707
simulations; now 50 of its 617 (the answer 213.88 USD/h, was 213.24). Without the screen, a
replay of that plan (its search let past its budget) had ten lucky candidates refused one
after another on the fresh seeds and ended with no answer.

**Many confirmations** (issue 34): the mixes are confirmed one after another until one holds,
so the answer is wrong when any confirmation of a mix that truly misses the target holds. The
k-th confirmation is therefore judged at ``1 - (1 - c) / 2**k`` (97.5%, 98.75%, ... for a plan
at 95%), an alpha-spending rule: the errors spent sum to less than ``1 - c`` whatever the
number of confirmations run (a Bonferroni test with weights ``2**-k`` fixed in advance, by
Boole's inequality) [R: the weights], so "we are 95% sure" holds of the answer, not of each
confirmation. On that Gavel grid the plan now answers 1 V100 + 3 P100 + 2 K80 nodes (9.20 USD/h)
at its fifth confirmation, judged at 99.84%.

The search's budget (``PlanSpec.max_simulations``) does not cover the confirmation: it runs
at most :data:`CONFIRM_MIXES` mixes on ``max_seeds`` fresh seeds each (and the seeds added
to cheaper mixes, at most ``max_seeds`` search seeds per mix), so a plan runs at most
``max_simulations + CONFIRM_MIXES x max_seeds`` simulations plus those [R]. How often the
confirmed answer truly meets the target is measured by ``benchmarks/bench_plan_coverage.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.study.planner_eval import TODAY, Evaluator, Key
from engine.study.planner_spec import CONFIRM_MIXES, PlanSpec
from engine.study.planner_target import percent

__all__ = ["CONFIRM_MIXES", "confirm", "confirm_confidence", "seeds_words"]


def seeds_words(seeds: tuple[int, ...]) -> str:
    """``"seeds 10-19"`` for a run of integers, else ``"seeds 3, 7"``."""
    if len(seeds) > 2 and seeds == tuple(range(seeds[0], seeds[-1] + 1)):
        return f"seeds {seeds[0]}-{seeds[-1]}"
    return f"seed{'s' if len(seeds) != 1 else ''} {', '.join(map(str, seeds))}"


def confirm_confidence(confidence: float, step: int) -> float:
    """The confidence of the ``step``-th confirmation (1, 2, ...): ``1 - (1 - c) / 2**step``,
    so all confirmations together keep the plan's confidence ``c`` (module docstring)."""
    return 1 - (1 - confidence) / 2**step


def _next(ev: Evaluator) -> Key | None:
    """The cheapest mix that meets the target on the search's seeds and is not yet confirmed
    (today's cluster after a mix of equal cost), or None."""
    open_ = [k for k in ev.rows if ev.meets(k) and ev.rows[k]["confirmed"] is None]
    return min(open_, key=lambda k: (ev.cost(k), k == TODAY), default=None)


def _rivals(ev: Evaluator, key: Key, done: set[Key]) -> list[Key]:
    """The mixes cheaper than ``key`` that ran, are not yet confirmed or refused, and whose
    mean meets the target although their bound does not, and that could still meet it
    (:meth:`Evaluator.on_trend`): they may be no worse than ``key``, only less tried; leaving
    out those in ``done`` (given their seeds already)."""
    target = ev.spec.target
    return [
        k for k, row in ev.rows.items()
        if k not in done and ev.cost(k) < ev.cost(key) and not row["error"]
        and not row["meets"] and row["confirmed"] is None and target.meets(float(row["mean"]))
        and ev.on_trend(k)
    ]  # fmt: skip


def candidate(ev: Evaluator, say: Callable[[str], None]) -> Key | None:
    """The next mix to confirm: the cheapest that meets the target on the search's seeds, after
    every cheaper mix that could still win got more search seeds (:func:`_rivals`) and it met
    the target on all ``max_seeds`` search seeds (module docstring); None if no mix is left."""
    done: set[Key] = set()
    while (key := _next(ev)) is not None:
        rivals = _rivals(ev, key, done)
        if rivals:
            _extend(ev, key, rivals, say)
            done.update(rivals)
        elif len(ev.values.get(key, {})) < ev.spec.max_seeds:
            _screen(ev, key, say)
        else:
            return key
    return None


def _extend(ev: Evaluator, key: Key, rivals: list[Key], say: Callable[[str], None]) -> None:
    """More search seeds for the ``rivals`` of ``key`` while they could still win."""
    before = ev.num_simulations
    ev.add_seeds(rivals, trend=True)
    passed = [ev.rows[k]["mix"] for k in rivals if ev.meets(k)]
    verdict = (f"{', '.join(passed)} now meet{'s' if len(passed) == 1 else ''} it."
               if passed else "none meets it.")  # fmt: skip
    say(f"Before confirming {ev.rows[key]['mix']} ({ev.cost(key):,.2f} USD/h), "
        f"{len(rivals)} cheaper mix{'es' if len(rivals) != 1 else ''} whose average met the "
        f"target and could still meet it on {ev.spec.max_seeds} seeds got more search seeds "
        f"({ev.num_simulations - before} simulations, up to {ev.spec.max_seeds} seeds "
        f"each): {verdict}")  # fmt: skip


def _screen(ev: Evaluator, key: Key, say: Callable[[str], None]) -> None:
    """Runs ``key`` on all ``max_seeds`` search seeds (a fixed sample) before it is confirmed."""
    before, count = ev.num_simulations, ev.spec.max_seeds
    ev.pair([key], count)
    row, target = ev.rows[key], ev.spec.target
    verdict = "still meets the target" if ev.meets(key) else "misses the target there"
    say(f"Before confirming {row['mix']} ({ev.cost(key):,.2f} USD/h), it ran on all {count} "
        f"search seeds ({ev.num_simulations - before} simulations): "
        f"{target.sure_words(row['bound'], ev.spec.confidence)}: {verdict}.")  # fmt: skip


def confirm(spec: PlanSpec, ev: Evaluator, say: Callable[[str], None]) -> Key | None:
    """Confirms the mixes that meet the target in the search, cheapest first (at most
    :data:`CONFIRM_MIXES`), on the plan's fresh seeds; returns the first that holds, or None
    (none met it in the search, or each was refused)."""
    fresh = spec.fresh_seeds()
    ev.limit = math.inf  # bounded by CONFIRM_MIXES instead
    where = f"{len(fresh)} fresh seeds ({seeds_words(fresh)}, none used by the search)"
    target = spec.target
    done = 0
    while done < CONFIRM_MIXES and (key := candidate(ev, say)) is not None:
        done += 1
        level = confirm_confidence(spec.confidence, done)
        ev.confirm(key, fresh, level)
        row = ev.rows[key]
        words = (f"{row['mix']} ({row['cost_usd_per_h']:,.2f} USD/h): {target.label} "
                 f"{target.words(row['fresh_mean'])}, "
                 f"{target.sure_words(row['fresh_bound'], level)}")  # fmt: skip
        if row["confirmed"]:
            say(
                f"Confirmation on {where}: {words}: confirmed (confirmation {done} of at most "
                f"{CONFIRM_MIXES}, at {percent(level)}: the k-th is judged at 1 - "
                f"{1 - spec.confidence:.0%}/2^k, so together they keep "
                f"{spec.confidence:.0%})."
            )
            return key
        why = f" ({ev.fresh_errors[key]})" if key in ev.fresh_errors else ""
        say(f"Confirmation on {where}: {words}{why}: refused, although it met the target on "
            f"the search's seeds (bound {target.words(row['bound'])}); the next cheapest mix "
            "that met it there is confirmed.")  # fmt: skip
    if done == 0:
        return None
    more = " (more met it there and were not confirmed)" if _next(ev) is not None else ""
    say(f"No mix is confirmed: the fresh seeds refused the {done} cheapest mixes that met the "
        f"target in the search{more}.")  # fmt: skip
    return None
