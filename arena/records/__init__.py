"""Records of play: the JSON Lines format every game is written in (:mod:`~arena.records.record`),
playing a record back through the engine (:mod:`~arena.records.playback`), re-judging it
(:mod:`~arena.records.judge`) and showing it hand by hand (:mod:`~arena.records.replay`)."""
