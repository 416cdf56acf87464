"""A bounded cache of rendered API answers, keyed by the normalised query.

Legitimate because a database build's answers never change (the ETag says
so): the same endpoint with the same query parameters gives the same bytes
until the server stops.  Bounded by the bytes it holds (least recently used
answers leave first), so the server's memory stays flat however many distinct
states are asked for.  Emptied, with one warning line, if the database file
is replaced or modified while the server runs.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import OrderedDict

#: Bytes an entry costs beyond its body and key text (the dict slot, the tuple, the bytes header).
ENTRY_OVERHEAD = 200


def cache_key(path: str, items: list[tuple[str, str]]) -> tuple:
    """The normalised query: the endpoint and its parameters in name order.

    Every parameter may be given once (a repeat is refused before anything is
    cached) and the command line they make does not depend on their order, so
    two queries with the same key have the same answer.
    """
    return (path, tuple(sorted(items)))


class ResponseCache:
    """Answers (bytes) by ``cache_key``, at most ``max_bytes`` in all; thread-safe.

    ``watch`` is the database file: when its identity, size or modification
    time changes, everything cached is dropped.
    """

    def __init__(self, max_bytes: int, watch: os.PathLike | str | None = None):
        self.max_bytes = max(0, int(max_bytes))
        self.size_bytes = 0
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[tuple, tuple[bytes, int]] = OrderedDict()
        self._lock = threading.Lock()
        self._watch = watch
        self._signature = self._file_signature()

    @property
    def enabled(self) -> bool:
        return self.max_bytes > 0

    def __len__(self) -> int:
        return len(self._entries)

    def _file_signature(self):
        if self._watch is None:
            return None
        try:
            st = os.stat(self._watch)
        except OSError:
            return None
        return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)

    def _check_file(self) -> None:
        """Drop everything if the database file changed since the last look (called under the lock)."""
        signature = self._file_signature()
        if signature != self._signature:
            self._signature = signature
            if self._entries:
                self._entries.clear()
                self.size_bytes = 0
                print(f"dicebase: {self._watch} changed; the response cache was emptied "
                      "(restart dicebase serve to serve the new build)", file=sys.stderr, flush=True)

    def get(self, key: tuple) -> bytes | None:
        """The cached answer, or None (counted as a hit or a miss)."""
        if not self.enabled:
            return None
        with self._lock:
            self._check_file()
            entry = self._entries.get(key)
            if entry is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return entry[0]

    def put(self, key: tuple, body: bytes) -> None:
        """Keep ``body`` for ``key``, dropping the least recently used answers to stay within the bound."""
        if not self.enabled:
            return
        cost = len(body) + len(key[0]) + sum(len(k) + len(v) for k, v in key[1]) + ENTRY_OVERHEAD
        if cost > self.max_bytes:
            return
        with self._lock:
            old = self._entries.pop(key, None)
            if old is not None:
                self.size_bytes -= old[1]
            while self._entries and self.size_bytes + cost > self.max_bytes:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.size_bytes -= dropped
            self._entries[key] = (body, cost)
            self.size_bytes += cost
