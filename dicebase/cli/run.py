"""Running the ``dicebase`` command line: every error as one line on stderr, the exit codes,
and a read-only command's quick end.  ``dicebase.main`` runs the whole program through it."""

from __future__ import annotations

import sys

import click

from dicebase import games
from dicebase.errors import DicebaseError
from dicebase.present import error_line


def run(group: click.Group, argv: list[str] | None = None) -> None:
    """Run the command line ``argv`` (default: sys.argv[1:]) of ``group`` as the console entry
    point does: one line on stderr for every error, never a traceback; then exit.

    Exit codes: 0 done, 2 the user's own input or path, 1 a fault of the
    machine (a full disk) or a bug, 130 Ctrl-C.  ``DICEBASE_DEBUG=1`` shows
    the traceback of a bug instead of its one line.
    """
    import os

    args = sys.argv[1:] if argv is None else list(argv)
    restore = _checked_streams()
    try:
        try:
            try:
                # make_context/invoke rather than group.main: click's main turns Ctrl-C
                # into Abort after printing a stray newline; here every exception
                # reaches the one-line handlers below.
                with group.make_context("dicebase", args) as ctx:
                    group.invoke(ctx)
                code = 0
            except click.exceptions.Exit as exc:  # --help, --version
                code = exc.exit_code
            except click.exceptions.NoArgsIsHelpError as exc:  # `dicebase` or `dicebase threes` alone
                click.echo(exc.ctx.get_help())
                code = 0
            _flush_stdout()  # the one place every command's output is known to be complete, or reported
        except BrokenPipeError:  # the reader of stdout went away (| head): not an error
            _quiet_broken_pipe()
            code = 0
        except (KeyboardInterrupt, Exception) as exc:
            line = error_line(exc)
            if line is None:
                if os.environ.get("DICEBASE_DEBUG"):
                    raise
                line = (f"internal error ({type(exc).__name__}: {exc}); please report it with the command you ran "
                        "(DICEBASE_DEBUG=1 shows the traceback)", 1)
            _fail(*line)
        if argv is None and _reads_only(args):
            _exit_now(code)
        sys.exit(code)
    finally:
        restore()


def _checked_streams():
    """Put standard output and standard error of this process behind ``WholeWrites``; returns
    the function that puts the originals back.

    Standard output: every byte is written or the command fails with one line naming where
    the output went (Python's own buffered stdout loses the rest of a large write on a full
    disk, and its exit-time flush error is dropped).  Standard error carries progress and the
    error line: a closed or full one is not the job's failure, so its writes are dropped from
    the first failure on and the command carries on (``build ... 2>&1 | head -1`` finishes the
    build).  Only the process's own streams are replaced (not a test's captured ones).
    """
    from dicebase.present import WholeWrites, stdout_destination, text_output

    originals = sys.stdout, sys.stderr
    replaced = []
    for name, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, name)
        if stream is None or stream is not getattr(sys, f"__{name}__"):
            continue
        try:
            if stream.fileno() != fd:
                continue
            stream.flush()
        except (OSError, ValueError, AttributeError):
            continue
        if name == "stdout":
            raw = WholeWrites(fd, stdout_destination(fd))
        else:
            raw = WholeWrites(fd, "standard error", discard_after_error=True)
        setattr(sys, name, text_output(raw, like=stream))
        replaced.append(name)

    def restore() -> None:
        for name in replaced:
            try:
                getattr(sys, name).flush()
            except (OSError, ValueError, DicebaseError):
                pass
        sys.stdout, sys.stderr = originals

    return restore


#: Commands that only read: once their output is written this process has nothing left to do.
READ_ONLY_COMMANDS = {*games.cli_names("cli"), "info", "schema", "sql", "verify", "rules"}


def _reads_only(args: list[str]) -> bool:
    """Whether ``args`` run a read-only command, in a process nobody profiles or traces."""
    name = next((arg for arg in args if not arg.startswith("-")), None)
    return name in READ_ONLY_COMMANDS and sys.getprofile() is None and sys.gettrace() is None


def _exit_now(code: int) -> None:
    """Flush the output and end the process without the interpreter's teardown.

    A read-only command has closed its database and written its answer; tearing down
    every module and DuckDB's engine would add about 15 ms to a lookup's end to end
    time (the console script only: ``main(argv)`` called from Python returns as usual).
    """
    import os

    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, DicebaseError):  # a closed pipe or full disk (already reported), a closed stream
            pass
    os._exit(code)


def _flush_stdout() -> None:
    """Flush now, so a closed pipe is reported here and not at interpreter exit."""
    sys.stdout.flush()


def _quiet_broken_pipe() -> None:
    """After EPIPE: point stdout at /dev/null so Python's exit-time flush stays silent."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # no real file descriptor (tests capture stdout)
        pass


#: Where the remedy of an error line starts: the command that fixes it, printed whole (cut, it would not run).
_REMEDY = r"\bdicebase (?:build|rules) "
#: The longest remedy printed whole; past it (echoed input that happens to contain one) it is cut like the rest.
_REMEDY_LIMIT = 600


def _fail(message: str, code: int) -> None:
    import re

    line = " ".join(str(message).split())
    remedy = re.search(_REMEDY, line)
    head, tail = (line[: remedy.start()], line[remedy.start():]) if remedy else (line, "")
    if len(tail) > _REMEDY_LIMIT:
        head, tail = line, ""
    # echoed input (a 5,000-digit die, a 300-character path) is cut to a readable length, keeping both
    # ends (a path's file name is at its end); the command that fixes the error is not cut (issue 34: a
    # cut rebuild hint lost the very option it was for)
    head = re.sub(r"\S{121,}", lambda m: f"{m.group(0)[:40]}...({len(m.group(0))} characters)...{m.group(0)[-60:]}",
                  head)
    if len(head) > 1000:
        head = head[:1000] + "..."
    line = head + tail
    try:  # what the command wrote before it failed goes out first (or is dropped if it cannot)
        sys.stdout.flush()
    except (OSError, ValueError, DicebaseError):
        pass
    try:
        click.echo(f"Error: {line}", err=True)
    except (BrokenPipeError, OSError):
        pass
    sys.exit(code)
