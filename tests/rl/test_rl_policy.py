"""bots.policy: a callable plays as a bot in the CLI's match (a real process, sandboxed when
bubblewrap is here), sees what the environments show, and its bad answers are judged."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from rl_support import ready_name  # noqa: E402
from support import ROOT, gin_arena  # noqa: E402 - the test suite's helpers

from arena.play.referee import Referee  # noqa: E402
from arena.seats.connection import Connection, InProcessConnection  # noqa: E402 - after the skip
from bots.encoding import action_mask, encode  # noqa: E402
from bots.policy import DEFAULT_NAME, PolicyBot, first_legal, script_name  # noqa: E402
from bots.sdk import View  # noqa: E402
from engine import Rules  # noqa: E402
from engine.hand import Action  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.views import Decision, request_json, request_model  # noqa: E402


def play(bots: Sequence[Connection], seed: int = 1, rules: Rules | None = None) -> Any:
    referee = Referee(rules or Rules())
    for seat, connection in enumerate(bots):
        connection.start(referee.hello(seat, "other"), 5.0)
    return referee.play_game(list(bots), seed)


def test_a_policy_plays_a_match_from_the_command_line() -> None:
    done = gin_arena("match", "python -m bots.policy", "random", "--games", "2", "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert len(result["games"]) == 2
    assert all(game["reason"] in ("normal", "hand_limit") for game in result["games"])
    assert not any("failed" in game for game in result["games"])


def test_a_policy_bot_is_named_after_its_script_as_the_arena_names_it(tmp_path: Path) -> None:
    script = tmp_path / "my_policy.py"
    script.write_text(
        "import sys\n"
        "from bots.policy import first_legal, run_policy\n"
        "sys.exit(run_policy(first_legal))\n",
        encoding="utf-8",
    )
    assert ready_name([sys.executable, str(script)], tmp_path) == "my_policy"
    match = gin_arena("match", f"python {script}", "random", "--games", "1", "--json")
    assert match.returncode == 0, match.stderr
    assert json.loads(match.stdout)["bots"][0] == "my_policy"


@pytest.mark.parametrize(
    ("argv0", "name"),
    [("/home/me/bots/mybot.py", "mybot"), ("mybot", "mybot"), ("-c", DEFAULT_NAME), ("", "policy")],
)
def test_the_script_name(argv0: str, name: str) -> None:
    assert script_name(argv0) == name


def test_a_name_given_is_the_name() -> None:
    assert PolicyBot(first_legal).name == DEFAULT_NAME == "policy"
    assert ready_name([sys.executable, "-m", "bots.policy"], ROOT) == "first-legal"


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (108, "ids are 0 to 107"),
        (-1, "ids are 0 to 107"),
        (2.0, "not an action id"),
        (None, "not an action id"),
        (True, "not an action id"),
    ],
)
def test_an_answer_that_is_no_action_id_is_a_crash_naming_it(answer: object, said: str) -> None:
    bad = InProcessConnection("bad", lambda: PolicyBot(lambda o, m: answer))
    good = InProcessConnection("good", lambda: PolicyBot(first_legal))
    outcome = play([bad, good])
    assert outcome.failure is not None and outcome.failure.seat == 0
    assert outcome.failure.reason == "crash"
    assert said in outcome.failure.message


def test_a_forbidden_id_is_played_and_judged_illegal() -> None:
    def forbidden(observation: Any, mask: Any) -> int:
        return int(np.flatnonzero(mask == 0)[0])

    bad = InProcessConnection("bad", lambda: PolicyBot(forbidden))
    good = InProcessConnection("good", lambda: PolicyBot(first_legal))
    outcome = play([bad, good])
    assert outcome.failure is not None and outcome.failure.reason == "illegal"
    assert outcome.failure.rule in ("R6", "R7")


class Recorder(Connection):
    """A seat that keeps every decision and plays its first legal action."""

    def __init__(self) -> None:
        self.name = "recorder"
        self.decisions: list[Decision] = []

    def start(self, hello: m.Hello, timeout: float) -> m.Ready:
        return m.Ready(type="ready", protocol_version=m.PROTOCOL_VERSIONS[-1], name=self.name)

    def send(self, message: m.Message) -> None:
        pass

    def ask(self, request: m.Request, timeout: float) -> tuple[m.Reply, float]:
        raise NotImplementedError

    def decide(self, decision: Decision) -> tuple[Action, float]:
        self.decisions.append(decision)
        return decision.legal[0], 0.0

    def close(self) -> None:
        pass


def test_a_bot_over_stdio_sees_what_a_bot_in_process_sees() -> None:
    """The policy's inputs from a request line (a bot process), from a request message and
    from the referee's decision (in process) are the same, in every decision of a game."""
    rules = Rules()
    recorder = Recorder()
    other = InProcessConnection("greedy", lambda: PolicyBot(first_legal))
    play([recorder, other], seed=5, rules=rules)
    assert len(recorder.decisions) > 20
    for decision in recorder.decisions:
        views = [
            View.of_decision(decision, rules),
            View.of_request(request_model(decision), rules),
            View.of_json(json.loads(request_json(decision)), rules),
        ]
        vectors = [encode(v.seen, v.scores, v.target) for v in views]
        masks = [action_mask(v.legal) for v in views]
        for vector, mask in zip(vectors[1:], masks[1:], strict=True):
            assert (vector == vectors[0]).all() and (mask == masks[0]).all()
        assert views[0].scores == tuple(decision.scores) and views[2].target == 100
