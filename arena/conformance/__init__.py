"""The conformance kit: language-neutral cases that pin every rule and option of docs/RULES.md,
shipped with the package (``cases/*.json``), the runner that judges an engine by them
(:mod:`arena.conformance.runner`), this project's engine behind the adapter protocol
(:mod:`arena.conformance.reference`, and as a process :mod:`arena.conformance.adapter`) and any
other engine's adapter process (:mod:`arena.conformance.remote`). The format and the protocol are
in docs/CONFORMANCE.md; ``gin-arena conformance`` runs it all.
"""
