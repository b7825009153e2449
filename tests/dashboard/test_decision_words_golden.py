"""The decision words of the four lessons are those main said before the ranking keys moved into
the policies (issue 36): every moment "Next" steps to, and every job's story, word for word."""

from __future__ import annotations

import json

import pytest

from dashboard.lessons import LESSONS
from tests.dashboard.decision_golden import GOLDEN, lesson_words


@pytest.mark.parametrize("key", [each.key for each in LESSONS])
def test_lesson_words_match_the_recorded_ones(key: str) -> None:
    recorded = json.loads(GOLDEN.read_text())[key]
    now = json.loads(json.dumps(lesson_words(key)))  # tuples and floats as the file has them
    assert now.keys() == recorded.keys()
    for policy, words in recorded.items():
        for time_s, said in words["moments"].items():
            assert now[policy]["moments"][time_s] == said, (policy, time_s)
        assert now[policy]["stories"] == words["stories"], policy
