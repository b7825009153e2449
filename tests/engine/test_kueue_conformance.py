"""Kueue conformance: small scenarios written from Kueue's documented rules, each asserting which
jobs run, which are evicted (and why) and which wait right after an instant.

Sources (kubernetes-sigs/kueue, site/content/en/docs/concepts/): cluster_queue.md (nominal
quota, borrowingLimit, lendingLimit, queueingStrategy, flavorFungibility, preemption),
cohort.md (hierarchical cohorts), preemption.md (the preemption policies, "Kueue's candidate
ordering" and "the minimal set of workloads to preempt"), and the scheduler's own tests
(pkg/scheduler/scheduler_test.go, pkg/scheduler/preemption/preemption_test.go), whose cases
several tests below restate on GPUs. Every job here runs ``work_s`` = 1000 s unless it says
otherwise; the cluster is one node per GPU type, restore cost 0.
"""

from __future__ import annotations

import dataclasses

import pytest

from engine.errors import ConfigError
from engine.quota.model import Cohort, FairSharing, FlavorQuota, LocalQueue, QueueConfig
from tests.engine.kueue_cases import (
    J,
    config,
    cq,
    evicted_at,
    flavor_at,
    jobs_table,
    run,
    running_at,
)

V4 = {"v100": 4}


# --- quota: nominal, borrowing, lending (cluster_queue.md) -----------------------------------


def test_within_nominal_quota_runs_at_arrival() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c"), cq("b", ("v100", 2), cohort="c"))
    result = run(queues, jobs_table(J("a1", 0, 2, "a"), J("b1", 0, 2, "b")), V4)
    assert running_at(result, 0) == {"a1", "b1"}


def test_borrows_unused_quota_of_its_cohort() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c"), cq("b", ("v100", 2), cohort="c"))
    result = run(queues, jobs_table(J("a1", 0, 4, "a")), V4)
    assert running_at(result, 0) == {"a1"}


def test_without_a_cohort_a_queue_cannot_borrow_though_gpus_are_free() -> None:
    queues = config(cq("a", ("v100", 2)), cq("b", ("v100", 2)))
    result = run(queues, jobs_table(J("a1", 0, 2, "a"), J("a2", 1, 2, "a")), V4)
    assert running_at(result, 1) == {"a1"}
    assert running_at(result, 1000) == {"a2"}


def test_borrowing_limit_caps_what_a_queue_takes_from_the_cohort() -> None:
    queues = config(cq("a", ("v100", 2, 1, None), cohort="c"), cq("b", ("v100", 2), cohort="c"))
    result = run(queues, jobs_table(J("a1", 0, 2, "a"), J("a2", 1, 2, "a")), V4)
    assert running_at(result, 1) == {"a1"}  # a2 would make 4 > 2 nominal + 1 borrowed


def test_lending_limit_caps_what_a_queue_lends() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c"), cq("b", ("v100", 2, None, 1), cohort="c"))
    jobs = jobs_table(J("a1", 0, 2, "a"), J("a2", 1, 1, "a"), J("a3", 2, 1, "a"))
    result = run(queues, jobs, V4)
    assert running_at(result, 2) == {"a1", "a2"}  # b keeps 1 of its 2 GPUs for itself


def test_a_job_larger_than_its_queue_can_ever_hold_is_refused() -> None:
    queues = config(cq("a", ("v100", 2)), cq("b", ("v100", 2)))
    with pytest.raises(ConfigError, match=r"job 'a1' \(row 1\) needs 3 GPUs; ClusterQueue 'a'"):
        run(queues, jobs_table(J("a1", 0, 3, "a")), V4)


def test_a_job_of_an_unknown_queue_is_refused_naming_row_and_column() -> None:
    queues = config(cq("a", ("v100", 2)))
    with pytest.raises(ConfigError, match=r"job 'x1' \(row 1, column 'queue'\): queue 'nope'"):
        run(queues, jobs_table(J("x1", 0, 1, "nope")), V4)


def test_a_local_queue_feeds_its_cluster_queue() -> None:
    queues = QueueConfig(
        cluster_queues=(cq("team-a", ("v100", 2)),),
        local_queues=(LocalQueue("ml-research", "team-a", "research"),),
    )
    result = run(queues, jobs_table(J("a1", 0, 2, "ml-research"), J("a2", 1, 2, "ml-research")),
                 V4)  # fmt: skip
    assert running_at(result, 1) == {"a1"}
    assert set(result.jobs["cluster_queue"]) == {"team-a"}


def test_a_policy_that_cannot_honour_quotas_is_refused_with_those_that_can() -> None:
    queues = config(cq("a", ("v100", 4)))
    with pytest.raises(ConfigError, match="policies that can: fifo, las, srsf, srtf"):
        run(queues, jobs_table(J("a1", 0, 1, "a")), V4, policy="gavel_maxmin_agnostic")


# --- queueing strategies and priority (cluster_queue.md "Queueing strategy") ----------------


def test_strict_fifo_blocks_behind_a_head_that_does_not_fit() -> None:
    queues = config(cq("a", ("v100", 4), strategy="StrictFIFO"))
    jobs = jobs_table(J("a1", 0, 3, "a"), J("a2", 1, 2, "a"), J("a3", 2, 1, "a"))
    assert running_at(run(queues, jobs, V4), 2) == {"a1"}


def test_best_effort_fifo_admits_a_later_job_that_fits() -> None:
    queues = config(cq("a", ("v100", 4), strategy="BestEffortFIFO"))
    jobs = jobs_table(J("a1", 0, 3, "a"), J("a2", 1, 2, "a"), J("a3", 2, 1, "a"))
    assert running_at(run(queues, jobs, V4), 2) == {"a1", "a3"}


def test_higher_priority_is_admitted_first_then_arrival() -> None:
    queues = config(cq("a", ("v100", 2)))
    jobs = jobs_table(
        J("a1", 0, 2, "a"),
        J("a2", 10, 2, "a", priority=0),
        J("a3", 20, 2, "a", priority=5),
        J("a4", 30, 2, "a", priority=5),
    )
    result = run(queues, jobs, V4)  # fmt: skip
    assert running_at(result, 1000) == {"a3"}
    assert running_at(result, 2000) == {"a4"}
    assert running_at(result, 3000) == {"a2"}


def test_within_a_cycle_a_job_within_nominal_goes_before_a_borrowing_one() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c"), cq("b", ("v100", 2), cohort="c"))
    jobs = jobs_table(J("b0", 0, 2, "b"), J("b1", 10, 2, "b"), J("a1", 10, 2, "a"))
    assert running_at(run(queues, jobs, V4), 10) == {"b0", "a1"}


# --- preemption within the ClusterQueue (preemption.md) --------------------------------------


def test_within_cluster_queue_lower_priority_is_evicted_for_a_higher_one() -> None:
    queues = config(cq("a", ("v100", 2), within="LowerPriority"))
    result = run(queues, jobs_table(J("a1", 0, 2, "a"), J("a2", 10, 2, "a", priority=10)), V4)
    assert evicted_at(result, 10) == {"a1": "InClusterQueue"}
    assert running_at(result, 10) == {"a2"}


def test_within_cluster_queue_lower_priority_spares_an_equal_priority() -> None:
    queues = config(cq("a", ("v100", 2), within="LowerPriority"))
    result = run(queues, jobs_table(J("a1", 0, 2, "a"), J("a2", 10, 2, "a")), V4)
    assert evicted_at(result, 10) == {}
    assert running_at(result, 10) == {"a1"}


def _newer_equal_jobs() -> object:
    return jobs_table(J("x", 0, 1, "a", work_s=100), J("z", 0.5, 2, "a"), J("y", 1, 1, "a"))


def test_lower_or_newer_equal_priority_evicts_a_newer_job_of_equal_priority() -> None:
    queues = config(cq("a", ("v100", 2), within="LowerOrNewerEqualPriority"))
    result = run(queues, _newer_equal_jobs(), V4)  # type: ignore[arg-type]
    assert running_at(result, 1) == {"x", "y"}  # z (2 GPUs) cannot evict the older x
    assert evicted_at(result, 100) == {"y": "InClusterQueue"}  # y is newer than z
    assert running_at(result, 100) == {"z"}


def test_lower_priority_policy_never_evicts_an_equal_priority_even_if_newer() -> None:
    queues = config(cq("a", ("v100", 2), within="LowerPriority"))
    result = run(queues, _newer_equal_jobs(), V4)  # type: ignore[arg-type]
    assert evicted_at(result, 100) == {}
    assert running_at(result, 100) == {"y"}


# --- reclaim within the cohort (preemption.md) ---------------------------------------------


def _borrower(reclaim: str, b_priority: int = 10) -> tuple[QueueConfig, object]:
    queues = config(cq("a", ("v100", 2), cohort="c", reclaim=reclaim),
                    cq("b", ("v100", 2), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b1", 0, 4, "b", priority=b_priority), J("a1", 10, 2, "a"))
    return queues, jobs


def test_reclaim_any_evicts_a_borrower_of_any_priority() -> None:
    queues, jobs = _borrower("Any")
    result = run(queues, jobs, V4)  # type: ignore[arg-type]
    assert evicted_at(result, 10) == {"b1": "InCohortReclamation"}
    assert running_at(result, 10) == {"a1"}


def test_reclaim_lower_priority_spares_a_higher_priority_borrower() -> None:
    queues, jobs = _borrower("LowerPriority")
    result = run(queues, jobs, V4)  # type: ignore[arg-type]
    assert evicted_at(result, 10) == {}
    assert running_at(result, 10) == {"b1"}


def test_reclaim_lower_priority_evicts_a_lower_priority_borrower() -> None:
    queues, jobs = _borrower("LowerPriority", b_priority=-1)
    result = run(queues, jobs, V4)  # type: ignore[arg-type]
    assert evicted_at(result, 10) == {"b1": "InCohortReclamation"}


def test_reclaim_never_waits_for_the_borrower_to_finish() -> None:
    queues, jobs = _borrower("Never")
    result = run(queues, jobs, V4)  # type: ignore[arg-type]
    assert running_at(result, 10) == {"b1"}
    assert running_at(result, 1000) == {"a1"}


def test_reclaim_spares_a_queue_within_its_nominal_quota() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c", reclaim="Any"),
                    cq("b", ("v100", 2), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b1", 0, 2, "b"), J("a1", 1, 2, "a"), J("a2", 2, 2, "a"))
    result = run(queues, jobs, V4)
    assert evicted_at(result, 2) == {}  # a2 is a's own borrowing; b is within nominal
    assert running_at(result, 2) == {"a1", "b1"}


def test_candidates_from_other_queues_go_before_the_queues_own() -> None:
    queues = config(cq("a", ("v100", 4), cohort="c", within="LowerPriority", reclaim="Any"),
                    cq("b", ("v100", 0), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("alow", 0, 2, "a"), J("b1", 1, 2, "b", priority=50),
                      J("ahigh", 10, 2, "a", priority=10))  # fmt: skip
    result = run(queues, jobs, V4)
    assert evicted_at(result, 10) == {"b1": "InCohortReclamation"}
    assert running_at(result, 10) == {"alow", "ahigh"}


def test_the_most_recently_admitted_of_equal_priority_goes_first() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c", reclaim="Any"),
                    cq("b", ("v100", 2), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b1", 0, 2, "b"), J("b2", 5, 2, "b"), J("a1", 10, 2, "a"))
    assert evicted_at(run(queues, jobs, V4), 10) == {"b2": "InCohortReclamation"}


def test_lower_priority_goes_before_more_recent() -> None:
    queues = config(cq("a", ("v100", 2), cohort="c", reclaim="Any"),
                    cq("b", ("v100", 0), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b1", 0, 1, "b", priority=1), J("b2", 5, 1, "b", priority=5),
                      J("a1", 10, 1, "a"))  # fmt: skip
    assert evicted_at(run(queues, jobs, {"v100": 2}), 10) == {"b1": "InCohortReclamation"}


def test_the_victims_are_a_minimal_set() -> None:
    # candidates in order: b1 (newest, 1 GPU), then b2 (2 GPUs); removing b1 is not enough,
    # removing b2 too is; filling back b1 still fits, so only b2 goes (fillBackWorkloads)
    queues = config(cq("a", ("v100", 2), cohort="c", reclaim="Any"),
                    cq("b", ("v100", 1), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b2", 0, 2, "b"), J("b1", 5, 1, "b"), J("a1", 10, 2, "a"))
    result = run(queues, jobs, {"v100": 3})
    assert evicted_at(result, 10) == {"b2": "InCohortReclamation"}
    assert running_at(result, 10) == {"b1", "a1"}


# --- borrowWithinCohort (preemption.md "Preemption while borrowing") -----------------------


def _borrowing_preemptor(borrow_within: str, threshold: int | None = None) -> object:
    queues = config(
        cq("a", ("v100", 1), cohort="c", reclaim="Any", borrow_within=borrow_within,
           threshold=threshold),
        cq("b", ("v100", 3), cohort="c"),
    )  # fmt: skip
    jobs = jobs_table(J("b1", 0, 2, "b"), J("b2", 1, 2, "b"), J("a1", 10, 2, "a", priority=10))
    return run(queues, jobs, V4)


def test_a_borrowing_preemptor_cannot_reclaim_without_borrow_within_cohort() -> None:
    result = _borrowing_preemptor("Never")
    assert evicted_at(result, 10) == {}  # type: ignore[arg-type]
    assert running_at(result, 10) == {"b1", "b2"}  # type: ignore[arg-type]


def test_borrow_within_cohort_evicts_a_lower_priority_borrower() -> None:
    result = _borrowing_preemptor("LowerPriority")
    assert evicted_at(result, 10) == {"b2": "InCohortReclaimWhileBorrowing"}  # type: ignore[arg-type]
    assert running_at(result, 10) == {"b1", "a1"}  # type: ignore[arg-type]


def test_max_priority_threshold_protects_priorities_above_it() -> None:
    result = _borrowing_preemptor("LowerPriority", threshold=-1)
    assert evicted_at(result, 10) == {}  # type: ignore[arg-type]


# --- flavors and fungibility (cluster_queue.md "Flavor fungibility") -----------------------

VP = {"v100": 2, "p100": 2}


def test_the_next_flavor_is_tried_when_the_first_is_full() -> None:
    queues = config(cq("a", ("v100", 2), ("p100", 2)))
    result = run(queues, jobs_table(J("a1", 0, 2, "a"), J("a2", 1, 2, "a")), VP)
    assert flavor_at(result, "a1", 1) == "v100"
    assert flavor_at(result, "a2", 1) == "p100"


def test_when_can_borrow_may_stop_search_borrows_the_first_flavor() -> None:
    queues = config(cq("a", ("v100", 0), ("p100", 2), cohort="c"),
                    cq("b", ("v100", 2), ("p100", 0), cohort="c"))  # fmt: skip
    result = run(queues, jobs_table(J("a1", 0, 2, "a")), VP)
    assert flavor_at(result, "a1", 0) == "v100"


def test_when_can_borrow_try_next_flavor_prefers_a_flavor_without_borrowing() -> None:
    queues = config(cq("a", ("v100", 0), ("p100", 2), cohort="c", when_can_borrow="TryNextFlavor"),
                    cq("b", ("v100", 2), ("p100", 0), cohort="c"))  # fmt: skip
    result = run(queues, jobs_table(J("a1", 0, 2, "a")), VP)
    assert flavor_at(result, "a1", 0) == "p100"


def test_when_can_preempt_try_next_flavor_fits_elsewhere_without_eviction() -> None:
    queues = config(cq("a", ("v100", 2), ("p100", 2), within="LowerPriority"))
    jobs = jobs_table(J("a1", 0, 2, "a"), J("a2", 10, 2, "a", priority=5))
    result = run(queues, jobs, VP)
    assert evicted_at(result, 10) == {}
    assert flavor_at(result, "a2", 10) == "p100"


def test_when_can_preempt_may_stop_search_preempts_in_the_first_flavor() -> None:
    queues = config(cq("a", ("v100", 2), ("p100", 2), within="LowerPriority",
                       when_can_preempt="MayStopSearch"))  # fmt: skip
    jobs = jobs_table(J("a1", 0, 2, "a"), J("a2", 10, 2, "a", priority=5))
    result = run(queues, jobs, VP)
    assert evicted_at(result, 10) == {"a1": "InClusterQueue"}
    assert flavor_at(result, "a2", 10) == "v100"


# --- hierarchical cohorts (cohort.md) -------------------------------------------------------


def _tree(cohort_quota: int) -> QueueConfig:
    return config(
        cq("a", ("v100", 1), cohort="left"), cq("b", ("v100", 1), cohort="right"),
        cohorts=(Cohort("root"), Cohort("left", "root", (FlavorQuota("v100", cohort_quota),)),
                 Cohort("right", "root")),
    )  # fmt: skip


def test_a_queue_borrows_across_the_tree_from_a_sibling_cohort() -> None:
    result = run(_tree(0), jobs_table(J("a1", 0, 2, "a")), {"v100": 2})
    assert running_at(result, 0) == {"a1"}


def test_a_cohort_lends_its_own_quota_to_its_queues() -> None:
    jobs = jobs_table(J("b1", 0, 1, "b"), J("a1", 0, 3, "a"))
    assert running_at(run(_tree(2), jobs, {"v100": 4}), 0) == {"a1", "b1"}


# --- the policy orders each queue ------------------------------------------------------------


def test_srtf_orders_a_queue_by_remaining_time() -> None:
    queues = config(cq("a", ("v100", 1)))
    jobs = jobs_table(J("a0", 0, 1, "a"), J("long", 1, 1, "a", work_s=5000),
                      J("short", 2, 1, "a", work_s=100))  # fmt: skip
    assert running_at(run(queues, jobs, V4, policy="srtf"), 1001) == {"short"}
    assert running_at(run(queues, jobs, V4, policy="fifo"), 1001) == {"long"}


# --- fair sharing (fair_sharing.md: dominant resource share, preemption strategies) ---------


def _fair(*queues: object) -> QueueConfig:
    return dataclasses.replace(config(*queues), fair_sharing=FairSharing(enabled=True))  # type: ignore[arg-type]


def test_fair_sharing_admits_the_queue_of_lower_share_first() -> None:
    # both would borrow; classically the earlier entry wins, fair sharing takes b (1 GPU
    # borrowed after admission) before a (2)
    queues = (cq("a", ("v100", 1), cohort="c"), cq("b", ("v100", 0), cohort="c"),
              cq("l", ("v100", 3), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("a0", 0, 2, "a"), J("l0", 0, 1, "l"), J("a1", 10, 1, "a"),
                      J("b1", 10, 1, "b"))  # fmt: skip
    assert running_at(run(config(*queues), jobs, V4), 10) == {"a0", "l0", "a1"}
    assert running_at(run(_fair(*queues), jobs, V4), 10) == {"a0", "l0", "b1"}


def test_fair_sharing_reclaims_from_the_borrowing_queue() -> None:
    queues = _fair(cq("a", ("v100", 2), cohort="c", reclaim="Any"),
                   cq("b", ("v100", 2), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b1", 0, 2, "b"), J("b2", 1, 2, "b"), J("a1", 10, 2, "a"))
    result = run(queues, jobs, V4)
    assert evicted_at(result, 10) == {"b2": "InCohortFairSharing"}
    assert running_at(result, 10) == {"b1", "a1"}


def _lender_case(a_gpus: int) -> object:
    queues = _fair(cq("a", ("v100", 0), cohort="c", reclaim="Any"),
                   cq("b", ("v100", 0), cohort="c"), cq("l", ("v100", 4), cohort="c"))  # fmt: skip
    jobs = jobs_table(J("b1", 0, 2, "b"), J("b2", 1, 2, "b"), J("a1", 10, a_gpus, "a"))
    return run(queues, jobs, V4)


def test_fair_preemption_evicts_while_the_preemptor_ends_no_higher_than_the_target() -> None:
    # a's share with 2 GPUs is 500 (2 x 1000 / 4 lendable); b's after losing b2 is 500 too
    assert evicted_at(_lender_case(2), 10) == {"b2": "InCohortFairSharing"}  # type: ignore[arg-type]


def test_fair_preemption_refuses_to_leave_the_preemptor_above_the_target() -> None:
    # with 4 GPUs a's share would be 1000: above b's 500 after one eviction (first strategy)
    # and not below b's 1000 before it (second strategy): nothing is evicted
    result = _lender_case(4)
    assert evicted_at(result, 10) == {}  # type: ignore[arg-type]
    assert running_at(result, 10) == {"b1", "b2"}  # type: ignore[arg-type]
