"""``gin-arena serve``: a live, read-only page of a league or a tournament (the ``[web]`` extra)."""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Final

from arena.cli.options import add_title_argument, title_from
from arena.terminal import printable

HELP = "a live page of a league or a tournament, updated as games land (read-only)"
DESCRIPTION = """\
Serves a live page of a league's or a tournament's database: the standings with their 95%
intervals and how sure each place is, each bot's versions and the change between them,
forfeits by reason, the recent games each with its replay, and the head to head. The page
follows the database as `league run` or `tournament` writes it, without a reload. The database
is only read: serve it while it is played, or from a read-only folder.

It listens on 127.0.0.1 (this machine only) unless --host says otherwise. JSON for scripts:
/api/standings (what `league standings --format json --all` prints; for a tournament what
`ratings --format json` prints) and /api/state (everything the page shows).

Needs the web extra: pip install 'gin-rummy-arena[web]'.

examples:
  gin-arena serve --db club.sqlite                # http://127.0.0.1:8000/
  gin-arena serve --db club.sqlite --port 8080 --title "Club league, winter"
  gin-arena serve --db club.sqlite --host 0.0.0.0 # every network this machine is on
"""
MISSING: Final = "needs the web extra (Starlette and uvicorn): pip install 'gin-rummy-arena[web]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--db", type=Path, required=True, help="a league's or tournament's database"
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 publishes "
        "the page on every network of this machine)",
    )
    parser.add_argument(
        "--port",
        type=int,
        default=8000,
        help="the port to listen on (default 8000; 0: any free one)",
    )
    add_title_argument(parser)
    parser.add_argument(
        "--poll",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="how often the database is looked at for new games (default 1)",
    )


def loopback(host: str) -> bool:
    """Whether ``host`` is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0 to 65535, not {args.port}")
    if not 0.05 <= args.poll <= 60:
        raise ValueError(f"--poll must be 0.05 to 60 seconds, not {args.poll:g}")
    try:
        import uvicorn

        from arena.serve.app import create_app
    except ImportError:
        print(f"gin-arena serve: {MISSING}", file=sys.stderr)
        return 1
    from arena.serve.state import ServeError, Source

    source = Source(args.db, title_from(args.title))
    try:
        source.page()  # a database that cannot be read is said now, not on the page
    except ServeError as error:
        print(f"gin-arena serve: {printable(str(error), lines=True)}", file=sys.stderr)
        return 1
    if not loopback(args.host):
        print(
            f"gin-arena serve: warning: --host {printable(args.host)} publishes the page to "
            "every machine that can reach this one (the page is read-only, but it shows every "
            "bot's name and results)",
            file=sys.stderr,
        )
    app = create_app(source, poll=args.poll, host="127.0.0.1" if loopback(args.host) else "*")
    try:
        listening = socket.create_server(
            (args.host, args.port), family=socket.AF_INET6 if ":" in args.host else socket.AF_INET
        )
    except OSError as error:
        print(
            f"gin-arena serve: cannot listen on {printable(args.host)} port {args.port}: "
            f"{error.strerror or error}; choose another --port (0: any free one)",
            file=sys.stderr,
        )
        return 1
    port = listening.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(
        f"serving {printable(str(args.db))} at http://{shown}:{port}/ (read-only; Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.run(sockets=[listening])
    except KeyboardInterrupt:
        pass
    finally:
        listening.close()
    return 0
