"""Hadar's per-node dual prices during one decision (Sultana et al., IPDPS 2024), reconstructed.

[R] Each node (one worker type) costs ``L (U/L)^(used/capacity)`` per GPU, ``used`` counting the
GPUs granted earlier in the same decision; :class:`PriceBook` keeps that use and finds the
cheapest GPUs in a rank order (:mod:`engine.policies.hadar.hadar` lists the rules). The prices
choose the nodes, so Hadar and HadarE pin their parts to nodes themselves.
"""

from __future__ import annotations

import bisect
import copy
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from engine.policies.base import Part

TOLERANCE = 1e-9
"""Relative slack of price comparisons (utilities and prices are sums of floats)."""

Rank = Callable[[str, float, int], tuple[float, ...] | None]
"""(worker type, price per GPU, free GPUs of a node) -> sort key, or None to skip the node."""

Level = tuple[str, int, float, list[int]]
"""(worker type, free GPUs per node, price per GPU, nodes in node order) of one group."""

Ranked = tuple[tuple[float, ...], str, int, float, list[int]]
"""A group as :meth:`PriceBook.ranked` lists it: (rank key, worker type, free, price, nodes)."""


class Offer(NamedTuple):
    """A candidate grant: its parts, the utility it earns this round and its summed price."""

    parts: tuple[Part, ...]
    utility: float
    price: float

    @property
    def net(self) -> float:
        return self.utility - self.price


class PriceBook:
    """GPUs granted per node during one decision, and each node's dual price per GPU.

    Nodes are grouped by (worker type, capacity, GPUs used): the nodes of a group cost the same
    and have the same free GPUs, so choosing slots scans groups rather than nodes. The groups
    and their prices are listed once between two :meth:`take` calls (every job of a decision
    reads them, for every slowest type it tries).
    """

    def __init__(
        self,
        node_types: Sequence[str],
        node_gpus: Sequence[int],
        free: Sequence[int],
        low: float,
        high: float,
    ) -> None:
        """Args: each node's worker type and GPUs (:class:`NodeLayout`'s ``node_type`` and
        ``node_gpus``), its free GPUs now, and ``L`` and ``U``."""
        self.node_types = node_types
        self.node_gpus = node_gpus
        self.used = [gpus - f for gpus, f in zip(node_gpus, free, strict=True)]
        self.low = low
        self.ratio = high / low
        self.total_free = sum(free)
        self._groups: dict[tuple[str, int, int], list[int]] = {}
        for node, node_free in enumerate(free):
            if node_free > 0:
                gpus = node_gpus[node]
                key = (node_types[node], gpus, gpus - node_free)
                self._groups.setdefault(key, []).append(node)
        self._levels: list[Level] | None = None
        self._min_price: float | None = None

    def repriced(self, low: float, high: float) -> PriceBook:
        """A copy of this book with its nodes' use so far, priced at ``L = low``, ``U = high``
        (cheaper than listing the nodes again)."""
        book = copy.copy(self)
        book.used = self.used[:]
        book.low, book.ratio = low, high / low
        book._groups = {key: members[:] for key, members in self._groups.items()}
        book._levels, book._min_price = None, None
        return book

    def price(self, node: int) -> float:
        """Price per GPU of ``node`` at its use so far."""
        return self.price_at(self.used[node], self.node_gpus[node])

    def price_at(self, used: int, capacity: int) -> float:
        """Price per GPU of a node of ``capacity`` GPUs with ``used`` taken:
        ``L (U/L)^(used/capacity)``."""
        return self.low * self.ratio ** (used / capacity)

    def free(self, node: int) -> int:
        return self.node_gpus[node] - self.used[node]

    def levels(self) -> list[Level]:
        """(worker type, free GPUs per node, price per GPU, nodes) of every group with room."""
        levels = self._levels
        if levels is None:
            price_at = self.price_at
            levels = self._levels = [
                (worker_type, capacity - used, price_at(used, capacity), members)
                for (worker_type, capacity, used), members in self._groups.items()
            ]
        return levels

    def min_price(self) -> float:
        """The lowest price per GPU among nodes with room (inf when none has). Kept across
        :meth:`take`, which lowers it only through a group it creates and raises it only by
        emptying a group at the lowest price (then it is listed again)."""
        price = self._min_price
        if price is None:
            price = self._min_price = min(
                (self.price_at(used, capacity) for _, capacity, used in self._groups),
                default=float("inf"),
            )
        return price

    def fits(self, parts: Sequence[Part]) -> bool:
        """Whether every part's node still has its GPUs free."""
        need: dict[int, int] = {}
        for part in parts:
            if part.node < 0:
                return False
            need[part.node] = need.get(part.node, 0) + part.num_gpus
        return all(self.free(node) >= count for node, count in need.items())

    def cost(self, parts: Sequence[Part]) -> float:
        """Summed price of ``parts`` at the nodes' use before them."""
        return sum(part.num_gpus * self.price(part.node) for part in parts)

    def cost_if_fits(self, parts: Sequence[Part]) -> float | None:
        """:meth:`cost` of ``parts`` if they :meth:`fits`, else None (one part: at once)."""
        if len(parts) == 1:
            node, num_gpus = parts[0].node, parts[0].num_gpus
            if node < 0 or self.node_gpus[node] - self.used[node] < num_gpus:
                return None
            return num_gpus * self.price(node)  # the sum of one term
        return self.cost(parts) if self.fits(parts) else None

    def cheapest(self, need: int, rank: Rank) -> tuple[tuple[Part, ...], float] | None:
        """The ``need`` GPUs first in ``rank`` order (whole groups in node order), with their
        summed price; None if the ranked nodes have fewer free GPUs."""
        return self.first(need, self.ranked(rank))

    def ranked(self, rank: Rank) -> list[Ranked]:
        """The groups ``rank`` keeps, as (key, worker type, free, price, nodes), in rank order
        (ties: worker type, then first node). Valid until the next :meth:`take`."""
        ranked = []
        for worker_type, free, price, members in self.levels():
            key = rank(worker_type, price, free)
            if key is not None:
                ranked.append((key, worker_type, free, price, members))
        ranked.sort(key=lambda row: (row[0], row[1], row[4][0]))
        return ranked

    @staticmethod
    def first(need: int, ranked: Iterable[Ranked]) -> tuple[tuple[Part, ...], float] | None:
        """The first ``need`` GPUs of ``ranked`` groups (whole groups in node order), with their
        summed price; None if they have fewer free GPUs."""
        parts: list[Part] = []
        cost, left = 0.0, need
        for _, worker_type, free, price, members in ranked:
            for node in members:
                take = min(free, left)
                parts.append(Part(worker_type, take, node))
                cost += take * price
                left -= take
                if left == 0:
                    return tuple(sorted(parts, key=lambda p: p.node)), cost
        return None

    def take(self, parts: Sequence[Part]) -> None:
        """Marks the parts' GPUs as granted (prices of their nodes rise)."""
        self._levels = None
        groups = self._groups
        for part in parts:
            node = part.node
            key = (self.node_types[node], self.node_gpus[node], self.used[node])
            group = groups[key]
            group.remove(node)
            if not group:
                del groups[key]
                self._track_least(key, created=False)
            self.used[node] += part.num_gpus
            key = (key[0], key[1], self.used[node])
            if key[2] < key[1]:
                if key not in groups:
                    groups[key] = []
                    self._track_least(key, created=True)
                bisect.insort(groups[key], node)
            self.total_free -= part.num_gpus

    def _track_least(self, key: tuple[str, int, int], created: bool) -> None:
        """Keeps :meth:`min_price` right when the group ``key`` is created or emptied."""
        least = self._min_price
        if least is None:
            return
        price = self.price_at(key[2], key[1])
        if created and price < least:
            self._min_price = price
        elif not created and price <= least:
            self._min_price = None  # listed again when asked
