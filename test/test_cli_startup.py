"""The installed commands as users start them: fast launchers written by scripts/setup.sh.

idyntree-model-convert and idyntree-model-info load no ROS library, so their launchers start Python
without `site` (whose ROS bootstrapper .pth re-executes the interpreter) and import only what the
conversion needs.  These tests run the real launchers in .venv/bin and check what they import (through
Python's own import-time report) and that they behave exactly as `python -m idyntree_models.cli`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import MODELS, REPO

BIN = Path(sys.executable).parent
CONVERT = BIN / "idyntree-model-convert"
INFO = BIN / "idyntree-model-info"


def _imports(stderr: str) -> set[str]:
    """Module names from PYTHONPROFILEIMPORTTIME's report ('import time: self | cumulative | name')."""
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def _run(cmd: list[str], **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k != "_ROS_WHEELS_BOOTSTRAP_COMPLETE"} | env
    return subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=120, env=full)


@pytest.mark.parametrize("launcher", [CONVERT, INFO], ids=lambda p: p.name)
def test_launcher_skips_site(launcher):
    first = launcher.read_text().splitlines()[0]
    assert first.startswith("#!") and first.endswith(" -S"), f"{launcher} was not written by scripts/fast_launchers.py"


def test_convert_imports_only_what_a_conversion_needs(tmp_path):
    src = MODELS / "urdf/idyntree/iCubGenova02.urdf"
    args = ["-i", str(src), "-o", str(tmp_path / "out.urdf"), "-q"]
    r = _run([str(CONVERT), *args], PYTHONPROFILEIMPORTTIME="1")
    assert r.returncode == 0, r.stderr
    assert not _imports(r.stderr) & {"site", "ros_wheels_bootstrapper"}
    # the launcher's own code, run as its -S shebang runs it, reporting every module loaded
    # (the command ends through os._exit, skipping atexit: the list is printed on the way there)
    dump = ("import os, runpy, sys; end = os._exit; "
            "os._exit = lambda code: (print('MODULES', *sorted(sys.modules), file=sys.stderr, flush=True), end(code)); "
            f"sys.argv = {[str(CONVERT), *args]!r}; runpy.run_path({str(CONVERT)!r}, run_name='__main__')")
    r = _run([sys.executable, "-S", "-c", dump])
    assert r.returncode == 0, r.stderr
    loaded = set(next(line for line in r.stderr.splitlines() if line.startswith("MODULES")).split()[1:])
    assert {"numpy", "lxml.etree", "idyntree_models.formats.urdf"} <= loaded
    never = {"rclpy", "idyntree_models.model.kinematics", "idyntree_models.model.reduce",
             "idyntree_models.formats.sdf", "idyntree_models.formats.mjcf", "idyntree_models.formats.skel",
             "idyntree_models.formats.idyntree_json",
             # standard modules that numpy and lxml do not import either, and that a URDF conversion
             # does without: pathlib (with urllib.parse and ipaddress), json, shutil (argparse's
             # terminal width, with bz2 and lzma)
             "pathlib", "urllib.parse", "json", "shutil"}
    assert not loaded & never, sorted(loaded & never)
    # no module of the package was compiled from source: set-up wrote the bytecode
    cached = {p.stem.split(".")[0] for p in (REPO / "idyntree_models" / "formats" / "__pycache__").glob("*.pyc")}
    assert {"urdf", "urdf_export", "xmlutil", "base"} <= cached


@pytest.mark.parametrize("args", [
    ["-i", "urdf/idyntree/iCubGenova02.urdf", "-o", "{tmp}/a.urdf"],
    ["-i", "urdf/idyntree/icub_sensorised.urdf", "-o", "{tmp}/a.json"],
    ["-i", "urdf/idyntree/iCubGenova02.urdf", "-o", "{tmp}/a.urdf", "--keep-joints", "torso_pitch,l_elbow"],
    ["-i", "urdf/idyntree/duplicate_joints_must_fail.urdf", "-o", "{tmp}/a.urdf"],
], ids=["urdf", "json", "reduced", "error"])
def test_launcher_behaves_as_the_module(tmp_path, args):
    def argv(tmp: Path) -> list[str]:
        out = []
        for a in args:
            a = a.replace("{tmp}", str(tmp))
            out.append(str(MODELS / a) if a.startswith("urdf/") else a)
        return out

    (tmp_path / "l").mkdir()
    (tmp_path / "m").mkdir()
    fast = _run([str(CONVERT), *argv(tmp_path / "l")])
    plain = _run([sys.executable, "-m", "idyntree_models.cli", *argv(tmp_path / "m")])
    assert fast.returncode == plain.returncode
    assert fast.stdout == plain.stdout
    assert fast.stderr.replace(str(tmp_path / "l"), "") == plain.stderr.replace(str(tmp_path / "m"), "")
    for name in ("a.urdf", "a.json"):
        if (tmp_path / "m" / name).exists():
            assert (tmp_path / "l" / name).read_bytes() == (tmp_path / "m" / name).read_bytes()


def test_info_launcher_runs():
    r = _run([str(INFO), str(MODELS / "urdf/idyntree/icub_sensorised.urdf"), "--json"])
    assert r.returncode == 0, r.stderr
    assert '"n_links"' in r.stdout


def test_launchers_find_ros_packages_as_the_module_does(tmp_path):
    """The launchers skip `site`, and with it the .pth that puts the venv on AMENT_PREFIX_PATH: $(find pkg) in a
    xacro file failed from the command ("searched nowhere") and worked from Python."""
    src = tmp_path / "f.urdf.xacro"
    src.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                   '<link name="a"><visual><geometry><mesh filename="file://$(find idyntree_models)/package.xml"/>'
                   '</geometry></visual></link></robot>')
    env = {k: v for k, v in os.environ.items() if k not in ("_ROS_WHEELS_BOOTSTRAP_COMPLETE", "AMENT_PREFIX_PATH")}
    runs = [subprocess.run(cmd + ["-i", str(src), "-o", "-", "--output-format", "urdf"], cwd=REPO,
                           capture_output=True, text=True, timeout=120, env=env)
            for cmd in ([str(CONVERT)], [sys.executable, "-m", "idyntree_models.cli"])]
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert runs[0].stdout == runs[1].stdout and "/package.xml" in runs[0].stdout



def test_help_offers_only_the_formats_that_are_written():
    """--output-format listed skel and xacro, which cannot be written ('writing skel is not supported yet')."""
    from idyntree_models.formats import FORMATS

    assert {n for n, f in FORMATS.items() if f.writes} == {n for n, f in FORMATS.items() if f.can_dump}
    r = _run([str(CONVERT), "--help"])
    text = " ".join(r.stdout.split())
    assert "--output-format OUTPUT_FORMAT output format (urdf, sdf, idyntree-model-json, mjcf)" in text
