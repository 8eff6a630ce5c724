"""URDF with iDynTree's extensions: sensors, spherical/ball joints, massless links as frames.

Semantics follow iDynTree 15 where it is right (see shared/docs/urdf-and-idyntree.md) and differ
where it fails silently: bad input raises a ModelError naming the element and line, sensors on
links that become frames are kept, text is trimmed, mimic joints are kept.
"""

from __future__ import annotations

import numpy as np
from lxml import etree

from ..errors import ModelError
from ..model.model import (
    Box,
    Cylinder,
    Dynamics,
    Extension,
    ForceTorqueSensor,
    Frame,
    FrameJoint,
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
    Shape,
    Sphere,
)
from ..model.transforms import inverse, rpy_xyz_to_transform
from .base import Diagnostics, LoadOptions
from .common import FT_DIRECTIONS, FT_FRAMES, INERTIA_KEYS, inertia_from_six
from .xmlutil import XmlReader, parse_xml

_JOINT_TYPES = {
    "fixed": JointType.FIXED,
    "revolute": JointType.REVOLUTE,
    "continuous": JointType.REVOLUTE,
    "prismatic": JointType.PRISMATIC,
    "spherical": JointType.SPHERICAL,
    "ball": JointType.SPHERICAL,
}


class _UrdfReader(XmlReader):
    def origin(self, parent: etree._Element) -> np.ndarray:
        el = parent.find("origin")
        if el is None:
            return np.eye(4)
        xyz = self.vec3_attr(el, "xyz", (0.0, 0.0, 0.0))
        rpy = self.vec3_attr(el, "rpy", (0.0, 0.0, 0.0))
        return rpy_xyz_to_transform(rpy, xyz)


def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    source = diag.source
    try:
        root = parse_xml(text, source)
    except ModelError as e:
        if "Namespace prefix xacro" in e.message:
            raise ModelError(f"{XACRO_HINT} ({e.message})", source=source, line=e.line) from None
        raise
    r = _UrdfReader(source)
    if root.tag != "robot":
        raise r.error(root, f"the root element is <{root.tag}>, a URDF file needs <robot>")
    _refuse_xacro(r, root, text)
    model = Model(name=(root.get("name") or "").strip() or "robot")
    lines: dict[str, int] = {}
    model.metadata["lines"] = lines
    materials = _global_materials(r, root)
    link_lines: dict[str, int] = {}
    for el in root.findall("link"):
        name = r.required(el, "name")
        if name in model.links:
            raise r.error(el, f"duplicate link name '{name}' (first defined at line {link_lines[name]})")
        link_lines[name] = el.sourceline
        model.links[name] = _link(r, el, materials, diag)
        inertial = el.find("inertial")
        lines[f"link '{name}'"] = inertial.sourceline if inertial is not None else el.sourceline
    if not model.links:
        raise r.error(root, "the robot has no <link>")
    joint_lines: dict[str, int] = {}
    dropped_floating: list[str] = []
    for el in root.findall("joint"):
        name = r.required(el, "name")
        if name in joint_lines:
            raise r.error(el, f"duplicate joint name '{name}' (first defined at line {joint_lines[name]})")
        joint_lines[name] = el.sourceline
        lines[f"joint '{name}'"] = el.sourceline
        joint = _joint(r, el, model, diag)
        if joint is None:
            dropped_floating.append(name)
            continue
        model.joints[name] = joint
    try:
        _check_tree(model)
    except ModelError as e:
        raise e.with_source(source) from None
    _drop_floating_root(model, root, r, dropped_floating, diag)
    _links_to_frames(model)
    _sensors(r, root, model, diag)
    _extensions(root, model)
    _ = options
    return model


XACRO_HINT = (
    "the document uses xacro macros, which must be expanded before it is URDF: read it with format "
    "'xacro' (files named *.xacro and documents declaring the xacro namespace are expanded automatically)"
)


def _refuse_xacro(r: _UrdfReader, root: etree._Element, text: str | bytes) -> None:
    """A xacro document read as plain URDF would load as a silently smaller model: refuse it."""
    if ("xacro" if isinstance(text, str) else b"xacro") not in text:
        return
    for el in root.iter(etree.Element):
        if el.prefix == "xacro" or "/xacro" in (etree.QName(el).namespace or ""):
            raise ModelError(f"{XACRO_HINT} (<{el.prefix or 'xacro'}:{etree.QName(el).localname}>)",
                             source=r.source, line=el.sourceline)


# -- pass-through elements -------------------------------------------------------------------
# What the model reads from each level; every other element is kept as an opaque Extension.
_ROBOT_KNOWN = ("link", "joint")
_LINK_KNOWN = ("inertial", "visual", "collision")
_JOINT_KNOWN = ("origin", "parent", "child", "axis", "limit", "dynamics", "mimic")
_FIXED_KNOWN = ("origin", "parent", "child")
_SHAPE_KNOWN = ("origin", "geometry", "material")


def _tag(el: etree._Element) -> str:
    if el.tag[0] != "{":  # the common case, without building a QName
        return el.tag
    q = etree.QName(el)
    return f"{el.prefix}:{q.localname}" if el.prefix else q.localname


def _xml(el: etree._Element) -> str:
    return etree.tostring(el, encoding="unicode", with_tail=False)


def _extensions(root: etree._Element, model: Model) -> None:
    """Keep every element the model has no field for, with where it was (see model.Extension)."""
    sensors = set(model.sensors)
    prev: tuple[str, str | int] | None = None
    for el in root.iterchildren(etree.Element):
        tag = _tag(el)
        name = (el.get("name") or "").strip()
        if tag in _ROBOT_KNOWN or (tag == "sensor" and name in sensors):
            prev = (tag, name)
            if tag == "link":
                _inner_extensions(el, "link", name, _LINK_KNOWN, model)
                for kind in ("visual", "collision"):
                    for i, shape in enumerate(el.findall(kind)):
                        _inner_extensions(shape, kind, name, _SHAPE_KNOWN, model, i)
            elif tag == "joint":
                fixed = (el.get("type") or "").strip() == "fixed"  # the model has no axis, limit... for those
                _inner_extensions(el, "joint", name, _FIXED_KNOWN if fixed else _JOINT_KNOWN, model)
            continue
        model.extensions.append(Extension("urdf", tag, _xml(el), after=prev))
        prev = ("extension", len(model.extensions) - 1)


def _inner_extensions(el: etree._Element, kind: str, owner: str, known: tuple[str, ...], model: Model,
                      index: int | None = None) -> None:
    seen: dict[str, int] = {}
    prev: tuple[str, str | int] | None = None
    for child in el.iterchildren(etree.Element):
        tag = _tag(child)
        if tag not in known:
            model.extensions.append(Extension("urdf", tag, _xml(child), kind, owner, prev, index))
        seen[tag] = seen.get(tag, -1) + 1
        prev = (tag, seen[tag])


# -- links ---------------------------------------------------------------------------------
def _global_materials(r: _UrdfReader, root: etree._Element) -> dict[str, Material]:
    out: dict[str, Material] = {}
    for el in root.findall("material"):
        name = r.required(el, "name")
        out[name] = _material(r, el, {})
    return out


def _material(r: _UrdfReader, el: etree._Element, known: dict[str, Material]) -> Material:
    name = el.get("name")
    color_el = el.find("color")
    tex_el = el.find("texture")
    color = r.floats_attr(color_el, "rgba", 4) if color_el is not None else None
    texture = tex_el.get("filename") if tex_el is not None else None
    if color is None and texture is None and name in known:
        ref = known[name]
        return Material(name, None if ref.color is None else ref.color.copy(), ref.texture)
    return Material(name, color, texture)


def _link(r: _UrdfReader, el: etree._Element, materials: dict[str, Material], diag: Diagnostics) -> Link:
    link = Link(el.get("name").strip())
    inertial = el.find("inertial")
    if inertial is not None:
        origin = r.origin(inertial)
        mass_el = inertial.find("mass")
        mass = r.float_attr(mass_el, "value") if mass_el is not None else 0.0
        i_el = inertial.find("inertia")
        inertia = np.zeros((3, 3))
        if i_el is not None:
            inertia = inertia_from_six(*(r.float_attr(i_el, k, 0.0) for k in INERTIA_KEYS))
        rot = origin[:3, :3]
        if not np.array_equal(rot, np.eye(3)):
            inertia = rot @ inertia @ rot.T
            # exactly symmetric, as the file's six numbers (rounding differs between the two triangles)
            inertia[1, 0], inertia[2, 0], inertia[2, 1] = inertia[0, 1], inertia[0, 2], inertia[1, 2]
        link.inertia = Inertia(mass, origin[:3, 3], inertia)
    for kind in ("visual", "collision"):
        for shape_el in el.findall(kind):
            shape = _shape(r, shape_el, materials, diag)
            if shape is not None:
                (link.visuals if kind == "visual" else link.collisions).append(shape)
    return link


def _shape(r: _UrdfReader, el: etree._Element, materials: dict[str, Material], diag: Diagnostics) -> Shape | None:
    geo = el.find("geometry")
    if geo is None:
        raise r.error(el, f"<{el.tag}> has no <geometry>")
    children = [c for c in geo if isinstance(c.tag, str)]
    if len(children) != 1:
        raise r.error(geo, f"<geometry> needs exactly one shape element, found {len(children)}")
    g = children[0]
    pose = r.origin(el)
    name = el.get("name")
    shape: Shape
    if g.tag == "box":
        shape = Box(pose, name, size=r.floats_attr(g, "size", 3))
    elif g.tag == "sphere":
        shape = Sphere(pose, name, radius=r.float_attr(g, "radius"))
    elif g.tag == "cylinder":
        shape = Cylinder(pose, name, radius=r.float_attr(g, "radius"), length=r.float_attr(g, "length"))
    elif g.tag == "mesh":
        filename = r.required(g, "filename")
        scale = g.get("scale")
        if scale is not None and len(scale.split()) == 1:  # some exporters write one factor
            s = r.float_attr(g, "scale")
            sc = np.array([s, s, s])
        else:
            sc = r.floats_attr(g, "scale", 3, (1.0, 1.0, 1.0))
        shape = Mesh(pose, name, filename=filename, scale=sc)
    else:
        diag.warn(f"line {g.sourceline}: <{el.tag}> geometry <{g.tag}> is not supported and was ignored")
        return None
    mat_el = el.find("material")
    if mat_el is not None:
        shape.material = _material(r, mat_el, materials)
        if shape.material.color is None and shape.material.texture is None and shape.material.name not in materials:
            diag.warn(f"line {mat_el.sourceline}: material '{shape.material.name}' is not defined")
    return shape


# -- joints --------------------------------------------------------------------------------
def _joint(r: _UrdfReader, el: etree._Element, model: Model, diag: Diagnostics) -> Joint | None:
    name = el.get("name").strip()
    type_name = (el.get("type") or "").strip()
    parent_el, child_el = el.find("parent"), el.find("child")
    if parent_el is None or child_el is None:
        raise r.error(el, "a joint needs <parent link=...> and <child link=...>")
    parent = r.required(parent_el, "link")
    child = r.required(child_el, "link")
    for end, link, e in (("parent", parent, parent_el), ("child", child, child_el)):
        if link not in model.links:
            raise r.error(e, f"{end} link '{link}' of joint '{name}' does not exist")
    if type_name in ("floating", "planar"):
        if type_name == "floating":
            return None  # handled by _drop_floating_root once the tree is known
        raise r.error(el, "joint type 'planar' is not supported (use prismatic and revolute joints)")
    if type_name not in _JOINT_TYPES:
        raise r.error(el, f"unknown joint type '{type_name}' (expected one of {', '.join(_JOINT_TYPES)}, floating)")
    jtype = _JOINT_TYPES[type_name]
    joint = Joint(name, jtype, parent, child, r.origin(el))
    if jtype is JointType.SPHERICAL:
        for tag in ("limit", "dynamics", "axis"):
            if el.find(tag) is not None:
                diag.warn(f"line {el.find(tag).sourceline}: <{tag}> of spherical joint '{name}' is ignored")
        joint.center = joint.rest_transform[:3, 3].copy()
        return joint
    if jtype is JointType.FIXED:
        return joint
    axis_el = el.find("axis")
    axis = r.floats_attr(axis_el, "xyz", 3, (1.0, 0.0, 0.0)) if axis_el is not None else np.array([1.0, 0.0, 0.0])
    norm = float(np.linalg.norm(axis))
    if norm < 1e-12:
        raise r.error(axis_el, f"joint '{name}' has a zero axis; give a non-zero direction")
    # a unit axis is kept bit for bit (dividing by a norm of 1 +- 1 ulp would change its last digits)
    joint.axis = axis / norm if abs(norm - 1.0) > 1e-12 else axis
    lim_el = el.find("limit")
    lim = Limits()
    if lim_el is not None:
        if type_name != "continuous":
            lim.has_position_limits = True
            lim.min_position = r.float_attr(lim_el, "lower", 0.0)
            lim.max_position = r.float_attr(lim_el, "upper", 0.0)
            if lim.min_position > lim.max_position:
                raise r.error(lim_el, f"lower limit {lim.min_position} is above upper limit {lim.max_position}")
        if lim_el.get("effort") is not None:
            lim.has_effort_limit, lim.effort_limit = True, r.float_attr(lim_el, "effort")
        if lim_el.get("velocity") is not None:
            lim.has_velocity_limit, lim.velocity_limit = True, r.float_attr(lim_el, "velocity")
    elif type_name != "continuous":
        diag.warn(f"line {el.sourceline}: {type_name} joint '{name}' has no <limit> (URDF requires one)")
    joint.limits = lim
    dyn_el = el.find("dynamics")
    if dyn_el is not None:
        joint.dynamics = Dynamics(r.float_attr(dyn_el, "damping", 0.0), r.float_attr(dyn_el, "friction", 0.0))
    mimic_el = el.find("mimic")
    if mimic_el is not None:
        joint.mimic = Mimic(
            r.required(mimic_el, "joint"), r.float_attr(mimic_el, "multiplier", 1.0), r.float_attr(mimic_el, "offset", 0.0)
        )
    return joint


def _check_tree(model: Model) -> None:
    from ..model.topology import tree_order

    tree_order(model)
    for j in model.joints.values():
        if j.mimic is not None:
            m = model.joints.get(j.mimic.joint)
            if m is None or m.dofs != 1:
                raise ModelError(f"joint '{j.name}' mimics '{j.mimic.joint}', which is not a 1-DOF joint of the model")


def _drop_floating_root(model, root_el, r, dropped: list[str], diag: Diagnostics) -> None:
    """Accept the common `world --floating--> base` pattern: our models are floating-base already."""
    for el in root_el.findall("joint"):
        name = el.get("name").strip()
        if name not in dropped:
            continue
        parent = el.find("parent").get("link").strip()
        child = el.find("child").get("link").strip()
        is_root = all(j.child != parent for j in model.joints.values())
        only_joint = not any(parent in (j.parent, j.child) for j in model.joints.values())
        massless = model.links[parent].inertia.mass <= 0 and not model.links[parent].visuals
        if not (is_root and only_joint and massless) or any(j.child == child for j in model.joints.values()):
            raise r.error(
                el,
                "a floating joint is only supported between a massless root link and the robot's base "
                "(the model is floating-base by default); this one is inside the tree",
            )
        del model.links[parent]
        model.default_base_link = child
        diag.warn(
            f"line {el.sourceline}: floating joint '{name}' and its massless root link '{parent}' were dropped: "
            f"'{child}' is the floating base"
        )
    if dropped:
        from ..model.topology import tree_order

        model.default_base_link = tree_order(model).root


def _links_to_frames(model: Model) -> None:
    """iDynTree's fake links: massless links with one fixed neighbour become frames (one pass)."""
    from ..model.topology import tree_order

    root = tree_order(model).root
    neighbours: dict[str, list[Joint]] = {n: [] for n in model.links}
    for j in model.joints.values():
        neighbours[j.parent].append(j)
        neighbours[j.child].append(j)
    fake = {
        name
        for name, link in model.links.items()
        if not link.inertia.mass > 0.0 and len(neighbours[name]) == 1 and neighbours[name][0].type is JointType.FIXED
    }
    # two massless links joined only to each other: keep the root so the model is not empty
    if len(fake) == len(model.links):
        fake.discard(root)
    model.default_base_link = root
    removed: dict[str, tuple[str, np.ndarray]] = {}
    for name in list(model.links):
        if name not in fake:
            continue
        joint = neighbours[name][0]
        if joint.child == name:
            real, real_H_fake = joint.parent, joint.rest_transform
        else:
            real, real_H_fake = joint.child, inverse(joint.rest_transform)
            if real in fake:
                continue
        if name == root:
            model.default_base_link = real
        removed[name] = (real, real_H_fake)
    for name, (real, real_H_fake) in removed.items():
        link = model.links.pop(name)
        joint = neighbours[name][0]
        del model.joints[joint.name]
        target = model.links[real]
        for src, dst in ((link.visuals, target.visuals), (link.collisions, target.collisions)):
            for shape in src:
                shape.link_H_geometry = real_H_fake @ shape.link_H_geometry
                shape.source_frame = name
                dst.append(shape)
    frame_joints: dict[str, FrameJoint] = {}
    for name, (real, real_H_fake) in removed.items():
        model.frames[name] = Frame(name, real, real_H_fake)
        joint = neighbours[name][0]
        frame_joints[name] = FrameJoint(joint.name, frame_is_parent=joint.parent == name)
    model.metadata["frame_joints"] = frame_joints


# -- sensors -------------------------------------------------------------------------------
def _sensors(r: _UrdfReader, root: etree._Element, model: Model, diag: Diagnostics) -> None:
    lines: dict[str, int] = {}
    for el in root.findall("sensor"):
        name = r.required(el, "name")
        stype = r.required(el, "type")
        if name in lines:
            raise r.error(el, f"duplicate sensor name '{name}' (first defined at line {lines[name]})")
        lines[name] = el.sourceline
        if stype == "force_torque":
            model.sensors[name] = _ft_sensor(r, el, name, model, diag)
        elif stype in ("accelerometer", "gyroscope"):
            sensor = _link_sensor(r, el, name, stype, model)
            if sensor is not None:
                model.sensors[name] = sensor
        else:
            diag.warn(
                f"line {el.sourceline}: sensor '{name}' of type '{stype}' is not supported "
                "(force_torque, accelerometer, gyroscope): it is not in the model (kept as XML for URDF export)"
            )
    gazebo = [s.get("name", "?") for g in root.findall("gazebo") for s in g.findall("sensor")]
    if gazebo:
        shown = ", ".join(gazebo[:8]) + (f" and {len(gazebo) - 8} more" if len(gazebo) > 8 else "")
        diag.warn(
            f"{len(gazebo)} <gazebo> sensor description(s) are not in the model ({shown}): only top-level "
            "<sensor> elements of iDynTree's extension define sensors (the <gazebo> blocks are kept for URDF export)"
        )


def _sensor_parent(r: _UrdfReader, el: etree._Element, attr: str) -> tuple[etree._Element, str]:
    parent = el.find("parent")
    if parent is None or not (parent.get(attr) or "").strip():
        raise r.error(el, f"sensor needs <parent {attr}=\"...\"/>")
    return parent, parent.get(attr).strip()


def _ft_sensor(r: _UrdfReader, el, name: str, model: Model, diag: Diagnostics) -> ForceTorqueSensor:
    parent_el, joint_name = _sensor_parent(r, el, "joint")
    joint = model.joints.get(joint_name)
    if joint is None:
        hint = ""
        for frame, fj in model.metadata.get("frame_joints", {}).items():
            if fj.joint == joint_name:
                hint = f" (it is a fixed joint to the massless link '{frame}', which became a frame)"
        raise r.error(parent_el, f"force/torque sensor '{name}': joint '{joint_name}' does not exist{hint}")
    ft = el.find("force_torque")
    frame, direction = "child", "child_to_parent"
    if ft is None:
        diag.warn(f"line {el.sourceline}: force/torque sensor '{name}' has no <force_torque>; using frame 'child', "
                  "measure_direction 'child_to_parent'")
    else:
        f_el, d_el = ft.find("frame"), ft.find("measure_direction")
        if f_el is not None:
            frame = r.text(f_el)
            if frame not in FT_FRAMES:
                raise r.error(f_el, f"force/torque sensor '{name}': <frame> must be child, parent or sensor, got '{frame}'")
        else:
            diag.warn(f"line {ft.sourceline}: force/torque sensor '{name}' has no <frame>; using 'child'")
        if d_el is not None:
            direction = r.text(d_el)
            if direction not in FT_DIRECTIONS:
                raise r.error(
                    d_el,
                    f"force/torque sensor '{name}': <measure_direction> must be parent_to_child or child_to_parent, "
                    f"got '{direction}'",
                )
        else:
            diag.warn(f"line {ft.sourceline}: force/torque sensor '{name}' has no <measure_direction>; using 'child_to_parent'")
    parent_H_child = joint.rest_transform
    if frame == "child":
        first_H, second_H = parent_H_child.copy(), np.eye(4)
    elif frame == "parent":
        first_H, second_H = np.eye(4), inverse(parent_H_child)
    else:
        child_H_sensor = r.origin(el)
        first_H, second_H = parent_H_child @ child_H_sensor, child_H_sensor
    return ForceTorqueSensor(
        name,
        parent_joint=joint_name,
        first_link=joint.parent,
        second_link=joint.child,
        applied_wrench_link=joint.child if direction == "parent_to_child" else joint.parent,
        first_link_H_sensor=first_H,
        second_link_H_sensor=second_H,
        frame=frame,
    )


def _link_sensor(r: _UrdfReader, el, name: str, stype: str, model: Model) -> LinkSensor:
    parent_el, link_name = _sensor_parent(r, el, "link")
    pose = r.origin(el)
    if link_name not in model.links:
        frame = model.frames.get(link_name)
        if frame is None:
            raise r.error(parent_el, f"{stype} '{name}': parent link '{link_name}' does not exist")
        # iDynTree drops this sensor; keep it on the real link with the composed pose
        link_name, pose = frame.parent_link, frame.link_H_frame @ pose
    return LinkSensor(name, parent_link=link_name, link_H_sensor=pose, sensor_type=SensorType(stype))
from .urdf_export import dump  # noqa: E402,F401
