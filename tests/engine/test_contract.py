"""The house rules that keep the code easy to change: one-way data flow, registry contracts, and
a policy contract the engine reads without hooks."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from engine.config import PolicySpec, ScenarioConfig
from engine.errors import ConfigError
from engine.papers import PAPERS
from engine.placement import PLACEMENTS, list_placements
from engine.policies import POLICIES, Policy, get_policy, list_policies
from engine.policies.base import describe, display_name
from engine.policies.fifo import Fifo
from engine.registry import Registry
from engine.simulator import simulate
from engine.step_time.throughput import load_matrix
from engine.traces import FORMATS
from tests.engine.helpers import RESNET50, cluster, jobs_frame

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("dashboard", "streamlit", "plotly")
MATRIX = load_matrix()


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")), ids=lambda p: p.name)
def test_engine_never_imports_the_dashboard_or_ui_libraries(path: Path) -> None:
    assert not _imports(path) & set(FORBIDDEN)


def test_the_baselines_of_every_comparison_are_registered() -> None:
    for name in (
        "fifo",
        "srtf",
        "las",
        "gavel_maxmin",
        "gavel_maxmin_agnostic",
        "gavel_ftf",
        "gavel_ftf_agnostic",
        "gavel_fifo",
        "gavel_fifo_perf",
        "gavel_min_total_duration",
        "gavel_min_total_duration_agnostic",
    ):
        assert name in list_policies()


def test_the_seed_schedulers_are_registered() -> None:
    """Seed schedulers I: Hadar, HadarE, Hare (HLAS and offline), sampling-based placement."""
    for name in ("hadar", "hadare", "hare_hlas", "hare_offline", "sampling_placement"):
        assert name in list_policies()
    assert {"consolidated", "first_fit"} <= set(list_placements())


@pytest.mark.parametrize("name", list_policies())
def test_policy_params_are_frozen_with_help_text(name: str) -> None:
    cls = get_policy(name)
    params = cls.Params()
    assert dataclasses.is_dataclass(params)
    fields = dataclasses.fields(params)
    for field in fields:
        assert field.metadata.get("help"), f"{name}.{field.name} has no help text"
    if fields:
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(params, fields[0].name, getattr(params, fields[0].name))
    assert describe(cls) and describe(cls) != name
    assert "  " not in describe(cls), "docstring indentation leaked into the description"


def test_every_policy_declares_a_unique_display_name_and_a_group() -> None:
    from engine.policies.base import POLICY_GROUPS, policy_display_name, policy_group

    names = [policy_display_name(p) for p in list_policies()]
    assert len(set(names)) == len(names), names
    for policy in list_policies():
        assert get_policy(policy).display_name, f"{policy} declares no display_name"
        assert get_policy(policy).group in POLICY_GROUPS[:-1], f"{policy}: group"
        assert policy_group(policy) != "Other"


def _policy_reads(path: Path) -> set[str]:
    """Attributes a module reads from a policy object or class: ``self.policy.x``,
    ``get_policy(...).x``, ``POLICIES.get(...).x`` and, in a module that imports ``Policy`` (so
    a name ``policy`` is one, not e.g. a quota's preemption policy), ``policy.x``."""
    reads = set()
    tree = ast.parse(path.read_text())
    typed = any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "Policy" for alias in node.names)
        for node in ast.walk(tree)
    )
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        value = node.value
        if (isinstance(value, ast.Attribute) and value.attr == "policy") or (
            typed and isinstance(value, ast.Name) and value.id == "policy"
        ):
            reads.add(node.attr)
        elif isinstance(value, ast.Call):
            func = value.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            owner = getattr(func, "value", None)
            if name == "get_policy" or (name == "get" and getattr(owner, "id", "") == "POLICIES"):
                reads.add(node.attr)
    return reads


def _contract() -> set[str]:
    """What :class:`Policy` declares: its class attributes and methods, and the attributes its
    ``__init__`` sets."""
    declared = set(dir(Policy))
    init = ast.parse((ENGINE / "policies" / "base.py").read_text())
    for node in ast.walk(init):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            declared |= {
                target.attr
                for stmt in ast.walk(node)
                if isinstance(stmt, ast.Assign | ast.AnnAssign)
                for target in (stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target])
                if isinstance(target, ast.Attribute)
            }
    return declared


OUTSIDE_POLICIES = sorted(p for p in ENGINE.rglob("*.py") if "policies" not in p.parts)


def test_the_engine_reads_of_a_policy_only_what_the_contract_declares() -> None:
    """Every attribute the engine reads from a policy is declared on the Policy base (with a
    default), so a policy never needs a hook the contract does not name."""
    reads = {(p.name, attr) for p in OUTSIDE_POLICIES for attr in _policy_reads(p)}
    assert {attr for _, attr in reads} >= {"lease_rounds", "forces_reallocation", "preemptive"}
    undeclared = sorted((name, attr) for name, attr in reads if attr not in _contract())
    assert not undeclared, f"read from a policy but not declared on Policy: {undeclared}"


def test_the_engine_asks_a_policy_nothing_with_getattr() -> None:
    calls = [
        f"{path.name}:{node.lineno}"
        for path in OUTSIDE_POLICIES
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", "") in ("getattr", "hasattr")
        and "polic" in ast.unparse(node.args[0]).lower()
    ]
    assert not calls, f"getattr/hasattr on a policy: {calls}"


def test_the_contract_defaults_run_a_policy_in_the_event_loop_without_forcing() -> None:
    assert Policy.lease_rounds is False and Policy.forces_reallocation is False
    gavel = [name for name in list_policies() if get_policy(name).lease_rounds]
    assert set(gavel) == {name for name in list_policies() if name.startswith("gavel_")}
    assert all(get_policy(name).forces_reallocation for name in gavel)


REGISTRIES = {"policy": POLICIES, "placement": PLACEMENTS, "paper preset": PAPERS,
              "trace format": FORMATS}  # fmt: skip


@pytest.mark.parametrize("kind", REGISTRIES)
def test_every_extension_point_is_one_registry_class_naming_the_known_keys(kind: str) -> None:
    registry = REGISTRIES[kind]
    assert isinstance(registry, Registry)
    known = registry.names()
    assert known, f"{kind}: nothing registered"
    with pytest.raises(ConfigError) as error:
        registry.get("no-such-name")
    assert str(error.value) == f"unknown {kind} 'no-such-name'; known: {', '.join(known)}"


def test_a_registry_registers_once_per_name_and_unregisters() -> None:
    registry: Registry[int] = Registry("widget")
    assert registry.register("a", 1) == 1
    with pytest.raises(ValueError, match="widget 'a' registered twice"):
        registry.register("a", 2)
    registry.register("b", 2)
    assert registry.names() == ["a", "b"] and registry.items() == [("a", 1), ("b", 2)]
    registry.unregister("a")
    assert "a" not in registry and registry.get("b") == 2
    with pytest.raises(ConfigError, match="unknown widget 'a'; known: b"):
        registry.unregister("a")


def test_a_registered_policy_is_named_by_its_registration_and_runs() -> None:
    """A notebook's own policy: registered by the one call, found by name, named after it."""

    class Mine(Fifo):
        display_name = "My FIFO"

    POLICIES.register("mine", Mine, doc="My FIFO: first come, first served.")
    try:
        assert get_policy("mine") is Mine and Mine.name == "mine"
        assert describe(Mine) == "My FIFO: first come, first served."
        spec = PolicySpec("mine")
        assert display_name(spec) == "My FIFO"
        assert display_name(PolicySpec("mine", label="ours")) == "ours"
        jobs = jobs_frame(("a", 0, RESNET50, 1, 100.0))
        result = simulate(jobs, ScenarioConfig(cluster=cluster(("v100", 1, 1, "r0"))), spec, MATRIX)
        assert result.policy == "My FIFO"
    finally:
        POLICIES.unregister("mine")
    assert "mine" not in list_policies()
    assert display_name(PolicySpec("mine")) == "mine"  # unknown: its registry name


def test_a_scenarios_size_is_checked_from_one_place() -> None:
    """``check_scenario`` is called only by ``engine.budget.check_config``: every page, link and
    loaded file checks a scenario through it (or :func:`engine.scenario.prepare`), so the trace's
    rows are counted one way (issue 36)."""
    calls = []
    for path in [*ENGINE.rglob("*.py"), *(ENGINE.parent / "dashboard").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "check_scenario":
                calls.append(path.relative_to(ENGINE.parent).as_posix())
    assert calls == ["engine/budget.py"]
