"""Kueue YAML in and out (engine/quota/kueue_yaml.py): kubectl's Lists in both API versions,
Kueue's own samples (adapted, tests/engine/data/kueue/), every refusal naming its object and field,
the limits for a shared server, and the round trip read(write(c)) == c (by hand and Hypothesis)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import ConfigError
from engine.quota.kueue_yaml import read_kueue_yaml, write_kueue_yaml
from engine.quota.model import (
    ClusterQueue,
    Cohort,
    FairSharing,
    FlavorQuota,
    LocalQueue,
    Preemption,
    PriorityClass,
    QueueConfig,
    ResourceFlavor,
)

DATA = Path(__file__).parent / "data" / "kueue"
TYPES = ("k80", "p100", "v100")
V2 = "apiVersion: kueue.x-k8s.io/v1beta2\n"


def read(text: str, worker_types: tuple[str, ...] = TYPES) -> tuple[QueueConfig, tuple[str, ...]]:
    return read_kueue_yaml(text, worker_types, file="q.yaml")


def refused(text: str, *parts: str) -> str:
    """The error message for ``text``, checked to contain every one of ``parts``."""
    with pytest.raises(ConfigError) as error:
        read(text)
    message = str(error.value)
    for part in parts:
        assert part in message, message
    return message


def cq(spec: str, name: str = "a", version: str = "v1beta2") -> str:
    body = "\n".join("  " + line for line in spec.strip("\n").splitlines())
    head = f"apiVersion: kueue.x-k8s.io/{version}\nkind: ClusterQueue\n"
    return f"{head}metadata:\n  name: {name}\nspec:\n{body}\n"


def gpu_group(quota: str = "nominalQuota: 4", resource: str = "nvidia.com/gpu") -> str:
    return f"""
resourceGroups:
- coveredResources: [{resource}]
  flavors:
  - name: v100
    resources:
    - name: {resource}
      {quota}
"""


EXPECTED = QueueConfig(
    cluster_queues=(
        ClusterQueue(
            "team-a",
            (FlavorQuota("gpu-v100", 8, 4, 2), FlavorQuota("p100", 4)),
            cohort="research",
            preemption=Preemption("LowerPriority", "Any", "LowerPriority", 100),
            when_can_borrow="TryNextFlavor",
            when_can_preempt="TryNextFlavor",
            fair_weight=2.0,
        ),
        ClusterQueue(
            "team-b",
            (FlavorQuota("gpu-v100", 4),),
            cohort="org",
            queueing_strategy="StrictFIFO",
            when_can_preempt="MayStopSearch",
        ),
    ),
    cohorts=(
        Cohort("org", "", (FlavorQuota("gpu-v100", 4),)),
        Cohort("research", "org", (), 0.75),
    ),
    local_queues=(
        LocalQueue("team-a-queue", "team-a", "team-a"),
        LocalQueue("team-b-queue", "team-b", "team-b"),
    ),
    flavors=(ResourceFlavor("gpu-v100", "v100"), ResourceFlavor("p100")),
    priority_classes=(PriorityClass("prod", 1000),),
    fair_sharing=FairSharing(True, admission_half_life_s=168 * 3600.0),
)


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_kubectl_list_reads_by_hand(version: str) -> None:
    config, notes = read((DATA / f"kubectl_list_{version}.yaml").read_text())
    assert config == EXPECTED
    assert notes == (
        "flavor 'gpu-v100' maps to worker type 'v100' through nodeLabels "
        "cloud.google.com/gke-accelerator: 'nvidia-tesla-v100'",
        "document 1, item 5 (ClusterQueue 'team-a'): skipped spec.stopPolicy (not modelled)",
        "document 1, item 5 (ClusterQueue 'team-a'): skipped the resources ['cpu', 'memory'] "
        "(only GPUs, nvidia.com/gpu or amd.com/gpu, are modelled)",
        "admissionFairSharing is set but no ClusterQueue has spec.admissionScope.admissionMode: "
        "UsageBasedAdmissionFairSharing, so it orders no queue",
    )
    config.check({"v100": 16, "p100": 4})


def test_kueue_samples_adapted() -> None:
    single, notes = read((DATA / "sample_single_clusterqueue.yaml").read_text())
    assert single.cluster_queues == (
        ClusterQueue("cluster-queue", (FlavorQuota("default-flavor", 8),)),
    )
    assert single.local_queues == (LocalQueue("user-queue", "cluster-queue", "default"),)
    assert any("'default-flavor' matches no worker type" in note for note in notes)
    with pytest.raises(
        ConfigError, match="flavor 'default-flavor' is worker type 'default-flavor'"
    ):
        single.check({"v100": 8})
    tree, _ = read((DATA / "sample_cohort_hierarchy.yaml").read_text())
    assert [(c.name, c.parent, c.fair_weight) for c in tree.cohorts] == [
        ("root-cohort", "", 1.0), ("important-org", "root-cohort", 0.75),
        ("regular-org", "root-cohort", 0.25),
    ]  # fmt: skip
    assert tree.cohorts[1].flavors == (FlavorQuota("default-flavor", 12),)
    assert tree.cluster_queues[0].flavors == (FlavorQuota("default-flavor", 0),)
    fair, notes = read((DATA / "sample_admission_fair_sharing.yaml").read_text())
    assert fair.fair_sharing == FairSharing(
        False, admission_half_life_s=600.0, admission_sampling_s=60.0
    )
    assert fair.cluster_queues[0].queueing_strategy == "StrictFIFO"
    assert fair.cluster_queues[0].admission_fair_sharing
    assert [lq.fair_weight for lq in fair.local_queues] == [1.0, 1.0]
    assert not any("fairSharing" in note for note in notes)
    assert read(write_kueue_yaml(fair))[0] == fair


def test_flavor_to_worker_type() -> None:
    text = "".join(
        f"---\n{V2}kind: ResourceFlavor\nmetadata:\n  name: {name}\n{spec}"
        for name, spec in [
            ("V100", ""),
            ("big", "spec:\n  nodeLabels:\n    gpu: nvidia-A100-80GB\n    zone: a1\n"),
            ("own", "spec:\n  nodeLabels:\n    gpusched/worker-type: k80\n"),
            ("spot", "spec:\n  nodeLabels:\n    instance-type: spot\n"),
        ]
    )
    config, notes = read(text, ("v100", "a100", "a100-80gb", "k80"))
    assert config.flavor_types() == {
        "V100": "v100",
        "big": "a100-80gb",
        "own": "k80",
        "spot": "spot",
    }
    assert "flavor 'V100' maps to worker type 'v100' (by name)" in notes
    assert "flavor 'big' maps to worker type 'a100-80gb' through nodeLabels gpu: " \
        "'nvidia-A100-80GB'" in notes  # fmt: skip


def test_amd_gpus_and_quantities() -> None:
    config, _ = read(cq(gpu_group('nominalQuota: "2k"', "amd.com/gpu")))
    assert config.cluster_queues[0].flavors == (FlavorQuota("v100", 2000),)


def test_configuration_without_fair_sharing_is_skipped() -> None:
    text = "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nnamespace: kueue\n"
    config, notes = read(text)
    assert config.fair_sharing == FairSharing()
    assert notes == ("skipped document 1 (Configuration): a Configuration without fairSharing "
                     "or admissionFairSharing",)  # fmt: skip


@pytest.mark.parametrize(
    ("text", "parts"),
    [
        ("a: [1, 2\n", ["q.yaml: the YAML does not parse", "line 2"]),
        (f"{V2}kind: ClusterQueue\n---\n- 1\n", ["document 2 is a list, not a mapping"]),
        (
            f"{V2}kind: Deployment\nmetadata: {{name: x}}\n",
            ["document 1 (Deployment 'x'): kind:", "ClusterQueue"],
        ),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n", ["not inside its ConfigMap"]),
        (
            "apiVersion: kueue.x-k8s.io/v1\nkind: Cohort\nmetadata: {name: c}\n",
            ["(Cohort 'c'): apiVersion: Cohort must be kueue.x-k8s.io/v1beta1"],
        ),
        (f"{V2}kind: Cohort\nmetadata: {{}}\n", ["(Cohort): metadata.name: must be text"]),
        (
            f"{V2}kind: Cohort\nmetadata: {{name: c}}\nsepc: {{}}\n",
            ["(Cohort 'c'): sepc: unknown field; allowed here: ['apiVersion'"],
        ),
        (
            cq("cohortName: org", version="v1beta1"),
            ["(ClusterQueue 'a'): spec.cohortName: unknown field", "'cohort'"],
        ),
        (cq("cohort: org"), ["spec.cohort: unknown field", "'cohortName'"]),
        (
            cq("preemption: {withinClusterQueue: Sometimes}"),
            ["ClusterQueue 'a': preemption.withinClusterQueue is one of"],
        ),
        (
            cq(
                "preemption: {borrowWithinCohort: {policy: LowerPriority, maxPriorityThreshold: x}}"
            ),
            ["spec.preemption.borrowWithinCohort.maxPriorityThreshold: must be a whole number"],
        ),
        (
            cq("flavorFungibility: {whenCanBorrow: Borrow}"),
            [
                "flavorFungibility.whenCanBorrow is one of ['MayStopSearch', 'TryNextFlavor'], got "
                "'Borrow'"
            ],
        ),
        (cq("queueingStrategy: [x]"), ["spec.queueingStrategy: must be text, got a list"]),
        (cq("resourceGroups: {a: 1}"), ["spec.resourceGroups: must be a list, got a mapping"]),
        (
            cq(gpu_group("nominalQuota: 1.5")),
            ["resources[0].nominalQuota: must be a whole number of GPUs >= 0, got 1.5"],
        ),
        (cq(gpu_group('nominalQuota: "500m"')), ["nominalQuota: must be a whole", "'500m'"]),
        (
            cq(gpu_group('lendingLimit: "-1"')),
            [
                "spec.resourceGroups[0].flavors[0].resources[0]."
                "lendingLimit: must be a whole number of GPUs"
            ],
        ),
        (cq(gpu_group("nominalQuota: lots")), ["nominalQuota: must be a quantity"]),
        (cq(gpu_group("nominalQuota: 4\n      limit: 2")), ["resources[0].limit: unknown field"]),
        (
            cq(gpu_group("nominalQuota: 2\n      lendingLimit: 3")),
            ["flavor 'v100': lendingLimit (3) is above nominalQuota (2)"],
        ),
        (
            cq(gpu_group("nominalQuota: 2\n      borrowingLimit: 3")),
            ["flavor 'v100': borrowingLimit needs a cohort"],
        ),
        (
            cq(
                "resourceGroups:\n- coveredResources: [nvidia.com/gpu]\n  flavors:\n"
                "  - name: v100\n    resources:\n    - {name: cpu, nominalQuota: 1}"
            ),
            ["spec.resourceGroups[0].flavors[0].resources: lists no nvidia.com/gpu"],
        ),
        (
            cq(
                "resourceGroups:\n- coveredResources: [nvidia.com/gpu]\n- coveredResources: "
                "[amd.com/gpu]"
            ),
            ["spec.resourceGroups[1].coveredResources: GPUs", "covered twice"],
        ),
        (cq("fairSharing: {weight: heavy}"), ["spec.fairSharing.weight: must be a quantity"]),
        (
            f"{V2}kind: LocalQueue\nmetadata: {{name: l}}\nspec: {{}}\n",
            ["(LocalQueue 'l'): spec.clusterQueue: must be text, got nothing"],
        ),
        (
            f"{V2}kind: LocalQueue\nmetadata: {{name: l}}\nspec: {{clusterQueue: nope}}\n",
            ["LocalQueue 'l': spec.clusterQueue 'nope' is not a ClusterQueue"],
        ),
        (
            f"{V2}kind: WorkloadPriorityClass\nmetadata: {{name: p}}\nvalue: high\n",
            ["(WorkloadPriorityClass 'p'): value: must be a whole number, got 'high'"],
        ),
        (
            f"{V2}kind: Cohort\nmetadata: {{name: a}}\nspec: {{parentName: b}}\n---\n{V2}kind: "
            "Cohort\nmetadata: {name: b}\nspec: {parentName: a}\n",
            ["Cohort 'a': spec.parentName makes a cycle (a -> b -> a)"],
        ),
        (cq("") + "---\n" + cq("", "a"), ["ClusterQueue 'a': the name is used twice"]),
        (
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
            "  enable: true\n",
            [
                "(Configuration): fairSharing.enable: unknown field; allowed here: "
                "['preemptionStrategies']"
            ],
        ),
        (
            "apiVersion: config.kueue.x-k8s.io/v1beta1\nkind: Configuration\nfairSharing:\n"
            "  enable: yes please\n",
            ["fairSharing.enable: must be true or false"],
        ),
        (
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n"
            "admissionFairSharing:\n  usageHalfLifeTime: 1 week\n",
            ["admissionFairSharing.usageHalfLifeTime: must be a Go duration", "'1 week'"],
        ),
        (
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing:\n"
            "  preemptionStrategies: [Always]\n",
            ["Configuration: fairSharing.preemptionStrategies"],
        ),
        (
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {}\n---\n"
            "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfairSharing: {}\n",
            ["document 2 (Configuration): kind: a second Configuration"],
        ),
        (
            "apiVersion: v1\nkind: List\nitems: {a: 1}\n",
            ["document 1 (List): items must be a list"],
        ),
        ("apiVersion: v1\nkind: List\nitems:\n- 7\n", ["document 1, item 1 is a number"]),
    ],
)
def test_refusals_name_the_object_and_field(text: str, parts: list[str]) -> None:
    refused(text, "q.yaml", *parts)


def test_limits() -> None:
    refused("#" * 1_000_001, "1,000,001 characters, more than the 1,000,000 allowed")
    refused(f"{V2}kind: Cohort\nmetadata: {{name: c}}\n---\n" * 2001, "more than 2,000")
    items = "".join(f"- {{{V2.strip()}, kind: Cohort, metadata: {{name: c{i}}}}}\n"
                    for i in range(2001))  # fmt: skip
    refused(f"apiVersion: v1\nkind: List\nitems:\n{items}", "more than 2,000 objects")
    refused("a: " + "[" * 40 + "]" * 40 + "\n", "nests more than 32 levels deep", "line 1")
    deep = "[" * 100_000 + "]" * 100_000  # would exceed Python's recursion limit unchecked
    refused(deep, "nests more than 32 levels deep")
    laughs = 'a: &a ["lol", "lol"]\nb: &b [*a, *a]\nc: [*b, *b]\n'
    refused(laughs, "anchors/aliases", "line 1")
    refused("a: *b\n", "anchors/aliases")


def test_two_thousand_objects_are_allowed() -> None:
    text = "".join(f"---\n{V2}kind: Cohort\nmetadata: {{name: c{i}}}\n" for i in range(2000))
    config, _ = read(text)
    assert len(config.cohorts) == 2000


def test_write_then_read_by_hand() -> None:
    for version in ("v1beta1", "v1beta2"):
        text = write_kueue_yaml(EXPECTED, api_version=version)
        assert read(text)[0] == EXPECTED
        assert f"kueue.x-k8s.io/{version}" in text
    old = write_kueue_yaml(EXPECTED, api_version="v1beta1")
    assert "cohort: research" in old and "whenCanPreempt: Preempt" in old and "enable: true" in old
    new = write_kueue_yaml(EXPECTED)
    assert "cohortName: research" in new and "Preempt\n" not in new and "enable" not in new
    assert "usageHalfLifeTime: 168h" in new and "gpusched/worker-type: v100" in new
    assert "kind: Configuration" not in write_kueue_yaml(QueueConfig())
    with pytest.raises(ConfigError, match="api_version must be one of"):
        write_kueue_yaml(EXPECTED, api_version="v1")


NAMES = ("a", "b", "team-x", "on", "null", "007", "x.y", "v100", "k80")
ENUMS = {
    "wcq": ("Never", "LowerPriority", "LowerOrNewerEqualPriority"),
    "rwc": ("Never", "LowerPriority", "Any"),
    "bwc": ("Never", "LowerPriority"),
    "fung": ("MayStopSearch", "TryNextFlavor"),
}
STRATEGY_LISTS = (
    ("LessThanOrEqualToFinalShare",), ("LessThanInitialShare",),
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
)  # fmt: skip


@st.composite
def quotas(draw: st.DrawFn, flavors: list[str], may_borrow: bool) -> tuple[FlavorQuota, ...]:
    out = []
    for flavor in draw(st.lists(st.sampled_from(flavors), unique=True, max_size=3)):
        nominal = draw(st.integers(0, 64))
        borrow = draw(st.one_of(st.none(), st.integers(0, 64))) if may_borrow else None
        lend = draw(st.one_of(st.none(), st.integers(0, nominal)))
        out.append(FlavorQuota(flavor, nominal, borrow, lend))
    return tuple(out)


@st.composite
def queue_configs(draw: st.DrawFn) -> QueueConfig:
    flavor_names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    others = {name: ["", *(t for t in ("p100", "a100") if t != name)] for name in flavor_names}
    flavors = tuple(ResourceFlavor(name, draw(st.sampled_from(others[name]))) for name in others)
    usable = [*flavor_names, "undeclared"]
    cohort_names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    cohorts = []
    for i, name in enumerate(cohort_names):
        parent = draw(st.sampled_from(["", "implicit", *cohort_names[:i]]))
        weight = draw(st.floats(0, 1e6, allow_nan=False, allow_infinity=False))
        cohorts.append(Cohort(name, parent, draw(quotas(usable, bool(parent))), weight))
    weights = st.one_of(st.just(1.0), st.floats(0, 1e6, allow_nan=False))
    cluster_queues = []
    for name in draw(st.lists(st.sampled_from(NAMES), unique=True, min_size=1, max_size=3)):
        cohort = draw(st.sampled_from(["", "implicit", *cohort_names]))
        preemption = Preemption(
            draw(st.sampled_from(ENUMS["wcq"])), draw(st.sampled_from(ENUMS["rwc"])),
            draw(st.sampled_from(ENUMS["bwc"])),
            draw(st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1))),
        )  # fmt: skip
        cluster_queues.append(ClusterQueue(
            name, draw(quotas(usable, bool(cohort))), cohort,
            draw(st.sampled_from(("BestEffortFIFO", "StrictFIFO"))), preemption,
            draw(st.sampled_from(ENUMS["fung"])), draw(st.sampled_from(ENUMS["fung"])),
            draw(weights),
        ))  # fmt: skip
    queue_names = [q.name for q in cluster_queues]
    namespaces = st.sampled_from(["default", "t"])
    local_queues = tuple(
        LocalQueue(name, draw(st.sampled_from(queue_names)), draw(namespaces))
        for name in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=3))
    )
    priority_classes = tuple(
        PriorityClass(name, draw(st.integers(-(2**31), 2**31 - 1)))
        for name in draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=2))
    )
    enabled = draw(st.booleans())
    strategies = draw(st.sampled_from(STRATEGY_LISTS)) if enabled else STRATEGY_LISTS[2]
    half_life = draw(st.one_of(st.just(0.0), st.integers(1, 10**7).map(float),
                               st.floats(0.001, 1e5, allow_nan=False)))  # fmt: skip
    config = QueueConfig(
        tuple(cluster_queues), tuple(cohorts), local_queues, flavors, priority_classes,
        FairSharing(enabled, strategies, half_life),
    )  # fmt: skip
    config.check()
    return config


@settings(max_examples=150, deadline=None)
@given(config=queue_configs(), version=st.sampled_from(["v1beta1", "v1beta2"]))
def test_round_trip(config: QueueConfig, version: str) -> None:
    worker_types = tuple(sorted({f.gpu_type for f in config.flavors}))
    text = write_kueue_yaml(config, api_version=version)
    assert read(text, worker_types)[0] == config
    assert not re.search(r"[&*]\w", text)  # no anchors, even when objects repeat values
