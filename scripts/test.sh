#!/usr/bin/env bash
# Install the core and every plugin under plugins/ (editable, with test extras), then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each plugin with its own test extra (botocore for AWS's signer, ...); pip ignores an extra a plugin lacks.
python -m pip install -q -e ".[test,web]" $(for p in plugins/*/; do [ -f "$p/pyproject.toml" ] && printf -- '-e %s[test] ' "${p%/}"; done)
ruff check gpuhub tests plugins bench scripts
mypy
python -m pytest -q
