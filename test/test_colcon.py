"""The README's colcon build, as on a ROS 2 machine, run for real after scripts/setup.sh.

It must build into its own build/ and install/ (never into the venv that set-up made) and give a
package that the ament index (as `ros2 pkg prefix` reads it) and Python find after
`source install/setup.bash`.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

VENV = Path(sys.executable).parent.parent
COLCON = VENV / "bin" / "colcon"
pytestmark = pytest.mark.skipif(not COLCON.exists(), reason="colcon is not installed (requirements/test.txt)")

# what colcon needs of the repository (the vendored test corpus is not part of the package)
PACKAGE_ITEMS = ("package.xml", "setup.py", "setup.cfg", "resource", "idyntree_models", "launch", "config",
                 "interfaces", "scripts")


def test_readme_colcon_command_builds_its_own_install(tmp_path):
    src = tmp_path / "ws"
    src.mkdir()
    for item in PACKAGE_ITEMS:
        (shutil.copytree if (REPO / item).is_dir() else shutil.copy2)(
            REPO / item, src / item, **({"ignore": shutil.ignore_patterns("__pycache__")}
                                        if (REPO / item).is_dir() else {}))
    # the venv's generated interface package, before: colcon must not touch it
    venv_iface = next((VENV / "lib").glob("python3*/site-packages/idyntree_models_interfaces/__init__.py"))
    before = venv_iface.stat().st_mtime_ns

    readme = (REPO / "README.md").read_text()
    assert "colcon build --paths . interfaces/idyntree_models_interfaces" in readme
    assert "CMAKE_PROJECT_INCLUDE" in readme  # says what a machine with the PyPI wheels needs
    env = dict(os.environ, PATH=f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}",
               CMAKE_PREFIX_PATH=str(VENV), AMENT_PREFIX_PATH=str(VENV))
    env.pop("PYTHONPATH", None)
    build = subprocess.run(
        [str(COLCON), "build", "--paths", ".", "interfaces/idyntree_models_interfaces",
         "--cmake-args", f"-DCMAKE_PROJECT_INCLUDE={src / 'scripts/cmake/fix_wheel_includes.cmake'}",
         f"-DPython3_EXECUTABLE={VENV / 'bin' / 'python'}", "-DBUILD_TESTING=OFF"],
        cwd=src, env=env, capture_output=True, text=True, timeout=1200)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    assert "2 packages finished" in build.stdout, build.stdout[-2000:]
    assert venv_iface.stat().st_mtime_ns == before, "colcon installed into the venv"

    check = subprocess.run(
        ["bash", "-c", "source install/setup.bash && cd / && python -c '"
         "from ament_index_python.packages import get_package_prefix as p; print(p(\"idyntree_models\"))' && "
         "ls \"$(python -c 'from ament_index_python.packages import get_package_prefix as p; "
         "print(p(\"idyntree_models\"))')/lib/idyntree_models\" && "
         "python -c 'import idyntree_models_interfaces.srv as s; print(s.__file__)'"],
        cwd=src, env=env, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stdout + check.stderr
    lines = check.stdout.split()
    assert lines[0] == str(src / "install" / "idyntree_models")
    assert {"model_server", "idyntree-model-convert", "example_estimator"} <= set(lines)
    assert lines[-1].startswith(str(src / "install" / "idyntree_models_interfaces"))
