"""Every error a user can act on, its one-line text and its remedy, in one place.

The bottom layer: the standard library only, so that the builder, the read API,
the CLI and the web server all raise and report the same classes in the same
words.  Each class says what it means for a caller:

* ``exit_code``: what the CLI exits with: 2 for the user's own input or path, 1
  for a fault of the machine (a full disk);
* ``http_status``: what the HTTP API answers: 400 a bad parameter, 404 not in
  the database, 503 what is no fault of the request (a missing, damaged, locked
  or unreadable database, a query past its time or memory limit).

An instance may carry other values than its class (``no_space`` sets both to
those of a machine fault).  The text of the errors about a database file, and
the command that fixes them, come from the functions below (``missing``,
``damaged``, ``other_schema_version``, ``locked``, ``rebuild_hint`` ...), and a
rebuild hint always repeats the user's own ``--db`` and names the games to
rebuild: never a command that would drop the other games of the file.
"""

from __future__ import annotations

import errno
import os
import re
import sys

#: The HTTP status of a fault of the server or its file, not of the request.
UNAVAILABLE = 503


class DicebaseError(Exception):
    """Base class for errors a user can act on; the message is one line.

    ``exit_code`` is what the CLI exits with: 2 for the user's own input or
    path (the default), 1 for a fault of the machine (a full disk);
    ``http_status`` what the HTTP API answers (400 unless a subclass says otherwise).
    """

    exit_code = 2
    http_status = 400


class BadInput(DicebaseError, ValueError):
    """An argument is invalid; the message says what is wrong and what is allowed."""


class NotInDatabase(DicebaseError, KeyError):
    """The database has no rows for the request (game, variant or range not built)."""

    http_status = 404

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "not in the database"


class DatabaseMissing(DicebaseError, FileNotFoundError):
    """No database file at the location; the message names the build command."""

    http_status = UNAVAILABLE


class ReadOnlyViolation(DicebaseError):
    """A statement that writes (or touches files) was refused."""


class DatabaseLocked(DicebaseError):
    """Another process holds a lock on the file (a build, or an engine's write lock): wait and retry."""

    http_status = UNAVAILABLE


class PermissionDenied(DicebaseError, PermissionError):
    """The operating system refuses to let this user read or write the file."""

    http_status = UNAVAILABLE

    def __str__(self) -> str:  # OSError would format (errno, strerror)
        return str(self.args[0]) if self.args else "permission denied"


class NotADicebaseDatabase(DicebaseError):
    """The file is not a dicebase database (another program's file, or the other store's)."""

    http_status = UNAVAILABLE


class DatabaseDamaged(DicebaseError):
    """The engine reports the file as corrupt (checksum error, malformed pages); only a rebuild helps."""

    http_status = UNAVAILABLE


class SchemaVersionMismatch(DicebaseError):
    """The file is a dicebase database of another schema (or engine storage) version; rebuild it."""

    http_status = UNAVAILABLE


class DatabaseClosed(DicebaseError):
    """A lookup on a database after ``close()``."""

    http_status = UNAVAILABLE


class QueryTimeout(DicebaseError):
    """A query ran past its time limit and was stopped; nothing was changed."""

    http_status = UNAVAILABLE


class QueryInterrupted(DicebaseError):
    """A query was stopped by ``Database.interrupt()`` from another thread."""

    http_status = UNAVAILABLE


class QueryTooLarge(DicebaseError):
    """A query needs more memory, or returns more rows, than the ceiling allows."""

    http_status = UNAVAILABLE


class QueryFailed(DicebaseError):
    """The engine refused a query for another reason (its one-line message is kept)."""


class WriteFailed(DicebaseError):
    """A build or export could not write its output; the old file is unchanged."""

    http_status = UNAVAILABLE


#: Every class of the read API above, base first (``dicebase``, ``dicebase.query`` and ``dicebase.query.base``
#: re-export them); the build's and the rules' own follow.
ERRORS = (
    "DicebaseError", "BadInput", "NotInDatabase", "DatabaseMissing", "DatabaseLocked", "PermissionDenied",
    "NotADicebaseDatabase", "DatabaseDamaged", "SchemaVersionMismatch", "DatabaseClosed", "QueryTimeout",
    "QueryInterrupted", "QueryTooLarge", "QueryFailed", "ReadOnlyViolation", "WriteFailed",
)


# -- the errors of a build and of the rules (raised by dicebase.builder and dicebase.rules) --

class BuildError(DicebaseError):
    """A build request that cannot be carried out (bad option, incompatible file)."""


class BuildLocked(BuildError, DatabaseLocked):
    """Another build holds the target's lock (and --no-wait was given)."""


class ClusterError(DicebaseError):
    """The cluster failed the build (its workers kept dying, or it went away)."""

    exit_code = 1


class SizeLimit(DicebaseError, ValueError):
    """A rule set whose solve would exceed the machine (the message gives the estimate).
    ``dicebase build --force-size`` builds it anyway."""


class RulesFileError(DicebaseError, ValueError):
    """A rules file that cannot be built; the message is one line naming the file and key."""


class CheckpointFormatError(ValueError):
    """A level checkpoint (with a matching hash) that is not what a build writes: the build
    reports it as :func:`foreign_checkpoint`, never as itself."""


# -- echoing the user's input ------------------------------------------------------------

def one_line(exc: BaseException | str) -> str:
    """The text of ``exc`` with every run of whitespace (newlines too) as one space."""
    return " ".join(str(exc).split())


def shorten(text: str, limit: int = 120) -> str:
    """``text`` cut to about ``limit`` characters, saying how long it was."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[: max(limit - 25, 10)]}... ({len(text)} characters)"


def clip(value, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters, for echoing user input in an error line."""
    try:
        text = repr(value)
    except Exception:  # a user object whose repr fails
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[: limit - 20]}... ({len(text)} characters)"


# -- remedies: the build command for this file --------------------------------------------

def db_argument(loc) -> str:
    """The ``--db`` argument that names ``loc`` (a ``dicebase.location.Location``) as the user
    gave it: the path as given (relative stays relative), with ``sqlite:///`` or ``duckdb:///``
    only where the file name alone would pick the other store; "" for the default database."""
    import shlex

    from dicebase.location import default_path, resolve

    path = loc.path
    try:
        if path.resolve() == default_path().resolve():
            return ""
    except OSError:  # a path that cannot be resolved is not the default one
        pass
    text = os.fspath(path)
    try:
        plain = resolve(text).store == loc.store and "://" not in text
    except ValueError:
        plain = False
    return "--db " + shlex.quote(text if plain else f"{loc.store}:///{text}")


def build_hint(loc) -> str:
    """``dicebase build`` with the user's own ``--db`` (none for the default database)."""
    db = db_argument(loc)
    return f"dicebase build {db}" if db else "dicebase build"


def rebuild_hint(loc, games=(), *, force: bool = False, extra=()) -> str:
    """The command that builds ``games`` (names as the CLI spells them, or with ``_``) into ``loc``.

    It repeats the user's ``--db`` and names the games: a build keeps every game of the file
    it does not name, so the command drops none of them.  ``extra`` are further arguments
    (e.g. ``-o GAME.KEY=VALUE`` for the variant in question); ``force`` rebuilds games already
    built.  With no games (a file whose games cannot be read) the command builds every game.
    """
    if isinstance(games, str):
        games = (games,)
    parts = ["dicebase build", *(str(g).replace("_", "-") for g in games)]
    db = db_argument(loc)
    if db:
        parts.append(db)
    parts.extend(str(e) for e in extra)
    if force:
        parts.append("--force")
    return " ".join(parts)


def house_rules_file(game: str, name: str, loc) -> tuple[str, str]:
    """(the command that writes the rules file of the house rule set ``name`` as ``loc``'s file was built
    with, that file's name): a rebuild hint names house rules by their file, never by their values.  The
    file is ``NAME-as-built.toml``, so that the user's own ``NAME.toml`` is left alone."""
    import shlex

    path = f"{name}-as-built.toml"
    db = db_argument(loc)
    cli = game.replace("_", "-")
    return f"dicebase rules {cli} --variant {shlex.quote(name)}{' ' + db if db else ''} > {path}", path


def add_remedy(command: str, *, refusal: str | None = None, size: str | None = None, it: str = "it",
               lead: str = "") -> str:
    """What follows "; " in a "not built" line: ``add it with: COMMAND`` (``lead``: other words before
    the command, e.g. "rebuild with"); where the build's own checks refuse what the command asks, why
    no build can add it (``refusal``); where it passes the build's size limits (``size``: the build's
    line), that and the command with --force-size."""
    if refusal:
        return f"no build can add {it}: {refusal}"
    if size:
        return f"a build of {it} is over the size limits ({size}); build {it} anyway with: {command}"
    return f"{lead or f'add {it} with'}: {command}"


#: The command that installs each optional part of dicebase (pyproject.toml's extras).
INSTALL = {"cluster": "pip install 'dicebase[cluster]'", "serve": "pip install 'dicebase[serve]'"}


def cluster_failed(what: str, reason: str) -> ClusterError:
    """A cluster that failed a level of a build (``what``: where and how often, ``reason``: its last error,
    cut to a line): the build stops, and its checkpoints let the next run go on from there."""
    return ClusterError(f"{what} ({reason}); run the build again with --resume to continue from the last finished level")


def unreachable_scheduler(label: str, exc: BaseException) -> BadInput:
    """``--cluster ADDRESS``: no Dask scheduler answers there (``exc``: why, cut to a line)."""
    return BadInput(f"--cluster {label}: cannot reach a Dask scheduler there ({one_line(exc)[:160] or type(exc).__name__})")


def too_many_players(players: int, counts, option: str) -> BadInput:
    """A number of players no build can store (``counts``: the numbers a build may solve)."""
    return BadInput(f"{players} players cannot be built: the N-player tables hold {counts[0]} to {counts[-1]} players "
                    f"({option}), got {players}")


# -- the texts of the errors about a database file ----------------------------------------

def missing(loc) -> DatabaseMissing:
    """No file at ``loc``: the command that builds it."""
    return DatabaseMissing(f"no database at {shorten(str(loc.path), 200)}; build it with: {build_hint(loc)}")


def not_built(game: str, loc) -> NotInDatabase:
    """``game`` is not in the file at ``loc``: the command that adds it (and keeps the others)."""
    cli = game.replace("_", "-")
    return NotInDatabase(f"{cli} is not built into {loc.path}; add it with: {rebuild_hint(loc, [cli])}")


def damaged(loc, detail: str, games=()) -> DatabaseDamaged:
    """The engine reports the file at ``loc`` as corrupt; ``games``: those it held, when known."""
    return DatabaseDamaged(f"{loc.path} is damaged ({detail}); rebuild it with: {rebuild_hint(loc, games, force=True)}")


def other_schema_version(loc, found: str, expected, games=()) -> SchemaVersionMismatch:
    """The file at ``loc`` holds schema version ``found``; this dicebase reads ``expected``."""
    return SchemaVersionMismatch(
        f"{loc.path} was built with schema version {found}, this dicebase reads version '{expected}'; "
        f"rebuild it with: {rebuild_hint(loc, games, force=True)}"
    )


def other_storage_version(loc, detail: str, games=()) -> SchemaVersionMismatch:
    """DuckDB cannot read the file at ``loc``'s storage format."""
    return SchemaVersionMismatch(
        f"{loc.path} was written by another DuckDB storage version ({detail}); "
        f"rebuild it with: {rebuild_hint(loc, games, force=True)}"
    )


def locked(loc, pid: str | None = None) -> DatabaseLocked:
    """Another process holds the engine's write lock on ``loc``: wait, the file is fine."""
    holder = f" (pid {pid})" if pid else ""
    which = "DuckDB's write lock" if loc.store == "duckdb" else "SQLite's write lock"
    return DatabaseLocked(
        f"{loc.path} is locked by another process{holder} holding {which}; "
        "wait for it to finish and try again (the file itself is fine)"
    )


def closed() -> DatabaseClosed:
    """A lookup after ``close()``."""
    return DatabaseClosed("the database is closed; open it again with dicebase.open(...)")


def timed_out(seconds: float) -> QueryTimeout:
    return QueryTimeout(f"the query ran longer than {seconds:g} s and was stopped; nothing was changed")


def request_timed_out(what: str, seconds: float, remedy: str = "") -> QueryTimeout:
    """A server request (``what``: a tournament) past the server's time limit: its work was stopped (HTTP 503)."""
    return QueryTimeout(f"{what} ran longer than the server's limit of {seconds:g} s and was stopped{remedy}")


def server_busy(message: str) -> DicebaseError:
    """The server's room for expensive requests is full: no fault of the request, try again (the codes of
    a full disk: exit 1, HTTP 503)."""
    return no_space(message)


def no_statement() -> BadInput:
    """The ``sql`` command's text holds no statement (only spaces or comments)."""
    return BadInput("the query holds no SQL statement")


def refused_function(name: str) -> ReadOnlyViolation:
    """A call of a function the ``sql`` command never runs (it writes, runs SQL of its own or waits)."""
    return ReadOnlyViolation(f"refused: {name}() changes state, runs SQL of its own or waits; the sql command only reads")


def qualified_call(name: str) -> ReadOnlyViolation:
    """A schema-qualified call of a bounded function (``system.main.repeat``), which would go around its bounds."""
    return ReadOnlyViolation(f"refused: a qualified call of {name}() goes around its bounds; call it as {name}()")


def interrupted() -> QueryInterrupted:
    return QueryInterrupted("the query was interrupted; nothing was changed")


def no_space(message: str) -> DicebaseError:
    """A full disk: a fault of the machine (exit 1, HTTP 503), not of the user's input."""
    error = DicebaseError(message)
    error.exit_code = 1
    error.http_status = UNAVAILABLE
    return error


def unsafe_checkpoints(root, path, why: str) -> BadInput:
    """A build's level-checkpoint directory that another user owns or others may write (issue 34):
    whoever can write it could plant the values a ``--resume`` reads."""
    import shlex

    return BadInput(f"refused the checkpoint directory {clip(str(path), 200)}: {why}, so it cannot be trusted; "
                    f"remove it (rm -r {shlex.quote(str(root))}) and run the build again")


def foreign_checkpoint(path, why: str) -> BadInput:
    """A level checkpoint whose hash matches its manifest but that is not what a build writes."""
    import shlex

    directory = os.path.dirname(str(path))
    return BadInput(f"refused the checkpoint {os.path.basename(str(path))} in {clip(directory, 200)}: {why}; a build "
                    "never writes such a file, "
                    f"so it was not read: remove {shlex.quote(directory)} (or build without --resume)")


def file_error(exc: OSError, path, doing: str = "open") -> DicebaseError:
    """An OSError about ``path`` as one DicebaseError line."""
    name = clip(str(path), 120)
    code = exc.errno
    if code in (errno.EACCES, errno.EPERM):
        return PermissionDenied(f"cannot {doing} {name}: permission denied")
    if code == errno.ENAMETOOLONG:
        return BadInput(f"cannot {doing} {name}: file name too long")
    if code == errno.EROFS:
        return PermissionDenied(f"cannot {doing} {name}: read-only file system")
    if code == errno.ENOTDIR:
        return BadInput(f"cannot {doing} {name}: a part of the path is a file, not a directory")
    if code == errno.ENOENT:
        return BadInput(f"cannot {doing} {name}: no such file or directory")
    if code == errno.ENOSPC:
        return no_space(f"cannot {doing} {name}: no space left on the device")
    return DicebaseError(f"cannot {doing} {name}: {exc.strerror or one_line(exc)}")


def output_failed(exc: OSError, destination: str, outcome: str = "the output is incomplete") -> WriteFailed:
    """A command's output could not be written in full to ``destination`` (a file, or standard
    output and where it leads): one line naming it.  Exit 1 for a fault of the machine (a full
    disk, an I/O error, the file size limit), 2 for the user's path (permissions ...)."""
    code = exc.errno
    if code in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        reason, exit_code = "no space left on the device (free some space and run it again)", 1
    elif code == errno.EFBIG:
        reason, exit_code = "the file is larger than this process may write (see ulimit -f)", 1
    elif code == errno.EIO:
        reason, exit_code = "input/output error on the device", 1
    else:
        error = file_error(exc, destination, "write")
        reason, exit_code = str(error).split(": ", 1)[-1], error.exit_code
    failed = WriteFailed(f"cannot write the output to {destination}: {reason}; {outcome}")
    failed.exit_code = exit_code
    return failed


#: The start of the message a bounded function raises inside the engine (dicebase.query.engine's
#: macros and SQLite's printf): it becomes :func:`value_too_large`.
VALUE_LIMIT_TAG = "dicebase value limit:"


def value_too_large(what: str = "") -> QueryTooLarge:
    """One function call would build a value past the read connection's bounds (a string of
    more than 10,000,000 bytes, a list of more than 1,000,000 elements): refused at once, as a
    call that long could not be stopped by the time limit or Ctrl-C until it ended."""
    detail = what.split(VALUE_LIMIT_TAG, 1)[-1].strip().rstrip(".") if what else ""
    return QueryTooLarge(
        "refused: " + (detail or "a function call would build a value larger than the bounds allow")
        + " (a string is at most 10,000,000 bytes, a list at most 1,000,000 elements, so that the time "
        "limit and Ctrl-C stop any query within a second); nothing was changed")


def out_of_memory(detail: str, remedy: str = "") -> QueryTooLarge:
    """The engine ran out of memory: our own line (DuckDB's own text speaks of its in-memory
    mode, which dicebase never uses), with ``remedy`` when the caller has one."""
    limit = re.search(r"\(([\d.]+ ?[KMGT]i?B)/([\d.]+ ?[KMGT]i?B) used\)", detail)
    used = f" ({limit.group(2)} allowed)" if limit else ""
    return QueryTooLarge(f"the query needs more memory than the ceiling allows{used}"
                         + (f"; {remedy}" if remedy else "; ask for fewer rows or columns (or open the database with a higher "
                                           "memory_limit: dicebase.open(PATH, memory_limit='4GB'))"))


# -- engine errors ----------------------------------------------------------------------

# DuckDB exception classes (by name: this module imports no engine) that describe the query
# itself (the user's SQL or parameters).
_DUCKDB_QUERY_ERRORS = {
    "ParserException", "SyntaxException", "BinderException", "CatalogException", "ConversionException",
    "InvalidInputException", "InvalidTypeException", "NotImplementedException", "TypeMismatchException",
    "OutOfRangeException", "ConstraintException", "DependencyException", "SequenceException",
    "TransactionException", "ProgrammingError", "DataError",
}
# SQLite's primary result codes (sqlite3.h) as kinds.
_SQLITE_KINDS = {
    5: "locked", 6: "locked", 3: "permission", 23: "refused", 11: "damaged", 26: "not-a-database",
    18: "memory", 7: "memory", 9: "interrupt", 8: "refused", 14: "cannot-open", 13: "full", 10: "io",
}


def kind(exc: BaseException) -> str:
    """What went wrong, from the engine's error code or exception class (not from its text,
    which may quote the user's own SQL): locked, permission, damaged, not-a-database,
    version, memory, interrupt, refused, query, cannot-open, full, io or other."""
    sqlite3 = sys.modules.get("sqlite3")  # not imported: the error is not SQLite's (and the CLI starts without it)
    if sqlite3 is not None and isinstance(exc, sqlite3.Error):
        primary = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        return _SQLITE_KINDS.get(primary, "query")
    name = type(exc).__name__
    if name in _DUCKDB_QUERY_ERRORS:
        return "query"
    if name == "InterruptException":
        return "interrupt"
    if name == "OutOfMemoryException":
        return "memory"
    if name == "PermissionException":
        return "refused"
    low = one_line(exc).lower()
    if "could not set lock" in low or "conflicting lock" in low:
        return "locked"
    if "permission denied" in low:
        return "permission"
    if "corrupt" in low or "checksum" in low:
        return "damaged"
    if "not a valid duckdb database" in low:
        return "not-a-database"
    if "storage version" in low or name == "SerializationException":
        return "version"
    if "no space left" in low or "disk is full" in low:
        return "full"
    return "other"


def store_name(loc) -> str:
    return "DuckDB" if loc.store == "duckdb" else "SQLite"


def classify(exc: BaseException, loc) -> DicebaseError:
    """An engine error on ``loc`` as the specific DicebaseError a user can act on."""
    message = shorten(one_line(exc), 160)
    path = loc.path
    what = kind(exc)
    if what == "locked":
        pid = re.search(r"\bPID (\d+)", one_line(exc))
        return locked(loc, pid.group(1) if pid else None)
    if what == "permission":
        return PermissionDenied(f"cannot read {path}: permission denied")
    if what == "damaged":
        return damaged(loc, message)
    if what == "not-a-database":
        return NotADicebaseDatabase(f"{path} is not a {store_name(loc)} database file")
    if what == "version":
        return other_storage_version(loc, message)
    if what == "memory":
        return out_of_memory(message)
    if what == "refused":
        return ReadOnlyViolation(f"refused: {message}")
    if what == "cannot-open":
        if not os.access(path, os.R_OK):
            return PermissionDenied(f"cannot read {path}: permission denied")
        return DicebaseError(f"cannot open {path}: {message}")
    if what == "full":
        return no_space(f"no space left on the device ({message})")
    if what == "io":
        return DicebaseError(f"cannot read {path}: {message}")
    return QueryFailed(message)
