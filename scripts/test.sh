#!/usr/bin/env bash
# Install the core and every plugin under plugins/ (editable, with test extras), then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each plugin with its own test extra (botocore for AWS's signer, ...); pip ignores an extra a plugin lacks.
python -m pip install -q -e ".[test,web]" $(for p in plugins/*/; do [ -f "$p/pyproject.toml" ] && printf -- '-e %s[test] ' "${p%/}"; done)
ruff check gpuhub tests plugins bench scripts
mypy
# test_secrets runs in a process of its own: after test_obtain_faults in the same process its AWS cells see no
# credentials sent (state leaking between the two; not found yet: see the closing note of 2026-12-01).
python -m pytest -q --deselect tests/reliability/test_secrets.py::test_no_secret_written
python -m pytest -q tests/reliability/test_secrets.py
