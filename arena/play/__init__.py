"""Play: the referee, which runs one game between connections and enforces every rule
(:mod:`~arena.play.referee`), and the match, which seats bots for a series of games, mirrored or
not, and records them (:mod:`~arena.play.match`)."""
