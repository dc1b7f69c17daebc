#!/usr/bin/env bash
# Set everything up on a fresh machine and run the main job.
# Creates .venv, installs reelforge with what the server needs (the test tools are
# ./test.sh's), then runs the main job:
# the game server on http://127.0.0.1:8000 with an embedded SQLite database, in demo mode
# (a browser at http://127.0.0.1:8000/ can open a play-money session).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! .venv/bin/python -c "import reelforge, uvicorn, prometheus_client" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.installed-run ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e .
  touch .venv/.installed-run
fi
exec .venv/bin/reelforge serve --demo "$@"
