"""Step through's brief decision words (dashboard.decision_brief) on the lessons, read against
their decision logs by hand: who was preempted for whom and by which key, who waits and why."""

from __future__ import annotations

from dashboard.decision_brief import brief, names
from tests.dashboard.test_step_through import explainers


def _brief(key: str, policy: str, time_s: float) -> str:
    explainer = explainers(key)[policy]
    at, _ = explainer.moment(time_s)
    assert at is not None
    return brief(explainer, at)


def test_a_preemption_names_victim_and_beneficiaries_with_their_keys_once() -> None:
    # at 0:30:00 LAS preempts big (1.3 GPU-h, queue 2) for the four promoted 1-GPU jobs,
    # which share one key, and long (queue 2, 1.0 GPU-h); the full words run to 1,041 chars
    said = _brief("fifo_hol", "Tiresias LAS", 1900.0)
    assert said == (
        "Preempted big: 1.3 GPU-h attained, queue 2; for s1, s2, s3 and s4: 0.00 GPU-h "
        "attained, queue 1; long: 1.0 GPU-h attained, queue 2. Job big waits: no room."
    )
    _, full = explainers("fifo_hol")["Tiresias LAS"].moment(1900.0)
    assert len(said) < len(" ".join(full)) / 5


def test_fifo_says_whom_the_small_jobs_wait_behind() -> None:
    assert _brief("fifo_hol", "FIFO", 1900.0) == (
        "Job mid completed. Jobs s1, s2, s3 and s4 wait: lower priority, behind big "
        "(head-of-line blocking)."
    )


def test_migrations_and_keyless_preemptions_name_the_jobs() -> None:
    assert _brief("v100", "Gavel max-min (agnostic)", 3600.0) == (
        "Preempted res1; for res3. Moved rec1, rec2 and res2 to other GPUs. "
        "Job res1 waits: no room."
    )
    assert _brief("one_rack", "Strict consolidation", 1300.0) == (
        "Job short completed. Job tf8 waits: held for consolidation."
    )


def test_a_long_list_of_jobs_is_cut_after_six_names() -> None:
    assert names([f"j{i}" for i in range(9)]) == "j0, j1, j2, j3, j4, j5 and 3 more"
    assert names(["a", "b"]) == "a and b"
