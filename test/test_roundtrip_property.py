"""Property-based round trips: random valid trees with every joint type, sensor and shape, through URDF and JSON."""

from __future__ import annotations

import os

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from idyntree_models.api import export_model, load_model
from idyntree_models.model.model import (
    Box,
    Cylinder,
    Dynamics,
    ForceTorqueSensor,
    Frame,
    Inertia,
    Joint,
    JointType,
    Limits,
    Link,
    LinkSensor,
    Material,
    Mesh,
    Mimic,
    Model,
    SensorType,
    Sphere,
)
from idyntree_models.model.spherical import add_sensor_frames
from idyntree_models.model.transforms import inverse, make_transform, quat_to_matrix

from model_compare import assert_models_equal

real = st.floats(-5.0, 5.0, allow_nan=False, allow_infinity=False)
positive = st.floats(1e-3, 10.0, allow_nan=False, allow_infinity=False)


@st.composite
def transforms(draw) -> np.ndarray:
    q = np.array(draw(st.lists(real, min_size=4, max_size=4)))
    if np.linalg.norm(q) < 1e-3:
        q = np.array([1.0, 0.0, 0.0, 0.0])
    special = draw(st.sampled_from([None, None, None, "identity", "gimbal"]))
    if special == "identity":
        rot = np.eye(3)
    elif special == "gimbal":  # pitch exactly +-90 degrees
        rot = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]) @ quat_to_matrix([1.0, q[1], 0.0, 0.0])
    else:
        rot = quat_to_matrix(q)
    return make_transform(rot, draw(st.lists(real, min_size=3, max_size=3)))


@st.composite
def unit_vectors(draw) -> np.ndarray:
    v = np.array(draw(st.lists(real, min_size=3, max_size=3)))
    if np.linalg.norm(v) < 1e-3:
        v = np.array([0.0, 0.0, 1.0])
    return v / np.linalg.norm(v)


@st.composite
def inertias(draw) -> Inertia:
    moments = sorted(draw(st.lists(positive, min_size=3, max_size=3)))
    if moments[0] + moments[1] < moments[2]:
        moments[2] = moments[0] + moments[1]
    rot = draw(transforms())[:3, :3]
    return Inertia(draw(positive), draw(st.lists(real, min_size=3, max_size=3)), rot @ np.diag(moments) @ rot.T)


@st.composite
def materials(draw) -> Material | None:
    kind = draw(st.sampled_from(["none", "color", "texture", "both"]))
    if kind == "none":
        return None
    color = np.array(draw(st.lists(st.floats(0, 1), min_size=4, max_size=4))) if kind != "texture" else None
    texture = "package://robot/tex.png" if kind != "color" else None
    return Material(draw(st.sampled_from(["red", "skin", "m&m"])), color, texture)


@st.composite
def shapes(draw):
    pose = draw(transforms())
    name = draw(st.sampled_from([None, "geom", "a b"]))
    mat = draw(materials())
    kind = draw(st.sampled_from(["box", "sphere", "cylinder", "mesh"]))
    if kind == "box":
        return Box(pose, name, mat, size=np.array(draw(st.lists(positive, min_size=3, max_size=3))))
    if kind == "sphere":
        return Sphere(pose, name, mat, radius=draw(positive))
    if kind == "cylinder":
        return Cylinder(pose, name, mat, radius=draw(positive), length=draw(positive))
    return Mesh(pose, name, mat, filename="package://robot/meshes/part.stl",
                scale=np.array(draw(st.lists(positive, min_size=3, max_size=3))))


JOINT_KINDS = ["fixed", "revolute", "continuous", "prismatic", "spherical", "spherical_offset"]


@st.composite
def models(draw) -> Model:
    m = Model(name=draw(st.sampled_from(["robot", "my robot", "r<&>"])))
    n = draw(st.integers(1, 7))
    for i in range(n):
        link = Link(f"link{i}", draw(inertias()))
        link.visuals = draw(st.lists(shapes(), max_size=2))
        link.collisions = draw(st.lists(shapes(), max_size=2))
        m.add_link(link)
        if i == 0:
            continue
        parent = f"link{draw(st.integers(0, i - 1))}"
        kind = draw(st.sampled_from(JOINT_KINDS))
        rest = draw(transforms())
        name = f"joint{i}"
        if kind == "fixed":
            joint = Joint(name, JointType.FIXED, parent, link.name, rest)
        elif kind.startswith("spherical"):
            offset = np.array(draw(st.lists(real, min_size=3, max_size=3))) if kind == "spherical_offset" else np.zeros(3)
            joint = Joint(name, JointType.SPHERICAL, parent, link.name, rest, center=rest[:3, 3] + rest[:3, :3] @ offset)
        else:
            jtype = JointType.PRISMATIC if kind == "prismatic" else JointType.REVOLUTE
            lo, hi = sorted(draw(st.lists(real, min_size=2, max_size=2)))
            effort = draw(st.booleans()) or kind != "continuous"
            limits = Limits(kind != "continuous", lo if kind != "continuous" else 0.0, hi if kind != "continuous" else 0.0,
                            effort, draw(positive) if effort else 0.0, effort, draw(positive) if effort else 0.0)
            dynamics = Dynamics(draw(positive), draw(positive)) if draw(st.booleans()) else None
            joint = Joint(name, jtype, parent, link.name, rest, axis=draw(unit_vectors()), limits=limits, dynamics=dynamics)
            masters = [j for j in m.joints.values() if j.dofs == 1 and j.mimic is None]
            if masters and draw(st.integers(0, 4)) == 0:
                joint.mimic = Mimic(draw(st.sampled_from(masters)).name, draw(real), draw(real))
        m.add_joint(joint)
    for k in range(draw(st.integers(0, 3))):
        m.add_frame(Frame(f"frame{k}", f"link{draw(st.integers(0, n - 1))}", draw(transforms())))
    for k in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from([SensorType.ACCELEROMETER, SensorType.GYROSCOPE]))
        m.add_sensor(LinkSensor(f"{kind.value}{k}", parent_link=f"link{draw(st.integers(0, n - 1))}",
                                link_H_sensor=draw(transforms()), sensor_type=kind))
    ft_joints = [j for j in m.joints.values() if j.type is not JointType.SPHERICAL]
    for k in range(draw(st.integers(0, min(2, len(ft_joints))))):
        j = ft_joints[k]
        frame = draw(st.sampled_from(["child", "parent", "sensor"]))
        child_h = {"child": np.eye(4), "parent": inverse(j.rest_transform), "sensor": draw(transforms())}[frame]
        m.add_sensor(ForceTorqueSensor(
            f"ft{k}", parent_joint=j.name, first_link=j.parent, second_link=j.child,
            applied_wrench_link=draw(st.sampled_from([j.parent, j.child])),
            first_link_H_sensor=j.rest_transform @ child_h, second_link_H_sensor=child_h, frame=frame,
        ))
    add_sensor_frames(m)  # what every loader does, so reloaded models are comparable
    return m


def _spherical(m: Model) -> bool:
    return any(j.type is JointType.SPHERICAL for j in m.joints.values())


# ROUNDTRIP_EXAMPLES=1000 for a deeper search; 60 keeps the suite quick
SETTINGS = settings(max_examples=int(os.environ.get("ROUNDTRIP_EXAMPLES", "60")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(models())
def test_random_models_round_trip_through_urdf(model):
    text = export_model(model, "urdf")
    back = load_model(text, "urdf", convert_three_revolute_joints_to_spherical=_spherical(model))
    assert_models_equal(model, back, kinematics_samples=4)


@SETTINGS
@given(models())
def test_random_models_round_trip_through_json(model):
    text = export_model(model, "idyntree-model-json")
    back = load_model(text, "idyntree-model-json")
    assert_models_equal(model, back, check_name=False, check_mimic=False, kinematics_samples=4)
    assert export_model(back, "idyntree-model-json") == text


@SETTINGS
@given(models())
def test_random_models_round_trip_urdf_json_urdf(model):
    fold = _spherical(model)
    from_urdf = load_model(export_model(model, "urdf"), "urdf", convert_three_revolute_joints_to_spherical=fold)
    from_json = load_model(export_model(from_urdf, "idyntree-model-json"), "idyntree-model-json")
    back = load_model(export_model(from_json, "urdf"), "urdf", convert_three_revolute_joints_to_spherical=fold)
    assert_models_equal(model, back, check_name=False, check_mimic=False, kinematics_samples=3)
