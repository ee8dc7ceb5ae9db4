"""Reinforcement learning on the engine (the ``rl`` extra: ``pip install 'gin-rummy-arena[rl]'``).

- :mod:`arena.rl.aec`: the two-player game as a PettingZoo AEC environment (``env()``,
  ``raw_env``), played by the engine;
- :mod:`arena.rl.single`: one seat against any arena bot as a Gymnasium environment
  (``SeatEnv``), judged by the arena's referee;
- :mod:`bots.encoding`: the observation vector and the action ids both use;
- :mod:`bots.policy`: a trained policy as a bot for ``gin-arena match`` and ``tournament``.

docs/RL.md describes the layouts, the rewards and the example.

Importing this package registers :class:`~arena.rl.single.SeatEnv` with Gymnasium as
``gin_rummy_arena/Seat-v0``, so that after ``import gymnasium`` alone::

    env = gymnasium.make("arena.rl:gin_rummy_arena/Seat-v0", opponent="greedy")

works: Gymnasium imports the module named before the colon, then makes the id after it. (The bare
id needs ``import arena.rl`` first: Gymnasium 1.0 dropped the ``gymnasium.envs`` entry points
through which an installed package could register its environments when Gymnasium is imported.)
"""

try:  # where the rl extra is installed
    import gymnasium

    gymnasium.register("gin_rummy_arena/Seat-v0", entry_point="arena.rl.single:SeatEnv")
except ImportError:  # pragma: no cover - the modules say what to install when imported
    pass
