"""The plugin author's kit: the conformance tests and test helpers (:mod:`.testing`) and the ``gpuhub plugin new``
template (:mod:`.scaffold`). Plugins reach both through :mod:`gpuhub.plugin`.

May import any core layer: it sits beside :mod:`gpuhub.cli` at the top (the kit drives the CLI in-process for
tests; ``gpuhub plugin new`` writes the template). Importing this package imports nothing.
"""
