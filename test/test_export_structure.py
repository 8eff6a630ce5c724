"""How the source attached things that the model holds another way, through every exporter.

A massless link with one fixed joint is a frame of the model (iDynTree's rule), and SDF's fixed joint
from the world to the base is no joint of the model: both are kept as metadata. A review of every
conversion of the corpus found formats that dropped them without a word: JSON and MJCF renamed such
joints `<frame>_fixed_joint`, turned a `world` link above the base into a frame below it and moved its
shapes, and an SDF model fixed to the world came out of URDF and JSON free. Each exporter now writes
them (URDF; SDF its world joint; MJCF the joints' names in its extras) or names them in a warning.
The URDF written is read with urdf_parser_py and libsdformat (`ign sdf -p`), not with our reader.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from idyntree_models import export_model, load_model
from idyntree_models.errors import ModelError

urdf_parser = pytest.importorskip("urdf_parser_py.urdf")

INERTIAL = '<inertial><mass>1</mass><inertia><ixx>1</ixx><iyy>1</iyy><izz>1</izz></inertia></inertial>'
FIXED_TO_WORLD_SDF = f"""<?xml version="1.0"?>
<sdf version="1.9">
  <model name="m">
    <link name="base"><pose>0 0 0.5 0 0 0</pose>{INERTIAL}</link>
    <link name="arm"><pose>0 0 1 0 0 0</pose>{INERTIAL}</link>
    <joint name="anchor" type="fixed"><parent>world</parent><child>base</child></joint>
    <joint name="j1" type="revolute"><parent>base</parent><child>arm</child>
      <axis><xyz>0 0 1</xyz><limit><lower>-1</lower><upper>1</upper><effort>5</effort><velocity>2</velocity></limit></axis></joint>
  </model>
</sdf>
"""
INERTIA = '<inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/>'
FRAMES_URDF = f"""<robot name="r">
  <link name="world"/>
  <joint name="fix_to_world" type="fixed"><parent link="world"/><child link="base"/><origin xyz="0 0 1"/></joint>
  <link name="base"><inertial><mass value="1"/>{INERTIA}</inertial></link>
  <joint name="tool_mount" type="fixed"><parent link="base"/><child link="tcp"/><origin xyz="0 0 0.2"/></joint>
  <link name="tcp"><collision name="tip"><geometry><sphere radius="0.01"/></geometry></collision></link>
</robot>
"""


def _ign() -> str:
    exe = shutil.which("ign")
    if exe is None:
        pytest.skip("ign (ignition-tools + sdformat-sdf) not installed")
    return exe


def _fixed_joints(urdf_text: str) -> dict[str, tuple[str, str, list[float]]]:
    robot = urdf_parser.URDF.from_xml_string(urdf_text)
    return {j.name: (j.parent, j.child, list(j.origin.xyz) if j.origin is not None else [0.0] * 3)
            for j in robot.joints if j.type == "fixed"}


def test_an_sdf_joint_fixing_the_base_to_the_world_is_written_to_urdf_as_a_world_link(tmp_path: Path) -> None:
    sdf = tmp_path / "m.sdf"
    sdf.write_text(FIXED_TO_WORLD_SDF)
    warnings: list[str] = []
    urdf = export_model(load_model(sdf), "urdf", warnings=warnings)
    assert warnings == []
    assert _fixed_joints(urdf) == {"anchor": ("world", "base", [0.0, 0.0, 0.5])}  # (it was missing)
    # libsdformat reads that URDF as the model fixed to the world by 'anchor', the base where it was
    out = tmp_path / "m.urdf"
    out.write_text(urdf)
    done = subprocess.run([_ign(), "sdf", "-p", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    anchor = etree.fromstring(done.stdout.encode()).find("model/joint[@name='anchor']")
    assert anchor is not None and anchor.get("type") == "fixed"
    assert (anchor.findtext("parent"), anchor.findtext("child")) == ("world", "base")
    joints = load_model(done.stdout, format="sdf").metadata["sdf_world_joints"]  # (its poses resolved, as libsdformat's)
    assert list(joints) == ["anchor"] and joints["anchor"]["child"] == "base"
    np.testing.assert_allclose(np.array(joints["anchor"]["model_H_child"])[:3, 3], [0, 0, 0.5], atol=1e-12)


def test_json_names_the_sdf_joint_to_the_world_it_drops(tmp_path: Path) -> None:
    sdf = tmp_path / "m.sdf"
    sdf.write_text(FIXED_TO_WORLD_SDF)
    warnings: list[str] = []
    export_model(load_model(sdf), "idyntree-model-json", warnings=warnings)
    assert [w for w in warnings if "'anchor' to 'base'" in w and "not written" in w], warnings


def test_mjcf_welds_a_base_fixed_to_the_world_where_the_joint_puts_it(tmp_path: Path) -> None:
    mujoco = pytest.importorskip("mujoco")
    sdf = tmp_path / "m.sdf"
    sdf.write_text(FIXED_TO_WORLD_SDF)
    warnings: list[str] = []
    mj = mujoco.MjModel.from_xml_string(export_model(load_model(sdf), "mjcf", warnings=warnings))
    assert not [w for w in warnings if "anchor" in w], warnings
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    base = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "base")
    assert mj.body_jntnum[base] == 0 and mj.nq == 1  # welded; only j1 moves
    np.testing.assert_allclose(data.xpos[base], [0, 0, 0.5], atol=1e-12)


def test_json_names_the_joints_and_shapes_of_massless_links_it_writes_as_frames() -> None:
    warnings: list[str] = []
    text = export_model(load_model(FRAMES_URDF), "idyntree-model-json", warnings=warnings)
    joints = [w for w in warnings if "fixed joints of 2 frame(s)" in w]
    assert joints and "'fix_to_world' ('world', the parent of 'base' there)" in joints[0] and "'tool_mount' ('tcp')" in joints[0]
    assert [w for w in warnings if "collision 'tip' of 'tcp' on 'base'" in w], warnings
    # what the warning says comes back: the frames' joints under other names, world below the base
    back = _fixed_joints(export_model(load_model(text, format="idyntree-model-json"), "urdf"))
    assert back["world_fixed_joint"][:2] == ("base", "world") and "tool_mount" not in back


def test_mjcf_keeps_the_joints_of_massless_links_and_names_the_shapes_it_moves() -> None:
    warnings: list[str] = []
    text = export_model(load_model(FRAMES_URDF), "mjcf", warnings=warnings)
    assert not [w for w in warnings if "fixed joints of" in w], warnings
    assert [w for w in warnings if "collision 'tip' of 'tcp' on 'base'" in w], warnings
    back = _fixed_joints(export_model(load_model(text, format="mjcf"), "urdf"))
    assert back == {"fix_to_world": ("world", "base", [0.0, 0.0, 1.0]), "tool_mount": ("base", "tcp", [0.0, 0.0, 0.2])}


def test_sdf_writes_the_world_link_as_its_world_joint_under_the_urdf_name(tmp_path: Path) -> None:
    warnings: list[str] = []
    sdf = export_model(load_model(FRAMES_URDF), "sdf", warnings=warnings)
    assert [w for w in warnings if "'tool_mount' ('tcp')" in w and "fix_to_world" not in w], warnings
    assert not [w for w in warnings if "world_frame" in w], warnings  # (no such frame is written)
    out = tmp_path / "r.sdf"
    out.write_text(sdf)
    done = subprocess.run([_ign(), "sdf", "-k", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Valid" in done.stdout, done.stdout + done.stderr
    model = etree.fromstring(sdf.encode()).find("model")
    joint = model.find("joint[@name='fix_to_world']")  # (it was 'world_joint')
    assert joint is not None and (joint.findtext("parent"), joint.findtext("child")) == ("world", "base")


@pytest.mark.parametrize("data", [
    '{"velocity_limits": [1, 2]}',
    '{"exact_inertia": {"b": 3}}',
    '{"frame_joints": {"f": ["j"]}}',
    '[1]',
])
def test_mjcf_extras_not_as_our_export_writes_them_are_refused_with_their_line(data: str) -> None:
    text = ('<mujoco model="m"><worldbody><body name="b"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
            '<joint name="j" type="hinge"/></body></worldbody>\n'
            f"<custom><text name='idyntree_models' data='{data}'/></custom></mujoco>")
    with pytest.raises(ModelError, match="idyntree_models extras") as e:
        load_model(text, format="mjcf")
    assert e.value.line == 2


MATERIALS_URDF = f"""<robot name="r">
  <material name="steel"><color rgba="0.5 0.5 0.6 1"/></material>
  <link name="base"><inertial><mass value="1"/>{INERTIA}</inertial>
    <visual name="shell"><geometry><box size="1 1 1"/></geometry><material name="steel"/></visual>
    <collision name="hull"><geometry><box size="1 1 1"/></geometry><material name="steel"/></collision></link>
  <joint name="j" type="fixed"><parent link="base"/><child link="top"/></joint>
  <link name="top"><inertial><mass value="1"/>{INERTIA}</inertial>
    <visual name="shell"><geometry><sphere radius="0.1"/></geometry>
      <material name="red"><color rgba="1 0 0 1"/></material></visual></link>
</robot>
"""


def test_mjcf_writes_material_names_as_assets_mujoco_colours_the_geoms_by() -> None:
    mujoco = pytest.importorskip("mujoco")
    warnings: list[str] = []
    text = export_model(load_model(MATERIALS_URDF), "mjcf", warnings=warnings)
    assert not [w for w in warnings if "material" in w], warnings
    mj = mujoco.MjModel.from_xml_string(text)
    for geom, rgba in (("shell", [0.5, 0.5, 0.6, 1]), ("hull", [0.5, 0.5, 0.6, 1]), ("top_shell", [1, 0, 0, 1])):
        matid = mj.geom_matid[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_GEOM, geom)]
        assert matid >= 0
        np.testing.assert_allclose(mj.mat_rgba[matid], rgba, atol=1e-7)  # (MuJoCo's floats)
    back = load_model(text, format="mjcf")
    assert [(s.name, s.material.name) for link in back.links.values() for s in link.visuals + link.collisions] == [
        ("shell", "steel"), ("hull", "steel"), ("top_shell", "red")]  # (names were dropped: None, and no 'shell' twice)


def test_mjcf_names_the_geom_names_it_changes_to_keep_them_unique() -> None:
    warnings: list[str] = []
    export_model(load_model(MATERIALS_URDF), "mjcf", warnings=warnings)
    assert [w for w in warnings if "'shell' of 'top' as 'top_shell'" in w], warnings


def test_sdf_names_the_material_names_and_collision_materials_it_cannot_write() -> None:
    warnings: list[str] = []
    export_model(load_model(MATERIALS_URDF), "sdf", warnings=warnings)
    said = [w for w in warnings if "the SDF exporter has no place for" in w]
    assert said and "2 material(s) (steel, red)" in said[0] and "the materials of 1 collision shape(s)" in said[0]


def test_urdf_names_the_spherical_joints_it_writes_as_three_revolute_joints() -> None:
    text = f"""<robot name="r"><link name="a"><inertial><mass value="1"/>{INERTIA}</inertial></link>
      <link name="b"><inertial><mass value="1"/>{INERTIA}</inertial></link>
      <joint name="shoulder" type="spherical"><parent link="a"/><child link="b"/><origin xyz="0 0 1"/></joint></robot>"""
    warnings: list[str] = []
    urdf = export_model(load_model(text), "urdf", warnings=warnings)
    assert [w for w in warnings if "1 spherical joint(s) (shoulder) written as three revolute joints" in w], warnings
    robot = urdf_parser.URDF.from_xml_string(urdf)  # what the warning says is written
    assert sorted(j.name for j in robot.joints if j.type in ("revolute", "continuous")) == [
        "spherical_rev_shoulder_x", "spherical_rev_shoulder_y", "spherical_rev_shoulder_z"]


def test_json_names_a_force_torque_frame_keyword_it_reads_back_as_another() -> None:
    text = f"""<sdf version="1.7"><model name="m"><link name="a">{INERTIAL}</link>
      <link name="b"><pose>0 0 1 0 0 0.5</pose>{INERTIAL}</link>
      <joint name="j" type="fixed"><parent>a</parent><child>b</child>
      <sensor name="ft" type="force_torque"><force_torque><frame>parent</frame></force_torque></sensor></joint>
      </model></sdf>"""
    model = load_model(text, format="sdf")
    warnings: list[str] = []
    back = load_model(export_model(model, "idyntree-model-json", warnings=warnings), format="idyntree-model-json")
    assert (model.sensors["ft"].frame, back.sensors["ft"].frame) == ("parent", "sensor")
    assert [w for w in warnings if "'ft': its frame keyword 'parent' is not written" in w and "as 'sensor'" in w], warnings
    np.testing.assert_allclose(back.sensors["ft"].second_link_H_sensor, model.sensors["ft"].second_link_H_sensor, atol=1e-15)


FREE_MJCF = """<mujoco model="free"><worldbody>
  <body name="torso" pos="0 0 1"><freejoint name="root"/><geom type="sphere" size="0.1"/>
    <body name="arm" pos="0.2 0 0"><joint name="j" axis="0 1 0"/><geom type="sphere" size="0.05"/></body></body>
</worldbody></mujoco>"""


def test_mjcf_writes_a_free_base_free_again_where_the_source_put_it() -> None:
    """MJCF -> MJCF welded a floating robot to the world at the origin, without a word (MuJoCo: nq 8 -> 1)."""
    mujoco = pytest.importorskip("mujoco")
    warnings: list[str] = []
    text = export_model(load_model(FREE_MJCF, format="mjcf"), "mjcf", warnings=warnings)
    assert warnings == []
    a, b = mujoco.MjModel.from_xml_string(FREE_MJCF), mujoco.MjModel.from_xml_string(text)
    assert (b.nq, b.njnt) == (a.nq, a.njnt) == (8, 2)
    assert mujoco.mj_id2name(b, mujoco.mjtObj.mjOBJ_JOINT, 0) == "root"
    da, db = mujoco.MjData(a), mujoco.MjData(b)
    mujoco.mj_kinematics(a, da)
    mujoco.mj_kinematics(b, db)
    np.testing.assert_allclose(db.xpos, da.xpos, atol=1e-12)


def test_a_skel_free_base_is_free_in_mjcf_and_its_pose_named_where_it_is_not_written(tmp_path: Path) -> None:
    mujoco = pytest.importorskip("mujoco")
    dart = pytest.importorskip("dartpy")
    skel = tmp_path / "k.skel"
    skel.write_text("""<?xml version="1.0"?><skel version="1.0"><world name="w"><skeleton name="s">
      <transformation>0 0 0.5 0 0 0</transformation>
      <body name="root"><inertia><mass>1</mass></inertia></body>
      <joint type="free" name="jfree"><parent>world</parent><child>root</child><init_pos>0 0 0.4 0 0 0</init_pos></joint>
      </skeleton></world></skel>""")
    model = load_model(skel)
    world = dart.utils.SkelParser.readWorld(str(skel))  # DART's pose of the body at its initial configuration
    dart_z = world.getSkeleton(0).getBodyNode("root").getWorldTransform().translation()[2]
    warnings: list[str] = []
    mj = mujoco.MjModel.from_xml_string(export_model(model, "mjcf", warnings=warnings))
    assert mujoco.mj_id2name(mj, mujoco.mjtObj.mjOBJ_JOINT, 0) == "jfree" and mj.nq == 7
    np.testing.assert_allclose(mj.qpos0[:3], [0, 0, 0.5], atol=1e-12)  # the body's pose; the 0.4 is named:
    assert [w for w in warnings if f"initial configuration of the base (at 0.0 0.0 {dart_z:.1f})" in w], (warnings, dart_z)
    warnings = []
    export_model(model, "urdf", warnings=warnings)
    assert [w for w in warnings if "pose of the base 'root' in the world (at 0.0 0.0 0.5) is not written" in w], warnings


def test_a_static_sdf_model_is_named_as_static_where_it_is_not_written(tmp_path: Path) -> None:
    sdf = tmp_path / "t.sdf"
    sdf.write_text(f'<sdf version="1.9"><model name="table"><static>true</static><link name="top">{INERTIAL}</link>'
                   "</model></sdf>")
    model = load_model(sdf)
    for fmt in ("urdf", "idyntree-model-json", "mjcf"):
        warnings: list[str] = []
        export_model(model, fmt, warnings=warnings)
        assert [w for w in warnings if "the model is static in SDF" in w], (fmt, warnings)
    warnings = []
    assert "<static>true</static>" in export_model(model, "sdf", warnings=warnings) and warnings == []


def test_mjcf_names_the_free_bodies_it_writes_as_chains() -> None:
    text = f"""<sdf version="1.9"><model name="m"><link name="robot">{INERTIAL}</link>
      <link name="ball"><pose>1 0 0 0 0 0</pose>{INERTIAL}</link></model></sdf>"""
    warnings: list[str] = []
    export_model(load_model(text, format="sdf"), "mjcf", warnings=warnings)
    assert [w for w in warnings if "1 free body(ies) (ball) written as the chains of six joints" in w], warnings


def test_sdf_names_the_shapes_it_renames_to_keep_a_link_s_names_unique(tmp_path: Path) -> None:
    text = f"""<robot name="r"><link name="a"><inertial><mass value="1"/>{INERTIA}</inertial>
      <visual name="g"><geometry><box size="1 1 1"/></geometry></visual>
      <collision name="g"><geometry><box size="1 1 1"/></geometry></collision></link></robot>"""
    warnings: list[str] = []
    sdf = export_model(load_model(text), "sdf", warnings=warnings)
    assert [w for w in warnings if "collision 'g' of 'a' as 'g_0'" in w], warnings
    out = tmp_path / "r.sdf"
    out.write_text(sdf)
    done = subprocess.run([_ign(), "sdf", "-k", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Valid" in done.stdout, done.stdout + done.stderr  # (the same name twice is not)


@pytest.mark.parametrize(("version", "pitch", "written"), [
    ("1.9", "<thread_pitch>0.01</thread_pitch>", 0.01),
    # SDFormat's own test file pairs screw_thread_pitch 0.5 with thread_pitch -12.566 (joint_screw_thread_pitch.sdf)
    ("1.10", "<screw_thread_pitch>0.5</screw_thread_pitch>", -12.566),
])
def test_sdf_writes_a_screw_joint_back_as_a_screw(version: str, pitch: str, written: float, tmp_path: Path) -> None:
    text = f"""<sdf version="{version}"><model name="m"><link name="a">{INERTIAL}</link><link name="b">{INERTIAL}</link>
      <joint name="js" type="screw"><parent>a</parent><child>b</child>{pitch}<axis><xyz>0 0 1</xyz></axis></joint>
      </model></sdf>"""
    sdf = export_model(load_model(text, format="sdf"), "sdf")
    joint = etree.fromstring(sdf.encode()).find("model/joint[@name='js']")
    assert joint.get("type") == "screw"  # (it was written 'continuous', the pitch lost)
    assert float(joint.findtext("thread_pitch")) == pytest.approx(written, abs=5e-4)
    out = tmp_path / "s.sdf"
    out.write_text(sdf)
    done = subprocess.run([_ign(), "sdf", "-k", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Valid" in done.stdout, done.stdout + done.stderr


def test_a_material_without_a_name_comes_back_from_urdf_without_one() -> None:
    """URDF writers write name="" for it (urdfdom requires the attribute); it was read back as the name ''."""
    mjcf = '<mujoco model="m"><worldbody><body name="b"><geom type="sphere" size="0.1" rgba="1 0 0 1"/></body></worldbody></mujoco>'
    model = load_model(mjcf, format="mjcf")
    urdf = export_model(model, "urdf")
    assert urdf_parser.URDF.from_xml_string(urdf).links[0].visuals[0].material.name == ""
    shape = load_model(urdf).links["b"].visuals[0]
    assert shape.material.name is None and shape.material.color.tolist() == [1.0, 0.0, 0.0, 1.0]


@pytest.mark.parametrize("pitch", ["<thread_pitch>inf</thread_pitch>", "<thread_pitch>0</thread_pitch>",
                                   "<screw_thread_pitch>0</screw_thread_pitch>", "<screw_thread_pitch>1e-320</screw_thread_pitch>"])
def test_a_screw_pitch_sdf_1_9_cannot_write_leaves_a_named_revolute_joint(pitch: str) -> None:
    """An infinite pitch made the export fail (it wrote a revolute joint before screws were written back)."""
    text = f"""<sdf version="1.10"><model name="m"><link name="a">{INERTIAL}</link><link name="b">{INERTIAL}</link>
      <joint name="js" type="screw"><parent>a</parent><child>b</child>{pitch}<axis><xyz>0 0 1</xyz></axis></joint>
      </model></sdf>"""
    warnings: list[str] = []
    sdf = export_model(load_model(text, format="sdf"), "sdf", warnings=warnings)
    assert etree.fromstring(sdf.encode()).find("model/joint[@name='js']").get("type") == "continuous"
    assert [w for w in warnings if "screw joint 'js' is written as a continuous joint" in w], warnings


def test_sdf_says_when_its_world_joint_turns_the_source_s_direction() -> None:
    text = f"""<robot name="r"><link name="base"><inertial><mass value="1"/>{INERTIA}</inertial></link>
      <joint name="to_world" type="fixed"><parent link="base"/><child link="world"/><origin xyz="0 0 1"/></joint>
      <link name="world"/></robot>"""
    warnings: list[str] = []
    export_model(load_model(text), "sdf", warnings=warnings)
    assert [w for w in warnings if "world attachment" in w and "'to_world' went from 'base' to 'world'" in w], warnings
    assert not [w for w in warnings if "fixed joints of" in w], warnings  # (it is written: not also 'not written')


def test_frame_joints_the_urdf_export_makes_again_are_not_named() -> None:
    """iDynTree's exports name every frame's joint <frame>_fixed_joint: JSON -> URDF writes them again as they were."""
    text = f"""<robot name="r"><link name="base"><inertial><mass value="1"/>{INERTIA}</inertial></link>
      <joint name="tcp_fixed_joint" type="fixed"><parent link="base"/><child link="tcp"/><origin xyz="0 0 1"/></joint>
      <link name="tcp"/>
      <joint name="mount" type="fixed"><parent link="base"/><child link="cam"/><origin xyz="0 1 0"/></joint>
      <link name="cam"/></robot>"""
    warnings: list[str] = []
    json_text = export_model(load_model(text), "idyntree-model-json", warnings=warnings)
    said = [w for w in warnings if "fixed joints of" in w]
    assert said and "fixed joints of 1 frame(s)" in said[0] and "'mount' ('cam')" in said[0], warnings
    back = _fixed_joints(export_model(load_model(json_text, format="idyntree-model-json"), "urdf"))
    assert back["tcp_fixed_joint"] == ("base", "tcp", [0.0, 0.0, 1.0]) and "mount" not in back


def test_mjcf_welds_the_base_where_a_urdf_world_link_puts_it() -> None:
    mujoco = pytest.importorskip("mujoco")
    mj = mujoco.MjModel.from_xml_string(export_model(load_model(FRAMES_URDF), "mjcf"))
    data = mujoco.MjData(mj)
    mujoco.mj_kinematics(mj, data)
    base = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "base")
    assert mj.body_jntnum[base] == 0
    np.testing.assert_allclose(data.xpos[base], [0, 0, 1], atol=1e-12)  # (it was at the origin)


def test_mjcf_names_the_sdf_world_joint_a_free_base_asked_for_drops(tmp_path: Path) -> None:
    sdf = tmp_path / "m.sdf"
    sdf.write_text(FIXED_TO_WORLD_SDF)
    warnings: list[str] = []
    export_model(load_model(sdf), "mjcf", warnings=warnings, mjcf_free_joint=True)
    assert [w for w in warnings if "'anchor' to 'base'" in w and "free joint" in w], warnings


def test_mjcf_writes_a_shared_material_name_once_and_the_other_colours_as_colours() -> None:
    """MuJoCo takes a geom's rgba only where it differs from its default (0.5 0.5 0.5 1): a grey shape beside a
    material asset of its name rendered in the asset's red."""
    mujoco = pytest.importorskip("mujoco")
    text = f"""<robot name="r"><link name="base"><inertial><mass value="1"/>{INERTIA}</inertial>
      <visual name="v1"><geometry><box size="1 1 1"/></geometry><material name="paint"><color rgba="1 0 0 1"/></material></visual>
      <visual name="v2"><geometry><box size="1 1 1"/></geometry><material name="paint"><color rgba="0.5 0.5 0.5 1"/></material></visual>
      </link></robot>"""
    warnings: list[str] = []
    mj = mujoco.MjModel.from_xml_string(export_model(load_model(text), "mjcf", warnings=warnings))

    def colour(geom: str) -> list[float]:
        g = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_GEOM, geom)
        return (mj.mat_rgba[mj.geom_matid[g]] if mj.geom_matid[g] >= 0 else mj.geom_rgba[g]).tolist()

    assert colour("v1") == [1, 0, 0, 1] and colour("v2") == [0.5, 0.5, 0.5, 1]
    assert [w for w in warnings if "'paint' of visual 'v2' of 'base'" in w], warnings


def test_mjcf_extras_as_the_earlier_exporter_wrote_them_still_load() -> None:
    """Every key and value shape the exporter of 2026-11-24 (803493d) wrote, read by its import."""
    extras = ('{"balanced_by_mujoco": ["b"], "effort_limits": {"j": 2.0}, "exact_inertia": {"b": {"com": [0, 0, 0], '
              '"inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "mass": 1.0}}, "fixed_joints": {"c": "jc"}, '
              '"force_torque": {"ft": {"applied_wrench_link": "b", "frame": "sensor", "site": "ft"}}, '
              '"other_sensors": {"cam": {"properties": {}, "site": "cam", "subtype": "camera"}}, '
              '"position_limits": {"j": [-1.0, 1.0]}, "sensor_sites": ["ft", "cam"], "velocity_limits": {"j": 3.0}, '
              '"world_link": false}')
    text = ('<mujoco model="m"><worldbody><body name="b"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
            '<joint name="j" type="hinge"/><site name="ft"/><site name="cam"/>'
            '<body name="c"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></body></body></worldbody>'
            f"<custom><text name='idyntree_models' data='{extras}'/></custom></mujoco>")
    model = load_model(text, format="mjcf")
    lim = model.joints["j"].limits
    assert (lim.min_position, lim.max_position, lim.velocity_limit, lim.effort_limit) == (-1.0, 1.0, 3.0, 2.0)
    assert "jc" in model.joints


def test_a_force_torque_sensor_in_its_own_frame_without_origin_is_written_as_read() -> None:
    """URDF -> URDF wrote <frame>sensor</frame> without <origin> as <frame>child</frame> (the same pose, another
    document)."""
    text = f"""<robot name="r"><link name="a"><inertial><mass value="1"/>{INERTIA}</inertial></link>
      <link name="b"><inertial><mass value="1"/>{INERTIA}</inertial></link>
      <joint name="j" type="fixed"><parent link="a"/><child link="b"/><origin xyz="0 0 1"/></joint>
      <sensor name="ft" type="force_torque"><parent joint="j"/><force_torque><frame>sensor</frame>
      <measure_direction>child_to_parent</measure_direction></force_torque></sensor></robot>"""
    sensor = etree.fromstring(export_model(load_model(text), "urdf").encode()).find("sensor")
    assert sensor.findtext("force_torque/frame") == "sensor" and sensor.find("origin") is None


def test_the_pose_a_world_joint_holds_the_base_at_survives_sdf_both_ways(tmp_path: Path) -> None:
    """Found in review: a URDF `world` link's joint with an offset went to SDF as the model's <pose> (the base at the
    model frame), and that pose, the model's placement in its world, was dropped from SDF to URDF and MJCF: the
    world joint came back at the identity, and the warning said the <pose> was lost where URDF's world joint holds
    it. A fixed joint to the world holds its child where the model's pose puts it (an SDF model at 1 0 0 with its
    base at 0 0 0.5 in it is fixed at 1 0 0.5); URDF's world joint and MJCF's welded base are written there. Read
    back with urdf_parser_py and MuJoCo, not with our readers."""
    mujoco = pytest.importorskip("mujoco")
    urdf = FRAMES_URDF.replace('<origin xyz="0 0 1"/>', '<origin xyz="0.3 -0.2 1" rpy="0.1 0 0.5"/>')
    sdf = tmp_path / "r.sdf"
    sdf.write_text(export_model(load_model(urdf), "sdf"))
    warnings: list[str] = []
    back = export_model(load_model(sdf), "urdf", warnings=warnings)
    joint = {j.name: j for j in urdf_parser.URDF.from_xml_string(back).joints}["fix_to_world"]
    assert (joint.parent, joint.child) == ("world", "base")
    np.testing.assert_allclose(joint.origin.xyz, [0.3, -0.2, 1], atol=1e-12)
    np.testing.assert_allclose(joint.origin.rpy, [0.1, 0, 0.5], atol=1e-12)
    assert not [w for w in warnings if "<pose>" in w], warnings

    placed = tmp_path / "m.sdf"
    placed.write_text(FIXED_TO_WORLD_SDF.replace('<model name="m">', '<model name="m"><pose>1 0 0 0 0 1.5707963267948966</pose>'))
    model = load_model(placed)
    for fmt in ("urdf", "mjcf"):
        warnings = []
        text = export_model(model, fmt, warnings=warnings)
        assert not [w for w in warnings if "<pose>" in w], (fmt, warnings)
        if fmt == "urdf":
            anchor = {j.name: j for j in urdf_parser.URDF.from_xml_string(text).joints}["anchor"]
            np.testing.assert_allclose(anchor.origin.xyz, [1, 0, 0.5], atol=1e-12)
            np.testing.assert_allclose(anchor.origin.rpy, [0, 0, np.pi / 2], atol=1e-12)
        else:
            mj = mujoco.MjModel.from_xml_string(text)
            data = mujoco.MjData(mj)
            mujoco.mj_kinematics(mj, data)
            base = mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "base")
            np.testing.assert_allclose(data.xpos[base], [1, 0, 0.5], atol=1e-12)
            np.testing.assert_allclose(data.xmat[base].reshape(3, 3) @ [1, 0, 0], [0, 1, 0], atol=1e-12)
    # without a joint to the world the model's pose is its placement only: not written, and said so
    free = tmp_path / "f.sdf"
    free.write_text(placed.read_text().replace("<parent>world</parent><child>base</child>",
                                               "<parent>base</parent><child>tip</child>").replace(
        '<link name="arm">', '<link name="tip"/><link name="arm">'))
    warnings = []
    export_model(load_model(free), "urdf", warnings=warnings)
    assert [w for w in warnings if "<pose> in <model>" in w], warnings


def test_an_sdf_world_joint_and_a_urdf_world_link_come_back_through_mjcf(tmp_path: Path) -> None:
    """Found in review: an SDF model fixed to the world by 'anchor' went to MJCF as a welded base (right) and came
    back to URDF free, without a 'world' link or the joint's name, and without a word; a URDF `world` link's offset
    came back through MJCF, but a warning said the base's pose was not written. Read with urdf_parser_py and
    MuJoCo."""
    mujoco = pytest.importorskip("mujoco")
    sdf = tmp_path / "m.sdf"
    sdf.write_text(FIXED_TO_WORLD_SDF)
    mjcf = export_model(load_model(sdf), "mjcf")
    mj = mujoco.MjModel.from_xml_string(mjcf)
    assert mj.body_jntnum[mujoco.mj_name2id(mj, mujoco.mjtObj.mjOBJ_BODY, "base")] == 0  # (welded)
    warnings: list[str] = []
    urdf = export_model(load_model(mjcf, format="mjcf"), "urdf", warnings=warnings)
    assert _fixed_joints(urdf) == {"anchor": ("world", "base", [0.0, 0.0, 0.5])}, urdf
    assert not [w for w in warnings if "anchor" in w or "pose of the base" in w], warnings
    # a file edited since (a second body in the world): the joint cannot come back, and that is said
    edited = mjcf.replace("</worldbody>", '<body name="other" pos="3 0 0"><geom size="0.1"/></body></worldbody>')
    mujoco.MjModel.from_xml_string(edited)
    warnings = []
    assert "anchor" not in _fixed_joints(export_model(load_model(edited, format="mjcf", warnings=warnings), "urdf"))
    assert [w for w in warnings if "fixed joint 'anchor'" in w and "not read back" in w], warnings

    urdf_in = FRAMES_URDF.replace('<origin xyz="0 0 1"/>', '<origin xyz="0.3 -0.2 1" rpy="0 0 0.5"/>')
    warnings = []
    back = export_model(load_model(export_model(load_model(urdf_in), "mjcf"), format="mjcf"), "urdf",
                        warnings=warnings)
    joint = {j.name: j for j in urdf_parser.URDF.from_xml_string(back).joints}["fix_to_world"]
    np.testing.assert_allclose(joint.origin.xyz, [0.3, -0.2, 1], atol=1e-12)
    np.testing.assert_allclose(joint.origin.rpy, [0, 0, 0.5], atol=1e-12)
    assert not [w for w in warnings if "pose of the base" in w], warnings


@pytest.mark.parametrize("model_attributes, nested, expected_xyz", [
    ('placement_frame="arm"', False, [1.0, -0.2, 0.0]),  # the pose places arm (0.2 0 0 from base): base 0.2 behind
    ('xmlns:ex="http://example.com/ex" ex:tag="1"', False, [1.0, 0.0, 0.5]),  # another attribute is no placement
    ('xmlns:ex="http://example.com/ex"', True, [-1.0, 0.0, 0.5]),  # in a nested model with an attribute of its own
])
def test_the_world_joint_s_pose_with_a_placement_frame_or_other_model_attributes(
        model_attributes: str, nested: bool, expected_xyz: list[float], tmp_path: Path) -> None:
    """From this stop's review: any kept attribute of a <model> (a namespaced one, a nested model's) was taken for a
    placement frame, and a placement frame itself was not applied: the world joint was written at the base's pose in
    the model, with the pose named as lost. A model at 1 0 0 turned a quarter about z: with placement_frame="arm" it
    is arm that is there (arm is 0.2 along x from the base, so the base is 0.2 along -y in the world); nested at
    0 2 0, the base is at -1 0 0.5. Checked in URDF (urdf_parser_py, and libsdformat reading it back) and through
    SDF again."""
    inner = (f'<link name="base"><pose>0 0 0.5 0 0 0</pose>{INERTIAL}</link><link name="arm"><pose>0.2 0 0.5 0 0 0</pose>{INERTIAL}'
             '</link><joint name="anchor" type="fixed"><parent>world</parent><child>base</child></joint>'
             '<joint name="j" type="revolute"><parent>base</parent><child>arm</child><axis><xyz>0 0 1</xyz></axis>'
             '</joint>')
    body = f'<model name="inner" ex:tag="1"><pose>0 2 0 0 0 0</pose>{inner}</model>' if nested else inner
    text = (f'<sdf version="1.9"><model name="m" {model_attributes}><pose>1 0 0 0 0 1.5707963267948966</pose>{body}'
            '</model></sdf>')
    path = tmp_path / "m.sdf"
    path.write_text(text)
    anchor = "inner::anchor" if nested else "anchor"
    for source in (path, None):
        if source is None:  # (and through our SDF export)
            source = tmp_path / "again.sdf"
            source.write_text(export_model(load_model(path), "sdf"))
        warnings: list[str] = []
        urdf = export_model(load_model(source), "urdf", warnings=warnings)
        joint = {j.name: j for j in urdf_parser.URDF.from_xml_string(urdf).joints}[anchor]
        np.testing.assert_allclose(joint.origin.xyz, expected_xyz, atol=1e-12)
        np.testing.assert_allclose(joint.origin.rpy, [0, 0, np.pi / 2], atol=1e-12)
        assert not [w for w in warnings if "<pose>" in w or "placement_frame" in w], warnings
    if nested:
        return  # (libsdformat's URDF conversion keeps the flattened name 'inner::anchor', which SDF 1.8+ refuses)
    out = tmp_path / "m.urdf"
    out.write_text(urdf)
    done = subprocess.run([_ign(), "sdf", "-p", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    joints = load_model(done.stdout, format="sdf").metadata["sdf_world_joints"]
    np.testing.assert_allclose(np.array(joints[anchor]["model_H_child"])[:3, 3], expected_xyz, atol=1e-12)


def test_a_welded_base_with_its_world_joint_comes_back_from_mjcf_to_sdf_where_it_was(tmp_path: Path) -> None:
    """From this stop's review: an SDF model fixed to the world at 1 0 0.5, through MJCF (its world joint in the
    extras) and back to SDF, was written fixed at the origin, with the base's pose said to be lost. The model's pose
    holds it now; read back by libsdformat's `ign sdf -k` and by URDF (urdf_parser_py)."""
    placed = tmp_path / "m.sdf"
    placed.write_text(FIXED_TO_WORLD_SDF.replace('<model name="m">', '<model name="m"><pose>1 0 0 0 0 1.5707963267948966</pose>'))
    mjcf = export_model(load_model(placed), "mjcf")
    warnings: list[str] = []
    sdf = tmp_path / "again.sdf"
    sdf.write_text(export_model(load_model(mjcf, format="mjcf"), "sdf", warnings=warnings))
    assert not [w for w in warnings if "pose of the base" in w], warnings
    done = subprocess.run([_ign(), "sdf", "-k", str(sdf)], capture_output=True, text=True, timeout=120)
    assert "Valid" in done.stdout, done.stdout + done.stderr
    pose = etree.parse(str(sdf)).getroot().find("model/pose")
    np.testing.assert_allclose([float(x) for x in pose.text.split()], [1, 0, 0.5, 0, 0, np.pi / 2], atol=1e-12)
    anchor = {j.name: j for j in urdf_parser.URDF.from_xml_string(export_model(load_model(sdf), "urdf")).joints}["anchor"]
    np.testing.assert_allclose(anchor.origin.xyz, [1, 0, 0.5], atol=1e-12)
