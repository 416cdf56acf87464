"""A server's child process ends with its parent: a server must not outlive the command that started it."""

from __future__ import annotations

import os
import signal
import sys

#: How often a child checks that its parent still runs (where the kernel does not tell it).
PARENT_CHECK_SECONDS = 1.0


def end_with_parent(parent: int) -> None:
    """Stop this process (SIGTERM: a uvicorn worker's graceful stop, a tournament process's end) when
    its parent process ``parent`` dies, even by ``kill -9``.

    On Linux the kernel sends the signal (prctl PR_SET_PDEATHSIG); elsewhere, and as a second
    guard, a thread notices that the parent changed.  A parent that died before this ran is
    noticed at once."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            PR_SET_PDEATHSIG = 1
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)
        return

    def watch() -> None:
        import time

        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os.kill(os.getpid(), signal.SIGTERM)

    import threading

    threading.Thread(target=watch, name="dicebase-parent-watch", daemon=True).start()
