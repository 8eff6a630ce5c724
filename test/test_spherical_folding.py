"""Folding three revolute joints into a spherical joint, with the centre where the axes meet.

The folded model must move exactly like the chain it replaces; this is checked against our own
unfolded kinematics AND against the iDynTree wheel on the unfolded file, with the axes meeting
away from the parent origin (the case iDynTree gets wrong).
"""

from __future__ import annotations

import numpy as np
import pytest

from idyntree_models import Kinematics, load_model
from idyntree_models.model import JointType
from idyntree_models.model.transforms import matrix_to_quat, rot_z

import idyntree_oracle as oracle

# axes meet at P = (0.3, 0.5, 0.2) in link0: J1 along y through (0.3, 0, 0.2); J2 along z through
# (0.3, 0.5, 0.3); J3 along x through (0.5, 0.5, 0.2), with link3 rotated 0.4 rad about z.
_A3 = [float(v) for v in rot_z(-0.4) @ np.array([1.0, 0.0, 0.0])]
CHAIN = f"""<robot name="chain">
  <link name="link0"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="{{l1}}"/>
  <link name="{{l2}}"/>
  <link name="link3"><inertial><origin xyz="0.1 0 0"/><mass value="1"/>
    <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="link4"><inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="{{j1}}" type="revolute"><origin xyz="0.3 0 0.2"/><parent link="link0"/><child link="{{l1}}"/>
    <axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="{{j2}}" type="continuous"><origin xyz="0 0.5 0.1"/><parent link="{{l1}}"/><child link="{{l2}}"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="{{j3}}" type="revolute"><origin xyz="0.2 0 -0.1" rpy="0 0 0.4"/><parent link="{{l2}}"/><child link="link3"/>
    <axis xyz="{_A3[0]!r} {_A3[1]!r} {_A3[2]!r}"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j4" type="revolute"><origin xyz="0.4 0 0"/><parent link="link3"/><child link="link4"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""

NAMES = dict(l1="fake1", l2="fake2", j1="shoulder_x", j2="shoulder_y", j3="shoulder_z")


def _quat_for(unfolded_world, folded_joint) -> np.ndarray:
    """Quaternion of the folded joint reproducing link3's orientation in link0."""
    r_total = unfolded_world["link3"][:3, :3]  # link0 is the base, at identity
    return matrix_to_quat(folded_joint.rest_transform[:3, :3].T @ r_total)


def test_folded_kinematics_equal_unfolded_chain():
    text = CHAIN.format(**NAMES)
    unfolded = load_model(text)
    folded = load_model(text, convert_three_revolute_joints_to_spherical=True)
    assert set(folded.links) == {"link0", "link3", "link4"}
    joint = folded.joints["shoulder"]  # iDynTree's naming: J1 cut at "_x"
    assert joint.type is JointType.SPHERICAL and (joint.parent, joint.child) == ("link0", "link3")
    np.testing.assert_allclose(joint.center, [0.3, 0.5, 0.2], atol=1e-12)
    ku, kf = Kinematics(unfolded), Kinematics(folded)
    ref = oracle.load(text)  # the wheel on the unfolded chain: an independent oracle
    rng = np.random.default_rng(3)
    for _ in range(10):
        a, b, c, d = rng.uniform(-np.pi, np.pi, 4)
        config = {"shoulder_x": a, "shoulder_y": b, "shoulder_z": c, "j4": d}
        wu = ku.world_transforms(config)
        wref = oracle.world_transforms(ref, config)
        wf = kf.world_transforms({"shoulder": _quat_for(wu, joint), "j4": d})
        for name in ("link3", "link4"):
            np.testing.assert_allclose(wu[name], wref[name], atol=1e-9)
            np.testing.assert_allclose(wf[name], wref[name], atol=1e-9)


def test_exported_names_fold_back_to_exact_joint_name():
    names = dict(l1="spherical_fake_shoulder_link1", l2="spherical_fake_shoulder_link2",
                 j1="spherical_rev_shoulder_x", j2="spherical_rev_shoulder_y", j3="spherical_rev_shoulder_z")
    folded = load_model(CHAIN.format(**names), convert_three_revolute_joints_to_spherical=True)
    assert "shoulder" in folded.joints
    assert not any(n.startswith("spherical_fake") for n in folded.links)


@pytest.mark.parametrize("fmt, name", [(f, n) for f in ("urdf", "sdf", "idyntree-model-json")
                                       for n in ("a\nb", "a\nb_x", "c_x")] + [("idyntree-model-json", "shoulder\n")])
def test_any_spherical_joint_name_comes_back_after_unfolding(fmt, name):
    """Found by the fuzzer: an MJCF ball joint named 'a<newline>b' came back from URDF as three revolute
    joints, with no warning: the name pattern of our own exports stopped at the line break (and '$' matched
    before a final one). Every name, including one that itself looks like an unfolded name, folds back
    exactly (a name with trailing white space only in JSON: URDF refuses it and SDF renames it, both saying so)."""
    from idyntree_models import export_model

    escaped = name.replace("\n", "&#10;")
    mjcf = (f'<mujoco model="m"><worldbody><body name="t"><geom size="0.1"/><body name="f" pos="0 0 1">'
            f'<joint name="{escaped}" type="ball"/><geom size="0.1"/></body></body></worldbody></mujoco>')
    model = load_model(mjcf, "mjcf")
    assert set(model.joints) == {name}
    back = load_model(export_model(model, fmt), fmt, convert_three_revolute_joints_to_spherical=True)
    assert set(back.joints) == {name} and back.joints[name].type is JointType.SPHERICAL


def test_folding_is_off_by_default():
    model = load_model(CHAIN.format(**NAMES))
    assert all(j.type is not JointType.SPHERICAL for j in model.joints.values())


@pytest.mark.parametrize(
    "change, reason",
    [
        (("<link name=\"fake1\"/>", "<link name=\"fake1\"><inertial><mass value=\"0.5\"/></inertial></link>"), "mass"),
        (("<axis xyz=\"0 0 1\"/></joint>\n  <joint name=\"shoulder_z\"",
          "<axis xyz=\"0 0.1 1\"/></joint>\n  <joint name=\"shoulder_z\""), "not perpendicular"),
        (("<origin xyz=\"0.2 0 -0.1\" rpy=\"0 0 0.4\"/>", "<origin xyz=\"0.2 0.3 -0.1\" rpy=\"0 0 0.4\"/>"),
         "axes do not meet"),
    ],
)
def test_chains_that_must_not_fold(change, reason):
    text = CHAIN.format(**NAMES)
    assert change[0] in text
    model = load_model(text.replace(change[0], change[1]), convert_three_revolute_joints_to_spherical=True)
    assert all(j.type is not JointType.SPHERICAL for j in model.joints.values()), reason


_Z = '<inertial><mass value="0"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial>'
_M = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
AT_ORIGIN = f"""<robot name="c">
<link name="a">{_M}</link><link name="f1">{_Z}</link><link name="f2">{_Z}</link><link name="b">{_M}</link>
<link name="tip">{_M}</link>
<joint name="spherical_rev_J_x" type="continuous"><origin rpy="0 0 0.3"/><parent link="a"/><child link="f1"/>
  <axis xyz="1 0 0"/></joint>
<joint name="spherical_rev_J_y" type="continuous"><parent link="f1"/><child link="f2"/><axis xyz="0 1 0"/></joint>
<joint name="spherical_rev_J_z" type="continuous"><parent link="f2"/><child link="b"/><axis xyz="0 0 1"/></joint>
<joint name="tip_joint" type="fixed"><origin xyz="0.2 0.1 0.5"/><parent link="b"/><child link="tip"/></joint>
</robot>"""


def test_matches_idyntree_folding_where_idyntree_is_right():
    """Axes meeting at the parent origin: iDynTree's centre is right there, so both fold alike.

    (iDynTree names the joint `spherical_rev_J`; we fold our exporter's names back to `J`.)
    """
    ours = load_model(AT_ORIGIN, convert_three_revolute_joints_to_spherical=True)
    ref = oracle.load(AT_ORIGIN, fold=True)
    assert set(ref.joints) == {"spherical_rev_J", "tip_joint"}
    assert set(ours.joints) == {"J", "tip_joint"}
    assert set(ours.links) == set(ref.links)
    np.testing.assert_allclose(ours.joints["J"].center, [0, 0, 0], atol=1e-12)
    kin = Kinematics(ours)
    rng = np.random.default_rng(5)
    for _ in range(5):
        q = rng.normal(size=4)
        q /= np.linalg.norm(q)
        mine = kin.world_transforms({"J": q})
        theirs = oracle.world_transforms(ref, {"spherical_rev_J": q})
        for name in ("b", "tip"):
            np.testing.assert_allclose(mine[name], theirs[name], atol=1e-9)


def test_what_a_spherical_joint_cannot_hold_of_the_folded_chain_is_named():
    """Found in review: the fold dropped the three joints' limits and damping without a word (as iDynTree's does),
    and kept a <transmission> and a <gazebo reference> naming the folded joints,
    written to URDF for ros2_control and Gazebo to find no such joint. The limits named are those urdf_parser_py
    reads from the file; our own exports (no limits) fold back without a warning."""
    from urdf_parser_py import urdf as upp

    text = CHAIN.format(**NAMES).replace(
        '<axis xyz="0 0 1"/></joint>', '<axis xyz="0 0 1"/><dynamics damping="0.25"/></joint>', 1).replace(
        "</robot>", '<transmission name="t"><type>transmission_interface/SimpleTransmission</type>'
        '<joint name="shoulder_y"><hardwareInterface>x</hardwareInterface></joint><actuator name="m"/></transmission>'
        '<gazebo reference="fake2"><gravity>false</gravity></gazebo><gazebo reference="j4"/><gazebo><plugin '
        'name="p" filename="p.so"><joint_name>shoulder_z</joint_name><joint_name>j4</joint_name></plugin></gazebo>'
        '</robot>')
    warnings: list[str] = []
    model = load_model(text, format="urdf", convert_three_revolute_joints_to_spherical=True, warnings=warnings)
    assert model.joints["shoulder"].type is JointType.SPHERICAL
    folded = [w for w in warnings if "folded from revolute joints" in w]
    assert len(folded) == 1, warnings
    source = upp.URDF.from_xml_string(text)
    for j in source.joints:
        if j.name.startswith("shoulder_"):
            lim, dyn = j.limit, j.dynamics
            if lim is not None:
                assert f"'{j.name}' (range {lim.lower:g} {lim.upper:g}, effort {lim.effort:g}, velocity " \
                       f"{lim.velocity:g}" in folded[0], (j.name, folded[0])
            if dyn is not None:
                assert f"'{j.name}' (damping {dyn.damping:g}" in folded[0], folded[0]
    dangling = [w for w in warnings if "the folding into spherical joints removed" in w]
    assert len(dangling) == 1 and "3 kept" in dangling[0] and "<transmission> names 'shoulder_y'" in dangling[0] \
        and "<gazebo> names 'fake2'" in dangling[0] and "<gazebo> names 'shoulder_z'" in dangling[0] \
        and "'j4'" not in dangling[0], warnings
    quiet: list[str] = []
    load_model(AT_ORIGIN, convert_three_revolute_joints_to_spherical=True, warnings=quiet)
    assert not [w for w in quiet if "fold" in w], quiet


def test_an_sdf_plugin_naming_a_folded_joint_is_named(tmp_path):
    """Found in review: a model's <plugin> (a joint position controller's <joint_name>) naming a joint the folding
    removed was written back without a word. The file is one libsdformat reads (checked with `ign sdf -k`)."""
    import shutil
    import subprocess

    zero = "<inertial><mass>0</mass><inertia><ixx>0</ixx><iyy>0</iyy><izz>0</izz></inertia></inertial>"
    text = f"""<sdf version="1.9"><model name="m">
 <link name="base"><inertial><mass>1</mass></inertial></link><link name="f1">{zero}</link><link name="f2">{zero}</link>
 <link name="arm"><inertial><mass>1</mass></inertial></link>
 <joint name="s_x" type="revolute"><parent>base</parent><child>f1</child><axis><xyz>1 0 0</xyz></axis></joint>
 <joint name="s_y" type="revolute"><parent>f1</parent><child>f2</child><axis><xyz>0 1 0</xyz></axis></joint>
 <joint name="s_z" type="revolute"><parent>f2</parent><child>arm</child><axis><xyz>0 0 1</xyz></axis></joint>
 <plugin filename="jpc" name="JointPositionController"><joint_name>s_y</joint_name></plugin>
</model></sdf>"""
    path = tmp_path / "m.sdf"
    path.write_text(text)
    if shutil.which("ign"):
        done = subprocess.run(["ign", "sdf", "-k", str(path)], capture_output=True, text=True, timeout=120)
        assert "Valid" in done.stdout, done.stdout + done.stderr
    warnings: list[str] = []
    model = load_model(path, convert_three_revolute_joints_to_spherical=True, warnings=warnings)
    assert model.joints["s"].type is JointType.SPHERICAL
    assert [w for w in warnings if "<plugin> names 's_y'" in w], warnings
