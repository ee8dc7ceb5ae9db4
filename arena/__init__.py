"""The arena: bots at the table, the referee, matches, records, tournaments and the gin-arena CLI.

Its rooms, lowest first (docs/ARCHITECTURE.md; ``tests/test_architecture.py`` holds the arrows):
:mod:`arena.errors` and :mod:`arena.terminal`; :mod:`arena.seats` (a bot's process and walls)
and :mod:`arena.stats` (ratings, the SPRT); :mod:`arena.records` (the record format, playback,
judge, replay); :mod:`arena.play` (the referee and the match); :mod:`arena.tournament`,
:mod:`arena.rl` and :mod:`arena.conformance`; :mod:`arena.report`; :mod:`arena.cli`.
"""
