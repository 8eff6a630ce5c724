"""Reduced models against iDynTree's ModelLoader.loadReducedModelFromFullModel, and against the full model.

iDynTree is the reference for lumping (link names, mass, COM, inertia), frames (parents and poses),
sensors and kinematics; the full model's own kinematics checks that every frame of the reduced model
sits where it sat in the full model at the locked positions.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from lxml import etree

from idyntree_models import Kinematics, export_model, load_model, reduce
from idyntree_models.errors import ModelError
from idyntree_models.model import ForceTorqueSensor, JointType, LinkSensor

import idyntree_oracle as oracle
from conftest import OVERFLOW, REPO, model_file

TOL = 1e-9

ICUB_KEEP = [
    "torso_pitch", "torso_roll", "torso_yaw",
    "l_shoulder_pitch", "l_shoulder_roll", "l_elbow", "r_shoulder_pitch", "r_elbow",
    "l_hip_pitch", "l_knee", "l_ankle_pitch", "r_hip_pitch", "r_knee", "r_ankle_pitch",
]
FT_JOINTS = ["l_arm_ft_sensor", "r_arm_ft_sensor", "l_leg_ft_sensor", "r_leg_ft_sensor", "l_foot_ft_sensor",
             "r_foot_ft_sensor"]
LOCKED = {"neck_pitch": 0.3, "l_shoulder_yaw": -0.4, "r_hip_roll": 0.25, "l_ankle_roll": -0.1, "r_shoulder_roll": 0.7}

CASES = {
    "iCubGenova02": ("urdf/idyntree/iCubGenova02.urdf", ICUB_KEEP + FT_JOINTS, LOCKED),
    "iCubGenova02-legs-only": ("urdf/idyntree/iCubGenova02.urdf",
                               ["l_hip_pitch", "l_knee", "r_hip_pitch", "r_knee"], {}),
    "iCubDarmstadt01": ("urdf/idyntree/iCubDarmstadt01.urdf", ICUB_KEEP + FT_JOINTS, LOCKED),
    "icub_sensorised": ("urdf/idyntree/icub_sensorised.urdf", ["torso_yaw", "l_elbow", "r_knee"], {"neck_yaw": 0.5}),
    "iCubGenova04": ("urdf/icub-models/iCubGenova04/model.urdf", ICUB_KEEP + FT_JOINTS, LOCKED),
}


def _close(a, b, tol=TOL) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * max(1.0, np.abs(a).max(initial=0), np.abs(b).max(initial=0))))


@pytest.fixture(scope="module", params=list(CASES), ids=list(CASES))
def case(request):
    rel, keep, locked = CASES[request.param]
    path = model_file(rel)
    full = load_model(path)
    # iDynTree drops a force/torque sensor whose joint is not kept (we keep the joint): list them all
    sensor_joints = [s.parent_joint for s in full.sensors.values() if isinstance(s, ForceTorqueSensor)]
    keep = list(dict.fromkeys([j for j in keep if j in full.joints] + sensor_joints))
    warnings: list[str] = []
    ours = reduce(full, keep, locked, warnings=warnings)
    ref = oracle.reduced(path.read_text(), keep, locked)
    return full, ours, ref, keep, locked, warnings


def test_links_and_inertia_match_idyntree(case):
    _, ours, ref, *_ = case
    assert set(ours.links) == set(ref.links)
    for name, r in ref.links.items():
        i = ours.links[name].inertia
        assert abs(i.mass - r["mass"]) <= TOL * max(1.0, r["mass"]), name
        if r["mass"] > 0:
            assert _close(i.com, r["com"]), name
        assert _close(i.inertia, r["inertia"]), (name, i.inertia, r["inertia"])


def test_frames_match_idyntree(case):
    _, ours, ref, *_ = case
    assert set(ours.frames) == set(ref.frames)
    for name, parent in ref.frames.items():
        assert ours.frames[name].parent_link == parent, name
        assert _close(ours.frames[name].link_H_frame, ref.frame_transforms[name]), name


def test_joints_and_sensors_match_idyntree(case):
    _, ours, ref, keep, *_ = case
    assert set(ours.joints) == set(ref.joints) == set(keep)
    for name, r in ref.joints.items():
        j = ours.joints[name]
        assert {j.parent, j.child} == r["links"] and j.dofs == r["dofs"], name
    assert set(ours.sensors) == set(ref.sensors)
    for name, r in ref.sensors.items():
        s = ours.sensors[name]
        if r["type"] == "force_torque":
            assert isinstance(s, ForceTorqueSensor)
            for attr in ("parent_joint", "first_link", "second_link", "applied_wrench_link"):
                assert getattr(s, attr) == r[attr], (name, attr)
            assert _close(s.first_link_H_sensor, r["first_link_H_sensor"]), name
            assert _close(s.second_link_H_sensor, r["second_link_H_sensor"]), name
        else:
            assert isinstance(s, LinkSensor) and s.parent_link == r["parent_link"], name
            assert _close(s.link_H_sensor, r["link_H_sensor"]), name


def test_kinematics_match_idyntree(case):
    _, ours, ref, keep, *_ = case
    kin = Kinematics(ours)
    rng = np.random.default_rng(1)
    for _ in range(5):
        config = {j: float(rng.uniform(-1.5, 1.5)) for j in keep if ours.joints[j].dofs == 1}
        theirs = oracle.world_transforms(ref, config)
        mine = kin.world_transforms(config)
        bad = [n for n in theirs if not _close(mine[n], theirs[n])]
        assert not bad, bad[:10]


def test_every_full_frame_is_where_the_full_model_puts_it(case):
    """Independent of iDynTree: reduced kinematics == full kinematics with the locked joints at their values."""
    full, ours, _, keep, locked, _ = case
    kf, kr = Kinematics(full), Kinematics(ours)
    rng = np.random.default_rng(2)
    for _ in range(3):
        config = {j: float(rng.uniform(-1.5, 1.5)) for j in keep if full.joints[j].dofs == 1}
        wf = kf.world_transforms({**locked, **config})
        wr = kr.world_transforms(config)
        assert set(wr) == set(wf)
        bad = [n for n in wf if not _close(wr[n], wf[n])]
        assert not bad, bad[:10]
    mass_full = sum(lk.inertia.mass for lk in full.links.values())
    assert abs(sum(lk.inertia.mass for lk in ours.links.values()) - mass_full) < 1e-9


def test_ft_sensor_joints_are_kept_unless_asked_to_drop_them():
    path = model_file("urdf/idyntree/iCubGenova02.urdf")
    full = load_model(path)
    warnings: list[str] = []
    kept = reduce(full, ICUB_KEEP, LOCKED, warnings=warnings)
    assert set(kept.sensors) == set(full.sensors)
    assert {j for j in kept.joints if kept.joints[j].type is JointType.FIXED} == set(FT_JOINTS)
    assert len(warnings) == len(FT_JOINTS) and all("kept as a fixed joint" in w for w in warnings)
    # same model as iDynTree's when the sensor joints are listed explicitly
    ref = oracle.reduced(path.read_text(), ICUB_KEEP + FT_JOINTS, LOCKED)
    assert set(kept.links) == set(ref.links)
    for name, r in ref.links.items():
        assert _close(kept.links[name].inertia.inertia, r["inertia"]), name
    # iDynTree's behaviour, but said out loud
    warnings = []
    dropped = reduce(full, ICUB_KEEP, LOCKED, keep_sensor_joints=False, warnings=warnings)
    ref = oracle.reduced(path.read_text(), ICUB_KEEP, LOCKED)
    assert set(dropped.sensors) == set(ref.sensors) == set()
    assert set(dropped.links) == set(ref.links)
    assert len([w for w in warnings if "dropped" in w]) == len(FT_JOINTS)
    # (and what the file wrote on those joints is named: their <dynamics>; and the <gazebo> blocks about them, kept
    # as written, counted in the file here)
    about = [g for g in etree.parse(str(path)).getroot().iter("gazebo") if g.get("reference") in FT_JOINTS]
    assert len(about) == 2 * len(FT_JOINTS)
    assert [w for w in warnings if "dropped" not in w] == [
        w for w in warnings if w.startswith(f"{len(about)} kept source element(s) are written as they are but name "
                                            "joint(s) locked")] + [
        w for w in warnings if w.startswith(f"{len(FT_JOINTS)} kept source element(s) belong to a joint locked")]


def test_input_model_is_not_changed():
    full = load_model(model_file("urdf/idyntree/iCubGenova02.urdf"))
    before = full.copy()
    reduce(full, ICUB_KEEP, LOCKED)
    from model_compare import model_differences

    assert model_differences(full, before, kinematics_samples=1) == []


@pytest.mark.parametrize("keep, locked, message", [
    (["nope"], {}, "cannot keep joint(s) 'nope'"),
    (["torso_yaw"], {"nope": 0.1}, "cannot lock joint 'nope'"),
    (["torso_yaw"], {"torso_yaw": 0.1}, "both kept and locked"),
    (["torso_yaw"], {"torso_pitch": "a lot"}, "locked with one number"),
    (["torso_yaw"], {"torso_pitch": float("nan")}, "non-finite"),
])
def test_bad_requests_are_clear_errors(keep, locked, message):
    full = load_model(model_file("urdf/idyntree/iCubGenova02.urdf"))
    with pytest.raises(ModelError, match=None) as e:
        reduce(full, keep, locked)
    assert message in str(e.value)


DEMO = REPO / "idyntree_models" / "data" / "demo_arm.urdf"


def test_mimic_relations_and_spherical_joints():
    full = load_model(DEMO)
    mimics = [j for j in full.joints.values() if j.mimic is not None]
    spherical = [j.name for j in full.joints.values() if j.type is JointType.SPHERICAL]
    assert mimics and spherical
    follower, master = mimics[0].name, mimics[0].mimic.joint
    with pytest.raises(ModelError, match="mimics"):
        reduce(full, [master])
    # lock the master: the follower follows it; lock the spherical joint with a quaternion
    q = np.array([0.9, 0.1, -0.3, 0.2])
    q /= np.linalg.norm(q)
    locked = {master: 0.4, spherical[0]: q}
    keep = [j.name for j in full.joints.values() if j.dofs and j.name not in (master, follower, spherical[0])]
    ours = reduce(full, keep, locked)
    wf = Kinematics(full).world_transforms(locked)
    wr = Kinematics(ours).world_transforms({})
    assert all(_close(wr[n], wf[n]) for n in wf)
    with pytest.raises(ModelError, match="locked at"):
        reduce(full, keep, {**locked, follower: 123.0})
    with pytest.raises(ModelError, match="quaternion"):
        reduce(full, keep, {spherical[0]: 0.3})


def test_convert_cli_keep_and_lock(tmp_path):
    """idyntree-model-convert --keep-joints/--lock writes the reduced model (checked against iDynTree)."""
    path = model_file("urdf/idyntree/iCubGenova02.urdf")
    out = tmp_path / "reduced.urdf"
    keep = ICUB_KEEP + FT_JOINTS
    args = [sys.executable, "-m", "idyntree_models.cli", "-i", str(path), "-o", str(out), "-q",
            "--keep-joints", ",".join(keep)] + [a for k, v in LOCKED.items() for a in ("--lock", f"{k}={v}")]
    done = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    back = load_model(out)
    ref = oracle.reduced(path.read_text(), keep, LOCKED)
    assert set(back.links) == set(ref.links)
    assert set(back.joints) == set(keep)
    for name, r in ref.links.items():
        assert _close(back.links[name].inertia.mass, r["mass"]) and _close(back.links[name].inertia.inertia, r["inertia"])
    bad = subprocess.run(args[:-2] + ["--lock", "torso_pitch"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1 and "JOINT=VALUE" in bad.stderr and "Traceback" not in bad.stderr


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("keep, locked, message", [
    # 3 rad times a multiplier of 1e308
    ([], {"shoulder": 3.0}, "joint 'finger_joint' mimics 'shoulder' (multiplier 1e+308, offset 0.0): at the position "
                            "of 'shoulder' its own position is not finite"),
    # 1e308 m along an axis from an origin at 1e308 m
    ([], {"slide": 1e308}, "locked at the given positions, joint(s) slide have a non-finite pose"),
    # every pose finite, but the lumped link's inertia about its centre of mass is not: a mass 1e308 m away
    ([], {"shoulder": 0.5}, "the reduced model is not valid: inertial values must be finite numbers"),
])
def test_locked_positions_that_overflow_are_refused(tmp_path, keep, locked, message):
    """Finite locked positions can still overflow; the reduced model must be refused, not returned with NaN
    and inf poses and inertias (which the node would publish on /tf_static and exporters refuse with a
    message about a link the user never wrote)."""
    full = load_model(OVERFLOW)
    with pytest.raises(ModelError) as e:
        reduce(full, keep, locked)
    assert message in str(e.value)
    # positions that do not overflow reduce as usual (the mimic: 5e307 rad)
    ours = reduce(full, ["slide"], {"shoulder": 0.5})
    assert set(ours.links) == {"base", "slider"} and set(ours.joints) == {"slide"}
    done = subprocess.run([sys.executable, "-m", "idyntree_models.cli", "-i", str(OVERFLOW), "-o", str(tmp_path / "r.urdf"),
                           "--keep-joints", ",".join(keep)] + [a for k, v in locked.items() for a in ("--lock", f"{k}={v}")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and message in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert not (tmp_path / "r.urdf").exists()


_FAR_MASSLESS_URDF = """<robot name="r">
 <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="b"/><link name="c"/><link name="d"/>
 <joint name="f" type="fixed"><parent link="a"/><child link="b"/><origin xyz="1e200 0 0"/></joint>
 <joint name="k2" type="revolute"><parent link="b"/><child link="d"/><axis xyz="0 0 1"/>
   <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
 <joint name="k" type="revolute"><parent link="a"/><child link="c"/><axis xyz="0 0 1"/>
   <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""

_KEPT_MIMIC_URDF = """<robot name="r">
 <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="b"/><link name="c"/><link name="d"/>
 <joint name="j" type="prismatic"><parent link="a"/><child link="b"/><axis xyz="1 0 0"/>
   <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
 <joint name="m" type="prismatic"><parent link="b"/><child link="c"/><origin xyz="1e308 0 0"/><axis xyz="1 0 0"/>
   <limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="j" multiplier="1" offset="1e308"/></joint>
 <joint name="k" type="revolute"><parent link="a"/><child link="d"/><axis xyz="0 0 1"/>
   <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>
"""

_FAR_BALL_URDF = """<robot name="r">
 <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <link name="c"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
 <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
   <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
 <joint name="s" type="spherical"><parent link="b"/><child link="c"/></joint>
</robot>
"""


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_what_is_far_but_finite_reduces_as_usual_and_what_overflows_is_refused():
    """Three cases a review found after the overflow checks: a massless link 1e200 m away adds nothing to
    a lumped inertia (0 * inf was NaN once its squared distance overflowed); a kept joint is not at a
    lock, so its pose at zero (a mimic follower at its offset, 2e308 m) is no reason to refuse; a ball
    joint whose centre, moved onto the lumped link, is past the largest double is refused."""
    far = load_model(_FAR_MASSLESS_URDF, "urdf")
    lumped = reduce(far, ["k"], {}).links["a"].inertia
    assert lumped.mass == 1.0 and np.array_equal(lumped.com, np.zeros(3)) and np.array_equal(lumped.inertia, np.eye(3))
    kept = reduce(load_model(_KEPT_MIMIC_URDF, "urdf"), ["j", "m"], {"k": 0.5})
    assert set(kept.joints) == {"j", "m"}
    ball = load_model(_FAR_BALL_URDF, "urdf")
    ball.joints["s"].center = np.array([1.7e308, 1.7e308, 0.0])  # as an iDynTree JSON joint_center_wrt_parent can say
    with pytest.raises(ModelError, match="joint 's'.*spherical joint centre is not finite"):
        reduce(ball, ["s"], {"j": 0.7854})  # 45 degrees: the centre moves to y = 2.4e308


def test_what_the_source_holds_beyond_the_model_goes_with_what_holds_it():
    """reduce dropped every kept element of the source (<transmission>, <gazebo>, a shape's attributes) without a
    word. Now they stay on what still holds them: a lumped link's visual is its group's, after the group's own; a
    locked joint's elements are named; a top-level <transmission> of a locked joint is kept and named; the lumped
    link is written back under its locked joint's name."""
    inertial = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    box = '<geometry><box size="1 1 1"/></geometry>'
    text = f"""<robot name="r">
  <link name="a">{inertial}</link>
  <link name="b">{inertial}<visual>{box}</visual></link>
  <link name="c">{inertial}<visual shade="dark">{box}</visual></link>
  <joint name="j1" type="continuous"><parent link="a"/><child link="b"/></joint>
  <joint name="j2" type="continuous"><parent link="b"/><child link="c"/><calibration rising="0"/></joint>
  <link name="tool"><visual name="tv" foo="bar">{box}<extra_tag/></visual></link>
  <joint name="tool_joint" type="fixed"><parent link="a"/><child link="tool"/></joint>
  <transmission name="t2"><joint name="j2"/></transmission>
  <gazebo reference="b"><mu1>0.5</mu1></gazebo>
  <gazebo><plugin name="p" filename="libp.so"><joint_name> j2 </joint_name><joint_name>j1</joint_name></plugin></gazebo>
</robot>"""
    warnings: list[str] = []
    reduced = reduce(load_model(text, "urdf"), ["j1"], warnings=warnings)
    assert warnings == ["2 kept source element(s) are written as they are but name joint(s) locked or link(s) lumped "
                        "by the reduction: <transmission> (j2), <gazebo> (j2)",
                        "1 kept source element(s) belong to a joint locked or a link lumped by the reduction and are "
                        "not in the reduced model: <calibration> of joint 'j2'"]
    out = etree.fromstring(export_model(reduced, "urdf").encode())
    visuals = out.findall("link[@name='b']/visual")
    assert [v.get("shade") for v in visuals] == [None, "dark"]  # c's visual, now b's second
    assert out.find("transmission[@name='t2']") is not None and out.find("gazebo[@reference='b']") is not None
    assert out.find("joint[@name='j2']").get("type") == "fixed" and out.find("joint[@name='j2']/calibration") is None
    # a massless link that is a frame keeps what its shape held (it was said lost, though nothing was lumped)
    tool = out.find("link[@name='tool']/visual[@name='tv']")
    assert tool.get("foo") == "bar" and tool.find("extra_tag") is not None



def test_a_joint_locked_outside_its_limits_is_named() -> None:
    """A lock no robot can take (a typo, degrees for radians) gave no word; within the limits, none is said."""
    inertia = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    text = (f'<robot name="r"><link name="a">{inertia}</link><link name="b">{inertia}</link><link name="c">{inertia}</link>'
            '<link name="d">' + inertia + '</link>'
            '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
            '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>'
            '<limit lower="-0.5" upper="0.5" effort="1" velocity="1"/><mimic joint="j1" multiplier="-2" offset="0.3"/></joint>'
            '<joint name="j3" type="prismatic"><parent link="c"/><child link="d"/><axis xyz="1 0 0"/>'
            '<limit lower="0.1" upper="0.2" effort="1" velocity="1"/></joint></robot>')
    model = load_model(text)
    warnings: list[str] = []
    reduce(model, [], {"j1": 2.0}, warnings=warnings)
    said = [w for w in warnings if "outside its limits" in w]
    assert "joint 'j1' is locked at 2.0 (given), outside its limits [-1.0, 1.0]" in said
    assert "joint 'j2' is locked at -3.7 (mimicking its master), outside its limits [-0.5, 0.5]" in said
    assert "joint 'j3' is locked at 0.0 (by default), outside its limits [0.1, 0.2]" in said
    warnings = []
    reduce(model, [], {"j1": 0.1, "j3": 0.15}, warnings=warnings)
    assert not [w for w in warnings if "outside its limits" in w], warnings


def test_strict_refuses_a_reduction_that_needed_a_warning(tmp_path) -> None:
    """--strict turns every warning into an error (README); the reduction's were printed and the file written."""
    inertia = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    src = tmp_path / "lim.urdf"
    src.write_text(f'<robot name="r"><link name="a">{inertia}</link><link name="b">{inertia}</link><link name="c">{inertia}</link>'
                   '<joint name="j1" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
                   '<limit lower="0.5" upper="1" effort="1" velocity="1"/></joint>'
                   '<joint name="j2" type="revolute"><parent link="b"/><child link="c"/><axis xyz="0 0 1"/>'
                   '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>')
    with pytest.raises(ModelError, match=r"j1' is locked at 0.0 \(by default\), outside.*\(strict"):
        reduce(load_model(src), ["j2"], strict=True)
    out = tmp_path / "r.urdf"
    for tool, target in (("cli", ["-i", str(src), "-o", str(out)]), ("info_cli", [str(src)])):
        done = subprocess.run([sys.executable, "-m", f"idyntree_models.{tool}", *target, "--strict", "--keep-joints", "j2"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 1 and "lim.urdf: joint 'j1' is locked at 0.0" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
    assert not out.exists()
    within = subprocess.run([sys.executable, "-m", "idyntree_models.cli", "-i", str(src), "-o", str(out), "--strict",
                             "--keep-joints", "j2", "--lock", "j1=0.7"], capture_output=True, text=True, timeout=120)
    assert within.returncode == 0 and out.exists(), within.stderr


def test_a_force_torque_sensor_across_a_joint_fixed_at_its_lock_agrees_with_that_joint() -> None:
    """Its two poses were the joint's rest ones while the joint was kept fixed at the lock: our own JSON reader
    refused the export ("first_link_H_sensor and second_link_H_sensor disagree with the rest transform")."""
    inertia = '<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>'
    text = (f'<robot name="r"><link name="base">{inertia}</link><link name="arm">{inertia}</link>'
            '<joint name="j" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.5"/>'
            '<axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>'
            + "".join(f'<sensor name="ft_{f}" type="force_torque"><parent joint="j"/><force_torque><frame>{f}</frame>'
                      "<measure_direction>child_to_parent</measure_direction></force_torque></sensor>"
                      for f in ("parent", "child")) + "</robot>")
    model = load_model(text)
    reduced = reduce(model, [], {"j": 1.0})
    joint = reduced.joints["j"]
    assert joint.type is JointType.FIXED
    for name in ("ft_parent", "ft_child"):
        s, before = reduced.sensors[name], model.sensors[name]
        np.testing.assert_allclose(joint.rest_transform @ s.second_link_H_sensor, s.first_link_H_sensor, atol=1e-12)
        kept = "first_link_H_sensor" if name == "ft_parent" else "second_link_H_sensor"  # the link its frame is on
        np.testing.assert_allclose(getattr(s, kept), getattr(before, kept), atol=1e-12)
    back = load_model(export_model(reduced, "idyntree-model-json"), format="idyntree-model-json")
    assert set(back.sensors) == {"ft_parent", "ft_child"}


def test_keeping_a_revolute_of_the_urdf_form_of_a_spherical_joint_says_which_joint_to_keep() -> None:
    """The node's description and /tf name a spherical joint's three revolutes; reduced_joints takes the model's."""
    model = load_model(REPO / "idyntree_models/data/demo_arm.urdf")
    with pytest.raises(ModelError, match="one of the three revolutes URDF writes for spherical joint 'shoulder': keep 'shoulder'"):
        reduce(model, ["spherical_rev_shoulder_y"])
    assert "shoulder" in reduce(model, ["shoulder"]).joints
