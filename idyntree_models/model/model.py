"""The multibody model every format is loaded into and exported from.

It mirrors iDynTree's Model (links with inertia, 0/1/3-DOF joints, additional frames, sensors,
shapes) so that conversions are exact, and keeps what iDynTree drops (mimic joints, sensors on
removed links, the robot name).  It holds no I/O and no ROS.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import MISSING, dataclass, field, fields
from enum import Enum
from typing import Any, TypeVar

import numpy as np

from .._lazy import LazyPattern
from .._record import Record, record
from .transforms import IDENTITY

T = TypeVar("T")


def _vec(v, n: int = 3) -> np.ndarray:
    """A float copy of `v` as an n-vector (a copy, so that no two objects share one array)."""
    a = np.array(v, dtype=float)
    return a if a.shape == (n,) else a.reshape(n)


class JointType(str, Enum):
    FIXED = "fixed"
    REVOLUTE = "revolute"
    PRISMATIC = "prismatic"
    SPHERICAL = "spherical"

    @property
    def dofs(self) -> int:
        return {"fixed": 0, "revolute": 1, "prismatic": 1, "spherical": 3}[self.value]


@record
class Inertia(Record):
    """Mass, centre of mass (link frame) and rotational inertia about the COM in link axes.

    Stored about the COM because that is what URDF, SDF and SKEL write; iDynTree's JSON wants it
    about the link origin, which `about_origin` gives.
    """

    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))

    def __post_init__(self) -> None:
        self.mass = float(self.mass)
        self.com = _vec(self.com)
        tensor = np.array(self.inertia, dtype=float)
        self.inertia = tensor if tensor.shape == (3, 3) else tensor.reshape(3, 3)

    def is_finite(self) -> bool:
        """Whether mass, COM and tensor are all finite: sums and products of huge parts overflow quietly
        (under np.errstate), and the reader that made them refuses them with its element."""
        return math.isfinite(self.mass) and bool(np.isfinite(self.com).all()) and bool(np.isfinite(self.inertia).all())

    def about_origin(self) -> np.ndarray:
        """The tensor about the link origin; entries beyond a double's range are inf (callers check)."""
        return shift_inertia(self.inertia, self.mass, self.com)

    @classmethod
    def from_origin(cls, mass: float, com, inertia_origin) -> Inertia:
        c = _vec(com)
        i_o = np.array(inertia_origin, dtype=float).reshape(3, 3)
        return cls(mass, c, shift_inertia(i_o, mass, c, -1.0))


def shift_inertia(inertia: np.ndarray, mass: float, c: np.ndarray, sign: float = 1.0) -> np.ndarray:
    """inertia + sign * mass * (|c|^2 I - c c^T): the parallel-axis theorem, a tensor about the COM moved to
    a point `c` away from it (sign -1: back), overflowing to inf quietly (no numpy warning; callers check).

    A massless body's shift is zero however far it lies: past ~1e154 m the squared distance overflows, and
    0 * inf would make the tensor NaN (a JSON export refused a sound model, a combined inertia became NaN).
    """
    if mass == 0.0:
        return inertia.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        return inertia + sign * mass * (float(c @ c) * np.eye(3) - np.outer(c, c))


@record
class Limits(Record):
    """Joint limits with explicit has-flags, as iDynTree keeps them."""

    has_position_limits: bool = False
    min_position: float = 0.0
    max_position: float = 0.0
    has_effort_limit: bool = False
    effort_limit: float = 0.0
    has_velocity_limit: bool = False
    velocity_limit: float = 0.0


@record
class Dynamics(Record):
    """A joint's viscous damping and Coulomb friction (URDF's <dynamics>): kept for the exporters."""

    damping: float = 0.0
    friction: float = 0.0


@record
class Mimic(Record):
    """child position = multiplier * joint position + offset."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0


@record
class Joint(Record):
    """A joint between two links.

    `rest_transform` is parent_H_child at zero position.  For 1-DOF joints `axis` is a unit
    direction in the child frame through `axis_origin` (also in the child frame): the child moves
    as parent_H_child(q) = rest * T(o) * Rot(axis, q) * T(-o) (or a translation q*axis).  For
    spherical joints `center` is the rotation centre in the parent frame and the rotation
    (unit quaternion w, x, y, z) is expressed in the child's rest axes.
    """

    name: str
    type: JointType
    parent: str
    child: str
    rest_transform: np.ndarray = field(default_factory=lambda: np.eye(4))
    axis: np.ndarray | None = None
    axis_origin: np.ndarray = field(default_factory=lambda: np.zeros(3))
    center: np.ndarray | None = None
    limits: Limits = field(default_factory=Limits)
    dynamics: Dynamics | None = None
    mimic: Mimic | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.type, JointType):
            self.type = JointType(self.type)
        rest = np.array(self.rest_transform, dtype=float)
        self.rest_transform = rest if rest.shape == (4, 4) else rest.reshape(4, 4)
        if self.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            self.axis = _vec(self.axis if self.axis is not None else (1.0, 0.0, 0.0))
        self.axis_origin = _vec(self.axis_origin)
        if self.type is JointType.SPHERICAL:
            self.center = _vec(self.center if self.center is not None else self.rest_transform[:3, 3])

    @property
    def dofs(self) -> int:
        return self.type.dofs

    @property
    def is_continuous(self) -> bool:
        return self.type is JointType.REVOLUTE and not self.limits.has_position_limits


@record
class Material(Record):
    """A shape's look: a named material, an rgba colour in [0, 1] and/or a texture file, as the source gave them."""

    name: str | None = None
    color: np.ndarray | None = None  # rgba
    texture: str | None = None


@record
class Shape(Record):
    """Visual or collision geometry attached to a link (pose in the link frame)."""

    link_H_geometry: np.ndarray = field(default_factory=lambda: np.eye(4))
    name: str | None = None
    material: Material | None = None
    # the frame it was attached to in the source, when that was a massless link that became a
    # frame of this link (URDF): the URDF exporter writes it back on that link
    source_frame: str | None = None

    kind = "shape"


@record
class Box(Shape):
    """`size`: the full edge lengths along x, y, z (URDF, SDF and SKEL all write those, not half-sizes)."""

    size: np.ndarray = field(default_factory=lambda: np.ones(3))
    kind = "box"


@record
class Sphere(Shape):
    """Centred on the shape's frame."""

    radius: float = 1.0
    kind = "sphere"


@record
class Cylinder(Shape):
    """Axis along z, centred on the origin, as URDF and SDF define it."""

    radius: float = 1.0
    length: float = 1.0
    kind = "cylinder"


@record
class Mesh(Shape):
    """`filename` as the source wrote it (package://, model://, relative: see formats.mesh_uris), `scale` per axis."""

    filename: str = ""
    scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    kind = "mesh"


@record
class Ellipsoid(Shape):
    """`radii`: the semi-axes along x, y, z (SDF's and MJCF's ellipsoid)."""

    radii: np.ndarray = field(default_factory=lambda: np.ones(3))
    kind = "ellipsoid"


@record
class Capsule(Shape):
    """A cylinder of `length` along z with hemispheres of `radius` on both ends (the ends not in `length`)."""

    radius: float = 1.0
    length: float = 1.0
    kind = "capsule"


@record
class Cone(Shape):
    """Axis along z, base of `radius`, height `length` (SDF 1.11's cone)."""

    radius: float = 1.0
    length: float = 1.0
    kind = "cone"


@record
class Link(Record):
    """A rigid body: its inertia and its shapes, each pose in the link frame."""

    name: str
    inertia: Inertia = field(default_factory=lambda: zero_inertia())
    visuals: list[Shape] = field(default_factory=list)
    collisions: list[Shape] = field(default_factory=list)


@record
class Frame(Record):
    """An additional frame rigidly attached to a link (iDynTree's 'additional frame')."""

    name: str
    parent_link: str
    link_H_frame: np.ndarray = field(default_factory=lambda: np.eye(4))


class SensorType(str, Enum):
    FORCE_TORQUE = "force_torque"
    ACCELEROMETER = "accelerometer"
    GYROSCOPE = "gyroscope"
    ANGULAR_ACCELEROMETER = "three_axis_angular_accelerometer"
    OTHER = "other"


@record
class Sensor(Record):
    """What every sensor has: a name unique among sensors; subclasses say where it is mounted."""

    name: str

    type = SensorType.OTHER

    @property
    def frame_link(self) -> str:
        """The link whose frame the sensor pose is given in (where it lives on TF)."""
        raise NotImplementedError

    @property
    def frame_transform(self) -> np.ndarray:
        raise NotImplementedError


@record
class LinkSensor(Sensor):
    """A sensor rigidly attached to one link: accelerometer, gyroscope and similar."""

    parent_link: str = ""
    link_H_sensor: np.ndarray = field(default_factory=lambda: np.eye(4))
    sensor_type: SensorType = SensorType.ACCELEROMETER
    subtype: str | None = None  # for OTHER: the format's own name (camera, lidar, ...)
    properties: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sensor_type = SensorType(self.sensor_type)

    @property
    def type(self) -> SensorType:  # type: ignore[override]
        return self.sensor_type

    @property
    def frame_link(self) -> str:
        return self.parent_link

    @property
    def frame_transform(self) -> np.ndarray:
        return self.link_H_sensor


@record
class ForceTorqueSensor(Sensor):
    """Six-axis F/T sensor in a joint, with iDynTree's semantics.

    first/second link are the joint's parent/child seen from the base; `applied_wrench_link`
    is the link on which the measured wrench acts (the child for parent_to_child).
    `frame` records how the sensor frame was given (child, parent, sensor) so exports keep it.
    """

    parent_joint: str = ""
    first_link: str = ""
    second_link: str = ""
    applied_wrench_link: str = ""
    first_link_H_sensor: np.ndarray = field(default_factory=lambda: np.eye(4))
    second_link_H_sensor: np.ndarray = field(default_factory=lambda: np.eye(4))
    frame: str = "child"

    type = SensorType.FORCE_TORQUE

    @property
    def measure_direction(self) -> str:
        return "parent_to_child" if self.applied_wrench_link == self.second_link else "child_to_parent"

    @property
    def frame_link(self) -> str:
        return self.second_link

    @property
    def frame_transform(self) -> np.ndarray:
        return self.second_link_H_sensor


@record
class Extension(Record):
    """An element of the source file that the model has no field for, kept verbatim as XML text.

    URDF files carry `<transmission>`, `<gazebo>`, `<ros2_control>`, a joint's `<calibration>` and
    `<safety_controller>` and tags of any tool; a converter that drops them breaks the robot's
    controllers and simulation silently.  They are kept opaque (this package does not interpret
    them) and written back by the exporter of the same format, where they were: `owner` is the link
    or joint holding the element (None: the document root), `after` the sibling it followed.

    Deeper in an element the model reads, `path` names the element holding this one by the tags leading
    to it from the owner (the first child of each tag, the one readers take): an unknown child of a
    shape's `<material>` is at ("material",).  Attributes the model has no field for, on an element it
    reads (Franka's `<dynamics D= K=>`, a `<link type=>`), are kept too: `attributes` is then set, `xml`
    is an empty element holding only them and `path` leads to the element they belong on.
    """

    format: str  # the format whose syntax `xml` is in ("urdf")
    tag: str  # the element's tag, for messages
    xml: str  # the element itself, serialised
    # "link", "joint", "sensor", "inertial", "visual", "collision" (or in SDF "model" and "frame") holding it;
    # None: the root
    owner_kind: str | None = None
    owner: str | None = None  # name of that link, joint or sensor (of the link, for an inertial, visual or collision)
    after: tuple[str, str | int] | None = None  # (tag, name or index among same-tag siblings) of the preceding sibling
    index: int | None = None  # for a visual or collision: which of the link's, in source order
    path: tuple[str, ...] = ()  # the element inside the owner that holds it (see above)
    attributes: bool = False  # `xml` holds attributes of the element at `path` (see above)

    def mentions(self, names: Collection[str]) -> list[str]:
        """Those of `names` that the element gives as an attribute's value or an element's text: a <transmission>'s
        `<joint name=>`, a `<gazebo reference=>`, a plugin's `<joint_name>`. Kept as written, they name joints and
        links that a change of the model (a reduction, a folding) may have removed."""
        from html import unescape  # (html.entities' table: not for every load that never asks)

        found = {unescape(v).strip() for groups in _VALUES.findall(self.xml) for v in groups if v}
        return [n for n in dict.fromkeys(names) if n in found]


# an attribute's value ("..." or '...') or an element's text, in a kept element's XML text
_VALUES = LazyPattern(r"""=\s*"([^"]*)"|=\s*'([^']*)'|>([^<]+)<""")


def dangling_mentions(extensions: list[Extension], removed: Collection[str]) -> list[tuple[str, list[str]]]:
    """The document's own kept elements (a URDF's root elements, an SDF model's plugins: written as they are) that
    name something of `removed`, a change of the model took away (a folding, a reduction): (tag, the names)."""
    out = []
    for e in extensions:
        if e.owner_kind in (None, "model"):
            names = e.mentions(removed)
            if names:
                out.append((e.tag, names))
    return out


@dataclass(frozen=True)
class FrameJoint:
    """How the source attached an additional frame that was a link there: through fixed joint `joint`.

    A massless link with one fixed joint becomes a frame (iDynTree's rule).  Keeping the joint's
    name lets exporters write it back under that name, and `frame_is_parent` says that the frame
    was the joint's parent (a massless root such as `world` above `base_link`), so that exporters
    and the ROS frame tree keep the edge in the source's direction.
    """

    joint: str
    frame_is_parent: bool = False


@record
class Model(Record):
    """A tree of links connected by joints, plus frames, sensors and metadata.

    Links, joints, frames and sensors are kept in insertion order and looked up by name: the
    order of a loaded file is preserved, but nothing relies on indices.

    `extensions` holds elements of the source the model has no field for (see `Extension`).
    Metadata keys shared by several modules:
    - "frame_joints": {frame name: FrameJoint}, for frames that were links joined by a fixed joint;
    - "source_dir": directory of the file the model was loaded from (relative mesh paths start there);
    - "lines": {element description: line} for error messages (see validation.validate).
    """

    name: str = "model"
    links: dict[str, Link] = field(default_factory=dict)
    joints: dict[str, Joint] = field(default_factory=dict)
    frames: dict[str, Frame] = field(default_factory=dict)
    sensors: dict[str, Sensor] = field(default_factory=dict)
    default_base_link: str | None = None
    # initial configuration by joint name (SKEL init_pos), world metadata, format extras
    initial_configuration: dict[str, Any] = field(default_factory=dict)
    metadata: dict[str, Any] = field(default_factory=dict)
    extensions: list[Extension] = field(default_factory=list)

    # -- construction helpers -------------------------------------------------------------
    def add_link(self, link: Link) -> Link:
        self.links[link.name] = link
        if self.default_base_link is None:
            self.default_base_link = link.name
        return link

    def add_joint(self, joint: Joint) -> Joint:
        self.joints[joint.name] = joint
        return joint

    def add_frame(self, frame: Frame) -> Frame:
        self.frames[frame.name] = frame
        return frame

    def add_sensor(self, sensor: Sensor) -> Sensor:
        self.sensors[sensor.name] = sensor
        return sensor

    # -- queries --------------------------------------------------------------------------
    @property
    def dofs(self) -> int:
        return sum(j.dofs for j in self.joints.values())

    def has_frame(self, name: str) -> bool:
        return name in self.links or name in self.frames

    def frame_names(self) -> list[str]:
        return list(self.links) + list(self.frames)

    def copy(self) -> Model:
        """A deep copy (what copy.deepcopy gives, shared objects staying shared), ~5x faster.

        Exporters copy the model before adapting it to their format, so this is on every
        conversion's path; deepcopy's generic reduce protocol is most of its cost.
        """
        return _deep_copy(self, {})

    def summary(self) -> str:
        n_ft = sum(1 for s in self.sensors.values() if s.type is SensorType.FORCE_TORQUE)
        return (
            f"model '{self.name}': {len(self.links)} links, {len(self.joints)} joints "
            f"({self.dofs} DOF), {len(self.frames)} frames, {len(self.sensors)} sensors "
            f"({n_ft} force/torque), base '{self.default_base_link}'"
        )


def assemble(cls: type[T], **values: Any) -> T:
    """An instance of dataclass `cls` from values already in the form its __post_init__ gives them.

    For loaders of huge models, which hand over float arrays of the right shapes (often views into
    one array of all links' numbers): no conversion, no copy, no default objects made and dropped.
    Fields not given take their defaults; attributes are set in field order, as __init__ does.
    A loader's hot path calls `maker(cls)` itself, without this call's keyword dictionary.
    """
    return maker(cls)(**values)


def maker(cls: type[T]) -> Any:
    """make(**fields) -> an instance of `cls` as `assemble` makes it: a function written for the class, its
    fields keyword-only parameters with their defaults (a default factory called only for a field not given).

    Plain attribute assignments, the way dataclasses write __init__, without __post_init__: the values stay
    inline in the object (no instance dict: reading `obj.__dict__` makes one, 64 bytes per link, joint and
    shape).  Python matches the keywords to the parameters itself, at under half the cost of looking each
    field up in a dictionary (a joint: 1.0 us less, with every link, shape and sensor ~0.1 ms of
    iCubGenova02's load).  A frozen dataclass refuses assignment, so it gets object.__setattr__ instead.
    """
    make = _MAKERS.get(cls)
    if make is None:
        make = _MAKERS[cls] = _write_maker(cls)
    return make


_MAKERS: dict[type, Any] = {}


def zero_inertia() -> Inertia:
    """`Inertia()`, made without its __post_init__'s conversions: every link a loader or writer makes without
    mass (a chain's links, a frame written as a link) gets one."""
    return maker(Inertia)(mass=0.0, com=np.zeros(3), inertia=np.zeros((3, 3)))


def _write_maker(cls: type) -> Any:
    frozen = cls.__dataclass_params__.frozen
    env: dict[str, Any] = {"_new": object.__new__, "_cls": cls, "_setattr": object.__setattr__, "_MISSING": MISSING}
    params: list[str] = []
    body = ["    obj = _new(_cls)"]
    for i, f in enumerate(fields(cls)):
        name = f.name
        if f.default_factory is not MISSING:
            env[f"_f{i}"] = f.default_factory
            params.append(f"{name}=_MISSING")
            value = f"_f{i}() if {name} is _MISSING else {name}"
        else:
            if f.default is MISSING:
                params.append(name)
            else:
                env[f"_d{i}"] = f.default
                params.append(f"{name}=_d{i}")
            value = name
        body.append(f"    _setattr(obj, {name!r}, {value})" if frozen else f"    obj.{name} = {value}")
    star = "*, " if params else ""
    source = f"def make({star}{', '.join(params)}):\n" + "\n".join(body) + "\n    return obj\n"
    exec(source, env)  # noqa: S102 - field names of our own dataclasses, identifiers by construction
    return env["make"]


_ATOMS = frozenset((str, int, float, bool, complex, bytes, type(None)))


def _deep_copy(x: Any, memo: dict[int, Any]) -> Any:
    """copy.deepcopy for the types a model holds: dataclasses, arrays, containers, scalars.

    Objects reached twice (a material shared by two shapes) stay shared in the copy, as with
    deepcopy; arrays are copied where they are met.
    """
    t = type(x)
    if t in _ATOMS or isinstance(x, Enum):
        return x
    if t is np.ndarray:
        return x.copy()
    done = memo.get(id(x))
    if done is not None:
        return done
    if t is list:
        out = memo[id(x)] = []
        out.extend([_deep_copy(v, memo) for v in x])
    elif t is dict:
        out = memo[id(x)] = {}
        out.update({k: _deep_copy(v, memo) for k, v in x.items()})
    elif t is tuple:
        out = memo[id(x)] = tuple([_deep_copy(v, memo) for v in x])
    elif hasattr(t, "__dataclass_fields__") and hasattr(x, "__dict__"):
        out = memo[id(x)] = object.__new__(t)
        object.__setattr__(out, "__dict__", {k: _deep_copy(v, memo) for k, v in x.__dict__.items()})
    else:  # anything else a format put in metadata
        import copy

        out = memo[id(x)] = copy.deepcopy(x)
    return out


__all__ = [
    "IDENTITY",
    "Box",
    "Capsule",
    "Cone",
    "Cylinder",
    "Dynamics",
    "Ellipsoid",
    "Extension",
    "ForceTorqueSensor",
    "Frame",
    "FrameJoint",
    "Inertia",
    "Joint",
    "JointType",
    "Limits",
    "Link",
    "LinkSensor",
    "Material",
    "Mesh",
    "Mimic",
    "Model",
    "Sensor",
    "SensorType",
    "Shape",
    "Sphere",
]
