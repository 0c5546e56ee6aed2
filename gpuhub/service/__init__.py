"""Running a search end to end: the engine (:mod:`.engine`: providers' answers through the store, price history
and published catalogs into a catalog), the public :func:`gpuhub.search` (:mod:`.searching`) and the report rows
the surfaces print (:mod:`.reports`).

May import every library layer below it: :mod:`gpuhub.history`, :mod:`gpuhub.publish`, :mod:`gpuhub.fetch`,
:mod:`gpuhub.answer`, :mod:`gpuhub.store`, :mod:`gpuhub.facts` and the bottom; never a surface (:mod:`gpuhub.cli`,
:mod:`gpuhub.web`). Importing this package imports nothing.
"""
