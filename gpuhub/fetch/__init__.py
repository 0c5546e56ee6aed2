"""Fetching: the provider protocol (:mod:`.provider`), plugin loading and its index (:mod:`.hookspecs`,
:mod:`.plugins`, :mod:`.builtin`, :mod:`.plugin_index`), the HTTP seam — live, recording, replay
(:mod:`.transports`, :mod:`.recording`, :mod:`.safeio`), dated static price tables (:mod:`.statictable`), JSON API
headers (:mod:`.headers`) — retries (:mod:`.retry`), and the keys and caches that tell whether a stored answer is
still the one a fetch would give (:mod:`.keys`, :mod:`.diskcache`).

May import: :mod:`gpuhub.answer` (the ranker type plugins register), :mod:`gpuhub.store`, :mod:`gpuhub.facts` and
the bottom (:mod:`gpuhub.model`, :mod:`gpuhub.obtain`, :mod:`gpuhub.errors`, :mod:`gpuhub.bundled`); never a plugin
package (plugins are found through entry points). Importing this package imports nothing.
"""
