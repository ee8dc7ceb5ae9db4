"""The live page as a web application (Starlette, run by uvicorn: the ``[web]`` extra).

Routes, all read-only (GET only):

- ``/``: the page (``live.html``): its script (``live.js``) reads ``/api/state`` and then
  listens on ``/events`` (server-sent events), so the page follows the database without a
  reload.
- ``/api/state``: everything the page shows (:mod:`arena.serve.state`).
- ``/api/standings``: what ``league standings --format json --all`` prints (a tournament: what
  ``ratings --format json`` prints).
- ``/events``: an ``event: state`` with the whole page's data at once and again after every
  change of the database (looked for every ``poll`` seconds, one query), a comment line every
  :data:`KEEPALIVE` seconds between, and ``event: problem`` when the database cannot be read
  (the page keeps what it shows and says so).
- ``/game/{id}``: a game's replay in the report's own viewer (``arena/report/viewer.js``).
- ``/static/NAME``: the page's script and style sheets, from a fixed list (no path from the
  request reaches the file system).

Nothing is loaded from anywhere else, and the headers say so to the browser
(``Content-Security-Policy``: scripts, styles and connections from this server only, no inline
script, no frames). Every string a bot controls reaches the page as JSON and is put in with
``textContent`` (the report's viewer does the same); the replay page embeds its data the way the
report does (:func:`arena.report.html.script_json`). A request whose ``Host`` is not this server's
is refused: on loopback, only ``localhost``, ``127.0.0.1`` and ``[::1]`` (a web page elsewhere that
rebinds its name to 127.0.0.1 reads nothing).
"""

from __future__ import annotations

import asyncio
import functools
import html
import importlib.resources
import json
import re
from collections.abc import AsyncIterator
from typing import Any, Final

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from arena.report.html import script_json
from arena.serve.state import ServeError, Source

KEEPALIVE: Final = 15.0
"""Seconds between two comment lines on a quiet event stream (proxies close idle ones)."""
LOOPBACK: Final = ("127.0.0.1", "localhost", "::1")
_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
_STATIC: Final = {
    "live.js": ("arena.serve", "text/javascript"),
    "live.css": ("arena.serve", "text/css"),
    "page.css": ("arena.report", "text/css"),
    "viewer.js": ("arena.report", "text/javascript"),
}
"""The files ``/static/`` serves: name, package, type."""


@functools.cache
def _asset(package: str, name: str) -> str:
    return importlib.resources.files(package).joinpath(name).read_text(encoding="utf-8")


def _json(value: Any, status: int = 200) -> Response:
    return JSONResponse(value, status_code=status, headers=_HEADERS)


def _html(text: str, status: int = 200) -> Response:
    return HTMLResponse(text, status_code=status, headers=_HEADERS)


def _fill(template: str, **values: str) -> str:
    """``template`` with each ``{{name}}`` replaced, in one pass (what goes in is not scanned
    again)."""
    return re.sub(r"\{\{(\w+)\}\}", lambda match: values[match.group(1)], template)


def _escape(text: str) -> str:
    return html.escape(text, quote=True)


def _replay_section() -> str:
    """The report's replay viewer (its markup, taken from the report's own page)."""
    page = _asset("arena.report", "page.html")
    found = re.search(r'<section id="replay".*?</section>', page, re.DOTALL)
    if found is None:  # pragma: no cover - the report's page always has it
        raise RuntimeError("arena/report/page.html has no replay section")
    return found.group(0)


def create_app(source: Source, *, poll: float = 1.0, host: str = "127.0.0.1") -> Starlette:
    """The application serving ``source``; ``poll``: seconds between two looks at the database
    for the event stream; ``host``: the address it is served on (which ``Host`` headers it
    accepts)."""

    async def page(request: Request) -> Response:
        return _html(_fill(_asset("arena.serve", "live.html"), title=_escape(source.title)))

    async def state(request: Request) -> Response:
        try:
            built = await run_in_threadpool(source.page)
        except ServeError as error:
            return _json({"error": str(error)}, 503)
        return _json(built.data)

    async def standings(request: Request) -> Response:
        try:
            rows = await run_in_threadpool(source.standings_json)
        except ServeError as error:
            return _json({"error": str(error)}, 503)
        return _json(rows)

    async def game(request: Request) -> Response:
        game_id: int = request.path_params["game_id"]
        try:
            data = await run_in_threadpool(source.replay, game_id)
        except ServeError as error:
            return _html(f"<p>{_escape(str(error))}</p>", 503)
        if data is None:
            return _html(f"<p>No game {game_id} with a record in this database.</p>", 404)
        return _html(
            _fill(
                _asset("arena.serve", "replay.html"),
                title=_escape(f"{source.title}: game {game_id}"),
                viewer=_replay_section(),
                data=script_json(data),
            )
        )

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC:
            return Response("not found", 404, headers=_HEADERS)
        package, media = _STATIC[name]
        return Response(_asset(package, name), media_type=media, headers=_HEADERS)

    async def events(request: Request) -> Response:
        return StreamingResponse(
            _stream(source, poll), media_type="text/event-stream", headers=_HEADERS
        )

    hosts = list(LOOPBACK) if host in LOOPBACK else ["*"]
    return Starlette(
        routes=[
            Route("/", page),
            Route("/api/state", state),
            Route("/api/standings", standings),
            Route("/events", events),
            Route("/game/{game_id:int}", game),
            Route("/static/{name}", static),
        ],
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)],
    )


async def _stream(source: Source, poll: float) -> AsyncIterator[str]:
    """The event stream of one page: the state now, then again at each change."""
    yield "retry: 2000\n\n"
    sent: tuple[int, int, int] | None = None
    problem: str | None = None
    quiet = 0.0
    while True:
        try:
            built = await run_in_threadpool(source.page)
        except ServeError as error:
            if str(error) != problem:
                problem = str(error)
                yield _event("problem", {"error": problem})
        else:
            problem = None
            if built.token != sent:
                sent = built.token
                quiet = 0.0
                yield _event("state", built.data)
        await asyncio.sleep(poll)
        quiet += poll
        if quiet >= KEEPALIVE:
            quiet = 0.0
            yield ": still here\n\n"


def _event(kind: str, data: Any) -> str:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    return f"event: {kind}\ndata: {text}\n\n"
