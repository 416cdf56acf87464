"""The rows of one ``db.sql(...)`` query, handed to pandas, polars or Arrow on request.

pandas, polars and pyarrow are not dependencies of dicebase: each method
imports its library when called and says how to install it when missing.

    with dicebase.open() as db:
        result = db.sql("SELECT * FROM threes_seats WHERE players = $n", {"n": 4})
        result.rows          # list of tuples
        result.df()          # pandas.DataFrame
        result.pl()          # polars.DataFrame
        result.arrow()       # pyarrow.Table

Columns get the types of their values: integers int64, doubles float64, text
strings; booleans are booleans from DuckDB and 0/1 integers from SQLite
(SQLite has no boolean type).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Iterator

from dicebase.query.base import BadInput


def _library(name: str, purpose: str):
    try:
        return importlib.import_module(name)
    except ImportError:
        package = {"pyarrow": "pyarrow"}.get(name, name)
        raise BadInput(f"{purpose} needs {name}, which is not installed; install it with: pip install {package}") from None


@dataclass(frozen=True)
class Result:
    """Column names and rows of one query."""

    columns: list[str]
    rows: list[tuple]

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def dicts(self) -> list[dict[str, Any]]:
        """One dict per row, keyed by column name."""
        return [dict(zip(self.columns, row)) for row in self.rows]

    def df(self):
        """A pandas DataFrame."""
        pandas = _library("pandas", "Result.df()")
        return pandas.DataFrame.from_records(self.rows, columns=self.columns)

    def pl(self):
        """A polars DataFrame."""
        polars = _library("polars", "Result.pl()")
        return polars.DataFrame(self.rows, schema=self.columns, orient="row")

    def arrow(self):
        """A pyarrow Table."""
        pyarrow = _library("pyarrow", "Result.arrow()")
        return pyarrow.table({name: [row[i] for row in self.rows] for i, name in enumerate(self.columns)})
