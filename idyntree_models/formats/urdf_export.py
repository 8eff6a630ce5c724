"""URDF export with iDynTree's extensions, written so that loading the file gives the model back.

The URDF importer (urdf.py) defines what "back" means, so every choice here mirrors a rule there:
- additional frames become massless leaf links with fixed joints (`<frame>_fixed_joint`), which the
  importer (and iDynTree) turn back into frames;
- a frame named after a sensor that sits exactly where the sensor frame would be is NOT written: the
  loader's add_sensor_frames_as_additional_frames recreates it, and writing it too would make every
  URDF -> URDF round trip warn that the sensor frame name is taken;
- sensors use iDynTree's top-level `<sensor>` extension (iDynTree itself never exports them);
- spherical joints become three continuous joints (model/spherical.py) that
  `convert_three_revolute_joints_to_spherical` folds back to the same joint.
Numbers are written with repr so they read back bit for bit; rotations go through roll-pitch-yaw,
which costs at most a few ulps.
"""

from __future__ import annotations

import numpy as np
from lxml import etree

from ..errors import ModelError
from ..model.model import (
    Box,
    Cylinder,
    ForceTorqueSensor,
    Joint,
    JointType,
    Link,
    LinkSensor,
    Material,
    Mesh,
    Model,
    SensorType,
    Shape,
    Sphere,
)
from ..model.spherical import unfold_spherical_joints
from ..model.topology import tree_order
from ..model.transforms import matrix_to_rpy, translation
from .base import Diagnostics, ExportOptions
from .common import format_number

# poses closer than this are "the same" when deciding that a frame is a sensor's own frame
_SAME_POSE = 1e-12


def _num(x: float) -> str:
    return format_number(x, "a number written to URDF")


def _nums(v) -> str:
    return " ".join(_num(x) for x in np.ravel(v))


def _origin(parent: etree._Element, t: np.ndarray, always: bool = False) -> None:
    t = np.asarray(t, dtype=float)
    if not always and np.array_equal(t, np.eye(4)):
        return
    if not np.all(np.isfinite(t)):
        raise ModelError(f"cannot write a non-finite transform to URDF (in <{parent.tag} name='{parent.get('name')}'>)")
    etree.SubElement(parent, "origin", xyz=_nums(t[:3, 3]), rpy=_nums(matrix_to_rpy(t[:3, :3])))


def _same_pose(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.max(np.abs(np.asarray(a) - np.asarray(b))) <= _SAME_POSE)


# -- model preparation ---------------------------------------------------------------------
def _prepare(model: Model, options: ExportOptions, diag: Diagnostics) -> Model:
    """A copy of the model where every joint has a URDF form (spherical unfolded, axis offsets split)."""
    spherical = [j.name for j in model.joints.values() if j.type is JointType.SPHERICAL]
    if spherical:
        if not options.export_spherical_joints_as_three_revolute_joints:
            raise ModelError(
                f"URDF has no spherical joint and exporting spherical joint(s) {', '.join(spherical)} as three "
                "revolute joints is disabled (enable export_spherical_joints_as_three_revolute_joints, or drop "
                "--no-export-spherical-joints-as-three-revolute-joints)"
            )
        for name in spherical:
            clash = [n for n in _unfolded_names(name) if n in model.links or n in model.joints or n in model.frames]
            if clash:
                raise ModelError(
                    f"cannot write spherical joint '{name}' as three revolute joints: the model already has "
                    f"{', '.join(repr(c) for c in clash)}"
                )
        model = unfold_spherical_joints(model)
    else:
        model = model.copy()
    _split_axis_offsets(model, diag)
    return model


def _unfolded_names(joint: str) -> list[str]:
    from ..model.spherical import FAKE_LINK, OFFSET_JOINT, REV_JOINT

    return [FAKE_LINK.format(joint=joint, index=i) for i in (1, 2, 3)] + [
        REV_JOINT.format(joint=joint, axis=a) for a in "xyz"
    ] + [OFFSET_JOINT.format(joint=joint)]


def _split_axis_offsets(model: Model, diag: Diagnostics) -> None:
    """URDF revolute axes pass through the child origin; move an off-origin axis onto a helper link.

    Only the part of the axis origin perpendicular to the axis matters (and none of it for
    prismatic joints).  The helper link keeps every frame's kinematics but is an extra link after
    reloading, hence the warning.
    """
    joints: dict[str, Joint] = {}
    for joint in model.joints.values():
        joints[joint.name] = joint
        if joint.type is not JointType.REVOLUTE:
            continue
        o = joint.axis_origin
        perp = o - float(o @ joint.axis) * joint.axis
        if np.linalg.norm(perp) <= 1e-12:
            continue
        helper = f"{joint.child}_axis_offset"
        k = 1
        while helper in model.links or helper in model.frames:
            k += 1
            helper = f"{joint.child}_axis_offset{k}"
        fixed = f"{helper}_fixed_joint"
        while fixed in model.joints or fixed in joints:
            fixed += "_"
        model.links[helper] = Link(helper)
        child = joint.child
        joint.child = helper
        joint.rest_transform = joint.rest_transform @ translation(perp)
        joint.axis_origin = np.zeros(3)
        joints[fixed] = Joint(fixed, JointType.FIXED, helper, child, translation(-perp))
        diag.warn(
            f"joint '{joint.name}': its axis does not pass through the child link origin, which URDF cannot "
            f"express; written through the extra massless link '{helper}' (kinematics unchanged)"
        )
    model.joints = joints


# -- elements --------------------------------------------------------------------------------
def _link_element(root: etree._Element, link: Link, diag: Diagnostics) -> None:
    el = etree.SubElement(root, "link", name=link.name)
    inertia = link.inertia
    if inertia.mass != 0.0 or np.any(inertia.com != 0.0) or np.any(inertia.inertia != 0.0):
        inertial = etree.SubElement(el, "inertial")
        etree.SubElement(inertial, "origin", xyz=_nums(inertia.com), rpy="0.0 0.0 0.0")
        etree.SubElement(inertial, "mass", value=_num(inertia.mass))
        i = inertia.inertia
        etree.SubElement(
            inertial,
            "inertia",
            ixx=_num(i[0, 0]),
            ixy=_num(i[0, 1]),
            ixz=_num(i[0, 2]),
            iyy=_num(i[1, 1]),
            iyz=_num(i[1, 2]),
            izz=_num(i[2, 2]),
        )
    for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
        for shape in shapes:
            _shape_element(el, kind, shape, link.name, diag)


def _shape_element(link_el: etree._Element, kind: str, shape: Shape, link: str, diag: Diagnostics) -> None:
    if isinstance(shape, Box):
        geo = ("box", {"size": _nums(shape.size)})
    elif isinstance(shape, Sphere):
        geo = ("sphere", {"radius": _num(shape.radius)})
    elif isinstance(shape, Cylinder):
        geo = ("cylinder", {"radius": _num(shape.radius), "length": _num(shape.length)})
    elif isinstance(shape, Mesh):
        geo = ("mesh", {"filename": shape.filename})
        if not np.array_equal(shape.scale, np.ones(3)):
            geo[1]["scale"] = _nums(shape.scale)
    else:
        diag.warn(f"link '{link}': {kind} {shape.kind} shape has no URDF form and was dropped")
        return
    el = etree.SubElement(link_el, kind)
    if shape.name is not None:
        el.set("name", shape.name)
    _origin(el, shape.link_H_geometry)
    etree.SubElement(etree.SubElement(el, "geometry"), geo[0], **geo[1])
    m = shape.material
    if m is not None and (m.color is not None or m.texture is not None or m.name):
        # URDF readers ignore a collision's material, but the source files carry them and we keep them
        _material_element(el, m)


def _material_element(parent: etree._Element, m: Material) -> None:
    # written inline and complete, so the file needs no global <material> table
    el = etree.SubElement(parent, "material", name=m.name or "")
    if m.color is not None:
        etree.SubElement(el, "color", rgba=_nums(m.color))
    if m.texture is not None:
        etree.SubElement(el, "texture", filename=m.texture)


class _LimitIssues:
    def __init__(self) -> None:
        self.no_effort: list[str] = []
        self.prismatic_unbounded: list[str] = []


def _joint_element(root: etree._Element, joint: Joint, issues: _LimitIssues) -> None:
    lim = joint.limits
    if joint.type is JointType.FIXED:
        type_name = "fixed"
    elif joint.type is JointType.REVOLUTE:
        type_name = "revolute" if lim.has_position_limits else "continuous"
    elif joint.type is JointType.PRISMATIC:
        type_name = "prismatic"
    else:  # unfolded before we get here
        raise ModelError(f"joint '{joint.name}' of type {joint.type.value} has no URDF form")
    el = etree.SubElement(root, "joint", name=joint.name, type=type_name)
    _origin(el, joint.rest_transform)
    etree.SubElement(el, "parent", link=joint.parent)
    etree.SubElement(el, "child", link=joint.child)
    if joint.type is JointType.FIXED:
        return
    etree.SubElement(el, "axis", xyz=_nums(joint.axis))
    positional = lim.has_position_limits
    if positional or lim.has_effort_limit or lim.has_velocity_limit:
        # URDF requires effort and velocity on every <limit>; a missing one is written as 0
        if not (lim.has_effort_limit and lim.has_velocity_limit):
            issues.no_effort.append(joint.name)
        if joint.type is JointType.PRISMATIC and not positional:
            issues.prismatic_unbounded.append(joint.name)
        attrs = {}
        if positional:
            attrs["lower"] = _num(lim.min_position)
            attrs["upper"] = _num(lim.max_position)
        attrs["effort"] = _num(lim.effort_limit if lim.has_effort_limit else 0.0)
        attrs["velocity"] = _num(lim.velocity_limit if lim.has_velocity_limit else 0.0)
        etree.SubElement(el, "limit", **attrs)
    if joint.dynamics is not None:
        etree.SubElement(el, "dynamics", damping=_num(joint.dynamics.damping), friction=_num(joint.dynamics.friction))
    if joint.mimic is not None:
        etree.SubElement(
            el, "mimic", joint=joint.mimic.joint, multiplier=_num(joint.mimic.multiplier), offset=_num(joint.mimic.offset)
        )


def _sensor_element(root: etree._Element, model: Model, sensor, diag: Diagnostics) -> None:
    if isinstance(sensor, ForceTorqueSensor):
        joint = model.joints.get(sensor.parent_joint)
        if joint is None or joint.type is JointType.SPHERICAL:  # a spherical joint written as three revolutes
            diag.warn(
                f"force/torque sensor '{sensor.name}' is in spherical joint '{sensor.parent_joint}', which URDF "
                "writes as three revolute joints; the sensor was dropped"
            )
            return
        # URDF's first/second links are the joint's parent/child; our joints point away from the base
        if sensor.second_link == joint.child:
            child_H_sensor = sensor.second_link_H_sensor
        else:
            child_H_sensor = sensor.first_link_H_sensor
        el = etree.SubElement(root, "sensor", name=sensor.name, type="force_torque")
        etree.SubElement(el, "parent", joint=joint.name)
        parent_H_sensor = joint.rest_transform @ child_H_sensor
        if sensor.frame != "parent" and _same_pose(child_H_sensor, np.eye(4)):
            frame = "child"
        elif _same_pose(parent_H_sensor, np.eye(4)):
            frame = "parent"
        else:
            frame = "sensor"
            _origin(el, child_H_sensor, always=True)
        direction = "parent_to_child" if sensor.applied_wrench_link == joint.child else "child_to_parent"
        ft = etree.SubElement(el, "force_torque")
        etree.SubElement(ft, "frame").text = frame
        etree.SubElement(ft, "measure_direction").text = direction
        return
    if isinstance(sensor, LinkSensor) and sensor.sensor_type in (SensorType.ACCELEROMETER, SensorType.GYROSCOPE):
        el = etree.SubElement(root, "sensor", name=sensor.name, type=sensor.sensor_type.value)
        etree.SubElement(el, "parent", link=sensor.parent_link)
        _origin(el, sensor.link_H_sensor, always=True)
        return
    kind = getattr(sensor, "subtype", None) or sensor.type.value
    diag.warn(f"sensor '{sensor.name}' ({kind}) has no URDF form (force_torque, accelerometer, gyroscope) and was dropped")


def _sensor_frame_pose(sensor) -> tuple[str, np.ndarray] | None:
    """Where add_sensor_frames_as_additional_frames puts the sensor's frame after loading the URDF."""
    if isinstance(sensor, (ForceTorqueSensor, LinkSensor)):
        return sensor.frame_link, sensor.frame_transform
    return None


def _frames_to_write(model: Model, written_sensors: set[str]) -> list:
    out = []
    for frame in model.frames.values():
        sensor = model.sensors.get(frame.name)
        if sensor is not None and sensor.name in written_sensors:
            pose = _sensor_frame_pose(sensor)
            if pose is not None and pose[0] == frame.parent_link and _same_pose(pose[1], frame.link_H_frame):
                continue
        out.append(frame)
    return out


def _reload_warnings(model: Model, frames: list, diag: Diagnostics) -> None:
    """Warn about links that URDF readers will not load back as links."""
    neighbours: dict[str, int] = dict.fromkeys(model.links, 0)
    only_fixed: dict[str, bool] = dict.fromkeys(model.links, True)
    for j in model.joints.values():
        for end in (j.parent, j.child):
            neighbours[end] += 1
            only_fixed[end] = only_fixed[end] and j.type is JointType.FIXED
    for f in frames:
        neighbours[f.parent_link] += 1
    for name, link in model.links.items():
        if not link.inertia.mass > 0 and neighbours[name] == 1 and only_fixed[name]:
            diag.warn(
                f"link '{name}' is massless and attached by one fixed joint only: URDF readers (iDynTree and this "
                "package) will load it as an additional frame, not as a link"
            )


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    model = _prepare(model, options, diag)
    tree = tree_order(model)
    base = model.default_base_link or tree.root
    if base != tree.root:
        raise ModelError(f"default base link '{base}' is not the root of the joint tree ('{tree.root}')")
    root = etree.Element("robot", name=model.name or "robot")
    for name in tree.order:  # base first: some tools take the first link as the root
        _link_element(root, model.links[name], diag)

    writable = {
        s.name
        for s in model.sensors.values()
        if (isinstance(s, ForceTorqueSensor) and s.parent_joint in model.joints)
        or (isinstance(s, LinkSensor) and s.sensor_type in (SensorType.ACCELEROMETER, SensorType.GYROSCOPE))
    }
    frames = _frames_to_write(model, writable)
    _reload_warnings(model, frames, diag)
    for frame in frames:
        _link_element(root, Link(frame.name), diag)

    issues = _LimitIssues()
    for name in tree.order[1:]:
        _joint_element(root, tree.parent_joint[name], issues)
    joint_names = set(model.joints)
    for frame in frames:
        jname = f"{frame.name}_fixed_joint"
        while jname in joint_names:
            jname += "_"
        joint_names.add(jname)
        el = etree.SubElement(root, "joint", name=jname, type="fixed")
        _origin(el, frame.link_H_frame)
        etree.SubElement(el, "parent", link=frame.parent_link)
        etree.SubElement(el, "child", link=frame.name)
    if issues.no_effort:
        diag.warn(
            "URDF requires effort and velocity on <limit>; missing ones were written as 0 for joint(s) "
            + ", ".join(issues.no_effort)
        )
    if issues.prismatic_unbounded:
        diag.warn(
            "URDF has no unbounded prismatic joint with effort/velocity limits; readers will see position limits "
            "[0, 0] on joint(s) " + ", ".join(issues.prismatic_unbounded)
        )
    for sensor in model.sensors.values():
        _sensor_element(root, model, sensor, diag)
    etree.indent(root, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + etree.tostring(root, encoding="unicode") + "\n"


__all__ = ["dump"]
