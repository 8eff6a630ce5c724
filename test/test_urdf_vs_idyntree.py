"""Our URDF import against the iDynTree wheel, on every real URDF we have.

Compared by name: links (mass, COM, inertia), additional frames (name, parent), joints (type,
links), sensors (type, links, transforms) and the world transform of every link and frame at zero
and at random configurations.  Where iDynTree is documented as wrong (sensors it drops on links
that became frames, mimic joints it ignores) the test checks our documented behaviour instead.
"""

from __future__ import annotations

import numpy as np
import pytest
from lxml import etree

from idyntree_models import Kinematics, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model import ForceTorqueSensor, JointType, LinkSensor
from idyntree_models.model.transforms import make_transform, rpy_to_matrix

import idyntree_oracle as oracle
from conftest import MODELS, rel_id, urdf_files

TOL = 1e-9
MUST_FAIL = {"duplicate_joints_must_fail.urdf"}
FILES = [p for p in urdf_files() if p.name not in MUST_FAIL]


def _id(p) -> str:
    return rel_id(p)


def random_config(model, rng) -> dict[str, object]:
    config: dict[str, object] = {}
    for joint in model.joints.values():
        if joint.mimic is not None:
            continue
        if joint.type is JointType.REVOLUTE:
            config[joint.name] = rng.uniform(-np.pi, np.pi)
        elif joint.type is JointType.PRISMATIC:
            config[joint.name] = rng.uniform(-0.5, 0.5)
        elif joint.type is JointType.SPHERICAL:
            q = rng.normal(size=4)
            config[joint.name] = q / np.linalg.norm(q)
    return config


def with_mimics(model, config: dict[str, object]) -> dict[str, object]:
    """iDynTree ignores <mimic>: give it the followers' positions explicitly."""
    full = dict(config)
    for joint in model.joints.values():
        if joint.mimic is not None:
            full[joint.name] = joint.mimic.multiplier * float(config.get(joint.mimic.joint, 0.0)) + joint.mimic.offset
    return full


def _urdf_sensor_origins(path) -> dict[str, tuple[str, np.ndarray]]:
    """Independent read of <sensor><parent link/><origin/> from the file itself."""
    root = etree.parse(str(path)).getroot()
    out = {}
    for s in root.findall("sensor"):
        parent = s.find("parent")
        if parent is None or parent.get("link") is None:
            continue
        o = s.find("origin")
        xyz = [float(v) for v in (o.get("xyz", "0 0 0") if o is not None else "0 0 0").split()]
        rpy = [float(v) for v in (o.get("rpy", "0 0 0") if o is not None else "0 0 0").split()]
        out[s.get("name")] = (parent.get("link").strip(), make_transform(rpy_to_matrix(rpy), xyz))
    return out


@pytest.fixture(scope="module", params=FILES, ids=_id)
def pair(request):
    path = request.param
    text = path.read_text()
    ref = oracle.load(text)
    ours = load_model(path)
    return path, ours, ref


def test_links(pair):
    path, ours, ref = pair
    assert set(ours.links) == set(ref.links)
    assert ours.default_base_link == ref.base
    no_inertia = {el.get("name") for el in etree.parse(str(path)).getroot().findall("link")
                  if el.find("inertial/inertia") is None}
    for name, r in ref.links.items():
        link = ours.links[name].inertia
        if name in no_inertia:
            # iDynTree leaves the rotational inertia of such links uninitialised; URDF says zero
            assert not link.inertia.any()
            assert link.mass == pytest.approx(r["mass"], abs=TOL)
            continue
        assert link.mass == pytest.approx(r["mass"], abs=TOL), name
        if r["mass"] > 0:
            np.testing.assert_allclose(link.com, r["com"], atol=TOL, err_msg=name)
        np.testing.assert_allclose(link.inertia, r["inertia"], atol=1e-8, err_msg=name)


def test_joints(pair):
    _, ours, ref = pair
    assert set(ours.joints) == set(ref.joints)
    for name, r in ref.joints.items():
        joint = ours.joints[name]
        assert joint.type.value == r["type"], name
        assert {joint.parent, joint.child} == r["links"], name


def test_sensors_and_frames(pair):
    path, ours, ref = pair
    extra_sensors = set(ours.sensors) - set(ref.sensors)
    assert set(ref.sensors) <= set(ours.sensors)
    origins = _urdf_sensor_origins(path)
    ref_frames_world = oracle.world_transforms(ref, {})
    for name in extra_sensors:
        # do better than iDynTree: a sensor on a link that became a frame is kept, re-attached
        sensor = ours.sensors[name]
        assert isinstance(sensor, LinkSensor), name
        urdf_parent, origin = origins[name]
        assert urdf_parent in ref.frames, f"{name}: iDynTree dropped it although its parent is a link"
        assert ref.frames[urdf_parent] == sensor.parent_link
        expected = np.linalg.inv(ref_frames_world[sensor.parent_link]) @ ref_frames_world[urdf_parent] @ origin
        np.testing.assert_allclose(sensor.link_H_sensor, expected, atol=TOL)
    for name, r in ref.sensors.items():
        s = ours.sensors[name]
        assert s.type.value == r["type"]
        if isinstance(s, ForceTorqueSensor):
            for key in ("parent_joint", "first_link", "second_link", "applied_wrench_link"):
                assert getattr(s, key) == r[key], (name, key)
            np.testing.assert_allclose(s.first_link_H_sensor, r["first_link_H_sensor"], atol=TOL)
            np.testing.assert_allclose(s.second_link_H_sensor, r["second_link_H_sensor"], atol=TOL)
        else:
            assert s.parent_link == r["parent_link"]
            np.testing.assert_allclose(s.link_H_sensor, r["link_H_sensor"], atol=TOL)
    our_frames = {n: f.parent_link for n, f in ours.frames.items()}
    assert set(our_frames) - set(ref.frames) == extra_sensors - set(ref.frames) - set(ours.links)
    for name, parent in ref.frames.items():
        assert our_frames[name] == parent, name


def test_world_transforms(pair):
    _, ours, ref = pair
    kin = Kinematics(ours)
    rng = np.random.default_rng(42)
    for k in range(4):
        config = {} if k == 0 else random_config(ours, rng)
        mine = kin.world_transforms(config)
        theirs = oracle.world_transforms(ref, with_mimics(ours, config))
        for name, t in theirs.items():
            np.testing.assert_allclose(mine[name], t, atol=TOL, err_msg=f"frame {name}, configuration {k}")


def test_batched_kinematics_equal_single(pair):
    _, ours, _ = pair
    kin = Kinematics(ours)
    rng = np.random.default_rng(7)
    configs = [random_config(ours, rng) for _ in range(5)]
    if not configs[0]:
        pytest.skip("no moving joints")
    batch = {name: np.array([c[name] for c in configs]) for name in configs[0]}
    world = kin.compute(batch)
    for i, c in enumerate(configs):
        single = kin.compute(c)[0]
        np.testing.assert_allclose(world[i], single, atol=1e-12)


def test_duplicate_joints_must_fail():
    path = MODELS / "urdf/idyntree/duplicate_joints_must_fail.urdf"
    with pytest.raises(ModelError, match=r"duplicate_joints_must_fail.urdf:\d+: .*duplicate joint name 'joint_1'"):
        load_model(path)
    # the reference refuses it too
    with pytest.raises(RuntimeError):
        oracle.load(path.read_text())


def test_icub_genova02_counts():
    """The doc's numbers for the reference: 105 URDF links -> 33 links + 78 frames, 26 DOF, 6 F/T."""
    m = load_model(MODELS / "urdf/idyntree/iCubGenova02.urdf")
    assert (len(m.links), len(m.frames), m.dofs) == (33, 78, 26)
    assert sum(isinstance(s, ForceTorqueSensor) for s in m.sensors.values()) == 6


def test_massless_links_with_an_inertial_become_frames_as_in_idyntree_and_say_what_they_held():
    """iDynTree turns a link whose mass is not > 0 into a frame whatever its inertia tensor or a negative mass;
    we do the same (the structure must match), but name what the frame cannot hold, which iDynTree drops silently."""
    text = """<robot name="r">
      <link name="body"><inertial><mass value="2"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <link name="imu_link"><inertial><mass value="0"/><inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="imu_joint" type="fixed"><parent link="body"/><child link="imu_link"/><origin xyz="0 0 0.2"/></joint>
      <link name="neg"><inertial><mass value="-0.5"/><inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="neg_joint" type="fixed"><parent link="body"/><child link="neg"/></joint>
      <link name="plain"/>
      <joint name="plain_joint" type="fixed"><parent link="body"/><child link="plain"/></joint>
    </robot>"""
    ref = oracle.load(text)
    warnings: list[str] = []
    model = load_model(text, "urdf", warnings=warnings)
    assert set(model.links) == set(ref.links) == {"body"}
    assert {f: model.frames[f].parent_link for f in ("imu_link", "neg", "plain")} == {
        f: ref.frames[f] for f in ("imu_link", "neg", "plain")}
    held = [w for w in warnings if "no positive mass" in w]
    assert len(held) == 1 and "'imu_link' (mass 0)" in held[0] and "'neg' (mass -0.5)" in held[0]
    assert "plain" not in held[0]  # a link with nothing in it loses nothing
    with pytest.raises(ModelError, match="imu_link"):
        load_model(text, "urdf", strict=True)
