"""Kueue's admission fair sharing: each LocalQueue's decayed GPU usage orders its ClusterQueue.

Read from kubernetes-sigs/kueue at commit ff69552e79 (our code): the concept page
``site/content/en/docs/concepts/admission_fair_sharing.md``; ``pkg/util/admissionfairsharing/
admission_fair_sharing.go`` (``calculateAlphaRate``, ``CalculateDecayedConsumed``,
``CalculateEntryPenalty``, ``CalculateUsage``); ``pkg/controller/core/localqueue_controller.go``
(``reconcileConsumedUsage``: a LocalQueue's usage is sampled every ``usageSamplingInterval``
after its last update); ``pkg/controller/core/workload_controller.go``
(``updateAfsConsumedUsage``: at admission the usage is updated and the entry penalty settled);
``pkg/cache/queue/cluster_queue.go`` (``queueOrderingFunc``: lower LocalQueue usage first, then
Kueue's usual order). The rules:

- ``alpha(t) = 1 - 0.5 ** (t / usageHalfLifeTime)``; an update after ``t`` seconds sets
  ``consumed = consumed * (1 - alpha(t)) + held * alpha(t)``, where ``held`` is the GPUs the
  LocalQueue's admitted workloads hold now. Samples fall every ``usageSamplingInterval`` after
  the last update; between two events ``held`` is constant, so the ``k`` samples due are one
  update over ``k`` intervals (the decay composes: ``(1 - alpha(s)) ** k = 1 - alpha(k s)``).
- At admission the LocalQueue is updated at once (``t`` since its last update, ``held`` with
  the new workload) and charged the entry penalty ``gpus * alpha(usageSamplingInterval)``.
  [R: Kueue pushes the penalty when it reserves quota and settles it into ``consumed`` when the
  workload turns Admitted; here both happen at the same instant.]
- A LocalQueue's usage is ``consumed / weight`` (infinite for a weight <= 0); only GPUs are
  modelled, so ``resourceWeights`` would scale every LocalQueue alike and is left out.
"""

from __future__ import annotations

import math


class LocalQueueUsage:
    """Decayed GPU usage of every LocalQueue feeding a ClusterQueue with admission fair sharing.

    Args:
        half_life_s: ``usageHalfLifeTime`` (s), > 0.
        sampling_s: ``usageSamplingInterval`` (s), > 0.
        weights: LocalQueue name -> its ``fairSharing.weight`` (a LocalQueue not named
            here, e.g. a job naming its ClusterQueue, weighs 1).

    Every LocalQueue starts with no usage at time 0, its samples falling every
    ``sampling_s`` from then on until its first admission.
    """

    def __init__(self, half_life_s: float, sampling_s: float, weights: dict[str, float]) -> None:
        self.half_life_s = half_life_s
        self.sampling_s = sampling_s
        self.weights = weights
        self.consumed: dict[str, float] = {}
        self.held: dict[str, int] = {}
        self._last_s: dict[str, float] = {}
        self._penalty_share = self.alpha(sampling_s)

    def alpha(self, elapsed_s: float) -> float:
        """Kueue's ``calculateAlphaRate``: the weight of the usage held over ``elapsed_s``."""
        return 1.0 - math.pow(0.5, elapsed_s / self.half_life_s)

    def usage(self, local_queue: str) -> float:
        """The LocalQueue's usage as the ordering reads it (``CalculateUsage``)."""
        weight = self.weights.get(local_queue, 1.0)
        if weight <= 0:
            return math.inf
        return self.consumed.get(local_queue, 0.0) / weight

    def sample_all(self, now_s: float) -> bool:
        """Applies every LocalQueue's samples due by ``now_s``; returns whether any was due."""
        moved = False
        for local_queue in list(self._last_s):
            if self.sample(local_queue, now_s):
                moved = True
        return moved

    def sample(self, local_queue: str, now_s: float) -> bool:
        """Applies the samples due by ``now_s``; returns whether any was due."""
        last_s = self._last_s.setdefault(local_queue, 0.0)
        samples = math.floor((now_s - last_s) / self.sampling_s)
        if samples <= 0:
            return False
        self._update(local_queue, samples * self.sampling_s)
        self._last_s[local_queue] = last_s + samples * self.sampling_s
        return True

    def admit(self, local_queue: str, gpus: int, now_s: float) -> None:
        """A workload of ``gpus`` GPUs is admitted: update, then charge the entry penalty."""
        self.sample(local_queue, now_s)
        self.held[local_queue] = self.held.get(local_queue, 0) + gpus
        self._update(local_queue, now_s - self._last_s[local_queue])
        self.consumed[local_queue] += gpus * self._penalty_share
        self._last_s[local_queue] = now_s

    def release(self, local_queue: str, gpus: int, now_s: float) -> None:
        """A workload of ``gpus`` GPUs finished or was evicted."""
        self.sample(local_queue, now_s)
        self.held[local_queue] = self.held.get(local_queue, 0) - gpus

    def _update(self, local_queue: str, elapsed_s: float) -> None:
        alpha = self.alpha(max(0.0, elapsed_s))
        old = self.consumed.get(local_queue, 0.0)
        self.consumed[local_queue] = old * (1.0 - alpha) + self.held.get(local_queue, 0) * alpha
