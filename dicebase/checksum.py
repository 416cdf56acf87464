"""Table checksums: the formula ``build_tables.checksum`` holds, and ``dicebase verify`` recomputes.

The checksum of a table is computed from what is stored, so anyone can
recompute it with plain duckdb or sqlite3 and hashlib:

1. Take the table's columns in their schema order (``schema_columns.position``)
   and read the rows ordered by the primary key (the columns with
   ``schema_columns.is_key``, in position order, ascending).
2. For each column, compute sha256 over its values in that row order, each value
   encoded by the column's type:

   - INTEGER, SMALLINT, BIGINT, BOOLEAN: 8 bytes, little-endian two's complement
     (a boolean is 1 or 0);
   - DOUBLE, FLOAT, REAL: 8 bytes, little-endian IEEE 754 double;
   - VARCHAR, TEXT: the UTF-8 bytes followed by one 0x00 byte;
   - NULL, in any column: the single byte 0xFF.

3. The table's checksum is the hex sha256 of the UTF-8 text formed by
   ``<column name>:<hex sha256 of the column>;`` for every column, in order.

Example (SQLite, one column ``n`` INTEGER key holding 1, 2)::

    col = hashlib.sha256((1).to_bytes(8, "little", signed=True) + (2).to_bytes(8, "little", signed=True))
    checksum = hashlib.sha256(f"n:{col.hexdigest()};".encode()).hexdigest()
"""

from __future__ import annotations

import hashlib
import struct
from typing import Callable, Iterable, Sequence

NULL = b"\xff"
INTEGER_TYPES = ("INT", "BOOL")  # INTEGER, SMALLINT, BIGINT, BOOLEAN
FLOAT_TYPES = ("DOUBLE", "FLOAT", "REAL")
CHUNK_ROWS = 500_000


def encoding(data_type: str) -> str:
    """'int', 'float' or 'text' for a declared SQL type."""
    upper = data_type.upper()
    if any(word in upper for word in FLOAT_TYPES):
        return "float"
    if any(word in upper for word in INTEGER_TYPES):
        return "int"
    return "text"


def encode(values: Sequence, kind: str) -> bytes:
    """The bytes of a chunk of one column's values (numpy arrays take the fast path)."""
    import numpy as np

    if isinstance(values, np.ma.MaskedArray):  # DuckDB's numpy result for a column with NULLs
        values = values.tolist() if np.ma.is_masked(values) else values.data
    if isinstance(values, np.ndarray) and values.dtype != object:
        if kind == "int":
            return values.astype("<i8").tobytes()
        if kind == "float":
            return values.astype("<f8").tobytes()
    values = values.tolist() if isinstance(values, np.ndarray) else list(values)
    if kind == "text":
        return b"".join(NULL if v is None else str(v).encode() + b"\x00" for v in values)
    if None not in values:
        return np.asarray(values, dtype="<i8" if kind == "int" else "<f8").tobytes()
    pack = struct.Struct("<q" if kind == "int" else "<d").pack
    return b"".join(NULL if v is None else pack(int(v) if kind == "int" else float(v)) for v in values)


def combine(column_digests: Iterable[tuple[str, str]]) -> str:
    """Step 3: the table checksum from (column name, hex sha256) pairs in schema order."""
    return hashlib.sha256("".join(f"{name}:{hexdigest};" for name, hexdigest in column_digests).encode()).hexdigest()


def table_checksum(
    chunks: Callable[[str], Iterable[Sequence]],
    columns: list[tuple[str, str]],
) -> str:
    """The checksum of a table given ``chunks(column) -> chunks of its values in key order``
    and its ``columns`` as (name, SQL type) in schema order."""
    digests = []
    for name, data_type in columns:
        digest = hashlib.sha256()
        kind = encoding(data_type)
        for chunk in chunks(name):
            digest.update(encode(chunk, kind))
        digests.append((name, digest.hexdigest()))
    return combine(digests)


def column_chunks(con, store: str, table: str, keys: list[str]) -> Callable[[str], Iterable[Sequence]]:
    """``chunks(column)`` for a raw duckdb or sqlite3 connection: the column in key order."""
    order = ", ".join(f'"{key}"' for key in keys)

    def chunks(column: str):
        sql = f'SELECT "{column}" FROM {table}' + (f" ORDER BY {order}" if order else "")
        if store == "duckdb":
            yield con.execute(sql).fetchnumpy()[column]
            return
        cur = con.execute(sql)
        while True:
            rows = cur.fetchmany(CHUNK_ROWS)
            if not rows:
                return
            yield [r[0] for r in rows]

    return chunks


def stored_table_checksum(con, store: str, table: str, columns: list[tuple[str, str, bool]]) -> str:
    """The checksum of ``table`` as stored, given (name, SQL type, is_key) per column in schema order."""
    keys = [name for name, _, is_key in columns if is_key]
    if store == "duckdb" and keys:
        return _duckdb_checksum_by_slices(con, table, keys, [(n, t) for n, t, _ in columns])
    return table_checksum(column_chunks(con, store, table, keys), [(n, t) for n, t, _ in columns])


SLICE_ROWS = 2_000_000


def _key_slices(con, table: str, keys: list[str], prefix: tuple = ()):
    """(WHERE text, parameters) for consecutive slices of ``table`` in key order, each at most
    SLICE_ROWS rows where the key allows: a slice fixes the leading key columns to values."""
    where = " AND ".join(f'"{key}" = ?' for key in keys[: len(prefix)]) or "TRUE"
    (rows,) = con.execute(f"SELECT count(*) FROM {table} WHERE {where}", list(prefix)).fetchone()
    if rows <= SLICE_ROWS or len(prefix) == len(keys) - 1:
        yield where, list(prefix)
        return
    column = keys[len(prefix)]
    for (value,) in con.execute(f'SELECT DISTINCT "{column}" FROM {table} WHERE {where} ORDER BY 1', list(prefix)).fetchall():
        yield from _key_slices(con, table, keys, prefix + (value,))


def _duckdb_checksum_by_slices(con, table: str, keys: list[str], columns: list[tuple[str, str]]) -> str:
    """The same checksum, reading DuckDB in key-ordered slices: sorting a 30-million-row table
    at once needs more memory than a read-only connection's ceiling allows (and may not spill)."""
    digests = {name: hashlib.sha256() for name, _ in columns}
    selected = ", ".join(f'"{name}"' for name, _ in columns)
    order = ", ".join(f'"{key}"' for key in keys)
    for where, params in _key_slices(con, table, keys):
        arrays = con.execute(f"SELECT {selected} FROM {table} WHERE {where} ORDER BY {order}", params).fetchnumpy()
        for name, data_type in columns:
            digests[name].update(encode(arrays[name], encoding(data_type)))
    return combine((name, digests[name].hexdigest()) for name, _ in columns)
