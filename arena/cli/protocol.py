"""``gin-arena protocol``: the bot protocol's published artefacts."""

from __future__ import annotations

import argparse
import sys

from protocol.messages import PROTOCOL_VERSIONS
from protocol.schema import schema_text

HELP = "print the bot protocol's JSON Schema"
DESCRIPTION = """\
Print the JSON Schema (Draft 2020-12) of every message of the bot protocol (see docs/PROTOCOL.md).

examples:
  gin-arena protocol schema
  gin-arena protocol schema > protocol/schema/v1.json
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("what", choices=["schema"], help="what to print")
    parser.add_argument(
        "--version",
        type=int,
        default=PROTOCOL_VERSIONS[-1],
        help=f"protocol version (default {PROTOCOL_VERSIONS[-1]})",
    )


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(schema_text(args.version))
    return 0
