#!/usr/bin/env bash
# Set up the development environment of idyntree_models without a ROS 2 installation:
#   .venv/      Python venv holding the ROS 2 Kilted PyPI wheels, the test tools, the interface
#               packages built here (installed into the venv prefix itself) and idyntree_models
#               installed in editable mode.
#   .venv/build/  out-of-source cmake build directories of the interface packages (inside the venv, so
#               that colcon's own build/ and install/ at the repository root never mix with them).
#   The package is also registered in the venv prefix as colcon registers an ament_python package
#   (ament index marker, share/idyntree_models/{package.xml,launch,config} as symlinks to the sources,
#   executables in lib/idyntree_models/), and AMENT_PREFIX_PATH gets the venv at interpreter start, so
#   `ros2 run` / `ros2 launch` (../shared/ros2-cli) find it with nothing sourced.
# Idempotent: every step is skipped when its inputs did not change (hash stamps in .venv/).
# Environment knobs: PYTHON=<interpreter> to choose the base interpreter (3.11 or 3.12; otherwise
# scripts/pick_python.sh chooses, preferring a statically linked build).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
VPY="$VENV/bin/python"
BUILD="$VENV/build"

export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
# A sourced ROS 2 install or another venv must not leak into this one.
unset PYTHONPATH PYTHONHOME _ROS_WHEELS_BOOTSTRAP_COMPLETE VIRTUAL_ENV || true

log() { echo "[setup] $*"; }
die() { echo "[setup] ERROR: $*" >&2; exit 1; }

# run_step "description" logfile command...: runs quietly, logs to logfile; on failure prints
# the failing step and the tail of its log, then exits 1.
run_step() {
  local what="$1" logfile="$2"
  shift 2
  if ! "$@" >"$logfile" 2>&1 </dev/null; then
    echo "[setup] FAILED: $what" >&2
    echo "[setup] command: $*" >&2
    echo "[setup] last lines of $logfile:" >&2
    grep -v "is ignored: it is neither a file nor a directory" "$logfile" | tail -n 40 >&2 || true
    exit 1
  fi
}

hash_of() { # hash of the given files/directories (content and relative paths)
  local f
  for f in "$@"; do
    if [ -d "$f" ]; then
      find "$f" -type f -not -name '*.pyc' -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
    elif [ -e "$f" ]; then
      sha256sum "$f"
    else
      echo "missing $f"
    fi
  done | sha256sum | cut -d' ' -f1
}
stamp_ok() { [ -f "$VENV/.stamp-$1" ] && [ "$(cat "$VENV/.stamp-$1")" = "$2" ]; }
stamp_set() { echo "$2" >"$VENV/.stamp-$1"; }

# ---------------------------------------------------------------- prerequisites
version_ge() { # version_ge A B: A >= B (dotted numeric)
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

missing=0
need() { echo "[setup] missing prerequisite: $*" >&2; missing=1; }

BASE_PY=""
if [ -x "$VPY" ] && "$VPY" -c 'import sys; sys.exit(sys.version_info[:2] not in ((3, 11), (3, 12)))' >/dev/null 2>&1; then
  BASE_PY="$VPY" # existing venv is fine: no base interpreter needed
else
  why="$(mktemp)"
  BASE_PY="$(bash "$ROOT/scripts/pick_python.sh" 2>"$why")" || need "$(cat "$why")"
  rm -f "$why"
fi

if command -v cmake >/dev/null 2>&1; then
  cmake_ver="$(cmake --version | head -n1 | sed -E 's/[^0-9]*([0-9]+(\.[0-9]+)*).*/\1/')"
  version_ge "$cmake_ver" 3.22 || need "cmake >= 3.22 (found $cmake_ver; pip install cmake or apt-get install cmake)"
else
  need "cmake >= 3.22 (apt-get install cmake)"
fi
if ! command -v "${CC:-cc}" >/dev/null 2>&1 && ! command -v gcc >/dev/null 2>&1; then
  need "a C compiler, cc or gcc (apt-get install gcc)"
fi
if ! command -v "${CXX:-c++}" >/dev/null 2>&1 && ! command -v g++ >/dev/null 2>&1; then
  need "a C++ compiler, c++ or g++, for the C++ type support of the interfaces (apt-get install g++)"
fi
command -v make >/dev/null 2>&1 || need "make (apt-get install make)"
[ "$missing" -eq 0 ] || exit 1

# ---------------------------------------------------------------- venv
if [ ! -x "$VPY" ]; then
  log "creating .venv with $BASE_PY..."
  rm -rf "$VENV"
  "$BASE_PY" -m venv "$VENV" </dev/null || die "could not create .venv with $BASE_PY"
fi
PYVER="$("$VPY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# ---------------------------------------------------------------- python packages
ROS_HASH="$(hash_of requirements/ros.txt; echo "$PYVER")"
if ! stamp_ok ros "$ROS_HASH"; then
  log "installing ROS 2 Kilted wheels and build tools (requirements/ros.txt)..."
  run_step "pip install -r requirements/ros.txt" "$VENV/setup-ros.log" \
    "$VPY" -m pip install -q -r requirements/ros.txt
  stamp_set ros "$ROS_HASH"
fi

TEST_HASH="$(hash_of requirements/test.txt; echo "$PYVER")"
if ! stamp_ok test "$TEST_HASH"; then
  log "installing test tools (requirements/test.txt)..."
  run_step "pip install -r requirements/test.txt" "$VENV/setup-test.log" \
    "$VPY" -m pip install -q -r requirements/test.txt
  stamp_set test "$TEST_HASH"
fi

# ---------------------------------------------------------------- interface packages
# Built with plain cmake + make and installed into the venv prefix itself, so the generated
# Python types and their libraries are found with no PYTHONPATH / LD_LIBRARY_PATH.
# The wheels put their ament index and cmake configs at the venv root (.venv/share/...).
build_iface() { # build_iface <name> <source dir>
  local name="$1" src="$2" bdir="$BUILD/$1" h
  h="$(hash_of "$src" scripts/cmake/fix_wheel_includes.cmake; echo "$ROS_HASH")"
  stamp_ok "iface-$name" "$h" && return 0
  log "building interface package $name (cmake)..."
  if [ -f "$bdir/install_manifest.txt" ]; then # drop files of the previous build
    xargs -d '\n' rm -f <"$bdir/install_manifest.txt" || true
  fi
  rm -rf "$bdir"
  mkdir -p "$bdir"
  run_step "cmake configure of $name" "$VENV/setup-configure-$name.log" \
    env CMAKE_PREFIX_PATH="$VENV" AMENT_PREFIX_PATH="$VENV" \
    cmake -S "$src" -B "$bdir" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_INSTALL_PREFIX="$VENV" \
      -DPython3_EXECUTABLE="$VPY" \
      -DCMAKE_PROJECT_INCLUDE="$ROOT/scripts/cmake/fix_wheel_includes.cmake" \
      -DBUILD_TESTING=OFF
  run_step "cmake build of $name" "$VENV/setup-build-$name.log" \
    env CMAKE_PREFIX_PATH="$VENV" AMENT_PREFIX_PATH="$VENV" \
    cmake --build "$bdir" --parallel "$(nproc 2>/dev/null || echo 2)"
  run_step "cmake install of $name" "$VENV/setup-install-$name.log" cmake --install "$bdir"
  stamp_set "iface-$name" "$h"
}

# tf2_msgs (/tf, /tf_static) is not on PyPI: build the one-message stand-in only where no real
# tf2_msgs is installed (the stamp means the venv's tf2_msgs is our own build).
if [ -f "$VENV/.stamp-iface-tf2_msgs" ] || ! "$VPY" -c 'import tf2_msgs.msg' >/dev/null 2>&1; then
  build_iface tf2_msgs "$ROOT/interfaces/fallback/tf2_msgs"
fi
build_iface idyntree_models_interfaces "$ROOT/interfaces/idyntree_models_interfaces"

# ---------------------------------------------------------------- idyntree_models itself
PKG_HASH="$(hash_of setup.py setup.cfg package.xml; [ -f idyntree_models/__init__.py ] && echo pkg; echo "$ROS_HASH")"
if ! stamp_ok pkg "$PKG_HASH"; then
  log "installing idyntree_models (editable)..."
  run_step "pip install -e ." "$VENV/setup-pkg.log" \
    "$VPY" -m pip install -q --no-deps --no-build-isolation --use-pep517 -e .
  stamp_set pkg "$PKG_HASH"
fi

# The idyntree wheel (a test tool) installs console scripts named like ours (idyntree-model-info):
# whichever package pip installed last owns .venv/bin/<name>. Ours must win, so reinstall this
# package whenever one of its scripts there is missing or not ours (e.g. after idyntree was upgraded).
for script in $(sed -n "s/^ *'\([A-Za-z0-9_.-]*\) = idyntree_models[.:].*/\1/p" setup.py); do
  if ! grep -qs "idyntree_models" "$VENV/bin/$script"; then
    log "$VENV/bin/$script is not ours (installed by another package): reinstalling idyntree_models..."
    run_step "pip install -e . (console scripts)" "$VENV/setup-pkg.log" \
      "$VPY" -m pip install -q --no-deps --no-build-isolation --use-pep517 --force-reinstall -e .
    break
  fi
done

if [ -f idyntree_models/cli.py ] && [ ! -x "$VENV/bin/idyntree-model-convert" ]; then
  die "$VENV/bin/idyntree-model-convert was not installed (see $VENV/setup-pkg.log)"
fi

# ---------------------------------------------------------------- ament registration
# What colcon's --symlink-install does for an ament_python package, into the venv prefix. Cheap and
# idempotent, so it always runs (the entry points come from setup.py through the installed metadata).
run_step "ament registration of idyntree_models" "$VENV/setup-ament.log" \
  "$VPY" "$ROOT/scripts/register_ament.py" --prefix "$VENV" --source "$ROOT"

# ---------------------------------------------------------------- fast launchers and bytecode
# idyntree-model-convert/-info load no ROS library: their launchers skip site (and with it the ROS
# bootstrapper's re-execution of Python); the package's bytecode is compiled once here. Cheap, always runs.
run_step "fast launchers and bytecode" "$VENV/setup-launchers.log" \
  "$VPY" "$ROOT/scripts/fast_launchers.py" --prefix "$VENV" --source "$ROOT"
log "ready: $VENV (python $PYVER)"
