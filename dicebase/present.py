"""What the command line, the HTTP API and the plots share, below all three of them.

- ``error_line``: the one line (and exit code) a user's mistake is reported with, in
  the terminal and over HTTP alike;
- ``json_text`` and ``jsonable``: a result as the JSON document ``--json`` prints and
  the API sends;
- ``serving``, ``open_db`` and ``collected``: how the web server runs a CLI command
  in-process, on its own open database, and receives the command's JSON document
  instead of its printed output;
- ``db_option``: the ``--db PATH|URL`` option of every command that reads a database;
- ``WholeWrites``, ``text_output`` and ``write_file``: output that is written in full or
  reported (a full disk never truncates an answer silently).

Light on purpose (click and the standard library): a CLI lookup imports it.
"""

from __future__ import annotations

import io
import json
import math
import os
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any, Callable

import click

from dicebase.errors import BadInput, DicebaseError, file_error, output_failed

# Set by ``serving`` (the web server runs a command in-process): the open database every
# command uses instead of opening --db, and the list that receives the JSON document
# instead of stdout.  Context variables, so each request's thread has its own.
_served_db: ContextVar = ContextVar("dicebase_served_db", default=None)
_served_documents: ContextVar = ContextVar("dicebase_served_documents", default=None)


@contextmanager
def serving(db):
    """Run CLI commands against the open database ``db`` and collect their JSON documents.

    Yields the list the documents are appended to (plain JSON values, as
    ``--json`` would print them).  ``db`` stays open: its owner closes it.
    """
    documents: list = []
    db_token, doc_token = _served_db.set(db), _served_documents.set(documents)
    try:
        yield documents
    finally:
        _served_db.reset(db_token)
        _served_documents.reset(doc_token)


def collected(document: Any) -> bool:
    """Hand ``document`` (plain JSON values) to the server running this command (``serving``);
    False when no server does, and the command prints it."""
    documents = _served_documents.get()
    if documents is None:
        return False
    documents.append(document)
    return True


def open_db(db_path: str | None, timeout: float | None = None):
    """Open the database read-only; DicebaseError (exit 2) when missing, busy, damaged or not ours.

    ``timeout`` (seconds) overrides the query layer's default time limit.
    Under ``serving`` the server's open database, left open on exit.
    """
    served = _served_db.get()
    if served is not None:
        return nullcontext(served)
    from dicebase.query import open as open_database

    try:
        if timeout is None:
            return open_database(db_path)
        return open_database(db_path, timeout=timeout)
    except ValueError as exc:  # a malformed --db value
        raise BadInput(str(exc)) from None


def db_option(func: Callable) -> Callable:
    """``--db PATH|URL``: which database file to read (default db/dicebase.duckdb or $DICEBASE_DB)."""
    return click.option(
        "--db",
        "db_path",
        metavar="PATH|URL",
        default=None,
        envvar="DICEBASE_DB",
        help="Database file or URL (duckdb:///PATH, sqlite:///PATH). Default: db/dicebase.duckdb, or $DICEBASE_DB.",
    )(func)


def error_line(exc: BaseException) -> tuple[str, int] | None:
    """The one line and exit code the CLI gives for an exception a user can cause; None for a bug.

    Shared by the CLI's ``main`` and the web API, so both report a mistake in the same words.
    Exit codes: 2 the user's own input or path, 1 a fault of the machine (a
    full disk), 130 Ctrl-C; ``main`` gives a bug (None here) exit 1 and one
    line too (``DICEBASE_DEBUG=1`` shows its traceback).
    """
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted; nothing was changed", 130
    if isinstance(exc, click.exceptions.UsageError):
        where = exc.ctx.command_path if exc.ctx else "dicebase"
        return f"{exc.format_message()} (see '{where} --help')", 2
    if isinstance(exc, click.exceptions.Abort):
        return "aborted", 1
    if isinstance(exc, click.ClickException):
        return exc.format_message(), exc.exit_code
    if isinstance(exc, DicebaseError):
        return str(exc), getattr(exc, "exit_code", 2)
    if isinstance(exc, OSError):
        error = file_error(exc, exc.filename or "a file", "use")
        return str(error), error.exit_code
    if type(exc).__name__ == "InterruptException" or str(exc) == "Query interrupted":  # DuckDB's Ctrl-C
        return "interrupted; nothing was changed", 130
    return None


#: ``json.dumps(document, indent=2, allow_nan=False)`` without making an encoder for every document.
_JSON_ENCODER = json.JSONEncoder(indent=2, allow_nan=False)


def json_text(document: Any) -> str:
    """The text ``--json`` prints for a document of plain JSON values (the API sends the same)."""
    return _JSON_ENCODER.encode(document)


def jsonable(value: Any) -> Any:
    """Plain JSON types: numpy scalars and Decimals become numbers, NaN/inf null,
    dates ISO text, bytes hex, anything else unusual its text."""
    kind = type(value)  # the plain types by identity first: every lookup's document is made of them
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is dict:
        return {str(k): jsonable(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [jsonable(v) for v in value]
    return _unusual_jsonable(value)


def _unusual_jsonable(value: Any) -> Any:
    """``jsonable`` of anything but the exact plain types (their subclasses included)."""
    import datetime
    import decimal

    if isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return jsonable(float(value)) if not value == value.to_integral_value() else int(value)
    if isinstance(value, (datetime.date, datetime.time, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    if hasattr(value, "item"):  # numpy scalar
        return jsonable(value.item())
    return str(value)


# -- output written in full, or reported ---------------------------------------------------

class WholeWrites(io.RawIOBase):
    """A file descriptor that writes every byte it is given or raises.

    Python's buffered files return a short count from ``write`` when the disk fills part-way
    through a large write, and the text layer above them drops that count: the rest of the
    output is lost without an error.  Under this raw layer every ``write`` loops until all
    is written; a failure raises ``WriteFailed`` naming ``destination`` (a closed pipe stays
    BrokenPipeError).  After a failure, or with ``discard_after_error``, later writes are
    dropped, so the interpreter's exit-time flush says nothing more.
    """

    def __init__(self, fd: int, destination: str, *, discard_after_error: bool = False, closefd: bool = False,
                 outcome: str = "the output is incomplete"):
        super().__init__()
        self.outcome = outcome
        self._fd = fd
        self.destination = destination
        self.failed = False
        self._discard = discard_after_error
        self._closefd = closefd

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        try:
            return os.isatty(self._fd)
        except OSError:
            return False

    def write(self, data) -> int:
        view = memoryview(data).cast("B")
        if self.failed:
            return len(view)
        done = 0
        try:
            while done < len(view):
                done += os.write(self._fd, view[done:])
        except OSError as exc:
            self.failed = True
            if self._discard:
                return len(view)
            if isinstance(exc, BrokenPipeError):
                raise
            raise output_failed(exc, self.destination, self.outcome) from None
        return done

    def close(self) -> None:
        if not self.closed and self._closefd:
            os.close(self._fd)
        super().close()


def text_output(raw: WholeWrites, like=None) -> io.TextIOWrapper:
    """A text stream over ``raw`` with the encoding, errors and line buffering of ``like``
    (default UTF-8, strict, block-buffered)."""
    return io.TextIOWrapper(
        io.BufferedWriter(raw), encoding=getattr(like, "encoding", None) or "utf-8",
        errors=getattr(like, "errors", None) or "strict", newline="\n" if like is None else None,
        line_buffering=bool(getattr(like, "line_buffering", False)),
    )


def stdout_destination(fd: int = 1) -> str:
    """Where standard output leads, for an error line: its file, or 'standard output (a pipe)'."""
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "standard output"
    if target.startswith("/"):
        return f"{target} (standard output)"
    if target.startswith("pipe:"):
        return "standard output (a pipe)"
    if target.startswith("socket:"):
        return "standard output (a socket)"
    return "standard output"


def write_file(path, data: bytes | str) -> None:
    """Write ``data`` to a temporary file beside ``path`` and rename it into place: the file is
    there complete or not at all (a full disk leaves no partial file).  WriteFailed naming
    ``path`` when it cannot be written."""
    from pathlib import Path

    path = Path(path)
    blob = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    outcome = f"{path} was not written" + (" (the old file is unchanged)" if path.exists() else "")
    try:
        try:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as exc:
            raise output_failed(exc, str(path), outcome) from None
        with WholeWrites(fd, str(path), closefd=True, outcome=outcome) as raw:
            raw.write(blob)
        try:
            os.replace(temp, path)
        except OSError as exc:
            raise output_failed(exc, str(path), outcome) from None
    finally:
        try:
            os.unlink(temp)
        except OSError:
            pass
