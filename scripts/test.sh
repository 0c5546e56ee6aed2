#!/usr/bin/env bash
# Install the core and every plugin under plugins/ (editable, with test extras), then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each plugin with its own test extra (botocore for AWS's signer, ...); pip ignores an extra a plugin lacks.
python -m pip install -q -e ".[test,web]" $(for p in plugins/*/; do [ -f "$p/pyproject.toml" ] && printf -- '-e %s[test] ' "${p%/}"; done)
ruff check gpuhub tests plugins bench scripts conftest.py
mypy
lint-imports  # the layers, and plugins only through gpuhub.plugin ([tool.importlinter] in pyproject.toml)
# Two pytest-xdist workers, each test file whole on one worker (its module fixtures built once): the suite waits on
# timeouts and subprocesses about half of its time, so two workers halve the wall time on 2 cores. Every test
# isolates its cache/store (conftest.py gives each worker its own user cache) and its servers use ephemeral
# loopback ports. GPUHUB_TEST_WORKERS=0 runs in one process.
python -m pytest -q -rs -n "${GPUHUB_TEST_WORKERS:-2}" --dist loadfile --durations=25
