"""The step-time model: how fast a job runs on the GPUs it holds (shared/docs/schedulers.md).

- :mod:`.throughput`: the throughput matrix (steps/s per job type, worker type, scale factor).
- :mod:`.topology`: the cluster's network graph and each link's load.
- :mod:`.network`: ring all-reduce time over a placement's slowest link, with congestion.
- :mod:`.progress`: how a job's GPUs turn into progress in each combine mode.
- :mod:`.rates`: the rate the engine sets for a placed job (memoized).
- :mod:`.estimator`: the same model asked by policies ("how fast would this job run here").
"""

from engine import native

native.activate(__path__, __name__)  # compiled modules first, when built (engine/native.py)
