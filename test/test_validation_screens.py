"""The all-at-once screens of model/validation.py never let through what the exact check refuses or warns about.

validate() runs check_inertia only on the links `_inertia_suspects` singles out (numpy over all links at
once); a link the screen misses would lose its warning or error.  The exact per-element checks
(check_inertia, transforms.is_rotation) are the reference here, on every corpus model and on random
inertias and rotations placed on and around each threshold.
"""

from __future__ import annotations

import logging
import math
from types import SimpleNamespace

import numpy as np
import pytest

from idyntree_models import ModelError, load_model
from idyntree_models.model import validation
from idyntree_models.model.transforms import is_rotation, rpy_xyz_to_transform
from idyntree_models.model.validation import check_inertia

from conftest import corpus_files

FILES = corpus_files("urdf", "*.urdf") + corpus_files("sdf", "*.sdf") + corpus_files("skel", "*.skel")


def _verdict(mass, com, inertia) -> bool:
    """True when check_inertia refuses or warns."""
    try:
        return bool(check_inertia(mass, com, inertia, "link 'x'"))
    except ModelError:
        return True


def _link(mass, com, inertia):
    return SimpleNamespace(inertia=SimpleNamespace(mass=mass, com=np.asarray(com, dtype=float),
                                                   inertia=np.asarray(inertia, dtype=float)))


def test_screen_on_the_corpus():
    logging.disable(logging.WARNING)
    try:
        checked = 0
        for path in FILES:
            try:
                model = load_model(path)
            except ModelError:
                continue
            links = list(model.links.values())
            suspects = set(validation._inertia_suspects(links))
            for k, lk in enumerate(links):
                if _verdict(lk.inertia.mass, lk.inertia.com, lk.inertia.inertia):
                    assert k in suspects, (path, lk.name)
            for joint in model.joints.values():
                assert is_rotation(joint.rest_transform[:3, :3]), (path, joint.name)
            checked += 1
    finally:
        logging.disable(logging.NOTSET)
    assert checked > 20


@pytest.mark.parametrize("seed", range(4))
def test_inertia_screen_around_the_thresholds(seed):
    rng = np.random.default_rng(seed)
    flagged = 0
    for _ in range(3000):
        a = rng.normal(size=(3, 3))
        inertia = a @ a.T * 10 ** rng.uniform(-9, 4)
        kind = rng.integers(5)
        if kind == 0:  # indefinite by an amount around the warning and error thresholds
            inertia[0, 0] -= rng.uniform(0, 2) * np.abs(inertia).max() * 10 ** rng.uniform(-12, 0)
        elif kind == 1:  # asymmetric around the tolerance
            inertia[0, 1] += 10 ** rng.uniform(-12, -7) * max(1.0, np.abs(inertia).max())
        elif kind == 2:  # a rod: on the triangle inequality
            e = np.sort(rng.uniform(0, 1, 3))
            e[2] = e[0] + e[1] + rng.normal() * 10 ** rng.uniform(-9, -4)
            q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
            inertia = q @ np.diag(e) @ q.T
        elif kind == 3:
            inertia[rng.integers(3), rng.integers(3)] = rng.choice([np.nan, np.inf, 1e30, 1e200])
        mass = float(rng.choice([1.0, 0.0, -1e-300, np.nan]))
        com = rng.normal(size=3)
        if _verdict(mass, com, inertia):
            flagged += 1
            assert validation._inertia_suspects([_link(mass, com, inertia)]) == [0], (mass, inertia)
    assert flagged > 300  # the thresholds were really crossed


def test_gershgorin_shortcut_gives_the_eigenvalue_verdict(monkeypatch):
    """Above GERSHGORIN_ABOVE links the screen skips eigenvalues for tensors whose Gershgorin discs pass;
    its verdict on a batch must be the verdict of the eigenvalues alone (the screen off) on each tensor."""
    rng = np.random.default_rng(11)
    links = []
    for k in range(6000):
        e = np.sort(rng.uniform(0, 1, 3))
        kind = k % 5
        if kind == 0:  # physical: a rotated body
            e[2] = min(e[2], e[0] + e[1])
        elif kind in (1, 4):  # on the triangle inequality, either side (4: in principal axes, where the
            e[2] = e[0] + e[1] + rng.normal() * 10 ** rng.uniform(-12, -4)  # discs are the exact test)
        elif kind == 2:  # a principal moment around zero
            e[0] = rng.normal() * 10 ** rng.uniform(-13, -6)
        q = np.eye(3)[rng.permutation(3)] if kind == 4 else np.linalg.qr(rng.normal(size=(3, 3)))[0]
        inertia = q @ np.diag(e) @ q.T * 10 ** rng.uniform(-9, 6)
        inertia = 0.5 * (inertia + inertia.T)
        links.append(_link(1.0, np.zeros(3), inertia))
    assert len(links) > validation.GERSHGORIN_ABOVE
    batch = set(validation._inertia_suspects(links))
    monkeypatch.setattr(validation, "GERSHGORIN_ABOVE", len(links))  # every tensor's eigenvalues
    assert set(validation._inertia_suspects(links)) == batch
    one = {k for k, lk in enumerate(links) if validation._inertia_suspects([lk]) == [0]}
    assert batch == one
    assert 500 < len(batch) < 4000  # both verdicts really occur


def test_the_first_problem_in_document_order_is_reported():
    """Sizes are checked a kind of shape at a time and names by set operations; the message is still
    the first problem in the order of the links, shapes and names."""
    from idyntree_models.model.model import Box, Frame, Sphere

    model = load_model('<robot name="r"><link name="a"/><link name="b"/><joint name="j" type="fixed">'
                       '<parent link="a"/><child link="b"/></joint></robot>', "urdf")
    model.links["a"].visuals += [Sphere(np.eye(4), "s", radius=math.inf), Box(np.eye(4), "b", size=[math.inf, 1, 1])]
    with pytest.raises(ModelError, match="sphere radius is not finite"):
        validation.validate(model)
    model.links["a"].visuals.clear()
    model.frames["a"] = Frame("a", "b", np.eye(4))
    model.frames[""] = Frame("", "b", np.eye(4))
    with pytest.raises(ModelError, match="name 'a' is used by a link and a frame"):
        validation.validate(model)


def test_rest_transform_check_matches_is_rotation():
    """validate() judges all rest transforms at once; its verdict is is_rotation's, element by element."""
    rng = np.random.default_rng(1)
    model = load_model(corpus_files("urdf", "*.urdf")[0])
    joint = next(iter(model.joints.values()))
    for _ in range(2000):
        t = rpy_xyz_to_transform(rng.uniform(-3, 3, 3).tolist(), rng.normal(size=3).tolist())
        t[rng.integers(3), rng.integers(3)] += rng.choice([0.0, 1.0]) * 10 ** rng.uniform(-9, -4)
        joint.rest_transform = t
        try:
            validation._check_joint_frames(model)
            ok = True
        except ModelError as e:
            assert "rest transform" in str(e)
            ok = False
        assert ok == is_rotation(t[:3, :3])


def test_check_inertia_refuses_what_is_no_3x3_tensor_and_reads_any_com_shape():
    with pytest.raises(ModelError, match=r"must be a 3x3 matrix, got shape \(9,\)"):
        check_inertia(1.0, np.zeros(3), np.eye(3).ravel(), "link 'x'")
    with pytest.raises(ModelError, match=r"must be a 3x3 matrix, got shape \(1, 3, 3\)"):
        check_inertia(1.0, np.zeros(3), np.eye(3)[None], "link 'x'")
    # the com as a column or a list is read as its three numbers; a NaN in it is refused whatever its shape
    assert check_inertia(1.0, np.zeros((3, 1)), np.eye(3), "link 'x'") == []
    assert check_inertia(1.0, [0.0, 0.0, 0.0], np.eye(3).tolist(), "link 'x'") == []
    with pytest.raises(ModelError, match="must be finite"):
        check_inertia(1.0, np.array([[0.0], [math.nan], [0.0]]), np.eye(3), "link 'x'")


def test_a_sensor_frame_equal_to_its_existing_frame_is_no_clash_even_with_infinities():
    from idyntree_models.model.model import Frame, Link, LinkSensor, Model
    from idyntree_models.model.spherical import add_sensor_frames

    pose = np.eye(4)
    pose[0, 3] = math.inf  # np.allclose's rule: equal infinities are close (validation refuses them later)
    m = Model(links={"a": Link("a")}, frames={"imu": Frame("imu", "a", pose.copy())},
              sensors={"imu": LinkSensor("imu", parent_link="a", link_H_sensor=pose.copy())})
    assert add_sensor_frames(m) == []
    m.sensors["imu"].link_H_sensor[1, 3] = 2e-12  # beyond 1e-12: a different frame under the same name
    assert add_sensor_frames(m) == ["imu"]


def test_limits_dynamics_and_mimic_values_that_are_no_numbers_are_refused():
    """validate() let a NaN limit pass (a model built in code), and the MJCF reader loaded one from its extras
    (`[NaN, 1]`): a model that then no exporter could write."""
    import logging

    from idyntree_models import export_model, load_model
    from idyntree_models.errors import ModelError
    from idyntree_models.model.validation import validate

    from conftest import DEMO

    logging.disable(logging.WARNING)
    try:
        for field in ("min_position", "effort_limit", "velocity_limit"):
            model = load_model(DEMO / "demo_arm.urdf")
            setattr(model.joints["elbow"].limits, field, float("nan"))
            with pytest.raises(ModelError, match="joint 'elbow': a limit, dynamics or mimic value is not a number"):
                validate(model)
        model = load_model(DEMO / "demo_arm.urdf")
        model.joints["finger_right_joint"].mimic.multiplier = float("nan")
        with pytest.raises(ModelError, match="finger_right_joint"):
            validate(model)
        model = load_model(DEMO / "demo_arm.urdf")
        model.joints["elbow"].limits.min_position = model.joints["elbow"].limits.max_position = 0.2  # (kept in extras)
        text = export_model(model, "mjcf")
        kept = "&quot;elbow&quot;: [0.2, 0.2]"  # (the extras are JSON in an XML attribute)
        assert kept in text
        with pytest.raises(ModelError, match="position_limits"):
            load_model(text.replace(kept, "&quot;elbow&quot;: [NaN, 0.2]"), "mjcf")
    finally:
        logging.disable(logging.NOTSET)


def test_one_stacked_pose_check_reports_as_the_separate_checks_did():
    """validate() judges rest transforms and other poses in one array: a bad joint is still reported before a bad
    frame, each with its own element, and joint axes are still checked and normalised behind the unit-axis test."""
    from idyntree_models.model.model import Frame

    def arm():
        return load_model('<robot name="r"><link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" '
                          'ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link><link name="b"><inertial><mass '
                          'value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial></link>'
                          '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
                          '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>', "urdf")

    skewed = np.eye(4)
    skewed[0, 1] = 1e-3
    model = arm()
    model.frames["f"] = Frame("f", "a", skewed.copy())
    model.joints["j"].rest_transform = skewed.copy()
    with pytest.raises(ModelError, match="rest transform") as e:
        validation.validate(model)
    assert e.value.element == "joint 'j'"
    model.joints["j"].rest_transform = np.eye(4)
    with pytest.raises(ModelError, match="not a finite rigid transform") as e:
        validation.validate(model)
    assert e.value.element == "frame 'f'"
    del model.frames["f"]
    model.joints["j"].axis = np.array([0.0, 0.0, 2.0])  # a model built in code: made a unit vector
    validation.validate(model)
    assert model.joints["j"].axis.tolist() == [0.0, 0.0, 1.0]
    for axis, message in (([0.0, math.nan, 1.0], "must be finite"), ([0.0, 0.0, 0.0], "zero length")):
        model.joints["j"].axis = np.array(axis)
        with pytest.raises(ModelError, match=message):
            validation.validate(model)


@pytest.mark.parametrize("first,second", [("torso_yaw", "elbow"), ("elbow", "finger_left_joint")])
@pytest.mark.parametrize("problem,message", [
    ("upper nan", "a limit, dynamics or mimic value is not a number"),
    ("lower above upper", "lower position limit 1.0 is above the upper limit -1.0"),
    ("damping nan", "a limit, dynamics or mimic value is not a number"),
    ("velocity nan", "a limit, dynamics or mimic value is not a number"),
    ("effort nan", "a limit, dynamics or mimic value is not a number"),
    ("mimic of a mimic", "which itself mimics"),
])
def test_joint_checks_of_the_one_pass_report_the_first_joint_in_order(first, second, problem, message):
    """validate() gathers the joints' values in one pass and checks limits, NaNs and mimics only on the joints it
    singled out: the error is the one a check of every joint in the model's order gives, for the first joint."""
    from idyntree_models.model.model import Dynamics, Mimic

    from conftest import DEMO

    model = load_model(DEMO / "demo_arm.urdf")
    for name in (second, first):  # both broken: the first in the model's order is named
        joint = model.joints[name]
        if problem == "upper nan":
            joint.limits.max_position = float("nan")
        elif problem == "lower above upper":
            joint.limits.min_position, joint.limits.max_position = 1.0, -1.0
        elif problem == "damping nan":
            joint.dynamics = Dynamics(float("nan"), 0.0)
        elif problem == "velocity nan":
            joint.limits.velocity_limit = float("nan")
        elif problem == "effort nan":
            joint.limits.effort_limit = float("nan")
        else:
            joint.mimic = Mimic("finger_right_joint")  # which mimics finger_left_joint
    if problem == "mimic of a mimic" and "finger_left_joint" in (first, second):
        pytest.skip("finger_left_joint is the joint finger_right_joint mimics")
    with pytest.raises(ModelError, match=f"joint '{first}'") as e:
        validation.validate(model)
    assert message in str(e.value)


def test_lower_above_upper_without_position_limits_passes():
    """A continuous joint keeps lower/upper as the file had them (no position limits): not refused."""
    from conftest import DEMO

    model = load_model(DEMO / "demo_arm.urdf")
    lim = model.joints["elbow"].limits
    lim.has_position_limits, lim.min_position, lim.max_position = False, 1.0, -1.0
    validation.validate(model)


def test_a_joint_type_given_as_a_string_is_checked():
    """A model built in code may give the type as its value ("revolute"): its axis is judged as the enum's."""
    from conftest import DEMO

    model = load_model(DEMO / "demo_arm.urdf")
    joint = model.joints["elbow"]
    joint.type = "revolute"
    joint.axis = np.array([np.nan, 0.0, 1.0])
    with pytest.raises(ModelError, match="joint 'elbow': joint axis must be finite"):
        validation.validate(model)
