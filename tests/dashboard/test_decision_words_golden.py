"""The decision words of the four lessons are those main said before the ranking keys moved into
the policies (issue 36): every moment "Next" steps to, and every job's story, word for word."""

from __future__ import annotations

import json

import pytest

from dashboard.lessons import LESSONS
from tests.dashboard.decision_golden import GOLDEN, lesson_words

RECORDED = sorted(json.loads(GOLDEN.read_text()))  # the lessons main had then


def test_the_recorded_lessons_are_still_offered() -> None:
    assert set(RECORDED) <= {each.key for each in LESSONS}
    assert len(RECORDED) == 4


@pytest.mark.parametrize("key", RECORDED)
def test_lesson_words_match_the_recorded_ones(key: str) -> None:
    recorded = json.loads(GOLDEN.read_text())[key]
    now = json.loads(json.dumps(lesson_words(key)))  # tuples and floats as the file has them
    assert now.keys() == recorded.keys()
    for policy, words in recorded.items():
        for time_s, said in words["moments"].items():
            assert now[policy]["moments"][time_s] == said, (policy, time_s)
        assert now[policy]["stories"] == words["stories"], policy
