"""The seats at the table: how a bot is named, started, walled in, spoken to and stopped.

A bot is named by a :class:`~arena.seats.botspec.BotSpec` (a built-in, a module, or a command
line resolved by :mod:`~arena.seats.programs`), runs as a subprocess
(:mod:`~arena.seats.process`, made by :mod:`~arena.seats.launch`, its output read by
:mod:`~arena.seats.output`) inside bubblewrap (:mod:`~arena.seats.walls.sandbox`, showing it what
:mod:`~arena.seats.walls.paths` finds, with the seccomp filter of :mod:`~arena.seats.walls.seccomp`
and the cgroup limits of :mod:`~arena.seats.walls.limits`), and is spoken to through a
:class:`~arena.seats.connection.Connection` whose lines the wire log (:mod:`~arena.seats.wire`)
can show; :mod:`~arena.seats.reaper` stops what is left of it. A person takes a seat through
:mod:`~arena.seats.human` (what they type: :mod:`~arena.seats.human_input`; what they see:
:mod:`~arena.seats.human_screen`).
"""
