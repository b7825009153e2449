"""The seam between the dashboard and the engine (issue 36): no policy name in a dashboard rule,
and a short link naming a preset restores the scenario it restored before."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from engine.config import PolicySpec
from engine.policies import list_policies

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "dashboard" / "app.py")
DATA_ONLY = {"dashboard/lessons.py"}  # the lessons name their policies as data
TIMEOUT_S = 120


def _default_selection(tree: ast.Module) -> set[int]:
    """Line numbers of the constants in ``DEFAULT_POLICIES = (...)`` (session_keys.py's
    default selection, data)."""
    lines: set[int] = set()
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "DEFAULT_POLICIES" for t in node.targets
        ):
            lines |= {n.lineno for n in ast.walk(node.value) if isinstance(n, ast.Constant)}
    return lines


def test_no_policy_name_in_dashboard_code() -> None:
    """A registered policy's name appears in ``dashboard/`` only as data: the lessons and the
    default selection in ``session_keys.py`` (issue 36). Docstrings are prose, not rules."""
    names = set(list_policies())
    found = []
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        if where in DATA_ONLY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = _default_selection(tree)
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef)
            and node.body
            and isinstance(node.body[0], ast.Expr)
        }
        found += [
            f"{where}:{node.lineno} {node.value!r}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Constant)
            and node.value in names
            and node.lineno not in allowed
            and id(node) not in docstrings
        ]
    assert found == []


@pytest.mark.parametrize(
    ("query", "policies"),
    [
        # the default selection: LAS takes the testbed's queue order, the others are kept
        (
            {},
            (PolicySpec("fifo"), PolicySpec("las", {"requeue": True}), PolicySpec("gavel_maxmin")),
        ),
        # Muri-S keeps its own k (1) as the dashboard's preset always did: only LAS changes
        (
            {"policies": "las,muri_s"},
            (PolicySpec("las", {"requeue": True}), PolicySpec("muri_s")),
        ),
        ({"policies": "srtf"}, (PolicySpec("srtf"),)),
    ],
)
def test_a_short_link_naming_the_muri_preset_opens_the_same_scenario(
    query: dict[str, str], policies: tuple[PolicySpec, ...]
) -> None:
    """``?preset=muri_testbed`` (with or without ``policies``), as links made before the
    preset stopped naming a policy in the dashboard's code: the same rounds and policies."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S)
    for key, value in {**query, "preset": "muri_testbed"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    config = at.session_state["scenarios"][at.session_state["current_scenario"]]
    assert config.policies == policies
    assert config.rounds.round_duration_s == 360.0 and config.rounds.relaunch_on_event
    assert config.placement == "consolidated" and not config.network.enabled


@pytest.mark.parametrize("page", ["sweep", "planner"])
def test_a_study_page_on_an_invalid_scenario_says_so_and_stops(page: str) -> None:
    """The Sweep and Planner pages take their base through one check (``study_base``): a GPU
    mix edit that does not read is named, and nothing below it is drawn."""
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.session_state["table_errors"] = {"gpu_mix": "GPU mix, row 2, column 'count': not a number"}
    at.switch_page(f"app_pages/{page}.py").run()
    assert not at.exception
    assert [e.value for e in at.error] == [
        "The scenario is not valid: GPU mix, row 2, column 'count': not a number"
    ]
    assert not at.button  # the page stopped before its Run button


def test_the_seed_range_is_declared_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The study pages' seed input and the link vetting read one range (``SEED_RANGE``): a
    changed range moves both (issue 36: one declaration per field)."""
    from dashboard import page_settings

    monkeypatch.setattr(page_settings, "SEED_RANGE", (2, 7))
    at = AppTest.from_file(APP, default_timeout=TIMEOUT_S).run()
    at.switch_page("app_pages/compare.py").run()
    seeds = next(n for n in at.number_input if n.key == "compare_seeds")
    assert (seeds.min, seeds.max) == (2, 7)
    assert page_settings.check_setting("compare_seeds", 7) == ""
    assert page_settings.check_setting("sweep_seeds", 8) == (
        "expected a whole number of seeds from 2 to 7"
    )
    assert page_settings.check_setting("plan_seeds", 1) != ""


def _is_session(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "session_state":
        return True
    return isinstance(node, ast.Name) and node.id in aliases


def _session_key(node: ast.AST, aliases: set[str]) -> object:
    """The literal key ``node`` reads or writes in the session (``s[k]``, ``s.get(k)``,
    ``k in s``, a widget's ``key=k``), else None."""
    if isinstance(node, ast.Subscript) and _is_session(node.value, aliases):
        return node.slice.value if isinstance(node.slice, ast.Constant) else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
        call = node.func.attr in ("get", "pop", "setdefault")
        key = node.args[0]
        if call and _is_session(node.func.value, aliases) and isinstance(key, ast.Constant):
            return key.value
    if isinstance(node, ast.Compare) and isinstance(node.left, ast.Constant):
        member = isinstance(node.ops[0], ast.In | ast.NotIn)
        return node.left.value if member and _is_session(node.comparators[0], aliases) else None
    if isinstance(node, ast.keyword) and node.arg == "key" and isinstance(node.value, ast.Constant):
        return node.value.value
    return None


def _session_keys_in_code() -> dict[str, set[str]]:
    """Literal session key -> the dashboard modules that use it."""
    uses: dict[str, set[str]] = {}
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        aliases = {
            t.id
            for n in ast.walk(tree)
            if isinstance(n, ast.Assign) and _is_session(n.value, set())
            for t in n.targets
            if isinstance(t, ast.Name)
        }
        for node in ast.walk(tree):
            key = _session_key(node, aliases)
            if isinstance(key, str):
                uses.setdefault(key, set()).add(path.relative_to(ROOT).as_posix())
    return uses


def test_every_shared_session_key_is_declared_once() -> None:
    """A session key that more than one dashboard module uses is declared in exactly one of
    the declarations (issue 36), and a declared key with no default is used by the code."""
    from dashboard import page_settings, state_fields
    from dashboard import session_keys as state
    from dashboard.components import step_through

    declarations = {
        "FIELDS": set(state_fields.FIELDS),
        "TABLES": set(state_fields.TABLES),
        "PAGE_WIDGETS": set(state.PAGE_WIDGETS),
        "PLAIN_DEFAULTS": set(state.PLAIN_DEFAULTS),
        "SESSION_KEYS": set(state.SESSION_KEYS),
        "step_through.PAGE_WIDGETS": set(step_through.PAGE_WIDGETS),
        "page_settings.SETTINGS": {k for keys in page_settings.SETTINGS.values() for k in keys},
        "constants": {state.POLICY_PICKER, page_settings.STATE_KEY},  # (TABLE_ERRORS: a default)
    }
    uses = _session_keys_in_code()
    where: dict[str, list[str]] = {}
    for name, keys in declarations.items():
        for key in keys:
            where.setdefault(key, []).append(name)
    shared = {key for key, modules in uses.items() if len(modules) > 1}
    assert sorted(shared - set(where)) == []
    assert {key: names for key, names in where.items() if len(names) > 1} == {}
    assert sorted(set(state.SESSION_KEYS) - set(uses)) == []


def test_no_module_names_a_session_key_beside_its_declaration() -> None:
    """A module-level name bound to a declared session key (``X_KEY = "..."``) outside the
    declaring modules is a second declaration: the modules import the key instead."""
    from dashboard import session_keys, state_fields

    declared = {*state_fields.FIELDS, *state_fields.TABLES, *session_keys.PAGE_WIDGETS,
                *session_keys.PLAIN_DEFAULTS, *session_keys.SESSION_KEYS}  # fmt: skip
    owners = {"dashboard/session_keys.py", "dashboard/state_fields.py",
              "dashboard/page_settings.py"}  # fmt: skip
    found = []
    for path in sorted((ROOT / "dashboard").rglob("*.py")):
        where = path.relative_to(ROOT).as_posix()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            value = node.value if isinstance(node, ast.Assign) else None
            items = value.elts if isinstance(value, ast.Tuple) else [value]
            found += [
                f"{where}:{node.lineno} {item.value}"
                for item in items
                if isinstance(item, ast.Constant) and item.value in declared
                and where not in owners
            ]  # fmt: skip
    assert found == []
