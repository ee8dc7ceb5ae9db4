"""Many games between many bots: a tournament's configuration and schedule, its worker pool and
its SQLite store (:mod:`~arena.tournament.runner`, :mod:`~arena.tournament.store`), the same
games on a Ray cluster (:mod:`~arena.tournament.cluster`), paired A/B runs
(:mod:`~arena.tournament.ab`) and the standings tables (:mod:`~arena.tournament.standings`)."""
