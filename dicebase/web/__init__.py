"""``dicebase serve``: the phone-friendly web advisor and the HTTP JSON API.

- ``command``: the ``serve`` click command (``dicebase.main`` adds it to the command line);
- ``api``: every CLI lookup with ``--json`` as ``GET /api/v1/GAME/COMMAND``, run
  through the click command itself (``dicebase.cli``), so the API returns exactly what
  ``--json`` prints;
- ``openapi``: the OpenAPI document generated from the same commands;
- ``app``: the Starlette application (shared read-only database, ETag, CORS);
- ``pages``: the HTML advisors, with the figures of ``dicebase.plots``; templates and
  static assets ship in the package;
- ``server``: uvicorn, one or more worker processes; ``warm``: the warm-up at start;
- ``expensive``: the tournament endpoint, in a process of its own beside each server process,
  one at a time, killed at ``--timeout``; ``lifeline``: a child process ends with its parent.

The layer above the CLI and the plots (it serves both), below ``dicebase.main`` only.
Imported only by ``dicebase serve`` and the tests: lookups never load the web stack.
"""
