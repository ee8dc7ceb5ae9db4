"""The walls around a bot process: what it may see, do and use, and when it may run.

- :mod:`~arena.seats.walls.sandbox`: bubblewrap, its namespaces and the files it shows a bot
  (found by :mod:`~arena.seats.walls.paths`), with a ``/dev`` and a ``/proc`` whose host-wide
  counters are masked (:mod:`~arena.seats.walls.masks`);
- :mod:`~arena.seats.walls.seccomp`: the system calls a bot never needs, refused, and those that
  would carry a message between bots or across a mirrored deal, made harmless;
- :mod:`~arena.seats.walls.limits`: a control group per bot process (memory, processes, CPU, the
  kernel's freezer between moves, and the kernel's caches emptied of what the bot brought into
  them when it ends).

docs/PROTOCOL.md, "Hidden information and security", says what the walls promise and what not.
"""
