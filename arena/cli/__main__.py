"""``python -m arena.cli``: the ``gin-arena`` command line."""

from arena.cli.main import main

raise SystemExit(main())
