"""MJCF export and import against MuJoCo itself (PyPI `mujoco`).

Export: MuJoCo's compiler accepts the export of every model of the corpus; body and site poses from
`mj_kinematics` at random configurations equal our kinematics at 1e-9; body masses, centres of mass
and inertias equal ours (except where the exporter says it changed them for MuJoCo).
Import: what export writes comes back (model_compare), and hand-written or public MJCF files
(defaults classes, childclass, compiler angle/eulerseq, fromto, several joints in a body, inertia
from geoms) load to the model MuJoCo's own compiler builds: body poses, masses, inertias, geoms.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import numpy as np
import pytest
from lxml import etree

from idyntree_models import Kinematics, export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model import SensorType
from idyntree_models.model.transforms import quat_to_matrix, rpy_xyz_to_transform

from conftest import REPO, corpus_files, rel_id
from model_compare import model_differences, random_configuration

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
MJCF_DIR = REPO / "test" / "models" / "mjcf"


def corpus() -> list:
    files = corpus_files("urdf", "*.urdf") + corpus_files("sdf", "*.sdf") + corpus_files("skel", "*.skel")
    out = []
    for p in files:
        try:
            logging.disable(logging.WARNING)
            load_model(p, search_paths=[str(p.parent)])
        except ModelError:
            continue  # negative tests of the corpus
        finally:
            logging.disable(logging.NOTSET)
        out.append(p)
    return out


CORPUS = corpus()


def _close(a, b, tol=TOL) -> bool:
    a, b = np.asarray(a, float), np.asarray(b, float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * max(1.0, np.abs(a).max(initial=0), np.abs(b).max(initial=0))))


def mj_poses(m, config: dict[str, object], free_at_origin: bool = True) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Body and site world poses from MuJoCo's own kinematics at a configuration by joint name. A free joint
    puts its body at the origin (a floating base, whose model is relative to it), or, not `free_at_origin`, where
    the file puts it (a free body of a scene, which the model joins to the world at that pose)."""
    d = mujoco.MjData(m)
    d.qpos[:] = m.qpos0
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        adr = m.jnt_qposadr[j]
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE and free_at_origin:
            d.qpos[adr:adr + 7] = [0, 0, 0, 1, 0, 0, 0]
        elif name in config:
            v = np.atleast_1d(np.asarray(config[name], float))
            d.qpos[adr:adr + len(v)] = v
    mujoco.mj_kinematics(m, d)

    def pose(pos, mat):
        t = np.eye(4)
        t[:3, :3] = np.asarray(mat).reshape(3, 3)
        t[:3, 3] = pos
        return t

    bodies = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b): pose(d.xpos[b], d.xmat[b]) for b in range(m.nbody)}
    sites = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SITE, s): pose(d.site_xpos[s], d.site_xmat[s]) for s in range(m.nsite)}
    return bodies, sites


def mj_inertia(m, b: int) -> np.ndarray:
    r = quat_to_matrix(m.body_iquat[b])
    return r @ np.diag(m.body_inertia[b]) @ r.T


@pytest.fixture(scope="module", params=CORPUS, ids=rel_id)
def exported(request):
    path = request.param
    model = load_model(path, search_paths=[str(path.parent)])
    warnings: list[str] = []
    text = export_model(model, "mjcf", warnings=warnings)
    return path, model, text, warnings


def _placement(model, path: Path) -> np.ndarray:
    """Where the source put the base in the world: an MJCF or SKEL base pose, the pose an SDF fixed joint to the world
    holds its child at: the model's own <pose> in the file (read here) times the child's pose in the model (read from
    the metadata the readers record, not from the exporter)."""
    if "base_pose" in model.metadata:
        return np.array(model.metadata["base_pose"])
    for d in (model.metadata.get("sdf_world_joints") or {}).values():
        if d.get("child") == model.default_base_link and "joined_to_base_by" not in d:
            top = etree.parse(str(path)).getroot().find("model")
            pose = top.find("pose") if top is not None else None
            world_H_model = np.eye(4)
            if pose is not None and (pose.text or "").strip():
                assert pose.get("relative_to") in (None, "world") and pose.get("degrees") is None, path
                v = [float(x) for x in pose.text.split()]
                world_H_model = rpy_xyz_to_transform(v[3:6], v[:3])
            return world_H_model @ np.array(d["model_H_child"])
    return np.eye(4)


def test_mujoco_accepts_the_export_and_kinematics_equal(exported):
    path, model, text, _ = exported
    m = mujoco.MjModel.from_xml_string(text)
    kin = Kinematics(model)
    rng = np.random.default_rng(3)
    for sample in range(4):
        config = random_configuration(model, None if sample == 0 else rng)
        ours = kin.world_transforms(config)
        bodies, sites = mj_poses(m, config)
        names = [n for n in bodies if n != "world"] + (["world"] if "world" in model.links else [])
        assert set(names) == set(model.links)
        # the base where the source placed it (an SDF joint to the world, an MJCF body's pos): poses from it compared
        base = model.default_base_link
        world_H_base = bodies[base] if base != "world" else np.eye(4)
        b = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, base) if base != "world" else -1
        if b >= 0 and m.body_jntnum[b] == 0:  # welded where the source put it
            assert _close(world_H_base, _placement(model, path)), (world_H_base, _placement(model, path))
        elif b >= 0:  # free, starting there (its qpos0)
            adr = m.jnt_qposadr[m.body_jntadr[b]]
            start = np.eye(4)
            start[:3, :3], start[:3, 3] = quat_to_matrix(m.qpos0[adr + 3:adr + 7]), m.qpos0[adr:adr + 3]
            assert _close(start, _placement(model, path)), (start, _placement(model, path))
        base_H = {n: np.linalg.inv(world_H_base) @ t for n, t in (bodies | sites).items()}
        bad = [n for n in names if not _close(base_H[n], ours[n])]
        assert not bad, (sample, bad[:5])
        bad = [n for n in sites if n in ours and not _close(base_H[n], ours[n])]
        assert not bad, (sample, bad[:5])
        assert set(model.frames) <= set(sites)


def test_masses_and_inertias_equal(exported):
    _, model, text, warnings = exported
    m = mujoco.MjModel.from_xml_string(text)
    root = etree.fromstring(text.encode())
    extras = root.find("custom/text[@name='idyntree_models']")
    data = json.loads(extras.get("data")) if extras is not None else {}
    changed = set(data.get("exact_inertia", {}))  # written differently for MuJoCo's sake (the exporter warns)
    unbalanced = set(data.get("balanced_by_mujoco", []))  # MuJoCo changes these (the exporter warns)
    assert bool(unbalanced) == (root.find("compiler").get("balanceinertia") == "true")
    assert not unbalanced or any("balanceinertia" in w for w in warnings)
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        i = model.links[name].inertia
        if name in changed:  # the exporter's stated change, and nothing more
            assert any(name in w and "MuJoCo refuses" in w for w in warnings)
            assert m.body_mass[b] - i.mass in (pytest.approx(1e-9, abs=1e-15), pytest.approx(0.0, abs=1e-15))
            assert name in unbalanced or _close(mj_inertia(m, b), i.inertia, 1e-7)
            continue
        assert abs(m.body_mass[b] - i.mass) <= TOL * max(1.0, i.mass), name
        if i.mass > 0:
            assert _close(m.body_ipos[b], i.com), name
        if name not in unbalanced:
            assert _close(mj_inertia(m, b), i.inertia), (name, mj_inertia(m, b), i.inertia)


def test_import_gives_the_export_back(exported):
    _, model, text, _ = exported
    warnings: list[str] = []
    back = load_model(text, format="mjcf", warnings=warnings)
    assert not [w for w in warnings if "not in the model (the model has no field" in w]  # all it writes is read
    diffs = model_differences(model, back, check_materials=False, check_shapes=False, kinematics_samples=3)
    assert not diffs, diffs[:10]


# -- import of hand-written MJCF, against MuJoCo's compiled model ---------------------------------
MJCF_FILES = sorted(MJCF_DIR.glob("*.xml"))
GEOM_KIND = {int(mujoco.mjtGeom.mjGEOM_SPHERE): "sphere", int(mujoco.mjtGeom.mjGEOM_CAPSULE): "capsule",
             int(mujoco.mjtGeom.mjGEOM_CYLINDER): "cylinder", int(mujoco.mjtGeom.mjGEOM_BOX): "box",
             int(mujoco.mjtGeom.mjGEOM_ELLIPSOID): "ellipsoid"}


def _mj_size(shape) -> np.ndarray:
    kind = shape.kind
    if kind == "sphere":
        return np.array([shape.radius])
    if kind in ("capsule", "cylinder"):
        return np.array([shape.radius, shape.length / 2])
    if kind == "box":
        return np.asarray(shape.size) / 2
    return np.asarray(shape.radii)


@pytest.fixture(scope="module", params=MJCF_FILES, ids=lambda p: p.name)
def handwritten(request):
    path = request.param
    warnings: list[str] = []
    return path, load_model(path, warnings=warnings), mujoco.MjModel.from_xml_path(str(path)), warnings


def test_import_poses_match_mujoco(handwritten):
    _, model, m, _ = handwritten
    kin = Kinematics(model)
    rng = np.random.default_rng(7)
    for sample in range(5):
        config = random_configuration(model, None if sample == 0 else rng)
        ours = kin.world_transforms(config)
        bodies, sites = mj_poses(m, config)
        world_H_base = bodies[model.default_base_link]  # a welded base keeps its pose in MuJoCo's world
        base_H = {n: np.linalg.inv(world_H_base) @ t for n, t in (bodies | sites).items()}
        for name, t in base_H.items():
            if name == "world":
                continue
            assert _close(ours[name], t), (sample, name, ours[name], t)


def test_import_inertia_and_geoms_match_mujoco(handwritten):
    _, model, m, _ = handwritten
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        i = model.links[name].inertia
        assert abs(m.body_mass[b] - i.mass) <= TOL * max(1.0, i.mass), name
        assert _close(m.body_ipos[b], i.com), name
        assert _close(mj_inertia(m, b), i.inertia), (name, mj_inertia(m, b), i.inertia)
        link = model.links[name]
        shapes = link.visuals + [s for s in link.collisions if all(s is not v and not (
            s.kind == v.kind and np.array_equal(s.link_H_geometry, v.link_H_geometry)) for v in link.visuals)]
        mj_geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == b]
        assert len(mj_geoms) == len(shapes), name
        for g in mj_geoms:
            pose = np.eye(4)
            pose[:3, :3] = quat_to_matrix(m.geom_quat[g])
            pose[:3, 3] = m.geom_pos[g]
            kind = GEOM_KIND[int(m.geom_type[g])]
            size = m.geom_size[g][: {"sphere": 1, "capsule": 2, "cylinder": 2}.get(kind, 3)]
            assert any(s.kind == kind and _close(_mj_size(s), size) and _close(s.link_H_geometry, pose) for s in shapes), \
                (name, kind, size, pose)


def test_import_joints_sensors_and_mimic(handwritten):
    path, model, m, warnings = handwritten
    for j in range(m.njnt):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, j)
        if m.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            assert name not in model.joints and model.metadata["mjcf_free_joint"] == name
            continue
        joint = model.joints[name]
        if m.jnt_type[j] in (mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_SLIDE):
            assert joint.limits.has_position_limits == bool(m.jnt_limited[j]), name
            if m.jnt_limited[j]:
                assert _close([joint.limits.min_position, joint.limits.max_position], m.jnt_range[j]), name
            assert joint.dynamics is None or joint.dynamics.damping == pytest.approx(m.dof_damping[m.jnt_dofadr[j]])
    for e in range(m.neq):
        j1 = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.eq_obj1id[e])
        j2 = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_JOINT, m.eq_obj2id[e])
        mimic = model.joints[j1].mimic
        assert mimic.joint == j2 and _close([mimic.offset, mimic.multiplier], m.eq_data[e][:2])
    names = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_SENSOR, s) for s in range(m.nsensor)}
    ours = set()
    for s in model.sensors.values():
        ours |= {f"{s.name}_f", f"{s.name}_t"} if s.type.value == "force_torque" else {s.name}
    assert {n for n in names if not n.startswith("wrist_")} == {n for n in ours if not n.startswith("wrist")}
    if "fixed_arm" in path.name:
        ft = model.sensors["wrist"]
        assert ft.parent_joint == "j3" and ft.second_link == "link2" and ft.applied_wrench_link == "link2"
    if "walker" in path.read_text():
        assert any("<actuator> not represented" in w for w in warnings)


def test_free_joint_option_and_meshes(tmp_path):
    """--mjcf-free-joint puts a free joint on the base; a binary STL is referenced, an ASCII one left out."""
    from idyntree_models.model import Link, Mesh, Model

    stl = tmp_path / "tri.stl"
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype="<f4")
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    body = b"".join(np.zeros(3, "<f4").tobytes() + v[list(f)].tobytes() + b"\0\0" for f in faces)
    stl.write_bytes(b"\0" * 80 + len(faces).to_bytes(4, "little") + body)  # a binary STL tetrahedron
    model = load_model(REPO / "idyntree_models" / "data" / "demo_arm.urdf")
    base = next(iter(model.links.values()))
    base.visuals.append(Mesh(filename=str(stl), scale=np.array([2.0, 2.0, 2.0])))
    ascii_stl = find_model_file("urdf/idyntree/cube.stl")
    base.visuals.append(Mesh(filename=str(ascii_stl)))
    warnings: list[str] = []
    text = export_model(model, "mjcf", warnings=warnings, mjcf_free_joint=True)
    assert sum("mesh" in w and "left out" in w for w in warnings) == 1
    m = mujoco.MjModel.from_xml_string(text)
    assert m.nmesh == 1 and m.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE
    config = random_configuration(model, np.random.default_rng(1))
    bodies, _ = mj_poses(m, config)
    ours = Kinematics(model).world_transforms(config)
    assert all(_close(bodies[n], ours[n]) for n in model.links)
    back = load_model(text, format="mjcf")
    assert back.metadata["mjcf_free_joint"] and set(back.links) == set(model.links)
    assert not isinstance(Link, type(None)) and isinstance(Model(), Model)


def find_model_file(rel: str):
    from conftest import model_file

    return model_file(rel)


def test_cli_converts_to_and_from_mjcf(tmp_path):
    import subprocess
    import sys

    src = REPO / "idyntree_models" / "data" / "demo_arm.urdf"
    out = tmp_path / "demo.xml"
    done = subprocess.run([sys.executable, "-m", "idyntree_models.cli", "-i", str(src), "-o", str(out), "-q",
                           "--mjcf-free-joint"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "<freejoint" in out.read_text()
    mujoco.MjModel.from_xml_path(str(out))
    back = tmp_path / "back.urdf"
    done = subprocess.run([sys.executable, "-m", "idyntree_models.cli", "-i", str(out), "-o", str(back), "-q"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert set(load_model(back, convert_three_revolute_joints_to_spherical=True).joints) == set(load_model(src).joints)


def test_bad_mjcf_is_a_clear_error():
    with pytest.raises(ModelError, match="unknown default class 'nope'"):
        load_model('<mujoco><worldbody><body name="a"><geom class="nope" size="1"/></body></worldbody></mujoco>',
                   format="mjcf")
    with pytest.raises(ModelError, match="no <body>"):
        load_model("<mujoco><worldbody/></mujoco>", format="mjcf")
    with pytest.raises(ModelError, match="line 1"):
        load_model('<mujoco><worldbody><body><joint type="hinge" axis="0 0 0"/></body></worldbody></mujoco>',
                   format="mjcf")


def _one_body(geoms: str) -> str:
    return ('<mujoco model="m">\n<worldbody>\n<body name="a">\n<joint name="j" type="hinge"/>\n'
            f'{geoms}\n</body>\n</worldbody>\n</mujoco>\n')


def both_refuse(text: str, message: str, line: int | tuple[int, ...], theirs: str | None = None) -> None:
    """MuJoCo's compiler refuses the text (with `theirs` in its message, if given), and we refuse it with
    `message` (plain text) at `line`: what MuJoCo will not build is no model of ours either."""
    with pytest.raises(ValueError, match=theirs):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(ModelError, match=re.escape(message)) as e:
        load_model(text, format="mjcf")
    assert e.value.line in ((line,) if isinstance(line, int) else line)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("geoms, line, what", [
    ('<geom type="capsule" size="1e200 1e200"/>', 5, "capsule geom"),  # volume and moments overflow
    ('<geom type="capsule" size="0 0"/>', 5, "capsule geom"),  # 0 / 0
    ('<geom type="box" size="1e308 1 1" mass="1"/>', 5, "geom size beyond the range"),  # full size 2e308
    ('<geom type="capsule" size="0.1" fromto="-1e308 0 0 1e308 0 0"/>', 5, "too far apart"),
    ('<geom type="sphere" size="0.1" mass="1e300"/>\n<geom type="sphere" size="0.1" pos="1e300 0 0" mass="1e10"/>',
     3, "inertia of its geoms together"),  # each geom fine, their sum about the common COM overflows
])
def test_geoms_whose_inertia_overflows_are_refused_at_their_line(geoms, line, what):
    """Found by the fuzzer: MJCF's inertia from geoms overflowed to inf/NaN with numpy warnings quoting our
    source, then was refused without a line ('inertial values must be finite'). MuJoCo's compiler refuses
    these files too, except the box, which it compiles with an infinite inertia; ours names the geom (or the
    body, for a sum) and its line."""
    text = _one_body(geoms)
    try:
        m = mujoco.MjModel.from_xml_string(text)
    except ValueError:
        pass  # MuJoCo refuses it too
    else:  # the box: MuJoCo compiles it, with an infinite inertia and bounding radius (silently wrong)
        assert not (np.all(np.isfinite(m.body_inertia)) and np.all(np.isfinite(m.geom_rbound)))
    with pytest.raises(ModelError, match=what) as e:
        load_model(text, format="mjcf")
    assert e.value.line == line


def test_a_mesh_name_too_long_for_the_file_system_is_left_out_not_a_crash(tmp_path):
    """Found by the fuzzer: MJCF export looks for each mesh file; a path whose last part is longer than the
    file system allows (under a directory that exists) made pathlib raise OSError: 'internal error'."""
    (tmp_path / "pkg" / "meshes").mkdir(parents=True)
    src = tmp_path / "robot.urdf"
    src.write_text('<robot name="r"><link name="a"><visual><geometry><mesh filename="package://pkg/meshes/'
                   + "x" * 300 + '.stl"/></geometry></visual><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" '
                   'ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link></robot>')
    warnings: list[str] = []
    text = export_model(load_model(src), "mjcf", warnings=warnings)
    assert any("mesh" in w and "left out" in w for w in warnings)
    mujoco.MjModel.from_xml_string(text)


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("geom", ['<geom type="sphere" size="1e308"/>', '<geom type="ellipsoid" size="1e308 1 1"/>',
                                  '<geom type="capsule" size="1e308 1"/>'])
def test_a_radius_near_the_largest_double_loads_and_round_trips(geom):
    """Found by the fuzzer right after the half-size limit above was added: it applied to radii too (held as
    they are, not doubled), so the MJCF export of an SDF sphere of radius 1e308 did not load back."""
    text = _one_body('<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>' + geom)
    model = load_model(text, format="mjcf")
    back = load_model(export_model(model, "mjcf"), format="mjcf")
    assert model_differences(model, back) == []


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_diaginertia_that_overflows_once_turned_is_refused_at_its_line():
    """Found by the fuzzer: the largest double as every principal moment, turned by the inertial's quat,
    overflowed in numpy (a warning) before validation refused the link without a line."""
    big = "1.7976931348623157e308"
    text = _one_body(f'<inertial pos="0 0 0" mass="1" diaginertia="{big} {big} {big}" quat="0.9 0.1 0.3 0.2"/>')
    with pytest.raises(ModelError, match="diaginertia turned by the inertial's orientation is beyond") as e:
        load_model(text, format="mjcf")
    assert e.value.line == 5


LOSSY = """<mujoco model="m"><compiler angle="radian" boundmass="0.01" fusestatic="true"/>
  <default><joint armature="0.1"/><default class="soft"><geom friction="0.5 0.1 0.1" solref="0.02 1"/></default></default>
  <asset><material name="red" rgba="1 0 0 1" specular="0.3"/></asset>
  <worldbody>
    <light pos="0 0 3"/>
    <body name="base" pos="0 0 1">
      <freejoint name="root"/>
      <camera name="cam" pos="0 0 1"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" density="500" class="soft" material="red"/>
      <body name="arm" pos="0 0 0.2" gravcomp="1">
        <joint name="j1" type="hinge" axis="0 1 0" range="-1 1" stiffness="10" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02" condim="4"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.02" condim="3"/>
        <site name="tip" pos="0 0 0.3" size="0.01" rgba="0 1 0 1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""


def test_what_mujoco_reads_and_the_model_cannot_hold_is_named():
    """A joint's armature and stiffness, a geom's contact parameters (own or from a default class), a body's
    gravity compensation, a light or a camera: MuJoCo compiles each (it refuses names it does not know), the
    model has no field for them, and one warning names each with its count and first line.  What the model
    reads (a geom's density where it has a mass, which MuJoCo ignores then) is not named."""
    mujoco.MjModel.from_xml_string(LOSSY)
    warnings: list[str] = []
    load_model(LOSSY, format="mjcf", warnings=warnings)
    named = [w for w in warnings if "not in the model (the model has no field" in w]
    assert len(named) == 1, warnings
    for what in ("geom friction= (1, first at line 9)", "geom solref= (1, first at line 9)",
                 "material specular= (1, first at line 3)", "body gravcomp= (1, first at line 10)",
                 "joint armature= (1, first at line 11)", "joint stiffness= (1, first at line 11)",
                 "geom condim= (2, first at line 12)", "site rgba= (1, first at line 14)",
                 "<light> in <worldbody> (1, first at line 5)", "<camera> in <body> (1, first at line 8)",
                 "compiler boundmass= (1, first at line 1)", "compiler fusestatic= (1, first at line 1)"):
        assert what in named[0], (what, named[0])
    assert "density" not in named[0] and "damping" not in named[0] and "range" not in named[0]
    assert "angle" not in named[0]


def test_a_world_model_names_its_world_body_s_light_once_and_an_unnamed_site_whole():
    text = """<mujoco model="m">
  <worldbody>
    <light pos="0 0 3"/>
    <body name="a" pos="0 0 1"><joint name="j0" type="hinge"/><geom type="sphere" size="0.1"/><site pos="0 0 1" size="0.1"/></body>
    <body name="b" pos="1 0 1"><geom type="sphere" size="0.1"/></body>
  </worldbody>
</mujoco>"""
    mujoco.MjModel.from_xml_string(text)
    warnings: list[str] = []
    model = load_model(text, format="mjcf", warnings=warnings)
    assert "world" in model.links  # (two top-level bodies: a world model)
    named = [w for w in warnings if "not in the model (the model has no field" in w]
    assert len(named) == 1 and named[0].endswith(
        "<light> in <worldbody> (1, first at line 3), <site> in <body> (1, first at line 4)"), named


SETTINGS = """<mujoco model="m">
  <compiler angle="radian"><lengthrange mode="none"/></compiler>
  <option timestep="0.001" gravity="0 0 -9.81"/>
  <size memory="1M"/>
  <visual><global offwidth="800"/></visual>
  <statistic meansize="0.1"/>
  <custom><numeric name="n" data="1 2"/></custom>
  <asset>
    <texture name="grid" type="2d" builtin="checker" width="64" height="64" rgb1="0 0 0" rgb2="1 1 1"/>
    <material name="red" rgba="1 0 0 1"/>
    <hfield name="h" nrow="2" ncol="2" size="1 1 0.1 0.1"/>
  </asset>
  <worldbody>
    <body name="base" pos="0 0 1">
      <freejoint name="root" align="false"/>
      <geom type="box" size="0.1 0.1 0.1" mass="1" material="red"/>
      <site name="imu" pos="0 0 0.1"/>
      <body name="arm" pos="0 0 0.2">
        <joint name="j1" type="hinge" axis="0 1 0" range="-1 1"/>
        <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02"/>
        <site name="ft" pos="0 0 0"/>
      </body>
    </body>
  </worldbody>
  <sensor>
    <accelerometer name="acc" site="imu" noise="0.01" cutoff="50"/>
    <gyro name="gyr" site="imu"/>
    <force name="ft_force" site="ft"/>
    <torque name="ft_torque" site="ft" noise="0.1"/>
  </sensor>
</mujoco>
"""


def test_settings_assets_sensor_parameters_and_a_free_joint_s_attributes_are_named():
    """Simulation settings (<option>, <size>, <visual>, <statistic>), assets the model has no kind for (a
    texture, a height field), custom data, a sensor's noise and cutoff and a free joint's align: MuJoCo compiles
    each, the model holds none of them, and the one warning names each with its line.  Two MJCF sensors read as
    one force/torque sensor of another name are said.  The model itself is the same as without them."""
    m = mujoco.MjModel.from_xml_string(SETTINGS)
    assert m.opt.timestep == 0.001 and m.ntex == 1 and m.nhfield == 1 and m.nnumeric == 1  # all read by MuJoCo
    warnings: list[str] = []
    model = load_model(SETTINGS, format="mjcf", warnings=warnings)
    named = [w for w in warnings if "not in the model (the model has no field" in w]
    assert len(named) == 1, warnings
    for what in ("freejoint align= (1, first at line 15)", "accelerometer noise= (1, first at line 26)",
                 "accelerometer cutoff= (1, first at line 26)", "torque noise= (1, first at line 29)",
                 "<lengthrange> in <compiler> (1, first at line 2)", "<option> (1, first at line 3)",
                 "<size> (1, first at line 4)", "<visual> (1, first at line 5)", "<statistic> (1, first at line 6)",
                 "<numeric> in <custom> (1, first at line 7)", "<texture> in <asset> (1, first at line 9)",
                 "<hfield> in <asset> (1, first at line 11)"):
        assert what in named[0], (what, named[0])
    for read in ("gyr", "site=", "material", "rgba", "name="):
        assert read not in named[0], read
    assert any("'ft_force', 'ft_torque' on site 'ft' are read as one six-axis force/torque sensor named 'ft'" in w
               for w in warnings), warnings
    plain = etree.fromstring(SETTINGS.encode())
    for tag in ("option", "size", "visual", "statistic", "custom", "asset/texture", "asset/hfield",
                "compiler/lengthrange"):
        el = plain.find(tag)
        el.getparent().remove(el)
    for el in plain.iter("accelerometer", "torque", "freejoint"):
        for key in ("noise", "cutoff", "align"):
            el.attrib.pop(key, None)
    stripped = etree.tostring(plain, encoding="unicode")
    mujoco.MjModel.from_xml_string(stripped)
    again: list[str] = []
    assert model_differences(model, load_model(stripped, format="mjcf", warnings=again)) == []
    assert not [w for w in again if "not in the model" in w], again


def _loaded(text: str) -> tuple[object, list[str], str]:
    """MuJoCo compiles `text` (so every attribute in it is real), then ours loads it: model, warnings, and the
    one "not in the model" warning ("" when there is none)."""
    mujoco.MjModel.from_xml_string(text)
    warnings: list[str] = []
    model = load_model(text, format="mjcf", warnings=warnings)
    named = [w for w in warnings if "not in the model (the model has no field" in w]
    assert len(named) <= 1, warnings
    return model, warnings, named[0] if named else ""


def test_a_floating_robot_s_world_frame_content_and_sensors_on_world_sites_are_said_not_refused():
    """The world body's content is not the robot's when its one body floats: what sits in a <frame> of the world
    is said as what sits in the world itself, and a sensor on a world site is left out with a warning (it was
    refused as on an unknown site)."""
    model, warnings, named = _loaded("""<mujoco>
  <worldbody>
    <frame pos="1 0 0"><geom type="box" size="1 1 1"/><site name="ws"/><light/></frame>
    <body name="a"><freejoint/><geom type="sphere" size="0.1"/></body>
  </worldbody>
  <sensor><gyro name="g" site="ws"/></sensor>
</mujoco>""")
    assert list(model.links) == ["a"] and not model.sensors
    assert any("geoms and sites of the world body are not part of the robot" in w for w in warnings), warnings
    assert any("<gyro> sensor 'g' is on site 'ws' of the world body" in w for w in warnings), warnings
    assert "<light> in <frame> (1, first at line 3)" in named


def test_frameangacc_on_a_body_frame_is_read_and_on_its_inertial_frame_said():
    model, warnings, _ = _loaded("""<mujoco>
  <worldbody><body name="a"><freejoint/><geom type="sphere" size="0.1"/>
    <body name="b" pos="0 0 1" euler="0 0 45"><joint name="j"/><geom type="sphere" size="0.1"/></body></body></worldbody>
  <sensor><frameangacc name="on_frame" objtype="xbody" objname="b"/><frameangacc name="on_com" objtype="body" objname="b"/></sensor>
</mujoco>""")
    s = model.sensors["on_frame"]
    assert s.parent_link == "b" and np.array_equal(s.link_H_sensor, np.eye(4))
    assert "on_com" not in model.sensors
    assert any("frameangacc 'on_com' on the body 'b' is not represented" in w for w in warnings), warnings
    # SDF has no angular accelerometer: written as an IMU of that one kind, read back as it (it was dropped silently)
    back = load_model(export_model(model, "sdf"), format="sdf").sensors["on_frame"]
    assert back.sensor_type is s.sensor_type and back.parent_link == "b" and np.allclose(back.link_H_sensor, np.eye(4))


def test_equality_and_material_attributes_are_named_and_defaults_are_taken_from_their_own_class():
    """A mimic's solref and solimp are named (an equality <joint> takes the <equality> defaults, not the joints'
    armature); a material's specular is named also where its geom's own rgba wins over its colour."""
    model, _, named = _loaded("""<mujoco>
  <default><joint armature="0.1"/><equality solimp="0.8 0.9 0.01"/></default>
  <asset><material name="m" rgba="0 1 0 1" specular="0.9"/></asset>
  <worldbody><body name="a"><joint name="j1"/><geom type="sphere" size="0.1" material="m" rgba="1 0 0 1"/>
    <body name="b" pos="0 0 1"><joint name="j2"/><geom type="sphere" size="0.1"/></body></body></worldbody>
  <equality><joint joint1="j1" joint2="j2" polycoef="0 2 0 0 0" solref="0.5 1"/></equality>
</mujoco>""")
    assert model.joints["j1"].mimic.joint == "j2" and model.joints["j1"].mimic.multiplier == 2.0
    assert np.array_equal(model.links["a"].visuals[0].material.color, [1, 0, 0, 1])
    for what in ("equality joint solimp= (1, first at line 6)", "equality joint solref= (1, first at line 6)",
                 "material specular= (1, first at line 3)", "joint armature= (2, first at line 4)"):
        assert what in named, (what, named)
    assert "equality joint armature" not in named and "material rgba" not in named


def test_a_primitive_fitted_to_a_mesh_is_left_out_and_said_not_made_with_size_zero(tmp_path):
    (tmp_path / "cube.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n")
    text = f"""<mujoco>
  <asset><mesh name="m" file="{tmp_path / 'cube.obj'}"/></asset>
  <worldbody><body name="a"><joint name="j"/><geom type="box" mesh="m"/><geom type="sphere" size="0.1"/></body></worldbody>
</mujoco>"""
    model, warnings, _ = _loaded(text)
    assert [s.kind for s in model.links["a"].visuals] == ["sphere"]
    assert any("1 geom(s) fitted to a mesh" in w for w in warnings), warnings
    assert any("inertia of 1 mesh geom(s) not computed" in w for w in warnings), warnings


SCENE = """<mujoco model="scene">
  <worldbody>
    <body name="table" pos="1 0 0.4"><geom type="box" size="0.4 0.4 0.02"/></body>
    <body name="arm" pos="0 0 0.1">
      <joint name="shoulder" type="hinge" axis="0 0 1"/>
      <geom type="capsule" fromto="0 0 0 0 0 0.5" size="0.04"/>
    </body>
    <body name="cube" pos="1 0.1 0.5" euler="10 20 30">
      <freejoint name="cube_joint"/>
      <geom type="box" size="0.03 0.03 0.03" mass="0.2"/>
      <site name="imu"/>
    </body>
    <body name="ball" pos="1 -0.1 0.5"><joint type="free"/><geom type="sphere" size="0.04"/></body>
  </worldbody>
  <sensor><gyro name="cube_gyro" site="imu"/></sensor>
</mujoco>
"""


def test_free_bodies_of_a_scene_join_the_world_and_are_written_free_again():
    """A robot beside a table and two free objects (MuJoCo's usual scene) was refused ("a free joint is only
    supported alone in a top-level body").  Each free body now hangs on the world by six 1-DOF joints, as SDF's
    free links do (model.metadata["free_bodies"]), at MuJoCo's initial pose; the export writes it free again
    (a <freejoint> of the same name), which MuJoCo reads with as many coordinates and our import reads back to
    the same model."""
    m = mujoco.MjModel.from_xml_string(SCENE)
    warnings: list[str] = []
    model = load_model(SCENE, format="mjcf", warnings=warnings)
    free = model.metadata["free_bodies"]
    assert set(free) == {"cube", "ball"} and free["cube"]["base"] == "world"
    assert free["cube"]["joints"][0] == "cube_joint_x" and free["ball"]["joints"][0] == "ball_free_x"
    assert [model.joints[j].type.value for j in free["cube"]["joints"]] == ["prismatic"] * 3 + ["revolute"] * 3
    assert sum("2 free body(ies) beside others in the world" in w for w in warnings) == 1, warnings
    assert model.sensors["cube_gyro"].parent_link == "cube"
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    fk = Kinematics(model).world_transforms({})
    for b in range(1, m.nbody):
        t = np.eye(4)
        t[:3, :3], t[:3, 3] = d.xmat[b].reshape(3, 3), d.xpos[b]
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        assert _close(fk[name], t), name
    text = export_model(model, "mjcf")
    assert etree.fromstring(text.encode()).xpath("//freejoint/@name") == ["cube_joint", "ball_free"]
    assert mujoco.MjModel.from_xml_string(text).nq == m.nq
    assert model_differences(model, load_model(text, format="mjcf")) == []
    with pytest.raises(ModelError, match="body 'cube' has a free joint beside other top-level bodies"):
        load_model(SCENE, format="mjcf", free_bodies="error")


def test_free_bodies_of_a_scene_written_to_sdf_say_that_their_joints_are_made_anew():
    """Found by the fuzzer (`bench/fuzz_report.py 5000 --seed 20261130`: an MJCF floor geom mutated into a body).
    SDF names no joint of a link joined to nothing: its reader makes a free body's six joints anew, named after
    the link and joined to the model's base.  The scene's 'cube_joint_x' ... came back as 'cube_free_x' ... and
    the export said nothing; it now names every joint and link of such a chain.  'ball' comes back as it was
    (its joints are named after it, and the arm's joint to the world makes the reader's base 'world' again)."""
    model = load_model(SCENE, format="mjcf")
    warnings: list[str] = []
    text = export_model(model, "sdf", warnings=warnings)
    said = [w for w in warnings if "whose joints SDF does not name" in w]
    assert len(said) == 1 and said[0].startswith("1 free body(ies)"), warnings
    cube = model.metadata["free_bodies"]["cube"]
    assert all(f"'{name}'" in said[0] for name in (*cube["joints"], *cube["links"])), said[0]
    assert "'cube' (" in said[0] and "from 'world')" in said[0] and "'ball" not in said[0]
    back = load_model(text, format="sdf")
    assert back.metadata["free_bodies"]["cube"]["joints"][0] == "cube_free_x" and "cube_joint_x" not in back.joints
    assert back.metadata["free_bodies"]["ball"] == model.metadata["free_bodies"]["ball"]
    again: list[str] = []  # free links read from SDF are written back as they came: nothing to say
    export_model(back, "sdf", warnings=again)
    assert not any("whose joints SDF does not name" in w for w in again), again


def test_a_free_body_beside_a_turned_table_written_to_sdf_says_it_moves_along_another_base():
    """With no moving joint to the world, SDF's reader joins a free link to the model's base, the table here,
    translating along the table's axes: the same joint names, another motion (MuJoCo's free joint, and the
    model read from MJCF, translate along the world's axes).  Said on export, naming the chain."""
    scene = """<mujoco><worldbody>
      <body name="table" pos="1 2 0" euler="0 0 90"><geom type="box" size="0.5 0.5 0.02" mass="10"/></body>
      <body name="box" pos="1 2 1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    </worldbody></mujoco>"""
    m = mujoco.MjModel.from_xml_string(scene)
    d = mujoco.MjData(m)
    d.qpos[0] += 1.0  # the free joint's x: along the world's x axis
    mujoco.mj_kinematics(m, d)
    model = load_model(scene, format="mjcf")
    moved = Kinematics(model).world_transforms({"box_free_x": 1.0})["box"][:3, 3]
    np.testing.assert_allclose(moved, d.xpos[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "box")], atol=1e-12)
    warnings: list[str] = []
    back = load_model(export_model(model, "sdf", warnings=warnings), format="sdf")
    said = [w for w in warnings if "whose joints SDF does not name" in w]
    assert len(said) == 1 and "'box' ('box_free_x'" in said[0] and "from 'world')" in said[0], warnings
    assert back.joints["box_free_x"].parent == "table"

    def motion_in_table(k: Kinematics) -> np.ndarray:  # where box_free_x = 1 moves the box, in the table's axes
        rest, step = k.world_transforms({}), k.world_transforms({"box_free_x": 1.0})
        return rest["table"][:3, :3].T @ (step["box"][:3, 3] - rest["box"][:3, 3])

    np.testing.assert_allclose(motion_in_table(Kinematics(model)), [0.0, -1.0, 0.0], atol=1e-12)  # the world's x
    np.testing.assert_allclose(motion_in_table(Kinematics(back)), [1.0, 0.0, 0.0], atol=1e-12)  # the table's x


@pytest.mark.parametrize("joint, compiler, message", [
    ('range="0 0" limited="true"', "", "range 0 0: the lower bound must be below the upper"),
    ('range="-1 1"', '<compiler autolimits="false"/>', "joint has range but not limited, and the compiler's autolimits"),
    ('actuatorfrcrange="-1 1"', '<compiler autolimits="false"/>', "joint has actuatorfrcrange but not actuatorfrclimited"),
    ('class="two"', '<default><default class="two"><geom euler="0 0 1" quat="1 0 0 0"/></default></default>',
     "orientation given twice"),
])
def test_limits_and_orientations_mujoco_refuses_are_refused_at_their_line(joint, compiler, message):
    """What MuJoCo's compiler refuses (checked here: it raises) we refuse too, naming the element and its line,
    instead of reading a model MuJoCo would not build."""
    text = f'<mujoco>{compiler}\n<worldbody><body name="a">\n<joint name="j" {joint}/><geom size="0.1"/></body></worldbody></mujoco>'
    with pytest.raises(ValueError):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(ModelError, match=message) as e:
        load_model(text, format="mjcf")
    assert e.value.line in (1, 3)


def test_meshdir_applies_to_a_document_given_as_text():
    text = """<mujoco><compiler meshdir="meshes"/><asset><mesh name="m" file="part.stl"/></asset>
<worldbody><body name="a"><joint name="j"/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>"""
    model = load_model(text, format="mjcf")
    assert model.links["a"].visuals[0].filename == str(Path("meshes") / "part.stl")


@pytest.mark.parametrize("compiler, joint, geom, extra, message", [
    ('<compiler angle="degrees"/>', "", 'size="0.1"', "", 'angle="degrees" is not one of degree, radian'),
    ('<compiler angle="RADIAN"/>', "", 'size="0.1"', "", 'angle="RADIAN" is not one of degree, radian'),
    ('<compiler inertiafromgeom="yes"/>', "", 'size="0.1"', "", 'inertiafromgeom="yes" is not one of'),
    ('<compiler autolimits="maybe"/>', "", 'size="0.1"', "", 'autolimits="maybe" is not one of'),
    ("", 'range="-1 1" limited="False"', 'size="0.1"', "", 'limited="False" is not one of false, true, auto'),
    ("", 'limited="true"', 'size="0.1"', "", 'limited="true" without a range'),
    ("", 'actuatorfrcrange="-1 1" actuatorfrclimited="x"', 'size="0.1"', "", 'actuatorfrclimited="x" is not one'),
    ("", "", 'type="foo" size="0.1"', "", 'type="foo" is not one of plane'),
    ("", "", 'size="0.1" contype="x"', "", 'contype="x" is not an integer'),
    ("", "", 'size="0.1"', '<inertial mass="1" diaginertia="1 1 1"/>', "missing required attribute 'pos'"),
    ("", "", 'size="0.1"', '<inertial pos="0 0 0" mass="1" fullinertia="1 1 1 0 0 0" quat="1 0 0 0"/>',
     "fullinertia cannot be given with quat"),
    ("", "", 'size="0.1"', '<inertial pos="0 0 0" mass="1" fullinertia="1 1 1 0 0 0" diaginertia="1 1 1"/>',
     "fullinertia cannot be given with diaginertia"),
    ("", 'type="ball"', 'size="0.1"', '<joint name="k" type="hinge"/>', "a ball joint followed by a rotation"),
    ("", "", 'size="0.1" mass="-1"', "", "geom mass -1 is negative"),
    ("", "", 'size="0.1" group="6.5"', "", 'group="6.5" is not an integer'),
    ("", "", 'size="0.1"', '<geom type="plane" size="1 1 1"/>', "a plane geom in body 'a', which moves"),
    ("", "", 'size="0.1"', '<body name="b"><geom size="0.1"/><geom type="plane" size="1 1 1"/></body>',
     "a plane geom in body 'b', which moves"),
    ('<default class="top"><geom size="0.1"/></default>', "", 'size="0.1"', "",
     "the top-level <default> is class 'main' and cannot be renamed 'top'"),
])
def test_keywords_and_attributes_mujoco_refuses_are_refused(compiler, joint, geom, extra, message):
    """A keyword MuJoCo does not know was read as another (angle="degrees" as radians, limited="False" as
    limited, an unknown geom type as one we do not hold) or an attribute it requires went missing unnoticed:
    MuJoCo refuses each (checked here), and so do we, naming the element."""
    text = (f'<mujoco>{compiler}\n<worldbody><body name="a">\n<joint name="j" {joint}/><geom {geom}/>{extra}'
            "</body></worldbody></mujoco>")
    both_refuse(text, message, (1, 3))


def test_a_plane_in_a_static_body_is_left_out_as_before():
    """The control for the moving planes refused above: MuJoCo accepts a plane in a body welded to the world."""
    text = ('<mujoco><worldbody><body name="a"><joint name="j"/><geom size="0.1"/></body>'
            '<body name="s"><geom size="0.1"/><geom type="plane" size="1 1 1"/></body></worldbody></mujoco>')
    mujoco.MjModel.from_xml_string(text)
    warnings: list[str] = []
    load_model(text, format="mjcf", warnings=warnings)
    assert any("1 geom(s) of a type we do not hold (plane" in w for w in warnings), warnings


@pytest.mark.parametrize("geom, message", [
    ('type="sphere" size="0"', "sphere geom: its radius (size[0]) is 0"),
    ('type="sphere"', "sphere geom: its radius (size[0]) is 0"),  # (MuJoCo's default size is 0 0 0)
    ('type="box" size="1 1 -1"', "box geom: its z half-size (size[2]) is -1"),
    ('type="capsule" size="0.1 -1"', "capsule geom: its half-length (size[1]) is -1"),
    ('type="cylinder" size="-0.1" fromto="0 0 0 0 0 1"', "cylinder geom: its radius (size[0]) is -0.1"),
    ('type="ellipsoid" size="0.1 0 0.3"', "ellipsoid geom: its y radius (size[1]) is 0"),
    ('type="box" size="-0.1" fromto="0 0 0 0 0 1"', "box geom: its x half-size (size[0]) is -0.1"),
])
def test_a_geom_size_that_is_not_positive_is_refused_at_its_line(geom, message):
    """Found by fuzzing (seed 7): a negative or zero radius, length or half-size was read as given, and went
    out to every format (the JSON export refused it, URDF wrote it). MuJoCo refuses each (checked here)."""
    text = _one_body(f"<geom {geom}/>")
    both_refuse(text, message, 5, "must be positive")


def test_a_plane_without_grid_spacing_is_refused_and_the_sizes_mujoco_does_not_use_are_not_judged():
    plane = ('<mujoco>\n<worldbody>\n<geom type="plane" size="1 1 0"/>\n<body name="a"><joint name="j"/>'
             '<geom size="0.1"/></body></worldbody></mujoco>')
    with pytest.raises(ValueError, match="plane size"):
        mujoco.MjModel.from_xml_string(plane)
    with pytest.raises(ModelError, match=re.escape("plane geom: size[2], its grid spacing, is 0")) as e:
        load_model(plane, format="mjcf")
    assert e.value.line == 3
    # the controls: an infinite plane (0 0 spacing), sizes past the ones a type uses, a primitive fitted to a mesh
    fine = _one_body('<geom type="sphere" size="0.1 -5 -5"/><geom type="capsule" size="0.1 -3" fromto="0 0 0 0 0 1"/>'
                     '<geom type="box" size="-1" mesh="m"/>').replace(
        "<worldbody>", '<asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset>\n<worldbody>\n'
                       '<geom type="plane" size="0 0 1"/>')
    m = mujoco.MjModel.from_xml_string(fine)
    assert m.ngeom == 4
    model = load_model(fine, format="mjcf")
    assert [s.kind for s in model.links["a"].visuals] == ["sphere", "capsule"]


def test_shapes_whose_size_mujoco_refuses_are_left_out_of_the_export_and_said():
    """URDF and SDF readers take a zero or negative size (urdfdom does); the MJCF export wrote it, and MuJoCo
    refused the whole file. Those shapes are now left out, each named in one warning, as unreadable meshes are."""
    urdf = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><geometry><sphere radius="0"/></geometry></visual>
    <visual><geometry><sphere radius="0.2"/></geometry></visual>
    <collision><geometry><box size="1 -1 1"/></geometry></collision>
    <visual><geometry><cylinder radius="0.1" length="0"/></geometry></visual>
  </link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""
    warnings: list[str] = []
    text = export_model(load_model(urdf), "mjcf", warnings=warnings)
    m = mujoco.MjModel.from_xml_string(text)
    assert m.ngeom == 1 and m.geom_size[0][0] == 0.2
    said = [w for w in warnings if "left out, because MuJoCo refuses a geom size that is not positive" in w]
    assert len(said) == 1
    for shape in ("visual sphere of link 'a' (radius 0)", "visual cylinder of link 'a' (half-length 0)",
                  "collision box of link 'a' (y half-size -0.5)"):
        assert shape in said[0]


@pytest.mark.parametrize("defaults, cls", [
    ('<default><geom density="100"/></default><default><geom group="2"/></default>', ""),
    ('<default><geom density="100"/></default><default><default class="x"><geom group="3"/></default></default>',
     'class="x"'),
    ('<default><default class="x"><geom group="3"/></default></default><default><geom density="100"/></default>',
     'class="x"'),  # (a class copies its parent when it is defined: the later density is not its)
    ('<default><geom density="100"/></default><default><geom density="10"/></default>', ""),
])
def test_a_second_top_level_default_adds_to_class_main_as_in_mujoco(defaults, cls):
    """Found by differential fuzzing against MuJoCo (bench/fuzz_reference.py --format mjcf): a second top-level
    <default> replaced class 'main', so a body's inertia from its geoms lost the first one's density."""
    text = (f'<mujoco>{defaults}<worldbody><body name="b"><joint name="j"/><geom type="sphere" size="0.1" {cls}/>'
            "</body></worldbody></mujoco>")
    m = mujoco.MjModel.from_xml_string(text)
    assert load_model(text, format="mjcf").links["b"].inertia.mass == pytest.approx(m.body_mass[1], rel=1e-12)


@pytest.mark.parametrize("defaults", ['<default><default class="x"/><default class="x"/></default>',
                                      '<default><default class="main"/></default>'])
def test_a_default_class_defined_twice_is_refused_as_mujoco_refuses_it(defaults):
    text = f'<mujoco>\n{defaults}\n<worldbody><body name="b"><geom size="0.1"/></body></worldbody></mujoco>'
    with pytest.raises(ValueError, match="repeated default class name"):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(ModelError, match="is defined twice") as e:
        load_model(text, format="mjcf")
    assert e.value.line == 2


def test_sensors_that_would_share_a_name_are_all_read() -> None:
    """Unnamed sensors take their site's name: an accelerometer and a gyro on one site were one sensor, the
    gyro replacing the accelerometer without a word. MuJoCo keeps both."""
    text = ('<mujoco model="m"><worldbody><body name="base"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
            '<site name="imu" pos="0.1 0 0"/></body></worldbody>'
            '<sensor><accelerometer site="imu"/><gyro site="imu"/></sensor></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    theirs = sorted(int(t) for t in m.sensor_type)
    warnings: list[str] = []
    model = load_model(text, format="mjcf", warnings=warnings)
    kinds = {SensorType.ACCELEROMETER: int(mujoco.mjtSensor.mjSENS_ACCELEROMETER),
             SensorType.GYROSCOPE: int(mujoco.mjtSensor.mjSENS_GYRO)}
    assert sorted(kinds[s.sensor_type] for s in model.sensors.values()) == theirs
    assert set(model.sensors) == {"imu", "imu_1"} and [w for w in warnings if "read as 'imu_1'" in w], warnings


def test_a_sensor_s_own_name_stays_its_own() -> None:
    """A name taken from a site gives way to a sensor that has it as its own (in MuJoCo, 'imu' is the gyro)."""
    text = ('<mujoco model="m"><worldbody><body name="base"><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
            '<site name="imu" pos="0.1 0 0"/></body></worldbody>'
            '<sensor><accelerometer site="imu"/><gyro name="imu" site="imu"/></sensor></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    gyro = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_SENSOR, "imu")
    assert m.sensor_type[gyro] == mujoco.mjtSensor.mjSENS_GYRO
    model = load_model(text, format="mjcf")
    assert model.sensors["imu"].sensor_type is SensorType.GYROSCOPE
    assert model.sensors["imu_1"].sensor_type is SensorType.ACCELEROMETER


def _chain_urdf(n: int) -> str:
    links = "".join(f'<link name="l{i}"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
                    'iyz="0"/></inertial></link>' for i in range(n))
    joints = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
                     '<origin xyz="0 0 0.1"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/>'
                     '</joint>' for i in range(1, n))
    return f'<robot name="chain">{links}{joints}</robot>'


def test_deep_chain_as_deep_as_mujoco_reads_goes_there_and_back():
    """MJCF nests a body per link: a 496-link chain is the deepest MuJoCo's parser takes (measured: one body more is
    XML_ELEMENT_DEPTH_EXCEEDED), past libxml2's default limit of 256 levels, which refused our own export."""
    text = export_model(load_model(_chain_urdf(496), "urdf"), "mjcf")
    m = mujoco.MjModel.from_xml_string(text)
    assert m.nbody == 497 and m.njnt == 495
    back = load_model(text, "mjcf")
    assert len(back.links) == 496 and back.joints["j495"].parent == "l494"


def test_chain_deeper_than_mujoco_reads_is_refused_with_the_link():
    for n in (497, 1000):  # (1000 was an internal RecursionError)
        model = load_model(_chain_urdf(n), "urdf")
        with pytest.raises(ModelError, match=rf"link 'l{n - 1}' is {n - 1} joints from the root.*MuJoCo reads at most 499"):
            export_model(model, "mjcf")
        with pytest.raises(ValueError, match="XML_ELEMENT_DEPTH_EXCEEDED"):
            # the same chain written by hand: MuJoCo refuses it too, so refusing loses nothing MuJoCo could read
            mujoco.MjModel.from_xml_string(
                "<mujoco><worldbody>" + "".join(f'<body name="b{i}"><joint/><geom size="0.1"/>' for i in range(n))
                + "</body>" * n + "</worldbody></mujoco>")


def test_mjcf_nested_deeper_than_mujoco_reads_is_refused_with_its_line():
    n = 600
    text = ("<mujoco>\n<worldbody>\n" + "".join(f'<body name="b{i}">\n<geom size="0.1"/>\n' for i in range(n))
            + "</body>" * n + "</worldbody></mujoco>")
    with pytest.raises(ModelError) as e:
        load_model(text, "mjcf")
    assert "elements nest more than 499 levels deep; MuJoCo reads at most 499" in str(e.value)
    # the first element 500 levels deep: the <geom> of body b496 (line 3 + 2 * 496 + 1)
    assert e.value.line == 996 and "XML_PARSE_HUGE" not in str(e.value)
    deeper = ("<mujoco><worldbody>" + "<body>" * 2100 + "</body>" * 2100 + "</worldbody></mujoco>")  # past libxml2's
    with pytest.raises(ModelError, match="more than 499 levels deep; MuJoCo reads at most 499"):          # own 2048
        load_model(deeper, "mjcf")


def test_other_formats_say_what_a_too_deep_document_is():
    """libxml2's own message named an option (XML_PARSE_HUGE) no user can set, and called a well-formed file malformed."""
    text = '<sdf version="1.9"><model name="m">' + "<a>" * 300 + "</a>" * 300 + "</model></sdf>"
    with pytest.raises(ModelError) as e:
        load_model(text, "sdf")
    assert "nest more than 256 levels deep" in str(e.value) and "malformed" not in str(e.value)


@pytest.mark.parametrize("objects, kind", [
    ('<site name="s"/><site name="s" pos="1 0 0"/>', "site"),  # (the second was dropped without a word)
    ('<geom name="g" size="0.1"/><geom name="g" size="0.2"/>', "geom"),
    ('<body name="c"><freejoint name="j"/><geom size="0.1"/></body>', "joint"),  # (a free joint is a joint)
    ('<body name="world"><geom size="0.1"/></body>', "body"),  # (the world body's name)
])
def test_a_name_repeated_within_its_kind_is_refused_as_mujoco_refuses_it(objects, kind):
    """Found by differential fuzzing against MuJoCo: MuJoCo's names are unique per kind of object, and it
    refuses a repeated one; a second site of a name was dropped, a second geom or sensor kept under another."""
    text = ('<mujoco>\n<worldbody>\n<body name="b"><joint name="j"/><geom size="0.1"/>\n'
            f'{objects}\n</body></worldbody></mujoco>')
    with pytest.raises(ValueError, match=f"repeated name '.*' in {kind}"):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(ModelError, match="MuJoCo refuses a repeated name") as e:
        load_model(text, format="mjcf")
    assert e.value.line == 4


def test_repeated_sensor_and_mesh_names_are_refused_and_names_of_two_kinds_may_match():
    sensors = ('<mujoco><worldbody><body name="b"><joint/><geom size="0.1"/><site name="s"/></body></worldbody>\n'
               '<sensor><gyro name="x" site="s"/>\n<accelerometer name="x" site="s"/></sensor></mujoco>')
    meshes = ('<mujoco><asset><mesh file="a.stl"/>\n<mesh name="a" file="b.stl"/></asset>'
              '<worldbody><body name="b"><geom size="0.1"/></body></worldbody></mujoco>')
    for text, kind, line in ((sensors, "sensor", 3), (meshes, "mesh", 2)):
        with pytest.raises(ValueError, match=f"repeated name '.*' in {kind}"):
            mujoco.MjModel.from_xml_string(text)
        with pytest.raises(ModelError, match=f"{kind} name '.*' is used twice") as e:
            load_model(text, format="mjcf")
        assert e.value.line == line
    both = ('<mujoco><worldbody><body name="b"><joint name="x"/><geom name="x" size="0.1"/><site name="x"/></body>'
            '</worldbody></mujoco>')
    mujoco.MjModel.from_xml_string(both)
    load_model(both, format="mjcf")


@pytest.mark.parametrize("inner", [
    '<joint name="j"><body name="a"><geom size="0.1"/></body><site name="s"/></joint>',
    '<geom size="0.1"><site name="s"/></geom>',
])
def test_a_name_in_what_mujoco_reads_past_is_no_second_object(inner):
    """MuJoCo 4.0 does not check what stands in a <frame> against its schema, and reads past what a joint or a geom
    there holds: a body or site of a name taken is no repeated name (MuJoCo reads the file; it was refused here,
    fuzz_reference.py --format mjcf seed 20261305). Named as not in the model, as everything such an element holds."""
    text = ('<mujoco><worldbody><body name="a"><frame><body name="c">' + inner +
            '<geom size="0.1"/><site name="s"/></body></frame><geom size="0.1"/></body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    assert (m.nbody, m.nsite) == (3, 1)
    warnings: list[str] = []
    model = load_model(text, format="mjcf", warnings=warnings)
    assert sorted(model.links) == ["a", "c"]
    assert any("not in the model" in w and ("in <joint>" in w or "in <geom>" in w) for w in warnings), warnings


@pytest.mark.parametrize("tiny", [
    '<geom type="sphere" size="1e-9" mass="0.2"/>',
    '<geom type="sphere" size="1.3e-5" mass="0.2"/>',  # (a volume of 9.2e-15 m^3: left out)
    '<geom type="sphere" size="1.34e-5" mass="0.2"/>',  # (1.008e-14 m^3: counted)
    '<geom type="box" size="1.2e-15 1 1" mass="3"/>',
    '<geom type="box" size="1.3e-15 1 1" mass="3"/>',
    '<geom type="capsule" size="1e-8 1" density="1e20"/>',
])
def test_a_geom_of_almost_no_volume_adds_no_mass_as_in_mujoco(tiny):
    """MuJoCo leaves a geom given a mass out of the body's inertia when its volume is under MuJoCo's mjEPS (1e-14 m^3):
    the import counted it (a foot 0.2 kg heavier than MuJoCo's, fuzz_reference.py --format mjcf seed 20261305). A
    density's mass, however small the volume, is counted (the capsule)."""
    text = (f'<mujoco><worldbody><body name="b"><freejoint/><geom size="0.1"/>{tiny}</body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    link = load_model(text, format="mjcf").links["b"]
    assert link.inertia.mass == pytest.approx(m.body_mass[1], rel=1e-12)
    np.testing.assert_allclose(np.linalg.eigvalsh(link.inertia.inertia), np.sort(m.body_inertia[1]),
                               rtol=1e-9)


def test_a_link_named_world_below_the_root_is_refused_by_the_export_not_written_for_mujoco_to_refuse():
    urdf = """<robot name="r">
  <link name="base"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="world"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="base"/><child link="world"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>"""
    with pytest.raises(ModelError, match="link 'world'.*MuJoCo refuses the file"):
        export_model(load_model(urdf), "mjcf")


@pytest.mark.parametrize("text, message", [
    ('<mujoco>\n<worldbody><body name="b"><joint/>\n<geom size="0.1" material="nope"/></body></worldbody></mujoco>',
     "unknown material 'nope'"),  # (the colour it gives was left out without a word)
    ('<mujoco><default><geom material="nope"/></default>\n<worldbody><body name="b"><joint/>\n<geom size="0.1"/></body>'
     "</worldbody></mujoco>", "unknown material 'nope'"),  # (a class's material, where a geom uses it)
    ('<mujoco>\n<worldbody><body name="b"><joint/><geom size="0.1"/>\n<site name="s" material="nope"/></body>'
     "</worldbody></mujoco>", "unknown material 'nope'"),
    ('<mujoco>\n<worldbody><frame>\n<joint name="w"/></frame><body name="b"><joint/><geom size="0.1"/></body>'
     "</worldbody></mujoco>", "a <joint> in the world body"),  # (it was left out without a word)
    ('<mujoco>\n<worldbody><body name="b"><joint/><geom size="0.1"/></body></worldbody>\n'
     '<sensor><frameangacc objtype="-" objname="b"/></sensor></mujoco>', 'objtype="-" is not one of'),
])
def test_references_and_keywords_mujoco_refuses_are_refused_at_their_line(text, message):
    """Found by differential fuzzing against MuJoCo (bench/fuzz_reference.py --format mjcf): each file MuJoCo refuses
    (checked here) was read, and what it held left out or named as not represented."""
    both_refuse(text, message, 3)


def test_a_class_material_no_geom_uses_is_not_judged():
    text = ('<mujoco><default><default class="x"><geom material="nope"/></default></default>'
            '<worldbody><body name="b"><joint/><geom size="0.1"/></body></worldbody></mujoco>')
    mujoco.MjModel.from_xml_string(text)
    load_model(text, format="mjcf")


@pytest.mark.parametrize("first, second, where", [
    ('<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>', '<inertial pos="0 0 0" mass="2" diaginertia="1 1 1"/>',
     "body"),
    ('<default><geom density="5"/>', '<geom density="7"/></default>', "default"),
])
def test_a_second_element_mujoco_takes_once_is_refused_at_its_line(first, second, where):
    """Found by differential fuzzing against MuJoCo: a body's second <inertial> (or a default class's second <geom>)
    replaced the first without a word; MuJoCo's schema takes one (idyntree_models/formats/mjcf_schema.py,
    generated from mujoco.mj_printSchema) and refuses the file."""
    if where == "body":
        text = f'<mujoco><worldbody><body name="b"><joint/>{first}\n{second}</body></worldbody></mujoco>'
    else:
        text = f'<mujoco>{first}\n{second}\n<worldbody><body name="b"><joint/><geom size="0.1"/></body></worldbody></mujoco>'
    with pytest.raises(ValueError, match="unique element"):
        mujoco.MjModel.from_xml_string(text)
    with pytest.raises(ModelError, match=f"a second <.*> in <{where}>") as e:
        load_model(text, format="mjcf")
    assert e.value.line == 2


def test_the_table_of_unique_elements_is_mujocos_own():
    """The generated table is what scripts/mjcf_schema.py makes of the installed MuJoCo's schema now."""
    import importlib.util

    from idyntree_models.formats.mjcf_schema import UNIQUE_CHILDREN

    spec = importlib.util.spec_from_file_location("mjcf_schema_script", REPO / "scripts" / "mjcf_schema.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    table = script.unique_children(mujoco.mj_printSchema(False, False))
    assert {k: frozenset(v) for k, v in table.items()} == UNIQUE_CHILDREN


@pytest.mark.parametrize("world, body, message", [
    ("", '<geom type="sphere" size="0.1" fromto="0 0 0 0 0 1"/>', "fromto on a sphere geom"),
    ("", '<site name="s" fromto="0 0 0 0 0 1"/>', "fromto on a sphere site"),  # (a site is a sphere by default)
    ("", '<body name="c"><joint name="k" type="ball" range="0.001 60"/><geom size="0.1"/></body>',
     "range 0.001 60 must start at 0"),
    ("", '<body name="c"><joint name="k" type="ball" range="-10 0"/><geom size="0.1"/></body>',
     "range -10 0 must start at 0"),  # (not increasing from 0: it was not judged)
    ("", '<body name="c"><joint name="k" type="ball" range="-10 -5" limited="true"/><geom size="0.1"/></body>',
     "range -10 -5 must start at 0"),
    ('<frame><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/></frame>', "", "a <inertial> in the world body"),
])
def test_what_mujoco_refuses_in_bodies_is_refused_at_its_line(world, body, message):
    """Found by differential fuzzing against MuJoCo: a fromto placed a sphere at the middle of its segment, a ball
    joint's cone range was read from its second number only, and the world body's inertial was left out; MuJoCo
    refuses each file (checked here)."""
    text = (f'<mujoco><worldbody>\n{world}<body name="b"><joint name="j"/><geom size="0.1"/>\n{body}</body>'
            "</worldbody></mujoco>")
    both_refuse(text, message, (2 if world else 3))


def test_an_empty_material_is_none_and_texture_names_come_from_their_file():
    """From the review of the name checks: material="" names no material in MuJoCo (it clears a class's), and an
    unnamed texture takes its file's name, as a mesh does."""
    empty = ('<mujoco><asset><material name="m"/></asset><default><geom material="m"/></default><worldbody>'
             '<body name="b"><joint/><geom size="0.1" material=""/></body></worldbody></mujoco>')
    mujoco.MjModel.from_xml_string(empty)
    load_model(empty, format="mjcf")
    textures = ('<mujoco><asset><texture file="wood.png" type="2d"/>\n<texture name="wood" type="2d" builtin="checker" '
                'width="8" height="8"/></asset><worldbody><body name="b"><geom size="0.1"/></body></worldbody></mujoco>')
    both_refuse(textures, "texture name 'wood' is used twice (first at line 1) (a name taken from the file name", 2,
                "repeated name 'wood' in texture")


def test_force_torque_sensor_names_the_export_makes_are_unique():
    """From the review of the name checks: a force/torque sensor 'ft' is written as the pair 'ft_force' and 'ft_torque',
    which an accelerometer of the model may be named already; MuJoCo refused the export (and our import since)."""
    urdf = """<robot name="r">
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <sensor name="ft" type="force_torque"><parent joint="j"/><force_torque><frame>child</frame>
    <measure_direction>child_to_parent</measure_direction></force_torque></sensor>
  <sensor name="ft_force" type="accelerometer"><parent link="b"/></sensor>
</robot>"""
    model = load_model(urdf)
    text = export_model(model, "mjcf")
    mujoco.MjModel.from_xml_string(text)
    assert model_differences(model, load_model(text, format="mjcf")) == []


def test_every_worldbody_is_part_of_the_world_body_as_in_mujoco():
    """Found by differential fuzzing against MuJoCo: MuJoCo makes one world body of every <worldbody>, and the
    import read the first: the bodies of the second were lost without a word."""
    text = ('<mujoco><worldbody><body name="a"><joint name="ja"/><geom size="0.1"/></body></worldbody>\n'
            '<worldbody><body name="b" pos="1 2 3" euler="10 20 30"><joint name="jb" axis="1 0 0"/><geom size="0.1"/>'
            '<site name="tip" pos="0 0 1"/></body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    model = load_model(text, format="mjcf")
    theirs = {mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b) for b in range(m.nbody)}
    assert set(model.links) == theirs == {"world", "a", "b"}
    config = {"ja": 0.3, "jb": -0.7}
    ours = Kinematics(model).world_transforms(config)
    bodies, sites = mj_poses(m, config)
    for name, pose in (bodies | sites).items():
        assert _close(ours[name], pose, 1e-12), name
    both_refuse(text.replace("\n<worldbody>", '\n<worldbody childclass="x">'), "<worldbody> takes no attributes", 2,
                "World body cannot have attributes")


def _unread_world(world: str, body: str = "") -> str:
    """A robot whose world body is not part of it (its base has no joint), with `world` there."""
    return f'<mujoco><asset><mesh name="m" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/></asset><worldbody>\n{world}\n' \
           f'<body name="b"><geom size="0.1"/>{body}</body></worldbody></mujoco>'


@pytest.mark.parametrize("text, message, theirs", [
    (_unread_world('<geom size="0"/>'), "sphere geom: its radius (size[0]) is 0", "size 0 must be positive"),
    (_unread_world('<geom size="1 1 1" material="no"/>'), "unknown material 'no'", "not found"),
    (_unread_world('<frame><site type="sphere" fromto="0 0 0 1 0 0"/></frame>'), "fromto on a sphere site",
     "fromto requires"),
    (_unread_world('<geom type="box" size="1 1 1" mesh="no"/>'), "unknown mesh 'no'", "not found"),
    (_unread_world('<geom type="plane" size="1 1"/>'), "its grid spacing, is 0", "plane size"),
    (_unread_world("", '\n<site size="0"/>'), "sphere site: its radius (size[0]) is 0", "must be positive"),
    (_unread_world("", '\n<site name="s" type="box" size="0.1 0 0.1"/>'), "box site: its y half-size (size[1]) is 0",
     "size 1 must be positive"),
    (_unread_world("", '\n<site type="capsule" size="0.1" fromto="0 0 0 0 0 1e-7"/>'), "fromto: the two points are "
     "closer than 1e-07", "too close"),
    (_unread_world("", '\n<site name="s" type="plane"/>'), "a site of type plane", "not allowed in site"),
    (_unread_world("", '\n<site name="s" type="mesh"/>'), "a mesh site needs a mesh=", "valid meshid"),
    (_unread_world("", '\n<site name="s" type="box" mesh="m"/>'), "mesh= on a site of type box", "mesh sites"),
    (_unread_world("", '\n<site name="s" rgba="1 0 0 1e39"/>'), "beyond single precision", "too large"),
    (_unread_world("", '\n<geom size="0.1" rgba="1 0 0 -1e39"/>'), "beyond single precision", "too large"),
    (_unread_world("", '\n<joint axis="0 0 1e-7"/>'), "joint axis is shorter than 1e-07", "axis too small"),
    (_unread_world("", '\n<site name="s" zaxis="0 1e-7 0"/>'), "zaxis is shorter than 1e-07", "zaxis too small"),
    (_unread_world("", '\n<site name="s" xyaxes="1e-8 0 0 0 1 0"/>'), "the x axis is shorter", "xaxis too small"),
    (_unread_world("", '\n<site name="s" xyaxes="1 0 0 10 1e-7 0"/>'), "the y axis's part across", "yaxis too small"),
    (_unread_world("", '\n<site name="s" axisangle="0 0 1e-8 30"/>'), "its axis is shorter", "axisangle too small"),
])
def test_what_mujoco_refuses_in_sites_and_in_the_world_body_is_refused_though_not_read(text, message, theirs):
    """Found by differential fuzzing against MuJoCo: the shape of a site (named or not: the model holds only a
    named site's frame) and the geoms and sites of a world body that is not the robot's were not judged, so a file
    MuJoCo refuses was read; and a direction or fromto down to 1e-12 long was taken where MuJoCo's limit is 1e-7."""
    line = 4 if "\n<site" in text.split("<body")[1] or "\n<geom" in text.split("<body")[1] or "\n<joint" in \
        text.split("<body")[1] else 2  # (the body's content is on line 4, the world body's on line 2)
    both_refuse(text, message, line, theirs)


@pytest.mark.parametrize("tail", ['<joint axis="0 0 1.1e-7"/>', '<site name="s" zaxis="0 2e-7 0"/>',
                                  '<site name="s" xyaxes="1 0 0 10 2e-7 0"/>', '<site type="sdf"/>',
                                  '<site name="s" type="capsule" size="0.1" fromto="0 0 0 0 0 2e-7"/>',
                                  '<site name="s" rgba="1 0 0 3.4e38"/>', '<site name="s" type="ellipsoid" size="0.1"/>'])
def test_what_mujoco_reads_beside_those_limits_is_read(tail):
    """The other side of each limit above (a site's sizes not given are MuJoCo's 0.005, not 0)."""
    text = _unread_world("", tail)
    mujoco.MjModel.from_xml_string(text)
    load_model(text, format="mjcf")


@pytest.mark.parametrize("text, message, line, theirs", [
    ('<mujoco><worldbody><body name="b"><geom size="0.1"/></body></worldbody><keyframe><key name="k"/>\n'
     '<key name="k"/></keyframe></mujoco>', "key name 'k' is used twice", 2, "repeated name"),
    ('<mujoco>\n<compiler inertiagrouprange="-1e-9 3"/><worldbody><body name="b"><geom size="0.1"/></body></worldbody>'
     '</mujoco>', 'inertiagrouprange="-1e-9 3" is not two integers', 2, "bad format"),
    ('<mujoco>\n<compiler inertiagrouprange="0 3 4"/><worldbody><body name="b"><geom size="0.1"/></body></worldbody>'
     '</mujoco>', "is not two integers", 2, "too much data"),
    ('<mujoco><asset>\n<material name="m" rgba="1 1 1 1e39"/></asset><worldbody><body name="b"><geom size="0.1"/>'
     '</body></worldbody></mujoco>', "beyond single precision", 2, "too large"),
])
def test_keys_group_ranges_and_colours_mujoco_refuses_are_refused(text, message, line, theirs):
    both_refuse(text, message, line, theirs)


def test_a_colour_beyond_single_precision_is_left_out_of_the_export_with_a_warning(caplog):
    """URDF and SDF colours are doubles; MuJoCo holds a colour in single precision and refuses the file whose colour
    is beyond it, which the export wrote."""
    urdf = ('<robot name="r"><material name="c"><color rgba="1e39 0 0 1"/></material><link name="a"><visual>'
            '<geometry><sphere radius="1"/></geometry><material name="c"/></visual></link></robot>')
    with caplog.at_level(logging.WARNING):
        text = export_model(load_model(urdf), "mjcf")
    assert "1 colour(s) left out" in caplog.text and "1e+39" in caplog.text
    mujoco.MjModel.from_xml_string(text)
    assert load_model(text, format="mjcf").links["a"].visuals[0].material is None


def test_a_backslash_in_a_mesh_file_is_a_separator_as_in_mujoco(tmp_path):
    """Files written on Windows give mesh paths with backslashes; MuJoCo takes them as separators (the mesh
    `meshes\\part.stl` is meshes/part.stl, named 'part'). The import named it 'meshes\\part' and refused the geom
    that uses it as 'part'."""
    (tmp_path / "meshes").mkdir()
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype="<f4")
    faces = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
    body = b"".join(np.zeros(3, "<f4").tobytes() + v[list(f)].tobytes() + b"\0\0" for f in faces)
    (tmp_path / "meshes" / "part.stl").write_bytes(b"\0" * 80 + len(faces).to_bytes(4, "little") + body)
    path = tmp_path / "robot.xml"
    path.write_text('<mujoco><asset><mesh file="meshes\\part.stl"/></asset><worldbody><body name="a">'
                    '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/><geom type="mesh" mesh="part"/></body>'
                    '</worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_path(str(path))
    assert mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_MESH, 0) == "part"
    mesh = load_model(path).links["a"].visuals[0]
    assert Path(mesh.filename).resolve() == (tmp_path / "meshes" / "part.stl").resolve()


@pytest.mark.parametrize("body, tail, message, theirs", [
    ('<geom size="0.1 0.1 0.1 0.1"/>', "", "'size' takes 1 to 3 numbers, got 4", "too much data"),  # (one was dropped)
    ('<geom type="capsule" size="0.1" fromto="0 0 0 1 0 0" pos="1 0 0"/>', "", "both pos and fromto", "both pos and "
     "fromto"),  # (the pos was ignored)
    ('<site name="t" type="capsule" size="0.1" pos="0 1e-300 0" fromto="0 0 0 1 0 0"/>', "", "both pos and fromto",
     "both pos and fromto"),
    ('<joint name="j"/>', '<equality><joint joint1="j" joint2="k" polycoef="0 1 0 0 0 0"/></equality>',
     "'polycoef' takes 1 to 5 numbers, got 6", "too much data"),
])
def test_counts_and_placements_mujoco_refuses_are_refused(body, tail, message, theirs):
    text = (f'<mujoco><worldbody><body name="b">\n{body}<geom size="0.1"/></body><body name="c"><joint name="k"/>'
            f'<geom size="0.1"/></body></worldbody>{tail}</mujoco>')
    both_refuse(text, message, 2, theirs)


def test_a_polycoef_of_fewer_numbers_takes_mujocos_defaults_for_the_rest():
    """MuJoCo reads one to five numbers of a polycoef, the rest its defaults 0 1 0 0 0; the import refused any but
    five. Checked by the pose MuJoCo gives the mimic joint where the equality holds."""
    for coef, offset, multiplier in (("0.1 0.5 0 0", 0.1, 0.5), ("0.2", 0.2, 1.0)):
        text = ('<mujoco><worldbody><body name="a"><joint name="j"/><geom size="0.1"/><body name="b" pos="0 0 1">'
                '<joint name="k"/><geom size="0.1"/></body></body></worldbody><equality><joint joint1="k" joint2="j" '
                f'polycoef="{coef}"/></equality></mujoco>')
        m = mujoco.MjModel.from_xml_string(text)
        assert list(m.eq_data[0][:2]) == [offset, multiplier]
        mimic = load_model(text, format="mjcf").joints["k"].mimic
        assert (mimic.joint, mimic.offset, mimic.multiplier) == ("j", offset, multiplier)


@pytest.mark.parametrize("section, named, message", [
    ('<actuator>\n<motor joint="x"/></actuator>', "j", 'joint="x" names no joint'),
    ('<actuator>\n<general site="x"/></actuator>', "s", 'site="x" names no site'),
    ('<sensor>\n<jointpos joint="x"/></sensor>', "j", 'joint="x" names no joint'),
    ('<sensor>\n<framepos objtype="geom" objname="x"/></sensor>', "g", 'objname="x" names no geom'),
    ('<actuator><motor name="a" joint="j"/></actuator><sensor>\n<actuatorfrc actuator="x"/></sensor>', "a",
     'actuator="x" names no actuator'),
    ('<contact>\n<exclude body1="world" body2="x"/></contact>', "b", 'body2="x" names no body'),
    ('<equality>\n<weld body1="x"/></equality>', "b", 'body1="x" names no body'),
    ('<tendon><fixed>\n<joint joint="x" coef="1"/></fixed></tendon>', "j", 'joint="x" names no joint'),
])
def test_a_reference_to_no_object_in_a_section_not_read_is_refused_as_mujoco_refuses_it(section, named, message):
    """Found by differential fuzzing against MuJoCo: an actuator, tendon, contact pair, equality or sensor naming an
    object the file does not define was read (the section named as not in the model); MuJoCo builds nothing. Named
    right (`named`), both read it."""
    text = ('<mujoco><worldbody><body name="b"><joint name="j"/><geom name="g" size="0.1"/><site name="s"/></body>'
            f'</worldbody>{section}</mujoco>')
    both_refuse(text, message, 2)
    right = text.replace('"x"', f'"{named}"')
    mujoco.MjModel.from_xml_string(right)
    load_model(right, format="mjcf")


@pytest.mark.parametrize("text, message, theirs", [
    ('<mujoco><worldbody>\n<body childclass=""><geom size="1"/></body></worldbody></mujoco>',
     "unknown default childclass ''", "unknown default childclass"),  # (taken for none)
    ('<mujoco><worldbody>\n<frame childclass="nope"><body><geom size="1"/></body></frame></worldbody></mujoco>',
     "unknown default childclass 'nope'", "unknown default childclass"),
    ('<mujoco><worldbody><body>\n<geom class="" size="1"/></body></worldbody></mujoco>', "unknown default class ''",
     "unknown default class"),  # (taken for 'main')
    ('<mujoco><default>\n<geom euler="0.]2 0 0"/></default><worldbody><body><geom size="1" quat="1 0 0 0"/></body>'
     '</worldbody></mujoco>', "attribute 'euler' must be numbers", "bad format"),  # (a class's value no geom used)
    ('<mujoco><default><default class="x">\n<joint range="1"/></default></default><worldbody><body><geom size="1"/>'
     '</body></worldbody></mujoco>', "attribute 'range' needs 2 numbers, got 1", "not have enough data"),
    ('<mujoco><default><default class="x">\n<geom type="bogus"/></default></default><worldbody><body><geom size="1"/>'
     '</body></worldbody></mujoco>', 'type="bogus" is not one of', "invalid keyword"),
    ('<mujoco><default><default class="x">\n<geom size="1 2 3 4"/></default></default><worldbody><body>'
     '<geom size="1"/></body></worldbody></mujoco>', "'size' takes 1 to 3 numbers", "too much data"),
])
def test_default_classes_mujoco_refuses_are_refused_where_they_are_defined(text, message, theirs):
    """Found by differential fuzzing against MuJoCo (seed 20261213): MuJoCo judges a default class's values where the
    class is defined, used or not, and refuses an empty or unknown class name; the import judged a class's values
    where an element used them, and took class="" for 'main'."""
    both_refuse(text, message, 2, theirs)


def test_references_to_what_replicate_makes_are_not_judged():
    """Found in review: <replicate>, <attach>, <flexcomp> and <composite> make objects of names the file does not
    spell; a motor on a replicated joint was refused."""
    text = ('<mujoco><worldbody><body name="base"><joint name="j0"/><geom size=".1"/><replicate count="2" '
            'offset="1 0 0"><body name="r"><joint name="rj"/><geom size=".1"/></body></replicate></body></worldbody>'
            '<actuator><motor joint="rj0"/></actuator></mujoco>')
    mujoco.MjModel.from_xml_string(text)
    load_model(text, format="mjcf")


@pytest.mark.parametrize("section, message", [
    ('<sensor>\n<contact subtree1="nope"/></sensor>', 'subtree1="nope" names no body'),
    ('<sensor>\n<user objtype="joint" objname="nope" dim="1"/></sensor>', 'objname="nope" names no joint'),
    ('<actuator>\n<motor joint="j" class="nope"/></actuator>', "unknown default class 'nope'"),
])
def test_more_references_mujoco_refuses_are_refused(section, message):
    text = f'<mujoco><worldbody><body name="b"><joint name="j"/><geom size="0.1"/></body></worldbody>{section}</mujoco>'
    both_refuse(text, message, 2)


def test_a_size_given_over_a_class_s_keeps_the_class_s_other_numbers():
    """Found in review: MuJoCo sets the sizes a geom gives and keeps its class's others (a class capsule "0.05 0.5" and
    a geom size "0.1" make 0.1 by 0.5); the import took 0 for them: a box of a class "0.1 0.2 0.3" given "0.5" was
    refused as flat, and a world geom's capsule had no length."""
    text = ('<mujoco><default><default class="post"><geom type="capsule" size="0.05 0.5"/><default class="inner">'
            '<geom size="0.2"/></default></default><default class="bx"><geom type="box" size="0.1 0.2 0.3"/></default>'
            '</default><worldbody><geom class="post" size="0.1" pos="2 0 0"/><body name="a" pos="0 0 1"><freejoint/>'
            '<geom class="bx" size="0.5" name="g1"/><geom class="inner" name="g2"/><geom class="inner" size="0.3" '
            'name="g3"/></body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    shapes = {v.name: v for v in load_model(text, format="mjcf").links["a"].visuals}
    size = {g: m.geom_size[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, g)] for g in ("g1", "g2", "g3")}
    assert np.allclose(shapes["g1"].size, 2 * size["g1"])
    for g in ("g2", "g3"):
        assert (shapes[g].radius, shapes[g].length) == (size[g][0], 2 * size[g][1])


@pytest.mark.parametrize("value, message, theirs", [
    ("1_0", 'group="1_0" is not an integer', "bad format"),  # (Python's int() reads it as 10)
    ("2147483648", "beyond a 32-bit integer", "too large"),
    ("\uff11", "is not an integer", "bad format"),  # (a full-width digit, which int() reads)
    ("1" + "0" * 4399, "beyond a 32-bit integer", "too large"),  # (int() refuses 4,300+ digits: an internal error)
    ("0" * 10 + "2147483648", "beyond a 32-bit integer", "too large"),
])
def test_an_integer_is_read_as_mujoco_reads_one(value, message, theirs):
    """Found by differential fuzzing against MuJoCo (seed 20261215): integers were read by Python's int(), which takes
    digit separators, other scripts' digits and any size."""
    both_refuse(f'<mujoco><worldbody><body>\n<geom size="1" group="{value}"/></body></worldbody></mujoco>', message, 2,
                theirs)
    text = '<mujoco><worldbody><body><geom size="1" group=" "/></body></worldbody></mujoco>'
    mujoco.MjModel.from_xml_string(text)
    load_model(text, format="mjcf")


@pytest.mark.parametrize("compiler, hinge, slide", [
    ('autolimits="true"', 'range="-45 60" ref="20"', 'range="-0.1 0.2" ref="0.05"'),
    ('autolimits="true" angle="radian"', 'range="-0.5 1" ref="-0.3"', 'range="0 0.2" ref="0.3"'),
    ('', 'limited="true" range="-30 30" ref="10"', 'ref="0.05"'),  # (a slide without a range: nothing to move)
])
def test_a_joint_s_range_is_read_relative_to_its_ref_as_mujoco_places_the_body(compiler, hinge, slide):
    """Found in review: the import places a body as written, which is MuJoCo's qpos = ref (our position 0), and
    copied the range, which MuJoCo gives in qpos terms: a hinge of range -45 60 and ref 20 could turn 20 degrees too
    far one way and not far enough the other, in every format written, with only the ref named. Checked on MuJoCo's
    own kinematics: the body poses at our limits are those at its range's ends."""
    text = (f'<mujoco><compiler {compiler}/><worldbody><body name="b0" pos="0 0 1"><geom size="0.1"/>'
            f'<body name="b1" pos="0.2 0 0" euler="90 0 0"><joint name="h" axis="0 1 1" {hinge}/><geom size="0.1"/>'
            f'<body name="b2" pos="0.3 0 0"><joint name="s" type="slide" axis="1 0 0" {slide}/><geom size="0.1"/>'
            '</body></body></body></worldbody></mujoco>')
    m = mujoco.MjModel.from_xml_string(text)
    warnings: list[str] = []
    model = load_model(text, format="mjcf", warnings=warnings)
    kin = Kinematics(model)
    for j, name in enumerate(("h", "s")):
        limits = model.joints[name].limits
        assert limits.has_position_limits == bool(m.jnt_limited[j]), name
        assert any(f"joint '{name}': ref=" in w for w in warnings), warnings
        ends = [(m.jnt_range[j][k], [limits.min_position, limits.max_position][k]) for k in (0, 1)] \
            if m.jnt_limited[j] else [(m.qpos0[j] + 0.25, 0.25)]
        for theirs, ours in ends:
            config = {"h": 0.0, "s": 0.0, name: ours}
            mine = kin.world_transforms(config)
            d = mujoco.MjData(m)
            d.qpos[:] = m.qpos0
            d.qpos[j] = theirs
            mujoco.mj_kinematics(m, d)
            world_H = {}
            for b in (1, 2, 3):
                t = world_H[mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)] = np.eye(4)
                t[:3, :3], t[:3, 3] = d.xmat[b].reshape(3, 3), d.xpos[b]
            for body in ("b1", "b2"):  # (relative to the base, which the model places at its origin)
                assert _close(mine[body], np.linalg.inv(world_H["b0"]) @ world_H[body]), (name, theirs, ours, body)


@pytest.mark.parametrize("value, read", [("0" * 4400 + "3", 3), ("-" + "0" * 30 + "2", -2), (" +07 ", 7)])
def test_an_integer_s_leading_zeros_are_no_size(value, read):
    """Found by fuzzing (fuzz_report, seed 20261505): 4,400 digits in a default class's `group` made Python's int()
    raise (its digit limit), reported as an internal error; MuJoCo reads leading zeros as nothing."""
    text = f'<mujoco><worldbody><body><geom size="1" group="{value}"/></body></worldbody></mujoco>'
    m = mujoco.MjModel.from_xml_string(text)
    assert m.geom_group[0] == read
    load_model(text, format="mjcf")
    text = f'<mujoco><compiler inertiagrouprange="0 {value}"/><worldbody><body><geom size="1"/></body></worldbody></mujoco>'
    mujoco.MjModel.from_xml_string(text)
    load_model(text, format="mjcf")
    both_refuse('<mujoco><compiler inertiagrouprange="0 1' + "0" * 4400 + '"/><worldbody><body><geom size="1"/></body>'
                "</worldbody></mujoco>", "beyond a 32-bit integer", 1, "too large")
