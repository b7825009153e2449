"""Teams sharing one cluster: Kueue's queues, cohorts, quotas, borrowing and preemption.

A layer over the scheduling policies, off unless a scenario carries ``"queues"``
(:class:`engine.quota.model.QueueConfig`): the quota layer decides which jobs may hold GPUs and
on which worker type (Kueue's admission), the policy orders each queue's jobs. With no queues
every result is identical to a run without this package.
"""

from engine import native

native.activate(__path__, __name__)  # the admission modules compiled, when built (engine.native)
