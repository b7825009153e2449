"""A work budget: how much one run, one study and one session may ask of a shared server.

The dashboard is one server for a whole meeting or class, and a link is written by whoever
sends it, so every scenario, study and plan is checked against a :class:`Budget` before any
work starts (no trace parsed, no job simulated): a request beyond it gets a
:class:`BudgetError` naming the limit, the value asked for and the setting that raises it.

Whoever runs the server sets the limits by environment variable (``GPUSCHED_MAX_JOBS=50000``)
or in ``.streamlit/secrets.toml`` under ``[budget]`` (``max_jobs = 50000``); a variable wins
over the file. The defaults [R] fit a 2-core, 24 GiB machine shared by 10 people: two worker
processes at a time for the whole server (one per core), each allowed 3 GiB beyond its
imports and 900 s, runs of up to 20,000 jobs and studies of up to 240 runs. Measured with
``benchmarks/bench_shared_server.py`` (November 2026, this machine): ten sessions opening the
Philly sample under three policies at once peak at 0.72 GiB for the server and its workers
together; one run of 20,000 jobs under the same three policies at 0.97 GiB.

**The budget follows the address the server listens on** (:func:`budget_for`). On localhost
(the README's ``scripts/dashboard.sh``) only its own user can reach it, so the limits come
from the machine (:func:`machine_budget`): the full Philly trace (82,247 jobs) and a
25,000-GPU cluster run without a setting. On any other address (Streamlit's default listens
on every address) the shared defaults above apply. Either way the operator's settings win,
and every refusal names the budget in force and the setting that changes it.

The command line has no budget: it runs on its user's own machine.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.config import ScenarioConfig
from engine.errors import ConfigError
from engine.sources import SAMPLE_DIR, list_samples

ENV_PREFIX = "GPUSCHED_"
SECRETS_SECTION = "budget"
GIB = 1024**3


class BudgetError(ConfigError):
    """A request beyond the server's work budget (the message names limit, value, setting)."""


@dataclass(frozen=True)
class Budget:
    """The limits; each field's environment variable is ``GPUSCHED_`` + its name in capitals.

    Attributes:
        max_jobs: jobs in one run's trace, after ``max_jobs`` and the load what-if.
        max_gpus: GPUs in one scenario's GPU mix.
        max_policies: policies in one scenario.
        max_scenarios: scenarios in one link, and variants in one study.
        max_seeds: seeds of one study.
        max_runs: runs of one study (variants x policies x seeds) or simulations of one plan.
        min_round_s: shortest round (a lease); shorter rounds multiply the decisions.
        max_memory_gb: address space of one worker process, in GiB (a run beyond it stops
            with a message); 0 leaves it unlimited.
        max_run_s: wall time of one run or study, in seconds, before it is stopped.
        workers: worker processes the whole server runs at once (the shared pool's slots).
        session_workers: slots one session's run may take at once.
        session_runs: runs one session may start in all (each policy or study run counts).
        autorun_s: a link runs without a click only if its estimated work is at most this
            many seconds of one core; otherwise it shows what would run and waits for Run.
        max_table_rows: rows of each table of a scenario (GPU-mix groups, congestion
            episodes, extra GPU types; under teams, ClusterQueues, quota rows, LocalQueues
            and cohorts).
    """

    max_jobs: int = field(default=20_000, metadata={"help": "jobs in one run"})
    max_gpus: int = field(default=4_096, metadata={"help": "GPUs in one GPU mix"})
    max_policies: int = field(default=32, metadata={"help": "policies in one scenario"})
    max_scenarios: int = field(default=40, metadata={"help": "scenarios in a link or study"})
    max_seeds: int = field(default=20, metadata={"help": "seeds in one study"})
    max_runs: int = field(default=240, metadata={"help": "runs in one study or plan"})
    min_round_s: float = field(default=30.0, metadata={"help": "shortest round length (s)"})
    max_memory_gb: float = field(default=3.0, metadata={"help": "memory of one worker (GiB)"})
    max_run_s: float = field(default=900.0, metadata={"help": "wall time of one run (s)"})
    workers: int = field(default=2, metadata={"help": "worker processes of the server"})
    session_workers: int = field(default=2, metadata={"help": "workers of one session's run"})
    session_runs: int = field(default=2_000, metadata={"help": "runs one session may start"})
    autorun_s: float = field(default=20.0, metadata={"help": "work a link starts unasked (s)"})
    max_table_rows: int = field(
        default=256, metadata={"help": "rows of a GPU mix, congestion or extra-type table"}
    )
    in_force: str = field(default="the shared budget", compare=False)
    """Which budget this is, in words, for messages (not a limit: no setting reads it)."""

    @property
    def max_memory_bytes(self) -> int | None:
        """``max_memory_gb`` in bytes, None when unlimited."""
        return int(self.max_memory_gb * GIB) if self.max_memory_gb > 0 else None

    def worker_limits(self) -> WorkerLimits:
        """The caps of each worker process: ``max_memory_gb`` and ``max_run_s`` of CPU."""
        return WorkerLimits(self.max_memory_bytes, self.max_run_s if self.max_run_s > 0 else None)

    def refuse(self, limit: str, value: float, what: str) -> BudgetError:
        """The error for ``value`` beyond the limit ``limit`` (a field name)."""
        allowed = getattr(self, limit)
        word = "at least" if limit.startswith("min_") else "at most"
        return BudgetError(
            f"{what} is {_number(value)}; this server allows {word} {_number(allowed)} "
            f"{self.setting(limit)}"
        )

    def setting(self, limit: str) -> str:
        """How to change ``limit`` and which budget is in force, in parentheses."""
        return (
            f"({ENV_PREFIX}{limit.upper()} changes it, set by whoever runs the server; "
            f"in force: {self.in_force})"
        )

    def check(self, limit: str, value: float, what: str) -> None:
        """Raises :meth:`refuse` when ``value`` is beyond ``limit``."""
        allowed = getattr(self, limit)
        beyond = value < allowed if limit.startswith("min_") else value > allowed
        if beyond:
            raise self.refuse(limit, value, what)


def _number(value: float) -> str:
    """12345 -> "12,345"; 0.5 -> "0.5" (a person reads it)."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.6g}"


def load_budget(
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, Any] | None = None,
    base: Budget | None = None,
) -> Budget:
    """The budget from ``secrets`` (the ``[budget]`` table) and ``env`` (which wins), over
    ``base`` (default: the shared budget, :class:`Budget`).

    Raises:
        ConfigError: for an unknown key in ``secrets`` or a value that is not a number >= 0.
    """
    fields = {f.name: f for f in dataclasses.fields(Budget) if "help" in f.metadata}
    unknown = sorted(set(secrets or {}) - set(fields))
    if unknown:
        raise ConfigError(f"[{SECRETS_SECTION}]: unknown key(s) {unknown}; known: {sorted(fields)}")
    values: dict[str, Any] = {}
    for name, f in fields.items():
        raw = (env or {}).get(ENV_PREFIX + name.upper(), (secrets or {}).get(name))
        if raw is None:
            continue
        kind = int if f.type in (int, "int") else float
        try:
            value = kind(float(raw)) if kind is int else float(raw)
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"budget {name}: expected a number, got {raw!r}") from exc
        if not math.isfinite(value) or value < 0:
            raise ConfigError(f"budget {name}: expected a number >= 0, got {raw!r}")
        values[name] = value
    return dataclasses.replace(base or Budget(), **values)


LOCAL_ADDRESSES = frozenset({"localhost", "127.0.0.1", "::1"})
"""Addresses only the machine itself reaches; "" (Streamlit's default) listens on all."""
LOCAL_MAX_WORKERS = 4
"""[R] Worker processes on one person's machine: at most its cores and 4 (a scenario's
policies run side by side; more workers split the memory further)."""
LOCAL_MEMORY_SHARE = 0.8
"""[R] The share of the machine's memory its workers may take together (the rest: the
browser, the server, the system)."""
JOBS_PER_GIB = 60_000
"""Jobs one run may hold per GiB of its worker's memory: 20,000 jobs under three policies
peaked at 0.97 GiB for the server and its workers together (``bench_shared_server.py``,
module docstring), about 0.33 GiB per run of 20,000 jobs."""
GPUS_PER_GIB = 16_384
"""[R] GPUs of a GPU mix per GiB of a worker's memory: a 25,000-GPU cluster fits a worker of
1.6 GiB (an 8 GiB, 4-core laptop)."""


def is_local(address: str | None) -> bool:
    """Whether a server listening on ``address`` is reachable from its own machine only."""
    return (address or "").strip().lower().strip("[]") in LOCAL_ADDRESSES


def machine_budget(memory_bytes: int, cores: int) -> Budget:
    """The budget of one person's machine with ``memory_bytes`` of memory and ``cores`` cores:
    ``workers = min(cores, 4)``, each with 80% of the memory over the workers; jobs and GPUs
    by :data:`JOBS_PER_GIB` and :data:`GPUS_PER_GIB` of that (never below the shared
    budget's); 4 h per run; no session or study counts beyond the shared ones but runs.

    Example: 24 GiB and 2 cores give workers of 9.6 GiB, 576,000 jobs and 157,286 GPUs.
    """
    shared = Budget()
    workers = max(1, min(cores, LOCAL_MAX_WORKERS))
    worker_gib = LOCAL_MEMORY_SHARE * memory_bytes / GIB / workers
    return dataclasses.replace(
        shared, max_jobs=max(shared.max_jobs, int(JOBS_PER_GIB * worker_gib)),
        max_gpus=max(shared.max_gpus, int(GPUS_PER_GIB * worker_gib)),
        max_memory_gb=round(worker_gib, 1), max_run_s=4 * 3600.0, workers=workers,
        session_workers=workers, session_runs=1_000_000, max_runs=2_000,
        in_force=f"the budget of one person's machine ({memory_bytes / GIB:.0f} GiB, {cores} "
        "cores), as the server listens on localhost",
    )  # fmt: skip


def budget_for(
    address: str | None,
    memory_bytes: int,
    cores: int,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, Any] | None = None,
) -> Budget:
    """The budget of a server listening on ``address``: :func:`machine_budget` on localhost
    (when the machine's memory is known, ``memory_bytes > 0``), else the shared budget; then
    the operator's ``secrets`` and ``env`` (:func:`load_budget`).

    Raises:
        ConfigError: as :func:`load_budget`.
    """
    if is_local(address) and memory_bytes > 0 and cores > 0:
        base = machine_budget(memory_bytes, cores)
    elif is_local(address):
        base = Budget(in_force="the shared budget, as this machine's memory is unknown")
    else:
        where = f"listens on {address}" if address else "listens on every address"
        base = Budget(in_force=f"the shared budget, as the server {where}")
    return load_budget(env, secrets, base)


def jobs_bound(config: ScenarioConfig, trace_rows: int | None) -> int:
    """The most jobs ``config``'s run can have, known before the trace is parsed.

    Args:
        trace_rows: lines in the trace file (an upper bound of its jobs), None for a
            synthetic trace.
    """
    trace = config.trace
    jobs = trace.synthetic.num_jobs if trace.source == "synthetic" else trace_rows or 0
    if trace.max_jobs is not None:
        jobs = min(jobs, trace.max_jobs)
    return config.load.num_jobs if config.load.num_jobs is not None else jobs


def check_scenario(
    config: ScenarioConfig, budget: Budget, trace_rows: int | None, name: str = ""
) -> int:
    """Checks one scenario's size: policies, GPUs, round length and jobs; returns the jobs
    bound (:func:`jobs_bound`).

    Raises:
        BudgetError: for the first limit exceeded, naming the scenario when ``name`` is given.
    """
    where = f"scenario {name!r}: " if name else ""
    budget.check("max_policies", len(config.policies), f"{where}the number of policies")
    budget.check("max_gpus", config.cluster.total_gpus, f"{where}the number of GPUs in the GPU mix")
    budget.check("min_round_s", config.rounds.round_duration_s, f"{where}the round length (s)")
    tables = {
        "GPU-mix rows": len(config.cluster.node_groups),
        "congestion episodes": len(config.network.congestion),
        "extra GPU types": len(config.extra_worker_types),
    }
    if config.queues is not None:  # the Teams page's tables
        queues = config.queues
        tables["ClusterQueues"] = len(queues.cluster_queues)
        tables["quota rows"] = sum(len(cq.flavors) for cq in queues.cluster_queues) + sum(
            len(cohort.flavors) for cohort in queues.cohorts
        )
        tables["LocalQueues"] = len(queues.local_queues)
        tables["cohorts"] = len(queues.cohorts)
    for what, rows in tables.items():
        budget.check("max_table_rows", rows, f"{where}the number of {what}")
    jobs = jobs_bound(config, trace_rows)
    budget.check("max_jobs", jobs, where + jobs_words(config, trace_rows))
    return jobs


def jobs_words(config: ScenarioConfig, trace_rows: int | None) -> str:
    """What the jobs bound counts, in words, for a refusal: the trace file's lines when they set
    it (header included, so a 2,000-job CSV reads 2,001) and the setting that lowers it [R]."""
    counted = jobs_bound(config, trace_rows)
    from_lines = config.trace.source != "synthetic" and config.load.num_jobs is None
    if not from_lines or (config.trace.max_jobs is not None and config.trace.max_jobs <= counted):
        return "the number of jobs"
    return (
        "the number of jobs (counted as the trace file's lines, header included, before parsing; "
        '"Use only the first N jobs" lowers it)'
    )


def check_study(scenarios: Iterable[ScenarioConfig], seeds: int, budget: Budget) -> int:
    """Checks a study's counts (scenarios, seeds, runs); returns its runs.

    Raises:
        BudgetError: for the first limit exceeded.
    """
    configs = list(scenarios)
    budget.check("max_scenarios", len(configs), "the number of scenarios")
    budget.check("max_seeds", seeds, "the number of seeds")
    runs = sum(len(c.policies) for c in configs) * seeds
    budget.check("max_runs", runs, "the number of runs (scenarios × policies × seeds)")
    return runs


def count_rows(data: bytes) -> int:
    """Lines in a trace file's bytes: an upper bound of its jobs, counted without parsing."""
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def check_config(
    config: ScenarioConfig, budget: Budget, upload_rows: int | None = None, name: str = ""
) -> int:
    """:func:`check_scenario` with the trace's lines (:func:`trace_rows`): the one check of a
    scenario's size before anything is parsed or run, for every page, link and loaded file;
    returns the jobs bound.

    Args:
        upload_rows: lines of the uploaded trace, counted once when it was stored
            (:meth:`engine.study.traces.TraceStore.rows`); None when its bytes are not here.

    Raises:
        BudgetError: for the first limit exceeded, naming the scenario when ``name`` is given.
    """
    return check_scenario(config, budget, trace_rows(config, upload_rows), name)


def trace_rows(config: ScenarioConfig, upload_rows: int | None = None) -> int | None:
    """Lines of ``config``'s trace file: ``upload_rows`` for an upload (0 when its bytes are
    not here: its run fails later for want of the file, not for its size), the sample's
    counted once per process; None for a synthetic trace (0 for a path, which only a local
    scenario names)."""
    source = config.trace.source
    if source == "synthetic":
        return None
    if source.startswith("upload:"):
        return upload_rows or 0
    if source.startswith("sample:") and source.removeprefix("sample:") in list_samples():
        return _sample_rows(source.removeprefix("sample:"))
    return 0


@lru_cache(maxsize=32)
def _sample_rows(name: str) -> int:
    return count_rows((SAMPLE_DIR / name).read_bytes())


@dataclass(frozen=True)
class WorkerLimits:
    """Caps of each pool worker, set by the OS (Linux ``setrlimit``; None: no cap).

    Attributes:
        memory_bytes: data the worker may add to what it holds when it starts (``RLIMIT_DATA``,
            heap and private mappings, set to the worker's ``VmData`` at start plus this: the
            engine's imports already reserve about 1.3 GB of address space, of which about
            90 MB is resident); an allocation beyond it raises MemoryError in the worker.
        cpu_s: CPU seconds over the worker's life (``RLIMIT_CPU``; a pool lives for one call
            of :func:`run_tasks`, so this bounds a whole study); beyond it the OS stops the
            worker, even one stuck in a loop that never polls for a cancel.
    """

    memory_bytes: int | None = None
    cpu_s: float | None = None

    def apply(self) -> None:
        """Sets the caps on this process (a pool worker's initializer)."""
        try:
            import resource
        except ImportError:  # not on this platform
            return
        if self.memory_bytes is not None:
            cap = _data_bytes() + self.memory_bytes
            resource.setrlimit(resource.RLIMIT_DATA, (cap, cap))
        if self.cpu_s is not None:
            soft = max(1, math.ceil(self.cpu_s))
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))

    def describe(self) -> str:
        """e.g. "3.0 GiB of memory and 900 s of CPU" (for messages)."""
        parts = []
        if self.memory_bytes is not None:
            parts.append(f"{self.memory_bytes / 1024**3:.1f} GiB of memory")
        if self.cpu_s is not None:
            parts.append(f"{self.cpu_s:,.0f} s of CPU")
        return " and ".join(parts) or "what the machine has"


def _data_bytes() -> int:
    """This process's data segment (``VmData`` of ``/proc/self/status``; 0 elsewhere)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmData:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0
