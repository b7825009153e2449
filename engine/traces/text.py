"""Trace bytes to comma-separated text: the encodings and separators spreadsheets write.

Excel saves "CSV UTF-8" with a byte-order mark and "Unicode text" as UTF-16 (little-endian with
a BOM), tab-separated. Both are read here, so an importer only ever sees comma-separated text.
A headerless Gavel ``.trace`` is tab-separated by design and is left as it is.
"""

from __future__ import annotations

import codecs
import csv
import io

from engine.errors import TraceError

_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_SAMPLE_BYTES = 4096


def detect_encoding(raw: bytes) -> str:
    """The codec name to read ``raw`` with: ``"utf-8-sig"`` (with or without a BOM),
    ``"utf-16"`` (a BOM), or ``"utf-16-le"`` / ``"utf-16-be"`` for BOM-less UTF-16 whose
    every other byte is NUL (ASCII text in UTF-16)."""
    if raw.startswith(_UTF16_BOMS):
        return "utf-16"
    sample = raw[: _SAMPLE_BYTES - _SAMPLE_BYTES % 2]
    if len(sample) >= 4 and b"\x00" in sample:
        even, odd = sample[0::2], sample[1::2]
        if odd.count(0) >= 0.9 * len(odd):
            return "utf-16-le"
        if even.count(0) >= 0.9 * len(even):
            return "utf-16-be"
    return "utf-8-sig"


def encoding_label(raw: bytes) -> str:
    """How a person would name the file's encoding: "UTF-8", "UTF-8 with BOM" or "UTF-16"."""
    codec = detect_encoding(raw)
    if codec.startswith("utf-16"):
        return "UTF-16"
    return "UTF-8 with BOM" if raw.startswith(codecs.BOM_UTF8) else "UTF-8"


def csv_error(exc: csv.Error, file: str, row: int | None) -> TraceError:
    """A TraceError for the csv module's error at ``row`` (None: the header line)."""
    limit = csv.field_size_limit()
    where = "the header line" if row is None else "this row"
    hint = (
        f"a field is longer than {limit:,} characters (the CSV field limit); an unclosed "
        "quote or a file that is not a trace usually causes this"
        if "field larger" in str(exc)
        else str(exc)
    )
    return TraceError(f"cannot read {where} as CSV: {hint}", file=file, row=row)


def tabs_to_commas(text: str, file: str) -> str:
    """Rewrites tab-separated text as comma-separated (quoting fields that hold commas).

    Raises:
        TraceError: naming the data row (header excluded) that the csv module cannot read.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    reader = csv.reader(text.splitlines(), delimiter="\t")
    written = 0
    try:
        for record in reader:
            if any(field.strip() for field in record):
                writer.writerow(record)
                written += 1
    except csv.Error as exc:
        raise csv_error(exc, file, written or None) from exc
    return out.getvalue()


def is_tab_separated(line: str) -> bool:
    """Whether a header line separates its fields with tabs rather than commas."""
    return "\t" in line and "," not in line
