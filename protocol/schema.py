"""The protocol's JSON Schema (Draft 2020-12), generated from the models.

The committed copy is ``protocol/schema/v1.json``; a test fails when it drifts from the models.
Regenerate it with ``gin-arena protocol schema > protocol/schema/v1.json``.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

from protocol.messages import MESSAGE_ADAPTER, PROTOCOL_VERSIONS

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema(version: int = PROTOCOL_VERSIONS[-1]) -> dict[str, Any]:
    """The schema of every message of ``version``, both directions, as one ``oneOf``."""
    if version not in PROTOCOL_VERSIONS:
        raise ValueError(f"unknown protocol version {version}: known {list(PROTOCOL_VERSIONS)}")
    body = MESSAGE_ADAPTER.json_schema(mode="validation")
    return {
        "$schema": SCHEMA_DIALECT,
        "$id": f"https://gin-rummy-arena.invalid/protocol/v{version}.json",
        "title": f"gin-arena bot protocol, version {version}",
        "description": "One JSON object per line over a bot's stdin (referee to bot) and stdout "
        "(bot to referee). See docs/PROTOCOL.md.",
        **body,
    }


def schema_text(version: int = PROTOCOL_VERSIONS[-1]) -> str:
    return json.dumps(schema(version), indent=2, sort_keys=True) + "\n"


def committed_schema_text(version: int = PROTOCOL_VERSIONS[-1]) -> str:
    """The schema file shipped with the package."""
    return resources.files("protocol").joinpath(f"schema/v{version}.json").read_text("utf-8")
