#!/usr/bin/env bash
# Set up the environment (scripts/setup.sh), then run the test suite and the linter.
# Extra arguments go to pytest, e.g. scripts/test.sh -k convert -x
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

# Keep all DDS traffic on this machine (Kilted ignores ROS_LOCALHOST_ONLY).
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
unset PYTHONPATH _ROS_WHEELS_BOOTSTRAP_COMPLETE || true

status=0
set +e
.venv/bin/python -m pytest test/ -q "$@" </dev/null
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "[test] pytest collected no tests: failing" >&2
  status=1
elif [ "$rc" -ne 0 ]; then
  status=$rc
fi

if [ -x .venv/bin/ruff ]; then
  targets=()
  for d in idyntree_models test bench; do [ -d "$d" ] && targets+=("$d"); done
  if [ "${#targets[@]}" -gt 0 ]; then
    echo "[test] ruff check ${targets[*]}"
    .venv/bin/ruff check "${targets[@]}" || { [ "$status" -ne 0 ] || status=1; }
  fi
fi
exit "$status"
