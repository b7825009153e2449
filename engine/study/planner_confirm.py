"""Confirming the planner's answer on fresh seeds: the stage after the search
(`engine.study.planner_search`).

The search may use seeds as it likes, and it favours mixes whose seeds were lucky twice: it
adds seeds to a mix only until its bound meets the target, and it keeps the cheapest mix that
met it. So a mix's search bound does not carry the stated confidence. The answer is therefore
judged again on seeds the search never used (``PlanSpec.fresh_seeds``: ``max_seeds`` of them,
the integers after the largest seed the search may use), by the same one-sided bound at the
plan's confidence, on those fresh seeds alone [R: a hold-out confirmation, the split of
selection and inference of e.g. Cox, "A note on data-splitting for the evaluation of
significance levels", Biometrika 62(2), 1975]. The mixes that met the target in the search
are confirmed cheapest first; one the fresh seeds refuse is reported as refused and the next
is confirmed, until one holds (the answer) or none is left (no answer). Every mix is confirmed
on the same fresh seeds, so they are compared on the same jobs.

The search's budget (``PlanSpec.max_simulations``) does not cover the confirmation: it runs
at most :data:`CONFIRM_MIXES` mixes on ``max_seeds`` fresh seeds each, so a plan runs at most
``max_simulations + CONFIRM_MIXES x max_seeds`` simulations [R]. How often the confirmed answer
truly meets the target is measured by ``benchmarks/bench_plan_coverage.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.study.planner_eval import TODAY, Evaluator, Key
from engine.study.planner_spec import PlanSpec

CONFIRM_MIXES = 10


def seeds_words(seeds: tuple[int, ...]) -> str:
    """``"seeds 10-19"`` for a run of integers, else ``"seeds 3, 7"``."""
    if len(seeds) > 2 and seeds == tuple(range(seeds[0], seeds[-1] + 1)):
        return f"seeds {seeds[0]}-{seeds[-1]}"
    return f"seed{'s' if len(seeds) != 1 else ''} {', '.join(map(str, seeds))}"


def confirm(spec: PlanSpec, ev: Evaluator, say: Callable[[str], None]) -> Key | None:
    """Confirms the mixes that met the target in the search, cheapest first (today's cluster
    after a mix of equal cost; at most :data:`CONFIRM_MIXES`), on the plan's fresh seeds;
    returns the first that holds, or None (none met it in the search, or each was refused)."""
    passed = sorted((k for k in ev.rows if ev.meets(k)), key=lambda k: (ev.cost(k), k == TODAY))
    if not passed:
        return None
    fresh = spec.fresh_seeds()
    ev.limit = math.inf  # bounded by CONFIRM_MIXES instead
    where = f"{len(fresh)} fresh seeds ({seeds_words(fresh)}, none used by the search)"
    target = spec.target
    for key in passed[:CONFIRM_MIXES]:
        ev.confirm(key, fresh)
        row = ev.rows[key]
        words = (f"{row['mix']} ({row['cost_usd_per_h']:,.2f} USD/h): {target.label} "
                 f"{target.words(row['fresh_mean'])}, "
                 f"bound {target.words(row['fresh_bound'])}")  # fmt: skip
        if row["confirmed"]:
            say(f"Confirmation on {where}: {words}: confirmed.")
            return key
        why = f" ({ev.fresh_errors[key]})" if key in ev.fresh_errors else ""
        say(f"Confirmation on {where}: {words}{why}: refused, although it met the target on "
            f"the search's seeds (bound {target.words(row['bound'])}); the next cheapest mix "
            "that met it there is confirmed.")  # fmt: skip
    more = len(passed) - CONFIRM_MIXES
    say("No mix is confirmed: the fresh seeds refused "
        + (f"the {CONFIRM_MIXES} cheapest mixes that met the target in the search ({more} more "
           "met it there and were not confirmed)." if more > 0 else
           "every mix that met the target in the search."))  # fmt: skip
    return None
