"""Edited tables <-> the scenario's queues (:class:`engine.quota.model.QueueConfig`).

The Teams page edits one QueueConfig in four tables: ClusterQueues, their GPU quotas (one row
per ClusterQueue and flavor), LocalQueues and cohorts. Each table reads its rows
(``*_from_frame``, ConfigError naming the row and column) and is then merged into the queues
(``*_into``), which keeps what the table does not show (a cohort's own quotas, a LocalQueue's
namespace, a ClusterQueue's priority threshold). A ClusterQueue renamed in place (its row kept,
its old name gone) keeps its quotas and its LocalQueues. Kueue's own rules stay in
:meth:`QueueConfig.check`; these functions only read cells.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pandas as pd

from dashboard.tables import blank, cell, filled_rows
from engine.errors import ConfigError
from engine.quota.model import (
    ClusterQueue,
    Cohort,
    FlavorQuota,
    LocalQueue,
    Preemption,
    QueueConfig,
)

CQ_COLUMNS = ["name", "cohort", "queueing_strategy", "within_cluster_queue",
              "reclaim_within_cohort", "borrow_within_cohort", "when_can_borrow",
              "fair_weight"]  # fmt: skip
QUOTA_COLUMNS = ["cluster_queue", "flavor", "nominal_gpus", "borrowing_limit_gpus",
                 "lending_limit_gpus"]  # fmt: skip
LOCAL_COLUMNS = ["name", "cluster_queue"]
COHORT_COLUMNS = ["name", "parent"]
DEFAULTS = {"queueing_strategy": "BestEffortFIFO", "within_cluster_queue": "Never",
            "reclaim_within_cohort": "Never", "borrow_within_cohort": "Never",
            "when_can_borrow": "MayStopSearch"}  # fmt: skip


def _text(row: pd.Series, column: str, default: str = "") -> str:
    value = row.get(column)
    return default if blank(value) else str(value).strip()


def _name(row: pd.Series, where: str, column: str = "name") -> str:
    name = _text(row, column)
    if not name:
        raise ConfigError(f"{where}: column '{column}' is empty")
    return name


def cluster_queues_to_frame(queues: QueueConfig) -> pd.DataFrame:
    rows = [(cq.name, cq.cohort, cq.queueing_strategy, cq.preemption.within_cluster_queue,
             cq.preemption.reclaim_within_cohort, cq.preemption.borrow_within_cohort,
             cq.when_can_borrow, float(cq.fair_weight))
            for cq in queues.cluster_queues]  # fmt: skip
    return pd.DataFrame(rows, columns=CQ_COLUMNS).astype({"fair_weight": float})


def cluster_queues_from_frame(frame: pd.DataFrame) -> tuple[ClusterQueue, ...]:
    """The ClusterQueues table's rows (quotas empty: :func:`cluster_queues_into` adds them)."""
    queues = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"ClusterQueues row {i}"
        text = {column: _text(row, column, default) for column, default in DEFAULTS.items()}
        weight = 1.0 if blank(row.get("fair_weight")) else cell(row, "fair_weight", float, where)
        queues.append(ClusterQueue(
            _name(row, where), cohort=_text(row, "cohort"),
            queueing_strategy=text["queueing_strategy"], when_can_borrow=text["when_can_borrow"],
            preemption=Preemption(text["within_cluster_queue"], text["reclaim_within_cohort"],
                                  text["borrow_within_cohort"]),
            fair_weight=weight,
        ))  # fmt: skip
    return tuple(queues)


def cluster_queues_into(queues: QueueConfig, edited: tuple[ClusterQueue, ...]) -> QueueConfig:
    """``queues`` with the edited ClusterQueues; each keeps its quotas, fungibility on preemption
    and priority threshold (by name, or by row for a renamed one), and LocalQueues follow a
    rename."""
    old = queues.cluster_queues
    names = {cq.name for cq in edited}
    by_name = {cq.name: cq for cq in old}
    renamed: dict[str, str] = {}
    merged = []
    for i, cq in enumerate(edited):
        before = by_name.get(cq.name)
        if before is None and i < len(old) and old[i].name not in names:
            before = old[i]
            renamed[before.name] = cq.name
        if before is not None:
            threshold = before.preemption.max_priority_threshold
            cq = dataclasses.replace(
                cq, flavors=before.flavors, when_can_preempt=before.when_can_preempt,
                preemption=dataclasses.replace(cq.preemption, max_priority_threshold=threshold),
            )  # fmt: skip
        merged.append(cq)
    local = tuple(
        dataclasses.replace(q, cluster_queue=renamed.get(q.cluster_queue, q.cluster_queue))
        for q in queues.local_queues
    )
    return dataclasses.replace(queues, cluster_queues=tuple(merged), local_queues=local)


def quotas_to_frame(queues: QueueConfig) -> pd.DataFrame:
    rows = [(cq.name, q.flavor, q.nominal_gpus, q.borrowing_limit_gpus, q.lending_limit_gpus)
            for cq in queues.cluster_queues for q in cq.flavors]  # fmt: skip
    return pd.DataFrame(rows, columns=QUOTA_COLUMNS).astype({c: "Int64" for c in QUOTA_COLUMNS[2:]})


def quotas_from_frame(frame: pd.DataFrame) -> tuple[tuple[str, FlavorQuota], ...]:
    """(ClusterQueue, quota) per row; a blank limit is None (no limit), a blank nominal 0."""
    quotas = []
    for i, row in enumerate(filled_rows(frame), start=1):
        where = f"quotas row {i}"
        limits = {
            c: None if blank(row.get(c)) else cell(row, c, int, where) for c in QUOTA_COLUMNS[3:]
        }
        nominal = 0 if blank(row.get("nominal_gpus")) else cell(row, "nominal_gpus", int, where)
        flavor = FlavorQuota(_name(row, where, "flavor"), nominal, **limits)
        quotas.append((_name(row, where, "cluster_queue"), flavor))
    return tuple(quotas)


def quotas_into(queues: QueueConfig, edited: tuple[tuple[str, FlavorQuota], ...]) -> QueueConfig:
    """``queues`` with each ClusterQueue's flavors from the quotas table, in its rows' order.

    Raises:
        ConfigError: for a row naming no ClusterQueue of the ClusterQueues table.
    """
    names = [cq.name for cq in queues.cluster_queues]
    for i, (name, _) in enumerate(edited, start=1):
        if name not in names:
            raise ConfigError(f"quotas row {i}: column 'cluster_queue': {name!r} is not in the "
                              f"ClusterQueues table ({', '.join(names) or 'empty'})")  # fmt: skip
    cluster_queues = tuple(
        dataclasses.replace(cq, flavors=tuple(q for name, q in edited if name == cq.name))
        for cq in queues.cluster_queues
    )
    return dataclasses.replace(queues, cluster_queues=cluster_queues)


def local_queues_to_frame(queues: QueueConfig) -> pd.DataFrame:
    rows = [(q.name, q.cluster_queue) for q in queues.local_queues]
    return pd.DataFrame(rows, columns=LOCAL_COLUMNS)


def local_queues_from_frame(frame: pd.DataFrame) -> tuple[LocalQueue, ...]:
    return tuple(
        LocalQueue(
            _name(row, f"LocalQueues row {i}"), _name(row, f"LocalQueues row {i}", "cluster_queue")
        )  # fmt: skip
        for i, row in enumerate(filled_rows(frame), start=1)
    )


def local_queues_into(queues: QueueConfig, edited: tuple[LocalQueue, ...]) -> QueueConfig:
    """``queues`` with the edited LocalQueues (each keeps its namespace by name)."""
    namespace = {q.name: q.namespace for q in queues.local_queues}
    local = tuple(dataclasses.replace(q, namespace=namespace.get(q.name, q.namespace))
                  for q in edited)  # fmt: skip
    return dataclasses.replace(queues, local_queues=local)


def cohorts_to_frame(queues: QueueConfig) -> pd.DataFrame:
    return pd.DataFrame([(c.name, c.parent) for c in queues.cohorts], columns=COHORT_COLUMNS)


def cohorts_from_frame(frame: pd.DataFrame) -> tuple[Cohort, ...]:
    return tuple(
        Cohort(_name(row, f"cohorts row {i}"), parent=_text(row, "parent"))
        for i, row in enumerate(filled_rows(frame), start=1)
    )


def cohorts_into(queues: QueueConfig, edited: tuple[Cohort, ...]) -> QueueConfig:
    """``queues`` with the edited cohorts (each keeps its own quotas and weight by name)."""
    old = {c.name: c for c in queues.cohorts}
    cohorts = tuple(
        dataclasses.replace(c, flavors=old[c.name].flavors, fair_weight=old[c.name].fair_weight)
        if c.name in old else c
        for c in edited
    )  # fmt: skip
    return dataclasses.replace(queues, cohorts=cohorts)


def queue_tables() -> dict[str, tuple[Any, Any, Any]]:
    """Session key -> (to_frame, from_frame, into) of each queue table, in the page's order."""
    return {
        "team_cluster_queues": (cluster_queues_to_frame, cluster_queues_from_frame,
                                cluster_queues_into),
        "team_quotas": (quotas_to_frame, quotas_from_frame, quotas_into),
        "team_local_queues": (local_queues_to_frame, local_queues_from_frame, local_queues_into),
        "team_cohorts": (cohorts_to_frame, cohorts_from_frame, cohorts_into),
    }  # fmt: skip
