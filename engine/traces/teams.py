"""Teams from any trace file: the column that names each job's team, read after the importer.

Multi-tenant traces record who submitted a job: Philly's ``cluster`` (the virtual cluster in the
Pollux CSV cut), Helios' ``vc`` (Hu et al., SC '21). ``TraceSpec.team_column`` names that column;
:func:`with_team_column` reads it from the raw file and sets it as the jobs' ``queue``
(`engine.traces.schema`), aligned to the jobs by their ``source_row`` (the 1-based data row every
importer keeps). One step for every format with a header, so no importer reads teams itself.
"""

from __future__ import annotations

import pandas as pd

from engine.errors import TraceError
from engine.traces.reading import decode_text, read_csv_text, text_column
from engine.traces.registry import FORMATS, comma_text
from engine.traces.validate import with_teams


def read_team_column(raw: bytes, file: str, column: str) -> list[str]:
    """Each data row's team, from the column ``column`` of the file's header.

    Returns:
        The stripped team names, data row i + 1 at position i.

    Raises:
        TraceError: for a column the file does not have (listing the file's columns) or a blank
            team cell (naming the row).
    """
    table = read_csv_text(comma_text(decode_text(raw, file), file)[0], file)
    if column not in table.columns:
        raise TraceError(
            f"no column {column!r} to read the teams from (trace.team_column); the file's "
            f"columns are {list(table.columns)}",
            file=file,
            column=column,
        )
    return text_column(table[column], file, column)


def with_team_column(
    jobs: pd.DataFrame, raw: bytes, file: str, column: str, format: str
) -> pd.DataFrame:
    """``jobs`` (imported from ``raw`` by format ``format``) with ``queue`` set from the
    file's column ``column``, row by ``source_row``; a ``priority`` column is kept (else 0).

    Raises:
        TraceError: for a headerless format, as :func:`read_team_column`, or jobs whose source
            rows are not data rows of the file.
    """
    if not FORMATS.get(format).has_header:
        raise TraceError(
            f"the {format} format has no header, so no column {column!r} to read the teams "
            "from; leave trace.team_column empty",
            file=file,
        )
    teams = read_team_column(raw, file, column)
    rows = jobs["source_row"].to_numpy()
    if len(rows) and (rows.min() < 1 or rows.max() > len(teams)):
        raise TraceError(
            f"the {format} importer's source rows run past the file's {len(teams)} data rows, "
            f"so column {column!r} cannot be matched to the jobs",
            file=file,
            column=column,
        )
    return with_teams(jobs, [teams[row - 1] for row in rows])
