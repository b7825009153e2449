"""Kueue Workloads as a trace (engine/traces/kueue_workloads.py): a file written as
``kubectl get workloads -A -o yaml`` writes it (tests/engine/data/kueue/workloads.yaml),
arrivals and run times checked by hand, Philly's seeded rule for job types, and refusals that name
the Workload and the field."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.errors import TraceError
from engine.step_time.throughput import ThroughputMatrix, load_matrix
from engine.traces import FORMATS, detect_format, load_trace, rules
from engine.traces.registry import Loaded

DATA = Path(__file__).parent / "data" / "kueue"


@pytest.fixture(scope="module")
def matrix() -> ThroughputMatrix:
    return load_matrix()


def load(text: str, matrix: ThroughputMatrix, seed: int = 0) -> Loaded:
    return load_trace(text.encode(), "wl.yaml", matrix, np.random.default_rng(seed))


def workload(
    name: str = "w",
    created: str = '"2025-01-01T00:00:00Z"',
    gpus: str = '"2"',
    count: str = "1",
    conditions: str = "Admitted@2025-01-01T00:01:00Z Finished@2025-01-01T00:11:00Z",
    kind: str = "Workload",
) -> str:
    rows = []
    for item in conditions.split():
        kind_, _, time = item.partition("@")
        rows.append(f'    - {{type: {kind_}, status: "True", lastTransitionTime: "{time}"}}')
    lines = "\n".join(rows) or "    []"
    return f"""- apiVersion: kueue.x-k8s.io/v1beta2
  kind: {kind}
  metadata: {{name: {name}, namespace: ns, creationTimestamp: {created}}}
  spec:
    queueName: q
    podSets:
    - count: {count}
      template:
        spec:
          containers:
          - name: main
            resources: {{requests: {{nvidia.com/gpu: {gpus}}}}}
  status:
    conditions:
{lines}
"""


def listed(*items: str) -> str:
    return "apiVersion: v1\nkind: List\nitems:\n" + "".join(items)


def test_kubectl_file_by_hand(matrix: ThroughputMatrix) -> None:
    text = (DATA / "workloads.yaml").read_text()
    assert detect_format(text, "workloads.yaml") == "kueue-workloads"
    loaded = load(text, matrix)
    jobs = loaded.jobs.set_index("job_id")
    # earliest creation: team-b's at 09:30Z; 11:00+01:00 is 10:00Z
    assert jobs["arrival_s"].to_dict() == {
        "team-b/job-bert-8x1k2": 0.0,
        "team-a/job-resnet-4d2f1": 1800.0,
        "team-a/job-small": 1800.0,
    }
    # Finished - Admitted (12:02:30 - 10:02:30); Finished - QuotaReserved (10:15 - 09:45) plus
    # 600 s of an earlier admission; 10:35 - 10:05
    assert jobs["duration_s"].to_dict() == {
        "team-b/job-bert-8x1k2": 2400.0,
        "team-a/job-resnet-4d2f1": 7200.0,
        "team-a/job-small": 1800.0,
    }
    # 2 pods x 4 GPUs (requests, not also limits); 1 x 0 + 3 x 1 (limits); 1 amd.com/gpu
    assert jobs["scale_factor"].to_dict() == {
        "team-b/job-bert-8x1k2": 3,
        "team-a/job-resnet-4d2f1": 8,
        "team-a/job-small": 1,
    }
    assert jobs["queue"].to_dict() == {
        "team-b/job-bert-8x1k2": "team-b-queue",
        "team-a/job-resnet-4d2f1": "team-a-queue",
        "team-a/job-small": "",
    }
    assert jobs["priority"].to_dict() == {
        "team-b/job-bert-8x1k2": -5,
        "team-a/job-resnet-4d2f1": 1000,
        "team-a/job-small": 0,
    }
    assert jobs["source_row"].to_dict() == {
        "team-b/job-bert-8x1k2": 2,
        "team-a/job-resnet-4d2f1": 1,
        "team-a/job-small": 3,
    }
    assert str(loaded.jobs["queue"].dtype) == "str"
    assert loaded.jobs["priority"].dtype == np.int64
    assert loaded.notes[-1] == (
        "2 Workload(s) name a priority class (low: 1, prod: 1); their spec.priority is the "
        "priority used"
    )


def test_job_types_and_steps_follow_phillys_rule(matrix: ThroughputMatrix) -> None:
    jobs = load((DATA / "workloads.yaml").read_text(), matrix, seed=3).jobs
    in_file = jobs.sort_values("source_row")
    scale = in_file["scale_factor"].to_numpy()
    drawn = rules.draw_job_types(scale, matrix, "p100", np.random.default_rng(3), "x")
    assert list(in_file["job_type"]) == [matrix.canonical(t) for t in drawn]
    for _, row in in_file.iterrows():
        rate = matrix.steps_per_s(row["job_type"], "p100", int(row["scale_factor"]))
        assert row["total_steps"] == pytest.approx(row["duration_s"] * rate)
    again = load((DATA / "workloads.yaml").read_text(), matrix, seed=3).jobs
    pd.testing.assert_frame_equal(jobs, again)


def test_registered_without_header() -> None:
    fmt = FORMATS.get("kueue-workloads")
    assert not fmt.has_header and fmt.uses_assumed_worker_type
    assert fmt.detect("kind: List") and fmt.detect("---") and not fmt.detect("job_id,arrival_s")


def test_multi_document_and_unquoted_times(matrix: ThroughputMatrix) -> None:
    first = workload("a", created="2025-01-01T00:00:00Z").removeprefix("- ").replace("\n  ", "\n")
    second = workload("b", created='"2025-01-01T00:00:30Z"')
    second = second.removeprefix("- ").replace("\n  ", "\n")
    jobs = load(f"---\n{first}---\n{second}", matrix).jobs
    assert list(jobs["arrival_s"]) == [0.0, 30.0]
    assert list(jobs["duration_s"]) == [600.0, 600.0]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            listed(workload(), workload("cq", kind="ClusterQueue")),
            "document 1, item 2 (ClusterQueue 'cq') is a ClusterQueue, not a Workload",
        ),
        (
            listed(workload(conditions="Admitted@2025-01-01T00:01:00Z")),
            "Workload 'ns/w' (document 1, item 1): status.conditions: the Workload has not "
            "finished (no Finished condition with status True)",
        ),
        (
            listed(workload(conditions="Finished@2025-01-01T00:01:00Z")),
            "Workload 'ns/w' (document 1, item 1): status.conditions: the Workload finished "
            "without an Admitted or QuotaReserved condition",
        ),
        (
            listed(
                workload(conditions="Admitted@2025-01-01T00:05:00Z Finished@2025-01-01T00:01:00Z")
            ),  # fmt: skip
            "status.conditions: the Finished condition is not after the admission (run time "
            "-240 s)",
        ),
        (
            listed(workload(conditions="Admitted@2025-01-01 Finished@soon")),
            "Workload 'ns/w' (document 1, item 1): status.conditions[1].lastTransitionTime: "
            "'soon' is not an RFC 3339 time",
        ),
        (
            listed(workload(gpus="0")),
            "Workload 'ns/w' (document 1, item 1): spec.podSets: requests no GPUs",
        ),
        (
            listed(workload(gpus='"0.5"')),
            "spec.podSets[0].template.spec.containers[0].resources.requests.nvidia.com/gpu: must "
            "be a whole number of GPUs >= 0, got '0.5'",
        ),
        (listed(workload(count="two")), "spec.podSets[0].count: must be a whole number"),
        (listed(workload(count="-1")), "spec.podSets[0].count: must be >= 0, got -1"),
        (
            listed(workload(created="yesterday")),
            "Workload 'ns/w' (document 1, item 1): metadata.creationTimestamp: 'yesterday' is "
            "not an RFC 3339 time",
        ),
        (
            listed(workload(created="null")),
            "metadata.creationTimestamp: must be an RFC 3339 time, got None",
        ),
        (
            listed(workload(), workload()),
            "job id 'ns/w' appears more than once",
        ),
        ("apiVersion: v1\nkind: List\nitems: []\n", "the file holds no Workloads"),
        ("apiVersion: v1\nkind: List\nitems: &x []\n", "anchors/aliases"),
        ("kind: List\nitems: [\n", "the YAML does not parse"),
    ],
)
def test_refusals_name_the_workload_and_field(
    text: str, message: str, matrix: ThroughputMatrix
) -> None:
    with pytest.raises(TraceError) as error:
        load(text, matrix)
    assert str(error.value).startswith("wl.yaml")
    assert message in str(error.value)


def test_api_version_is_checked(matrix: ThroughputMatrix) -> None:
    text = listed(workload().replace("kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1"))
    with pytest.raises(TraceError, match=r"Workload 'ns/w' \(document 1, item 1\): apiVersion: "):
        load(text, matrix)
