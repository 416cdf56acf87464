"""The N-player level loop on a Dask cluster (issue 22): ``dicebase build --cluster ADDRESS|local:N``.

:class:`DaskRunner` is a runner of :func:`dicebase.builder.levels.run`: each level is cut into
chunks (:func:`chunk_count`), each chunk a Dask task running the game's ``solve_tuples`` on a
worker; the driver gathers the chunks in order and alone writes the level (so the table is the
same whatever ran where, and however often a task was retried).

What a chunk reads, and how it gets there (shipped once per worker, not once per task):

* the fixed inputs (the rules, the final round, the rule tables: everything but the turn-start
  table) are scattered to every worker once per solve;
* after each level the driver scatters that level's values (``tuples``, ``values``: the level's
  *delta*) to every worker; the tasks of the next level take it as their Dask dependency, and a
  worker writes it into its own copy of the table once (a worker keeps one copy per solve);
* a worker that missed levels (it started late, was restarted after a crash, or ran no task of a
  level) fetches the deltas it lacks from the cluster by their keys before it solves.

Faults: a worker that dies costs only its tasks (Dask runs them again on another worker; a
restarted worker rebuilds its table from the deltas); a delta lost with every worker that held
it is scattered again from the driver's table; a chunk that fails :data:`ATTEMPTS` times with
the cluster's own errors stops the build with one line.  An error raised by the solver itself
is not retried: it is a bug, and it propagates.

Dask is imported only here, and only when a cluster is asked for: the default install and the
lookups never load it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import re
import socket
import struct
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

import numpy as np

from dicebase.builder.levels import Problem, merge, split
from dicebase.errors import INSTALL, BadInput, ClusterError, clip, cluster_failed, file_error, one_line, shorten, unreachable_scheduler

#: Tasks per worker and level: enough for the scheduler to balance uneven chunks (a tuple with a
#: policy cycle costs many times the others), few enough that the per-task cost stays small.
TASKS_PER_WORKER = 4
#: The fewest tuples a task gets (a task costs the scheduler about a millisecond; a 3-player
#: 10,000 tuple about 15 ms of solving): chunks below it are not worth a task of their own.
MIN_CHUNK = 8
#: How many times the driver submits one chunk again after the cluster lost it.
ATTEMPTS = 4
#: Seconds between checks, while a level's tasks run, that the data they read is still on the cluster.
POLL_SECONDS = 1.0
#: A broadcast that takes longer than this (plus its size at SCATTER_BYTES_PER_SECOND) is tried again:
#: one to a worker killed under it can otherwise wait for ever (a fresh-clone suite run hung there once).
SCATTER_SECONDS = 60.0
SCATTER_BYTES_PER_SECOND = 5e6
#: Seconds to wait for a scheduler to answer.
CONNECT_TIMEOUT = 5

INSTALL_HINT = INSTALL["cluster"]


def require_dask():
    """Import ``distributed`` or raise BadInput (one line, exit 2) naming the extra to install."""
    try:
        import distributed
    except ImportError:
        raise BadInput(f"--cluster needs Dask's distributed scheduler, which is not installed: {INSTALL_HINT}") from None
    return distributed


#: The most a scheduler file may hold (a real one is a few hundred bytes).
SCHEDULER_FILE_BYTES = 1_000_000
#: The largest first message a Dask scheduler's handshake may announce (it is a few hundred bytes).
HANDSHAKE_BYTES = 1_000_000
#: Schemes of a scheduler address dicebase can connect to (tls:// only with Dask's TLS configuration).
SCHEMES = ("tcp", "tls")
_HOST_PORT = re.compile(r"^(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+):(?P<port>[0-9]{1,5})$")
_USAGE = "give tcp://HOST:PORT (Dask's scheduler port, usually 8786), a scheduler file (*.json) or local:N"


def parse_address(text: str) -> tuple[str, Any]:
    """``('local', N)`` for ``local:N`` (N worker processes on this machine), else ``('address',
    (address, label))``: an existing scheduler's ``tcp://HOST:PORT`` (``HOST:PORT`` means tcp) or
    ``tls://HOST:PORT``, or the address a scheduler file (``*.json``, or any existing file) names,
    with how the user gave it.  Checked here, before Dask sees it: BadInput (one line, exit 2) for
    anything else (another scheme, no port, a file that is not a scheduler file)."""
    if not isinstance(text, str) or not text.strip():
        raise BadInput("--cluster takes a scheduler address (tcp://HOST:8786) or local:N, got nothing")
    text = text.strip()
    if text.startswith("local:") or text == "local":
        count = text.partition(":")[2]
        if not count.isdigit() or not 1 <= int(count) <= 1024:
            raise BadInput(f"--cluster local:N needs N worker processes, a whole number 1..1024, got {text!r}")
        return "local", int(count)
    if any(c.isspace() or not c.isprintable() for c in text):
        raise BadInput(f"--cluster {clip(text)} is not a scheduler address: {_USAGE}")
    if "://" not in text and (text.endswith(".json") or os.path.isfile(text)):
        return "address", (_scheduler_file(text), text)
    return "address", (_check_address(text, shorten(text)), text)


def _check_address(text: str, label: str) -> str:
    """``text`` as ``SCHEME://HOST:PORT`` (tcp when no scheme is given), or BadInput."""
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    scheme = scheme.lower()
    if scheme not in SCHEMES:
        raise BadInput(f"--cluster {label}: dicebase reaches a Dask scheduler over tcp:// (or tls://), not "
                       f"{shorten(scheme, 40)}://; {_USAGE}")
    match = _HOST_PORT.match(rest)
    if not match:
        raise BadInput(f"--cluster {label} is not a scheduler address (HOST:PORT is missing or malformed): {_USAGE}")
    port = int(match["port"])
    if not 1 <= port <= 65535:
        raise BadInput(f"--cluster {label}: port {port} is not a port number (1..65535)")
    if scheme == "tls" and _tls_context() is None:
        raise BadInput(f"--cluster {label}: tls:// needs Dask's TLS settings (distributed.comm.tls.* in the Dask "
                       "configuration: the client's certificate and key), which are not set")
    return f"{scheme}://{match['host']}:{port}"


def _tls_context():
    """The client's TLS context from Dask's configuration, or None when none is set (or Dask is missing)."""
    try:
        from distributed.security import Security

        return Security().get_connection_args("client").get("ssl_context")
    except Exception:  # noqa: BLE001 - no Dask (said by require_dask), or a configuration it cannot read
        return None


def _scheduler_file(path: str) -> str:
    """The address a Dask scheduler file names (checked as an address), or BadInput saying what the file is."""
    label = shorten(path)
    try:
        if not os.path.isfile(path):
            raise BadInput(f"--cluster {label}: no such scheduler file")
        if os.path.getsize(path) > SCHEDULER_FILE_BYTES:
            raise BadInput(f"--cluster {label} is not a Dask scheduler file (it is over {SCHEDULER_FILE_BYTES:,} bytes)")
        with open(path, "rb") as handle:
            data = handle.read(SCHEDULER_FILE_BYTES + 1)
    except OSError as exc:
        raise file_error(exc, path, "read") from None
    if not data.strip():
        raise BadInput(f"--cluster {label} is not a Dask scheduler file: it is empty")
    try:
        info = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise BadInput(f"--cluster {label} is not a Dask scheduler file: it is not JSON") from None
    address = info.get("address") if isinstance(info, dict) else None
    if not isinstance(address, str) or not address.strip():
        raise BadInput(f"--cluster {label} is not a Dask scheduler file: it names no \"address\"")
    return _check_address(address.strip(), f"{label} (address {clip(address)})")


def _probe(address: str, label: str) -> None:
    """Make sure a Dask scheduler listens at ``address`` before Dask's client is made: a Dask scheduler
    speaks first (its handshake: an 8-byte length and a short message).  Another server (a web server,
    Dask's own dashboard) says nothing or something else, and Dask's client would read its answer as a
    length of exabytes (MemoryError); a client that fails half-made also prints a traceback when it
    is collected.  BadInput (one line) for anything but a Dask scheduler."""
    scheme, _, rest = address.partition("://")
    host, _, port = rest.rpartition(":")
    host = host.strip("[]")
    try:
        sock = socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT)
    except OSError as exc:
        raise unreachable_scheduler(label, exc) from None
    if scheme == "tls":  # the client speaks first in TLS: reaching the port is all a probe can check
        sock.close()
        return
    head = b""
    with sock:
        try:
            while len(head) < 8:
                chunk = sock.recv(8 - len(head))
                if not chunk:
                    break
                head += chunk
        except OSError:  # a time-out (the server waits for us to speak), or a reset
            pass
    if not head:
        raise BadInput(f"--cluster {label}: the server there is not a Dask scheduler (it waits for the client to "
                       "speak first, as a web server does: Dask's dashboard is usually port 8787, the "
                       "scheduler 8786)")
    if len(head) < 8 or struct.unpack("<Q", head)[0] > HANDSHAKE_BYTES:
        what = "a web server" if head.startswith(b"HTTP") else "not a Dask scheduler"
        raise BadInput(f"--cluster {label}: the server there is {what} (its first bytes are no Dask "
                       "handshake); the scheduler's port is usually 8786")


@dataclass
class Connection:
    """A Dask client and what to close with it (the local cluster it started, if any)."""

    client: Any
    cluster: Any = None
    address: str = ""

    def close(self) -> None:
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:  # noqa: BLE001 - closing a cluster that already went away
                    pass


def connect(text: str) -> Connection:
    """Start ``local:N`` (a LocalCluster of N worker processes, one thread each) or connect to the
    scheduler at ``text``; BadInput (one line) when Dask is missing or the scheduler cannot be reached."""
    kind, value = parse_address(text)
    distributed = require_dask()
    import logging

    if kind == "local":
        cluster = distributed.LocalCluster(
            n_workers=value, threads_per_worker=1, processes=True, dashboard_address=":0",
            silence_logs=int(os.environ.get("DICEBASE_DASK_LOG", logging.CRITICAL)), env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
        )
        client = distributed.Client(cluster, set_as_default=False)
        client.wait_for_workers(value, timeout=120)  # every worker gets the first scatters
        return Connection(client, cluster, f"local:{value}")
    address, given = value
    label = shorten(given)
    _probe(address, label)
    try:
        client = distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise unreachable_scheduler(label, exc) from None
    return Connection(client, None, given)


# --------------------------------------------------------------------------- the worker's side
@dataclass
class _Fixed:
    """What every task of a solve reads besides the table: the game's inputs without the table,
    the table's shape, and the game's functions (module-level: pickled by name)."""

    inputs: Any
    shape: tuple
    solve_tuples: Any
    store: Any


class _Table:
    """A worker's copy of one solve's table and how many levels it holds."""

    def __init__(self, fixed: _Fixed):
        self.inputs = dataclasses.replace(fixed.inputs, start=np.zeros(fixed.shape))
        self.upto = 0
        self.lock = threading.Lock()


#: token -> _Table; a worker keeps the tables of the latest two solves (a build runs one at a time)
_TABLES: dict[str, _Table] = {}
_TABLES_LOCK = threading.Lock()


def _nbytes(value) -> int:
    """The array bytes of a broadcast value (a level's delta, or the fixed inputs: 0 when not arrays)."""
    if isinstance(value, tuple):
        return sum(getattr(v, "nbytes", 0) for v in value)
    return 0


def _delta_name(token: str, index: int) -> str:
    """The name the driver publishes level ``index``'s delta under (Dask's published datasets)."""
    return f"{token}-level-{index}"


def _solve_chunk(fixed: _Fixed, token: str, index: int, latest, tuples: np.ndarray, threads: int):
    """A task: bring this worker's table up to level ``index`` (``latest`` is level ``index - 1``'s
    delta; older ones it lacks are fetched by key), then solve ``tuples``."""
    with _TABLES_LOCK:
        table = _TABLES.get(token)
        if table is None:
            for old in list(_TABLES)[:-1]:
                del _TABLES[old]
            table = _TABLES[token] = _Table(fixed)
    # one catch-up at a time (a worker with several threads runs tasks side by side); the deltas are
    # data already on the cluster, so the task fetches them without leaving the worker's thread pool
    with table.lock:
        if table.upto > index:
            raise RuntimeError(f"worker table of {token} holds level {table.upto - 1}, past level {index}")
        if table.upto < index:
            missing = list(range(table.upto, index - 1))
            deltas = []
            if missing:
                from distributed import get_client

                client = get_client()
                deltas = client.gather([client.get_dataset(_delta_name(token, j)) for j in missing])
            for delta in [*deltas, latest]:
                j, level_tuples, values = delta
                if j != table.upto:
                    raise RuntimeError(f"delta of level {j} where level {table.upto} was due")
                fixed.store(table.inputs, level_tuples, values)
                table.upto = j + 1
    return fixed.solve_tuples(table.inputs, tuples, threads)


def _forget(token: str) -> None:
    _TABLES.pop(token, None)


# --------------------------------------------------------------------------- the driver's side
def chunk_count(tuples: int, workers: int) -> int:
    """Chunks of a level of ``tuples`` tuples on ``workers`` workers: :data:`TASKS_PER_WORKER` per
    worker, none below :data:`MIN_CHUNK` tuples (at least one)."""
    return max(1, min(TASKS_PER_WORKER * max(1, workers), math.ceil(tuples / MIN_CHUNK)))


class DaskRunner:
    """Runs each level's chunks as tasks on the Dask cluster of ``client`` (see the module docstring);
    ``threads``: numba threads per task (one per worker process is the usual layout)."""

    def __init__(self, client, *, threads: int = 1, name: str = ""):
        self.client = client
        self.threads = threads
        self.name = name
        self.stats = {"tasks": 0, "resubmitted": 0, "rescattered": 0, "bytes_scattered": 0,
                      "seconds_waiting": 0.0}
        self._fixed = None
        self._fixed_value = None
        self._held: dict[int, Any] = {}
        self._values: dict[int, tuple] = {}
        self._token = ""

    def describe(self) -> str:
        return f"Dask {self.name or self.client.scheduler.address}, {self.workers()} workers"

    def workers(self) -> int:
        try:
            return max(1, len(self.client.scheduler_info(n_workers=-1)["workers"]))
        except TypeError:  # older distributed: no n_workers argument
            return max(1, len(self.client.scheduler_info()["workers"]))

    def open(self, problem: Problem) -> None:
        self._token = f"dicebase-{uuid.uuid4().hex[:12]}"
        fixed = _Fixed(dataclasses.replace(problem.inputs, start=None), problem.inputs.start.shape,
                       problem.solve_tuples, problem.store)
        self._fixed_value = fixed
        self._fixed = self._broadcast(fixed)
        self._held.clear()
        self._values.clear()

    def stored(self, index: int, tuples: np.ndarray, values: np.ndarray) -> None:
        """The driver wrote level ``index``: send its delta to every worker (once each)."""
        with _cluster_faults(index):
            self._stored(index, tuples, values)

    def _stored(self, index: int, tuples: np.ndarray, values: np.ndarray) -> None:
        delta = (index, tuples, values)
        self._values[index] = delta
        self._held[index] = self._scatter(index, delta)
        self.stats["bytes_scattered"] += int(tuples.nbytes + values.nbytes) * self.workers()

    def _broadcast(self, value):
        """``value`` scattered to every worker, as one object.  A worker that dies during the scatter
        closes its stream (an OSError): the scheduler drops it in a moment, so wait and scatter again
        to the workers there are then (:data:`ATTEMPTS` tries)."""
        seconds = SCATTER_SECONDS + _nbytes(value) / SCATTER_BYTES_PER_SECOND
        for attempt in range(ATTEMPTS):
            try:
                # scatter's own timeout bounds only the wait for workers, not the broadcast: bound the whole call
                return self.client.sync(lambda: self.client.scatter([value], broadcast=True, hash=False,
                                                                    asynchronous=True),
                                        callback_timeout=seconds)[0]
            except (OSError, TimeoutError):  # TimeoutError: a broadcast to a worker killed under it never ends
                if attempt == ATTEMPTS - 1:
                    raise
                time.sleep(0.5 * (attempt + 1))

    def _scatter(self, index: int, delta: tuple):
        future = self._broadcast(delta)
        self.client.publish_dataset(**{_delta_name(self._token, index): future}, override=True)
        return future

    def _lost(self) -> bool:
        return self._fixed.status != "finished" or any(f.status != "finished" for f in self._held.values())

    def _recover(self, everything: bool = False) -> None:
        """Scatter again every delta (and the fixed inputs) the cluster lost with its workers;
        ``everything``: all of them, also those the client still sees as held (after chunks were
        cancelled for lost dependencies, the scheduler's view and the futures' can disagree)."""
        if everything or self._fixed.status != "finished":
            self._fixed = self._broadcast(self._fixed_value)
            self.stats["rescattered"] += 1
        for index, future in list(self._held.items()):
            if everything or future.status != "finished":
                self._held[index] = self._scatter(index, self._values[index])
                self.stats["rescattered"] += 1

    def solve_level(self, problem: Problem, index: int, tuples: np.ndarray):
        with _cluster_faults(index):
            return self._solve_level(problem, index, tuples)

    def _solve_level(self, problem: Problem, index: int, tuples: np.ndarray):
        chunks = split(tuples, chunk_count(len(tuples), self.workers()))
        results: list = [None] * len(chunks)
        todo = list(range(len(chunks)))
        last_error: BaseException | None = None
        for attempt in range(ATTEMPTS):
            if attempt or self._lost():
                self._recover(everything=attempt > 0)
            latest = self._held.get(index - 1)
            futures = {c: self.client.submit(_solve_chunk, self._fixed, self._token, index, latest, chunks[c],
                                             self.threads, pure=False, retries=1)
                       for c in todo}
            self.stats["tasks"] += len(futures)
            self.stats["resubmitted"] += len(futures) if attempt else 0
            started = time.perf_counter()
            failed = []
            pending = dict(futures)
            while pending:
                for c, future in list(pending.items()):  # in chunk order
                    try:
                        results[c] = future.result(timeout=POLL_SECONDS)
                    except TimeoutError:
                        break  # still running: look for lost data, then wait again
                    except Exception as error:  # noqa: BLE001 - sorted here: the cluster's or the solver's
                        if not _is_cluster_fault(error):
                            raise  # the solver's own error: not the cluster's, not retried
                        last_error = error
                        failed.append(c)
                    del pending[c]
                if pending and self._lost():
                    # a task whose input died with every worker holding it would wait for ever
                    self.client.cancel(list(pending.values()))
                    failed.extend(pending)
                    last_error = RuntimeError("input data lost with the workers that held it")
                    break
            self.stats["seconds_waiting"] += time.perf_counter() - started
            todo = failed
            if not todo:
                return merge(results)
        reason = " ".join(str(last_error).split())[:200] if last_error else "lost"
        raise cluster_failed(f"level {index} of {problem.label}: the cluster failed a chunk {ATTEMPTS} times", reason)

    def close(self) -> None:
        token = self._token
        for index in list(self._held):
            try:
                self.client.unpublish_dataset(_delta_name(token, index))
            except Exception:  # noqa: BLE001 - already gone with the cluster
                pass
        self._held.clear()
        self._values.clear()
        self._fixed = self._fixed_value = None
        if token:
            try:
                self.client.run(_forget, token)
            except Exception:  # noqa: BLE001 - a cluster that went away has nothing to forget
                pass


@contextlib.contextmanager
def _cluster_faults(index: int):
    """The scheduler went away (a closed connection, a time-out): one line, with the way to go on."""
    try:
        yield
    except (OSError, TimeoutError) as exc:
        raise cluster_failed(f"the Dask cluster failed at level {index}", one_line(exc)[:160] or type(exc).__name__) from None


def _is_cluster_fault(error: BaseException) -> bool:
    """Errors of the cluster (a worker died, data was lost, a task was cancelled), not of the solver."""
    import asyncio

    names = {"CancelledError", "FutureCancelledError", "KilledWorker", "CommClosedError", "FutureLost"}
    if isinstance(error, (OSError, TimeoutError, asyncio.CancelledError)):
        return True
    return any(k.__name__ in names for k in type(error).__mro__)


__all__ = ["DaskRunner", "Connection", "ClusterError", "connect", "parse_address", "require_dask", "chunk_count",
           "INSTALL_HINT"]
