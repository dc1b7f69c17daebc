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
# The browser tests drive Debian's Chromium (never a downloaded browser); the certification
# bundle runs Debian's dieharder and ent.
if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/dieharder ] || [ ! -x /usr/bin/ent ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium dieharder ent >/dev/null
  else
    echo "test.sh: chromium, dieharder or ent is missing (as root: apt-get install chromium dieharder ent);" \
      "browser tests will skip and tests/test_certify.py will fail" >&2
  fi
fi
.venv/bin/ruff check src tests bench
# One worker per core (REELFORGE_TEST_WORKERS to change it, 0 for one process); a test file
# runs whole on one worker, so its module fixtures (a server, a browser) are made once.
exec .venv/bin/python -m pytest -n "${REELFORGE_TEST_WORKERS:-auto}" --dist loadfile "$@"
