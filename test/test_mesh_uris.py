"""Mesh references on export: the output works from its own folder, in the URI style asked.

SDF output follows libsdformat's own URDF conversion (`ign sdf -p`: package:// becomes model://),
checked against it where ignition-tools is installed.  Everything else runs the real CLI on files
laid out in a temporary folder, with packages found through ROS_PACKAGE_PATH / AMENT_PREFIX_PATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from idyntree_models import export_model, load_model

from conftest import MODELS, REPO

PANDA = MODELS / "urdf/example-robot-data/robots/panda_description/urdf/panda.urdf"

ROBOT = """<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><mesh filename="{visual}"/></geometry></visual>
    <collision><geometry><mesh filename="{collision}"/></geometry></collision>
  </link>
</robot>
"""


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if k not in ("AMENT_PREFIX_PATH", "ROS_PACKAGE_PATH")}
    return subprocess.run([sys.executable, "-m", "idyntree_models.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env={**base, **(env or {})})


def _meshes(path: Path) -> list[str]:
    root = etree.parse(str(path)).getroot()
    return [m.get("filename") for m in root.iter("mesh") if m.get("filename")] + [
        u.text.strip() for u in root.iter("uri") if u.text]


def _layout(tmp_path: Path, visual: str, collision: str) -> Path:
    """src/my_robot/ (a ROS package) with urdf/robot.urdf and meshes/base.stl."""
    pkg = tmp_path / "src" / "my_robot"
    (pkg / "urdf").mkdir(parents=True)
    (pkg / "meshes").mkdir()
    (pkg / "meshes" / "base.stl").write_bytes(b"solid base\nendsolid base\n")
    (pkg / "package.xml").write_text('<package format="3"><name>my_robot</name></package>')
    urdf = pkg / "urdf" / "robot.urdf"
    urdf.write_text(ROBOT.format(visual=visual, collision=collision))
    return urdf


def test_sdf_output_writes_package_uris_as_model_uris_like_libsdformat(tmp_path):
    out = tmp_path / "panda.sdf"
    r = _cli("-i", str(PANDA), "-o", str(out))
    assert r.returncode == 0, r.stderr
    ours = sorted(set(_meshes(out)))
    source = sorted(set(_meshes(PANDA)))
    assert ours == sorted({u.replace("package://", "model://", 1) for u in source})
    if shutil.which("ign") is None:
        pytest.skip("ign (ignition-tools + sdformat-sdf) not installed: libsdformat's rewrite not compared")
    done = subprocess.run(["ign", "sdf", "-p", str(PANDA)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    theirs = sorted({u.text.strip() for u in etree.fromstring(done.stdout.encode()).iter("uri")})
    assert ours == theirs
    # asked explicitly, keep means keep
    r = _cli("-i", str(PANDA), "-o", str(tmp_path / "kept.sdf"), "--mesh-uri", "keep")
    assert r.returncode == 0 and sorted(set(_meshes(tmp_path / "kept.sdf"))) == source


def test_relative_paths_are_rebased_onto_the_output_folder(tmp_path):
    urdf = _layout(tmp_path, "../meshes/base.stl", "../meshes/base.stl")
    out = tmp_path / "out" / "deeper" / "robot.urdf"
    out.parent.mkdir(parents=True)
    r = _cli("-i", str(urdf), "-o", str(out))
    assert r.returncode == 0, r.stderr
    for ref in _meshes(out):
        assert not os.path.isabs(ref) and (out.parent / ref).resolve() == (urdf.parent / "../meshes/base.stl").resolve()
    # the same output folder: unchanged
    r = _cli("-i", str(urdf), "-o", str(urdf.parent / "copy.urdf"))
    assert r.returncode == 0 and _meshes(urdf.parent / "copy.urdf") == ["../meshes/base.stl"] * 2
    # and an SDF written elsewhere loads its meshes from there too
    r = _cli("-i", str(out), "-o", str(tmp_path / "robot.sdf"))
    assert r.returncode == 0 and all((tmp_path / u).is_file() for u in _meshes(tmp_path / "robot.sdf"))


def test_styles_absolute_package_model(tmp_path):
    urdf = _layout(tmp_path, "package://my_robot/meshes/base.stl", "../meshes/base.stl")
    env = {"ROS_PACKAGE_PATH": str(tmp_path / "src")}
    mesh = (urdf.parent / "../meshes/base.stl").resolve()
    expected = {
        "absolute": [f"file://{mesh}"] * 2,
        "package": ["package://my_robot/meshes/base.stl"] * 2,
        "model": ["model://my_robot/meshes/base.stl"] * 2,
    }
    for style, refs in expected.items():
        out = tmp_path / f"{style}.urdf"
        r = _cli("-i", str(urdf), "-o", str(out), "--mesh-uri", style, env=env)
        assert r.returncode == 0, r.stderr
        assert _meshes(out) == refs, style
        assert "WARNING" not in r.stderr, r.stderr
    # through the ament index instead: an installed package (share/<name> and its index marker)
    prefix = tmp_path / "install"
    shutil.copytree(tmp_path / "src" / "my_robot", prefix / "share" / "my_robot")
    (prefix / "share" / "ament_index" / "resource_index" / "packages").mkdir(parents=True)
    (prefix / "share" / "ament_index" / "resource_index" / "packages" / "my_robot").write_text("")
    out = tmp_path / "ament.urdf"
    r = _cli("-i", str(urdf), "-o", str(out), "--mesh-uri", "absolute", env={"AMENT_PREFIX_PATH": str(prefix)})
    assert r.returncode == 0, r.stderr
    assert _meshes(out)[0] == f"file://{(prefix / 'share/my_robot/meshes/base.stl').resolve()}"


def test_missing_files_and_unknown_packages_warn_and_strict_refuses(tmp_path):
    urdf = _layout(tmp_path, "package://not_installed/meshes/a.stl", "../meshes/missing.stl")
    out = tmp_path / "out.urdf"
    r = _cli("-i", str(urdf), "-o", str(out), "--resolve-mesh-uris")
    assert r.returncode == 0, r.stderr
    assert "1 mesh URI(s) name a package or model that was not found (package://not_installed/meshes/a.stl)" in r.stderr
    assert "1 mesh file(s) do not exist: ../meshes/missing.stl" in r.stderr
    # written as they were (the relative one rebased onto the output folder)
    assert _meshes(out) == ["package://not_installed/meshes/a.stl", "src/my_robot/meshes/missing.stl"]
    r = _cli("-i", str(urdf), "-o", str(tmp_path / "strict.urdf"), "--resolve-mesh-uris", "--strict")
    assert r.returncode == 1 and "not found" in r.stderr and "strict" in r.stderr
    assert not (tmp_path / "strict.urdf").exists()


def test_api_output_dir_and_styles():
    model = load_model(PANDA)
    text = export_model(model, "urdf", mesh_uri="model")
    assert "package://" not in text and "model://example-robot-data/" in text
    with pytest.raises(Exception, match="unknown mesh URI style 'nope'"):
        export_model(model, "urdf", mesh_uri="nope")


def test_a_model_folder_that_is_no_ros_package_is_not_written_as_a_package(tmp_path):
    """Found in review: `--mesh-uri package` swapped model:// for package:// whatever the folder, so a Gazebo model
    folder (a model.config, no package.xml) came out as a package:// reference no ROS tool can find, without a
    word. Such a reference is kept, and said; a model folder that is a ROS package is written by its package name."""
    models = tmp_path / "models"
    for name, package in (("plain", None), ("pkg_model", "robot_meshes")):
        (models / name / "meshes").mkdir(parents=True)
        (models / name / "meshes" / "c.stl").write_bytes(b"solid c\nendsolid c\n")
        (models / name / "model.config").write_text(f"<model><name>{name}</name></model>")
        if package:
            (models / name / "package.xml").write_text(f'<package format="3"><name>{package}</name></package>')
    urdf = tmp_path / "robot.urdf"
    urdf.write_text(ROBOT.format(visual="model://plain/meshes/c.stl", collision="model://pkg_model/meshes/c.stl"))
    out = tmp_path / "out.urdf"
    r = _cli("-i", str(urdf), "-o", str(out), "--mesh-uri", "package", env={"GZ_SIM_RESOURCE_PATH": str(models)})
    assert r.returncode == 0, r.stderr
    assert _meshes(out) == ["model://plain/meshes/c.stl", "package://robot_meshes/meshes/c.stl"]
    assert "not inside a ROS package" in r.stderr and "model://plain/meshes/c.stl" in r.stderr, r.stderr
    # and the other way (from the review of that fix): Gazebo finds a model:// by its folder's name, not by the
    # package's ('robot_meshes' is in the folder 'pkg_model')
    urdf.write_text(ROBOT.format(visual="package://robot_meshes/meshes/c.stl", collision="model://plain/meshes/c.stl"))
    r = _cli("-i", str(urdf), "-o", str(out), "--mesh-uri", "model",
             env={"GZ_SIM_RESOURCE_PATH": str(models), "ROS_PACKAGE_PATH": str(models)})
    assert r.returncode == 0 and "WARNING" not in r.stderr, r.stderr
    assert _meshes(out) == ["model://pkg_model/meshes/c.stl", "model://plain/meshes/c.stl"]
