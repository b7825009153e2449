"""Kueue's admission fair sharing: LocalQueue usage with a half-life orders a ClusterQueue.

Written from Kueue's concept page (``site/content/en/docs/concepts/admission_fair_sharing.md``)
and ``pkg/util/admissionfairsharing/admission_fair_sharing.go`` at commit ff69552e79: usage
decays as ``consumed (1 - a) + held a`` with ``a = 1 - 0.5 ** (t / half-life)``, sampled every
``usageSamplingInterval``; each admission charges the entry penalty ``GPUs x a(interval)``;
lower usage / weight goes first; among preemption candidates of one ClusterQueue the workload
of the LocalQueue that used more goes first (``preemption/common/ordering.go``).
"""

from __future__ import annotations

import dataclasses
import math

import pytest

from engine.errors import ConfigError
from engine.quota.admission_fair_sharing import LocalQueueUsage
from engine.quota.model import FairSharing, LocalQueue, QueueConfig
from tests.engine.kueue_cases import J, cq, evicted_at, jobs_table, run, running_at

HALF_LIFE_S = 600.0
SAMPLING_S = 60.0


def test_usage_decays_by_half_each_half_life() -> None:
    usage = LocalQueueUsage(60.0, 60.0, {"a": 1.0, "heavy": 2.0, "off": 0.0})
    usage.admit("a", 4, 0.0)  # elapsed 0: nothing held yet counts; penalty 4 x 0.5
    assert usage.usage("a") == pytest.approx(2.0)
    usage.sample_all(59.0)  # no sample due before 60 s
    assert usage.usage("a") == pytest.approx(2.0)
    usage.sample_all(60.0)  # 2 x 0.5 + 4 held x 0.5
    assert usage.usage("a") == pytest.approx(3.0)
    usage.release("a", 4, 100.0)
    usage.sample_all(180.0)  # two samples with nothing held: 3 / 4
    assert usage.usage("a") == pytest.approx(0.75)
    usage.admit("heavy", 2, 0.0)  # penalty 1, weight 2
    assert usage.usage("heavy") == pytest.approx(0.5)
    usage.admit("off", 1, 0.0)
    assert usage.usage("off") == math.inf


def test_settlement_decays_over_the_part_of_an_interval() -> None:
    usage = LocalQueueUsage(60.0, 60.0, {})
    usage.admit("b", 4, 0.0)  # 2.0
    usage.admit("b", 4, 30.0)  # 2 x 0.5**0.5 + 8 x (1 - 0.5**0.5) + 4 x 0.5
    expected = 2 * 0.5**0.5 + 8 * (1 - 0.5**0.5) + 2.0
    assert usage.usage("b") == pytest.approx(expected)
    usage.sample_all(89.0)  # the next sample falls 60 s after the admission at 30 s
    assert usage.usage("b") == pytest.approx(expected)
    usage.sample_all(90.0)
    assert usage.usage("b") == pytest.approx(expected * 0.5 + 8 * 0.5)


def _two_local_queues(afs: bool = True, **preemption: str) -> QueueConfig:
    queue = dataclasses.replace(cq("shared", ("v100", 4), **preemption), admission_fair_sharing=afs)
    return QueueConfig(
        cluster_queues=(queue,),
        local_queues=(LocalQueue("lq-a", "shared"), LocalQueue("lq-b", "shared")),
        fair_sharing=FairSharing(
            admission_half_life_s=HALF_LIFE_S, admission_sampling_s=SAMPLING_S
        ),
    )


def test_the_local_queue_that_used_less_goes_first() -> None:
    """Concept page: "Workloads from LocalQueues with lower historical usage get admitted before
    those from high-usage queues"; without it, arrival order."""
    jobs = jobs_table(
        J("a1", 0, 4, "lq-a"), J("a2", 10, 4, "lq-a"), J("b1", 20, 4, "lq-b"),
    )  # fmt: skip
    assert running_at(run(_two_local_queues(), jobs, {"v100": 4}), 1000) == {"b1"}
    assert running_at(run(_two_local_queues(afs=False), jobs, {"v100": 4}), 1000) == {"a2"}


def test_usage_forgotten_over_half_lives_gives_arrival_order_back() -> None:
    """lq-a used the cluster long ago, lq-b just now: lq-a's job goes first although it
    arrived later."""
    jobs = jobs_table(
        J("a0", 0, 4, "lq-a", work_s=100), J("b0", 6000, 4, "lq-b", work_s=500),
        J("b1", 6010, 4, "lq-b"), J("a1", 6020, 4, "lq-a"),
    )  # fmt: skip
    assert running_at(run(_two_local_queues(), jobs, {"v100": 4}), 6500) == {"a1"}


def test_preemption_evicts_from_the_local_queue_that_used_more() -> None:
    """ordering.go: candidates of one ClusterQueue from two LocalQueues, the higher usage first
    (before Kueue's newest-admission rule, which would pick b1)."""
    jobs = jobs_table(
        J("a0", 0, 4, "lq-a", work_s=500), J("a1", 500, 2, "lq-a", work_s=5000),
        J("b1", 600, 2, "lq-b", work_s=5000), J("h", 700, 2, "lq-b", priority=10),
    )  # fmt: skip
    afs = run(_two_local_queues(within="LowerPriority"), jobs, {"v100": 4})
    assert evicted_at(afs, 700) == {"a1": "InClusterQueue"}
    plain = run(_two_local_queues(afs=False, within="LowerPriority"), jobs, {"v100": 4})
    assert evicted_at(plain, 700) == {"b1": "InClusterQueue"}


def test_bad_settings_name_their_field() -> None:
    config = _two_local_queues()
    with pytest.raises(ConfigError, match="usageSamplingInterval must be > 0"):
        dataclasses.replace(
            config, fair_sharing=FairSharing(admission_half_life_s=1.0, admission_sampling_s=0.0)
        ).check()
    with pytest.raises(ConfigError, match="LocalQueue 'lq-a': fairSharing.weight must be >= 0"):
        dataclasses.replace(
            config, local_queues=(LocalQueue("lq-a", "shared", fair_weight=-1),)
        ).check()
