"""Checks of a scenario that its dataclasses cannot make: known names, positive sizes, unique
policy labels, failures a policy can model. :func:`engine.scenario.run` calls
:func:`validate_config` before every run; the dashboard calls it on a scenario from a link.
"""

from __future__ import annotations

from engine.config import FAILURE_DISTRIBUTIONS, ScenarioConfig, spares_of
from engine.errors import ConfigError
from engine.placement import list_placements
from engine.policies import get_policy, list_policies
from engine.policies.base import build_params, display_name
from engine.power.model import type_figures
from engine.sharing import check_policy_sharing
from engine.step_time.throughput import ThroughputMatrix


def validate_config(config: ScenarioConfig, matrix: ThroughputMatrix) -> None:
    """Checks what the dataclasses cannot: known names, positive sizes, unique policy labels.

    Raises:
        ConfigError: naming the offending entry.
    """
    _validate_cluster(config, matrix)
    _validate_network(config)
    if config.rounds.round_duration_s <= 0:
        raise ConfigError("rounds.round_duration_s must be > 0")
    if config.rounds.checkpoint_restore_s < 0 or config.rounds.reallocation_interval_s < 0:
        raise ConfigError("rounds: checkpoint_restore_s and reallocation_interval_s must be >= 0")
    if not config.rounds.step_time_overhead >= 0:
        raise ConfigError("rounds.step_time_overhead must be >= 0 (0.015 = steps 1.5% slower)")
    if config.placement not in list_placements():
        raise ConfigError(f"unknown placement {config.placement!r}; known: {list_placements()}")
    if not config.policies:
        raise ConfigError("pick at least one policy")
    names = [display_name(spec) for spec in config.policies]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ConfigError(f"policies {duplicates} appear twice; give each a distinct label")
    sharing = [name for name in list_policies() if get_policy(name).shares_gpus]
    for i, spec in enumerate(config.policies, start=1):
        try:
            shares_gpus = get_policy(spec.name).shares_gpus
            check_policy_sharing(display_name(spec), shares_gpus, spec.params, sharing)
            build_params(get_policy(spec.name), spec.params)
        except ConfigError as exc:
            raise ConfigError(f"policies[{i}] ({display_name(spec)[:60]}): {exc}") from exc
    if config.failures.enabled:
        validate_failures(config)
    if config.power is not None:
        config.power.check()
        type_figures(config.power, sorted(config.cluster.capacity()))


def _check_types(name: str, worker_types: list[str], nodes_by_type: dict[str, int]) -> None:
    """Each worker type of ``failures.<name>`` listed once and in the GPU mix.

    Raises:
        ConfigError: naming ``failures.<name>[i].worker_type``.
    """
    for i, worker_type in enumerate(worker_types):
        if worker_type in worker_types[:i]:
            raise ConfigError(f"failures.{name}[{i}].worker_type: {worker_type!r} is listed twice")
        if worker_type not in nodes_by_type:
            raise ConfigError(
                f"failures.{name}[{i}].worker_type: {worker_type!r} is not in the GPU "
                f"mix ({sorted(nodes_by_type)})"
            )


def validate_failures(config: ScenarioConfig) -> None:
    """Checks ``config.failures`` (:class:`engine.config.FailureConfig`): positive times, a
    known distribution, fewer spares than nodes of every worker type, and policies that model
    failed nodes (:attr:`engine.policies.base.Policy.models_failures`).

    Raises:
        ConfigError: naming the field (``failures.<name>``) or the policy.
    """
    failures = config.failures
    positive = {"node_mtbf_h": failures.node_mtbf_h, "weibull_shape": failures.weibull_shape}
    positive.update({f"type_mtbf[{i}].node_mtbf_h": t.node_mtbf_h
                     for i, t in enumerate(failures.type_mtbf)})  # fmt: skip
    if failures.checkpoint_interval_s is not None:
        positive["checkpoint_interval_s"] = failures.checkpoint_interval_s
    for name, value in positive.items():
        if not value > 0 or value == float("inf"):
            raise ConfigError(f"failures.{name} must be a number > 0, got {value!r}")
    for name in ("repair_h", "rack_mtbf_h", "checkpoint_cost_s", "spare_swap_s"):
        value = getattr(failures, name)
        if not 0 <= value < float("inf"):
            raise ConfigError(f"failures.{name} must be a number >= 0, got {value!r}")
    if failures.distribution not in FAILURE_DISTRIBUTIONS:
        raise ConfigError(
            f"failures.distribution must be one of {list(FAILURE_DISTRIBUTIONS)}, "
            f"got {failures.distribution!r}"
        )
    nodes_by_type: dict[str, int] = {}
    for group in config.cluster.node_groups:
        nodes_by_type[group.worker_type] = nodes_by_type.get(group.worker_type, 0) + group.nodes
    if failures.seed is not None and failures.seed < 0:
        raise ConfigError(f"failures.seed must be >= 0 or empty, got {failures.seed}")
    _check_types("type_mtbf", [e.worker_type for e in failures.type_mtbf], nodes_by_type)
    _check_types("type_spares", [e.worker_type for e in failures.type_spares], nodes_by_type)
    if failures.spares_per_type < 0:
        raise ConfigError(f"failures.spares_per_type must be >= 0, got {failures.spares_per_type}")
    for i, entry in enumerate(failures.type_spares):
        if entry.spares < 0:
            raise ConfigError(f"failures.type_spares[{i}].spares must be >= 0, got {entry.spares}")
    listed = {e.worker_type: f"type_spares[{i}].spares" for i, e in enumerate(failures.type_spares)}
    for worker_type, nodes in nodes_by_type.items():
        spares = spares_of(failures, worker_type)
        if spares >= nodes:
            raise ConfigError(
                f"failures.{listed.get(worker_type, 'spares_per_type')}: {spares} spare node(s) "
                f"of {worker_type} leave none of its {nodes} node(s) to schedule on"
            )
    if config.rounds.gavel_rules:
        raise ConfigError(
            "failures: not modelled under Gavel's simulator rules (rounds.gavel_rules)"
        )
    for spec in config.policies:
        if not get_policy(spec.name).models_failures:
            raise ConfigError(
                f"failures: policy {display_name(spec)!r} does not model failed nodes yet; "
                f"these do: {failure_policies()}"
            )


def failure_policies() -> list[str]:
    """Registry names of the policies that model failed nodes (``models_failures``)."""
    return [name for name in list_policies() if get_policy(name).models_failures]


def _validate_cluster(config: ScenarioConfig, matrix: ThroughputMatrix) -> None:
    if not config.cluster.node_groups:
        raise ConfigError("the GPU mix is empty; add at least one row")
    known = matrix.worker_types
    for i, group in enumerate(config.cluster.node_groups, start=1):
        where = f"GPU mix row {i}"
        if not matrix.has_worker_type(group.worker_type):
            raise ConfigError(f"{where}: unknown worker type {group.worker_type!r}; known: {known}")
        if group.nodes < 1 or group.gpus_per_node < 1:
            raise ConfigError(f"{where}: nodes and GPUs per node must be >= 1")
        if not group.rack:
            raise ConfigError(f"{where}: rack name is empty")


def _validate_network(config: ScenarioConfig) -> None:
    net = config.network
    if min(net.intra_node_gbps, net.intra_rack_gbps, net.cross_rack_gbps) <= 0:
        raise ConfigError("network: bandwidths must be > 0")
    if not 0 <= net.latency_s <= 1:  # [R] a per-hop latency of a second is no data centre's
        raise ConfigError(f"network: latency_s is {net.latency_s:g}; it must be 0 to 1 s")
    if net.uplink_oversubscription < 1:
        raise ConfigError("network: uplink_oversubscription must be >= 1")
    if not 0 <= net.background_load <= 0.9:
        raise ConfigError("network: background_load must be between 0 and 0.9")
    racks = {g.rack for g in config.cluster.node_groups}
    num_nodes = sum(g.nodes for g in config.cluster.node_groups)
    for i, ep in enumerate(net.congestion, start=1):
        where = f"congestion episode {i}"
        if not ep.start_s < ep.end_s:
            raise ConfigError(f"{where}: start_s must be before end_s")
        if ep.factor < 1:
            raise ConfigError(f"{where}: factor must be >= 1 (it divides bandwidth)")
        kind, _, name = ep.links.partition(":")
        valid = (
            ep.links in ("inter_node", "cross_rack")
            or (kind in ("rack", "uplink") and name in racks)
            or (kind == "node" and name.startswith("n") and name[1:].isdigit()
                and int(name[1:]) < num_nodes)
        )  # fmt: skip
        if not valid:
            raise ConfigError(
                f"{where}: links must be inter_node, cross_rack, rack:<rack>, uplink:<rack> "
                f"(racks: {sorted(racks)}) or node:n<i> (n0 to n{num_nodes - 1}); "
                f"got {ep.links!r}"
            )
