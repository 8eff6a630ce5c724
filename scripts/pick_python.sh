#!/usr/bin/env bash
# Prints the interpreter scripts/setup.sh makes .venv with: $PYTHON when set (or fails saying why), else
# the first of the candidates (the arguments, or the default list below) that is a Python 3.11 or 3.12 with
# venv and ensurepip, preferring one whose executable holds the interpreter itself to one that runs it from
# libpython.so.
#
# Why: a distribution's build (Debian's, Ubuntu's: profile-guided and statically linked) runs our loads in
# fewer instructions and less time than a shared, unoptimised build such as pyenv's default, which often
# comes first on PATH (README, "The interpreter"). The system's own paths are therefore asked for too.
set -uo pipefail

probe() { # "static PATH" or "shared PATH" for a usable interpreter (PATH: its own sys.executable, so a shim,
  # a shell function or a relative name comes back as the interpreter it runs); fails for any other
  local out
  out="$(probe_run "$1" | tail -n 1)" || return 1
  case "$out" in static\ /* | shared\ /*) echo "$out" ;; *) return 1 ;; esac
}
probe_run() {
  local limit=()
  command -v timeout >/dev/null 2>&1 && limit=(timeout 60)
  "${limit[@]}" "$1" - <<'PY' 2>/dev/null
import sys
if sys.version_info[:2] not in ((3, 11), (3, 12)):
    sys.exit(1)
import ensurepip, venv  # noqa: F401
try:
    with open("/proc/self/maps") as f:
        shared = "libpython" in f.read()
except OSError:
    shared = True  # (no way to tell: no preference)
print("shared" if shared else "static", sys.executable)
PY
}

if [ -n "${PYTHON:-}" ]; then
  found="$(probe "$PYTHON")" && { echo "${found#* }"; exit 0; }
  echo "PYTHON=$PYTHON is not a python 3.11 or 3.12 with the venv and ensurepip modules" >&2
  exit 1
fi
[ "$#" -gt 0 ] || set -- python3.11 python3.12 python3 /usr/bin/python3.11 /usr/bin/python3.12 /usr/bin/python3
first=""
for cand in "$@"; do
  command -v "$cand" >/dev/null 2>&1 || continue
  found="$(probe "$cand")" || continue
  [ "${found%% *}" = static ] && { echo "${found#* }"; exit 0; }
  [ -n "$first" ] || first="${found#* }"
done
[ -n "$first" ] && { echo "$first"; exit 0; }
echo "python 3.11 or 3.12 with the venv and ensurepip modules (Debian/Ubuntu: apt-get install python3.11 python3.11-venv; or set PYTHON=/path/to/python3.1x)" >&2
exit 1
