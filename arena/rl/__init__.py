"""Reinforcement learning on the engine (the ``rl`` extra: ``pip install 'gin-rummy-arena[rl]'``).

- :mod:`arena.rl.aec`: the two-player game as a PettingZoo AEC environment (``env()``,
  ``raw_env``), played by the engine;
- :mod:`arena.rl.single`: one seat against any arena bot as a Gymnasium environment
  (``SeatEnv``), judged by the arena's referee;
- :mod:`bots.encoding`: the observation vector and the action ids both use;
- :mod:`bots.policy`: a trained policy as a bot for ``gin-arena match`` and ``tournament``.

docs/RL.md describes the layouts, the rewards and the example.
"""

try:  # gymnasium.make("gin_rummy_arena/Seat-v0", opponent="greedy"), where the extra is installed
    import gymnasium

    gymnasium.register("gin_rummy_arena/Seat-v0", entry_point="arena.rl.single:SeatEnv")
except ImportError:  # pragma: no cover - the modules say what to install when imported
    pass
