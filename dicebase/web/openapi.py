"""The OpenAPI document of the API, generated from the click commands behind it."""

from __future__ import annotations

from urllib.parse import urlencode

import click

from dicebase.version import __version__
from dicebase.web.api import Endpoint, Parameter

ERROR = {
    "type": "object",
    "properties": {"error": {"type": "string", "description": "the CLI's one-line message"}},
    "required": ["error"],
}


def example_url(endpoint: Endpoint) -> str:
    items = endpoint.example()
    return endpoint.path + ("?" + urlencode(items, safe=",") if items else "")


def _schema(parameter: Parameter) -> dict:
    param = parameter.param
    if parameter.is_flag:
        return {"type": "boolean", "default": False}
    if parameter.is_list:
        return {"type": "string", "pattern": r"^\d+(,\d+)*$", "description": "comma-separated whole numbers"}
    kind = param.type
    if isinstance(kind, click.Choice):
        schema: dict = {"type": "string", "enum": list(kind.choices)}
    elif isinstance(kind, click.IntRange):
        schema = {"type": "integer"}
        if kind.min is not None:
            schema["minimum"] = kind.min
        if kind.max is not None:
            schema["maximum"] = kind.max
    elif kind is click.INT:
        schema = {"type": "integer"}
    else:
        schema = {"type": "string"}
    default = param.default
    if isinstance(default, (str, int, float, bool)):
        schema["default"] = default
    return schema


def document(endpoints: dict[str, Endpoint]) -> dict:
    """OpenAPI 3.1: one GET operation per endpoint, its query parameters and an example URL."""
    paths = {}
    for path, endpoint in endpoints.items():
        example = dict(endpoint.example())
        parameters = []
        for name, parameter in endpoint.parameters.items():
            spec = {
                "name": name,
                "in": "query",
                "required": parameter.required,
                "description": parameter.help or f"the CLI's {parameter.flag}",
                "schema": _schema(parameter),
                "x-cli": parameter.flag,
            }
            if name in example:
                spec["example"] = example[name]
            parameters.append(spec)
        cli = "dicebase " + " ".join(endpoint.cli_path) + " ... --json"
        paths[path] = {
            "get": {
                "operationId": "_".join(p.replace("-", "_") for p in endpoint.cli_path),
                "summary": endpoint.summary,
                "description": endpoint.description,
                "parameters": parameters,
                "x-example": example_url(endpoint),
                "responses": {
                    "200": {
                        "description": f"the JSON document `{cli}` prints",
                        "headers": {"ETag": {"description": "the database build", "schema": {"type": "string"}}},
                        "content": {"application/json": {"schema": {}}},
                    },
                    "304": {"description": "not modified (If-None-Match matched the build's ETag)"},
                    "400": {"description": "bad input", "content": {"application/json": {"schema": ERROR}}},
                    "404": {
                        "description": "the database does not hold this state, variant or game",
                        "content": {"application/json": {"schema": ERROR}},
                    },
                    "503": {
                        "description": "the database cannot answer now (missing, damaged or busy), or the lookup "
                                       "ran past the server's time limit",
                        "content": {"application/json": {"schema": ERROR}},
                    },
                },
            }
        }
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "dicebase",
            "version": __version__,
            "description": (
                "Every lookup `dicebase GAME COMMAND [ARGS] --json` is `GET /api/v1/GAME/COMMAND` with the same "
                "options as query parameters (long option names, dashes as underscores; flags true/false; "
                "positional dice comma-separated) and returns the same JSON document."
            ),
        },
        "paths": paths,
    }
