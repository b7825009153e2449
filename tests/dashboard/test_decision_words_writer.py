"""The one writer of every policy's ranking key (:func:`dashboard.decision_words.key_words`):
words from the terms' units alone."""

from __future__ import annotations

from dashboard.decision_words import key_words
from engine.policies.explain import KeyTerm


def test_the_dashboards_writer_reads_terms_by_unit_alone() -> None:
    """The words of terms no policy in the lessons gives: a ratio, a count, asides after the
    main terms, and a key of asides alone."""
    terms = (
        KeyTerm("promoted at {}", 3725.0, "moment_s", aside=True),
        KeyTerm("{} GPU-h attained", 5400.0, "gpu_s"),
        KeyTerm("sensitivity {}×", 1.234, "ratio"),
        KeyTerm("queue {}", 3, "count"),
    )
    assert (
        key_words(terms) == ": 1.5 GPU-h attained, sensitivity 1.23×, queue 3 (promoted at 1:02:05)"
    )
    assert key_words(terms[:1]) == ": (promoted at 1:02:05)"
    assert key_words(()) == ""
