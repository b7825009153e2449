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

**Many confirmations** [R, not corrected]: each confirmation is judged at the plan's
confidence. Up to :data:`CONFIRM_MIXES` may run, so the chance that some wrongly confirms is
larger than ``1 - c`` (at most ``CONFIRM_MIXES x (1 - c)`` by Boole's inequality). Spending
the error over the confirmations (the k-th at ``1 - (1 - c) / 2**k``, or Bonferroni's
``1 - (1 - c) / 3`` with 3 confirmations at most) was tried and left out: on the Gavel max-min
p95 grid (`tests/engine/test_planner_search.py`) both ended with no answer, every confirmed
mix's 10-seed bound being a little over the target at those levels. The explanation says how
many mixes were confirmed, so a reader sees the multiplicity.

The search's budget (``PlanSpec.max_simulations``) does not cover the confirmation: it runs
at most :data:`CONFIRM_MIXES` mixes on ``max_seeds`` fresh seeds each (and the seeds added
after a refusal, at most ``max_seeds`` per mix), so a plan runs at most
``max_simulations + CONFIRM_MIXES x max_seeds`` simulations plus those [R]. How often the
confirmed answer truly meets the target is measured by ``benchmarks/bench_plan_coverage.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from engine.study.planner_eval import TODAY, Evaluator, Key
from engine.study.planner_spec import CONFIRM_MIXES, PlanSpec

__all__ = ["CONFIRM_MIXES", "confirm", "confirm_confidence", "seeds_words"]


def seeds_words(seeds: tuple[int, ...]) -> str:
    """``"seeds 10-19"`` for a run of integers, else ``"seeds 3, 7"``."""
    if len(seeds) > 2 and seeds == tuple(range(seeds[0], seeds[-1] + 1)):
        return f"seeds {seeds[0]}-{seeds[-1]}"
    return f"seed{'s' if len(seeds) != 1 else ''} {', '.join(map(str, seeds))}"


def confirm_confidence(confidence: float, step: int) -> float:
    """The confidence of the ``step``-th confirmation (1, 2, ...): the plan's own, not corrected
    for the number of confirmations (module docstring)."""
    return confidence


def _next(ev: Evaluator) -> Key | None:
    """The cheapest mix that meets the target on the search's seeds and is not yet confirmed
    (today's cluster after a mix of equal cost), or None."""
    open_ = [k for k in ev.rows if ev.meets(k) and ev.rows[k]["confirmed"] is None]
    return min(open_, key=lambda k: (ev.cost(k), k == TODAY), default=None)


def confirm(spec: PlanSpec, ev: Evaluator, say: Callable[[str], None]) -> Key | None:
    """Confirms the mixes that meet the target in the search, cheapest first (at most
    :data:`CONFIRM_MIXES`), on the plan's fresh seeds; returns the first that holds, or None
    (none met it in the search, or each was refused)."""
    fresh = spec.fresh_seeds()
    ev.limit = math.inf  # bounded by CONFIRM_MIXES instead
    where = f"{len(fresh)} fresh seeds ({seeds_words(fresh)}, none used by the search)"
    target = spec.target
    done = 0
    while (key := _next(ev)) is not None and done < CONFIRM_MIXES:
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
                f"{CONFIRM_MIXES}, each at {level:.0%}, not corrected for their number)."
            )
            return key
        why = f" ({ev.fresh_errors[key]})" if key in ev.fresh_errors else ""
        say(f"Confirmation on {where}: {words}{why}: refused, although it met the target on "
            f"the search's seeds (bound {target.words(row['bound'])}); the next cheapest mix "
            "that met it there is confirmed.")  # fmt: skip
    if done == 0:
        return None
    more = " (more met it there and were not confirmed)" if key is not None else ""
    say(f"No mix is confirmed: the fresh seeds refused the {done} cheapest mixes that met the "
        f"target in the search{more}.")  # fmt: skip
    return None
