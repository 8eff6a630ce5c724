"""Hostile and careless SDF input, and SDF exports our reader must be able to read back (issue 11).

Each case is a small input made here: include cycles and bombs, over-long URIs, huge included
files, includes outside the allowed directories, an absurd `version`, and exports of models whose
names or values SDF reserves or cannot hold.  Each must give a ModelError naming what is wrong
(never RecursionError, OSError, MemoryError or an internal error), or an SDF file that loads back.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from idyntree_models.api import export_model, load_model, save_model
from idyntree_models.errors import ModelError
from idyntree_models.formats.sdf import uris
from idyntree_models.model.kinematics import Kinematics

from conftest import corpus_files, rel_id

LINK = '<link name="l"/>'


def _model(body: str = LINK, name: str = "m", version: str = "1.9") -> str:
    return f'<?xml version="1.0"?>\n<sdf version="{version}">\n<model name="{name}">\n{body}\n</model>\n</sdf>\n'


def _include(uri: str, name: str | None = None) -> str:
    return f"<include><uri>{uri}</uri>{f'<name>{name}</name>' if name else ''}</include>"


def _refused(path_or_text, match: str, **kw) -> ModelError:
    with pytest.raises(ModelError, match=match) as e:
        load_model(path_or_text, **kw)
    assert "internal error" not in str(e.value)
    return e.value


def test_file_including_itself_by_path(tmp_path: Path) -> None:
    f = tmp_path / "self.sdf"
    f.write_text(_model(LINK + _include("self.sdf", "again")))
    err = _refused(f, "include cycle")
    assert err.line == 4 and "include cycle self.sdf -> self.sdf" in str(err)


def test_model_including_itself_by_model_uri(tmp_path: Path) -> None:
    d = tmp_path / "models" / "loop"
    d.mkdir(parents=True)
    (d / "model.config").write_text('<model><sdf version="1.9">model.sdf</sdf></model>')
    (d / "model.sdf").write_text(_model(LINK + _include("model://loop", "inner")))
    top = tmp_path / "top.sdf"
    top.write_text(_model(LINK + _include("model://loop")))
    _refused(top, "include cycle", search_paths=[str(tmp_path / "models")])


def test_two_files_including_each_other(tmp_path: Path) -> None:
    (tmp_path / "a.sdf").write_text(_model(LINK + _include("b.sdf", "b")))
    (tmp_path / "b.sdf").write_text(_model(LINK + _include("a.sdf", "a")))
    err = _refused(tmp_path / "a.sdf", "include cycle")
    assert "a.sdf -> b.sdf -> a.sdf" in str(err)


def test_include_bomb_is_refused_quickly(tmp_path: Path) -> None:
    # six files of under 1 KB, each including the next ten times: 111,111 models if expanded
    for k in range(6):
        body = LINK if k == 5 else LINK + "".join(_include(f"f{k + 1}.sdf", f"m{i}") for i in range(10))
        (tmp_path / f"f{k}.sdf").write_text(_model(body))
        assert (tmp_path / f"f{k}.sdf").stat().st_size < 1024
    start = time.perf_counter()
    err = _refused(tmp_path / "f0.sdf", f"more than {uris.MAX_INCLUDES} <include>s")
    assert time.perf_counter() - start < 60  # bounded work (a few seconds), not 111,111 models
    assert err.source and err.line


def test_include_depth_limit(tmp_path: Path) -> None:
    n = uris.MAX_INCLUDE_DEPTH + 3
    for k in range(n):
        body = LINK if k == n - 1 else LINK + _include(f"d{k + 1}.sdf", "next")
        (tmp_path / f"d{k}.sdf").write_text(_model(body))
    _refused(tmp_path / "d0.sdf", f"nested more than {uris.MAX_INCLUDE_DEPTH} files deep")


def test_nesting_depth_limit_in_one_file() -> None:
    depth = uris.MAX_NESTING + 5
    body = "".join(f'<model name="n{k}">{LINK}' for k in range(depth)) + "</model>" * depth
    _refused(_model(LINK + body).encode(), f"nested more than {uris.MAX_NESTING} levels", format="sdf")


def test_deeply_flattened_name_is_refused() -> None:
    name = "::".join(["a"] * 3000) + "::l"
    text = f'<sdf version="1.7">\n<world name="w"><model name="m">\n<link name="{name}"/></model></world></sdf>'
    err = _refused(text.encode(), f"more than {uris.MAX_NESTING} levels deep", format="sdf")
    assert err.line == 3


@pytest.mark.parametrize("uri", ["x" * 300, "model://" + "y" * 256 + "/model.sdf", "a/" * 3000])
def test_overlong_include_uri_refused_before_the_file_system(tmp_path: Path, uri: str) -> None:
    f = tmp_path / "long.sdf"
    f.write_text(_model(LINK + _include(uri)))
    err = _refused(f, "characters long")
    assert err.line == 4


def test_huge_included_file_refused_before_reading(tmp_path: Path) -> None:
    big = tmp_path / "big.sdf"
    with open(big, "wb") as fh:  # sparse: no disk used, and reading it whole would take 64+ MB
        fh.write(_model().encode())
        fh.truncate(uris.MAX_FILE_BYTES + 1)
    top = tmp_path / "top.sdf"
    top.write_text(_model(LINK + _include("big.sdf", "big")))
    _refused(top, f"included files may have at most {uris.MAX_FILE_BYTES}")


def test_include_of_a_device_is_refused(tmp_path: Path) -> None:
    top = tmp_path / "top.sdf"
    top.write_text(_model(LINK + _include("/dev/zero", "z")))
    _refused(top, "cannot find '/dev/zero'", allow_include_outside=["/dev"])  # a directory, not a model file


def _outside_layout(tmp_path: Path) -> tuple[Path, Path]:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    (outside / "other.sdf").write_text(_model('<link name="o"/>', name="other"))
    top = inside / "top.sdf"
    top.write_text(_model(LINK + _include("../outside/other.sdf", "other")))
    return top, outside


def test_includes_stay_in_the_file_tree_unless_allowed(tmp_path: Path) -> None:
    top, outside = _outside_layout(tmp_path)
    missing = tmp_path / "inside" / "missing.sdf"
    missing.write_text(_model(LINK + _include("../outside/nothing_here.sdf", "x")))
    # the same answer whether or not the file exists outside: nothing about the machine is revealed
    e1 = _refused(top, "cannot find '../outside/other.sdf'")
    e2 = _refused(missing, "cannot find '../outside/nothing_here.sdf'")
    assert e1.message.split("'")[2:] == e2.message.split("'")[2:]
    abs_top = tmp_path / "inside" / "abs.sdf"
    abs_top.write_text(_model(LINK + _include("/etc/passwd", "p")))
    _refused(abs_top, "cannot find '/etc/passwd'")
    m = load_model(top, allow_include_outside=[str(outside)])
    assert "other::o" in m.links


def test_symlink_out_of_the_tree_is_not_followed(tmp_path: Path) -> None:
    top, outside = _outside_layout(tmp_path)
    (tmp_path / "inside" / "link.sdf").symlink_to(outside / "other.sdf")
    top.write_text(_model(LINK + _include("link.sdf", "other")))
    _refused(top, "cannot find 'link.sdf'")


def test_cli_allow_include_outside(tmp_path: Path) -> None:
    top, outside = _outside_layout(tmp_path)
    cli = [sys.executable, "-m", "idyntree_models.cli", "-i", str(top), "-o", str(tmp_path / "out.json")]
    refused = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and "--allow-include-outside" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    ok = subprocess.run(cli + ["--allow-include-outside", str(outside)], capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr


@pytest.mark.parametrize("version", ["1" * 5000 + ".9", "1." + "9" * 5000, "1.٩", "1.9.1", "", "one"])
def test_version_attribute_read_strictly(version: str) -> None:
    err = _refused(_model(version=version).encode(), "version attribute like '1.9'", format="sdf")
    assert len(str(err)) < 300


# -- exports our reader must read back ---------------------------------------------------------------
def _skel_files() -> list[Path]:
    return corpus_files("skel", "*.skel")


@pytest.mark.parametrize("path", _skel_files(), ids=rel_id)
def test_skel_to_sdf_loads_back(path: Path) -> None:
    try:
        m = load_model(path)
    except ModelError:
        pytest.skip("not a model we load")
    text = export_model(m, "sdf")
    back = load_model(text, format="sdf")
    assert back.dofs == m.dofs
    fk1, fk2 = Kinematics(m).world_transforms({}), Kinematics(back).world_transforms({})
    base = back.default_base_link  # SKEL's world link is SDF's world: compare relative to the link below it
    assert set(back.links) - {"world"} == set(m.links) - {"world"}  # a moving world joint re-adds it
    for name in back.links:
        np.testing.assert_allclose(np.linalg.inv(fk2[base]) @ fk2[name], np.linalg.inv(fk1[base]) @ fk1[name],
                                   atol=1e-9, err_msg=name)
    for fmt in ("urdf", "idyntree-model-json"):  # and on to any format
        load_model(export_model(back, fmt), format=fmt)


URDF_WORLD_FIXED = """<robot name="r"><link name="world"/>
  <joint name="anchor" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link></robot>"""

URDF_HEAVY_WORLD = """<robot name="r">
  <link name="world"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="j" type="revolute"><parent link="world"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="arm"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link></robot>"""


def test_urdf_world_link_becomes_sdf_world_attachment() -> None:
    m = load_model(URDF_WORLD_FIXED, format="urdf")
    warnings: list[str] = []
    text = export_model(m, "sdf", warnings=warnings)
    assert "<parent>world</parent>" in text and '<frame name="world"' not in text
    assert any("world attachment" in w for w in warnings)
    back = load_model(text, format="sdf")
    assert back.metadata.get("fixed_base") is True and set(back.links) == {"base"}
    # the model is placed in the world where the URDF's world frame says (libsdformat's reading)


def test_reserved_link_name_with_mass_is_renamed() -> None:
    m = load_model(URDF_HEAVY_WORLD, format="urdf")
    warnings: list[str] = []
    back = load_model(export_model(m, "sdf", warnings=warnings), format="sdf")
    assert any("link 'world' written as 'world_link'" in w for w in warnings)
    assert set(back.links) == {"world_link", "arm"} and back.dofs == 1


def test_colour_out_of_range_refused_on_export() -> None:
    m = load_model(find_demo())
    link = next(n for n, lk in m.links.items() if lk.visuals)
    shape = m.links[link].visuals[0]
    from idyntree_models.model.model import Material

    shape.material = Material("bad", np.array([1.5, 0.0, 0.0, 1.0]))
    with pytest.raises(ModelError, match=r"outside \[0, 1\]") as e:
        export_model(m, "sdf")
    assert link in str(e.value)


def test_non_finite_value_refused_on_export() -> None:
    m = load_model(find_demo())
    link = next(iter(m.links.values()))
    link.visuals.clear()
    from idyntree_models.model.model import Sphere

    link.visuals.append(Sphere(np.eye(4), "ball", radius=float("inf")))
    # refused by the model's validation before any exporter runs, with the link and its line
    with pytest.raises(ModelError, match=r"line \d+: link '.*': the sphere radius is not finite"):
        export_model(m, "sdf")


def find_demo() -> Path:
    from conftest import DEMO

    return DEMO / "demo_arm.urdf"


def test_environment_search_path_is_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = tmp_path / "lib" / "thing"
    lib.mkdir(parents=True)
    (lib / "model.config").write_text('<model><sdf version="1.9">thing.sdf</sdf></model>')
    (lib / "thing.sdf").write_text(_model('<link name="t"/>', name="thing"))
    top = tmp_path / "work" / "top.sdf"
    top.parent.mkdir()
    top.write_text(_model(LINK + _include("model://thing")))
    _refused(top, "cannot find 'model://thing'")
    monkeypatch.setenv("SDF_PATH", str(tmp_path / "lib"))
    assert "thing::t" in load_model(top).links
    assert os.environ["SDF_PATH"]


# -- exports the SDF reader (and libsdformat) would refuse: found by test_fuzz's SDF target -------------
def _urdf_arm(inertial_arm: str = '<mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>',
              joint_extra: str = "", frame: str = "") -> str:
    return f"""<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <link name="arm"><inertial>{inertial_arm}</inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <link name="hand"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
  <joint name="k" type="continuous"><origin xyz="1 0 0"/><parent link="arm"/><child link="hand"/><axis xyz="0 0 1"/>
    {joint_extra}</joint>
  {frame}
</robot>"""


IMPOSSIBLE_INERTIA = {
    "negative mass": ('<mass value="-1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>',
                      r"link 'arm': mass -1.0 is negative"),
    "indefinite tensor": ('<mass value="1"/><inertia ixx="-1" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>',
                          r"link 'arm': rotational inertia is not positive semi-definite"),
}


@pytest.mark.parametrize("inertial, match", list(IMPOSSIBLE_INERTIA.values()), ids=list(IMPOSSIBLE_INERTIA))
def test_impossible_inertia_refused_on_export(inertial: str, match: str) -> None:
    # URDF readers load it with a warning (as iDynTree does); SDF readers refuse it (as libsdformat does)
    m = load_model(_urdf_arm(inertial), format="urdf")
    with pytest.raises(ModelError, match=match + ".*SDF cannot hold it"):
        export_model(m, "sdf")
    m.links["arm"].inertia = m.links["base"].inertia  # the same model with a possible inertia is written
    text = export_model(m, "sdf")
    hand_written = text.replace("<mass>1.0</mass>", "<mass>-1.0</mass>", 2)  # our reader does refuse what we refuse
    _refused(hand_written, r"mass -1.0 is negative", format="sdf")


def test_mimic_offset_is_applied_once_after_sdf() -> None:
    # was: links posed with the offset applied, and the reloaded mimic joint applying it again
    m = load_model(_urdf_arm(joint_extra='<mimic joint="j" multiplier="2" offset="0.5"/>'), format="urdf")
    warnings: list[str] = []
    back = load_model(export_model(m, "sdf", warnings=warnings), format="sdf")
    assert any("joint 'k': mimic needs SDF 1.11" in w for w in warnings)
    assert back.joints["k"].mimic is not None and back.joints["k"].mimic.offset == 0.5
    for q in (0.0, 0.3, -0.7):
        hand = Kinematics(back).world_transforms({"j": q})["hand"]
        angle = q + (2 * q + 0.5)  # j then k = 2 j + 0.5, both about z
        np.testing.assert_allclose(hand[:3, :3], [[np.cos(angle), -np.sin(angle), 0], [np.sin(angle), np.cos(angle), 0],
                                                  [0, 0, 1]], atol=1e-12)
        np.testing.assert_allclose(hand[:3, 3], [np.cos(q), np.sin(q), 0], atol=1e-12)


def test_far_away_frame_refused_on_export() -> None:
    # each pose is finite, but the reader's composition relative to the model overflows a double
    frame = ('<link name="tool"/><joint name="tool_joint" type="fixed"><origin xyz="1.7e308 0 0"/>'
             '<parent link="hand"/><child link="tool"/></joint>')
    m = load_model(_urdf_arm(frame=frame), format="urdf")
    with pytest.raises(ModelError, match=r"'tool': it lies 1.7e\+308 m from the model frame"):
        export_model(m, "sdf")
    near = load_model(_urdf_arm(frame=frame.replace("1.7e308", "1e300")), format="urdf")
    assert "tool" in load_model(export_model(near, "sdf"), format="sdf").frames


def test_blank_and_scope_like_names_are_renamed_on_export() -> None:
    # MJCF reads a body ' ' and joints '::' and '::_x'; SDF needs names, and '::' only for nested models
    text = """<mujoco model="m"><worldbody><body name="a"><freejoint/><geom type="sphere" size="0.1"/>
      <body name=" " pos="0 0 1"><joint name="::" axis="0 0 1"/><geom type="sphere" size="0.1"/>
      <body name="c" pos="0 0 1"><joint name="::_x" axis="0 1 0"/><geom type="sphere" size="0.1"/>
      </body></body></body></worldbody></mujoco>"""
    m = load_model(text, format="mjcf")
    warnings: list[str] = []
    back = load_model(export_model(m, "sdf", warnings=warnings), format="sdf")
    assert set(back.links) == {"a", "link", "c"} and set(back.joints) == {"joint", "x"}
    assert [w.split(":")[0] for w in warnings] == ["link ' ' written as 'link'", "joint '", "joint '"]
    assert back.dofs == m.dofs


def test_flattened_name_never_takes_a_nested_model_name() -> None:
    text = _model('<model name="shallow"><link name="l"/><frame name="f"/></model>'
                  '<frame name="g" attached_to="shallow::l"/>')
    m = load_model(text, format="sdf")
    m.frames["shallow::::"] = m.frames.pop("g")
    m.frames["shallow::::"].name = "shallow::::"
    warnings: list[str] = []
    back = load_model(export_model(m, "sdf", warnings=warnings), format="sdf")
    assert "shallow_1" in back.frames and "shallow::f" in back.frames
    assert any("frame 'shallow::::' written as 'shallow_1'" in w for w in warnings)


def test_link_named_like_a_nested_model_is_renamed_on_export() -> None:
    # a link 'parent' beside a link 'parent::inner' (URDF takes both names): SDF 1.9, which we write, reads the
    # second as link 'inner' of a nested model 'parent', which a link may not share a name with. (An SDF 1.6
    # source with a link and a nested model of one name: test_sdf's names shared across kinds, as libsdformat)
    inertial = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
    text = (f'<robot name="r"><link name="parent"/><link name="child">{inertial}</link>'
            f'<link name="parent::inner">{inertial}</link>'
            '<joint name="j" type="revolute"><parent link="child"/><child link="parent"/><axis xyz="1 0 0"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
            '<joint name="k" type="fixed"><parent link="parent"/><child link="parent::inner"/></joint></robot>')
    m = load_model(text, format="urdf")
    assert {"parent", "parent::inner"} <= set(m.links)
    warnings: list[str] = []
    back = load_model(export_model(m, "sdf", warnings=warnings), format="sdf")
    assert {"parent_1", "parent::inner", "child"} <= set(back.links) and "parent" not in back.links
    assert back.joints["j"].child == "parent_1" and back.dofs == m.dofs
    assert any("link 'parent' written as 'parent_1': a nested model has its name" in w for w in warnings)


@pytest.mark.parametrize("specular", ["0.5 12 0 1", "0.5 \u0661 0 1", "0.1 0.2 0.3 0.4 0.5"])
def test_gazebo_block_colour_out_of_range_refused_on_export(specular: str) -> None:
    # a URDF <gazebo reference> visual is merged into the SDF visual as libsdformat does: its colours too
    gazebo = (f'<gazebo reference="arm"><visual><material><specular>{specular}</specular></material></visual>'
              "</gazebo>")
    text = _urdf_arm(frame=gazebo).replace('<link name="arm"><inertial>', '<link name="arm"><visual><geometry>'
                                           '<sphere radius="0.1"/></geometry></visual><inertial>')
    m = load_model(text, format="urdf")
    with pytest.raises(ModelError, match=r"link 'arm': <specular> .* \(from a <gazebo> block\)"):
        export_model(m, "sdf")
    good = load_model(text.replace(specular, "0.5 0.5 0 1"), format="urdf")
    assert "<specular>0.5 0.5 0 1</specular>" in export_model(good, "sdf")


def test_mimic_of_a_renamed_joint_names_it_as_written() -> None:
    # the master joint 'arm' shares its link's name: SDF needs it renamed, and the mimic must follow
    text = _urdf_arm(joint_extra='<mimic joint="arm" multiplier="2"/>').replace('joint name="j"', 'joint name="arm"')
    warnings: list[str] = []
    back = load_model(export_model(load_model(text, format="urdf"), "sdf", warnings=warnings), format="sdf")
    assert any("joint 'arm' written as 'arm_joint'" in w for w in warnings)
    assert back.joints["k"].mimic.joint == "arm_joint" and back.joints["k"].mimic.multiplier == 2


@pytest.mark.parametrize("gazebo, where", [
    ('<gazebo reference="arm"><self_collide>maybe</self_collide></gazebo>', "link 'arm'"),
    ('<gazebo reference="arm"><sensor name="cam" type="camera"><always_on>2</always_on></sensor></gazebo>',
     "sensor 'cam'"),
])
def test_gazebo_block_values_sdf_readers_refuse_are_refused_on_export(gazebo: str, where: str) -> None:
    # copied as libsdformat copies them, never interpreted: the written SDF is read once to be sure
    m = load_model(_urdf_arm(frame=gazebo), format="urdf")
    with pytest.raises(ModelError, match=rf"{where}: the URDF <gazebo> extensions .* must be true/false"):
        export_model(m, "sdf")
    fixed = gazebo.replace(">maybe<", ">true<").replace(">2<", ">1<")
    assert load_model(export_model(load_model(_urdf_arm(frame=fixed), format="urdf"), "sdf"), format="sdf").dofs == 2


def test_padded_names_and_blank_sensors_are_renamed_on_export() -> None:
    # SDF readers strip names (ours and libsdformat): 'arm ' would come back as 'arm', a blank one not at all
    text = """<mujoco model="m"><worldbody><body name="a"><freejoint/><geom type="sphere" size="0.1"/>
      <site name=" " pos="0 0 0.1"/>
      <body name="arm " pos="0 0 1"><joint name=" j" axis="0 0 1"/><geom type="sphere" size="0.1"/></body>
      </body></worldbody><sensor><gyro name=" " site=" "/></sensor></mujoco>"""
    m = load_model(text, format="mjcf")
    assert {"arm ", " j"} <= set(m.links) | set(m.joints)
    warnings: list[str] = []
    back = load_model(export_model(m, "sdf", warnings=warnings), format="sdf")
    assert "arm" in back.links and "j" in back.joints and "sensor" in back.sensors
    assert {w.split(":")[0] for w in warnings} >= {"link 'arm ' written as 'arm'", "joint ' j' written as 'j'",
                                                    "sensor ' ' written as 'sensor'"}
    # the site ' ' is the sensor's own frame: not written, the reader makes it again under the sensor's name
    assert "sensor" in back.frames and not any(w.startswith("frame ' '") for w in warnings)


def test_gyroscope_listed_before_its_accelerometer_is_written_once() -> None:
    # was: a lone 'imu_gyro' and then the pair 'imu' (imu_acc + imu_gyro): the reader refused the name clash
    text = """<mujoco model="m"><worldbody><body name="a"><freejoint/><geom type="sphere" size="0.1"/>
      <site name="imu" pos="0 0 0.1"/></body></worldbody>
      <sensor><gyro name="imu_gyro" site="imu"/><accelerometer name="imu_acc" site="imu"/></sensor></mujoco>"""
    m = load_model(text, format="mjcf")
    assert list(m.sensors) == ["imu_gyro", "imu_acc"]
    sdf = export_model(m, "sdf")
    assert sdf.count("<sensor ") == 1 and '<sensor name="imu" type="imu">' in sdf
    assert set(load_model(sdf, format="sdf").sensors) == {"imu_gyro", "imu_acc"}


# found by the random fuzzer: SDF 1.6 accepts '::' as a name (libsdformat's `ign sdf -k` says "Valid."),
# which leaves empty parts in the scoped names
_SCOPED = ('<sdf version="1.6"><model name="box_with_submodel"><link name="link"><pose>0 0 0 0 0 0</pose></link>'
           '<model name="{model}"><link name="{link}"><pose>0 0 0 0 0 0</pose></link></model></model></sdf>')


@pytest.mark.parametrize("model, link", [("submodel", "::"), ("::", "submodel_link"), ("link", "::"),
                                         ("::", "::")])
def test_names_with_empty_scope_parts_export_to_sdf_that_loads_back(model: str, link: str, tmp_path: Path) -> None:
    """The link '::::submodel_link' was written in a nested model 'link' beside the link 'link' (an SDF our
    reader refuses), and a renamed free body came back with its free joint under new names, unwarned."""
    from fuzzing import check

    text = _SCOPED.format(model=model, link=link)
    check(text, "sdf", ("sdf",))  # the export loads back to the same model, or a warning names each change
    if shutil.which("ign") is not None:
        out = tmp_path / "out.sdf"
        out.write_text(export_model(load_model(text, format="sdf"), "sdf"))
        done = subprocess.run(["ign", "sdf", "-k", str(out)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0 and "Valid" in done.stdout, done.stdout + done.stderr


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_an_infinite_moment_is_refused_at_its_inertial_without_a_numpy_warning():
    """Found by the fuzzer: SDF reads `inf` (libsdformat's unlimited joint limit), so an `<ixx>inf</ixx>` turned
    by the inertial's rotation (the identity here: 0 * inf) became NaN in numpy (a warning) before the refusal."""
    text = ('<sdf version="1.9"><model name="m"><link name="a">\n<inertial><mass>1</mass>'
            '<inertia><ixx>inf</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial></link></model></sdf>')
    with pytest.raises(ModelError, match="link 'a' has invalid inertia: inertial values must be finite") as e:
        load_model(text, format="sdf")
    assert e.value.line == 2


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("size, pose", [("1e308 1 1", "0 0 0 0 0 0"), ("1 1 1", "1.7e308 0 0 0 0 0")])
def test_an_automatic_inertia_beyond_a_double_is_refused_at_its_inertial(size, pose):
    """Found by the fuzzer: SDF 1.11's <inertial auto="true"> of a box 1e308 m long (or of collisions far apart)
    overflowed in numpy (a warning) before validation refused the link without a line."""
    text = ('<sdf version="1.11"><model name="m"><link name="a">\n<inertial auto="true"><density>6</density></inertial>'
            f'<collision name="c1"><pose>{pose}</pose><geometry><box><size>{size}</size></box></geometry></collision>'
            '<collision name="c2"><geometry><box><size>1 1 1</size></box></geometry></collision></link></model></sdf>')
    with pytest.raises(ModelError, match=r"link 'a': the inertia computed from its collisions .* beyond the range") as e:
        load_model(text, format="sdf")
    assert e.value.line == 2


def test_a_massless_collision_far_away_adds_nothing_to_an_automatic_inertia():
    """A zero-volume box weighs nothing wherever it is; its squared distance from the centre of mass overflowed
    past ~1e154 m and 0 * inf = NaN made the link refused as beyond a double (the same rule as the massless
    parts of a reduction). The inertia is the one of the other collision alone, a 1 m cube of 1000 kg/m^3."""
    far = ('<sdf version="1.11"><model name="m"><link name="a">\n<inertial auto="true"/>'
           '<collision name="c1"><geometry><box><size>1 1 1</size></box></geometry></collision>'
           '<collision name="c2"><pose>0 1e155 0 0 0 0</pose><geometry><box><size>0 0 0</size></box></geometry>'
           '</collision></link></model></sdf>')
    inertia = load_model(far, format="sdf").links["a"].inertia
    assert inertia.mass == 1000.0 and not np.any(inertia.com)
    np.testing.assert_allclose(inertia.inertia, np.eye(3) * 1000.0 / 6.0, rtol=1e-15)  # m (a^2 + a^2) / 12


def test_a_sensor_of_a_link_renamed_into_a_nested_model_is_warned_about(tmp_path: Path) -> None:
    """Found by the fuzzer: a link named '::' (SDF 1.7 accepts it) is written as 'link::link', in a nested model;
    its sensor 'camera' then comes back as 'link::camera', and only the link's rename was warned about."""
    from fuzzing import check

    text = ('<sdf version="1.7"><model name="m"><link name="::"><sensor name="camera" type="camera"><pose>-0.2 0 0.3 '
            '0 0 0</pose><camera><horizontal_fov>1.047</horizontal_fov><image><width>320</width><height>240</height>'
            '</image><clip><near>0.1</near><far>100</far></clip></camera></sensor></link></model></sdf>')
    check(text, "sdf", ("sdf",))  # the export loads back to the same model, or a warning names each change
    warnings: list[str] = []
    out = export_model(load_model(text, format="sdf"), "sdf", warnings=warnings)
    assert any("sensor 'camera' is read back as 'link::camera'" in w for w in warnings), warnings
    assert "link::camera" in load_model(out, format="sdf").sensors
    assert _libsdformat_accepts(out, tmp_path) in (True, None)


def test_a_sensor_renamed_in_a_nested_model_is_warned_about_by_its_model_name(tmp_path: Path) -> None:
    """Found by fuzzing (seed 20261202): a sensor 'a::b' of a link of nested model 'inner' (SDF 1.7 accepts '::'
    in a sensor name) is the model's 'inner::a::b'; written as 'a__b', it comes back as 'inner::a__b', and the
    warning named only 'a::b', which does not say which of several nested models' sensors it was."""
    from fuzzing import check

    camera = ('<camera><horizontal_fov>1</horizontal_fov><image><width>32</width><height>24</height></image>'
              '<clip><near>0.1</near><far>10</far></clip></camera>')
    text = (f'<sdf version="1.7"><model name="m"><link name="base"/><model name="inner"><link name="l">'
            f'<sensor name="a::b" type="camera">{camera}</sensor></link></model>'
            '<joint name="j" type="fixed"><parent>base</parent><child>inner::l</child></joint></model></sdf>')
    check(text, "sdf", ("sdf",))
    warnings: list[str] = []
    out = export_model(load_model(text, format="sdf"), "sdf", warnings=warnings)
    assert any("sensor 'inner::a::b' written as 'a__b' in nested model 'inner', read back as 'inner::a__b'" in w
               for w in warnings), warnings
    assert "inner::a__b" in load_model(out, format="sdf").sensors
    assert _libsdformat_accepts(out, tmp_path) in (True, None)


def test_of_two_bad_inertia_moments_the_first_in_ixx_ixy_ixz_iyy_iyz_izz_order_is_reported():
    # values with a child element escape the value check, so the link reader meets them: it reads the
    # moments in libsdformat's order whatever their order in the file
    text = ('<sdf version="1.8"><model name="m"><link name="a"><inertial><mass>1</mass><inertia>\n'
            '<izz>bad_z<x/></izz>\n<ixx>bad_x<x/></ixx></inertia></inertial></link></model></sdf>')
    with pytest.raises(ModelError, match=r"line 3: <ixx>: <ixx> value must be numbers, got 'bad_x'"):
        load_model(text, "sdf")


# -- empty values of required elements: libsdformat refuses them ----------------------------------------------
_GEOMETRY = '<link name="a"><visual name="v"><geometry>{}</geometry></visual></link>'
_JOINT = '<link name="a"/><link name="b"/><joint name="j" type="revolute"><parent>a</parent><child>b</child>{}</joint>'
_EMPTY_REQUIRED = [
    (_GEOMETRY.format("<box><size></size></box>"), "<size> of <box> is empty"),
    (_GEOMETRY.format("<sphere><radius> </radius></sphere>"), "<radius> of <sphere> is empty"),
    (_GEOMETRY.format("<cylinder><radius>1</radius><length/></cylinder>"), "<length> of <cylinder> is empty"),
    (_GEOMETRY.format("<mesh><uri></uri></mesh>"), "<uri> of <mesh> is empty"),
    ('<link name="a"><inertial><mass>1</mass><inertia><ixx></ixx></inertia></inertial></link>', "<ixx> of <inertia> is empty"),
    (_JOINT.format("<axis><xyz></xyz></axis>"), "<xyz> of <axis> is empty"),
    # (holding elements and no value: fuzzing made a second <parent> of an axis's content, read as no parent)
    ('<link name="a"/><link name="b"/><joint name="j" type="fixed"><parent>a</parent><child>b</child><parent><xyz>0 0 '
     '1</xyz></parent></joint>', "<parent> of <joint> is empty"),
    (_JOINT.format("<axis><xyz>0 0 1</xyz><limit><lower></lower></limit></axis>"), "<lower> of <limit> is empty"),
    ('<link name="a"/><link name="b"/><joint name="j" type="fixed"><parent>a</parent><child></child></joint>',
     "<child> of <joint> is empty"),
]
# the controls: empty optional elements take their default, in libsdformat and here
_EMPTY_OPTIONAL = [
    '<link name="a"><inertial><mass></mass></inertial></link>',
    '<link name="a"><pose></pose></link>',
    _GEOMETRY.format("<mesh><uri>a.stl</uri><scale></scale></mesh>"),
    _JOINT.format("<axis><xyz>0 0 1</xyz><dynamics><damping></damping></dynamics></axis>"),
    _JOINT.format("<axis><xyz>0 0 1</xyz></axis><axis2><xyz>1 0 0</xyz><limit><lower></lower></limit></axis2>")
    .replace('type="revolute"', 'type="universal"'),
]


def _ign_check(text: str, tmp_path: Path, sdf_path: str | None = None) -> subprocess.CompletedProcess | None:
    """`ign sdf -k` on the text, finding `model://` URIs in `sdf_path` (None where ignition-tools is not installed)."""
    if shutil.which("ign") is None:
        return None
    path = tmp_path / "case.sdf"
    path.write_text(text)
    env = None if sdf_path is None else dict(os.environ, SDF_PATH=sdf_path)
    return subprocess.run(["ign", "sdf", "-k", str(path)], capture_output=True, text=True, timeout=120, env=env)


def _libsdformat_accepts(text: str, tmp_path: Path) -> bool | None:
    """`ign sdf -k` on the text (None where ignition-tools is not installed)."""
    done = _ign_check(text, tmp_path)
    if done is None:
        return None
    return done.returncode == 0 and "Valid" in done.stdout and "Error" not in done.stdout + done.stderr


@pytest.mark.parametrize("body, message", _EMPTY_REQUIRED)
def test_an_empty_value_of_a_required_element_is_refused_at_its_line(body, message, tmp_path):
    """Read with the element's default, an empty <size> was a 1 m box, an empty <uri> a mesh with no file, an empty
    <ixx> a unit moment: models of files libsdformat refuses ("Empty string used when setting a required
    parameter", checked here where ignition-tools is installed)."""
    text = _model(body)
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    e = _refused(text, re.escape(message))
    assert e.line == 4


@pytest.mark.parametrize("body", _EMPTY_OPTIONAL)
def test_an_empty_value_of_an_optional_element_takes_its_default(body, tmp_path):
    text = _model(body)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    load_model(text, format="sdf")


def test_a_mesh_without_uri_is_read_as_libsdformat_reads_it_and_written_back_valid(tmp_path):
    """libsdformat reads a <mesh> without <uri> as the specification's default, '__default__'. We read it so too, with
    a warning; it was '' and written back as an empty <uri>, which libsdformat refuses."""
    src = tmp_path / "m.sdf"
    src.write_text(_model(_GEOMETRY.format("<mesh></mesh>")))
    warnings: list[str] = []
    model = load_model(src, warnings=warnings)
    assert model.links["a"].visuals[0].filename == "__default__"
    assert any("has no <uri>" in w and "'__default__'" in w for w in warnings), warnings
    out = tmp_path / "out" / "m.sdf"
    out.parent.mkdir()
    save_model(model, out)
    assert "<uri>__default__</uri>" in out.read_text()  # a name, not a path to rebase
    assert _libsdformat_accepts(out.read_text(), tmp_path) in (True, None)
    assert load_model(out).links["a"].visuals[0].filename == "__default__"
    model.links["a"].visuals[0].filename = ""  # (no reader makes one; the API can)
    with pytest.raises(ModelError, match="mesh file name is empty, and libsdformat refuses an empty <uri>"):
        export_model(model, "sdf")


# -- what libsdformat refuses that we read (found by bench/fuzz_reference.py, seed 1) -------------------------
_SPHERE = "<geometry><sphere><radius>1</radius></sphere></geometry>"
_LIBSDFORMAT_REFUSES = [
    ('<link name="a"><sensor name="s" type="imu"/><sensor name="s" type="imu"/></link>',
     "duplicate sensor name 's' in link 'a' (first at line 4)"),
    ('<link name="a"/><link name="b"/><joint name="j" type="fixed"><parent>a</parent><child>b</child>'
     '<sensor name="f" type="force_torque"/><sensor name="f" type="force_torque"/></joint>',
     "duplicate sensor name 'f' in joint 'j'"),
    (f'<link name="a"><visual>{_SPHERE}</visual></link>', "<visual>: missing required attribute 'name'"),
    (f'<link name="a"><collision name=" ">{_SPHERE}</collision></link>', "<collision name=' '>: missing required attribute"),
    ('<link name="a"><light name="l" type="point"><specular>0 -1 0 1</specular></light></link>',
     "<specular> needs 3 or 4 numbers between 0 and 1 (r g b [a]), got '0 -1 0 1'"),
    (f'<link name="a"><collision name="c">{_SPHERE}<surface><friction><ode><mu>-1</mu></ode></friction></surface>'
     "</collision></link>", "<mu> of <ode> is -1: the specification wants it at least 0"),
    ('<link name="a"><sensor name="s" type="imu"><imu><angular_velocity><x><noise type="gaussian"><stddev>-1</stddev>'
     "</noise></x></angular_velocity></imu></sensor></link>", "<stddev> of <noise> is -1"),
    ('<link name="a"><sensor name="s" type="camera"><camera><horizontal_fov>7</horizontal_fov><image><width>1</width>'
     "<height>1</height></image><clip><near>0.1</near><far>1</far></clip></camera></sensor></link>",
     "<horizontal_fov> of <camera> is 7: the specification wants it between 0.1 and 6.283186"),
]


@pytest.mark.parametrize("body, message", _LIBSDFORMAT_REFUSES)
def test_what_libsdformat_refuses_in_a_model_is_refused_at_its_line(body, message, tmp_path):
    """Two sensors of one link (or joint) sharing a name were read as two, the second renamed; a visual or collision
    without a name was read unnamed; a light's colour outside [0, 1], a negative friction coefficient or noise
    deviation, a camera's field of view beyond 2 pi were kept. libsdformat refuses each file."""
    text = _model(body)
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    e = _refused(text, re.escape(message))
    assert e.line == 4


def test_the_values_of_a_whole_world_are_checked_not_only_the_model_read(tmp_path):
    """A world's light with a colour outside [0, 1] makes libsdformat refuse the file; we read one model of the
    world and checked only its values, so the file loaded. Two sensors of one name in two links stay apart."""
    world = ('<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="w">\n'
             '<light name="sun" type="directional"><diffuse>1.5 1 1 1</diffuse></light>\n'
             '<model name="m"><link name="a"/></model></world></sdf>\n')
    assert _libsdformat_accepts(world, tmp_path) in (False, None)
    e = _refused(world, re.escape("<diffuse> needs 3 or 4 numbers between 0 and 1"))
    assert e.line == 4
    fine = world.replace("1.5 1 1 1", "1 1 1 1")
    assert _libsdformat_accepts(fine, tmp_path) in (True, None)
    load_model(fine, format="sdf")
    apart = _model('<link name="a"><sensor name="s" type="imu"/></link><link name="b"><sensor name="s" type="imu"/></link>')
    assert _libsdformat_accepts(apart, tmp_path) in (True, None)
    load_model(apart, format="sdf")
    # a camera's noise has no bound in the description files (an IMU's has): accepted, there as here
    camera = _model('<link name="a"><sensor name="s" type="camera"><camera><horizontal_fov>1</horizontal_fov><image>'
                    "<width>1</width><height>1</height></image><clip><near>0.1</near><far>1</far></clip><noise>"
                    "<type>gaussian</type><stddev>-1</stddev></noise></camera></sensor></link>")
    assert _libsdformat_accepts(camera, tmp_path) in (True, None)
    load_model(camera, format="sdf")


def test_custom_content_and_hexadecimal_values_are_read_as_libsdformat_reads_them(tmp_path):
    """From the review of the checks above: an element the specification does not define is copied by libsdformat
    without a check, and so is what it holds (a negative <mu> or an empty <uri> inside it); a hexadecimal integer
    is a value (libsdformat reads it) whose bounds are judged too, where the bounds check failed on it."""
    lens = ('<link name="a"><sensor name="s" type="camera"><camera><horizontal_fov>1</horizontal_fov><image><width>1'
            "</width><height>1</height></image><clip><near>0.1</near><far>1</far></clip><lens><env_texture_size>{}"
            "</env_texture_size></lens></camera></sensor></link>")
    for body in ('<link name="a"><custom_stuff><ode><mu>-1</mu></ode><mesh><uri></uri></mesh></custom_stuff></link>',
                 lens.format("0x100")):
        text = _model(body)
        assert _libsdformat_accepts(text, tmp_path) in (True, None)
        load_model(text, format="sdf")
    low = _model(lens.format("0x1"))
    assert _libsdformat_accepts(low, tmp_path) in (False, None)
    _refused(low, re.escape("<env_texture_size> of <lens> is 0x1: the specification wants it between 4 and 2048"))


_SPHERE = "<geometry><sphere><radius>1</radius></sphere></geometry>"
_RESERVED = [
    (_model("<link name='l'/>", name="world"), 3, "model name 'world'"),
    (_model("<link name='l'/>", name="__model__"), 3, "model name '__model__'"),
    (_model(f"<link name='l'>\n<visual name='world'>{_SPHERE}</visual></link>"), 5, "visual name 'world'"),
    (_model(f"<link name='l'>\n<collision name='__c__'>{_SPHERE}</collision></link>"), 5, "collision name '__c__'"),
    (_model("<link name='l'>\n<sensor name=' world ' type='imu'/></link>"), 5, "sensor name 'world'"),
    (_model("<link name='l'>\n<light name='____' type='point'/></link>"), 5, "light name '____'"),
    ('<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="__w__"><model name="m"><link name="l"/></model></world>'
     "</sdf>", 3, "world name '__w__'"),
    ('<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="w"><model name="m"><link name="l"/></model>\n'
     '<model name="other"><link name="__x__"/></model></world></sdf>', 4, "link name '__x__'"),  # (a model not read)
]


@pytest.mark.parametrize("text, line, message", _RESERVED)
def test_a_reserved_name_of_any_element_is_refused_as_libsdformat_refuses_it(text, line, message, tmp_path):
    """Found by differential fuzzing against libsdformat: 'world' and names like __name__ were refused for links,
    joints, frames and nested models only; a model, world, visual, collision, sensor or light of such a name was
    read (and written back, for libsdformat to refuse: "The supplied visual name [world] is reserved")."""
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    e = _refused(text, re.escape(message) + ".*is reserved")
    assert e.line == line


@pytest.mark.parametrize("name", ["__", "___", "__a", "a__"])
def test_names_libsdformat_does_not_reserve_are_read(name, tmp_path):
    """libsdformat reserves __name__ of four characters or more: '__' and '___' were refused here, as a name and
    as a reference."""
    text = _model(f"<link name='l'/><link name='{name}'><pose relative_to='l'>1 0 0 0 0 0</pose>"
                  f"<visual name='{name}'>{_SPHERE}</visual></link><frame name='f' attached_to='{name}'>"
                  f"<pose relative_to='{name}'>0 1 0 0 0 0</pose></frame>")
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    model = load_model(text, format="sdf")
    assert name in model.links and model.frames["f"].parent_link == name


def test_reserved_model_and_shape_names_are_renamed_on_export(tmp_path):
    """A URDF robot may be named 'world', its visual too: the SDF export wrote them, and libsdformat refused the file."""
    urdf = ('<robot name="world"><link name="a"><visual name="world"><geometry><sphere radius="1"/></geometry>'
            '</visual><collision name="__x__"><geometry><sphere radius="1"/></geometry></collision></link></robot>')
    warnings: list[str] = []
    text = export_model(load_model(urdf, format="urdf"), "sdf", warnings=warnings)
    assert any("model 'world' written as 'world_model'" in w for w in warnings)
    assert any("visual 'world' of 'a' as 'world_visual'" in w and "collision '__x__' of 'a' as 'x'" in w
               for w in warnings)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    back = load_model(text, format="sdf")
    assert back.name == "world_model" and back.links["a"].visuals[0].name == "world_visual"


@pytest.mark.parametrize("version, accepted", [("1.7", True), ("1.9", False)])
def test_a_scoped_name_in_any_element_is_refused_from_sdf_1_8_as_libsdformat_refuses_it(version, accepted, tmp_path):
    """Found by differential fuzzing against libsdformat: from SDF 1.8 libsdformat refuses '::' in the name of any
    element but a plugin and what is in one or namespaced ("Detected delimiter '::' in element name"); only links,
    joints, frames and nested models were checked, and a visual or sensor of such a name read."""
    plugin = "<plugin filename='p' name='gz::sim::systems::X'><x name='a::b'/></plugin>"
    for body in ("<link name='l'>\n<visual name='a::b'>" + _SPHERE + "</visual></link>",
                 "<link name='l'>\n<sensor name='a::b' type='imu'/></link>", "<link name='l'/>\n<foo name='a::b'/>"):
        text = _model(body + plugin, version=version)
        assert _libsdformat_accepts(text, tmp_path) in (accepted, None)
        if accepted:
            load_model(text, format="sdf")
        else:
            assert _refused(text, "contains '::', which SDF 1.8\\+ reserves").line == 5
    text = _model("<link name='l'/>" + plugin)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    load_model(text, format="sdf")


def test_scoped_shape_and_model_names_are_renamed_on_export(tmp_path):
    urdf = ('<robot name="a::r"><link name="a"><visual name="v::1"><geometry><sphere radius="1"/></geometry></visual>'
            '</link></robot>')
    warnings: list[str] = []
    text = export_model(load_model(urdf, format="urdf"), "sdf", warnings=warnings)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    back = load_model(text, format="sdf")
    assert back.name == "a__r" and back.links["a"].visuals[0].name == "v__1", warnings


_VIS = "<visual name='v'>" + _SPHERE + "<material>{}</material></visual>"
_PARTS = [
    ("<link name='l'>\n<light name='x'/></link>", "missing required attribute 'type'"),
    ("<link name='l'>\n<light name='x' type='Point'/></link>", 'type="Point" is not one of point, directional, spot'),
    ("<link name='l'>\n<particle_emitter name='p' type='bogus'/></link>", 'type="bogus" is not one of point'),
    ("<link name='l'>\n<sensor name='s' type='imu'><imu><angular_velocity><x><noise/></x></angular_velocity></imu>"
     "</sensor></link>", "missing required attribute 'type'"),
    ("<link name='l'>\n<sensor name='c' type='camera'><camera><image><width>1</width><height>1</height></image><noise>"
     "<type>bogus</type></noise></camera></sensor></link>", "<noise> <type> 'bogus' is not one of"),
    ("<link name='l'>\n" + _VIS.format("<script><name>n</name></script>") + "</link>", "needs a <uri>"),
    ("<link name='l'>\n" + _VIS.format("<script><uri>__default__</uri><name>n</name></script>") + "</link>",
     "needs a <uri>"),
    ("<link name='l'>\n" + _VIS.format("<script><uri>u</uri></script>") + "</link>", "needs a <name>"),
    ("<link name='l'>\n" + _VIS.format("<shader type='normal_map_tangent_space'/>") + "</link>", "needs a <normal_map>"),
    ("<link name='l'>\n" + _VIS.format("<shader type=' '/>") + "</link>", "missing required attribute 'type' (it is "
     "blank)"),
    ("<link name='l'>\n<visual name='v'><geometry><mesh><uri>a.stl</uri><submesh><center>true</center></submesh></mesh>"
     "</geometry></visual></link>", "a <submesh> needs a <name>"),
]


@pytest.mark.parametrize("body, message", _PARTS)
def test_what_libsdformat_refuses_in_parts_the_model_does_not_hold_is_refused(body, message, tmp_path):
    """Found by differential fuzzing against libsdformat: a light, particle emitter or noise without its type or of
    a type libsdformat does not know, a material script without its file or name, a normal-map shader without its
    map, a submesh without a name: files libsdformat refuses were read, and these parts kept and written back."""
    text = _model(body)
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    assert _refused(text, re.escape(message)).line in (4, 5)


def test_those_parts_written_right_are_read(tmp_path):
    body = ("<link name='l'><light name='x' type='spot'/><particle_emitter name='p' type='box'/>"
            "<sensor name='c' type='camera'><camera><image><width>1</width><height>1</height></image><noise>"
            "<type>Gaussian</type></noise></camera></sensor>"
            + _VIS.format("<script><uri>u</uri><name>n</name></script><shader type='normal_map_object_space'>"
                          "<normal_map>m</normal_map></shader>") + "</link>")
    text = _model(body)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    load_model(text, format="sdf")


@pytest.mark.parametrize("attrs", ["degrees=' '", "rotation_format=' '"])
def test_a_blank_pose_attribute_is_its_default_as_in_libsdformat(attrs, tmp_path):
    """Found by differential fuzzing against libsdformat: a blank degrees= or rotation_format= was refused."""
    text = _model(f"<link name='l'/><frame name='f' attached_to='l'><pose {attrs}>1 0 0 0 0 0.5</pose></frame>")
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    pose = Kinematics(load_model(text, format="sdf")).world_transforms({})["f"]
    assert np.allclose(pose[:3, 3], [1, 0, 0]) and np.isclose(pose[1, 0], np.sin(0.5))


def test_blank_and_padded_shape_names_are_renamed_on_export(tmp_path):
    """Found by fuzz_report.py (seed 20261211): an MJCF geom named with white space became an SDF visual named so,
    which the SDF reader refuses (and libsdformat takes for no name)."""
    mjcf = ('<mujoco><worldbody><body name="a"><geom name=" " size="1"/><geom name=" g " size="1" pos="1 0 0"/></body>'
            '</worldbody></mujoco>')
    warnings: list[str] = []
    text = export_model(load_model(mjcf, format="mjcf"), "sdf", warnings=warnings)
    assert any("visual ' ' of 'a' as 'visual'" in w and "visual ' g ' of 'a' as 'g'" in w for w in warnings), warnings
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    assert [v.name for v in load_model(text, format="sdf").links["a"].visuals] == ["visual", "g"]


@pytest.mark.parametrize("world", [
    "<state world_name='w'><model name='world'><link name='l'><light name='x'/></link></model></state>",
    "<population name='p'><model name='m2'><link name='l'><light name='x' type='bogus'/><visual name='v'>" + _SPHERE
    + "<material><script><name>x</name></script></material></visual></link></model></population>",
    "<road name='rd'><width>1</width><point>0 0 0</point><point>1 0 0</point><material><script><name>x</name></script>"
    "</material></road>",
])
def test_a_world_s_state_population_and_road_are_not_judged_as_models(world, tmp_path):
    """Found in review: libsdformat 12 parses a world's <state>, <population> and <road> but loads no model of them,
    and judges no name, light type or material script there; the new checks refused such worlds."""
    text = f"<sdf version='1.9'><world name='w'>{world}<model name='m'><link name='l'/></model></world></sdf>"
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    load_model(text, format="sdf")


def test_gazebo_classic_shader_names_are_read_and_a_plugin_needs_its_filename(tmp_path):
    body = ("<link name='l'>" + _VIS.format("<shader type='normal_map_objectspace'><normal_map>n.png</normal_map>"
                                           "</shader>") + "</link>")
    assert _libsdformat_accepts(_model(body), tmp_path) in (True, None)
    load_model(_model(body), format="sdf")
    text = _model("<link name='l'/>\n<plugin name='p'/>")
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    assert _refused(text, "missing required attribute 'filename'").line == 5


def test_a_scoped_name_of_an_older_included_model_is_refused_where_a_newer_document_includes_it(tmp_path):
    """libsdformat converts an included model to the including document's version: a 1.6 sensor named 'cam::x' is
    refused where a 1.9 model includes it (and read where a 1.6 one does)."""
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "model.sdf").write_text("<sdf version='1.6'><model name='m'><link name='l'><sensor name='cam::x' "
                                              "type='imu'/></link></model></sdf>")
    (tmp_path / "m" / "model.config").write_text("<?xml version='1.0'?><model><name>m</name><sdf version='1.6'>"
                                                 "model.sdf</sdf></model>")
    for version, accepted in (("1.6", True), ("1.9", False)):
        top = tmp_path / f"top{version}.sdf"
        top.write_text(f"<sdf version='{version}'><model name='top'><link name='base'/><include><uri>m</uri>"
                       "<name>inner</name></include></model></sdf>")
        if accepted:
            load_model(top)
        else:
            assert _refused(top, "'cam::x' contains '::'").source.endswith("model.sdf")


@pytest.mark.parametrize("text, fmt, renamed", [
    ('<sdf version="1.7"><model name="m"><link name="base"><inertial><mass>1</mass></inertial><light name="lamp::1" '
     'type="point"/></link></model></sdf>', "sdf", "light 'lamp::1' as 'lamp__1'"),
    ('<robot name="r"><link name="arm"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
     'iyz="0"/></inertial></link><gazebo reference="arm"><sensor name="world" type="imu"/></gazebo></robot>', "urdf",
     "sensor 'world' as 'world_sensor'"),
])
def test_names_copied_from_the_source_are_renamed_where_sdf_1_9_cannot_hold_them(text, fmt, renamed, tmp_path):
    """Found in review: a light of an SDF 1.7 file named 'lamp::1', or a URDF <gazebo> sensor named 'world', was copied
    into the SDF 1.9 export as it was, which libsdformat (and the reader) refuse."""
    warnings: list[str] = []
    out = export_model(load_model(text, format=fmt), "sdf", warnings=warnings)
    assert any(renamed in w for w in warnings), warnings
    assert _libsdformat_accepts(out, tmp_path) in (True, None)
    load_model(out, format="sdf")


@pytest.mark.parametrize("other", ["<model name=''><link name='x'/></model>",
                                   "<model name='o'><link name='x'><visual>" + _SPHERE + "</visual></link></model>",
                                   "<model name='o'><link name='x'/><link name='y'/><joint name='j'><parent>x</parent>"
                                   "<child>y</child></joint></model>"])
def test_a_world_s_other_model_missing_a_required_attribute_is_refused(other, tmp_path):
    """Found by differential fuzzing against libsdformat (seed 20261216): the names and types the reader judges in the
    model it reads went unjudged in the world's other models (a model named "" was read)."""
    text = f"<sdf version='1.9'><world name='w'><model name='m'><link name='l'/></model>\n{other}</world></sdf>"
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    assert _refused(text, "missing required attribute").line == 2


def _world(extra: str, version: str = "1.9") -> str:
    return (f'<?xml version="1.0"?>\n<sdf version="{version}">\n<world name="w">\n'
            f'<model name="robot"><link name="base"/></model>\n{extra}\n</world>\n</sdf>\n')


_BROKEN_WORLDS = [
    ('<model name="b"><link name="l"/></model>\n<model name="b"><link name="k"/></model>', 6, "two <model> named 'b'"),
    ('<model name="robot"><link name="k"/></model>', 5, "two <model> named 'robot'"),
    ('<include><uri>model://x</uri><name>robot</name></include>', 5, "two <model> named 'robot'"),
    ('<light name="sun" type="point"/>\n<light name="sun" type="point"/>', 6, "two <light> named 'sun'"),
    ('<actor name="a"/>\n<actor name="a"/>', 6, "two <actor> named 'a'"),
    # ("animation with name[g] already exists": seed 20261506)
    ('<actor name="a"><animation name="g"><filename>g.bvh</filename></animation>\n<animation name="g"><filename>'
     'h.bvh</filename></animation></actor>', 6, "actor 'a' has two <animation> named 'g'"),
    ('<physics type="ode"/>\n<physics name="default_physics" type="ode"/>', 6, "two <physics> named 'default_physics'"),
    ('<frame name="f"/>\n<frame name="f"/>', 6, "two <frame> named 'f'"),
    ('<model name="b"/>', 5, "model 'b' has no links"),
    ('<model name="b"><static>true</static><model name="n"/></model>', 5, "model 'n' has no links"),
    ('<model name="b"><link name="l"/><model name="n"><pose>1 0 0 0 0 0</pose></model></model>', 5,
     "model 'n' has no links"),
    # the names in a model not read (seed 20261221: "link with name[L] already exists")
    ('<model name="b"><link name="l"/>\n<link name="l"/></model>', 6, "model 'b' has two <link> named 'l'"),
    ('<model name="b"><link name="l"><visual name="v"/>\n<visual name="v"/></link></model>', 6,
     "link 'l' of model 'b' has two <visual> named 'v'"),
    ('<model name="b"><link name="l"><sensor name="s" type="imu"/>\n<sensor name="s" type="imu"/></link></model>', 6,
     "link 'l' of model 'b' has two <sensor> named 's'"),
    ('<model name="b"><model name="n"><link name="x"/>\n<joint name="j" type="fixed"><parent>world</parent>'
     '<child>x</child></joint>\n<joint name="j" type="fixed"><parent>world</parent><child>x</child></joint>'
     '</model></model>', 7, "model 'n' has two <joint> named 'j'"),
]


@pytest.mark.parametrize("extra, line, message", _BROKEN_WORLDS)
@pytest.mark.parametrize("version", ["1.6", "1.9"])
def test_a_world_libsdformat_refuses_for_its_other_parts_is_refused(extra, line, message, version, tmp_path):
    """Found reading the notes of the last fuzz runs: libsdformat refuses a world with two models (lights, actors,
    physics, frames) of one name, or a model without links (a static one may have none), wherever in the world;
    the reader read the model asked for, the first 'robot' of two."""
    if "<frame" in extra and version == "1.6":
        pytest.skip("frames are SDF 1.7")
    text = _world(extra, version)
    if "<include" not in extra:  # (libsdformat refuses a model:// it cannot find first)
        assert _libsdformat_accepts(text, tmp_path) in (False, None)
    e = _refused(text, re.escape(message), format="sdf", allow_file_access=False)
    assert e.line == line


@pytest.mark.parametrize("extra", [
    '<model name="b"><static>true</static></model>',
    '<model name="b"><model name="n"><link name="l"/></model></model>',
    '<model name="b"><model name="n"><static>true</static></model></model>',
    '<model name="b"><link name="l"/></model>\n<light name="b2" type="point"/>\n<frame name="f"/>',
    '<model name="b"><link name="l"/><plugin name="p" filename="p.so"><model/></plugin></model>',
])
def test_a_world_libsdformat_reads_is_read(extra, tmp_path):
    text = _world(extra)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    assert load_model(text, format="sdf").name == "robot"


def test_a_world_frame_named_as_a_model_is_said_and_the_name_stays_the_model_s(tmp_path):
    """libsdformat loads such a world (its own test world_model_frame_same_name.sdf), renaming the frame with a
    warning, so that the name is the model's; here the frame took the name, and a reference to 'robot::base'
    was refused as "'robot' is not a model"."""
    text = _world('<frame name="robot"><pose>0 0 3 0 0 0</pose></frame>\n'
                  '<frame name="g"><pose relative_to="robot::base">1 0 0 0 0 0</pose></frame>')
    warnings: list[str] = []
    assert load_model(text, format="sdf", warnings=warnings).name == "robot"
    assert any("line 5: world 'w' has a model and a frame named 'robot'" in w and "'robot_frame'" in w
               for w in warnings), warnings


@pytest.mark.parametrize("version, refused", [("1.6", False), ("1.9", True)])
def test_names_of_one_model_not_read_are_unique_across_kinds_from_sdf_1_7(version, refused, tmp_path):
    """libsdformat renames a SDF 1.6 joint named as a link (with a warning) and refuses the world from 1.7."""
    text = _world('<model name="b"><link name="l"/>\n<joint name="l" type="fixed"><parent>world</parent>'
                  '<child>l</child></joint></model>', version)
    if refused:
        e = _refused(text, re.escape("model 'b' has two elements named 'l' (the first, a <link>, at line 5"),
                     format="sdf")
        assert e.line == 6
    else:
        assert load_model(text, format="sdf").name == "robot"


def test_two_worlds_of_one_name_are_refused(tmp_path):
    """libsdformat: "World with name[w] already exists. Each world must have a unique name" (seed 20261221; the
    first was read)."""
    text = _world("").replace("</sdf>", '<world name="w"><model name="other"><link name="l"/></model></world>\n</sdf>')
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    _refused(text, "two top-level worlds are named 'w'", format="sdf")


@pytest.mark.parametrize("material, refused", [
    ("<pbr><metal/></pbr>", False),
    ("<pbr><specular/><metal/></pbr>", False),
    ("<pbr><metal/>\n<time>1.5</time></pbr>", True),
    ('<pbr><metal/>\n<gz:x xmlns:gz="http://gazebosim.org/schema"/></pbr>', True),
])
def test_a_pbr_material_holds_workflows_only(material, refused, tmp_path):
    """libsdformat reads each child of <pbr> as a workflow and refuses the file for another ("the provided SDF
    element is not <metal> or <specular>"), even a namespaced one (seed 20261221, in a particle emitter's material)."""
    text = _model(f'<link name="l"><visual name="v"><geometry><box><size>1 1 1</size></box></geometry>'
                  f'<material>{material}</material></visual></link>')
    assert _libsdformat_accepts(text, tmp_path) in ((not refused), None)
    if refused:
        e = _refused(text, r"in <pbr>: a PBR material holds <metal> and <specular> workflows only", format="sdf")
        assert e.line == 5 and ("<time>" in str(e) or "<gz:x>" in str(e))
    else:
        load_model(text, format="sdf")


@pytest.mark.parametrize("element", [
    '<link>0.05 0.04 0.1 1.0</link>',  # (no name: libsdformat copies it, a link is not a light's)
    '<model>1</model>',
    '<actor/>',
])
def test_an_element_of_the_specification_in_another_s_place_is_copied_unchecked(element, tmp_path):
    """libsdformat copies an element its parent does not define ("not defined in SDF. Copying[link] as children of
    [light]") without a check, even one whose tag the specification defines elsewhere; the reader judged its
    attributes by its tag and refused a <link> without a name in a <light> (seed 20261221)."""
    text = _world(f'<light name="sun" type="directional">{element}</light>')
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    assert load_model(text, format="sdf").name == "robot"


@pytest.mark.parametrize("pose, message", [
    ('<pose rotation_format="quat"/>', "rotation_format must be euler_rpy or quat_xyzw, got 'quat'"),
    ('<pose degrees="a::b"/>', "degrees must be true/false/1/0, got 'a::b'"),
])
@pytest.mark.parametrize("where", ["model", "other model"])
def test_the_attributes_of_an_empty_pose_are_judged(pose, message, where, tmp_path):
    """libsdformat refuses an empty pose's unknown rotation format or malformed degrees ("Undefined attribute
    //pose[@rotation_format='quat']", "Invalid boolean value"); an empty pose was the identity whatever its
    attributes, and in a world's other model not looked at (fuzz_reference.py --format sdf seed 20261225)."""
    body = f'<link name="l"/><frame name="f">\n{pose}</frame>'
    text = _model(body) if where == "model" else _world(f'<model name="b">{body}</model>')
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    e = _refused(text, re.escape(message), format="sdf")
    assert e.line == (5 if where == "model" else 6)


_PLACES = [
    # (version, body of the model (or of a world around model 'robot'), libsdformat refuses, message of ours)
    ("1.9", '<link name="l"/><custom_stuff>\n<pose rotation_format="bogus"/></custom_stuff>', False, None),
    ("1.9", '<link name="l"/><custom_stuff>\n<pose>a b c</pose></custom_stuff>', False, None),
    ("1.9", '<link name="l"><sensor name="i" type="imu"><imu><noise><rate>\n<mean>abc</mean></rate></noise></imu>'
            '</sensor></link>', False, None),
    ("1.5", '<link name="l"><sensor name="i" type="imu"><imu><noise><type>gaussian</type><rate>\n<mean>abc</mean>'
            '</rate></noise></imu></sensor></link>', True, "<mean> value must be numbers"),
    ("1.9", '<link name="l"><sensor name="n" type="navsat"><navsat><position_sensing><horizontal>'
            '<noise type="gaussian">\n<mean>abc</mean></noise></horizontal></position_sensing></navsat></sensor></link>',
     True, "<mean> value must be numbers"),
]


@pytest.mark.parametrize("version, body, refused, message", _PLACES)
def test_where_an_element_is_the_specification_s_follows_the_document_s_version(version, body, refused, message,
                                                                                 tmp_path):
    """An element is the specification's where its parent defines it (value_types.CHILDREN, SDF 1.9), where
    libsdformat's converters move it from in an older document (a 1.5 IMU's <noise><rate>), and in a navsat
    sensor, whose description Debian leaves out; elsewhere libsdformat copies it unchecked, and so is it here (a
    review of the change found a 1.5 IMU's noise no longer judged, and a pose in custom content judged)."""
    text = _model(body, version=version)
    assert _libsdformat_accepts(text, tmp_path) in ((not refused), None)
    if refused:
        e = _refused(text, re.escape(message), format="sdf")
        assert e.line == 5
    else:
        load_model(text, format="sdf")


@pytest.mark.parametrize("version, refused", [("1.5", True), ("1.6", False)])
def test_a_physics_magnetic_field_of_sdf_1_5_is_judged_where_libsdformat_moves_it(version, refused, tmp_path):
    """libsdformat moves a SDF 1.5 <physics><magnetic_field> to the world (1_5.convert) and refuses it malformed; in
    1.6 it is no element of <physics> and is copied unchecked."""
    text = _world('<physics type="ode">\n<magnetic_field>x</magnetic_field></physics>', version)
    assert _libsdformat_accepts(text, tmp_path) in ((not refused), None)
    if refused:
        assert _refused(text, "magnetic_field", format="sdf").line == 6
    else:
        assert load_model(text, format="sdf").name == "robot"


def test_a_value_of_sdf_1_11_is_judged_in_a_document_of_1_11():
    """<density> of a collision is SDF 1.11's: judged in such a document (it was, before the places were judged by
    SDF 1.9's description, where it is no element of a collision), copied unchecked in a 1.9 one."""
    body = ('<link name="l"><collision name="c"><geometry><box><size>1 1 1</size></box></geometry>\n'
            '<density>abc</density></collision></link>')
    assert _refused(_model(body, version="1.11"), "<density> value must be numbers", format="sdf").line == 5
    load_model(_model(body, version="1.9"), format="sdf")


def test_a_world_including_one_uri_twice_without_names_is_refused(tmp_path):
    """libsdformat names an include without <name> after its model, so two of one URI are two models of one name
    ("model with name[box] already exists"): the reader, which reads none of a world's other includes, read the
    world. Judged without reading the file (found reading what the last note left out); with names it is read."""
    box = tmp_path / "models" / "box"
    box.mkdir(parents=True)
    (box / "model.config").write_text('<?xml version="1.0"?><model><name>box</name><sdf version="1.9">model.sdf</sdf>'
                                      "</model>")
    (box / "model.sdf").write_text(_model(name="box"))
    twice = _world(_include("model://box") + "\n" + _include("model://box"))
    named = _world(_include("model://box") + "\n" + _include("model://box", "box2"))
    for text, valid in ((twice, False), (named, True)):
        done = _ign_check(text, tmp_path, str(tmp_path / "models"))
        if done is not None:
            assert ("Valid" in done.stdout and "Error" not in done.stdout + done.stderr) == valid, done.stdout
    e = _refused(twice, re.escape("includes 'model://box' twice without a <name> (the first at line 5)"),
                 format="sdf", search_paths=[str(tmp_path / "models")])
    assert e.line == 6
    assert load_model(named, format="sdf", search_paths=[str(tmp_path / "models")]).name == "robot"


@pytest.mark.parametrize("extra, message", [
    ('<model name="other"><link name="l"/>' + _include("model://box") + "\n" + _include("model://box") + "</model>",
     "model 'other' includes 'model://box' twice without a <name> (the first at line 5)"),
    ('<include><uri>model://box</uri>\n<name> </name></include>', "the <name> of an <include> is empty"),
    # (an element inside and no text: as empty to libsdformat; found in review, after a tidying had lost it)
    ('<include><uri>model://box</uri>\n<name><x/></name></include>', "the <name> of an <include> is empty"),
])
def test_what_libsdformat_cannot_take_of_a_world_include_is_refused(tmp_path, extra, message):
    """Found in review: two unnamed includes of one URI in a world's model not read (libsdformat: "model with
    name[box] already exists"), and an include's empty <name>, on which libsdformat 12 crashes (std::logic_error)
    where the reader took the included model's name."""
    box = tmp_path / "models" / "box"
    box.mkdir(parents=True)
    (box / "model.config").write_text('<?xml version="1.0"?><model><name>box</name><sdf version="1.9">model.sdf</sdf>'
                                      "</model>")
    (box / "model.sdf").write_text(_model(name="box"))
    text = _world(extra)
    done = _ign_check(text, tmp_path, str(tmp_path / "models"))
    if done is not None:
        assert done.returncode != 0 or "Error" in done.stdout + done.stderr, done.stdout
    e = _refused(text, re.escape(message), format="sdf", search_paths=[str(tmp_path / "models")])
    assert e.line == 6


# libsdformat's trimming of names and references, measured with `ign sdf -k` (libsdformat 12.3): space, tab and line
# feed around an attribute's value; a carriage return too around an element's text; nothing else (U+00A0, U+2028)
_LIBSDFORMAT_TRIMS = {"attribute": " \t\n", "text": " \t\n\r"}
_PADS = ["", "&#10;", "&#13;", "&#160;"]  # (a space and a tab trimmed as a line feed; U+2028 kept as U+00A0)
_REFERENCES = {  # where a reference to the link C stands: (body with {ref} for it, attribute or text)
    "child": ('<joint name="J" type="fixed"><parent>P</parent><child>{ref}</child></joint>', "text"),
    "parent": ('<joint name="J" type="revolute"><parent>{ref}</parent><child>P</child><axis><xyz>0 0 1</xyz></axis>'
               "</joint>", "text"),
    "relative_to": ('<frame name="F" attached_to="P"><pose relative_to="{ref}"/></frame>', "attribute"),
    "attached_to": ('<frame name="F" attached_to="{ref}"/>', "attribute"),
    "expressed_in": ('<link name="Q"/><joint name="J" type="revolute"><parent>P</parent><child>Q</child><axis>'
                     '<xyz expressed_in="{ref}">0 0 1</xyz></axis></joint>', "attribute"),
}


def _unescaped(pad: str) -> str:
    return {"&#9;": "\t", "&#10;": "\n", "&#13;": "\r", "&#160;": "\u00a0", "&#x2028;": "\u2028"}.get(pad, pad)


@pytest.mark.parametrize("where", sorted(_REFERENCES))
@pytest.mark.parametrize("name_pad", _PADS)
@pytest.mark.parametrize("ref_pad", _PADS)
def test_a_reference_finds_a_name_as_libsdformat_trims_them(tmp_path, where, name_pad, ref_pad):
    """Found by differential fuzzing (seed 20261308) and in review: the reader strips every white space of names and
    references, libsdformat only some (_LIBSDFORMAT_TRIMS), so a <child> 'C&#160;' for a link 'C', or 'C' for a link
    'C&#160;', found its link here and nothing there ("Child frame with name[C ] ... not found"). A reference is
    read where libsdformat finds what it names (spelled as the name, white space and all), and refused with its
    line where it does not; a name with such white space is read stripped, and said."""
    body, kind = _REFERENCES[where]
    text = _model(f'<link name="P"/><link name="C{name_pad}"/>\n' + body.format(ref="C" + ref_pad))
    name = ("C" + _unescaped(name_pad)).strip(_LIBSDFORMAT_TRIMS["attribute"])
    found = ("C" + _unescaped(ref_pad)).strip(_LIBSDFORMAT_TRIMS[kind]) == name
    if where != "expressed_in":  # (which libsdformat 12 resolves only when asked for the axis: docs/sdf.md)
        assert _libsdformat_accepts(text, tmp_path) in (found, None)
    warnings: list[str] = []
    if not found:
        e = _refused(text, r"means the frame named .* libsdformat trims only spaces, tabs and line feeds",
                     format="sdf", warnings=warnings)
        assert e.line == 5
        return
    model = load_model(text, format="sdf", warnings=warnings)
    assert "C" in model.links
    assert any("has white space around it that libsdformat keeps" in w for w in warnings) == (name != "C"), warnings


@pytest.mark.parametrize("inertial, verdict", [
    ("<mass>-1</mass>", "refused"),
    ("<inertia><ixx>-1</ixx></inertia>", "refused"),
    ("<inertia><ixy>2</ixy></inertia>", "refused"),  # (principal moments -1, 1, 3)
    ("<inertia><ixx>3</ixx></inertia>", "said"),  # (the triangle inequality: refused by libsdformat, said as in the model read)
    ("<mass>0</mass>", "read"),
    ("<mass>2</mass><inertia><ixx>0.5</ixx></inertia>", "read"),
    ("<inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia>", "read"),
    ("<mass>inf</mass>", "read"),  # (SDF's 'inf': libsdformat reads it; found in review)
    ("<inertia><ixx>inf</ixx></inertia>", "read"),
    ("<mass>-inf</mass>", "refused"),
])
def test_an_impossible_inertia_in_a_world_model_not_read_is_judged(tmp_path, inertial, verdict):
    """Found by differential fuzzing (fuzz_reference.py --format sdf seed 20261401): a link with a negative moment in
    a world's other model, which libsdformat refuses the world for ("A link named k has invalid inertia"), was not
    looked at; it is judged as in the model read."""
    text = ('<?xml version="1.0"?>\n<sdf version="1.9"><world name="w"><model name="a"><link name="l"/></model>\n'
            f'<model name="b"><link name="k"><inertial>{inertial}</inertial></link></model></world></sdf>\n')
    assert _libsdformat_accepts(text, tmp_path) in (verdict == "read", None)
    if verdict == "refused":
        e = _refused(text, re.escape("link 'k' of model 'b' has invalid inertia: ") + ".*libsdformat refuses the world",
                     format="sdf")
        assert e.line == 3
        return
    warnings: list[str] = []
    assert list(load_model(text, format="sdf", warnings=warnings).links) == ["l"]
    assert any("triangle inequality" in w and "libsdformat refuses the world" in w for w in warnings) == (
        verdict == "said"), warnings


_LX = ("<parent>Lx</parent><child>L2</child>", "parent 'Lx' of joint 'J3' does not name a link, frame or nested "
                                              "model of model 'M1'")


@pytest.mark.parametrize("version, ends, message", [
    ("1.6", *_LX), ("1.9", *_LX),
    ("1.9", "<parent>L1</parent><child>F</child>", "joint 'J3': parent and child both resolve to link 'M1::L1'"),
])
def test_a_nested_joint_libsdformat_does_not_check_is_refused(tmp_path, version, ends, message):
    """A documented difference (docs/sdf.md), found by differential fuzzing (seeds 20261401, 20261406): libsdformat 12.3
    does not look for a nested model's joint <parent> (it does for the top model's, and for a <child>), nor check
    that its parent and child are two links, and reads the file; it is refused with its line, as in the top model."""
    frame = '<frame name="F" attached_to="L1"/>' if version >= "1.7" else ""
    text = _model(f'<link name="base"/><model name="M1"><link name="L1"/><link name="L2"/>{frame}\n'
                  f'<joint name="J3" type="revolute"><axis><xyz>0 0 1</xyz></axis>{ends}</joint></model>',
                  version=version)
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    assert _refused(text, re.escape(message), format="sdf").line == 5


@pytest.mark.parametrize("xyz, refused", [("1e-5 0 0", False), ("1e-6 0 0", False), ("9e-7 0 0", True),
                                           ("1e-9 0 0", True), ("6e-7 6e-7 6e-7", False), ("5e-7 5e-7 5e-7", True),
                                           # (libsdformat's bound is 1e-6 as a float, 9.99999997e-7: found in review)
                                           ("9.99999998e-7 0 0", False), ("9.9999999e-7 0 0", True)])
@pytest.mark.parametrize("tag", ["axis", "axis2"])
def test_an_axis_libsdformat_takes_as_zero_is_refused(tmp_path, xyz, refused, tag):
    """Found by differential fuzzing (fuzz_reference.py --format sdf seed 20261406): libsdformat takes an axis shorter
    than 1e-6 as zero ("The norm of the xyz vector cannot be zero"), in the <axis2> a revolute joint does not read too;
    only an exact zero was refused, and a 1e-9 0 0 axis read as x."""
    axes = f"<{tag}><xyz>{xyz}</xyz></{tag}>" if tag == "axis" else f"<axis><xyz>0 0 1</xyz></axis><axis2><xyz>{xyz}</xyz></axis2>"
    text = _model('<link name="P"/><link name="C"/>\n'
                  f'<joint name="J" type="revolute"><parent>P</parent><child>C</child>{axes}</joint>')
    assert _libsdformat_accepts(text, tmp_path) in (not refused, None)
    if refused:
        e = _refused(text, re.escape(f"joint 'J': the <{tag}><xyz> direction has length ") + ".*which libsdformat "
                     "takes as zero", format="sdf")
        assert e.line == 5
    else:
        load_model(text, format="sdf")


@pytest.mark.parametrize("element", [
    '<collision name="c"><pose relative_to="nothere"/><geometry><sphere><radius>1</radius></sphere></geometry></collision>',
    '<visual name="c"><pose relative_to="nothere"/><geometry><sphere><radius>1</radius></sphere></geometry></visual>',
    '<sensor name="c" type="imu"><pose relative_to="nothere"/></sensor>',
])
def test_a_shape_or_sensor_pose_relative_to_nothing_is_refused_where_libsdformat_reads_it(tmp_path, element):
    """A documented difference (docs/sdf.md), met in differential fuzzing (seed 20261406): libsdformat 12.3 resolves a
    visual's, collision's or sensor's pose only when asked, and reads a file where it names no frame; such a pose
    cannot be placed, and is refused with its line."""
    text = _model(f'<link name="P">\n{element}</link>')
    assert _libsdformat_accepts(text, tmp_path) in (True, None)
    e = _refused(text, re.escape("relative_to 'nothere' does not name a link, joint, frame or nested model of model "
                                 "'m'"), format="sdf")
    assert e.line == 5


def _box_models(tmp_path: Path, box: str) -> str:
    """A model directory holding model://box (the model text `box`); its path, for search_paths."""
    d = tmp_path / "models" / "box"
    d.mkdir(parents=True)
    (d / "model.config").write_text('<?xml version="1.0"?><model><name>box</name><sdf version="1.9">model.sdf</sdf>'
                                    "</model>")
    (d / "model.sdf").write_text(box)
    return str(tmp_path / "models")


@pytest.mark.parametrize("body, found", [
    # an include's <placement_frame> overrides the model's own attribute, which is not looked at then
    ("<include><uri>model://box</uri><pose>1 0 0 0 0 0</pose><placement_frame>L</placement_frame></include>", True),
    ("<include><uri>model://box</uri><pose>1 0 0 0 0 0</pose><placement_frame>L&#160;</placement_frame></include>",
     False),
    # an include's <name> is the included model's name, white space and all
    ('<include><uri>model://box</uri><name>B&#160;</name></include><joint name="J" type="fixed"><parent>base</parent>'
     "<child>B::L</child></joint>", False),
    ('<include><uri>model://box</uri><name>B&#160;</name></include><joint name="J" type="fixed"><parent>base</parent>'
     "<child>B&#160;::L</child></joint>", True),
])
@pytest.mark.parametrize("where", ["model", "world"])
def test_an_include_is_spelled_as_libsdformat_trims_it(tmp_path, body, found, where):
    """Found in review: an include's <placement_frame> was judged by the included model's own placement_frame
    attribute (a file libsdformat reads was refused, naming the included file), and an include's <placement_frame> or
    <name> with white space libsdformat keeps was read where libsdformat finds no frame so spelled."""
    if where == "world" and "<joint" in body:
        body = body.replace('<joint name="J" type="fixed"><parent>base</parent>', '<frame name="J" attached_to="')
        body = body.replace("<child>", "").replace("</child></joint>", '"/>')
    own = ' placement_frame="L&#160;"' if "<placement_frame>" in body else ""  # (overridden by the include's)
    paths = _box_models(tmp_path, f'<?xml version="1.0"?>\n<sdf version="1.9"><model name="box"{own}><link name="L"/>'
                                  "</model></sdf>\n")
    text = (_model(f'<link name="base"/>\n{body}') if where == "model" else
            f'<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="w">\n{body}\n</world>\n</sdf>\n')
    done = _ign_check(text, tmp_path, paths)
    if done is not None:
        assert (done.returncode == 0 and "Valid" in done.stdout) == found, done.stdout + done.stderr
    if found:
        warnings: list[str] = []
        load_model(text, format="sdf", search_paths=[paths], warnings=warnings)
        if "<name>B&#160;" in body and where == "model":  # (said at the include's <name>, not in the included file;
            # a world's model is the model read, whose name is kept as written)
            assert any(w.startswith("line 5: <model> name 'B\\xa0' has white space") for w in warnings), warnings
    else:
        e = _refused(text, "libsdformat trims only spaces, tabs and line feeds", format="sdf", search_paths=[paths])
        assert e.line in (4, 5) and e.source is None


@pytest.mark.parametrize("ref, found", [("B::L", False), ("B::L&#160;", True)])
def test_a_plain_document_referring_to_a_spaced_name_of_an_included_one_is_judged(tmp_path, ref, found):
    """A document without a character reference or a non-ASCII character has no white space libsdformat keeps, and
    its references are not looked at for it, unless a name of a document it includes has some."""
    paths = _box_models(tmp_path, '<?xml version="1.0"?>\n<sdf version="1.9"><model name="box"><link name="L&#160;"/>'
                                  "</model></sdf>\n")
    text = _model('<link name="base"/>\n<include><uri>model://box</uri><name>B</name></include><joint name="J" '
                  f'type="fixed"><parent>base</parent><child>{ref}</child></joint>')
    done = _ign_check(text, tmp_path, paths)
    if done is not None:
        assert (done.returncode == 0 and "Valid" in done.stdout) == found, done.stdout + done.stderr
    if found:
        load_model(text, format="sdf", search_paths=[paths])
    else:
        assert _refused(text, "libsdformat trims only spaces", format="sdf", search_paths=[paths]).line == 5


def test_a_world_frame_attached_inside_an_included_model_is_read(tmp_path):
    """Found in review: a world frame attached to 'B::L', B a world's <include>, was refused ("'B' is not a model"),
    where libsdformat reads it; what an include brings is not looked into there (docs/sdf.md)."""
    paths = _box_models(tmp_path, '<?xml version="1.0"?>\n<sdf version="1.9"><model name="box"><link name="L"/></model>'
                                  "</sdf>\n")
    text = ('<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="w">\n<include><uri>model://box</uri><name>B'
            '</name></include>\n<frame name="J" attached_to="B::L"/>\n</world>\n</sdf>\n')
    done = _ign_check(text, tmp_path, paths)
    if done is not None:
        assert done.returncode == 0 and "Valid" in done.stdout, done.stdout + done.stderr
    assert list(load_model(text, format="sdf", search_paths=[paths]).links) == ["L"]


def test_a_world_frame_is_spelled_as_libsdformat_trims_it(tmp_path):
    """Found in review: a world frame attached to 'robot::C' for a link named 'C&#160;' was read (libsdformat finds no
    frame so spelled); spelled as the link, it is read."""
    for ref, found in (("robot::C", False), ("robot::C&#160;", True), ("robot&#160;::C&#160;", False)):
        text = ('<?xml version="1.0"?>\n<sdf version="1.9">\n<world name="w">\n<model name="robot"><link name="C&#160;"/>'
                f'</model>\n<frame name="f" attached_to="{ref}"/>\n</world>\n</sdf>\n')
        assert _libsdformat_accepts(text, tmp_path) in (found, None), ref
        if found:
            load_model(text, format="sdf")
        else:
            assert _refused(text, "libsdformat trims only spaces, tabs and line feeds", format="sdf").line == 5


@pytest.mark.parametrize("pad, refused", [("&#10;", True), ("&#160;", False)])
def test_two_lights_whose_names_differ_by_white_space_are_judged_as_libsdformat_trims_them(tmp_path, pad, refused):
    """Found in review: the check of repeated light names stripped every white space, and refused two lights 'x' and
    'x&#160;', which libsdformat takes as two names (it trims only ASCII white space: 'x&#10;' is 'x')."""
    text = _model(f'<link name="l"><light name="x" type="point"/>\n<light name="x{pad}" type="point"/></link>')
    assert _libsdformat_accepts(text, tmp_path) in (not refused, None)
    if refused:
        assert _refused(text, re.escape("link 'l' has two <light> named 'x'"), format="sdf").line == 5
    else:
        load_model(text, format="sdf")


@pytest.mark.parametrize("kind, extra", [("light", ' type="point"'), ("particle_emitter", ' type="box"')])
def test_two_lights_or_emitters_of_one_name_in_a_link_of_the_model_read_are_refused(tmp_path, kind, extra):
    """Found by differential fuzzing (fuzz_reference.py --format sdf seed 20261308): a link's lights and particle
    emitters are kept unread, and two of one name were kept (libsdformat: "light with name[l] already exists");
    the world's other models were judged so, the model read not."""
    text = _model(f'<link name="l"><{kind} name="x"{extra}/>\n<{kind} name="x"{extra}/></link>')
    assert _libsdformat_accepts(text, tmp_path) in (False, None)
    e = _refused(text, re.escape(f"link 'l' has two <{kind}> named 'x' (the first at line 4"), format="sdf")
    assert e.line == 5
    ok = _model(f'<link name="l"><{kind} name="x"{extra}/>\n<{kind} name="y"{extra}/></link>')
    assert _libsdformat_accepts(ok, tmp_path) in (True, None)
    load_model(ok, format="sdf")
