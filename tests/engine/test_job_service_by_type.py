"""A job's GPU-seconds by worker type (issue 37): the first type in two fields, the others in a
dict made on demand, give the jobs table's ``main_worker_type`` as a dict per job gave it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.state import JobState

SEGMENTS = st.lists(
    st.tuples(st.sampled_from(["V100", "P100", "K80"]), st.sampled_from([0.0, 1.0, 2.5, 4.0])),
    max_size=12,
)


def job() -> JobState:
    return JobState(0, "j", 0.0, "ResNet-18", 1, 100.0, 1.0, {"V100": 1.0}, 1e6)


def reference_main_type(segments: list[tuple[str, float]]) -> str:
    """The rule as the dict per job wrote it: most GPU-seconds, the first met of equals."""
    per_type: dict[str, float] = {}
    for worker_type, gpu_s in segments:
        per_type[worker_type] = per_type.get(worker_type, 0.0) + gpu_s
    best, best_gpu_s, found = "", 0.0, False
    for worker_type, gpu_s in per_type.items():
        if not found or gpu_s > best_gpu_s:
            best, best_gpu_s, found = worker_type, gpu_s, True
    return best


@settings(max_examples=300, deadline=None)
@given(SEGMENTS)
def test_main_worker_type_matches_the_dict_rule(segments: list[tuple[str, float]]) -> None:
    state = job()
    for worker_type, gpu_s in segments:
        state.add_service(worker_type, gpu_s)
    assert state.main_worker_type() == reference_main_type(segments)


def test_hand_computed() -> None:
    """V100 2 + 1 = 3 GPU-s, then K80 3 (a tie keeps V100), then K80 0.5 more wins."""
    state = job()
    assert state.main_worker_type() == ""
    state.add_service("V100", 2.0)
    assert state.other_types_gpu_s is None  # one type: no dict made
    state.add_service("V100", 1.0)
    state.add_service("K80", 3.0)
    assert state.main_worker_type() == "V100"
    state.add_service("K80", 0.5)
    assert state.main_worker_type() == "K80"
    assert (state.first_type, state.first_type_gpu_s) == ("V100", 3.0)
