"""Checksums of everything a build writes: the table formula ``build_tables.checksum`` holds, the
metadata and view checksums ``build_info`` holds (at the end of this module), and what
``dicebase verify`` recomputes.

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
        if set(map(type, values)) <= {str}:  # the same bytes, joined in C
            return ("\x00".join(values) + "\x00").encode() if values else b""
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
        plain = [(n, t) for n, t, _ in columns]
        return (_duckdb_checksum_in_stored_order(con, table, keys, plain)
                or _duckdb_checksum_by_slices(con, table, keys, plain))
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


def _duckdb_checksum_in_stored_order(con, table: str, keys: list[str], columns: list[tuple[str, str]]) -> str | None:
    """The same checksum from one pass over the table in the order it is stored, with no sort,
    when that order is the key order within each value of the first key column (a rule set): a
    build writes its large tables one rule set at a time, each in key order, so sorting them
    again to hash them costs most of the read.  Each value of the first key column is read in
    slices of SLICE_ROWS row ids; the keys are checked to increase strictly from its first row to
    its last, and the rows read to be all of the table; otherwise None (the caller sorts).  The
    first key column, and any text column holding one value throughout a slice, is hashed from
    that value instead of fetched."""
    import numpy as np

    first_key = keys[0]
    groups = con.execute(f'SELECT "{first_key}", count(*), min(rowid), max(rowid) FROM {table} '
                         "GROUP BY 1 ORDER BY 1").fetchall()
    if not groups or any(value is None for value, *_ in groups):
        return None  # empty, or a NULL key: its place in the order is the engine's to say
    kinds = {name: encoding(data_type) for name, data_type in columns}
    texts = [name for name, _ in columns if kinds[name] == "text" and name != first_key]
    digests = {name: hashlib.sha256() for name, _ in columns}
    seen = 0
    for value, count, low, high in groups:
        if high - low + 1 > 2 * count + SLICE_ROWS:  # row ids too sparse to walk
            return None
        last: tuple | None = None
        for start in range(low, high + 1, SLICE_ROWS):
            where = f'"{first_key}" = ? AND rowid >= ? AND rowid < ?'
            params = [value, start, start + SLICE_ROWS]
            parts = "".join(f', min("{name}"), max("{name}"), count("{name}")' for name in texts)
            found = con.execute(f"SELECT count(*){parts} FROM {table} WHERE {where}", params).fetchone()
            rows = found[0]
            if rows == 0:
                continue
            constant = {first_key: value}
            constant.update({name: found[1 + 3 * i] for i, name in enumerate(texts)  # min = max, no NULL
                             if found[1 + 3 * i] == found[2 + 3 * i] and found[3 + 3 * i] == rows})
            fetched = [name for name, _ in columns if name not in constant]
            arrays = {}
            if fetched:
                selected = ", ".join(f'"{name}"' for name in fetched)
                arrays = con.execute(f"SELECT {selected} FROM {table} WHERE {where}", params).fetchnumpy()
                if len(arrays[fetched[0]]) != rows:
                    return None
            chunk = {name: arrays[name] if name in arrays else constant[name] for name, _ in columns}
            key_values = [chunk[name] for name in keys]
            if any(isinstance(v, np.ma.MaskedArray) and np.ma.is_masked(v) for v in key_values):
                return None
            key_values = [v.data if isinstance(v, np.ma.MaskedArray) else v for v in key_values]
            first = tuple(_item(v, 0) for v in key_values)
            if (last is not None and not first > last) or not _strictly_increasing(key_values, rows):
                return None
            last = tuple(_item(v, rows - 1) for v in key_values)
            for name, _ in columns:
                _update(digests[name], chunk[name], kinds[name], rows)
            seen += rows
        if seen == 0:
            return None
    (total,) = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    if seen != total:
        return None
    return combine((name, digests[name].hexdigest()) for name, _ in columns)


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


class AppendedChecksum:
    """The same checksum, computed from a table's rows as the build appends them, so the
    build need not read a freshly written table back (sorting 30 million rows takes longer
    than hashing them).

    Rows that arrive in strictly increasing key order are hashed as they come; a table
    of at most BUFFER_ROWS rows whose chunks arrive in another order is kept and sorted
    by its key at the end.  Every value must be stored exactly as given: :meth:`add`
    gives up on a table without a key, a text column holding a non-string, a float NaN
    (a store may keep it as NULL), a large table out of key order; :meth:`hexdigest` is
    then None and the caller reads the stored table instead.  Each column of a chunk is
    a numpy array or one Python scalar meaning "this value in every row".
    """

    BUFFER_ROWS = 2_000_000

    def __init__(self, columns: list[tuple[str, str, bool]]):
        self.columns = [(name, encoding(data_type)) for name, data_type, _ in columns]
        self.keys = [name for name, _, is_key in columns if is_key]
        self.digests = {name: hashlib.sha256() for name, _ in self.columns}
        self.valid = bool(self.keys)
        self.in_order = True
        self.buffer: list[tuple[dict, int]] | None = []  # None once the table outgrows BUFFER_ROWS
        self._buffered = 0
        self._last_key: tuple | None = None

    def add(self, chunk: dict, rows: int) -> None:
        """Take ``rows`` rows given as ``chunk`` (column name -> array or scalar)."""
        if not self.valid or rows == 0:
            return
        if not all(_stored_as_given(chunk[name], kind) for name, kind in self.columns):
            self.valid = False
            return
        if self.buffer is not None:
            self._buffered += rows
            if self._buffered <= self.BUFFER_ROWS:
                self.buffer.append((chunk, rows))
            else:
                self.buffer = None
        if self.in_order:
            keys = [chunk[name] for name in self.keys]
            first = tuple(_item(k, 0) for k in keys)
            if (self._last_key is not None and not first > self._last_key) or not _strictly_increasing(keys, rows):
                self.in_order = False
            else:
                self._last_key = tuple(_item(k, rows - 1) for k in keys)
                for name, kind in self.columns:
                    _update(self.digests[name], chunk[name], kind, rows)
        if not self.in_order and self.buffer is None:
            self.valid = False

    def hexdigest(self) -> str | None:
        """The table's checksum, or None when the appended rows did not allow computing it."""
        if not self.valid:
            return None
        if self.in_order:
            return combine((name, self.digests[name].hexdigest()) for name, _ in self.columns)
        return self._sorted_hexdigest()

    def _sorted_hexdigest(self) -> str | None:
        import numpy as np

        whole = {
            name: np.concatenate([_as_array(chunk[name], rows) for chunk, rows in self.buffer])
            for name, _ in self.columns
        }
        sort_keys = []
        for name in reversed(self.keys):  # np.lexsort sorts by its last key first
            values = whole[name]
            if values.dtype == object:  # strings: code point order is UTF-8 byte order, as the stores sort
                values = np.array(values.tolist(), dtype=str)
            sort_keys.append(values)
        order = np.lexsort(sort_keys)
        whole = {name: values[order] for name, values in whole.items()}
        if not _strictly_increasing([whole[name] for name in self.keys], len(order)):
            return None  # repeated keys: the stored order would not be defined
        return combine((name, hashlib.sha256(encode(whole[name], kind)).hexdigest()) for name, kind in self.columns)


def _as_array(values, rows: int):
    import numpy as np

    if isinstance(values, np.ndarray):
        return values
    return np.full(rows, values, dtype=object if isinstance(values, str) else None)


def _item(values, index: int):
    import numpy as np

    return values[index].item() if isinstance(values, np.ndarray) and values.dtype != object else (
        values[index] if isinstance(values, np.ndarray) else values)


def _stored_as_given(values, kind: str) -> bool:
    """Whether a store keeps these values exactly as the checksum encodes them."""
    import numpy as np

    if not isinstance(values, np.ndarray):
        if kind == "text":
            return isinstance(values, str)
        if kind == "int":
            return isinstance(values, (int, np.integer, np.bool_))
        return isinstance(values, (float, np.floating)) and values == values
    if values.dtype != object:
        if kind == "int":
            return values.dtype.kind in "iub"
        return kind == "float" and values.dtype.kind == "f" and not np.isnan(values).any()
    types = set(map(type, values))
    if kind == "text":
        return types <= {str}
    # Python numbers and None (NULL) in a numeric column; a float in an integer column would be rounded
    if kind == "int":
        return types <= {int, bool, type(None)}
    return types <= {int, bool, float, type(None)} and all(v == v for v in values if type(v) is float)


def _strictly_increasing(keys: list, rows: int) -> bool:
    """Whether rows 0..rows-1 of the key columns (arrays or constants) increase strictly."""
    import numpy as np

    if rows < 2:
        return True
    greater = np.zeros(rows - 1, dtype=bool)  # row r+1 already greater than row r on an earlier key column
    equal = np.ones(rows - 1, dtype=bool)
    for values in keys:
        if not isinstance(values, np.ndarray):
            continue  # a constant column: equal on every row
        after, before = values[1:], values[:-1]
        greater |= equal & (after > before)
        equal &= after == before
    return bool(greater.all())


HASH_BLOCK = 1 << 16


def _update(digest, values, kind: str, rows: int) -> None:
    """Feed one column's values (an array, or a scalar repeated ``rows`` times) to ``digest``."""
    import numpy as np

    if isinstance(values, np.ndarray):
        digest.update(encode(values, kind))
        return
    one = encode(np.array([values], dtype=object), kind)
    block = one * min(rows, HASH_BLOCK)
    for _ in range(rows // HASH_BLOCK):
        digest.update(block)
    digest.update(one * (rows % HASH_BLOCK))


# -- the whole file: metadata tables, view definitions (issue 25) -------------------------------
#
# Game tables have their checksums in build_tables.  Everything else the build writes has its
# checksum in build_info, under keys starting with CHECKSUM_PREFIX, computed last (after every
# other row of the file is written):
#
# - ``checksum:table:<name>`` for each metadata table in METADATA_TABLES: the table formula above.
#   For build_info itself the formula covers its rows but the checksum rows and STORE_FACTS
#   (which an export between stores rewrites), i.e. the rows of
#   ``SELECT key, value FROM build_info WHERE key NOT LIKE 'checksum:%' AND key NOT IN
#   ('store', 'duckdb_storage_version') ORDER BY key``.
# - ``checksum:view:<name>`` for each view: the hex sha256 of the view's definition (the SELECT
#   after ``CREATE VIEW <name> AS``, in the store's own catalogue) in one normal form on both
#   stores (DuckDB keeps a view as a parse tree and writes it back with its own parentheses,
#   SQLite keeps the text written): DuckDB's parse tree of the SELECT
#   (``json_serialize_sql('<select>')``'s ``statements``), with the ``query_location`` fields
#   dropped and each chain of ``UNION ALL`` flattened into one list (DuckDB re-nests a long
#   chain when it writes it back, e.g. ``A UNION ALL (B UNION ALL C)``), as compact JSON with
#   sorted keys, after the view's column list when it has one (see view_definition).
# - ``checksum:checksums``: the hex sha256 of ``<key>=<value>;`` for every other checksum row,
#   in key order (``SELECT sha256(string_agg(key || '=' || value || ';', '' ORDER BY key)) FROM
#   build_info WHERE key LIKE 'checksum:%' AND key <> 'checksum:checksums'``), so that a
#   removed checksum row is noticed.

CHECKSUM_PREFIX = "checksum:"
TABLE_KEY = CHECKSUM_PREFIX + "table:"
VIEW_KEY = CHECKSUM_PREFIX + "view:"
CHECKSUMS_KEY = CHECKSUM_PREFIX + "checksums"
#: build_info facts an export between stores rewrites: outside build_info's checksum.
STORE_FACTS = ("store", "duckdb_storage_version")
#: The metadata tables whose checksums build_info holds (game tables: build_tables).
METADATA_TABLES = ("build_info", "build_games", "build_variants", "build_steps", "build_tables",
                   "schema_tables", "schema_columns")
BUILD_INFO_ROWS = (
    "SELECT key, value FROM build_info WHERE key NOT LIKE 'checksum:%' "
    "AND key NOT IN ('store', 'duckdb_storage_version') ORDER BY key"
)
_VIEW_TEXT = None


def build_info_checksum(con) -> str:
    """build_info's checksum: the table formula over its rows less the checksum rows and STORE_FACTS."""
    rows = con.execute(BUILD_INFO_ROWS).fetchall()
    return table_checksum(lambda name: [[row[0 if name == "key" else 1] for row in rows]],
                          [("key", "VARCHAR"), ("value", "VARCHAR")])


def metadata_table_checksum(con, store: str, table: str, columns: list[tuple[str, str, bool]]) -> str:
    """The recorded checksum of a metadata table (build_info's own rule included)."""
    if table == "build_info":
        return build_info_checksum(con)
    return stored_table_checksum(con, store, table, columns)


def view_parts(create_sql: str) -> tuple[str, str]:
    """(column list, SELECT) of a ``CREATE VIEW name [(columns)] AS SELECT ...`` statement; the
    column list is '' when it has none, else its names with spaces removed (ValueError when the
    text is not a CREATE VIEW statement)."""
    import re

    match = re.match(
        r"\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMP(?:ORARY)?\s+)?VIEW\s+(?:IF\s+NOT\s+EXISTS\s+)?"
        r"(?:\"(?:[^\"]|\"\")*\"|[\w.]+)\s*(\([^)]*\))?\s*AS\s+(.*?)[\s;]*$",
        create_sql if isinstance(create_sql, str) else "", re.S | re.I,
    )
    if match is None:
        raise ValueError("its definition is not a CREATE VIEW statement")
    columns, select = match.groups()
    return "".join((columns or "").split()), select


def view_definition(create_sql: str) -> str:
    """The normal form of a view's definition (see the notes above): its column list, if any, and
    DuckDB's parse tree of its SELECT without source positions, each ``UNION ALL`` chain flattened,
    as compact JSON (ValueError when DuckDB cannot parse it, or lacks its json functions)."""
    global _VIEW_TEXT
    import json
    import threading

    columns, select = view_parts(create_sql)
    if _VIEW_TEXT is None:
        import duckdb

        con = duckdb.connect(":memory:", config={"enable_external_access": False})
        _VIEW_TEXT = (con, threading.Lock())
    con, lock = _VIEW_TEXT
    try:
        with lock:
            (text,) = con.execute("SELECT json_serialize_sql(?)", [select]).fetchone()
        tree = json.loads(text)
        if tree.get("error"):
            raise ValueError(tree.get("error_message", "a parser error"))
    except Exception as exc:  # the engine's parser error, or no json extension
        raise ValueError(f"DuckDB cannot parse its definition ({str(exc).splitlines()[0][:200]})") from None
    normal = json.dumps(_normal_tree(tree["statements"]), sort_keys=True, separators=(",", ":"))
    return f"{columns} {normal}" if columns else normal


_POSITIONS = ("query_location", "query_location_length")


def _union_all_chain(node) -> bool:
    """A plain ``UNION ALL`` of its children: no ORDER BY/LIMIT of its own, no WITH."""
    return (isinstance(node, dict) and node.get("type") == "SET_OPERATION_NODE"
            and node.get("setop_type") == "UNION" and node.get("setop_all") is True
            and not node.get("modifiers") and not (node.get("cte_map") or {}).get("map"))


def _normal_tree(node):
    """A parse tree without source positions, its ``UNION ALL`` chains flattened into one list."""
    if isinstance(node, list):
        return [_normal_tree(item) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: _normal_tree(value) for key, value in node.items() if key not in _POSITIONS}
    if _union_all_chain(node) and isinstance(node.get("children"), list):
        flat = []
        for child in node["children"]:
            flat.extend(child["children"] if _union_all_chain(child) and isinstance(child.get("children"), list)
                        else [child])
        node["children"] = flat
    return node


def view_checksum(create_sql: str) -> str:
    """``checksum:view:<name>``'s value for a view created by ``create_sql``."""
    return hashlib.sha256(view_definition(create_sql).encode()).hexdigest()


def checksums_checksum(rows: dict[str, str]) -> str:
    """``checksum:checksums``: over every other checksum row (key -> value), in key order."""
    text = "".join(f"{key}={value};" for key, value in sorted(rows.items()) if key != CHECKSUMS_KEY)
    return hashlib.sha256(text.encode()).hexdigest()


def file_stamp(built_at, checksums) -> int | None:
    """The modification time, in nanoseconds since the epoch, a build gives the file it wrote, or
    None for values no build writes: the second of its ``built_at`` (build_info), and as the
    nanoseconds ``checksum:checksums`` read as a number, modulo 10**9.  Any later write to the
    file moves its modification time, so a file whose time is still its stamp (and that has no
    write-ahead log beside it) is the file its build wrote, and the checksums it records hold
    without reading its tables (``dicebase verify`` still reads them all)."""
    from datetime import datetime

    try:
        seconds = int(datetime.fromisoformat(built_at).timestamp())
        fraction = int(checksums, 16) % 10**9
    except (TypeError, ValueError, OverflowError):
        return None
    return seconds * 10**9 + fraction if seconds > 0 else None


def relations_in(con, store: str) -> dict[str, tuple[str, str | None]]:
    """Every table and view of the file's main schema: name -> (kind, CREATE text of a view)."""
    if store == "sqlite":
        rows = con.execute(
            "SELECT name, type, sql FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ).fetchall()
    else:
        rows = con.execute(
            "SELECT table_name, 'table', NULL FROM duckdb_tables() "
            "WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary "
            "UNION ALL SELECT view_name, 'view', sql FROM duckdb_views() "
            "WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary"
        ).fetchall()
    return {name: (kind, sql) for name, kind, sql in rows}


def file_checksums(con, store: str, metadata_columns: dict[str, list[tuple[str, str, bool]]]) -> dict[str, str]:
    """The checksum rows a build records in build_info (every other row of the file written):
    each metadata table of ``metadata_columns`` (name -> (column, SQL type, is_key)), each view
    of the file, and the checksum of those."""
    rows = {TABLE_KEY + table: metadata_table_checksum(con, store, table, columns)
            for table, columns in metadata_columns.items()}
    for name, (kind, sql) in relations_in(con, store).items():
        if kind == "view":
            rows[VIEW_KEY + name] = view_checksum(sql)
    rows[CHECKSUMS_KEY] = checksums_checksum(rows)
    return rows
