"""Packing LAS (issue 35, ``las_packing``): Tiresias LAS that packs waiting jobs onto running
jobs' GPUs, against completion times computed by hand on one or two V100s (no restore cost,
360-s rounds), stage times in ms per iteration as in :mod:`tests.engine.test_sharing_runs`."""

from __future__ import annotations

import pytest

from engine.config import SharingConfig
from engine.errors import ConfigError
from engine.policies.base import get_policy
from engine.policies.las_packing.packing import Packer
from tests.engine.test_sharing_runs import COMM_BOUND, COMPUTE_BOUND, DATA_BOUND, run, trace

SLICING = SharingConfig(model="time_slicing")


def test_two_jobs_on_one_gpu_time_slice_when_the_second_would_wait() -> None:
    # the queue (job 1) is longer than the free GPUs allow: it joins job 0, each at half speed,
    # 100 iterations x 6 s x 2 = 1,200 s for both
    data = trace(("c", 100, COMPUTE_BOUND), ("d", 100, COMPUTE_BOUND))
    packed = run(data, "las_packing", k=2, sharing=SLICING)
    assert packed["completion_s"].tolist() == pytest.approx([1200.0, 1200.0])
    # k = 1: LAS, one after the other (600 s of service is under the 3,600 GPU-s threshold)
    alone = run(data, "las_packing", sharing=SLICING)
    assert alone["completion_s"].tolist() == pytest.approx([600.0, 1200.0])
    assert alone["completion_s"].tolist() == run(data, "las")["completion_s"].tolist()


def test_complementary_jobs_interleave_at_full_speed() -> None:
    # the trace has stage times and the scenario's model is interleaving: Muri's 6-s cycle of a
    # data-bound and a comm-bound job, so each advances one iteration per 6 s, as alone
    data = trace(("a", 100, DATA_BOUND), ("b", 100, COMM_BOUND))
    jobs = run(data, "las_packing", k=2)
    assert jobs["completion_s"].tolist() == pytest.approx([600.0, 600.0])


def test_a_group_is_unpacked_at_the_round_after_the_queue_empties() -> None:
    # both at 12 s an iteration: job 0's 50 end at 600 s, job 1 has 50 of 100. Job 1 keeps its
    # half speed until the round boundary at 720 s (10 more: 60), then runs alone: 40 x 6 s
    data = trace(("c", 50, COMPUTE_BOUND), ("d", 100, COMPUTE_BOUND))
    jobs = run(data, "las_packing", k=2, sharing=SLICING)
    assert jobs["completion_s"].tolist() == pytest.approx([600.0, 960.0])


def test_at_most_k_jobs_share_and_the_rest_wait() -> None:
    # k = 2 on one GPU: jobs 0 and 1 share (1,200 s); job 2 waits, then runs alone: 1,800 s
    data = trace(*(("c", 100, COMPUTE_BOUND),) * 3)
    jobs = run(data, "las_packing", k=2, sharing=SLICING)
    assert jobs["completion_s"].tolist() == pytest.approx([1200.0, 1200.0, 1800.0])


def test_packing_las_is_a_sharing_policy_in_its_group() -> None:
    cls = get_policy("las_packing")
    assert cls.shares_gpus and cls.group == "Shared GPUs"
    for k in (0, 1.5):
        with pytest.raises(ConfigError, match=r"k \(jobs sharing the same GPUs\)"):
            cls.Params(k=k)


def test_a_job_joins_only_groups_on_a_worker_type_it_runs_on() -> None:
    # job 9 shared host 0's GPUs before, but host 0 now runs on a type job 9 has no speed on:
    # it joins host 1 (the only open group on its type), never host 0
    packer = Packer(2, None)
    packer.add_host("k80", 1, 0, 0)
    packer.add_host("v100", 1, 1, 1)
    group = packer.join(9, 1, ["v100"], host=0)
    assert group is not None and group.members == [1, 9]
    assert packer.join(8, 1, ["v100"], host=-1) is None  # host 1's group is full at k = 2
    assert packer.open_by_size == {1: 1}  # host 0's group is still open


def test_time_slicing_joins_the_emptiest_group_of_lowest_priority() -> None:
    packer = Packer(3, None)
    for rank in range(3):
        packer.add_host("v100", 1, rank, rank)
    joined = [packer.join(10 + i, 1, ["v100"], host=-1) for i in range(4)]
    # ranks 2, 1, 0 get one job each (the least served host first), then rank 2 again
    assert [g.members[0] for g in joined if g is not None] == [2, 1, 0, 2]
