"""What an organiser publishes beside the results: what was played and how, read from the
database's configuration and bots table (or a record's tags), never guessed, and the sentences
that say how sure each place is.

A report's header and a live page show the same facts, so they are made here once, as plain JSON
values (:func:`of_store`, :func:`of_records`, :func:`sentences`): each has the figures (seed,
kind, games per pair or the league's pairing scheme, the time control, the limits, the rules as
a preset and the options that differ from it, every bot's command, version and digest) and
``summary``, the same facts as ``[label, text]`` lines in the order a header shows them. The
words are the terminal's: the certainty and head-to-head sentences are
:func:`arena.tournament.standings.certainty` and :func:`~arena.tournament.standings.head_to_head`
themselves, so a page never says a place is surer than ``gin-arena ratings`` does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from arena.records.record import RecordedGame
from arena.tournament.standings import Standings, certainty, head_to_head
from arena.tournament.store import Store
from engine.rules import PRESETS, Rules

if TYPE_CHECKING:
    from arena.tournament.league import State

DIGEST_CHARS: Final = 8
"""How much of a bot's digest a header shows (the whole of it goes in a tooltip)."""

KIND_WORDS: Final = {
    "round-robin": "round-robin tournament",
    "gauntlet": "gauntlet (the first bot against each other)",
    "league": "league (versions join, are updated and retire while it runs)",
    "sprt": "SPRT test (a sequential test of the first bot against the second)",
    "match": "match",
}
"""How a header names each kind of event."""

MIRRORED: Final = {
    "two-player": "each deal played twice, the seats swapped",
    "hollywood": "each deal played twice, the seats swapped",
    "three-player": "each deal played three times, every bot in every seat",
    "partnership": "each deal played twice, the teams swapping sides",
}
"""What a mirrored deal is in each format (:func:`arena.play.match.rotations`); a format of
one's own: "each deal played in every seating"."""


def _mirrored(mode: str) -> str:
    return MIRRORED.get(mode, "each deal played in every seating")


def rules_facts(options: Mapping[str, Any]) -> dict[str, Any]:
    """The rules of ``options`` (a full or partial option mapping) as the preset they are
    closest to (fewest options changed; the first preset on a tie), the options that differ from
    it (each with the preset's value) and every option."""
    rules = Rules.from_dict(options)
    name, preset = min(PRESETS.items(), key=lambda item: len(rules.changes_from(item[1])))
    changes = rules.changes_from(preset)
    return {
        "preset": name,
        "changes": {
            key: {"value": value, "preset": getattr(preset, key)} for key, value in changes.items()
        },
        "options": rules.to_dict(),
        "text": _rules_text(name, changes, preset),
    }


def _rules_text(name: str, changes: Mapping[str, Any], preset: Rules) -> str:
    if not changes:
        return f"the {name} preset, no option changed"
    changed = ", ".join(
        f"{key}={_value(value)} ({name}: {_value(getattr(preset, key))})"
        for key, value in changes.items()
    )
    return f"the {name} preset with {changed}"


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def clock_text(clock: Mapping[str, Any]) -> str:
    """A time control in words: ``1 s a move, no bank, 0.1 s grace a move, 10 s to start``."""
    parts = [f"{_seconds(clock['move'])} a move"]
    bank = float(clock.get("bank", 0.0))
    parts.append(f"a bank of {_seconds(bank)} a game" if bank else "no bank")
    if "grace" in clock:
        parts.append(f"{_seconds(clock['grace'])} grace a move (for the transport, never charged)")
    if "startup" in clock:
        parts.append(f"{_seconds(clock['startup'])} to start")
    return ", ".join(parts)


def _limits_text(config: Mapping[str, Any]) -> str:
    parts = []
    if config.get("memory_mb") is not None:
        parts.append(f"{config['memory_mb']} MiB of memory")
    if config.get("cpu_seconds") is not None:
        parts.append(f"{config['cpu_seconds']} s of CPU a process")
    if config.get("pids") is not None:
        parts.append(f"{config['pids']} processes and threads at once")
    limits = ", ".join(parts) or "the defaults (none set with --memory-mb, --cpu-seconds, --pids)"
    where = "" if config.get("in_process", True) else "; built-in bots in processes of their own"
    return f"each bot: {limits}{where}"


def _bot(name: str, row: tuple[str, str, str] | None, status: str | None = None) -> dict[str, Any]:
    command, version, digest = row or ("", "", "")
    entry: dict[str, Any] = {
        "name": name,
        "command": command,
        "version": version,
        "digest": digest,
        "digest_short": digest[:DIGEST_CHARS],
    }
    if status is not None:
        entry["status"] = status
    return entry


def _schedule_text(config: Mapping[str, Any]) -> str:
    games = int(config["games_per_pair"])
    if not config.get("mirror", True):
        return f"{games}, each a deal of its own"
    return f"{games}, mirrored: {_mirrored(str(config.get('mode', 'two-player')))}"


def of_store(store: Store, state: State | None = None) -> dict[str, Any]:
    """The facts of a tournament's, an SPRT's or a league's database (see the module); a
    league's ``state`` (:func:`arena.tournament.league.load`) is loaded when not given."""
    config = store.config()
    if config.get("kind") == "league":
        return _of_league(store, config, state)
    kind = str(config.get("kind", "round-robin"))
    sprt = store.meta("sprt")
    if sprt is not None:
        kind = "sprt"
    mode = str(config.get("mode", "two-player"))
    per = "pair" if mode in ("two-player", "hollywood") else "table"
    bots = store.bots()
    names = [b["name"] for b in config.get("bots", [])] or list(bots)
    out: dict[str, Any] = {
        "kind": kind,
        "mode": mode,
        "seed": str(config.get("seed", "")),
        "created": store.meta("created"),
        "games_per_pair": config.get("games_per_pair"),
        "mirror": bool(config.get("mirror", True)),
        "clock": dict(config.get("clock", {})),
        "limits": {k: config.get(k) for k in ("memory_mb", "cpu_seconds", "pids", "in_process")},
        "restart": config.get("restart"),
        "rules": rules_facts(config.get("rules", {})),
        "bots": [_bot(name, bots.get(name)) for name in names],
    }
    summary = [
        ["Kind", f"{KIND_WORDS.get(kind, kind)}, {mode}"],
        ["Seed", out["seed"]],
    ]
    if sprt is not None:
        params = json.loads(sprt)
        out["sprt"] = params
        summary.append(["Test", _sprt_text(params, names)])
    summary.append([f"Games per {per}", _schedule_text(config)])
    summary += _common(out, config)
    out["summary"] = summary
    return out


def _sprt_text(params: Mapping[str, Any], names: Sequence[str]) -> str:
    new, base = [*names, "NEW", "BASE"][:2]
    return (
        f"{new} against {base}: H0 {new} at most {params['elo0']:g} Elo stronger, H1 at least "
        f"{params['elo1']:g}; alpha {params['alpha']:g}, beta {params['beta']:g}; at most "
        f"{params['max_games']} games"
    )


def when(iso: str) -> str:
    """An ISO time as a header shows it: ``2026-12-07 14:05:38 UTC``."""
    return iso.replace("T", " ").removesuffix("+00:00") + (" UTC" if iso.endswith("+00:00") else "")


def _common(out: dict[str, Any], config: Mapping[str, Any]) -> list[list[str]]:
    lines = [
        ["Created", when(out["created"])] if out.get("created") else None,
        ["Time control", clock_text(out["clock"])] if out["clock"] else None,
        ["Limits", _limits_text(config)],
        ["Rules", out["rules"]["text"]],
    ]
    return [line for line in lines if line is not None]


def _of_league(store: Store, config: Mapping[str, Any], state: State | None) -> dict[str, Any]:
    if state is None:
        from arena.tournament import league

        state = league.load(store)
    active = set(state.active_versions())
    replaced: dict[str, str] = {}
    for _, kind, data in store.log():
        if kind == "replace":
            replaced[str(data["old"])] = str(data["spec"]["name"])
    bots = store.bots()

    def status(version: str) -> str:
        if version in active:
            return "scheduled"
        if version in replaced:
            return f"replaced by {replaced[version]}"
        return "retired"

    settings = state.settings
    out: dict[str, Any] = {
        "kind": "league",
        "mode": "two-player",
        "seed": str(settings.seed),
        "created": store.meta("created"),
        "pairing": {"batch": settings.batch, "target": settings.target, "share": settings.share},
        "clock": dict(config.get("clock", {})),
        "limits": {k: config.get(k) for k in ("memory_mb", "cpu_seconds", "pids", "in_process")},
        "rules": rules_facts(config.get("rules", {})),
        "bots": [_bot(v, bots.get(v), status(v)) for v in state.specs],
    }
    out["summary"] = [
        ["Kind", KIND_WORDS["league"]],
        ["Seed", out["seed"]],
        [
            "Pairings",
            f"chosen where they inform the standings most, {settings.batch} a batch; each "
            "pairing one deal played twice, the seats swapped; every scheduled version gets at "
            f"least {settings.share:.0%} of a fair share of them; a version is settled when its "
            f"95% interval is within {settings.target:g} Elo of its rating",
        ],
        *_common(out, config),
    ]
    return out


def of_records(records: Sequence[RecordedGame]) -> dict[str, Any]:
    """The facts of a match record (``gin-arena match --record``; several matches in one file
    are each named): the match seeds, the seating, the time control as the record has it, the
    rules, and each bot's command and version (a record keeps no digest)."""
    first = records[0].tags
    seeds = list(dict.fromkeys(str(r.tags.match.get("seed", r.tags.seed)) for r in records))
    bots: dict[str, dict[str, Any]] = {}
    for rec in records:
        for tag in rec.tags.bots:
            bots.setdefault(tag.name, _bot(tag.name, (tag.command, tag.version, "")))
    rules = list(dict.fromkeys(json.dumps(r.tags.rules, sort_keys=True) for r in records))
    mirror = bool(first.match.get("mirror", False))
    out: dict[str, Any] = {
        "kind": "match",
        "mode": str(first.mode),
        "seed": seeds[0] if len(seeds) == 1 else seeds,
        "created": first.date or None,
        "mirror": mirror,
        "clock": dict(first.time),
        "rules": rules_facts(first.rules),
        "bots": list(bots.values()),
    }
    seating = f"mirrored: {_mirrored(out['mode'])}" if mirror else "each game a deal of its own"
    summary = [
        ["Kind", f"{KIND_WORDS['match']}{'' if len(seeds) == 1 else 'es'}, {out['mode']}"],
        ["Seed", seeds[0] if len(seeds) == 1 else f"{len(seeds)} matches: {', '.join(seeds)}"],
        ["Seating", seating],
    ]
    if first.date:
        summary.append(["Played", f"from {when(first.date)}"])
    if out["clock"]:
        summary.append(["Time control", clock_text(out["clock"])])
    text = out["rules"]["text"]
    if len(rules) > 1:
        text += " (in the first game: the games' rules differ)"
    summary.append(["Rules", text])
    out["summary"] = summary
    return out


def sentences(table: Standings) -> dict[str, list[str]]:
    """The standings' words, as the terminal prints them under the table: ``certainty``, what
    LOS is and a sentence for each bot and the next one down; ``head_to_head``, each pair's
    results (at most :data:`~arena.tournament.standings.HEAD_TO_HEAD_BOTS` bots), its first line
    the heading. Names have their control characters escaped."""
    return {
        "certainty": certainty(table),
        "head_to_head": [line.strip() for line in head_to_head(table)],
    }


__all__ = ["clock_text", "of_records", "of_store", "rules_facts", "sentences", "when"]
