"""Time slicing: jobs that share GPUs take turns, for traces without stage times.

Rule [R] (ours; Gandiva, Xiao et al., OSDI 2018, time-slices jobs on a GPU at iteration
boundaries but publishes no efficiency we can reuse): n jobs on the same GPUs each get 1/n of
the GPUs' time, of which a fraction ``packing_efficiency`` does work.
"""

from __future__ import annotations

from engine.sharing.config import SharingError


def sliced_iteration_time_s(
    iteration_s: float, group_size: int, packing_efficiency: float
) -> float:
    """One job's iteration time when ``group_size`` jobs time-slice its GPUs, seconds.

    ``iteration_s x group_size / packing_efficiency``: its speed is its own speed divided by the
    group size, times the packing efficiency.

    Raises:
        SharingError: ``iteration_s`` <= 0, ``group_size`` < 1, efficiency outside (0, 1].
    """
    if not iteration_s > 0:
        raise SharingError(f"iteration_s must be > 0, got {iteration_s!r}")
    if group_size < 1:
        raise SharingError(f"group_size must be >= 1, got {group_size!r}")
    if not 0 < packing_efficiency <= 1:
        raise SharingError(f"packing_efficiency must be in (0, 1], got {packing_efficiency!r}")
    return iteration_s * group_size / packing_efficiency
