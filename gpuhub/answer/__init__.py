"""Answering over a table of offers, with no I/O: the catalog's columns (:mod:`.catalog`), the query and its
filters (:mod:`.query`), rankers and workload presets (:mod:`.ranking`, :mod:`.workloads`), explanations
(:mod:`.explain`), grouping (:mod:`.grouping`), job estimates (:mod:`.estimate`) and the obtainability maths
(:mod:`.cost`: interruptible capacity, :mod:`.compare`: purchase options, :mod:`.launch`: how to start one).

May import: :mod:`gpuhub.store` (the columns), :mod:`gpuhub.facts` and the bottom (:mod:`gpuhub.model`,
:mod:`gpuhub.obtain`, :mod:`gpuhub.errors`, :mod:`gpuhub.bundled`) — never fetching, the surfaces or a plugin.
Importing this package imports nothing.
"""
