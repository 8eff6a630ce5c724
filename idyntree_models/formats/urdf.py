"""URDF with iDynTree's extensions: sensors, spherical/ball joints, massless links as frames.

Semantics follow iDynTree 15 where it is right (see shared/docs/urdf-and-idyntree.md) and differ
where it fails silently: bad input raises a ModelError naming the element and line, sensors on
links that become frames are kept, text is trimmed, mimic joints are kept.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING

import numpy as np
from lxml import etree

from ..errors import ModelError, listed
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
    maker,
)
from ..model.transforms import IDENTITY, inverse, rpy_xyz_to_transform, rpy_xyz_to_transforms, unit_rows, unit_vector
from ..model.validation import inertia_suspects
from .base import Diagnostics, LoadOptions
from .numbers import MAX_NUMBER_CHARS
from .xmlutil import XmlReader, XmlStream, find_child, first_children, shown_tag

if TYPE_CHECKING:
    from ..model.topology import TreeOrder

_JOINT_TYPES = {
    "fixed": JointType.FIXED,
    "revolute": JointType.REVOLUTE,
    "continuous": JointType.REVOLUTE,
    "prismatic": JointType.PRISMATIC,
    "spherical": JointType.SPHERICAL,
    "ball": JointType.SPHERICAL,
}
FT_FRAMES = ("child", "parent", "sensor")
FT_DIRECTIONS = ("parent_to_child", "child_to_parent")
_SENSOR_TYPES = ("accelerometer", "gyroscope")  # the link sensors read from <sensor>
_MODEL_SENSORS = frozenset(("force_torque", *_SENSOR_TYPES))
_LINK_SENSOR_TYPES = {t: SensorType(t) for t in _SENSOR_TYPES}  # (calling the enum looks the value up the slow way)


# the model's objects made from values in their final form (model.maker: no __post_init__ copies)
_make_link, _make_joint, _make_mesh, _make_box, _make_link_sensor = map(maker, (Link, Joint, Mesh, Box, LinkSensor))

Vec3 = tuple[float, float, float]
_ZERO3: Vec3 = (0.0, 0.0, 0.0)


class _UrdfReader(XmlReader):
    # values of vec3 attributes already read in this document (at most this many: a 100,000-link file
    # would otherwise keep one entry per pose)
    VEC3_MEMO = 4096

    def __init__(self, source: str | None) -> None:
        super().__init__(source)
        # Half of a robot's xyz, rpy, axis and scale values repeat one written before (iCubGenova02: 259 of
        # 512, tiago_dual: 1,038 of 1,187): "0 0 0", a mesh scale, an axis.  A lookup is a tenth of a
        # conversion; the values are tuples, so no reader can change one that another shares.
        self._vec3: dict[str, Vec3] = {}
        # set where an element the model reads has an attribute it does not (Franka's <dynamics D= K=>, a
        # <link type=>) or a child it does not: the caller then keeps them (_read_extensions) and sets it back
        self.odd = False
        # materials defined on a shape (name and colour or texture), the first of each name: urdfdom puts them in
        # its material table, so a shape naming one elsewhere gets its colour (iCubDarmstadt01's 'green')
        self.shape_materials: dict[str, Material] = {}

    def other_attributes(self, el: etree._Element) -> None:
        self.odd = True

    def vec3_attr(self, el: etree._Element, attr: str, default: Vec3 | None) -> Vec3:
        """Three numbers; a missing attribute is `default`, or refused when that is None."""
        return self.vec3(el, el.get(attr), attr, default)

    def vec3(self, el: etree._Element, raw: str | None, attr: str, default: Vec3 | None) -> Vec3:
        """vec3_attr of the attribute's value `raw`."""
        if raw is None:
            if default is None:
                raise self.error(el, f"missing required attribute '{attr}'")
            return default
        v = self._vec3.get(raw)
        if v is not None:
            return v
        if len(raw) <= MAX_NUMBER_CHARS and raw.isascii() and "_" not in raw:  # as float_attr
            parts = raw.split()
            if len(parts) == 3:
                try:
                    v = (float(parts[0]), float(parts[1]), float(parts[2]))
                except ValueError:
                    pass
                else:
                    if (v[0] + v[1] + v[2]) * 0.0 != 0.0:  # an inf or nan (or an overflowing sum): checked below
                        v = None
        if v is None:
            v = tuple(self.floats_list(el, raw, f"attribute '{attr}'", 3))
        if len(self._vec3) < self.VEC3_MEMO:
            self._vec3[raw] = v
        return v

    def origin_numbers(self, el: etree._Element) -> tuple[float, ...]:
        """xyz then rpy of an <origin> (joints, shapes, inertials), refused here if bad."""
        a = el.items()  # the names with the values: as cheap as two gets, and any other attribute is seen
        if len(a) == 2:  # as most files write it, in either order (iCub: xyz rpy, xacro's output: rpy xyz)
            (k0, v0), (k1, v1) = a
            if k0 == "xyz" and k1 == "rpy":
                xyz, rpy = v0, v1
            elif k0 == "rpy" and k1 == "xyz":
                xyz, rpy = v1, v0
            else:
                xyz, rpy = el.get("xyz"), el.get("rpy")
                self.odd = True
        else:
            xyz, rpy = el.get("xyz"), el.get("rpy")
            if len(a) > (xyz is not None) + (rpy is not None):
                self.odd = True
        if len(el):  # a child (or a comment: then _read_extensions finds nothing)
            self.odd = True
        return self.vec3(el, xyz, "xyz", _ZERO3) + self.vec3(el, rpy, "rpy", _ZERO3)

    def origin(self, parent: etree._Element) -> np.ndarray:
        return self.pose(first_children(parent).get("origin"))

    def pose(self, el: etree._Element | None) -> np.ndarray:
        """The pose of an <origin> element (identity when there is none)."""
        if el is None:
            return IDENTITY.copy()  # several times cheaper than np.eye(4)
        numbers = self.origin_numbers(el)
        return rpy_xyz_to_transform(numbers[3:], numbers[:3])


class _Numbers:
    """The numbers of every link and joint, gathered as the stream is read and made arrays in one go.

    Per element, a pose or an inertia built on its own costs several small numpy calls (~3 us for a
    pose, ~6 us for a rotated inertia, a copy in each dataclass's __post_init__); gathered in flat
    lists they become a few stacked numpy operations at the end, and each element gets a view of its
    row.  `resolve` must run before anything reads a pose or an inertia (only the loader's own passes
    after the stream: floating root, tree, frames, sensors).
    """

    def __init__(self) -> None:
        # flat arrays of doubles: a list would hold a float object (24 bytes) per number until resolve(),
        # ~70 MB for a 100,000-link model
        self.origins = array("d")  # the <origin> of each deferred pose, xyz then rpy
        self.owners: list[object] = []  # joints (rest_transform) and shapes (link_H_geometry), in order
        self.identity: list[object] = []  # the same, without an <origin>
        self.joints: list[Joint] = []  # every joint: axis_origin
        self.axes = array("d")  # the axis of each 1-DOF joint, as written
        self.moving: list[Joint] = []  # those joints, in order
        self.links: list[Link] = []
        self.inertial = array("d")  # per link: mass, com (3), rpy (3), ixx ixy ixz iyy iyz izz
        self.suspects: list[Link] = []  # of resolve()'s inertias, those validate must look at (inertia_suspects)

    def pose(self, origin: tuple[float, ...] | None, owner: object) -> None:
        """`owner` gets the pose of `origin` (origin_numbers; the identity for None) in resolve()."""
        if origin is None:
            self.identity.append(owner)
            return
        self.origins.extend(origin)
        self.owners.append(owner)

    def resolve(self) -> None:
        origins = np.frombuffer(self.origins).reshape(-1, 6)
        for owners, poses in ((self.owners, rpy_xyz_to_transforms(origins[:, 3:], origins[:, :3])),
                              (self.identity, np.broadcast_to(IDENTITY, (len(self.identity), 4, 4)).copy())):
            for owner, pose in zip(owners, poses):
                if type(owner) is Joint:
                    owner.rest_transform = pose
                    if owner.type is JointType.SPHERICAL:
                        owner.center = pose[:3, 3].copy()
                else:
                    owner.link_H_geometry = pose
        for joint, origin in zip(self.joints, np.zeros((len(self.joints), 3))):
            joint.axis_origin = origin
        for joint, axis in zip(self.moving, unit_rows(np.frombuffer(self.axes).reshape(-1, 3))):
            joint.axis = axis
        n = len(self.links)
        if n:
            v = np.frombuffer(self.inertial).reshape(n, 13)
            mass, com, rpy = v[:, 0].tolist(), v[:, 1:4].copy(), v[:, 4:7]
            xx, xy, xz, yy, yz, zz = v[:, 7:].T
            tensor = np.stack([xx, xy, xz, xy, yy, yz, xz, yz, zz], axis=1).reshape(n, 3, 3)
            turned = np.flatnonzero((rpy != 0.0).any(axis=1))
            if turned.size:  # the inertia of a rotated <origin>, in link axes (as the one-link code did)
                rot = rpy_xyz_to_transforms(rpy[turned], np.zeros((turned.size, 3)))[:, :3, :3]
                with np.errstate(all="ignore"):  # overflow is validation's to report, with the link named
                    t = rot @ tensor[turned] @ rot.transpose(0, 2, 1)  # bit-identical to one matmul per link
                # exactly symmetric, as the file's six numbers (rounding differs between the two triangles)
                t[:, 1, 0], t[:, 2, 0], t[:, 2, 1] = t[:, 0, 1], t[:, 0, 2], t[:, 1, 2]
                tensor[turned] = t
            self.suspects = [self.links[k] for k in inertia_suspects(v[:, 0], com, tensor)]  # (validate's screen)
            new = object.__new__
            for link, m, c, t in zip(self.links, mass, com, tensor):
                # assemble(Inertia, ...) spelled out for its three fields, in field order: half the cost,
                # once per link (test_resolved_inertia_is_a_constructed_one)
                inertia = new(Inertia)
                inertia.mass, inertia.com, inertia.inertia = m, c, t
                link.inertia = inertia


def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    """Read the document as a stream of top-level elements, each freed once read (see XmlStream).

    Links and joints are built as they come; what needs the whole model (joints' links, global
    materials defined after their use, sensors, a floating root, pass-through elements) is resolved
    at the end.  A 100,000-link file so needs the model and one element, not a 700 MB tree.
    """
    source = diag.source
    # A xacro element has a namespace, which only an xmlns attribute declares (an attribute name has no
    # character references): without one there is nothing to look for in every element (tiago_dual's
    # 4,000 elements took a tenth of its load; xacro's output names xacro in a comment, not a namespace).
    # The namespace itself may be written with character references, so "xacro" is not searched for.
    decoded = isinstance(text, str)
    namespaced = ("xmlns" if decoded else b"xmlns") in text
    try:
        stream = XmlStream(text, source, tags=("link", "joint"), blank_text=False)
        del text  # the stream holds the document until it is parsed, and no longer
        if not (decoded or namespaced) and (stream.root.getroottree().docinfo.encoding or "").upper() not in _XMLNS_AS_ASCII:
            namespaced = True  # bytes in an encoding that spells xmlns otherwise (UTF-16, UTF-7): look everywhere
        return _load(stream, namespaced, diag)
    except ModelError as e:
        if "Namespace prefix xacro" in e.message:
            raise ModelError(f"{XACRO_HINT} ({e.message})", source=source, line=e.line) from None
        raise


_XMLNS_AS_ASCII = frozenset(("UTF-8", "UTF8", "US-ASCII", "ASCII", "ISO-8859-1", "LATIN1", "ISO-LATIN-1"))


def _load(stream: XmlStream, namespaced: bool, diag: Diagnostics) -> Model:
    source = diag.source
    root = stream.root
    r = _UrdfReader(source)
    if root.tag != "robot":
        raise r.error(root, f"the root element is <{root.tag}>, a URDF file needs <robot>")
    if namespaced:
        _refuse_xacro(r, root, recursive=False)
    robot_name = root.get("name")
    model = Model(name=(robot_name or "").strip() or "robot")
    if len(root.attrib) > (robot_name is not None):  # a version=, a tool's own
        model.extensions += _read_extensions(root, None, None, _READ["robot"], diag)
    lines: dict[str, int] = {}
    model.metadata["lines"] = lines
    materials: dict[str, Material] = {}
    # shapes naming a material not (yet) defined: the line, and the one defined on a shape before, if any
    unresolved: list[tuple[Shape, int, Material | None]] = []
    link_lines: dict[str, int] = {}
    # (joint, "parent"|"child", link, line) of links not defined yet when the joint came: checked at the end
    ends: list[tuple[str, str, str, int]] = []
    floating: list[tuple[str, str, str, int]] = []  # (joint, parent, child, line)
    items: list[tuple] = []  # every top-level element in order, for the pass-through elements (_extensions)
    numbers = _Numbers()
    gazebo_sensors: list[str] = []  # names of the <sensor>s in <gazebo> blocks, which are no sensors of the model
    for el in stream:
        if namespaced:
            _refuse_xacro(r, el)
        tag = el.tag
        if tag == "link":
            name = r.required(el, "name")
            if name in model.links:
                raise r.error(el, f"duplicate link name '{name}' (first defined at line {link_lines[name]})")
            link_lines[name] = el.sourceline
            model.links[name], inertial_line, plain = _link(r, el, name, materials, unresolved, diag, numbers)
            lines[f"link '{name}'"] = inertial_line or el.sourceline
            if plain and not r.odd:
                items.append(("link", name, _NONE))
            else:
                items.append(("link", name, _link_extensions(el, name, diag, r.odd)))
                r.odd = False
        elif tag == "joint":
            name = r.required(el, "name")
            key = f"joint '{name}'"
            if key in lines:
                raise r.error(el, f"duplicate joint name '{name}' (first defined at line {lines[key]})")
            lines[key] = el.sourceline
            joint, known = _joint(r, el, name, model.links, ends, floating, diag, numbers)
            if joint is not None:
                model.joints[name] = joint
            if r.odd:  # attributes the model does not read: a look at everything
                r.odd = False
                type_name = (el.get("type") or "").strip()
                read = _READ[type_name if type_name in ("fixed", "continuous") else "joint"]
                items.append(("joint", name, _read_extensions(el, "joint", name, read, diag)))
            elif known is not None:  # only children (a fixed joint's <dynamics>: most of iCub's joints)
                items.append(("joint", name, _inner_extensions(el, "joint", name, known, diag)))
            else:
                items.append(("joint", name, _NONE))
        elif tag == "sensor":
            # a sensor of a type the model has is in the model once read (or the load fails): only the others
            # are kept as XML, serialised before `keep` moves them out of the document (which changes their
            # namespace declarations)
            data = el if (el.get("type") or "").strip() in _MODEL_SENSORS else _xml(el)
            stream.keep(el)  # read once the model is complete
            items.append(("sensor", (el.get("name") or "").strip(), data))
        elif tag == "gazebo":
            gazebo_sensors += [s.get("name", "?") for s in el.iterchildren("sensor")]
            items.append(("xml", tag, _xml(el)))
        else:
            if tag == "material":
                materials[r.required(el, "name")] = _material(r, el, {})
                r.odd = False  # kept whole, as XML
            items.append(("xml", shown_tag(el), _xml(el)))
    if not model.links:
        raise r.error(root, "the robot has no <link>")
    numbers.resolve()
    for joint, end, link, line in ends:
        if link not in model.links:
            raise ModelError(f"{end} link '{link}' of joint '{joint}' does not exist", source=source, line=line,
                             element=f"<{end}>")
    _resolve_materials(unresolved, materials, diag)
    _drop_floating_root(model, r, floating, diag)
    try:
        tree = _check_tree(model)
    except ModelError as e:
        raise e.with_source(source) from None
    # what validation needs not compute again (the sensors below change no link, joint or inertia); the order only
    # where no link became a frame: ordering the rest again costs less than taking the frames out of it (iCubGenova04
    # 24 against 63 us, tiago_dual's two 83 against 90 us)
    diag.tree = None if _links_to_frames(model, tree.root, diag) else tree
    diag.inertia_suspects = numbers.suspects
    sensor_extensions = _sensors(r, stream.kept, model, diag)
    if gazebo_sensors:
        diag.warn(
            f"{len(gazebo_sensors)} <gazebo> sensor description(s) are not in the model ({listed(gazebo_sensors, 8)}): "
            "only top-level <sensor> elements of iDynTree's extension define sensors (the <gazebo> blocks are kept: "
            "written back to URDF, and into SDF as libsdformat converts them, where they are sensors)"
        )
    _extensions(items, model, sensor_extensions)
    return model


XACRO_HINT = (
    "the document uses xacro macros, which must be expanded before it is URDF: read it with format "
    "'xacro' (files named *.xacro and documents declaring the xacro namespace are expanded automatically)"
)


def _refuse_xacro(r: _UrdfReader, top: etree._Element, recursive: bool = True) -> None:
    """A xacro document read as plain URDF would load as a silently smaller model: refuse it.

    Called for the root alone and then for each top-level element as the stream reads it."""
    for el in (top.iter(etree.Element) if recursive else (top,)):
        if el.tag[0] != "{":  # no namespace, so no prefix: most URDFs were made by xacro and only say so in a comment
            continue
        if el.prefix == "xacro" or "/xacro" in (etree.QName(el).namespace or ""):
            raise ModelError(f"{XACRO_HINT} (<{el.prefix or 'xacro'}:{etree.QName(el).localname}>)",
                             source=r.source, line=el.sourceline)


# -- pass-through elements -------------------------------------------------------------------
# What the model reads from each level; every other element is kept as an opaque Extension.
_ROBOT_KNOWN = frozenset(("link", "joint"))
_LINK_KNOWN = frozenset(("inertial", "visual", "collision"))
_JOINT_KNOWN = frozenset(("origin", "parent", "child", "axis", "limit", "dynamics", "mimic"))
_FIXED_KNOWN = frozenset(("origin", "parent", "child"))
_SHAPE_KNOWN = frozenset(("origin", "geometry", "material"))
_INERTIAL_KNOWN = frozenset(("origin", "mass", "inertia"))
_FT_SENSOR_KNOWN = frozenset(("parent", "origin", "force_torque"))
_LINK_SENSOR_KNOWN = frozenset(("parent", "origin"))
# Of every known tag but these, URDF readers (urdfdom, iDynTree, ours) read the first and ignore the others:
# a repeat is said and dropped (else it would vanish from an export unannounced).
_REPEATABLE = frozenset(("visual", "collision"))
_NONE: list[Extension] = []  # shared, never appended to: what an element without pass-through elements has
_ORIGIN_ATTRS = frozenset(("xyz", "rpy"))
_INERTIA_ATTRS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
_Read = dict[tuple[str, ...], tuple[frozenset[str], frozenset[str] | None]]
_LEAF: frozenset[str] = frozenset()  # the children of an element holding values only: none is read
_FIXED_JOINT_READ: _Read = {
    (): (frozenset(("name", "type")), _FIXED_KNOWN),
    ("origin",): (_ORIGIN_ATTRS, _LEAF),
    ("parent",): (frozenset(("link",)), _LEAF),
    ("child",): (frozenset(("link",)), _LEAF),
}
# What the model reads of an element and of those below it, by the path of tags from it (the first child of
# each tag, as readers take it): the attributes, and the children (None: not looked at here; the robot's are
# _extensions', a <geometry> has one shape element or is refused).  Anything else is kept by _read_extensions.
_READ: dict[str, _Read] = {
    "robot": {(): (frozenset(("name",)), None)},  # its children: _extensions
    "link": {(): (frozenset(("name",)), _LINK_KNOWN)},
    "inertial": {
        (): (frozenset(), _INERTIAL_KNOWN),
        ("origin",): (_ORIGIN_ATTRS, _LEAF),
        ("mass",): (frozenset(("value",)), _LEAF),
        ("inertia",): (frozenset(_INERTIA_ATTRS), _LEAF),
    },
    "shape": {
        (): (frozenset(("name",)), _SHAPE_KNOWN),
        ("origin",): (_ORIGIN_ATTRS, _LEAF),
        ("geometry",): (frozenset(), None),  # one shape element (else refused)
        ("geometry", "mesh"): (frozenset(("filename", "scale")), _LEAF),
        ("geometry", "box"): (frozenset(("size",)), _LEAF),
        ("geometry", "cylinder"): (frozenset(("radius", "length")), _LEAF),
        ("geometry", "sphere"): (frozenset(("radius",)), _LEAF),
        ("material",): (frozenset(("name",)), frozenset(("color", "texture"))),
        ("material", "color"): (frozenset(("rgba",)), _LEAF),
        ("material", "texture"): (frozenset(("filename",)), _LEAF),
    },
    "fixed": _FIXED_JOINT_READ,  # (also "continuous", below)
    "joint": {
        **_FIXED_JOINT_READ,
        (): (frozenset(("name", "type")), _JOINT_KNOWN),
        ("axis",): (frozenset(("xyz",)), _LEAF),
        ("limit",): (frozenset(("lower", "upper", "effort", "velocity")), _LEAF),
        ("dynamics",): (frozenset(("damping", "friction")), _LEAF),
        ("mimic",): (frozenset(("joint", "multiplier", "offset")), _LEAF),
    },
    "link sensor": {
        (): (frozenset(("name", "type")), _LINK_SENSOR_KNOWN),
        ("parent",): (frozenset(("link",)), _LEAF),
        ("origin",): (_ORIGIN_ATTRS, _LEAF),
    },
    "force_torque": {
        (): (frozenset(("name", "type")), _FT_SENSOR_KNOWN),
        ("parent",): (frozenset(("joint",)), _LEAF),
        ("origin",): (_ORIGIN_ATTRS, _LEAF),
        ("force_torque",): (frozenset(), frozenset(("frame", "measure_direction"))),
        ("force_torque", "frame"): (frozenset(), _LEAF),
        ("force_torque", "measure_direction"): (frozenset(), _LEAF),
    },
}
# a continuous joint has no position limits: a lower= or upper= of its <limit> is kept as the file's own
_READ["continuous"] = {**_READ["joint"], ("limit",): (frozenset(("effort", "velocity")), _LEAF)}
# a force/torque sensor in its joint's child or parent frame reads no <origin> (iDynTree ignores it): one is kept
_FT_ON_LINK_KNOWN = _FT_SENSOR_KNOWN - {"origin"}
_READ["force_torque on a link"] = {path: ((attrs, _FT_ON_LINK_KNOWN) if not path else (attrs, children))
                                   for path, (attrs, children) in _READ["force_torque"].items() if path != ("origin",)}


def _xml(el: etree._Element) -> str:
    return etree.tostring(el, encoding="unicode", with_tail=False)


def _extensions(items: list[tuple], model: Model, sensor_extensions: dict[str, list[Extension]]) -> None:
    """Keep every element the model has no field for, with where it was (see model.Extension).

    `items` are the top-level elements in document order, as the stream met them: links and joints
    with their inner pass-through elements, sensors with their XML (or element, for a type the model
    has), the XML of anything else; `sensor_extensions` the inner ones of the model's sensors.
    """
    sensors = set(model.sensors)
    prev: tuple[str, str | int] | None = None
    for kind, name, data in items:
        if kind in ("link", "joint") or (kind == "sensor" and name in sensors):
            prev = (kind, name)
            model.extensions.extend(data if kind != "sensor" else sensor_extensions.get(name, _NONE))
            continue
        if kind == "sensor":  # one of a type the model has that is not in it would be a bug: not lost either
            tag, xml = "sensor", data if isinstance(data, str) else _xml(data)
        else:
            tag, xml = name, data
        model.extensions.append(Extension("urdf", tag, xml, after=prev))
        prev = ("extension", len(model.extensions) - 1)


def _link_extensions(el: etree._Element, name: str, diag: Diagnostics, attributes: bool) -> list[Extension]:
    """Those of a link that has some (_link said so), of its first <inertial> and of its shapes, of which
    most have none; with `attributes` (r.odd), attributes and what is below the shapes' children too."""
    out = _read_extensions(el, "link", name, _READ["link"], diag, attributes=attributes)
    inertial = next((c for c in el if c.tag == "inertial"), None)  # the one read: a repeat is the link's
    if inertial is not None:
        out += _read_extensions(inertial, "inertial", name, _READ["inertial"], diag, attributes=attributes)
    for kind in ("visual", "collision"):
        # numbered as the model's shapes (Extension.index): one of a kind the model has not is not in it (said)
        for i, shape in enumerate(c for c in el if c.tag == kind and _kept_shape(c)):
            out += _read_extensions(shape, kind, name, _READ["shape"], diag, i, attributes)
    return out


def _kept_shape(el: etree._Element) -> bool:
    """Whether _shape keeps this visual or collision (it drops one of a geometry kind the model has not)."""
    geo = find_child(el, "geometry")
    g = None if geo is None else next((c for c in geo if type(c.tag) is str), None)
    return g is None or g.tag in _SHAPE_KINDS  # (a shape without one is refused before this)


_SHAPE_KINDS = frozenset(("mesh", "box", "cylinder", "sphere"))


def _read_extensions(el: etree._Element, kind: str | None, owner: str | None, read: _Read, diag: Diagnostics,
                     index: int | None = None, attributes: bool = True) -> list[Extension]:
    """What `el` and the elements read below it have that the model does not read (`read`): attributes, and
    children where `read` names those it reads; without `attributes`, only the children of `el` (where a
    reader's `plain` said so, and `_UrdfReader.odd` did not).  Only called for the few elements the readers
    found to have some (`_UrdfReader.odd`, a `plain` or `known` of theirs)."""
    out: list[Extension] = []
    for path, (attrs, children) in (read.items() if attributes else (((), read[()]),)):
        target: etree._Element | None = el
        for tag in path:
            target = find_child(target, tag)
            if target is None:
                break
        if target is None:
            continue
        extra = {k: v for k, v in target.items() if k not in attrs} if attributes else None
        if extra:
            tag = shown_tag(target)
            # with the prefixes of their namespaces, which the exporter keeps where it can (only those: the ones
            # in scope differ between a document read whole and one read in pieces)
            used = {k[1:k.index("}")] for k in extra if k[0] == "{"}
            nsmap = {p: uri for p, uri in target.nsmap.items() if uri in used} if used else None
            holder = etree.Element(target.tag, extra, nsmap=nsmap)
            out.append(Extension("urdf", tag, _xml(holder), kind, owner, None, index, path, attributes=True))
        if children is not None and _has_extensions(target, children):
            out += _inner_extensions(target, kind or "robot", owner or "", children, diag, index, path)
    return out


def _has_extensions(el: etree._Element, known: frozenset[str]) -> bool:
    """Whether `el` has a child not in `known`, or a repeat of one that is read once."""
    seen: set[str] = set()
    for child in el:
        tag = child.tag
        if tag not in known or (tag in seen and tag not in _REPEATABLE):
            return True
        seen.add(tag)
    return False


def _inner_extensions(el: etree._Element, kind: str, owner: str, known: frozenset[str], diag: Diagnostics,
                      index: int | None = None, path: tuple[str, ...] = ()) -> list[Extension]:
    """The children of `el` not in `known`, which the caller found it has (a joint: _joint's loop over its
    children), or a repeat of one read once, which is said here and not kept.  `el` is at `path` below the
    owner `kind` `owner` (Extension.path)."""
    out: list[Extension] = []
    seen: dict[str, int] = {}
    prev: tuple[str, str | int] | None = None
    for child in el:
        tag = child.tag
        if type(tag) is not str:  # a comment or processing instruction the parser kept
            continue
        if tag[0] == "{":
            tag = shown_tag(child)
        elif tag in _REPEATABLE and kind == "link" and not _kept_shape(child):
            continue  # not in the model (said): no anchor, and the shapes after it are numbered without it
        n = seen[tag] = seen.get(tag, -1) + 1
        if tag not in known:
            out.append(Extension("urdf", tag, _xml(child), kind, owner, prev, index, path))
        elif n and tag not in _REPEATABLE:
            # not kept: written back, it would be read instead of the first where an exporter omits that one
            # (an identity <origin>)
            if kind == "inertial":
                where = f"the <inertial> of link '{owner}'"
            elif index is not None:
                where = f"<{kind}> {index} of link '{owner}'"
            else:
                where = f"{kind} '{owner}'"
            if path:
                where = f"the <{path[-1]}> of {where}"
            diag.warn(f"line {child.sourceline}: <{tag}> repeated in {where}: only the first is read, as urdfdom "
                      "reads it (iDynTree reads the last); the repeat is dropped")
        prev = (tag, n)
    return out


# -- links ---------------------------------------------------------------------------------
def _material(r: _UrdfReader, el: etree._Element, known: dict[str, Material]) -> Material:
    raw = el.get("name")
    name = raw or None  # (name="" is what URDF writers write for a material without one: urdfdom requires the attribute)
    color_el = tex_el = None  # the first of each, in one loop (a material on every shape)
    for child in el:
        tag = child.tag
        if tag == "color" and color_el is None:
            color_el = child
        elif tag == "texture" and tex_el is None:
            tex_el = child
        else:
            r.odd = True  # another element or a repeat: _read_extensions
    color = texture = None
    if color_el is not None:
        color = r.floats_attr(color_el, "rgba", 4)
        if len(color_el.attrib) != 1 or len(color_el):
            r.odd = True
    if tex_el is not None:
        texture = tex_el.get("filename")
        if len(tex_el.attrib) > (texture is not None) or len(tex_el):
            r.odd = True
    if len(el.attrib) > (raw is not None):
        r.odd = True
    if color is None and texture is None and name in known:
        ref = known[name]
        return Material(name, None if ref.color is None else ref.color.copy(), ref.texture)
    return Material(name, color, texture)


def _resolve_materials(unresolved: list[tuple[Shape, int, Material | None]], materials: dict[str, Material],
                       diag: Diagnostics) -> None:
    """Shapes that name a material: URDF's <material> table may come after its use, and urdfdom's table also
    holds the materials defined on shapes before (a global one wins)."""
    for shape, line, earlier in unresolved:
        ref = materials.get(shape.material.name) or earlier
        if ref is None:
            diag.warn(f"line {line}: material '{shape.material.name}' is not defined (globally, or on a shape before "
                      "this one): urdfdom keeps its name and no colour; iDynTree drops every visual of the model")
        else:
            shape.material.color = None if ref.color is None else ref.color.copy()
            shape.material.texture = ref.texture


def _link(r: _UrdfReader, el: etree._Element, name: str, materials: dict[str, Material],
          unresolved: list[tuple[Shape, int, Material | None]], diag: Diagnostics,
          numbers: _Numbers) -> tuple[Link, int | None, bool]:
    """The link, the line of its <inertial> (where inertia errors found later point), and whether it
    and its shapes have only children the model reads (else _link_extensions keeps the others, as it
    does where r.odd is set: attributes the model does not read).

    Its numbers are read (and refused) here; the inertia itself is made by numbers.resolve()."""
    inertial = None
    visuals: list[Shape] = []
    collisions: list[Shape] = []
    plain = True
    for child in el:
        tag = child.tag
        if tag == "inertial":
            if inertial is None:
                inertial = child
            else:
                plain = False  # a repeat: said by _link_extensions
        elif tag == "visual" or tag == "collision":
            shape, shape_plain = _shape(r, child, materials, unresolved, diag, numbers)
            plain = plain and shape_plain
            if shape is not None:
                (visuals if tag == "visual" else collisions).append(shape)
        else:
            plain = False
    if len(el.attrib) != 1:  # name= only
        r.odd = True
    link = _make_link(name=name, inertia=None, visuals=visuals, collisions=collisions)  # numbers.resolve()
    numbers.links.append(link)
    if inertial is None:
        numbers.inertial.extend(_NO_INERTIAL)
        return link, None, plain
    mass_el, i_el, origin_el, inertial_plain = _first3(inertial, "mass", "inertia", "origin")
    plain = plain and inertial_plain
    if len(inertial.attrib):
        r.odd = True
    if mass_el is not None:
        mass = r.float_attr(mass_el, "value")
        if len(mass_el.attrib) != 1 or len(mass_el):
            r.odd = True
    else:
        mass = 0.0
    values = numbers.inertial
    values.append(mass)
    if origin_el is not None:
        values.extend(r.origin_numbers(origin_el))
    else:
        values.extend(_ZERO6)
    if i_el is not None:
        keys = i_el.keys()
        missing = [k for k in _INERTIA_ATTRS if k not in keys] if tuple(keys) != _INERTIA_ATTRS else None
        if missing:  # (urdfdom refuses it; iDynTree takes a zero inertia, whatever the others say)
            raise r.error(i_el, f"<inertia> needs all six of ixx ixy ixz iyy iyz izz (missing: {' '.join(missing)})")
        values.extend(r.float_attrs(i_el, _INERTIA_ATTRS, 0.0))  # (other attributes: r.other_attributes)
        if len(i_el):
            r.odd = True
    else:
        values.extend(_ZERO6)
    return link, inertial.sourceline, plain


def _first3(el: etree._Element, a: str, b: str, c: str) -> tuple[etree._Element | None, etree._Element | None,
                                                                 etree._Element | None, bool]:
    """The first child `a`, `b` and `c` (as find gives them; None where there is none), in one loop, and whether
    `el` has no other child: another element is kept by _link_extensions, a repeat said there."""
    first_a = first_b = first_c = None
    plain = True
    for child in el:
        tag = child.tag
        if tag == a and first_a is None:
            first_a = child
        elif tag == b and first_b is None:
            first_b = child
        elif tag == c and first_c is None:
            first_c = child
        else:
            plain = False
    return first_a, first_b, first_c, plain


_ZERO6 = (0.0,) * 6
_X_AXIS = (1.0, 0.0, 0.0)
_ONES = (1.0, 1.0, 1.0)
_NO_INERTIAL = (0.0,) * 13


def _shape(r: _UrdfReader, el: etree._Element, materials: dict[str, Material],
           unresolved: list[tuple[Shape, int, Material | None]], diag: Diagnostics,
           numbers: _Numbers) -> tuple[Shape | None, bool]:
    """The shape (None for a geometry the model has no kind for), and whether it has only children the
    model reads."""
    geo, origin_el, mat_el, plain = _first3(el, "geometry", "origin", "material")
    if geo is None:
        raise r.error(el, f"<{el.tag}> has no <geometry>")
    g = None
    count = 0
    for child in geo:
        if type(child.tag) is str:  # not an entity reference
            g = child
            count += 1
    if count != 1:
        raise r.error(geo, f"<geometry> needs exactly one shape element, found {count}")
    origin = r.origin_numbers(origin_el) if origin_el is not None else None
    name = el.get("name")
    kind = g.tag
    shape: Shape
    # attributes of the shape element besides those read, or a child of it: kept by _read_extensions
    n = len(g.attrib)
    if kind == "mesh":
        filename = r.required(g, "filename")
        scale = g.get("scale")
        if scale is not None and len(scale.split()) == 1:  # some exporters write one factor
            s = r.float_attr(g, "scale")
            sc = np.array([s, s, s])
            diag.warn(f"line {g.sourceline}: mesh scale '{scale}' has one number, read as {s:g} on each axis "
                      "(urdfdom refuses it, iDynTree reads 1 1 1)")
        else:
            sc = np.array(r.vec3(g, scale, "scale", _ONES))
        n -= scale is not None
        shape = _make_mesh(link_H_geometry=None, name=name, filename=filename, scale=sc)
    elif kind == "box":
        shape = _make_box(link_H_geometry=None, name=name, size=np.array(r.vec3_attr(g, "size", None)))
    elif kind == "cylinder":
        shape = Cylinder(None, name, radius=r.float_attr(g, "radius"), length=r.float_attr(g, "length"))
        n -= 1
    elif kind == "sphere":
        shape = Sphere(None, name, radius=r.float_attr(g, "radius"))
    else:
        diag.warn(f"line {g.sourceline}: <{el.tag}> geometry <{kind}> is not supported and was ignored")
        return None, plain
    if n != 1 or len(g) or len(geo.attrib) or len(el.attrib) > (name is not None):
        r.odd = True
    numbers.pose(origin, shape)  # link_H_geometry: numbers.resolve()
    if mat_el is not None:
        material = shape.material = _material(r, mat_el, materials)
        if material.color is None and material.texture is None:
            if material.name is not None and material.name not in materials:  # (a global one may come later; else one
                # defined on a shape before; a material with no name, colour or texture names nothing to look up)
                unresolved.append((shape, mat_el.sourceline, r.shape_materials.get(material.name)))
        elif material.name and material.name not in r.shape_materials:
            r.shape_materials[material.name] = material
    return shape, plain


# -- joints --------------------------------------------------------------------------------
def _joint(r: _UrdfReader, el: etree._Element, name: str, links: dict, ends: list, floating: list,
           diag: Diagnostics, numbers: _Numbers) -> tuple[Joint | None, frozenset[str] | None]:
    """The joint (None: a floating one, left to _drop_floating_root with `floating`), and None when every
    child is one the model reads, else the tags it reads (for _inner_extensions).  r.odd is set where an
    element has attributes the model does not read (for _read_extensions).  Links not read yet are checked
    once every link is known (`ends`)."""
    type_name = (el.get("type") or "").strip()
    # the first child of each tag (what find gives), in one loop: a third cheaper than _first's dict
    origin_el = parent_el = child_el = axis_el = lim_el = dyn_el = mimic_el = None
    other = False  # a child the model reads for no joint, or a repeat
    for c in el:
        tag = c.tag
        if tag == "origin" and origin_el is None:
            origin_el = c
        elif tag == "parent" and parent_el is None:
            parent_el = c
        elif tag == "child" and child_el is None:
            child_el = c
        elif tag == "axis" and axis_el is None:
            axis_el = c
        elif tag == "limit" and lim_el is None:
            lim_el = c
        elif tag == "dynamics" and dyn_el is None:
            dyn_el = c
        elif tag == "mimic" and mimic_el is None:
            mimic_el = c
        else:  # another element (kept by _inner_extensions) or a repeat (said there)
            other = True
    # the model has no axis, limit, dynamics or mimic for a fixed joint: those are passed through too
    if type_name == "fixed":
        known = _FIXED_KNOWN
        other = other or not (axis_el is None and lim_el is None and dyn_el is None and mimic_el is None)
    else:
        known = _JOINT_KNOWN
    if not other:  # no pass-through element
        known = None
    if parent_el is None or child_el is None:
        raise r.error(el, "a joint needs <parent link=...> and <child link=...>")
    parent = r.required(parent_el, "link")
    child = r.required(child_el, "link")
    # name and type, and the links' names: anything else is kept
    if len(el.attrib) != 2 or len(parent_el.attrib) != 1 or len(child_el.attrib) != 1 or len(parent_el) or len(child_el):
        r.odd = True
    # the link's own name object where the link is known (a 100,000-link model would hold 200,000 copies)
    link = links.get(parent)
    if link is None:
        ends.append((name, "parent", parent, parent_el.sourceline))
    else:
        parent = link.name
    link = links.get(child)
    if link is None:
        ends.append((name, "child", child, child_el.sourceline))
    else:
        child = link.name
    if type_name in ("floating", "planar"):
        if type_name == "floating":
            floating.append((name, parent, child, el.sourceline))
            return None, known  # handled by _drop_floating_root once the tree is known
        raise r.error(el, "joint type 'planar' is not supported (use prismatic and revolute joints)")
    if type_name not in _JOINT_TYPES:
        raise r.error(el, f"unknown joint type '{type_name}' (expected one of {', '.join(_JOINT_TYPES)}, floating)")
    jtype = _JOINT_TYPES[type_name]
    origin = r.origin_numbers(origin_el) if origin_el is not None else None
    # rest_transform, axis_origin (and a spherical joint's center): numbers.resolve()
    joint = _make_joint(name=name, type=jtype, parent=parent, child=child, rest_transform=None, axis_origin=None,
                        limits=Limits())
    numbers.pose(origin, joint)
    numbers.joints.append(joint)
    if jtype is JointType.SPHERICAL:
        for tag, ignored in (("limit", lim_el), ("dynamics", dyn_el), ("axis", axis_el), ("mimic", mimic_el)):
            if ignored is not None:
                diag.warn(f"line {ignored.sourceline}: <{tag}> of spherical joint '{name}' is ignored")
        return joint, known
    if jtype is JointType.FIXED:
        return joint, known
    if axis_el is not None:
        raw = axis_el.get("xyz")
        if len(axis_el.attrib) > (raw is not None) or len(axis_el):
            r.odd = True
        axis = r.vec3(axis_el, raw, "xyz", _X_AXIS)
    else:
        axis = _X_AXIS
    x, y, z = axis
    # made a unit vector with all others in numbers.resolve(); one too short for that to be sure of
    # (under 1e-10) is tried on its own, so that a zero axis is refused here, with its line
    if not x * x + y * y + z * z > 1e-20 and unit_vector(axis) is None:
        raise r.error(axis_el, f"joint '{name}' has a zero axis; give a non-zero direction")
    numbers.axes.extend(axis)
    numbers.moving.append(joint)
    lim = joint.limits
    if lim_el is not None:
        lower, upper, effort, velocity = (lim_el.get("lower"), lim_el.get("upper"), lim_el.get("effort"),
                                          lim_el.get("velocity"))
        if (len(lim_el.attrib) > (lower is not None) + (upper is not None) + (effort is not None) + (velocity is not None)
                or len(lim_el)):
            r.odd = True
        if type_name == "continuous":
            if lower is not None or upper is not None:  # not position limits of a continuous joint: kept as they are
                r.odd = True
        else:
            lim.has_position_limits = True
            lim.min_position = r.float_value(lim_el, lower, "lower", 0.0)
            lim.max_position = r.float_value(lim_el, upper, "upper", 0.0)
            if lim.min_position > lim.max_position:
                raise r.error(lim_el, f"lower limit {lim.min_position} is above upper limit {lim.max_position}")
        if effort is not None:
            lim.has_effort_limit, lim.effort_limit = True, r.float_value(lim_el, effort, "effort")
        if velocity is not None:
            lim.has_velocity_limit, lim.velocity_limit = True, r.float_value(lim_el, velocity, "velocity")
    elif type_name != "continuous":
        diag.warn(f"line {el.sourceline}: {type_name} joint '{name}' has no <limit> (URDF requires one)")
    if dyn_el is not None:
        damping, friction = dyn_el.get("damping"), dyn_el.get("friction")
        if len(dyn_el.attrib) > (damping is not None) + (friction is not None) or len(dyn_el):
            r.odd = True
        joint.dynamics = Dynamics(r.float_value(dyn_el, damping, "damping", 0.0),
                                  r.float_value(dyn_el, friction, "friction", 0.0))
    if mimic_el is not None:
        multiplier, offset = mimic_el.get("multiplier"), mimic_el.get("offset")
        if len(mimic_el.attrib) > 1 + (multiplier is not None) + (offset is not None) or len(mimic_el):  # (joint= is required)
            r.odd = True
        joint.mimic = Mimic(r.required(mimic_el, "joint"), r.float_value(mimic_el, multiplier, "multiplier", 1.0),
                            r.float_value(mimic_el, offset, "offset", 0.0))
    return joint, known


def _check_tree(model: Model) -> TreeOrder:
    """The model's tree order, once it is known to be a tree (errors located at their element).

    Checked in full here, before massless links become frames and sensors are attached, so that a
    model that is no tree is refused as the file wrote it (finish_model orders the links again where some became frames)."""
    from ..model.topology import tree_order
    from ..model.validation import check_mimics, locate

    try:
        tree = tree_order(model)
        check_mimics(model)
    except ModelError as e:
        raise locate(e, model) from None
    return tree


def _drop_floating_root(model: Model, r: _UrdfReader, floating: list[tuple[str, str, str, int]],
                        diag: Diagnostics) -> None:
    """Accept the common `world --floating--> base` pattern: our models are floating-base already."""
    for name, parent, child, line in floating:
        if parent not in model.links:
            raise ModelError(f"a second floating joint from '{parent}': only one floating joint, from a massless "
                             "root link to the robot's base, is supported", source=r.source, line=line,
                             element=f"<joint name='{name}'>")
        is_root = all(j.child != parent for j in model.joints.values())
        only_joint = not any(parent in (j.parent, j.child) for j in model.joints.values())
        massless = model.links[parent].inertia.mass <= 0 and not model.links[parent].visuals
        if not (is_root and only_joint and massless) or any(j.child == child for j in model.joints.values()):
            raise ModelError(
                "a floating joint is only supported between a massless root link and the robot's base "
                "(the model is floating-base by default); this one is inside the tree",
                source=r.source, line=line, element=f"<joint name='{name}'>",
            )
        del model.links[parent]
        model.default_base_link = child
        diag.warn(
            f"line {line}: floating joint '{name}' and its massless root link '{parent}' were dropped: "
            f"'{child}' is the floating base"
        )


_ZERO_TENSOR = [[0.0, 0.0, 0.0]] * 3  # an inertia tensor's rows as tolist() gives them (0.0 == -0.0; NaN is not 0)


def _links_to_frames(model: Model, root: str, diag: Diagnostics) -> int:
    """iDynTree's fake links: massless links with one fixed neighbour become frames (one pass); how many.

    iDynTree's test is the mass alone (not > 0), so a negative mass or an inertia tensor on a massless link goes
    with it; a frame holds neither, so that is named in a warning (iDynTree says nothing)."""
    # the joints of the massless links only (the candidates; a huge model has few or none)
    neighbours: dict[str, list[Joint]] = {n: [] for n, link in model.links.items() if not link.inertia.mass > 0.0}
    if neighbours:
        for j in model.joints.values():
            if j.parent in neighbours:
                neighbours[j.parent].append(j)
            if j.child in neighbours:
                neighbours[j.child].append(j)
    fake = {name for name, joints in neighbours.items() if len(joints) == 1 and joints[0].type is JointType.FIXED}
    # two massless links joined only to each other: keep the root so the model is not empty
    if len(fake) == len(model.links):
        fake.discard(root)
    model.default_base_link = root
    removed: dict[str, tuple[str, np.ndarray]] = {}
    for name in [n for n in model.links if n in fake]:
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
    held = [f"'{name}' (mass {model.links[name].inertia.mass:g})" for name in removed
            if model.links[name].inertia.mass != 0.0 or model.links[name].inertia.inertia.tolist() != _ZERO_TENSOR]
    if held:
        diag.warn(f"link(s) {listed(held, 5)} have no positive mass and one fixed joint, so they are frames here (as "
                  "in iDynTree): their inertial (a negative mass, an inertia tensor) is not in the model")
    with np.errstate(all="ignore"):  # (a pose beyond a double: validation refuses it, with the link)
        for name, (real, real_H_fake) in removed.items():
            link = model.links.pop(name)
            del model.joints[neighbours[name][0].name]
            if link.visuals or link.collisions:
                target = model.links[real]
                for src, dst in ((link.visuals, target.visuals), (link.collisions, target.collisions)):
                    for shape in src:
                        shape.link_H_geometry = real_H_fake @ shape.link_H_geometry
                        shape.source_frame = name
                        dst.append(shape)
    frame_joints: dict[str, FrameJoint] = {}
    lines = model.metadata.get("lines", {})
    for name, (real, real_H_fake) in removed.items():
        model.frames[name] = Frame(name, real, real_H_fake)
        if f"link '{name}'" in lines:  # (a finding about the frame points at the link it was)
            lines.setdefault(f"frame '{name}'", lines[f"link '{name}'"])
        joint = neighbours[name][0]
        frame_joints[name] = FrameJoint(joint.name, frame_is_parent=joint.parent == name)
    model.metadata["frame_joints"] = frame_joints
    return len(removed)


# -- sensors -------------------------------------------------------------------------------
def _sensors(r: _UrdfReader, elements: list[etree._Element], model: Model,
             diag: Diagnostics) -> dict[str, list[Extension]]:
    """The top-level <sensor> elements, in order; the accelerometers' and gyroscopes' poses all at once.
    Returns the pass-through elements of each sensor that has some (a <noise>, an <update_rate>).

    A robot's skin or IMUs make tens of link sensors (iCubGenova04: 77); one pose each, built and
    composed alone, made sensors a tenth of its load."""
    lines: dict[str, int] = {}
    inner: dict[str, list[Extension]] = {}
    links = model.links
    # link sensors: name, link, type, the frame they are on in the file (if not a link), has an <origin>
    placed: list[tuple[str, str, SensorType, Frame | None, bool]] = []
    origins = array("d")  # their <origin>s, xyz then rpy
    for el in elements:
        name = r.required(el, "name")
        stype = r.required(el, "type")
        if name in lines:
            raise r.error(el, f"duplicate sensor name '{name}' (first defined at line {lines[name]})")
        lines[name] = el.sourceline
        for kind in ("sensor", "frame"):  # (where validation's findings point: the sensor, and the frame made for it)
            model.metadata["lines"].setdefault(f"{kind} '{name}'", el.sourceline)
        if stype == "force_torque":
            model.sensors[name] = _ft_sensor(r, el, name, model, diag)
        elif stype in _SENSOR_TYPES:
            k = first_children(el)
            parent_el = k.get("parent")
            link = _sensor_parent(r, el, parent_el, "link")
            if len(el.attrib) != 2 or len(parent_el.attrib) != 1 or len(parent_el):  # name, type; link
                r.odd = True
            origin_el = k.get("origin")
            if origin_el is not None:
                origins.extend(r.origin_numbers(origin_el))
            frame = None
            if link not in links:
                frame = model.frames.get(link)
                if frame is None:
                    raise r.error(k["parent"], f"{stype} '{name}': parent link '{link}' does not exist")
                link = frame.parent_link  # iDynTree drops this sensor; it stays on the real link, pose composed
            placed.append((name, link, _LINK_SENSOR_TYPES[stype], frame, origin_el is not None))
            model.sensors[name] = None  # type: ignore[assignment]  # its place in the order, filled below
        else:
            diag.warn(
                f"line {el.sourceline}: sensor '{name}' of type '{stype}' is not supported "
                "(force_torque, accelerometer, gyroscope): it is not in the model (kept as XML for URDF export)"
            )
            continue
        if stype != "force_torque":
            kind = "link sensor"
        else:
            kind = "force_torque" if model.sensors[name].frame == "sensor" else "force_torque on a link"
        if r.odd or _has_extensions(el, _READ[kind][()][1]):
            r.odd = False
            inner[name] = _read_extensions(el, "sensor", name, _READ[kind], diag)
    if placed:
        v = np.frombuffer(origins).reshape(-1, 6)
        computed = iter(rpy_xyz_to_transforms(v[:, 3:], v[:, :3]))
        # exactly the identity without an <origin>: no -0.0 of a computed one
        poses = [next(computed) if has_origin else IDENTITY.copy() for _, _, _, _, has_origin in placed]
        # a sensor on a link that became a frame: its pose composed with the frame's, all in one product (a third
        # of iCubGenova04's 77 link sensors; bit for bit the products one at a time)
        on_frames = [k for k, item in enumerate(placed) if item[3] is not None]
        if on_frames:
            with np.errstate(all="ignore"):  # (a pose beyond a double: validation refuses it, with the line)
                composed = np.matmul(np.array([placed[k][3].link_H_frame for k in on_frames]),
                                     np.array([poses[k] for k in on_frames]))
            for k, pose in zip(on_frames, composed):
                poses[k] = pose
        for (name, link, stype, _, _), pose in zip(placed, poses):
            model.sensors[name] = _make_link_sensor(name=name, parent_link=link, link_H_sensor=pose, sensor_type=stype)
    return inner


def _sensor_parent(r: _UrdfReader, el: etree._Element, parent: etree._Element | None, attr: str) -> str:
    name = (parent.get(attr) or "").strip() if parent is not None else ""
    if not name:
        raise r.error(el, f"sensor needs <parent {attr}=\"...\"/>")
    return name


def _ft_sensor(r: _UrdfReader, el, name: str, model: Model, diag: Diagnostics) -> ForceTorqueSensor:
    parent_el = el.find("parent")
    joint_name = _sensor_parent(r, el, parent_el, "joint")
    if len(el.attrib) != 2 or len(parent_el.attrib) != 1 or len(parent_el):  # name, type; joint
        r.odd = True
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
        # what the model reads of <force_torque>: no attribute, these two children (each without one)
        if (len(ft.attrib) or len(ft) != (f_el is not None) + (d_el is not None)
                or (f_el is not None and (len(f_el.attrib) or len(f_el)))
                or (d_el is not None and (len(d_el.attrib) or len(d_el)))):
            r.odd = True
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
        with np.errstate(all="ignore"):  # (a pose beyond a double: validation refuses it, with the line)
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


from .urdf_export import dump  # noqa: E402,F401
