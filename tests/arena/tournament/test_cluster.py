"""Tournaments on a real Ray cluster on this machine (``tox -e cluster``): a head node and a second
node, each its own raylet and object store on 127.0.0.1 (``ray.cluster_utils.Cluster``, Ray's own
way to run several nodes on one host); a tournament across both, the second node killed mid-run;
the games compared with a local run of the same seed. Every Ray process the tests start is
stopped at the end.

Without Ray installed these tests are skipped, and ``--ray`` says how to install it (tested in the
default run)."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import LEAGUE, LONG, bound, gin_arena, installed_env, start_gin_arena

from arena.tournament import cluster

HAS_RAY = importlib.util.find_spec("ray") is not None
needs_ray = pytest.mark.skipif(not HAS_RAY, reason="Ray is not installed (tox -e cluster)")

COLUMNS = "id, seat0, seat1, seed, winner, reason, failed, message, rule, score0, score1, hands"
TIMES = frozenset({"date", "ms", "seconds"})
ARGS = ("--seed", "11", "--games-per-pair", "24", "--subprocess", "--sandbox", "none")


def tournament(*args: str, cwd: Path, timeout: float = LEAGUE) -> subprocess.CompletedProcess[str]:
    """``gin-arena tournament ARGS`` with the package as installed, as Ray's workers import it."""
    return gin_arena("tournament", *args, cwd=cwd, env=installed_env(), timeout=timeout)


def games(db: Path) -> dict[int, tuple[Any, ...]]:
    """Every game's deciding columns and its record without its times."""
    with contextlib.closing(sqlite3.connect(db.absolute().as_uri() + "?mode=ro", uri=True)) as c:
        rows = c.execute(f"SELECT {COLUMNS}, record FROM games ORDER BY id").fetchall()
    return {row[0]: (*row[:-1], _timeless(row[-1])) for row in rows}


def _timeless(record: str) -> list[dict[str, Any]]:
    return [
        {k: v for k, v in json.loads(line).items() if k not in TIMES}
        for line in record.splitlines()
    ]


def count_games(db: Path) -> int:
    try:
        with contextlib.closing(
            sqlite3.connect(db.absolute().as_uri() + "?mode=ro", uri=True)
        ) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def test_without_ray_the_option_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # an import of ray now fails
    with pytest.raises(cluster.ClusterError, match=r"pip install 'gin-rummy-arena\[ray\]'"):
        cluster.connect("auto")


@pytest.mark.skipif(HAS_RAY, reason="Ray is installed here")
def test_the_cli_without_ray_names_the_extra(tmp_path: Path) -> None:
    done = tournament("--ray", "auto", "--db", "t.sqlite", *ARGS, cwd=tmp_path, timeout=LONG)
    assert done.returncode == 1
    assert "pip install 'gin-rummy-arena[ray]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "t.sqlite").exists(), "no database for a run that cannot start"


@contextlib.contextmanager
def two_nodes() -> Iterator[tuple[Any, Any]]:
    """A head node and a second node on this machine, one CPU each; stopped at the end."""
    from ray.cluster_utils import Cluster

    ray_cluster = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False},
    )
    try:
        worker = ray_cluster.add_node(num_cpus=1)
        ray_cluster.wait_for_nodes()
        yield ray_cluster, worker
    finally:
        ray_cluster.shutdown()


@needs_ray
@pytest.mark.slow
def test_a_tournament_across_two_nodes_with_one_killed_equals_a_local_run(tmp_path: Path) -> None:
    local = tournament("--db", "local.sqlite", "--concurrency", "1", *ARGS, cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    with two_nodes() as (ray_cluster, worker):
        address = ray_cluster.address
        proc = start_gin_arena(
            *("tournament", "--ray", address, "--db", "ray.sqlite", *ARGS),
            cwd=tmp_path,
            env=installed_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=False,
        )
        try:
            deadline = time.monotonic() + bound(300)
            while count_games(tmp_path / "ray.sqlite") < 12 and proc.poll() is None:
                assert time.monotonic() < deadline, "no games committed on the cluster"
                time.sleep(0.2)
            assert proc.poll() is None, "the tournament ended before the node could be killed"
            ray_cluster.remove_node(worker, allow_graceful=False)  # SIGKILL: a lost machine
            out, err = proc.communicate(timeout=LEAGUE)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 0, err
    assert "Ray cluster" in out and "2 nodes" in out
    ours, theirs = games(tmp_path / "ray.sqlite"), games(tmp_path / "local.sqlite")
    assert len(theirs) == 3 * 24
    assert ours == theirs


@needs_ray
@pytest.mark.slow
def test_a_local_cluster_leaves_no_ray_banner_in_the_output(tmp_path: Path) -> None:
    """Ray announces on stderr that token authentication is on, its default for a local
    cluster, unless RAY_AUTH_MODE is set: not a line for the tournament's user."""
    env = {name: value for name, value in os.environ.items() if name != "RAY_AUTH_MODE"}
    args = ("--ray", "local", "--db", "t.sqlite", "--seed", "11", "--games-per-pair", "2")
    done = gin_arena(
        *("tournament", *args, "--sandbox", "none"), cwd=tmp_path, env=env, timeout=bound(300)
    )
    assert done.returncode == 0, done.stderr
    assert "Ray cluster local: 1 node" in done.stdout
    assert "Token authentication" not in done.stderr + done.stdout
    assert "RAY_AUTH_MODE" not in done.stderr + done.stdout


def test_an_unreachable_cluster_is_a_clear_error(tmp_path: Path) -> None:
    done = tournament(
        "--ray", "127.0.0.1:1", "--db", "t.sqlite", *ARGS, cwd=tmp_path, timeout=bound(300)
    )
    assert done.returncode == 1
    if HAS_RAY:
        assert "cannot reach the Ray cluster at '127.0.0.1:1'" in done.stderr
    else:
        assert "pip install 'gin-rummy-arena[ray]'" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "t.sqlite").exists()


@needs_ray
@pytest.mark.slow
def test_a_bot_that_cannot_start_on_a_node_is_named_before_any_game(tmp_path: Path) -> None:
    """The probe runs on every node and names the node where a bot cannot start (here on both:
    one machine cannot lack a file for one node only)."""
    import ray

    from arena.seats.botspec import BotSpec
    from arena.tournament.config import new_config
    from arena.tournament.runner import Venue

    config = new_config(
        (BotSpec("ghost", ("/no/such/bot",)), BotSpec("greedy", builtin="greedy")),
        games_per_pair=2,
        seed=1,
    )
    with two_nodes() as (ray_cluster, _):
        ray.init(address=ray_cluster.address, log_to_driver=False)
        try:
            with pytest.raises(cluster.ClusterError) as caught:
                cluster.probe(ray, config, Venue("none"))
            assert len(cluster.nodes(ray)) == 2
        finally:
            ray.shutdown()
    message = str(caught.value)
    assert re.match(
        r"node [0-9.]+: bot 'ghost' could not start: cannot run '/no/such/bot'", message
    )


@needs_ray
@pytest.mark.slow
def test_a_driver_killed_mid_run_resumes_locally_to_the_same_games(tmp_path: Path) -> None:
    local = tournament("--db", "local.sqlite", "--concurrency", "1", *ARGS, cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    with two_nodes() as (ray_cluster, _):
        command = ["tournament", "--ray", ray_cluster.address, "--db", "ray.sqlite", *ARGS]
        proc = start_gin_arena(
            *command,
            cwd=tmp_path,
            env=installed_env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=False,
        )
        deadline = time.monotonic() + bound(300)
        while count_games(tmp_path / "ray.sqlite") < 8 and proc.poll() is None:
            assert time.monotonic() < deadline, "no games committed on the cluster"
            time.sleep(0.1)
        proc.kill()  # the driver dies: the database keeps what it committed
        proc.wait()
    played = count_games(tmp_path / "ray.sqlite")
    assert 8 <= played < 3 * 24
    resumed = tournament("--db", "ray.sqlite", "--resume", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming at {played} of 72 games" in resumed.stdout
    assert games(tmp_path / "ray.sqlite") == games(tmp_path / "local.sqlite")


def _league(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return gin_arena("league", *args, cwd=cwd, env=installed_env(), timeout=bound(300))


@needs_ray
@pytest.mark.slow
def test_a_league_on_a_local_cluster_plays_the_games_of_a_local_run(tmp_path: Path) -> None:
    """``league run --ray local``: the same seed and the same events give the same games as a
    run in local workers (the pairings do not depend on where the games run)."""
    for where in ("ray", "local"):
        (tmp_path / where).mkdir()
        db = f"{where}.sqlite"
        assert _league("create", "--db", db, "--seed", "11", cwd=tmp_path / where).returncode == 0
        for name in ("random", "greedy", "strong"):
            done = _league("add", "--db", db, name, name, "--sandbox", "none", cwd=tmp_path / where)
            assert done.returncode == 0, done.stderr
        more = ("--ray", "local") if where == "ray" else ("--concurrency", "1")
        done = _league(
            "run", "--db", db, "--pairings", "8", "--sandbox", "none", *more, cwd=tmp_path / where
        )
        assert done.returncode == 0, done.stderr
    ours, theirs = (
        games(tmp_path / "ray" / "ray.sqlite"),
        games(tmp_path / "local" / "local.sqlite"),
    )
    assert len(ours) == 16 and ours == theirs
