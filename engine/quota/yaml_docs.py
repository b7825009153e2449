"""Kubernetes objects out of YAML text, read safely on a shared server.

:func:`load_objects` reads multi-document YAML and ``kind: List`` (``items``), the way
``kubectl get ... -o yaml`` writes them, into :class:`KubeObject` s, each named for error
messages (``document 2, item 5 (ClusterQueue 'team-a')``). It refuses, before anything is built:
text over :data:`MAX_CHARS` characters, more than :data:`MAX_OBJECTS` documents and items,
nesting over :data:`MAX_DEPTH` levels (counted while the YAML is composed, so a deeply nested
file never reaches Python's recursion limit), and anchors or aliases (``&a`` / ``*a``: PyYAML's
safe loader still expands them, so a few lines can stand for millions of nodes).

:class:`Fields` reads one mapping of an object strictly (unknown keys refused, listing the
allowed ones); :func:`parse_quantity` reads Kubernetes quantities (``"8"``, ``"500m"``,
``"1Gi"``; ``k8s.io/apimachinery`` ``resource.Quantity``) and :func:`parse_duration` Go
durations (``"168h"``, ``"1h30m"``, ``"500ms"``; Go's ``time.ParseDuration``) into seconds.

Errors are made by the caller's ``fail`` (a ConfigError for Kueue objects, a TraceError for a
Workload trace), so each edge reports in its own terms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import yaml

from engine.errors import EngineError

MAX_CHARS = 1_000_000
MAX_OBJECTS = 2_000
MAX_DEPTH = 32

Fail = Callable[[str], EngineError]
"""Makes the error to raise from a message (the caller adds the file's name)."""


class _Refused(yaml.YAMLError):
    def __init__(self, message: str, mark: yaml.Mark | None) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark


class _GuardedLoader(yaml.SafeLoader):
    """PyYAML's safe loader that refuses anchors, aliases and nesting over MAX_DEPTH."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _Refused(
                "the YAML uses anchors/aliases (&name / *name), which are refused here; "
                "write the objects out in full",
                event.start_mark,
            )
        self._depth += 1
        if self._depth > MAX_DEPTH:
            raise _Refused(f"the YAML nests more than {MAX_DEPTH} levels deep", event.start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


@dataclass(frozen=True)
class KubeObject:
    """One Kubernetes object of the file.

    Attributes:
        label: its place in the file, e.g. ``document 2, item 5``.
        where: how messages name it, e.g. ``document 2, item 5 (ClusterQueue 'team-a')``.
        api_version: its ``apiVersion`` ("" when absent).
        kind: its ``kind``.
        name: its ``metadata.name`` ("" when absent).
        namespace: its ``metadata.namespace`` ("" when absent).
        body: the object as loaded.
    """

    label: str
    where: str
    api_version: str
    kind: str
    name: str
    namespace: str
    body: dict[str, Any]


def load_objects(text: str, fail: Fail) -> list[KubeObject]:
    """The objects of multi-document YAML, ``kind: List`` documents opened into their items.

    Empty documents (a lone ``---``) are skipped.

    Raises:
        EngineError: (from ``fail``) for text over the limits, YAML that does not parse (with
            its line), anchors or aliases, a document or item that is not a mapping, or an
            ``apiVersion``, ``kind`` or ``metadata.name`` that is not text.
    """
    if len(text) > MAX_CHARS:
        raise fail(f"the text has {len(text):,} characters, more than the {MAX_CHARS:,} allowed")
    out: list[KubeObject] = []
    for index, document in enumerate(_documents(text, fail), start=1):
        if document is None:
            continue
        label = f"document {index}"
        if isinstance(document, dict) and document.get("kind") == "List":
            items = document.get("items") or []
            if not isinstance(items, list):
                raise fail(f"{label} (List): items must be a list, got {_type(items)}")
            out += [_object(f"{label}, item {i}", item, fail) for i, item in enumerate(items, 1)]
        else:
            out.append(_object(label, document, fail))
        if len(out) > MAX_OBJECTS:
            raise fail(f"the file has more than {MAX_OBJECTS:,} objects (documents and items)")
    return out


def _documents(text: str, fail: Fail) -> Iterator[Any]:
    loader = _GuardedLoader(text)
    count = 0
    try:
        while loader.check_data():
            count += 1
            if count > MAX_OBJECTS:
                raise fail(f"the file has more than {MAX_OBJECTS:,} YAML documents")
            yield loader.get_data()
    except _Refused as error:
        raise fail(f"{error.message}{_line(error.mark)}") from None
    except yaml.MarkedYAMLError as error:
        problem = error.problem or error.context or "invalid YAML"
        raise fail(f"the YAML does not parse: {problem}{_line(error.problem_mark)}") from None
    except yaml.YAMLError as error:
        raise fail(f"the YAML does not parse: {error}") from None
    finally:
        loader.dispose()


def _line(mark: yaml.Mark | None) -> str:
    return f" (line {mark.line + 1}, column {mark.column + 1})" if mark is not None else ""


def _object(label: str, body: object, fail: Fail) -> KubeObject:
    if not isinstance(body, dict):
        raise fail(f"{label} is {_type(body)}, not a mapping (a Kubernetes object)")
    fields = Fields(body, label, "", fail)
    kind = fields.text("kind", "")
    metadata = fields.mapping("metadata")
    name = metadata.text("name", "")
    where = f"{label} ({kind} {name!r})" if name else f"{label} ({kind or 'no kind'})"
    return KubeObject(
        label,
        where,
        fields.text("apiVersion", ""),
        kind,
        name,
        metadata.text("namespace", ""),
        body,
    )


def _type(value: object) -> str:
    names = {dict: "a mapping", list: "a list", str: "text", bool: "a boolean", int: "a number"}
    return "nothing" if value is None else names.get(type(value), type(value).__name__)


class Fields:
    """One mapping of an object, read with its path so that messages name the field.

    Args:
        data: the mapping as loaded.
        where: the object, as :attr:`KubeObject.where`.
        path: the mapping's path in the object (``"spec.preemption"``; "" for the object).
        fail: makes the error to raise.
    """

    def __init__(self, data: dict[Any, Any], where: str, path: str, fail: Fail) -> None:
        self.data = data
        self.where = where
        self.path = path
        self.fail = fail

    def at(self, key: str) -> str:
        """The path of ``key`` in the object."""
        return f"{self.path}.{key}" if self.path else key

    def error(self, key: str, message: str) -> EngineError:
        """The error for field ``key``, naming the object and the field."""
        return self.fail(f"{self.where}: {self.at(key)}: {message}")

    def only(self, allowed: Collection[str]) -> None:
        """Refuses keys not in ``allowed``, listing the allowed ones."""
        for key in self.data:
            if key not in allowed:
                raise self.error(str(key), f"unknown field; allowed here: {sorted(allowed)}")

    def raw(self, key: str) -> Any:
        """The value as loaded (None when absent)."""
        return self.data.get(key)

    def text(self, key: str, default: str | None = None) -> str:
        """A string field; ``default`` when absent or null (required when None)."""
        value = self.data.get(key)
        if value is None and default is not None:
            return default
        if not isinstance(value, str):
            raise self.error(key, f"must be text, got {_type(value)}")
        return value

    def integer(self, key: str, default: int | None = None) -> int:
        """A whole-number field (not a boolean); ``default`` when absent (required when None)."""
        value = self.data.get(key)
        if value is None and default is not None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(key, f"must be a whole number, got {value!r}")
        return value

    def mapping(self, key: str) -> Fields:
        """A nested mapping (empty when absent or null)."""
        value = self.data.get(key)
        if value is None:
            value = {}
        if not isinstance(value, dict):
            raise self.error(key, f"must be a mapping, got {_type(value)}")
        return Fields(value, self.where, self.at(key), self.fail)

    def mappings(self, key: str) -> list[Fields]:
        """A list of mappings (empty when absent or null)."""
        out = []
        for i, item in enumerate(self.items(key)):
            if not isinstance(item, dict):
                raise self.error(f"{key}[{i}]", f"must be a mapping, got {_type(item)}")
            out.append(Fields(item, self.where, self.at(f"{key}[{i}]"), self.fail))
        return out

    def items(self, key: str) -> list[Any]:
        """A list (empty when absent or null)."""
        value = self.data.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.error(key, f"must be a list, got {_type(value)}")
        return value

    def strings(self, key: str) -> list[str]:
        """A list of strings (empty when absent)."""
        values = self.items(key)
        for i, value in enumerate(values):
            if not isinstance(value, str):
                raise self.error(f"{key}[{i}]", f"must be text, got {_type(value)}")
        return values

    def quantity(self, key: str) -> Fraction | None:
        """A Kubernetes quantity (number or string), exactly; None when absent."""
        value = self.data.get(key)
        if value is None:
            return None
        try:
            return parse_quantity(value)
        except ValueError as error:
            raise self.error(key, str(error)) from None


_QUANTITY = re.compile(
    r"([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([+-]?\d+))?(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])?"
)
_SUFFIX = {
    "": Fraction(1), "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000),
    "k": Fraction(10**3), "M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12),
    "P": Fraction(10**15), "E": Fraction(10**18), "Ki": Fraction(2**10), "Mi": Fraction(2**20),
    "Gi": Fraction(2**30), "Ti": Fraction(2**40), "Pi": Fraction(2**50), "Ei": Fraction(2**60),
}  # fmt: skip


def parse_quantity(value: object) -> Fraction:
    """A Kubernetes quantity (``8``, ``"8"``, ``"0.5"``, ``"500m"``, ``"2Ki"``, ``"1e3"``) exactly.

    Raises:
        ValueError: for a boolean, a non-finite number, or text that is no quantity.
    """
    if isinstance(value, bool):
        raise ValueError(f"must be a quantity, got {value!r}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"must be a finite quantity, got {value!r}")
        return Fraction(repr(value))
    match = _QUANTITY.fullmatch(value.strip()) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f'must be a quantity such as 8 or "0.5", got {value!r}')
    number, exponent, suffix = match.groups()
    scale = Fraction(10) ** int(exponent) if exponent else Fraction(1)
    return Fraction(number) * scale * _SUFFIX[suffix or ""]


_DURATION_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNIT = {
    "ns": Fraction(1, 10**9), "us": Fraction(1, 10**6), "µs": Fraction(1, 10**6),
    "μs": Fraction(1, 10**6), "ms": Fraction(1, 1000), "s": Fraction(1), "m": Fraction(60),
    "h": Fraction(3600),
}  # fmt: skip


def parse_duration(text: str) -> float:
    """Seconds in a Go duration such as ``"168h"``, ``"1h30m"``, ``"10m"``, ``"500ms"``, ``"0"``.

    Raises:
        ValueError: for text that is no Go duration, or a negative one.
    """
    body = text.strip()
    if body.startswith("-") and body not in ("-0",):
        raise ValueError(f"must be a duration >= 0, got {text!r}")
    body = body.lstrip("+-")
    if body == "0":
        return 0.0
    parts = list(_DURATION_PART.finditer(body))
    if not parts or "".join(p.group(0) for p in parts) != body:
        raise ValueError(f'must be a Go duration such as "168h" or "10m", got {text!r}')
    return float(sum(Fraction(p.group(1)) * _DURATION_UNIT[p.group(2)] for p in parts))


def format_duration(seconds: float) -> str:
    """A Go duration that :func:`parse_duration` reads back as ``seconds`` exactly
    (``604800 -> "168h"``, ``90 -> "1m30s"``, ``0.25 -> "0.25s"``)."""
    if not float(seconds).is_integer():
        return f"{Decimal(repr(float(seconds))):f}s"
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{v}{u}" for v, u in ((hours, "h"), (minutes, "m"), (secs, "s")) if v]
    return "".join(parts) or "0s"
