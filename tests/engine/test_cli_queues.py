"""The command line under Kueue's queues: ``python -m engine run scenario.json --trace jobs.csv
--queues kueue.yaml --out DIR`` with FIFO, on a canonical CSV with ``queue`` and ``priority``
columns; the tables name every eviction's start, end and reason."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd

from engine.config import ClusterSpec, NodeGroup, PolicySpec, RoundConfig, ScenarioConfig
from tests.engine.kueue_cases import MATRIX, RESNET50

KUEUE = """\
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {name: v100}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Cohort
metadata: {name: lab}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-a}
spec:
  cohortName: lab
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: v100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 2}
  preemption:
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: team-b}
spec:
  cohortName: lab
  resourceGroups:
  - coveredResources: [nvidia.com/gpu]
    flavors:
    - name: v100
      resources:
      - {name: nvidia.com/gpu, nominalQuota: 2}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: a, namespace: research}
spec: {clusterQueue: team-a}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata: {name: b, namespace: prod}
spec: {clusterQueue: team-b}
"""


def _jobs_csv(path: Path) -> None:
    steps = 1000 * MATRIX.steps_per_s(RESNET50, "v100", 4)
    rows = [("b1", 0, 4, "b", 0, steps), ("a1", 100, 2, "a", 0,
            1000 * MATRIX.steps_per_s(RESNET50, "v100", 2))]  # fmt: skip
    pd.DataFrame({
        "job_id": [r[0] for r in rows], "arrival_s": [float(r[1]) for r in rows],
        "job_type": [RESNET50] * len(rows), "scale_factor": [r[2] for r in rows],
        "total_steps": [r[5] for r in rows], "queue": [r[3] for r in rows],
        "priority": [r[4] for r in rows],
    }).to_csv(path, index=False)  # fmt: skip


def _run_cli(folder: Path, out: Path) -> subprocess.CompletedProcess[str]:
    """``python -m engine run scenario.json --trace jobs.csv --queues kueue.yaml --out out``
    on the files in ``folder``."""
    return subprocess.run(
        [sys.executable, "-m", "engine", "run", str(folder / "scenario.json"), "--trace",
         str(folder / "jobs.csv"), "--queues", str(folder / "kueue.yaml"), "--out", str(out)],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip


def test_run_with_queues_writes_evictions_with_their_reason(tmp_path: Path) -> None:
    scenario = ScenarioConfig(
        cluster=ClusterSpec((NodeGroup("v100", 1, 4, "r0"),)),
        rounds=RoundConfig(checkpoint_restore_s=0.0), policies=(PolicySpec("fifo"),),
    )  # fmt: skip
    (tmp_path / "scenario.json").write_text(scenario.to_json())
    (tmp_path / "kueue.yaml").write_text(KUEUE)
    _jobs_csv(tmp_path / "jobs.csv")
    out = tmp_path / "out"
    done = _run_cli(tmp_path, out)
    assert done.returncode == 0, done.stderr
    segments = pd.read_csv(out / "segments.csv")
    evicted = segments[segments["end_reason"] == "preempted"]
    assert list(evicted["job_id"]) == ["b1"]
    assert evicted["end_s"].iloc[0] == 100
    assert evicted["preemption_reason"].iloc[0] == "InCohortReclamation"
    jobs = pd.read_csv(out / "jobs.csv").set_index("job_id")
    assert jobs.loc["a1", "first_start_s"] == 100
    assert jobs.loc["a1", "cluster_queue"] == "team-a"
    assert jobs.loc["b1", "preempted_reclaim"] == 1
    # b1 ran 100 of its 1000 s, waits for its 4 GPUs until a1 ends at 1100, then runs 900 s
    assert math.isclose(jobs.loc["b1", "completion_s"], 1100 + 900, rel_tol=1e-6)
    teams = pd.read_csv(out / "teams.csv").set_index("cluster_queue")
    assert teams.loc["team-b", "preempted_reclaim"] == 1
    assert (out / "quota_usage.csv").is_file()
    assert json.loads((out / "scenario.json").read_text())["queues"]["cluster_queues"]


def test_a_job_of_an_unknown_queue_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "scenario.json").write_text(
        ScenarioConfig(policies=(PolicySpec("fifo"),)).to_json()
    )
    (tmp_path / "kueue.yaml").write_text(KUEUE.replace("{name: v100}", "{name: k80}", 1)
                                         .replace("name: v100\n", "name: k80\n"))  # fmt: skip
    pd.DataFrame({"job_id": ["x"], "arrival_s": [0.0], "job_type": [RESNET50],
                  "scale_factor": [1], "total_steps": [100.0], "queue": ["nope"],
                  "priority": [0]}).to_csv(tmp_path / "jobs.csv", index=False)  # fmt: skip
    done = _run_cli(tmp_path, tmp_path / "out")
    assert done.returncode == 2
    assert "queue 'nope' is neither a LocalQueue nor a ClusterQueue" in done.stderr
