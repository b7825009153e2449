"""Reading raw trace bytes into columns of validated values, with errors that name file/row/column.

Every importer goes through these helpers, so that a wrong file type, a missing column or a bad
value is reported the same way everywhere. Data rows are numbered from 1, header excluded; blank
lines are skipped and not counted.
"""

from __future__ import annotations

import csv
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
from pyarrow import csv as pa_csv

from engine.errors import TraceError
from engine.traces.text import csv_error, detect_encoding

_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0"  # legacy .xls / .doc
TIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def decode_text(raw: bytes, file: str) -> str:
    """Decodes a trace file to text, rejecting files that are plainly not CSV or .trace text.

    UTF-8 (with or without a byte-order mark) and UTF-16 (Excel's "Unicode text") are read; see
    :mod:`engine.traces.text`.

    Raises:
        TraceError: for an empty file, an Excel workbook, JSON, or binary/non-UTF-8 content.
    """
    if not raw.strip():
        raise TraceError("the file is empty; expected a CSV or Gavel .trace file", file=file)
    if raw.startswith(_ZIP_MAGIC) or raw.startswith(_OLE_MAGIC):
        raise TraceError(
            "this looks like an Excel workbook (or another archive), not CSV text; "
            "save it as CSV (comma-separated) and upload that",
            file=file,
        )
    codec = detect_encoding(raw)
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as exc:
        raise TraceError(
            f"the file is not UTF-8 or UTF-16 text (bad byte at offset {exc.start})", file=file
        ) from exc
    if "\x00" in text:
        raise TraceError("this is a binary file, not CSV or .trace text", file=file)
    if text.lstrip()[:1] in ("{", "["):
        raise TraceError(
            "this looks like JSON (e.g. Philly's native cluster_job_log), not CSV; "
            "convert it to one of the CSV formats (see sample_traces/CANONICAL_FORMAT.md)",
            file=file,
        )
    return text


def first_line(text: str) -> str:
    """The first non-blank line of ``text`` (without its line break); read from a growing
    head of the text, not the whole of it (a million-row trace's lines are not split for it)."""
    size = 4096
    while True:
        lines = text[:size].splitlines()
        complete = lines if size >= len(text) else lines[:-1]  # the last may go on
        found = next((line.rstrip("\r") for line in complete if line.strip()), None)
        if found is not None or size >= len(text):
            return found or ""
        size *= 8


def read_csv_text(text: str, file: str) -> pd.DataFrame:
    """Parses comma-separated text with a header row into a frame of stripped strings.

    Returns:
        One column per header field (names stripped), one row per non-blank data row, index 0..n-1
        (data row number = index + 1).

    Raises:
        TraceError: for a duplicated or empty header name, a row with the wrong field count, or
            a row the csv module cannot read (e.g. a field over its size limit).
    """
    fast = _arrow_records(text)
    if fast is not None:
        header = [name.strip() for name in fast[0]]
        _check_header(header, file)
        return pd.DataFrame(dict(zip(header, fast[1], strict=True)), columns=header, dtype=object)
    records: list[list[str]] = []
    try:
        for rec in csv.reader(text.splitlines()):
            if "".join(rec).strip():  # some field is not blank
                records.append(rec)
    except csv.Error as exc:
        raise csv_error(exc, file, len(records) or None) from exc
    header = [name.strip() for name in records[0]] if records else []
    _check_header(header, file)
    rows = records[1:]
    check_row_widths(rows, len(header), file, f"{len(header)} fields ({', '.join(header)})")
    columns = zip(*rows, strict=True) if rows else ((),) * len(header)  # column by column
    return pd.DataFrame(
        {name: [f.strip() for f in col] for name, col in zip(header, columns, strict=True)},
        columns=header,
        dtype=object,
    )


def _check_header(header: list[str], file: str) -> None:
    for name in header:
        if not name or header.count(name) > 1:
            raise TraceError(f"header name {name!r} is empty or repeated", file=file, column=name)


_SPLITS_LINES = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")  # str.splitlines's ASCII breaks


def _arrow_records(text: str) -> tuple[list[str], list[np.ndarray]] | None:
    """The header's fields and the stripped data columns (object arrays of str) of ``text``
    read by pyarrow's CSV reader, or None where its reading could differ from
    ``csv.reader(text.splitlines())``'s: text that is not ASCII or holds a quote or one of
    str.splitlines's other line breaks, rows of unequal width, a field over csv's size limit
    (the row-by-row path then reads it or names the error). ASCII fields hold no line break,
    so stripping them is trimming spaces and tabs. On 1,000,000 Philly rows: 1.4 s CPU instead
    of the csv module's 7.9 s (issue 37, a loaded 2-core machine)."""
    if not text.isascii() or '"' in text or any(c in text for c in _SPLITS_LINES):
        return None
    read = pa_csv.ReadOptions(autogenerate_column_names=True)
    end = text.find("\n")
    width = (text if end < 0 else text[:end]).count(",") + 1  # the first line's fields
    as_text = pa_csv.ConvertOptions(column_types={f"f{i}": pa.string() for i in range(width)})
    try:
        table = pa_csv.read_csv(pa.py_buffer(text.encode("ascii")), read, convert_options=as_text)
    except pa.ArrowException:  # rows of another width, among others
        return None
    if not table.columns or any(column.type != pa.string() for column in table.columns):
        return None
    lengths = [pc.max(pc.binary_length(column)).as_py() or 0 for column in table.columns]
    if max(lengths) > csv.field_size_limit():
        return None
    columns = [pc.utf8_trim(column, " \t") for column in table.columns]
    blank = pc.equal(pc.binary_join_element_wise(*columns, ""), "")
    kept = [
        pc.filter(column, pc.invert(blank)).to_numpy(zero_copy_only=False) for column in columns
    ]
    if not len(kept[0]):
        return None
    return [str(column[0]) for column in kept], [column[1:] for column in kept]


def check_row_widths(rows: list[list[str]], width: int, file: str, expected: str) -> None:
    """Checks that every row has ``width`` fields.

    Raises:
        TraceError: naming the file and the first row (1-based) with another count:
            "expected <``expected``>, found <its count>".
    """
    for i, fields in enumerate(rows, start=1):
        if len(fields) != width:
            raise TraceError(f"expected {expected}, found {len(fields)}", file=file, row=i)


def require_columns(frame: pd.DataFrame, required: list[str], file: str, fmt: str) -> None:
    """Raises TraceError naming the first missing column and listing what the format expects."""
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise TraceError(
            f"missing column(s) {missing}; the {fmt} format needs the columns {required} "
            f"(found {list(frame.columns)})",
            file=file,
            column=missing[0],
        )


def text_column(values: pd.Series, file: str, column: str) -> list[str]:
    """Non-empty strings of one column; row numbers are index + 1."""
    out = [str(v).strip() for v in values]
    for i, value in enumerate(out, start=1):
        if not value:
            raise TraceError("missing value", file=file, row=i, column=column)
    return out


def number_column(
    values: pd.Series, file: str, column: str, *, integer: bool = False, minimum: str = ">0"
) -> np.ndarray:
    """Parses one column of numbers, rejecting blanks, text, NaN/inf, fractions and bad signs.

    Args:
        values: the raw strings, row i + 1 at position i.
        integer: require whole numbers (returns int64 then; float64 otherwise).
        minimum: ``">0"`` (positive), ``">=0"`` (non-negative) or ``""`` (any finite number).

    Raises:
        TraceError: naming the first offending row and the column.
    """
    dtype = np.int64 if integer else np.float64
    try:  # every value at once; any failure: the row-by-row pass names the first bad row
        parsed = np.fromiter(map(float, map(str, values)), np.float64, len(values))
    except (TypeError, ValueError):
        pass
    else:
        good = np.isfinite(parsed)
        if integer:
            good &= np.floor(parsed) == parsed
        good &= parsed > 0 if minimum == ">0" else parsed >= 0 if minimum == ">=0" else True
        if good.all():
            return parsed.astype(dtype)
    out = []
    for i, text in enumerate(values, start=1):
        out.append(_parse_number(str(text).strip(), file, i, column, integer, minimum))
    return np.asarray(out, dtype=dtype)


def _parse_number(
    text: str, file: str, row: int, column: str, integer: bool, minimum: str
) -> float:
    if not text:
        raise TraceError("missing value", file=file, row=row, column=column)
    try:
        value = float(text)
    except ValueError:
        raise TraceError(f"{text!r} is not a number", file=file, row=row, column=column) from None
    if not math.isfinite(value):
        raise TraceError(f"{text!r} is not a finite number", file=file, row=row, column=column)
    if integer and not value.is_integer():
        raise TraceError(f"{text!r} is not a whole number", file=file, row=row, column=column)
    if (minimum == ">0" and value <= 0) or (minimum == ">=0" and value < 0):
        raise TraceError(f"must be {minimum}, got {text}", file=file, row=row, column=column)
    return value


def time_column(values: pd.Series, file: str, column: str) -> np.ndarray:
    """Parses ``YYYY-MM-DD HH:MM:SS`` times; returns seconds since the earliest one (float64)."""
    times = pd.to_datetime(values, format=TIME_FORMAT, errors="coerce")
    bad = np.flatnonzero(times.isna().to_numpy())
    if bad.size:
        text = str(values.iloc[bad[0]])
        raise TraceError(
            f"{text!r} is not a time of the form YYYY-MM-DD HH:MM:SS",
            file=file,
            row=int(bad[0]) + 1,
            column=column,
        )
    seconds = (times - times.min()).dt.total_seconds()
    return np.asarray(seconds, dtype=np.float64)
