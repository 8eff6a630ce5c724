#!/usr/bin/env bash
# Set up the environment (scripts/setup.sh), then run the test suite and the linter.
# Extra arguments go to pytest, e.g. scripts/test.sh -k convert -x
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

bash scripts/setup.sh

# Reference implementations for the comparison tests that come from Debian (libsdformat, ign sdf).
# Installed only when missing, and only where we can (root with apt); otherwise those tests skip.
deb_missing=()
while read -r pkg; do
  pkg="${pkg%%#*}"; pkg="$(echo "$pkg" | xargs)"
  [ -n "$pkg" ] || continue
  dpkg -s "$pkg" >/dev/null 2>&1 || deb_missing+=("$pkg")
done < requirements/debian-test.txt
if [ "${#deb_missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "[test] installing reference packages from Debian: ${deb_missing[*]}"
    { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${deb_missing[@]}"; } \
      > .venv/setup-debian.log 2>&1 || { echo "[test] apt-get failed (see .venv/setup-debian.log); reference comparisons will skip" >&2; }
  else
    echo "[test] missing ${deb_missing[*]} (install them to run the libsdformat comparisons; they will skip)" >&2
  fi
fi

# The real ROS 2 command-line tools (ros2 launch/run/param/service/topic) for test_ros_cli.py: they are
# on no registry, ../shared/ros2-cli carries them. Without it those tests skip and say why.
SHARED="${IDYNTREE_MODELS_SHARED:-$ROOT/../shared}"
if [ -f "$SHARED/ros2-cli/install.sh" ]; then
  if [ ! -x .venv/bin/ros2 ]; then echo "[test] installing the ros2 command-line tools from $SHARED/ros2-cli"; fi
  bash "$SHARED/ros2-cli/install.sh" .venv "$ROOT/scripts/cmake/fix_wheel_includes.cmake" > .venv/setup-ros2-cli.log 2>&1 \
    || { echo "[test] installing $SHARED/ros2-cli failed:" >&2; tail -n 20 .venv/setup-ros2-cli.log >&2; exit 1; }
fi

# Keep all DDS traffic on this machine (Kilted ignores ROS_LOCALHOST_ONLY).
export ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST
unset PYTHONPATH _ROS_WHEELS_BOOTSTRAP_COMPLETE || true

status=0
set +e
.venv/bin/python -m pytest test/ -q "$@" </dev/null  # (pytest options: setup.cfg)
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "[test] pytest collected no tests: failing" >&2
  status=1
elif [ "$rc" -ne 0 ]; then
  status=$rc
fi

if [ -x .venv/bin/ruff ]; then
  # the whole repository: the package, tests, benchmarks, launch files, scripts and setup.py alike
  echo "[test] ruff check ."
  .venv/bin/ruff check . || { [ "$status" -ne 0 ] || status=1; }
fi
exit "$status"
