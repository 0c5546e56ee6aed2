"""Reference facts: the GPU table (:mod:`.gpus`), regions with location and carbon (:mod:`.regions`,
:mod:`.location`, :mod:`.places`, :mod:`.carbon`), CUDA and feature compatibility (:mod:`.compat`), throughput
(:mod:`.perf`) and model-fits-in-VRAM arithmetic (:mod:`.modelfit`), read from the packaged tables under
``gpuhub/data/``.

May import: :mod:`gpuhub.model`, :mod:`gpuhub.obtain` (its types), :mod:`gpuhub.errors`, :mod:`gpuhub.bundled`.
Importing this package imports nothing.
"""
