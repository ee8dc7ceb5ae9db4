"""``gin-arena serve`` as a user runs it: a real server process on a real league database (and a
tournament's), read over HTTP: the page, its JSON, its event stream following ``league run``,
the replay page, and what it refuses (another ``Host``, a path outside what it serves, a
database it cannot read). The page in a real browser is tests/serve/test_serve_browser.py."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from support import COMMAND, QUICK, bound, gin_arena, read_only_mount, start_gin_arena

pytest.importorskip("starlette", reason="gin-arena serve needs the web extra: pip install '.[web]'")
pytest.importorskip("uvicorn", reason="gin-arena serve needs the web extra: pip install '.[web]'")

HOSTILE_NAME = '<script>window.owned=1</script>&"x'


def cli(*args: str, cwd: Path | None = None) -> str:
    done = gin_arena(*args, cwd=cwd) if cwd else gin_arena(*args)
    assert done.returncode == 0, f"gin-arena {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def club(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A league of three built-in bots (one under a hostile name) after a batch of games."""
    db = tmp_path_factory.mktemp("club") / "club.sqlite"
    cli("league", "create", "--db", str(db), "--seed", "5")
    cli("league", "add", "--db", str(db), "strong", "strong")
    cli("league", "add", "--db", str(db), "greedy", "greedy")
    cli("league", "add", "--db", str(db), HOSTILE_NAME, "random")
    cli("league", "run", "--db", str(db), "--pairings", "8")
    return db


class Server:
    """A ``gin-arena serve`` process and the address it said it serves at."""

    def __init__(self, *args: str) -> None:
        self.process = start_gin_arena(
            "serve", *args, "--port", "0", "--poll", "0.2",
            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
        )  # fmt: skip
        assert self.process.stderr is not None
        self.said = ""
        while "serving" not in self.said:
            line = self.process.stderr.readline()
            assert line, f"gin-arena serve ended saying {self.said!r}"
            self.said += line
        found = re.search(r"at (http://\S+/) ", self.said)
        assert found, f"no address in {self.said!r}"
        self.url = found.group(1)

    def get(
        self, path: str, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        request = urllib.request.Request(self.url + path.lstrip("/"), headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=QUICK) as answer:
                return answer.status, dict(answer.headers), answer.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def json(self, path: str) -> Any:
        status, _, body = self.get(path)
        assert status == 200, body
        return json.loads(body)

    def stop(self) -> int:
        self.process.send_signal(signal.SIGINT)
        try:
            return self.process.wait(timeout=QUICK)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()


@pytest.fixture
def serve() -> Iterator[Any]:
    servers: list[Server] = []

    def start(*args: str) -> Server:
        server = Server(*args)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def events(stream: IO[bytes]) -> Iterator[tuple[str, Any]]:
    """The server-sent events of ``stream``, as (event, data) pairs; comments skipped."""
    kind, data = "message", []
    for raw in stream:
        line = raw.decode("utf-8").rstrip("\n")
        if not line:
            if data:
                yield kind, json.loads("\n".join(data))
            kind, data = "message", []
        elif line.startswith("event: "):
            kind = line[len("event: ") :]
        elif line.startswith("data: "):
            data.append(line[len("data: ") :])


def test_the_api_gives_what_league_standings_prints(club: Path, serve: Any) -> None:
    server = serve("--db", str(club))
    printed = json.loads(cli("league", "standings", "--db", str(club), "--all", "--format", "json"))
    assert server.json("/api/standings") == printed
    state = server.json("/api/state")
    assert state["kind"] == "league"
    assert state["games"] == 16
    assert [r["name"] for r in state["standings"]] == [r["version"] for r in printed]
    assert len(state["certainty"]) == 2 and all("LOS" in line for line in state["certainty"])
    assert "100%" not in " ".join(state["certainty"])
    assert len(state["recent"]) == 16 and state["recent"][0]["id"] == 16  # newest first
    assert set(state["crosstable"]["bots"]) == {r["version"] for r in printed}
    facts = dict(state["facts"]["summary"])  # what is played: the report's own facts
    assert facts["Kind"].startswith("league") and facts["Seed"] == "5"
    assert {b["name"]: b["command"] for b in state["facts"]["bots"]}["strong@1"] == "builtin:strong"


def test_the_page_is_served_with_walls_and_nothing_from_outside(club: Path, serve: Any) -> None:
    server = serve("--db", str(club), "--title", "<b>Club</b> league")
    status, headers, body = server.get("/")
    assert status == 200
    page = body.decode()
    assert "<title>&lt;b&gt;Club&lt;/b&gt; league</title>" in page
    csp = headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert headers["x-content-type-options"] == "nosniff"
    # Every script, style sheet and link is the server's own.
    for reference in re.findall(r'(?:src|href)="([^"#]+)"', page):
        assert reference.startswith("/"), reference
    for name in ("live.js", "live.css", "page.css", "viewer.js"):
        assert server.get(f"/static/{name}")[0] == 200
    assert HOSTILE_NAME not in page  # bot names come as JSON, put in as text by the script
    assert ".innerHTML" not in server.get("/static/live.js")[2].decode()


@pytest.mark.parametrize(
    "path", ["/static/../store.py", "/static/%2e%2e%2fstate.py", "/static/state.py", "/etc/passwd",
             "/game/abc", "/game/999"],
)  # fmt: skip
def test_nothing_outside_what_it_serves(club: Path, serve: Any, path: str) -> None:
    server = serve("--db", str(club))
    status, _, body = server.get(path)
    assert status == 404, (path, status, body[:200])
    assert b"import" not in body


def test_another_host_is_refused_on_loopback(club: Path, serve: Any) -> None:
    """A page elsewhere whose name is made to point at 127.0.0.1 reads nothing."""
    server = serve("--db", str(club))
    assert server.get("/api/state", {"Host": "evil.example"})[0] == 400
    assert server.get("/api/state", {"Host": "localhost:1234"})[0] == 200


def test_a_game_replays_in_the_reports_viewer(club: Path, serve: Any) -> None:
    server = serve("--db", str(club))
    status, _, body = server.get("/game/3")
    assert status == 200
    page = body.decode()
    assert 'id="replay-game"' in page and '<script src="/static/viewer.js">' in page
    data = json.loads(re.search(r'id="report-data">(.*?)</script>', page, re.S).group(1))
    replay = data["replays"]["3"]
    assert replay["error"] is None and replay["hands"]
    assert HOSTILE_NAME not in page  # escaped as the report escapes its data


def test_the_event_stream_follows_league_run_and_the_file_is_never_written(
    club: Path, serve: Any, tmp_path: Path
) -> None:
    db = tmp_path / "copy.sqlite"
    db.write_bytes(club.read_bytes())
    server = serve("--db", str(db))
    before = server.json("/api/state")["games"]
    with urllib.request.urlopen(server.url + "events", timeout=bound(60.0)) as stream:
        arrived = events(stream)
        kind, first = next(arrived)
        assert kind == "state" and first["games"] == before
        cli("league", "run", "--db", str(db), "--pairings", "8")
        for kind, data in arrived:
            assert kind == "state"
            if data["games"] == before + 16:
                break
        assert data["recent"][0]["id"] == before + 16


def test_serving_writes_nothing(club: Path, serve: Any, tmp_path: Path) -> None:
    db = tmp_path / "quiet.sqlite"
    db.write_bytes(club.read_bytes())
    digest = hashlib.sha256(db.read_bytes()).hexdigest()
    server = serve("--db", str(db))
    server.json("/api/state")
    server.get("/game/2")
    assert server.stop() == 0
    assert hashlib.sha256(db.read_bytes()).hexdigest() == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["quiet.sqlite"]


def test_a_tournament_database_is_served_too(tmp_path: Path, serve: Any) -> None:
    db = tmp_path / "t.sqlite"
    cli(
        "tournament",
        "--db",
        str(db),
        "--bot",
        "g=greedy",
        "--bot",
        "r=random",
        "--games-per-table",
        "4",
    )
    server = serve("--db", str(db))
    state = server.json("/api/state")
    assert state["kind"] == "tournament" and state["games"] == 4
    ratings = json.loads(cli("ratings", "--db", str(db), "--format", "json"))
    assert server.json("/api/standings") == ratings


def test_what_it_cannot_serve_is_one_line(tmp_path: Path) -> None:
    missing = gin_arena("serve", "--db", str(tmp_path / "none.sqlite"), timeout=COMMAND)
    assert missing.returncode == 1
    assert missing.stderr.count("\n") == 1 and "no tournament database" in missing.stderr
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database")
    bad = gin_arena("serve", "--db", str(junk), timeout=COMMAND)
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert "not a gin-rummy-arena" in bad.stderr


def test_publishing_says_so(club: Path, serve: Any) -> None:
    server = serve("--db", str(club), "--host", "0.0.0.0")
    warning, serving = server.said.splitlines()
    assert warning.startswith("gin-arena serve: warning: --host 0.0.0.0 publishes the page")
    assert serving.startswith("serving ") and "http://0.0.0.0:" in serving
    assert server.get("/api/state", {"Host": "club.example"})[0] == 200  # published: any name
    assert server.stop() == 0


def test_a_compare_is_on_the_page(tmp_path: Path, serve: Any) -> None:
    db = tmp_path / "versions.sqlite"
    cli("league", "create", "--db", str(db), "--seed", "2")
    cli("league", "add", "--db", str(db), "mine", "random")
    cli("league", "add", "--db", str(db), "rival", "random")
    cli("league", "update", "--db", str(db), "mine", "greedy", "--keep")
    cli("league", "compare", "--db", str(db), "mine@2", "mine@1")
    server = serve("--db", str(db))
    (entry,) = server.json("/api/state")["compares"]
    assert entry["new"] == "mine@2" and entry["old"] == "mine@1"
    assert entry["summary"].startswith("mine@2 v mine@1")
    rows = {row["version"]: row for row in server.json("/api/standings")}
    assert rows["mine@2"]["compares"] == [entry]


def test_serve_reads_a_league_on_a_read_only_mount_and_leaves_nothing(
    club: Path, serve: Any, tmp_path: Path
) -> None:
    shutil.copy(club, tmp_path / "club.sqlite")
    with read_only_mount(tmp_path) as folder:
        db = folder / "club.sqlite"
        server = serve("--db", str(db))
        shown = json.loads(cli("league", "standings", "--db", str(db), "--all", "--format", "json"))
        assert server.json("/api/standings") == shown
        assert server.json("/api/state")["games"] == 16
        assert server.get("/")[0] == 200
        server.stop()  # before the mount goes
        assert {p.name for p in folder.iterdir()} == {"club.sqlite"}


def test_without_the_web_extra_it_says_what_to_install(club: Path) -> None:
    """As after a plain ``pip install .``: no uvicorn to import (a None in sys.modules makes the
    import fail as a missing module does)."""
    code = (
        "import sys; sys.modules['uvicorn'] = None; sys.modules['starlette'] = None\n"
        "from arena.cli.main import main\n"
        f"sys.argv = ['gin-arena', 'serve', '--db', {str(club)!r}]\n"
        "sys.exit(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=COMMAND, check=False
    )
    assert done.returncode == 1
    assert done.stderr == (
        "gin-arena serve: needs the web extra (Starlette and uvicorn): "
        "pip install 'gin-rummy-arena[web]'\n"
    )
