#!/usr/bin/env bash
# Set up the environment, then run the demo (python -m idyntree_models.demo); arguments pass through.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

# Keep all DDS traffic on this machine (Kilted ignores ROS_LOCALHOST_ONLY).
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
unset PYTHONPATH _ROS_WHEELS_BOOTSTRAP_COMPLETE || true
exec .venv/bin/python -m idyntree_models.demo "$@"
