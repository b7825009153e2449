"""The decision words of the four lessons, for a golden file recorded from main's code before the
seam moved the ranking keys into the policies (issue 36), and for the test that compares them.

``python -m tests.dashboard.decision_golden`` writes ``data/lesson_decision_words.json``; run it
only to record words that changed on purpose, and say why in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

from dashboard.components.explain_job import job_story
from dashboard.decision_words import Explainer
from dashboard.lessons import LESSONS, lesson
from dashboard.replay import Replay
from engine.allocation.layout import NodeLayout
from engine.scenario import run_scenario, scenario_matrix

GOLDEN = Path(__file__).parent / "data" / "lesson_decision_words.json"


def lesson_words(key: str) -> dict[str, dict[str, object]]:
    """Policy -> its words at every moment "Next" steps to (and 1 s before it) and each job's
    story (the Explain-a-job sentences) in lesson ``key``."""
    chosen = lesson(key)
    result = run_scenario(chosen.config(), upload=chosen.upload)
    layout, matrix = NodeLayout.of(result.config.cluster), scenario_matrix(result.config)
    round_s = result.config.rounds.round_duration_s
    explainers = [
        Explainer(Replay(sim, layout, round_s), spec, matrix)
        for sim, spec in zip(result.results, result.config.policies, strict=True)
    ]
    times = sorted({float(t) for e in explainers for t in e.replay.events["time_s"]})
    words: dict[str, dict[str, object]] = {}
    for explainer in explainers:
        moments = {}
        for time_s in sorted({*times, *(max(0.0, t - 1.0) for t in times)}):
            at, lines = explainer.moment(time_s)
            moments[f"{time_s:g}"] = [at, lines]
        log = explainer.replay.log
        stories = {
            job: job_story(log, job, explainer) for job in sorted(explainer.replay.arrival_s)
        }
        words[explainer.name] = {"moments": moments, "stories": stories}
    return words


def all_words() -> dict[str, dict[str, dict[str, object]]]:
    """Lesson key -> :func:`lesson_words`."""
    return {each.key: lesson_words(each.key) for each in LESSONS}


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(all_words(), indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")
