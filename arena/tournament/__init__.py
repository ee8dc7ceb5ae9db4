"""Many games between many bots: a tournament's configuration and schedule
(:mod:`~arena.tournament.config`), opening or resuming it, or an SPRT, the same way
(:mod:`~arena.tournament.event`), playing it (:mod:`~arena.tournament.runner`) in the one worker
pool of every such run (:mod:`~arena.tournament.pool`), its SQLite store
(:mod:`~arena.tournament.store`), the same games on a Ray cluster
(:mod:`~arena.tournament.cluster`), paired A/B runs (:mod:`~arena.tournament.ab`) and the
standings tables (:mod:`~arena.tournament.standings`)."""
