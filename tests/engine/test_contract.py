"""The house rules that keep the code easy to change: one-way data flow, registry contracts."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from engine.placement import list_placements
from engine.policies import get_policy, list_policies
from engine.policies.base import describe

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = ("dashboard", "streamlit", "plotly")


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
