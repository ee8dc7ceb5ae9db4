"""``python -m arena``: the ``gin-arena`` command line."""

from arena.cli.main import main

raise SystemExit(main())
