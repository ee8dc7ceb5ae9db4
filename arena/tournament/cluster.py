"""Tournaments on a Ray cluster (``gin-arena tournament --ray ADDRESS``).

The driver (this process) keeps the schedule and the SQLite database, as in a local run; each Ray
task plays one scheduled task of the tournament (:func:`arena.tournament.runner.run_task`: up to 20
games of one table, whole deals played seating after seating, with one set of bot processes a
seating, closed at its end) on whichever node Ray picks, and returns its games' rows, which the
driver commits as each task comes back, skipping a game committed before.
The games are the same as a local run's with the same seed: a task is a pure function of the
tournament's configuration and its place in the schedule.

Before the first game a probe task on every node starts every bot once (:func:`probe`), so a bot
command missing on one node, or another version of gin-rummy-arena there, is an error naming the
node, not a pile of forfeits. A node lost mid-run takes its tasks with it: Ray runs them again
elsewhere (up to :data:`RETRIES` times), and a task that still fails is abandoned like a local one
whose worker died (its games are drawn with reason ``referee``). A driver that dies leaves the
database as a local run would: ``--resume`` continues, on Ray or locally.

Ray is an optional dependency (``pip install 'gin-rummy-arena[ray]'``); without it ``--ray``
says how to install it.
"""

from __future__ import annotations

import importlib
import logging
import socket
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Final

from arena.errors import ArenaError
from arena.tournament.config import Config, Task, missing_tasks
from arena.tournament.runner import Committer, Job, Venue, _abandoned, run_task
from arena.tournament.store import GameRow, Store
from engine import __version__ as engine_version

RETRIES: Final = 3
"""How many times Ray runs a task again whose worker or node died."""
INSTALL: Final = "pip install 'gin-rummy-arena[ray]'"
TOKEN_BANNER_LOGGER: Final = "ray._private.authentication.authentication_token_setup"
"""The logger Ray announces token authentication through, quieted while connecting."""

log = logging.getLogger(__name__)


class ClusterError(ArenaError, RuntimeError):
    """The cluster cannot be used: Ray is missing or unreachable, or a node cannot run the bots."""


def _ray() -> ModuleType:
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise ClusterError(f"--ray needs Ray, which is not installed: {INSTALL}") from None


def connect(address: str) -> ModuleType:
    """Join the cluster at ``address`` (``host:port``, ``auto``, or ``local`` to start one in this
    process) as its driver; return the ``ray`` module."""
    ray = _ray()
    if ray.is_initialized():
        return ray
    kwargs: dict[str, Any] = {
        "log_to_driver": False,
        "configure_logging": False,
        "include_dashboard": False,
    }
    if address not in ("local", "auto"):
        _check_reachable(address)
    # Ray (2.60 at least) warns on stderr, unasked, that token authentication is on, its default
    # for a local cluster (started here, or found by auto with a token saved): a line amid the
    # tournament's output that tells its user nothing to do. Nothing else goes through that
    # logger in ray.init() as called here (no warning about a cluster without tokens is asked
    # for), and its errors are exceptions, which still say what is wrong.
    banner = logging.getLogger(TOKEN_BANNER_LOGGER)
    level = banner.level
    banner.setLevel(logging.ERROR)
    try:
        if address == "local":
            ray.init(**kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, TimeoutError, ValueError, RuntimeError) as error:
        raise ClusterError(f"cannot reach the Ray cluster at {address!r}: {error}") from None
    finally:
        banner.setLevel(level)
    return ray


def _check_reachable(address: str, seconds: float = 10.0) -> None:
    """Fail at once for an address nothing answers at (Ray itself would retry for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise ClusterError(f"bad Ray address {address!r}: give HOST:PORT, auto or local")
    try:
        with socket.create_connection((host, int(port)), timeout=seconds):
            pass
    except OSError as error:
        raise ClusterError(
            f"cannot reach the Ray cluster at {address!r}: {error.strerror or error} (is its "
            "head node started? ray start --head)"
        ) from None


def disconnect() -> None:
    ray = importlib.import_module("ray")
    if ray.is_initialized():
        ray.shutdown()


@dataclass(frozen=True, slots=True)
class Node:
    """A live node of the cluster."""

    id: str
    address: str
    cpus: int


def nodes(ray: ModuleType) -> list[Node]:
    return [
        Node(n["NodeID"], n.get("NodeManagerAddress", "?"), int(n["Resources"].get("CPU", 0)))
        for n in ray.nodes()
        if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1
    ]


def _probe_here(config_data: dict[str, Any], venue: Venue) -> dict[str, Any]:
    """On a node: this node's gin-rummy-arena version, and every bot started once."""
    from arena.play.match import MatchError
    from arena.tournament.runner import probe as probe_bots

    config = Config.from_json(config_data, load=True)
    with tempfile.TemporaryDirectory(prefix="gin-arena-probe-") as scratch:
        try:
            versions = probe_bots(config, Path(scratch), venue)
        except MatchError as error:
            return {"engine": engine_version, "error": str(error)}
        except ValueError as error:  # the sandbox asked for is not available on this node
            return {"engine": engine_version, "error": f"cannot run the bots here: {error}"}
    return {"engine": engine_version, "versions": versions}


def probe(ray: ModuleType, config: Config, venue: Venue) -> list[Node]:
    """Start every bot once on every node; raise :class:`ClusterError` naming a node that cannot
    run them, or that runs another gin-rummy-arena. Return the nodes."""
    # Imported by name: Ray is optional, and the type checker may run without it.
    strategies = importlib.import_module("ray.util.scheduling_strategies")
    found = nodes(ray)
    if not found:
        raise ClusterError("the Ray cluster has no node with a CPU to play on")
    remote = ray.remote(num_cpus=1, max_retries=0)(_probe_here)
    refs = [
        remote.options(
            scheduling_strategy=strategies.NodeAffinitySchedulingStrategy(node.id, soft=False)
        ).remote(config.to_json(), venue)
        for node in found
    ]
    for node, ref in zip(found, refs, strict=True):
        try:
            answer = ray.get(ref, timeout=max(60.0, 3 * config.clock.startup * len(config.bots)))
        except Exception as error:
            raise ClusterError(f"node {node.address} could not run the probe: {error}") from None
        if answer["engine"] != engine_version:
            raise ClusterError(
                f"node {node.address} runs gin-rummy-arena {answer['engine']}, this driver "
                f"{engine_version}: install the same version on every node"
            )
        if "error" in answer:
            raise ClusterError(f"node {node.address}: {answer['error']}")
    return found


def _task_here(config_data: dict[str, Any], task: Task, venue: Venue) -> list[GameRow]:
    """On a node: play one task, its bots' logs in ``--logs`` (a path on the node) or in a
    scratch directory of the node's own. The bots are closed at the end of the task: a Ray
    worker process outlives the tournament, and would keep them running."""
    if venue.logs is not None:
        return run_task(config_data, task, venue.logs, venue, keep=False)
    with tempfile.TemporaryDirectory(prefix="gin-arena-") as scratch:
        return run_task(config_data, task, scratch, venue, keep=False)


def run(
    ray: ModuleType,
    config: Config,
    store: Store,
    on_game: Callable[[GameRow], None] | None = None,
    *,
    venue: Venue | None = None,
    in_flight: int | None = None,
) -> int:
    """Play every missing game on the cluster, committing each task's games as it comes back;
    return how many were played. ``in_flight``: tasks submitted at once (default: twice the
    cluster's CPUs)."""
    done = store.done()
    data = config.to_json()
    commit = Committer(store, done, on_game)
    jobs = [(data, task) for task in missing_tasks(config, done)]
    play(ray, jobs, commit, venue=venue, in_flight=in_flight)
    return commit.played


def play(
    ray: ModuleType,
    jobs: Sequence[Job],
    commit: Committer,
    *,
    venue: Venue | None = None,
    in_flight: int | None = None,
) -> None:
    """Play the tasks of ``jobs`` (each with its configuration) on the cluster, committing each
    task's games as it comes back (:func:`run` says what survives what)."""
    venue = venue or Venue("none")
    remote = ray.remote(num_cpus=1, max_retries=RETRIES, retry_exceptions=False)(_task_here)
    cpus = sum(node.cpus for node in nodes(ray)) or 1
    limit = in_flight or 2 * cpus
    queue = iter(jobs)
    pending: dict[Any, Job] = {}

    def submit(count: int) -> None:
        for _ in range(count):
            job = next(queue, None)
            if job is None:
                return
            pending[remote.remote(job[0], job[1], venue)] = job

    submit(limit)
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            for ref in ready:
                data, task = pending.pop(ref)
                try:
                    rows = ray.get(ref)
                except Exception as error:  # its node or worker died more than RETRIES times
                    why = f"the Ray task playing it failed {RETRIES + 1} times: {error}"
                    rows = _abandoned(Config.from_json(data, load=True), task, why[:2000])
                commit(rows)
                submit(1)
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise


def wait_for_nodes(ray: ModuleType, count: int, timeout: float = 60.0) -> list[Node]:
    """The cluster's nodes once there are ``count`` (for tests and scripts that start nodes)."""
    deadline = time.monotonic() + timeout
    while True:
        found = nodes(ray)
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)
