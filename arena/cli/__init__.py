"""The ``gin-arena`` command line: :mod:`~arena.cli.main` builds the parser from one module per
command (this package's other modules), and :mod:`~arena.cli.options` holds the options that
several commands share."""
