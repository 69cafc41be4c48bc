"""The raw table every sweep reader produces, and the error every reader raises.

Kept apart from :mod:`mlsleuth.sweep.ingest` so that the readers
(``ingest`` for text files, ``tensorboard`` for event logs) depend on it and
not on each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class SweepInputError(ValueError):
    """The sweep results cannot be analysed as given; the message says what to change."""


@dataclass
class Table:
    """Raw columns of a results file: each a list of cells (strings, numbers or None)."""

    source: str
    kind: str  # csv, jsonl, json, tensorboard
    columns: dict[str, list[Any]]
    n_rows: int
    row_numbers: list[int] | None = None  # file line of each row, when it differs from index + 2
    expanded: bool = False
    notes: list[str] = field(default_factory=list)  # how the file was read, carried into the report

    def row_label(self, i: int) -> str:
        if self.kind == "csv":
            return f"line {i + 2}"
        if self.kind == "jsonl":
            return f"line {self.row_numbers[i] if self.row_numbers else i + 1}"
        return f"record {i + 1}"
