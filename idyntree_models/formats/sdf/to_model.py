"""Stage 5 of reading SDF: the resolved `SdfGraph` becomes a tree `Model`.

The choices of docs/sdf.md live here: links with their inertia (including `auto="true"`),
shapes and materials; joint kinds mapped to ours (universal split in two, ball to spherical,
screw approximated, joints to the world); IMUs split into accelerometer and gyroscope; and links
that SDF leaves free in the world joined to the base by a six-joint chain so that the model is a
tree (`free_bodies`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from lxml import etree

from ...errors import ModelError
from ...model.model import (
    Box,
    Capsule,
    Cone,
    Cylinder,
    Dynamics,
    Ellipsoid,
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
    Shape,
    Sphere,
    maker,
)
from ...model.topology import tree_order
from ...model.transforms import inverse
from ...model.validation import check_inertia
from ..base import Diagnostics, LoadOptions
from ..common import (
    INERTIA_KEYS,
    check_ft_keywords,
    free_chain,
    free_chains_said,
    inertia_from_six,
    unique_name,
)
from ..mesh_uris import NO_MESH_URI
from ..xmlutil import XmlReader, find_child, find_children
from .document import (
    IDYNTREE_KIND,
    SINGLE_IMU_KINDS,
    child_float,
    child_text,
    found_float,
    is_colour,
    is_true,
    read_pose,
)
from .frames import WORLD, Scope, far_apart
from .inertia import DEFAULT_DENSITY, combine, solid
from .kept import (
    ATTRIBUTES,
    COLLISION_TAGS,
    FORCE_TORQUE_TAGS,
    INERTIA_TAGS,
    INERTIAL_TAGS,
    LINK_REPEATED,
    LINK_TAGS,
    MATERIAL_TAGS,
    SHAPE_TAGS,
    VISUAL_TAGS,
    keep_unread,
    look,
    own_ambient,
)
from .reader import DEFAULT_MOMENTS, UNLIMITED, SdfGraph, SdfJoint, SdfSensor, unique_children

# model.metadata keys this stage sets (documented in docs/sdf.md):
#   "free_bodies": {free link: {"base": link, "joints": [6 names], "links": [5 names]}}
#   "fixed_base", "sdf_world_joints": a fixed joint to the world (dropped; its child is the base)
#   "sdf_screw_joints": {joint: pitch fields} for screw joints read as revolute
#   "sdf_version", "static", "world"
_INERTIA_INDEX = {k: i for i, k in enumerate(INERTIA_KEYS)}
# the model's objects made from values already in their final form (model.maker: no __post_init__ copies, no
# default inertia or limits made and replaced)
_make_link, _make_inertia, _make_joint, _make_link_sensor = map(maker, (Link, Inertia, Joint, LinkSensor))


def graph_to_model(g: SdfGraph, diag: Diagnostics, options: LoadOptions | None = None) -> Model:
    """The tree model of a resolved SDF model (raises ModelError where SDF allows what a tree does not)."""
    options = options or LoadOptions()
    model = Model(name=g.name)
    model.metadata["sdf_version"] = f"{g.version[0]}.{g.version[1]}"
    if g.static:
        model.metadata["static"] = True
    if g.world:
        model.metadata["world"] = g.world
    shape_elements: dict[str, list[etree._Element]] = {}
    for name in g.links:
        el, scope = g.link_elements[name]
        model.links[name] = read_link(scope.r, el, name, scope, diag, shape_elements.setdefault(name, []), g.unread, g)
    world_joints: dict[str, dict] = {}
    far = far_apart(list(g.links.values()) + [j.model_H_joint for j in g.joints.values()])
    for j in g.joints.values():
        _add_joint(model, g, j, diag, world_joints, far)
    if world_joints:
        model.metadata["sdf_world_joints"] = world_joints
    for name, (link, model_H_frame) in g.frames.items():
        model.frames[name] = Frame(name, link, g.link_H_model(link) @ model_H_frame)
    for name, (link, model_H_m) in g.models.items():
        if name not in model.frames and name not in model.links:
            model.frames[name] = Frame(name, link, g.link_H_model(link) @ model_H_m)
    for s in g.sensors:
        _add_sensor(model, g, s, diag)
    _join_free_bodies(model, g, diag, options, world_joints)
    try:
        tree = tree_order(model)
    except ModelError as e:
        msg = e.message
        if e.element and e.element.startswith("joint '"):
            jn = e.element[len("joint '"):-1]
            if jn in g.joints:
                j = g.joints[jn]
                raise j.scope.r.error(j.el, msg) from None
        raise ModelError(msg + " (SDF allows this; a tree model does not)") from None
    model.default_base_link = tree.root
    keep_unread(g, model, shape_elements, diag)  # (extensions only)
    diag.tree = tree
    return model


# -- free bodies --------------------------------------------------------------------------------------
def _base_root(model: Model, g: SdfGraph, world_joints: dict[str, dict]) -> str:
    """The root of the model's base tree: the world link, else the root above the canonical link
    if it is fixed to the world or nothing is, else the first link fixed to the world."""
    if WORLD in model.links:
        return WORLD
    parent = {j.child: j.parent for j in model.joints.values()}
    cur, steps = g.canonical, 0
    while cur in parent and steps <= len(model.links):
        cur, steps = parent[cur], steps + 1
    fixed = [d["child"] for d in world_joints.values()]
    return cur if not fixed or cur in fixed else fixed[0]


def _join_free_bodies(model: Model, g: SdfGraph, diag: Diagnostics, options: LoadOptions,
                      world_joints: dict[str, dict]) -> None:
    """Join each root link other than the base's to the base: a fixed joint for a link fixed to
    the world too, else the free joint SDF implies, as 3 prismatic + 3 revolute joints."""
    children = {j.child for j in model.joints.values()}
    roots = [n for n in model.links if n not in children]
    if len(roots) < 2:
        return
    base = _base_root(model, g, world_joints)
    if base not in roots:
        return  # a loop above the canonical link: tree_order names it
    fixed_to_world = {d["child"]: name for name, d in world_joints.items()}
    base_H = g.links[base] if base in g.links else np.eye(4)  # the 'world' link is at the model frame

    def fix(link: str, wanted: str) -> str:
        """A fixed joint base -> link at the link's pose in the model, named `wanted` (made unique)."""
        jname = unique_name(wanted, lambda n: n in model.joints or model.has_frame(n))
        model.joints[jname] = Joint(jname, JointType.FIXED, base, link, inverse(base_H) @ g.links[link])
        return jname

    if base in fixed_to_world or base == WORLD:
        # links fixed to the world hang on the base fixed to it too, or on the 'world' link that a moving
        # joint to the world made: either way at their pose in the model
        for link in roots:
            if link != base and link in fixed_to_world:
                world_joints[fixed_to_world[link]]["joined_to_base_by"] = fix(link, fixed_to_world[link])
    free = [n for n in roots if n != base and n not in fixed_to_world]
    if not free:
        return
    if g.static:  # nothing of a static model moves: its loose links are fixed where the model puts them
        for link in free:
            fix(link, f"{link}_static_joint")
        return
    if options.free_bodies == "error":
        shown = ", ".join(f"'{n}'" for n in free[:10]) + (" ..." if len(free) > 10 else "")
        raise ModelError(
            f"{len(free)} link(s) are joined to no joint ({shown}): free bodies in SDF, not part of the tree of base "
            f"'{base}' (free_bodies='chain' joins each to the base by six 1-DOF joints)"
        )
    info: dict[str, dict] = {}
    for link in free:
        info[link] = free_chain(model, base, link, inverse(base_H) @ g.links[link])
    model.metadata["free_bodies"] = info
    shown, how = free_chains_said(info)
    diag.warn(
        f"{len(free)} free link(s) in the model ({shown}), joined to no joint: each is joined to the base "
        f"'{base}' {how}, at their initial pose when all are zero (model.metadata['free_bodies'])"
    )


# -- links ----------------------------------------------------------------------------------------------
def _placer(g: SdfGraph | None, link: str, scope: Scope) -> Callable[[str, etree._Element], np.ndarray] | None:
    """link_H_frame of the frame a shape's pose names in relative_to (in the link's model), as libsdformat
    resolves it."""
    fg = g.frame_graph if g is not None else None
    if fg is None:
        return None

    def link_H(ref: str, pose_el: etree._Element) -> np.ndarray:
        target = fg.resolve_or_fail(scope, ref, pose_el, "relative_to")
        if target == WORLD:
            raise scope.r.error(pose_el, "a pose relative to 'world' cannot be resolved inside a model")
        return g.link_H_model(link) @ fg.pose(target)

    return link_H


def read_link(r: XmlReader, el: etree._Element, name: str, scope: Scope, diag: Diagnostics,
              shape_elements: list[etree._Element] | None = None,
              unread_in: dict[etree._Element, list] | None = None, graph: SdfGraph | None = None) -> Link:
    """`shape_elements` gets the <visual> and <collision> elements that became shapes, `unread_in` what the link
    and its shapes hold unread, by element (kept.keep_unread); `graph` (the resolved model) places a shape
    whose pose is relative_to another frame (without it, such a pose is read in the link frame, with a
    warning)."""
    placed = _placer(graph, name, scope)
    link = _make_link(name=name, inertia=None)  # (every way out below gives it its inertia)
    many: dict[str, list[etree._Element]] = {}
    notes: list = []
    first = look(el, LINK_TAGS, (), notes, ATTRIBUTES["link"], many, LINK_REPEATED)
    if "light" in first or "particle_emitter" in first:  # (kept unread, their names too are unique in the link)
        unique_children(r, el, ("light", "particle_emitter"), f"link '{name}'", across=False, refused="the file")
    for kind in ("visual", "collision"):
        seen: dict[str, int] = {}
        for shape_el in many.get(kind, ()):
            sname = r.required(shape_el, "name")  # (libsdformat refuses a shape without one, or a blank one)
            if sname in seen:
                raise r.error(shape_el, f"duplicate {kind} name '{sname}' in link '{name}' (first at line {seen[sname]})")
            seen[sname] = shape_el.sourceline
            shape = _shape(r, shape_el, name, scope, diag, unread_in, placed)
            if shape is not None:
                (link.visuals if kind == "visual" else link.collisions).append(shape)
                if shape_elements is not None:
                    shape_elements.append(shape_el)
    inertial = first.get("inertial")
    found: dict[str, etree._Element] = {}
    moments: dict[str, etree._Element] = {}
    if inertial is not None:
        found = look(inertial, INERTIAL_TAGS, ("inertial",), notes)
        i_el = found.get("inertia")
        if i_el is not None:
            moments = look(i_el, INERTIA_TAGS, ("inertial", "inertia"), notes)
    if notes and unread_in is not None:
        unread_in[el] = notes
    if inertial is None:
        link.inertia = _make_inertia(mass=1.0, com=np.zeros(3), inertia=np.eye(3))  # libsdformat's default
        return link
    six = list(DEFAULT_MOMENTS)
    if is_true(inertial.get("auto")):
        auto = _auto_inertia(r, el, inertial, name, scope, diag)
        if auto is not None:
            link.inertia = auto
            return link
    pose, rel = read_pose(r, found.get("pose"), scope.version)
    if rel and rel != name.split("::")[-1]:
        diag.warn(f"{diag.at(inertial)}: link '{name}': inertial pose relative_to '{rel}' ignored "
                  "(the inertial pose is in the link frame)")
    mass = found_float(r, found, "mass", 1.0)
    for k, i in _INERTIA_INDEX.items():  # read in key order: the first bad one reported is ixx's, then ixy's...
        six[i] = found_float(r, moments, k, six[i])
    rot = pose[:3, :3]
    with np.errstate(all="ignore"):  # an inf moment (SDF reads 'inf') turned gives NaN: refused just below
        link.inertia = _make_inertia(mass=mass, com=pose[:3, 3].copy(), inertia=rot @ inertia_from_six(*six) @ rot.T)
    try:
        # libsdformat refuses negative mass and indefinite tensors: so do we, for SDF
        for w in check_inertia(mass, link.inertia.com, link.inertia.inertia, f"link '{name}'",
                               reject_impossible=True):
            diag.warn(f"{diag.at(inertial)}: {w}")
    except ModelError as e:
        raise r.error(inertial, f"link '{name}' has invalid inertia: {e.message}") from None
    return link


def _auto_inertia(r: XmlReader, link_el: etree._Element, inertial: etree._Element, name: str, scope: Scope,
                  diag: Diagnostics) -> Inertia | None:
    """SDF 1.11 automatic inertia, or None (with a warning) where it cannot be computed here."""
    default_density = child_float(r, inertial, "density", DEFAULT_DENSITY)
    parts: list[tuple[float, np.ndarray, np.ndarray]] = []
    collisions = find_children(link_el, "collision")
    if not collisions:
        raise r.error(inertial, f"link '{name}': <inertial auto=\"true\"> needs collision shapes to compute from, "
                      "and the link has none")
    for c in collisions:
        shape = _shape(r, c, name, scope, Diagnostics())
        density = child_float(r, c, "density", default_density)
        if not (math.isfinite(density) and density > 0):
            raise r.error(c, f"link '{name}': collision density must be a positive number, got {density}")
        got = solid(shape) if shape is not None else None
        if got is None:
            kind = shape.kind if shape is not None else "this"
            diag.warn(f"{diag.at(inertial)}: link '{name}': <inertial auto=\"true\"> cannot be computed from "
                      f"{kind} geometry here; the written (or default) inertial values are used")
            return None
        volume, unit_inertia = got
        with np.errstate(all="ignore"):  # beyond a double: refused below, at the inertial
            parts.append((density * volume, shape.link_H_geometry, density * unit_inertia))
    with np.errstate(all="ignore"):
        result = combine(parts)
        if find_child(inertial, "mass") is not None and result.mass > 0:
            scale = child_float(r, inertial, "mass", 1.0) / result.mass  # densities scaled to the given mass
            result = Inertia(result.mass * scale, result.com, result.inertia * scale)
    if not result.is_finite():
        raise r.error(inertial, f"link '{name}': the inertia computed from its collisions (<inertial auto=\"true\">) "
                                "is beyond the range of a double: check their sizes, densities and poses")
    return result


def _shape(r: XmlReader, el: etree._Element, link: str, scope: Scope, diag: Diagnostics,
           unread_in: dict[etree._Element, list] | None = None,
           placed: Callable[[str, etree._Element], np.ndarray] | None = None) -> Shape | None:
    notes: list = []
    first = look(el, VISUAL_TAGS if el.tag == "visual" else COLLISION_TAGS, (), notes, ATTRIBUTES[el.tag])
    mat_el = first.get("material")
    material = None
    if mat_el is not None:
        material = _material(r, mat_el, notes)
    geo = first.get("geometry")
    if geo is None:
        diag.warn(f"{diag.at(el)}: <{el.tag}> of link '{link}' has no <geometry>; ignored")
        return None
    children = [c for c in geo if isinstance(c.tag, str)]
    if not children:
        return None
    g = children[0]
    look(geo, frozenset({g.tag}), ("geometry",), notes)  # (a second shape is not read: kept)
    values = look(g, SHAPE_TAGS.get(g.tag, frozenset()), ("geometry", g.tag), notes)
    if notes and unread_in is not None:
        unread_in[el] = notes
    pose, rel = read_pose(r, first.get("pose"), scope.version)
    if rel and rel != link.split("::")[-1]:
        if placed is not None:
            pose = placed(rel, first.get("pose")) @ pose
        else:
            diag.warn(f"{diag.at(el)}: <{el.tag}> pose relative_to '{rel}' is read as relative to its link")
    name = el.get("name")
    shape: Shape
    if g.tag == "box":
        size = values.get("size")
        shape = Box(pose, name, size=r.floats_text(size, 3) if size is not None and r.text(size) else np.ones(3))
    elif g.tag == "sphere":
        shape = Sphere(pose, name, radius=found_float(r, values, "radius", 1.0))
    elif g.tag == "cylinder":
        shape = Cylinder(pose, name, radius=found_float(r, values, "radius", 1.0),
                         length=found_float(r, values, "length", 1.0))
    elif g.tag == "capsule":
        shape = Capsule(pose, name, radius=found_float(r, values, "radius", 0.5),
                        length=found_float(r, values, "length", 1.0))
    elif g.tag == "cone":
        shape = Cone(pose, name, radius=found_float(r, values, "radius", 0.5), length=found_float(r, values, "length", 1.0))
    elif g.tag == "ellipsoid":
        radii = values.get("radii")
        shape = Ellipsoid(pose, name, radii=r.floats_text(radii, 3) if radii is not None else np.ones(3))
    elif g.tag == "mesh":
        uri = values.get("uri")
        scale_el = values.get("scale")
        scale = r.floats_text(scale_el, 3) if scale_el is not None and r.text(scale_el) else np.ones(3)
        if uri is None:  # (an empty one is refused by check_values, as libsdformat does)
            diag.warn(f"{diag.at(g)}: <mesh> of <{el.tag}> '{name}' of link '{link}' has no <uri>: read as libsdformat "
                      f"reads it, as its default '{NO_MESH_URI}', which names no file")
        shape = Mesh(pose, name, filename=r.text(uri) if uri is not None else NO_MESH_URI, scale=scale)
        if "submesh" in values:
            diag.warn(f"{diag.at(g)}: mesh <submesh> of link '{link}' ignored (the whole mesh is used)")
    elif g.tag == "empty":
        if notes:
            diag.warn(f"{diag.at(el)}: <{el.tag}> '{name}' of link '{link}' has an empty geometry: it is no "
                      "shape of the model, and what it holds besides is not kept")
        return None
    else:
        diag.warn(f"{diag.at(g)}: <{el.tag}> geometry <{g.tag}> of link '{link}' is not supported; ignored")
        return None
    shape.material = material
    return shape


def _material(r: XmlReader, mat: etree._Element, notes: list) -> Material | None:
    """The material (none without a colour); what the model does not hold of it is noted (kept.keep_unread
    keeps it)."""
    found = look(mat, MATERIAL_TAGS, ("material",), notes)
    color = None
    for tag in ("emissive", "specular", "ambient", "diffuse"):  # diffuse wins, ambient is the fallback
        c = found.get(tag)
        if c is not None and r.text(c):
            v = r.floats_list(c, c.text or "", f"<{tag}> value", None)
            if not is_colour(v):
                raise r.error(c, f"<{tag}> needs 3 or 4 numbers between 0 and 1 (r g b [a]), got '{r.text(c)}'")
            if tag in ("ambient", "diffuse"):
                color = np.array(v + [1.0] if len(v) == 3 else v)
    if own_ambient(found.get("ambient"), found.get("diffuse")):
        notes.append((("material",), [(found["ambient"], None)]))
    if color is None:
        # a script's name alone: written as a URDF <material name=.../>, it made the iDynTree wheel drop every
        # visual of the link (the <script> itself is kept for SDF, and named as not written elsewhere)
        return None
    script = found.get("script")
    script_name = child_text(r, script, "name") if script is not None else None
    return Material(script_name, color, None)


# -- joints ----------------------------------------------------------------------------------------------
def _limits(lim: dict[str, float], jtype: str) -> Limits:
    out = Limits()
    lo, hi = lim["lower"], lim["upper"]
    if jtype != "continuous" and (math.isfinite(lo) and abs(lo) < UNLIMITED or math.isfinite(hi) and abs(hi) < UNLIMITED):
        out.has_position_limits = True
        out.min_position = lo if math.isfinite(lo) else -UNLIMITED
        out.max_position = hi if math.isfinite(hi) else UNLIMITED
    if 0 <= lim["effort"] < math.inf:
        out.has_effort_limit, out.effort_limit = True, lim["effort"]
    if 0 <= lim["velocity"] < math.inf:
        out.has_velocity_limit, out.velocity_limit = True, lim["velocity"]
    return out


def _dyn(lim: dict[str, float]) -> Dynamics | None:
    if lim["damping"] == 0.0 and lim["friction"] == 0.0:
        return None
    return Dynamics(lim["damping"], lim["friction"])


_KINDS = {"revolute": JointType.REVOLUTE, "continuous": JointType.REVOLUTE, "prismatic": JointType.PRISMATIC,
          "universal": JointType.REVOLUTE, "revolute2": JointType.REVOLUTE}


def _add_joint(model: Model, g: SdfGraph, j: SdfJoint, diag: Diagnostics, world_joints: dict, far: bool) -> None:
    """One joint of the tree model; `far` (frames.far_apart of every link and joint pose) asks for the guard
    against poses whose relative pose overflows."""
    r, el = j.scope.r, j.el
    at = diag.at(el)
    if j.type == "gearbox":
        diag.warn(f"{at}: gearbox joint '{j.name}' couples two other joints and is no kinematic joint of a "
                  "tree; ignored")
        return
    parent = j.parent
    if parent == WORLD:
        if j.type == "fixed":
            model.metadata["fixed_base"] = True
            world_joints[j.name] = {"child": j.child, "type": "fixed", "model_H_child": g.links[j.child].tolist()}
            return
        if WORLD not in model.links:
            model.links[WORLD] = Link(WORLD, Inertia(0.0))
            diag.warn(f"{at}: {j.type} joint '{j.name}' connects to 'world': a massless link 'world' was added "
                      "as the root of the model")
    parent_inv = g.link_H_model(parent)
    child_H = g.links[j.child]
    child_inv = g.link_H_model(j.child)
    if far:
        with np.errstate(all="ignore"):  # links too far apart for a double: refused just below, at the joint
            poses = (parent_inv @ child_H, child_inv @ j.model_H_joint, parent_inv @ j.model_H_joint)
        if not all(np.all(np.isfinite(p)) for p in poses):
            raise r.error(el, f"joint '{j.name}': its child's pose (or the joint's) relative to the parent link is "
                              "beyond the range of a double")
    rest = parent_inv @ child_H
    origin = (child_inv @ j.model_H_joint)[:3, 3]
    rot_c = child_H[:3, :3].T
    jtype = j.type
    if jtype == "screw":
        diag.warn(f"{at}: screw joint '{j.name}' is approximated by a revolute joint about its axis "
                  "(the translation coupled to the rotation is lost)")
        model.metadata.setdefault("sdf_screw_joints", {})[j.name] = j.extra
        jtype = "revolute"
    if jtype == "fixed":
        model.joints[j.name] = _make_joint(name=j.name, type=JointType.FIXED, parent=parent, child=j.child,
                                           rest_transform=rest)
        return
    if jtype == "ball":
        center = (parent_inv @ j.model_H_joint)[:3, 3]
        model.joints[j.name] = _make_joint(name=j.name, type=JointType.SPHERICAL, parent=parent, child=j.child,
                                           rest_transform=rest, center=center.copy())
        return
    kind = _KINDS[jtype]
    if jtype in ("universal", "revolute2"):
        _add_two_axis_joint(model, g, j, diag, parent, rest, rot_c, origin)
        return
    lim = j.limits[0]
    limits = _limits(lim, jtype)
    if jtype != "continuous" and limits.has_position_limits and limits.min_position > limits.max_position:
        raise r.error(el, f"joint '{j.name}': lower limit {limits.min_position} is above upper limit "
                      f"{limits.max_position}")
    # equal limits stay what the file says (libsdformat keeps the joint revolute/prismatic)
    joint = _make_joint(name=j.name, type=kind, parent=parent, child=j.child, rest_transform=rest,
                        axis=rot_c @ j.axes[0], axis_origin=origin.copy(), limits=limits, dynamics=_dyn(lim))
    if "mimic" in j.extra:
        ref, mult, off = j.extra["mimic"]
        joint.mimic = Mimic(j.scope.scoped(ref) if j.scope.prefix else ref, mult, off)
    model.joints[j.name] = joint


def _add_two_axis_joint(model: Model, g: SdfGraph, j: SdfJoint, diag: Diagnostics, parent: str, rest: np.ndarray,
                        rot_c: np.ndarray, origin: np.ndarray) -> None:
    """universal / revolute2 `J`: revolute `J` (axis) to massless `J_link`, revolute `J_axis2` (axis2) on."""
    mid, second = f"{j.name}_link", f"{j.name}_axis2"
    for n in (mid, second):
        if n in model.links or n in model.joints or n in g.joints or n in g.links or n in g.frames:
            raise j.scope.r.error(j.el, f"{j.type} joint '{j.name}' is split into two revolute joints through link "
                                  f"'{mid}' and joint '{second}', but the name '{n}' is already used")
    model.links[mid] = Link(mid, Inertia(0.0))
    model.joints[j.name] = Joint(j.name, JointType.REVOLUTE, parent, mid, rest, axis=rot_c @ j.axes[0],
                                 axis_origin=origin, limits=_limits(j.limits[0], "revolute"), dynamics=_dyn(j.limits[0]))
    model.joints[second] = Joint(second, JointType.REVOLUTE, mid, j.child, np.eye(4), axis=rot_c @ j.axes[1],
                                 axis_origin=origin, limits=_limits(j.limits[1], "revolute"),
                                 dynamics=_dyn(j.limits[1]))
    diag.warn(f"{diag.at(j.el)}: {j.type} joint '{j.name}' split into revolute joints '{j.name}' (axis) and "
              f"'{second}' (axis2) through the massless link '{mid}'")


# -- sensors ----------------------------------------------------------------------------------------------
# the sensor types of SDF 1.4 to 1.11 (//sensor/@type)
SENSOR_TYPES = frozenset((
    "air_pressure", "air_speed", "altimeter", "boundingbox", "boundingbox_camera", "camera", "contact", "custom", "depth",
    "depth_camera", "dvl", "force_torque", "gps", "gpu_lidar", "gpu_ray", "imu", "lidar", "logical_camera",
    "magnetometer", "multicamera", "navsat", "ray", "rfid", "rfidtag", "rgbd", "rgbd_camera", "segmentation",
    "segmentation_camera", "sonar", "thermal", "thermal_camera", "transceiver", "wide_angle_camera",
    "wireless_receiver", "wireless_transmitter"))
_IMU_KINDS = tuple(kind.value for kind in SINGLE_IMU_KINDS)  # (as <idyntree:kind> writes them)


def _add_sensor(model: Model, g: SdfGraph, s: SdfSensor, diag: Diagnostics) -> None:
    el = s.el
    if not s.type:  # (a required attribute: libsdformat refuses the file)
        raise s.scope.r.error(el, f"sensor '{s.name}' has no type")
    if s.owner in g.links:
        _add_link_sensor(model, g, s, diag)
        return
    if s.type != "force_torque":
        diag.warn(f"{diag.at(el)}: {s.type} sensor '{s.name}' in joint '{s.owner}' is not supported; ignored")
        return
    _add_ft_sensor(model, g, s, diag)


def _unique_sensor_name(model: Model, g: SdfGraph, s: SdfSensor, diag: Diagnostics, pair: bool = False) -> None:
    """SDF names a sensor within its link or joint, the model within the model: a sensor whose name (an IMU pair's
    names) another sensor of the model has is renamed, to a name no link, frame or sensor of the file has (a
    sensor read later keeps its own name)."""
    def names(base: str) -> tuple[str, ...]:
        return (f"{base}_acc", f"{base}_gyro") if pair else (base,)

    if not any(n in model.sensors for n in names(s.name)):
        return
    if g.sensor_names is None:
        g.sensor_names = {n for t in g.sensors for n in (
            (t.name, f"{t.name}_acc", f"{t.name}_gyro") if t.type == "imu" else (t.name,))}
    new = unique_name(s.name, lambda b: any(n in model.sensors or n in model.links or n in model.frames
                                            or n in g.sensor_names for n in names(b)))
    diag.warn(f"{diag.at(s.el)}: sensor '{s.name}' of {'joint' if s.type == 'force_torque' else 'link'} "
              f"'{s.owner}' is named '{new}' in the model: another sensor of the model has its name")
    s.name = new


def _add_link_sensor(model: Model, g: SdfGraph, s: SdfSensor, diag: Diagnostics) -> None:
    r, el = s.scope.r, s.el
    link_H = g.link_H_model(s.owner) @ s.model_H_sensor
    if s.type == "imu":
        kind_el = s.first.get(IDYNTREE_KIND)  # (the look the reader took: a sensor has a dozen children)
        kind = r.text(kind_el) if kind_el is not None else None
        _unique_sensor_name(model, g, s, diag, pair=kind not in _IMU_KINDS)
        if kind in _IMU_KINDS:  # written by our exporter for a lone sensor
            s.model_name = s.name
            model.sensors[s.name] = _make_link_sensor(name=s.name, parent_link=s.owner, link_H_sensor=link_H,
                                                      sensor_type=SensorType(kind))
            return
        for suffix, st in (("_acc", SensorType.ACCELEROMETER), ("_gyro", SensorType.GYROSCOPE)):
            n = s.name + suffix
            model.sensors[n] = _make_link_sensor(name=n, parent_link=s.owner, link_H_sensor=link_H.copy(),
                                                 sensor_type=st)
        s.model_name = s.name + "_acc"  # (its pair is written back as one IMU: kept.write_kept)
        return
    if s.type == "force_torque":
        diag.warn(f"{diag.at(el)}: force_torque sensor '{s.name}' is in a link, not a joint; ignored")
        return
    if s.type not in SENSOR_TYPES:  # (libsdformat refuses the file; a newer specification may have the type)
        diag.warn(f"{diag.at(el)}: sensor '{s.name}' has type '{s.type}', which SDF does not define: kept as "
                  "written")
    _unique_sensor_name(model, g, s, diag)
    s.model_name = s.name
    model.sensors[s.name] = _make_link_sensor(name=s.name, parent_link=s.owner, link_H_sensor=link_H,
                                              sensor_type=SensorType.OTHER, subtype=s.type)


def _add_ft_sensor(model: Model, g: SdfGraph, s: SdfSensor, diag: Diagnostics) -> None:
    r, el = s.scope.r, s.el
    j = g.joints[s.owner]
    joint = model.joints.get(j.name)
    if joint is None or j.parent == WORLD and j.type == "fixed":
        diag.warn(f"{diag.at(el)}: force_torque sensor '{s.name}': its joint '{j.name}' is not in the "
                  "model (world or gearbox joint); ignored")
        return
    _unique_sensor_name(model, g, s, diag)
    ft = s.first.get("force_torque")
    frame = "parent" if s.scope.version < (1, 5) else "child"
    direction = "child_to_parent"
    if ft is not None:
        notes: list = []
        found = look(ft, FORCE_TORQUE_TAGS, ("force_torque",), notes)
        if notes:
            g.unread.setdefault(el, []).extend(notes)
        frame = (r.text(found["frame"]) if "frame" in found else None) or frame
        direction = (r.text(found["measure_direction"]) if "measure_direction" in found else None) or direction
    check_ft_keywords(frame, direction, lambda tag, msg: r.error(find_child(ft, tag), msg), s.name)
    parent_H = g.links[j.parent] if j.parent != WORLD else np.eye(4)
    child_H = g.links[j.child]
    if frame == "sensor":
        model_H_s = s.model_H_sensor
        off = float(np.linalg.norm(model_H_s[:3, 3] - j.model_H_joint[:3, 3]))
        if off > 1e-6:  # (gz-sim moves the joint's wrench to the sensor's origin: X_JS.Pos() x F; below: rounding)
            diag.warn(f"{diag.at(el)}: force_torque sensor '{s.name}': its <pose> is {off:.6g} m from the "
                      f"origin of joint '{j.name}': torques are taken about the sensor's origin, as gz-sim takes them (the "
                      "SDF specification and Gazebo classic take them about the joint's origin)")
    else:
        model_H_s = (child_H if frame == "child" else parent_H).copy()
        model_H_s[:3, 3] = j.model_H_joint[:3, 3]  # torque about the joint origin
        if not np.allclose(s.model_H_sensor, j.model_H_joint, rtol=0.0, atol=1e-12):
            diag.warn(f"{diag.at(el)}: force_torque sensor '{s.name}': its <pose> is not kept: with <frame>{frame}, "
                      f"the wrench is measured in the {frame} link's axes at the joint, and that is the sensor's pose in "
                      "the model (and in every file written from it)")
    second = joint.child
    s.model_name = s.name
    model.sensors[s.name] = ForceTorqueSensor(
        s.name,
        parent_joint=joint.name,
        first_link=joint.parent,
        second_link=second,
        applied_wrench_link=second if direction == "parent_to_child" else joint.parent,
        first_link_H_sensor=g.link_H_model(j.parent) @ model_H_s,
        second_link_H_sensor=g.link_H_model(j.child) @ model_H_s,  # a split joint's middle link sits at the child
        frame=frame,
    )


__all__ = ["graph_to_model", "read_link"]
