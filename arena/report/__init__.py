"""``gin-arena report``: a tournament or a match as one self-contained HTML page (standings, plots,
crosstable, failures, move times, and a replay viewer for every game).

:mod:`arena.report.data` gathers the figures, :mod:`arena.report.plots` draws them (matplotlib,
the ``report`` extra) and :mod:`arena.report.html` writes the page.
"""
