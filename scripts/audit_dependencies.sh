#!/usr/bin/env bash
# Known vulnerabilities in the installed dependencies (pip-audit against PyPI's advisory data).
# Needs the network (PyPI's JSON API), so it is a CI step of its own, not a test: see
# docs/security.md.  --strict: a package that could not be audited fails the run, so "no known
# vulnerabilities" is never said of packages that were not looked up.
# Usage: scripts/audit_dependencies.sh [PYTHON]   (default: .venv/bin/python, else python3)
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${1:-}"
if [[ -z "$PY" ]]; then
  if [[ -x .venv/bin/python ]]; then PY=.venv/bin/python; else PY=python3; fi
fi
# The project itself is not on PyPI: skip it (--skip-editable), audit everything it installed.
exec "$PY" -m pip_audit --strict --skip-editable --progress-spinner off --desc on
