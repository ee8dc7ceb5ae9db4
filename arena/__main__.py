"""``python -m arena``: the ``gin-arena`` command line."""

from arena.cli import main

raise SystemExit(main())
