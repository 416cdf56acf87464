"""``dicebase serve``: the phone-friendly web advisor and the HTTP JSON API.

- ``api``: every CLI lookup with ``--json`` as ``GET /api/v1/GAME/COMMAND``, run
  through the click command itself, so the API returns exactly what ``--json`` prints.
- ``openapi``: the OpenAPI document generated from the same commands.
- ``app``: the Starlette application (shared read-only database, ETag, CORS).
- ``pages``: the HTML advisors; templates and static assets ship in the package.

Imported only by ``dicebase serve`` and the tests: lookups never load the web stack.
"""
