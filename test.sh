#!/usr/bin/env bash
# Run the whole test suite (installs the project and its test dependencies if missing).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import reelforge, pytest, scipy, numba" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.installed ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".[dev]"
  touch .venv/.installed
fi
.venv/bin/ruff check src tests bench
exec .venv/bin/python -m pytest "$@"
