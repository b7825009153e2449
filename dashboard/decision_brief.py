"""A decision in brief: what a policy just did in a line or two, for Step through's boxes.

The full words (:meth:`dashboard.decision_words.Explainer.moment`) can run to a thousand
characters (Tiresias LAS starting four promoted jobs at once, Gavel moving four jobs), which no
box of a four-column view on a 1280 x 720 projector shows whole. The brief keeps what a class
compares across the columns, who was preempted for whom and by which ranking key, who
started, moved, completed or waits and why, and leaves placements, rates and the policy's
rule to the full words, one click away [R].
"""

from __future__ import annotations

from dashboard.decision_words import Explainer, job_names, key_words

MOST_NAMED = 6
"""Job ids named in one list before "and N more" [R]: a list stays within two lines."""
MOST_KEYS = 2
"""Distinct ranking keys said for the jobs a preemption made room for; more, names only [R]."""


def brief(explainer: Explainer, at: float) -> str:
    """The decision ``explainer``'s policy made at ``at`` (s; a time its log has) in short
    sentences: ``"Preempted big: 1.3 GPU-h attained, queue 2; for s1, s2, s3 and s4: 0.00
    GPU-h attained, queue 1. long waits: no room."`` (the key without its bracketed asides)."""
    rows = explainer.replay.rows_at(at)
    jobs = {e: list(g["job_id"].astype(str)) for e, g in rows.groupby("event", sort=False)}
    moved = jobs.get("migrated", [])
    started = [j for j in jobs.get("started", []) if j not in moved]
    arrived = [j for j in jobs.get("arrived", []) if j not in jobs.get("started", [])]
    lines = [_said(jobs.get("completed", []), "completed"), _said(arrived, "arrived")]
    victims = jobs.get("preempted", [])
    if victims:
        lines.append(_preempted(explainer, victims, started, at))
    elif started:
        lines.append(f"Started {names(started)}.")
    if moved:
        lines.append(f"Moved {names(moved)} to other GPUs.")
    waiting = rows[rows["event"] == "waiting"]
    for reason, group in waiting.groupby("reason", sort=False):
        waiters = list(group["job_id"].astype(str))
        why = f": {reason}{_blocked(explainer, waiters, at) if reason == 'lower priority' else ''}"
        lines.append(_said(waiters, "waits", "wait", why))
    return " ".join(line for line in lines if line)


def _blocked(explainer: Explainer, waiters: list[str], at: float) -> str:
    """``", behind big (head-of-line blocking)"`` when the policy blocks behind the head of its
    queue (:meth:`Explainer.blocking_head`), else ``""``."""
    head = explainer.blocking_head(waiters, at)
    return "" if head is None else f", behind {head.job_id} (head-of-line blocking)"


def _preempted(explainer: Explainer, victims: list[str], started: list[str], at: float) -> str:
    text = f"Preempted {_keyed(explainer, victims, at)}"
    if started:
        return f"{text}; for {_keyed(explainer, started, at)}."
    return f"{text} (no job took its GPUs at once)."


def _keyed(explainer: Explainer, jobs: list[str], at: float) -> str:
    """``jobs`` with their ranking keys, jobs of one key named together: ``"s1 and s2: 0.00
    GPU-h attained, queue 1"``; names alone past :data:`MOST_KEYS` keys."""
    by_key: dict[str, list[str]] = {}
    for job in jobs:
        terms = tuple(t for t in explainer.key_terms(job, at) if not t.aside)
        by_key.setdefault(key_words(terms), []).append(job)
    if len(by_key) > MOST_KEYS:
        return names(jobs)
    return "; ".join(f"{names(group)}{key}" for key, group in by_key.items())


def _said(jobs: list[str], one: str, many: str | None = None, tail: str = "") -> str:
    """``"Job a completed."`` / ``"Jobs a and b completed."`` ("" for no jobs)."""
    if not jobs:
        return ""
    verb = one if len(jobs) == 1 or many is None else many
    return f"Job{'' if len(jobs) == 1 else 's'} {names(jobs)} {verb}{tail}."


def names(jobs: list[str]) -> str:
    """``["a", "b", "c"] -> "a, b and c"``; past :data:`MOST_NAMED`, ``"a, ..., f and 4
    more"``."""
    rest = len(jobs) - MOST_NAMED
    return f"{', '.join(jobs[:MOST_NAMED])} and {rest} more" if rest > 0 else job_names(jobs)
