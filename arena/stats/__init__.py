"""The statistics: Elo fitted on all games (:mod:`~arena.stats.ratings`) and the sequential
probability ratio test over mirrored deal pairs (:mod:`~arena.stats.sprt`). Pure arithmetic:
no games, no files."""
