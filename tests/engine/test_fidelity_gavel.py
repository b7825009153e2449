"""Agreement with Gavel's own simulator (``shared/fidelity/gavel/``, issue 9).

Every (trace, policy) pair of Gavel's results.csv that has a counterpart here is replayed in
the Gavel-compatible preset on Gavel's cluster (one GPU per server). Targets: the deterministic
heterogeneity-aware policies within 2% of Gavel's average JCT and 5% of its makespan; those that
draw random numbers (Gavel's FIFO, the agnostic policies) within 5% of its average JCT, taking
our mean over 5 seeds (Gavel's random stream is its own). Nothing here is fitted: the preset
models Gavel's rules (engine/lease_rounds.py, engine/policies/gavel/queues.py and ecos.py).
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.engine.gavel_reference import (
    COUNTERPARTS,
    REFERENCE_DIR,
    Replay,
    job_jcts,
    replay,
    results,
)

JCT_TOLERANCE = 0.02
JCT_TOLERANCE_RANDOM = 0.05
MAKESPAN_TOLERANCE = 0.05


def _pairs() -> list[tuple[str, str, str]]:
    rows = results()
    rows = rows[rows["policy"].isin(list(COUNTERPARTS))]
    return list(rows[["trace", "cluster_v100_p100_k80", "policy"]].itertuples(index=False))


def _largest_gaps(trace: str, policy: str, ours: Replay) -> str:
    """The ten jobs with the largest |our JCT - Gavel's JCT|, as a table."""
    theirs = job_jcts()
    theirs = theirs[(theirs["trace"] == trace) & (theirs["policy"] == policy)]
    table = theirs.set_index("job_index")[["jct_s"]].rename(columns={"jct_s": "gavel_jct_s"})
    table["our_jct_s"] = pd.Series(ours.job_jct_s).reindex(table.index)
    table["gap_s"] = table["our_jct_s"] - table["gavel_jct_s"]
    top = table.reindex(table["gap_s"].abs().sort_values(ascending=False).index).head(10)
    return "largest per-job gaps (job_index = 0-based trace line):\n" + top.round(1).to_string()


@pytest.mark.parametrize(("trace", "counts", "policy"), _pairs())
def test_average_jct_and_makespan_match_gavel(trace: str, counts: str, policy: str) -> None:
    reference = results().set_index(["trace", "policy"]).loc[(trace, policy)]
    ours = replay(trace, counts, policy)
    random = COUNTERPARTS[policy][1]
    jct_gap = ours.avg_jct_s / reference["avg_jct_s"] - 1.0
    makespan_gap = ours.makespan_s / reference["makespan_s"] - 1.0
    tolerance = JCT_TOLERANCE_RANDOM if random else JCT_TOLERANCE
    report = (
        f"{policy} on {trace}: average JCT {ours.avg_jct_s:.0f} s vs Gavel "
        f"{reference['avg_jct_s']:.0f} s ({jct_gap:+.2%}), makespan {ours.makespan_s:.0f} s vs "
        f"{reference['makespan_s']:.0f} s ({makespan_gap:+.2%})\n"
        + _largest_gaps(trace, policy, ours)
    )
    assert abs(jct_gap) <= tolerance, report
    if not random:
        assert abs(makespan_gap) <= MAKESPAN_TOLERANCE, report


def test_every_reference_pair_with_a_counterpart_is_replayed() -> None:
    """The bundled reference holds 23 (trace, policy) pairs, all with a counterpart here."""
    assert (REFERENCE_DIR / "results.csv").exists()
    assert len(_pairs()) == 23
