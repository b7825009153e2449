"""Errors raised at the engine's edges; each carries a message meant for the user."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every user-facing engine error."""


class ConfigError(EngineError):
    """A scenario configuration is invalid (names the key path)."""


class TraceError(EngineError):
    """A trace file is malformed.

    Attributes:
        file: the file name as the user knows it.
        row: 1-based data row number (header excluded), or None for file-level problems.
        column: the column name, or None.
    """

    def __init__(
        self, message: str, *, file: str = "", row: int | None = None, column: str | None = None
    ) -> None:
        self.file = file
        self.row = row
        self.column = column
        where = [part for part in (file, _row(row), _col(column)) if part]
        super().__init__(f"{', '.join(where)}: {message}" if where else message)

    def __reduce__(self) -> tuple[object, ...]:
        """Pickles with its attributes (a study's worker process returns such an error), also
        for subclasses whose ``__init__`` takes other arguments."""
        return (_rebuild, (type(self), str(self), dict(self.__dict__)))


def _rebuild(cls: type[TraceError], text: str, state: dict[str, object]) -> TraceError:
    error = cls.__new__(cls)
    Exception.__init__(error, text)
    error.__dict__.update(state)
    return error


class OversizedJobsError(TraceError):
    """Jobs need more GPUs than any worker type of the cluster has.

    Attributes:
        job_ids: the offending jobs; the user may drop them or change the GPU mix.
    """

    def __init__(self, message: str, *, file: str, job_ids: list[str], row: int | None) -> None:
        self.job_ids = job_ids
        super().__init__(message, file=file, row=row, column="scale_factor")


def _row(row: int | None) -> str:
    return f"row {row}" if row is not None else ""


def _col(column: str | None) -> str:
    return f"column '{column}'" if column else ""


class AllocationError(EngineError):
    """A policy granted more GPUs than exist, or a worker type a job cannot use (a policy bug)."""


class SimulationCancelled(EngineError):
    """The user cancelled the run."""
