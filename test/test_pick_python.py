"""scripts/pick_python.sh, the choice of the interpreter scripts/setup.sh makes .venv with, run for real on the
interpreters this machine has.

Whether an interpreter runs from libpython.so is told here independently of the script: by the dynamic
libraries its executable needs (`ldd`), where the script reads the process's own memory map.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO

SCRIPT = REPO / "scripts" / "pick_python.sh"
_USABLE = "import sys, venv, ensurepip; sys.exit(sys.version_info[:2] not in ((3, 11), (3, 12)))"


def _pick(*candidates: str, python: str | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"}
    if python is not None:
        env["PYTHON"] = python
    return subprocess.run(["bash", str(SCRIPT), *candidates], capture_output=True, text=True, timeout=120, env=env)


def _interpreters() -> dict[str, list[str]]:
    """Usable 3.11/3.12 interpreters of this machine by how they are linked ('shared', 'static'), as ldd says."""
    found: dict[str, list[str]] = {"shared": [], "static": []}
    if shutil.which("ldd") is None:
        return found
    names = ["/usr/bin/python3.11", "/usr/bin/python3.12", "/usr/local/bin/python3.11", "/usr/local/bin/python3.12",
             *glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[12]*/bin/python3.1[12]"))]
    seen = set()
    for name in names:
        real = os.path.realpath(name)
        if real in seen or not os.access(real, os.X_OK):
            continue
        seen.add(real)
        if subprocess.run([real, "-c", _USABLE], capture_output=True, timeout=60).returncode != 0:
            continue
        libs = subprocess.run(["ldd", real], capture_output=True, text=True, timeout=60).stdout
        found["shared" if "libpython" in libs else "static"].append(real)
    return found


@pytest.fixture(scope="module")
def interpreters():
    return _interpreters()


def test_prefers_the_statically_linked_interpreter_whatever_the_order(interpreters):
    if not (interpreters["shared"] and interpreters["static"]):
        pytest.skip(f"needs a shared and a static Python 3.11/3.12 on this machine, found {interpreters}")
    shared, static = interpreters["shared"][0], interpreters["static"][0]
    for order in ((shared, static), (static, shared)):
        r = _pick(*order)
        assert r.returncode == 0, r.stderr
        assert os.path.realpath(r.stdout.strip()) == static


def test_takes_a_shared_interpreter_when_there_is_no_other(interpreters):
    if not interpreters["shared"]:
        pytest.skip(f"no shared Python 3.11/3.12 on this machine: {interpreters}")
    shared = interpreters["shared"][0]
    r = _pick("/nonexistent/python3.11", "false", shared)  # (false runs, and is no Python: passed over)
    assert r.returncode == 0, r.stderr
    assert os.path.realpath(r.stdout.strip()) == shared


def test_python_knob_wins_over_the_preference(interpreters):
    usable = interpreters["shared"] + interpreters["static"]
    if not usable:
        pytest.skip("no Python 3.11/3.12 found")
    chosen = usable[0]
    r = _pick(*usable[1:], python=chosen)
    assert r.returncode == 0, r.stderr
    assert os.path.realpath(r.stdout.strip()) == chosen


def test_python_knob_that_is_no_usable_python_fails_saying_so(tmp_path):
    fake = tmp_path / "python3.11"
    fake.write_text("#!/bin/sh\nexit 0\n")  # runs, prints nothing: not a Python
    fake.chmod(0o755)
    for knob in (str(fake), "no-such-python"):
        r = _pick(python=knob)
        assert r.returncode == 1 and r.stdout == ""
        assert f"PYTHON={knob} is not a python 3.11 or 3.12" in r.stderr


def test_no_usable_candidate_names_what_to_install(tmp_path):
    r = _pick("/nonexistent/python3.11", "false", str(Path("/bin/true")))
    assert r.returncode == 1 and r.stdout == ""
    assert "apt-get install python3.11 python3.11-venv" in r.stderr and "PYTHON=" in r.stderr


def test_default_candidates_reach_the_system_interpreter_behind_a_shared_one_on_path(interpreters, tmp_path):
    """No arguments: the default list, with a shared python3.11 first on PATH (as pyenv's shims put it)."""
    static = [p for p in interpreters["static"] if p.startswith("/usr/bin/")]
    if not (interpreters["shared"] and static):
        pytest.skip(f"needs a shared Python and a static one in /usr/bin, found {interpreters}")
    (tmp_path / "python3.11").symlink_to(interpreters["shared"][0])
    env = {k: v for k, v in os.environ.items() if k != "PYTHON"} | {"PATH": f"{tmp_path}:/usr/bin:/bin"}
    r = subprocess.run(["/bin/bash", str(SCRIPT)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert os.path.realpath(r.stdout.strip()) in static
