"""The engine's hot modules compiled with mypyc: the same source, built once per checkout.

:data:`MODULES` are compiled by ``scripts/build_native.py`` (run by ``scripts/_bootstrap.sh``)
into ``.native/`` at the repository root, beside a stamp: the sha256 of their sources and the
Python it was built for. At import, :func:`activate` puts ``.native/<package>`` ahead of the
package's own directory only when that stamp matches the sources as they are now, so an edited
module runs as plain Python until the next build, never as a stale compiled copy.

mypyc (https://mypyc.readthedocs.io, part of mypy) turns type-annotated Python into a C
extension with the same semantics: the same results as the plain-Python run
(``tests/engine/test_native.py`` checks both against recorded hashes of the result tables).
``ENGINE_NATIVE=0`` in the environment forces plain Python, e.g. to profile with cProfile, which
sees no compiled frames.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD_DIR = ROOT / ".native"
STAMP = BUILD_DIR / "STAMP"
GROUP = "engine_native"  # the name of the shared library of mypyc's runtime for these modules

MODULES = (
    "engine/state.py",
    "engine/cluster.py",
    "engine/recorder.py",
    "engine/segments.py",
    "engine/completions.py",
    "engine/step_time/rates.py",
    "engine/simulator.py",
    "engine/faults.py",
    "engine/fault_handling.py",
    "engine/loop_state.py",
    "engine/job_moves.py",
    "engine/decision_step.py",
    "engine/event_loop.py",
    "engine/lease_rounds.py",
    "engine/allocation/validation.py",
    "engine/placement/consolidated.py",
    "engine/placement/free_index.py",
    "engine/step_time/topology.py",
    "engine/jobs.py",
    "engine/step_time/network.py",
    "engine/allocation/layout.py",
    "engine/placement/base.py",
    "engine/placement/first_fit.py",
    "engine/policies/gavel/queues.py",
    "engine/policies/gavel/book.py",
    "engine/policies/gavel/priority.py",
    "engine/policies/gavel/share_rounds.py",
    "engine/allocation/grants.py",
    "engine/policies/agnostic.py",
    "engine/policies/las/policy.py",
    "engine/policies/las/books.py",
    "engine/policies/las/fill.py",
    "engine/policies/las/promotion.py",
    "engine/policies/las/keys.py",
    "engine/policies/las/queues.py",
    "engine/policies/las/running.py",
    "engine/policies/las/sorted_books.py",
    "engine/policies/srtf.py",
    "engine/policies/gavel/max_min.py",
    "engine/policies/gavel/class_lp.py",
    "engine/policies/gavel/class_model.py",
    "engine/quota/tree.py",
    "engine/quota/preemption.py",
    "engine/quota/fair_sharing.py",
    "engine/quota/admission_fair_sharing.py",
    "engine/quota/wake.py",
    "engine/quota/pending.py",
    "engine/quota/queue_state.py",
    "engine/quota/assignment.py",
    "engine/quota/admission.py",
    "engine/quota/ledger.py",
    "engine/quota/gate.py",
)
"""Repository-relative paths of the compiled modules: the engine core that every policy's event
loop runs through, and the policies whose own time dominated full-trace runs (LAS, SRTF, Gavel's
round mechanism, max-min and its class LP), profiled on the full Philly trace, November 2026;
and the quota layer's admission (Kueue's quota tree, flavor assignment and preemption), which
dominated full-trace runs under teams' quotas, and the quota layer's policy (``gate``), which
runs at every decision. A
class compiled here can only be subclassed by classes compiled with it, unless it is marked
``@mypyc_attr(allow_interpreted_subclasses=True)`` (Gavel's max-min, which Gavel FIFO, FTF and
min total duration extend); class docstrings are dropped (hence ``POLICIES.register(name, cls,
doc=...)``). Every package holding one of them calls :func:`activate`."""


def source_hash() -> str:
    """sha256 (hex) of :data:`MODULES`' paths and bytes and the running Python's cache tag."""
    digest = hashlib.sha256(sys.implementation.cache_tag.encode())
    for module in MODULES:
        digest.update(module.encode())
        digest.update((ROOT / module).read_bytes())
    return digest.hexdigest()


def is_current() -> bool:
    """True when ``.native/`` holds a build of the sources as they are now."""
    try:
        return STAMP.read_text(encoding="utf-8").strip() == source_hash()
    except OSError:
        return False


def _wanted() -> bool:
    return os.environ.get("ENGINE_NATIVE", "1") != "0" and is_current()


ACTIVE = _wanted()
"""Whether this process runs the compiled modules (decided once, when :mod:`engine` loads)."""


def activate(package_path: list[str], package: str) -> None:
    """Puts the compiled copies of ``package``'s modules first on its ``__path__`` when
    :data:`ACTIVE`; called from the ``__init__`` of every package in :data:`MODULES`."""
    if not ACTIVE:
        return
    if str(BUILD_DIR) not in sys.path:  # where the shared runtime library (GROUP) lives
        sys.path.append(str(BUILD_DIR))
    compiled = BUILD_DIR.joinpath(*package.split("."))
    if compiled.is_dir() and str(compiled) not in package_path:
        package_path.insert(0, str(compiled))
