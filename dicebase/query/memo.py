"""What one connection remembers between lookups: the results of ``Database.read`` and the
names of its prepared statements.  The file cannot change under an open connection (builds
replace it whole), so a remembered read stays true until the connection closes."""

from __future__ import annotations

from typing import Any, Callable

#: Most rows ``Database.read`` keeps per connection; past it the remembered reads are dropped.
READ_MEMO_ROWS = 200_000
#: ``ReadMemo.results.get(key, UNREAD)``: no remembered result for this key.
UNREAD = object()


class ReadMemo:
    """``Database.read``'s results on one connection: (sql, params, into) -> result.

    It holds the results of at most ``limit`` rows (counted as read, before ``into``); the read
    that would pass the bound drops what was remembered and starts again.
    """

    __slots__ = ("results", "rows")

    def __init__(self):
        self.results: dict[tuple, Any] = {}
        self.rows = 0  # rows read for the results held

    @staticmethod
    def key(sql: str, params, into) -> tuple:
        """The key of a read (a dict of named parameters in name order); hashing it raises
        TypeError when a parameter cannot be a key (a list)."""
        bound = ("$", *sorted(params.items())) if isinstance(params, dict) else tuple(params)
        return (sql, bound, into)

    def keep(self, key: tuple, value: Any, rows: int, limit: int) -> None:
        """Remember ``value``, made of ``rows`` rows, within ``limit`` rows in all."""
        if self.rows + rows > limit:
            self.clear()
        self.results[key] = value
        self.rows += rows

    def clear(self) -> None:
        self.results.clear()
        self.rows = 0


class PreparedStatements:
    """DuckDB: the statements prepared on one connection, by their SQL text, each under its own
    name (``dicebase_0``, ``dicebase_1``, ...)."""

    __slots__ = ("names",)

    def __init__(self):
        self.names: dict[str, str] = {}

    def __len__(self) -> int:
        return len(self.names)

    def execute(self, sql: str, values: tuple[int, ...], prepare: Callable[[str], Any]) -> str:
        """The EXECUTE text that runs ``sql`` for ``values``; ``prepare(statement)`` runs the
        PREPARE the first time ``sql`` is asked for (its name is kept only once it succeeded)."""
        name = self.names.get(sql)
        if name is None:
            name = f"dicebase_{len(self.names)}"
            prepare(f"PREPARE {name} AS {sql}")
            self.names[sql] = name
        return f"EXECUTE {name}({', '.join(str(v) for v in values)})"
