"""The Step-through page's drawings at a moment, as HTML: the cluster's GPUs grouped by rack and
node, each coloured by the job holding it (its id printed in the cell, so colour is never the
only cue), and the queue with each job's reason for waiting.

Plain HTML (no chart library): a redraw of 50 jobs x 4 policies is a few kilobytes of text,
built in about a millisecond per policy (``benchmarks/bench_replay.py``), and each GPU cell
carries ``data-node``, ``data-slot`` and ``data-job`` for the browser test.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html import escape

from dashboard.decision_words import duration_text
from dashboard.replay import Owner, QueueEntry
from engine.allocation.layout import NodeLayout

# Paul Tol's "muted" scheme (colour-blind safe, https://personal.sron.nl/~pault/), then his
# "light" scheme for the 10th to 18th job; the text colour keeps each cell readable.
JOB_PALETTE = (
    ("#332288", "#fff"), ("#DDCC77", "#000"), ("#117733", "#fff"), ("#88CCEE", "#000"),
    ("#882255", "#fff"), ("#44AA99", "#000"), ("#999933", "#000"), ("#AA4499", "#fff"),
    ("#CC6677", "#000"), ("#77AADD", "#000"), ("#EE8866", "#000"), ("#EEDD88", "#000"),
    ("#FFAABB", "#000"), ("#99DDFF", "#000"), ("#44BB99", "#000"), ("#BBCC33", "#000"),
    ("#AAAA00", "#000"), ("#DDDDDD", "#000"),
)  # fmt: skip
REASONS = {
    "no room": "no room",
    "lower priority": "lower priority",
    "held for consolidation": "held for consolidation",
    "": "just joined",
}
STYLE = """<style>
.cv{font-family:sans-serif;font-size:14px;line-height:1.25}
.cv .rack{border:2px solid #666;border-radius:6px;padding:3px 5px;margin:0 0 5px 0}
.cv .rack>b{font-size:13px;color:#333}
.cv .node{display:inline-block;vertical-align:top;border:1px solid #aaa;border-radius:4px;
  padding:2px 3px;margin:2px 4px 2px 0;background:#f6f6f6;white-space:nowrap}
.cv .node.wide{white-space:normal}
.cv .node>.lbl{display:block;font-size:12px;color:#444}
.cv .gpu{display:inline-block;width:32px;height:24px;margin:1px;border:1px solid #333;
  border-radius:3px;text-align:center;font-size:11px;line-height:24px;overflow:hidden;
  white-space:nowrap;font-weight:700}
.cv .node.tiny{padding:1px;margin:1px;border-color:#bbb;white-space:nowrap;line-height:0;
  font-size:0}
.cv .gpu.s{width:8px;height:8px;margin:0 1px 0 0;border-width:1px;border-radius:1px;
  font-size:0;line-height:8px;vertical-align:top}
.cv table{border-collapse:collapse;width:100%;font-size:13px;margin-top:4px}
.cv td,.cv th{border-bottom:1px solid #ddd;padding:1px 4px;text-align:left}
.cv .chip{display:inline-block;padding:0 4px;border-radius:3px;font-weight:700}
.cv i.gpu{background:#fff}
.cv .gpu.shared{width:auto;min-width:32px;border:2px dashed #000;padding:0;display:inline-flex;
  overflow:visible}
.cv .gpu.shared>.part{display:inline-block;min-width:28px;padding:0 3px;height:100%}
.cv .gpu.shared.s{min-width:8px}
.cv .gpu.shared.s>.part{min-width:4px;padding:0}
.cvgrid{display:grid;column-gap:14px;row-gap:2px;align-items:start;grid-auto-flow:column;
  grid-template-rows:repeat(4,auto)}
.cvgrid>.pcol{display:contents}
.cvgrid .ttl{font-family:sans-serif;font-size:17px;font-weight:700;margin:0 0 4px 0}
.cvgrid .words{font-family:sans-serif;font-size:13px;line-height:1.3;margin:4px 0;
  padding:3px 5px;background:#FFF8E1;border-left:3px solid #E69F00;border-radius:3px}
.cvgrid .words summary{cursor:pointer}
.cvgrid .words .full{margin-top:3px;padding-top:3px;border-top:1px solid #E6C26B}
"""
STYLE += (
    "".join(
        f".cv .p{i}{{background:{fill};color:{ink}}}" for i, (fill, ink) in enumerate(JOB_PALETTE)
    )
    + "</style>"
)
NOWRAP_GPUS = 8
"""A node of up to this many GPUs draws them in one row; larger ones wrap."""
SMALL_CELLS_FROM = 128
"""Clusters of this many GPUs or more draw small cells without labels, and nodes without
names, packed side by side (hover a GPU for its job, a node for its name)."""


def job_colors(job_ids: Iterable[str]) -> dict[str, int]:
    """Job id -> its colour's place in :data:`JOB_PALETTE` (CSS class ``p<place>``), by the
    jobs' order (arrival order, the same for every policy)."""
    return {job: i % len(JOB_PALETTE) for i, job in enumerate(job_ids)}


def team_job_colors(job_ids: Iterable[str], teams: Iterable[str]) -> dict[str, int]:
    """Job id -> the colour of its team (the ``teams`` given alongside, e.g. the jobs table's
    ``cluster_queue``): one colour per team, by the teams' sorted names (the Gantt's order)."""
    pairs = list(zip(job_ids, teams, strict=True))
    place = {team: i % len(JOB_PALETTE) for i, team in enumerate(sorted({t for _, t in pairs}))}
    return {job: place[team] for job, team in pairs}


def cluster_html(
    layout: NodeLayout,
    owners: list[list[Owner]],
    colors: Mapping[str, int],
    policy: str,
    time_s: float = 0.0,
    slowdowns: Mapping[str, float] | None = None,
) -> str:
    """The racks, nodes and GPUs of ``layout`` with the job holding each (``owners`` from
    :meth:`dashboard.replay.Replay.owners` at ``time_s``, written on the drawing as
    ``data-time-s``). A GPU that jobs share shows each of them side by side, and its hover
    gives each job's slowdown from sharing (``slowdowns``, :attr:`Replay.slowdowns`)."""
    small = sum(layout.node_gpus) >= SMALL_CELLS_FROM
    parts = [f'<div class="cv" data-policy="{escape(policy)}" data-time-s="{time_s!r}">']
    for rack in layout.racks:
        parts.append(f'<div class="rack" data-rack="{escape(rack)}"><b>{escape(rack)}</b><br>')
        for node in layout.rack_nodes(rack):
            busy = sum(job is not None for job in owners[node])
            label = f"n{node} · {escape(layout.node_type[node])} · {busy}/{layout.node_gpus[node]}"
            if small:  # no room for labels: the node's name on hover
                parts.append(f'<div class="node tiny" data-node="n{node}" title="{label}">')
            else:
                wide = " wide" if layout.node_gpus[node] > NOWRAP_GPUS else ""
                parts.append(
                    f'<div class="node{wide}" data-node="n{node}"><span class="lbl">{label}</span>'
                )
            parts.extend(_cell(node, job, colors, small, slowdowns) for job in owners[node])
            parts.append("</div>")
        parts.append("</div>")
    parts.append("</div>")
    return "".join(parts)


def policy_panel(policy: str, cluster: str, queue: str, words: str = "") -> str:
    """One policy's column: its name, the decision it just made (``words``, HTML), its
    cluster, its queue. The four are rows of :func:`side_by_side`'s grid, so each row lines up
    across the policies and the words, above the clusters, stay in view on a projector
    however tall the clusters are."""
    words = words or "<div></div>"  # four rows in every column
    return f'<div class="pcol"><div class="ttl">{escape(policy)}</div>{words}{cluster}{queue}</div>'


def decision_html(policy: str, at: str, sentences: list[str], brief: str = "") -> str:
    """A policy's latest decision (``data-words`` = the policy), ``at`` its clock: the
    ``brief`` (:mod:`dashboard.decision_brief`) always shown, the full ``sentences`` a click on
    it away (an HTML ``details``), so every column's box fits a projector whole."""
    if not sentences:
        return f'<div class="words" data-words="{escape(policy)}">Nothing decided yet.</div>'
    when = f"<b>{escape(at)}</b> " if at else ""
    return (
        f'<div class="words" data-words="{escape(policy)}"><details>'
        f'<summary title="Click for the decision in full">{when}{escape(brief)}</summary>'
        f'<div class="full">{escape(" ".join(sentences))}</div></details></div>'
    )


def side_by_side(panels: list[str]) -> str:
    """Policy columns of equal width (a CSS grid whose rows are the panels' name, words,
    cluster and queue: :func:`policy_panel`)."""
    columns = f"repeat({max(len(panels), 1)}, minmax(0, 1fr))"
    return f'<div class="cvgrid" style="grid-template-columns:{columns}">{"".join(panels)}</div>'


def _cell(
    node: int,
    job: Owner,
    colors: Mapping[str, int],
    small: bool,
    slowdowns: Mapping[str, float] | None = None,
) -> str:
    """A GPU: a free one is an empty box; a busy one carries its job (class ``p<colour>``,
    ``data-job``, a hover title and, unless small, the id printed); a shared one
    (:func:`_shared_cell`) each of its jobs."""
    size = " s" if small else ""
    if job is None:
        return f'<i class="gpu{size}"></i>'
    if isinstance(job, tuple):
        return _shared_cell(node, job, colors, small, slowdowns or {})
    label = escape(job)
    return (
        f'<span class="gpu{size} p{colors.get(job, 0)}" data-node="n{node}" data-job="{label}" '
        f'title="n{node}: job {label}">{"" if small else label}</span>'
    )


def _shared_cell(
    node: int,
    jobs: tuple[str, ...],
    colors: Mapping[str, int],
    small: bool,
    slowdowns: Mapping[str, float],
) -> str:
    """A GPU several jobs share: a box with a thick border holding one coloured part per job,
    side by side (each its id, unless small); the hover names each job with its slowdown
    from sharing (:mod:`engine.metrics_sharing`)."""
    said = ", ".join(
        f"{job} (slowdown ×{slowdowns[job]:.2f})" if job in slowdowns else job for job in jobs
    )
    title = escape(f"n{node}: {len(jobs)} jobs share this GPU: {said}")
    parts = "".join(
        f'<span class="part p{colors.get(job, 0)}" data-job="{escape(job)}">'
        f"{'' if small else escape(job)}</span>"
        for job in jobs
    )
    size = " s" if small else ""
    return (
        f'<span class="gpu shared{size}" data-node="n{node}" data-jobs="{escape(" ".join(jobs))}"'
        f' title="{title}">{parts}</span>'
    )


def queue_html(
    queue: list[QueueEntry],
    colors: Mapping[str, int],
    policy: str,
    now_s: float,
    max_rows: int = 12,
) -> str:
    """The queue in order: position, job (in its colour), GPUs asked for, time waited, reason."""
    if not queue:
        return f'<div class="cv" data-queue="{escape(policy)}"><i>Queue empty.</i></div>'
    rows = []
    for entry in queue[:max_rows]:
        rows.append(
            f'<tr data-queue-job="{escape(entry.job_id)}"><td>{entry.position}</td>'
            f'<td><span class="chip p{colors.get(entry.job_id, 0)}">'
            f"{escape(entry.job_id)}</span></td><td>{entry.scale_factor}</td>"
            f"<td>{duration_text(now_s - entry.since_s)}</td>"
            f"<td>{escape(REASONS.get(entry.reason, entry.reason))}</td></tr>"
        )
    more = len(queue) - max_rows
    tail = f"<tr><td colspan=5>… and {more} more</td></tr>" if more > 0 else ""
    return (
        f'<div class="cv" data-queue="{escape(policy)}"><table><tr><th>#</th><th>job</th>'
        f"<th>GPUs</th><th>waited</th><th>why</th></tr>{''.join(rows)}{tail}</table></div>"
    )
