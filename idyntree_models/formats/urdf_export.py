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

import copy
import math

import numpy as np
from lxml import etree

from .._lazy import LazyPattern
from ..errors import ModelError, listed
from ..model.model import (
    Box,
    Cylinder,
    Extension,
    ForceTorqueSensor,
    Frame,
    FrameJoint,
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
    maker,
)
from ..model.spherical import unfold_spherical_joints
from ..model.topology import frame_edge, root_frame, tree_order
from ..model.transforms import inverse, matrix_to_rpy, rpy_xyz_to_transform, translation, vector_norm
from .base import Diagnostics, ExportOptions
from .common import MAX_DISTANCE, base_world_joint, format_number, format_number_list, format_numbers, held_placement
from .xmlutil import attribute_prefixes

# poses closer than this are "the same" when deciding that a frame is a sensor's own frame
_SAME_POSE = 1e-12


# characters XML 1.0 cannot hold (lxml refuses them): control characters, lone surrogates, U+FFFE/FFFF,
# spelled as they are: the complement of XML's allowed ranges (the same set, checked over every code
# point) took 7 ms to compile, a fortieth of a conversion; this set still takes 0.7-1.5 ms, so it is
# compiled only for a text that is not printable (see _holds_non_xml)
_NOT_XML = LazyPattern("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _holds_non_xml(text: str) -> bool:
    """Whether `text` holds a character XML cannot hold.  Each of those is a control character, a surrogate
    or a non-character, which Python never counts printable: a printable text (nearly every name, in any
    script) is told without the pattern."""
    return not text.isprintable() and _NOT_XML.search(text) is not None


def _name_problem(name: str) -> str | None:
    """Why a name would not read back from URDF as written (the reader strips names), or None."""
    if not name.strip():
        return "is empty"
    if name != name.strip():
        return "has leading or trailing white space, which URDF readers strip"
    if _holds_non_xml(name):
        return "holds a character XML cannot hold (a control character or a lone surrogate)"
    return None


def _check_writable(model: Model) -> None:
    """Refuse, naming the element, what the URDF reader would refuse or read differently.

    All names are searched at once first, and one by one (for the first problem, with its element) only when
    one has a problem: a model has hundreds of them, and a call and a search each was a twentieth of an export."""
    tables = (("link", model.links), ("joint", model.joints), ("frame", model.frames), ("sensor", model.sensors))
    names = [name for _, table in tables for name in table]
    if _holds_non_xml("".join(names)) or not all(n and n == n.strip() for n in names):
        for kind, table in tables:
            for name in table:
                why = _name_problem(name)
                if why is not None:
                    raise ModelError(f"the name {name!r} {why}: it cannot be written to URDF",
                                     element=f"{kind} '{name}'")
    for link in model.links.values():
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            for shape in shapes:
                texts = [shape.name or ""]
                if shape.material is not None:
                    texts += [shape.material.name or "", shape.material.texture or ""]
                if isinstance(shape, Mesh) and _name_problem(shape.filename) is not None:
                    raise ModelError(f"{kind} mesh file name {shape.filename!r} {_name_problem(shape.filename)}: "
                                     "URDF readers refuse it", element=f"link '{link.name}'")
                if any(_holds_non_xml(t) for t in texts):
                    raise ModelError(f"a {kind} shape name or material holds a character XML cannot hold",
                                     element=f"link '{link.name}'")
    if _holds_non_xml(model.name or ""):
        raise ModelError(f"the robot name {model.name!r} holds a character XML cannot hold")


class _element:  # (lower case: it reads as the function it replaced, `with _element("link", name):`)
    """Name the element in a ModelError raised while writing it (a non-finite number, say).

    A class rather than a @contextmanager generator, and the words made only for an error: it wraps every
    link, joint, sensor and frame written (a tenth of an export)."""

    __slots__ = ("kind", "name")

    def __init__(self, kind: str, name: str) -> None:
        self.kind, self.name = kind, name

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ, e, tb) -> bool:
        if isinstance(e, ModelError) and e.element is None:
            e.element = f"{self.kind} '{self.name}'"
            e.args = (str(e),)
        return False  # (the error goes on)


_URDF_NUMBER = "a number written to URDF"


def _num(x: float) -> str:
    return format_number(x, _URDF_NUMBER)


def _nums(v) -> str:
    return format_numbers(v, _URDF_NUMBER)


_EYE4 = np.eye(4).tolist()
_make_link = maker(Link)
_ONES3 = [1.0, 1.0, 1.0]
_ZERO3_LIST = [0.0, 0.0, 0.0]


def _origin(parent: etree._Element, t: np.ndarray, always: bool = False) -> None:
    """The <origin> of every link, shape, joint and frame: its checks and numbers in plain floats (numpy's
    calls on a 4x4, one by one, were a fifth of an export)."""
    t = np.asarray(t, dtype=float)
    rows = t.tolist()
    if not always and rows == _EYE4:  # float ==, so -0.0 entries count as the identity, as array_equal
        return
    if not all(map(math.isfinite, rows[0] + rows[1] + rows[2] + rows[3])):
        raise ModelError(f"cannot write a non-finite transform to URDF (in <{parent.tag} name='{parent.get('name')}'>)")
    xyz = f"{rows[0][3] + 0.0!r} {rows[1][3] + 0.0!r} {rows[2][3] + 0.0!r}"  # (+ 0.0: -0.0 written as 0.0)
    rpy = exact_rpy(t[:3, :3])
    if not all(map(math.isfinite, rpy)):  # (a finite rotation gives finite angles: a guard, so that none is nan)
        raise ModelError(f"cannot write a non-finite rotation to URDF (in <{parent.tag} name='{parent.get('name')}'>)")
    etree.SubElement(parent, "origin", xyz=xyz, rpy=f"{rpy[0] + 0.0!r} {rpy[1] + 0.0!r} {rpy[2] + 0.0!r}")


def _rounded(v: float, digits: int) -> float:
    return float(f"{v:.{digits}g}")


def _fewest_digits(v: float, tol: float) -> int | None:
    """The fewest significant digits (1 to 17) whose rounding of v is within tol of v, or None.

    A rounding to more digits is never further from v (every shorter decimal is one of the longer
    ones), so the digits that fit are a range up to 17 and a bisection finds its start.
    """
    if abs(_rounded(v, 17) - v) > tol:
        return None
    lo, hi = 1, 17  # hi fits
    while lo < hi:
        mid = (lo + hi) // 2
        if abs(_rounded(v, mid) - v) <= tol:
            hi = mid
        else:
            lo = mid + 1
    return hi


def _shortest(v: float, tol: float) -> float | None:
    """The decimal with the fewest significant digits within tol of v, or None."""
    digits = _fewest_digits(v, tol)
    return None if digits is None else _rounded(v, digits)


def _decimals_near(v: float, turns: tuple[int, ...]) -> list[float]:
    """Decimals of 1 to 17 digits near v plus the given whole turns, and v +- a few ulps (turn 0).

    Sources write angles beyond pi (-30, 3.14159265359), which atan2 wraps; a source that wrote
    all 17 digits has its float a few ulps from the recovered one.
    """
    out: list[float] = []
    seen: set[float] = set()
    if 0 in turns and abs(v) < 1e-9:
        out.append(0.0)
        seen.add(0.0)
    for t in turns:
        w = v + t * 2.0 * math.pi
        first = _fewest_digits(w, 1e-12 * max(1.0, abs(w)))
        if first is None:
            continue
        for digits in range(first, 18):
            c = _rounded(w, digits)
            if c not in seen:
                seen.add(c)
                out.append(c)
    if 0 in turns:
        up = down = v
        for _ in range(4):
            up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
            for c in (up, down):
                if c not in seen:
                    seen.add(c)
                    out.append(c)
    return out


# turns tried in this order: almost every source writes angles within one turn
_TURN_STAGES = ((0,), (-1, 1), tuple(t for t in range(-8, 9) if abs(t) > 1))


def _fitting(v: float, stage: int, fits) -> list[float]:
    """The decimals near v (see _decimals_near) with the turns of `stage` that pass `fits`."""
    return [c for c in _decimals_near(v, _TURN_STAGES[stage]) if fits(c)]


def _wrap(a: float) -> float:
    return a - 2.0 * math.pi if a > math.pi else a + 2.0 * math.pi if a <= -math.pi else a


_EXACT: dict[bytes, list[float]] = {}  # rotation bits -> exact_rpy's answer


def exact_rpy(rot: np.ndarray) -> list[float]:
    """_exact_rpy, remembered by the rotation's bits: a robot repeats its rotations (iCubGenova04 writes
    364 in 171 distinct ones, tiago_dual 162 in 28), and a node converts the same model many times."""
    rot = np.asarray(rot, dtype=float)
    key = rot.tobytes()
    found = _EXACT.get(key)
    if found is None:
        if len(_EXACT) >= 4096:
            _EXACT.clear()
        found = _EXACT[key] = _exact_rpy(rot)
    return list(found)


def _exact_rpy(rot: np.ndarray) -> list[float]:
    """Roll-pitch-yaw whose rotation, as the URDF reader computes it, is `rot` bit for bit when possible.

    matrix_to_rpy rebuilds a rotation to a few ulps; those ulps would make every URDF round trip
    (and idyntree-model-json -> URDF -> idyntree-model-json) change the last digits.  A rotation
    read from decimal rpy text is rebuilt exactly by that text, a decimal near one of the two
    roll-pitch-yaw solutions (r, p, y) and (r + pi, pi - p, y + pi), possibly some turns away.
    The quick try rounds each angle of both solutions to its shortest decimal (a pitch beyond 90
    degrees, as in `0 1.5708 0`, is the second one).  The search tries the decimals near each
    pitch (R[2,0] = -sin p), then for each one that fits, roll and yaw solved from that pitch (full
    precision even next to gimbal lock, where matrix_to_rpy's roll and yaw are not), each checked
    against the entries it fixes, so it stays linear.  It goes stage by stage of whole turns added
    to the angles (none, one, up to eight) for all three angles together: a rotation whose decimals
    are all within one turn is found before any angle is tried eight turns away (searching every
    stage of roll and yaw for each pitch cost up to 12 ms a rotation).  Failing both, the recovered
    angles are written.
    """
    rot = np.asarray(rot, dtype=float)
    if np.array_equal(rot, _EYE3):  # a third of a robot's origins only translate: 0 0 0 rebuilds I exactly
        return [0.0, 0.0, 0.0]

    def rebuilds(angles) -> bool:
        return np.array_equal(rpy_xyz_to_transform(angles, _ZERO3)[:3, :3], rot)

    rpy = [float(a) for a in matrix_to_rpy(rot)]
    other = [_wrap(rpy[0] + math.pi), _wrap(math.pi - rpy[1]), _wrap(rpy[2] + math.pi)]
    for sol in (rpy, other):
        # the recovered angle is some ulps from the source's decimal, more next to +-pi (12 digits of pi
        # come back 4e-14 off): the shortest decimal within a looser, then a tighter tolerance
        for rel, ulps in ((1e-12, 0.0), (1e-15, 4.0)):
            quick = [0.0 if abs(a) < 1e-12 else _shortest(a, rel * max(1.0, abs(a)) + ulps * math.ulp(a)) for a in sol]
            cand = [a if c is None else c for a, c in zip(sol, quick)]
            # the candidate, then, next to +-pi where atan2 gives either sign (the source's 3.14159265359
            # comes back negative), the candidate with those angles' signs flipped
            near_pi = [i for i, a in enumerate(cand) if abs(a) > 3.14]
            for flips in range(1 << len(near_pi)):
                flipped = list(cand)
                for bit, i in enumerate(near_pi):
                    if flips >> bit & 1:
                        flipped[i] = -flipped[i]
                if rebuilds(flipped):
                    return flipped
    if rebuilds(rpy):
        return rpy
    m = rot.tolist()

    def pitch_fits(p: float) -> bool:
        return -math.sin(p) == m[2][0] and math.cos(p) != 0.0

    pitches: list[list[float]] = []  # per stage, the pitches that fit, not in an earlier stage
    angles: dict[float, tuple[list[list[float]], list[list[float]]]] = {}  # pitch -> per stage, rolls and yaws
    seen: set[float] = set()
    for top in range(len(_TURN_STAGES)):
        fresh = [p for p in _fitting(rpy[1], top, pitch_fits) + _fitting(math.pi - rpy[1], top, pitch_fits)
                 if p not in seen]
        seen.update(fresh)
        pitches.append(fresh)
        for stage, stage_pitches in enumerate(pitches):
            for cp in stage_pitches:
                c = math.cos(cp)
                if cp not in angles:
                    angles[cp] = ([], [])
                rolls, yaws = angles[cp]
                while len(rolls) <= top:
                    rolls.append(_fitting(math.atan2(m[2][1] / c, m[2][2] / c), len(rolls),
                                          lambda a: c * math.sin(a) == m[2][1] and c * math.cos(a) == m[2][2]))  # noqa: B023
                    yaws.append(_fitting(math.atan2(m[1][0] / c, m[0][0] / c), len(yaws),
                                         lambda a: math.cos(a) * c == m[0][0] and math.sin(a) * c == m[1][0]))  # noqa: B023
                # the combinations whose highest stage is `top`: the others were tried before
                for sr in range(top + 1):
                    for sy in range(top + 1):
                        if max(stage, sr, sy) != top:
                            continue
                        for cr in rolls[sr]:
                            for cy in yaws[sy]:
                                if rebuilds((cr, cp, cy)):
                                    return [cr, cp, cy]
    return rpy


_ZERO3 = (0.0, 0.0, 0.0)
_EYE3 = np.eye(3)


def _same_pose(a: np.ndarray, b: np.ndarray) -> bool:
    return bool(np.max(np.abs(np.asarray(a) - np.asarray(b))) <= _SAME_POSE)


WORLD = "world"  # the link URDF writes above a base fixed to the world (robot_state_publisher's, Gazebo's)


def urdf_form(model: Model) -> Model:
    """The model as the URDF export writes it: SDF's fixed joint to the world as a `world` link, spherical joints as
    three revolutes, joint axes through their child's origin (an `_axis_offset` link where one is not).  The
    model itself when nothing changes.  The ROS node publishes its frames along this tree, so that every link of the
    robot_description it publishes has a transform."""
    return _prepare(model, ExportOptions(), Diagnostics(None, quiet=True))  # (the export of the description says them)


# -- model preparation ---------------------------------------------------------------------
def _prepare(model: Model, options: ExportOptions, diag: Diagnostics) -> Model:
    """The model with every joint in a URDF form (spherical unfolded, axis offsets split): a copy when
    anything changes, else the model itself (the writer only reads it, and the copy cost a tenth of
    a URDF export)."""
    model = _world_joint_as_link(model, diag)
    spherical = [j.name for j in model.joints.values() if j.type is JointType.SPHERICAL]
    if spherical:
        if not options.export_spherical_joints_as_three_revolute_joints:
            raise ModelError(
                f"URDF has no spherical joint and exporting spherical joint(s) {', '.join(spherical)} as three "
                "revolute joints is disabled (enable export_spherical_joints_as_three_revolute_joints, or drop "
                "--no-export-spherical-joints-as-three-revolute-joints)"
            )
        model = unfold_spherical_joints(model)  # (refuses names the model already has)
        diag.warn(f"URDF has no spherical joint: {len(spherical)} spherical joint(s) ({listed(spherical, 5)}) written as "
                  "three revolute joints each, through massless links (iDynTree's form), read back as such unless "
                  "folded (convert_three_revolute_joints_to_spherical, --convert-three-revolute-joints-to-spherical)")
    elif any(_axis_offset(j) is not None for j in model.joints.values()):
        model = model.copy()
    else:
        return model
    _split_axis_offsets(model, diag)
    return model


def _world_joint_as_link(model: Model, diag: Diagnostics) -> Model:
    """SDF's fixed joint from the world to the base, which its reader folds away (model.metadata
    "sdf_world_joints"), written as URDF says it: a `world` link and that joint (read back as the
    frame `world` above the base, which the SDF writer turns into the world joint again).

    The child's pose in the world is the joint's origin: the model's own <pose> in its world, which places it
    there (common.held_placement; without it, its pose in the SDF model frame)."""
    joints = model.metadata.get("sdf_world_joints") or {}
    if not joints:
        return model
    base = model.default_base_link or tree_order(model).root
    written = base_world_joint(model, base)
    if written is not None and (WORLD in model.links or WORLD in model.frames or written in model.joints):
        written = None  # (the names it needs are taken)
    for name, d in joints.items():
        if name != written and d.get("joined_to_base_by") not in model.joints:
            diag.warn(f"SDF {d.get('type', 'fixed')} joint '{name}' from the world to '{d.get('child')}' is not "
                      "written: URDF holds one fixed joint from a 'world' link to the root link, and no other")
    if written is None:
        return model
    model = model.copy()
    held = held_placement(model, base)
    world_H_base = held[0] if held is not None else np.array(joints[written]["model_H_child"], dtype=float)
    model.frames = {WORLD: Frame(WORLD, base, inverse(world_H_base)), **model.frames}
    model.metadata["frame_joints"] = {WORLD: FrameJoint(written, frame_is_parent=True),
                                      **(model.metadata.get("frame_joints") or {})}
    return model


def _axis_offset(joint: Joint) -> np.ndarray | None:
    """The part of a revolute joint's axis origin off its axis (URDF's axes pass through the child
    origin), None when there is none (nor for other joints, whose axis offset does not move anything)."""
    if joint.type is not JointType.REVOLUTE:
        return None
    o = np.asarray(joint.axis_origin, dtype=float)
    if o.tolist() == _ZERO3_LIST:  # (most joints: none of the numpy calls below)
        return None
    with np.errstate(all="ignore"):  # an origin near the largest double: refused by the caller, with the joint
        perp = o - float(o @ joint.axis) * joint.axis
    if not np.all(np.isfinite(perp)):
        return perp  # overflowed: the caller refuses it
    return perp if vector_norm(perp) > 1e-12 else None


def _split_axis_offsets(model: Model, diag: Diagnostics) -> None:
    """URDF revolute axes pass through the child origin; move an off-origin axis onto a helper link.

    Only the part of the axis origin perpendicular to the axis matters (and none of it for
    prismatic joints).  The helper link keeps every frame's kinematics but is an extra link after
    reloading, hence the warning.
    """
    joints: dict[str, Joint] = {}
    for joint in model.joints.values():
        joints[joint.name] = joint
        perp = _axis_offset(joint)
        if perp is None:
            continue
        distance = float(np.max(np.abs(perp)))
        if not distance <= MAX_DISTANCE:
            how_far = f"{distance:.3g} m" if math.isfinite(distance) else "beyond the range of a double"
            raise ModelError(f"its axis passes {how_far} from the child link origin: URDF "
                             "needs that offset as a pose and its inverse on an extra link, whose composition "
                             f"overflows beyond {MAX_DISTANCE:g} m", element=f"joint '{joint.name}'")
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
        _move_ft_sensors(model, joint.name, child, helper, translation(-perp))
        diag.warn(
            f"joint '{joint.name}': its axis does not pass through the child link origin, which URDF cannot "
            f"express; written through the extra massless link '{helper}' (kinematics unchanged)"
        )
    model.joints = joints


def _move_ft_sensors(model: Model, joint: str, old: str, new: str, new_H_old: np.ndarray) -> None:
    """An F/T sensor in a joint whose child became `new` is measured on `new`: re-express its pose there
    (found by the export/reload property test: the sensor frame moved by the axis offset)."""
    for sensor in model.sensors.values():
        if not isinstance(sensor, ForceTorqueSensor) or sensor.parent_joint != joint:
            continue
        frame = model.frames.get(sensor.name)  # its own frame (add_sensor_frames) goes with it, as a reader makes it
        if (frame is not None and frame.parent_link == old == sensor.frame_link
                and _same_pose(frame.link_H_frame, sensor.frame_transform)):
            model.frames[sensor.name] = Frame(frame.name, new, new_H_old @ frame.link_H_frame)
        if sensor.first_link == old:
            sensor.first_link, sensor.first_link_H_sensor = new, new_H_old @ sensor.first_link_H_sensor
        if sensor.second_link == old:
            sensor.second_link, sensor.second_link_H_sensor = new, new_H_old @ sensor.second_link_H_sensor
        if sensor.applied_wrench_link == old:
            sensor.applied_wrench_link = new


# -- elements --------------------------------------------------------------------------------
def _link_element(root: etree._Element, link: Link, diag: Diagnostics) -> etree._Element:
    el = etree.SubElement(root, "link", name=link.name)
    inertia = link.inertia
    com = inertia.com.tolist()
    rows = inertia.inertia.tolist()
    (xx, xy, xz), (_, yy, yz), (_, _, zz) = rows
    values = [inertia.mass, *com, xx, xy, xz, yy, yz, zz]
    if inertia.mass != 0.0 or any(com) or any(map(any, rows)):  # a frame's empty link gets no <inertial>
        text = format_number_list(values, _URDF_NUMBER)
        inertial = etree.SubElement(el, "inertial")
        etree.SubElement(inertial, "origin", xyz=" ".join(text[1:4]), rpy="0.0 0.0 0.0")
        etree.SubElement(inertial, "mass", value=text[0])
        etree.SubElement(inertial, "inertia", ixx=text[4], ixy=text[5], ixz=text[6], iyy=text[7], iyz=text[8],
                         izz=text[9])
    for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
        for shape in shapes:
            _shape_element(el, kind, shape, link.name, diag)
    return el


def _shape_element(link_el: etree._Element, kind: str, shape: Shape, link: str, diag: Diagnostics) -> None:
    if isinstance(shape, Box):
        geo = ("box", {"size": _nums(shape.size)})
    elif isinstance(shape, Sphere):
        geo = ("sphere", {"radius": _num(shape.radius)})
    elif isinstance(shape, Cylinder):
        geo = ("cylinder", {"radius": _num(shape.radius), "length": _num(shape.length)})
    elif isinstance(shape, Mesh):
        geo = ("mesh", {"filename": shape.filename})
        if np.asarray(shape.scale, dtype=float).tolist() != _ONES3:
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
        self.continuous_limited: list[str] = []


def _joint_element(root: etree._Element, joint: Joint, issues: _LimitIssues) -> etree._Element:
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
        return el
    etree.SubElement(el, "axis", xyz=_nums(joint.axis))
    positional = lim.has_position_limits
    if positional or lim.has_effort_limit or lim.has_velocity_limit:
        # URDF requires effort and velocity on every <limit>; a missing one is written as 0
        if not (lim.has_effort_limit and lim.has_velocity_limit):
            issues.no_effort.append(joint.name)
        if joint.type is JointType.PRISMATIC and not positional:
            issues.prismatic_unbounded.append(joint.name)
        elif not positional:
            issues.continuous_limited.append(joint.name)
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
    return el


def _sensor_element(root: etree._Element, model: Model, sensor, diag: Diagnostics,
                    vanishing: set[str] = frozenset()) -> etree._Element | None:
    if isinstance(sensor, ForceTorqueSensor):
        joint = model.joints.get(sensor.parent_joint)
        if sensor.parent_joint in vanishing:  # written, the file would not load: its joint is gone on reading
            diag.warn(
                f"force/torque sensor '{sensor.name}' is in fixed joint '{sensor.parent_joint}' to a massless link "
                "that URDF readers turn into a frame, dropping the joint; the sensor was dropped"
            )
            return None
        if joint is None or joint.type is JointType.SPHERICAL:  # a spherical joint written as three revolutes
            diag.warn(
                f"force/torque sensor '{sensor.name}' is in spherical joint '{sensor.parent_joint}', which URDF "
                "writes as three revolute joints; the sensor was dropped"
            )
            return None
        # URDF's first/second links are the joint's parent/child; our joints point away from the base
        if sensor.second_link == joint.child:
            child_H_sensor = sensor.second_link_H_sensor
        else:
            child_H_sensor = sensor.first_link_H_sensor
        el = etree.SubElement(root, "sensor", name=sensor.name, type="force_torque")
        etree.SubElement(el, "parent", joint=joint.name)
        parent_H_sensor = joint.rest_transform @ child_H_sensor
        # the frame option the sensor was read with, when its pose still is that frame (to rounding);
        # otherwise the pose decides, exactly, so a pose 1e-16 away from a link frame is kept
        if sensor.frame == "child" and _same_pose(child_H_sensor, np.eye(4)):
            frame = "child"
        elif sensor.frame == "parent" and _same_pose(parent_H_sensor, np.eye(4)):
            frame = "parent"
        elif sensor.frame == "sensor" and np.array_equal(child_H_sensor, np.eye(4)):
            frame = "sensor"  # (no <origin>: the child's frame, as it was read)
        elif np.array_equal(child_H_sensor, np.eye(4)):
            frame = "child"
        elif np.array_equal(parent_H_sensor, np.eye(4)):
            frame = "parent"
        else:
            frame = "sensor"
            _origin(el, child_H_sensor, always=True)
        direction = "parent_to_child" if sensor.applied_wrench_link == joint.child else "child_to_parent"
        ft = etree.SubElement(el, "force_torque")
        etree.SubElement(ft, "frame").text = frame
        etree.SubElement(ft, "measure_direction").text = direction
        return el
    if isinstance(sensor, LinkSensor) and sensor.sensor_type in (SensorType.ACCELEROMETER, SensorType.GYROSCOPE):
        el = etree.SubElement(root, "sensor", name=sensor.name, type=sensor.sensor_type.value)
        etree.SubElement(el, "parent", link=sensor.parent_link)
        _origin(el, sensor.link_H_sensor, always=True)
        return el
    kind = getattr(sensor, "subtype", None) or sensor.type.value
    diag.warn(f"sensor '{sensor.name}' ({kind}) has no URDF form (force_torque, accelerometer, gyroscope) and was dropped")
    return None


def _sensor_frame_pose(sensor) -> tuple[str, np.ndarray] | None:
    """Where add_sensor_frames_as_additional_frames puts the sensor's frame after loading the URDF."""
    if isinstance(sensor, (ForceTorqueSensor, LinkSensor)):
        return sensor.frame_link, sensor.frame_transform
    return None


def _frames_to_write(model: Model, written_sensors: set[str]) -> list:
    """The frames to write as massless links: all but those the reader adds back by itself.

    add_sensor_frames_as_additional_frames appends a frame per sensor (F/T, accelerometers,
    gyroscopes, in that order) after the file's own frames.  The trailing frames of the model that
    are exactly those, in that order, and were no link in the source (model.metadata
    "frame_joints"), are left out: reading the file recreates them where they were.  Any other
    frame is written, so that names and order survive URDF -> URDF and JSON -> URDF -> JSON.
    """
    from ..model.spherical import sensor_frame_order

    source_links = model.metadata.get("frame_joints") or {}
    order = [s.name for s in sensor_frame_order(model) if s.name in written_sensors]
    frames = list(model.frames.values())
    suffix = 0
    for frame in reversed(frames):
        sensor = model.sensors.get(frame.name)
        pose = _sensor_frame_pose(sensor) if sensor is not None and sensor.name in written_sensors else None
        if (pose is None or frame.name in source_links or pose[0] != frame.parent_link
                or not _same_pose(pose[1], frame.link_H_frame)):
            break
        suffix += 1
    while suffix:  # the recreated frames come in the reader's order, which the suffix must follow
        names = [f.name for f in frames[len(frames) - suffix:]]
        if names == [n for n in order if n in set(names)]:
            break
        suffix -= 1
    return frames[: len(frames) - suffix]


def _reload_warnings(model: Model, frames: list, diag: Diagnostics) -> set[str]:
    """Warn about links that URDF readers will not load back as links; return their names."""
    neighbours: dict[str, int] = dict.fromkeys(model.links, 0)
    only_fixed: dict[str, bool] = dict.fromkeys(model.links, True)
    for j in model.joints.values():
        for end in (j.parent, j.child):
            neighbours[end] += 1
            only_fixed[end] = only_fixed[end] and j.type is JointType.FIXED
    for f in frames:
        neighbours[f.parent_link] += 1
    to_frames: set[str] = set()
    for name, link in model.links.items():
        if not link.inertia.mass > 0 and neighbours[name] == 1 and only_fixed[name]:
            to_frames.add(name)
            diag.warn(
                f"link '{name}' is massless and attached by one fixed joint only: URDF readers (iDynTree and this "
                "package) will load it as an additional frame, not as a link"
            )
    return to_frames


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    _check_writable(model)
    model = _prepare(model, options, diag)
    tree = tree_order(model)
    base = model.default_base_link or tree.root
    if base != tree.root:
        raise ModelError(f"default base link '{base}' is not the root of the joint tree ('{tree.root}')")
    root = etree.Element("robot", name=model.name or "robot", nsmap=attribute_prefixes(model.extensions, "urdf") or None)
    writable = {
        s.name
        for s in model.sensors.values()
        if (isinstance(s, ForceTorqueSensor) and s.parent_joint in model.joints)
        or (isinstance(s, LinkSensor) and s.sensor_type in (SensorType.ACCELEROMETER, SensorType.GYROSCOPE))
    }
    frames = _frames_to_write(model, writable)
    to_frames = _reload_warnings(model, frames, diag)
    vanishing = {j.name for j in model.joints.values() if j.parent in to_frames or j.child in to_frames}
    links, frame_links = _shapes_back_on_frames(model, frames)
    written: dict[tuple[str, str], etree._Element] = {}  # (tag, name) -> element, for pass-through anchors
    for link in links + frame_links:  # in the model's (the source's) order, then the frames
        with _element("link", link.name):
            written[("link", link.name)] = _link_element(root, link, diag)

    issues = _LimitIssues()
    for joint in model.joints.values():
        with _element("joint", joint.name):
            written[("joint", joint.name)] = _joint_element(root, joint, issues)
    _frame_joints(root, model, frames, tree.root, written)
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
    if issues.continuous_limited and model.metadata.get("source_format") != "urdf":
        # (a URDF source had these <limit>s itself: written back as they were, they are no change of ours)
        diag.warn(
            "continuous joint(s) " + listed(issues.continuous_limited, 8) + " are written with a <limit> for their "
            "effort/velocity limits; the iDynTree URDF reader takes a continuous joint's <limit> as position limits "
            "[0, 0] (urdfdom and ROS do not)"
        )
    for sensor in model.sensors.values():
        with _element("sensor", sensor.name):
            el = _sensor_element(root, model, sensor, diag, vanishing)
        if el is not None:
            written[("sensor", sensor.name)] = el
    _write_extensions(root, model.extensions, written, diag)
    etree.indent(root, space="  ")
    return '<?xml version="1.0" encoding="utf-8"?>\n' + etree.tostring(root, encoding="unicode") + "\n"


def _shapes_back_on_frames(model: Model, frames: list) -> tuple[list[Link], list[Link]]:
    """The links to write, and one per frame; shapes that sat on a frame's link in the source go back there."""
    by_name = {f.name: f for f in frames}
    links: list[Link] = []
    # (model.maker: no default inertia made per link and thrown away, on every export)
    moved: dict[str, Link] = {f.name: _make_link(name=f.name) for f in frames}
    for link in model.links.values():
        keep = _make_link(name=link.name, inertia=link.inertia)
        for attr in ("visuals", "collisions"):
            for shape in getattr(link, attr):
                frame = by_name.get(shape.source_frame or "")
                if frame is not None and frame.parent_link == link.name:
                    back = copy.copy(shape)
                    back.link_H_geometry = inverse(frame.link_H_frame) @ shape.link_H_geometry
                    getattr(moved[frame.name], attr).append(back)
                else:
                    getattr(keep, attr).append(shape)
        links.append(keep)
    return links, list(moved.values())


def _frame_joints(root: etree._Element, model: Model, frames: list, tree_root: str,
                  written: dict[tuple[str, str], etree._Element]) -> None:
    """Fixed joints of the frames written as links: under their source name and direction when known."""
    source = model.metadata.get("frame_joints") or {}
    top = root_frame(model, tree_root)
    if top is not None and top not in {f.name for f in frames}:
        top = None
    joint_names = set(model.joints)
    for frame in frames:
        fj = source.get(frame.name)
        jname = fj.joint if fj is not None and fj.joint not in joint_names else f"{frame.name}_fixed_joint"
        while jname in joint_names:
            jname += "_"
        joint_names.add(jname)
        parent, child, t = frame_edge(model, frame.name, top)
        el = etree.SubElement(root, "joint", name=jname, type="fixed")
        with _element("frame", frame.name):
            _origin(el, t)
        etree.SubElement(el, "parent", link=parent)
        etree.SubElement(el, "child", link=child)
        written[("joint", jname)] = el
        if fj is not None:
            written.setdefault(("joint", fj.joint), el)


def _safe_parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)


def _safe_element(xml: str, parser: etree.XMLParser) -> etree._Element:
    """`xml` parsed by `parser` (one of _safe_parser's, made once per export: this thread's alone)."""
    try:
        return etree.fromstring(xml, parser)
    except etree.XMLSyntaxError as e:
        raise ModelError(f"a pass-through element is not well-formed XML: {e}") from None


def _write_extensions(root: etree._Element, extensions: list[Extension],
                      written: dict[tuple[str, str], etree._Element], diag: Diagnostics) -> None:
    """Put the source's pass-through elements back where they were.

    Each goes after the sibling it followed in the source, and never before a pass-through element
    that preceded it there (so their order survives even where the model's order of links and
    joints differs from the file's); with that sibling gone, it follows the previous one placed.
    """
    placed: dict[int, etree._Element] = {}
    passed: set[etree._Element] = set()  # the pass-through elements placed in links, joints and sensors
    # parent -> last pass-through element placed in it (keeping the parent proxy alive keeps it the same object)
    last: dict[etree._Element, etree._Element] = {}
    orphans: list[str] = []
    parser = _safe_parser()
    for index, ext in enumerate(extensions):
        if ext.format != "urdf":
            continue
        el = _safe_element(ext.xml, parser)
        if ext.owner_kind is None and not ext.attributes:
            parent, anchor = root, None
            if ext.after is not None:
                tag, key = ext.after
                anchor = placed.get(key) if tag == "extension" else written.get((tag, key))  # type: ignore[arg-type]
            _place(root, el, anchor, last)
            placed[index] = el
            continue
        parent = root if ext.owner_kind is None else _owner_element(ext, written)
        for tag in ext.path:
            if parent is None:
                break
            parent = _child_or_made(parent, tag)
        if parent is None:
            what = f"attributes {', '.join(el.keys())} of <{ext.tag}>" if ext.attributes else f"<{ext.tag}>"
            orphans.append(f"{what} of {ext.owner_kind} '{ext.owner}'")
            continue
        if ext.attributes:
            for key, value in el.items():
                if parent.get(key) is None:  # never one the exporter wrote (the reader keeps only unread ones)
                    parent.set(key, value)
            continue
        if ext.owner_kind == "sensor" and not ext.path and el.tag == "origin":
            own = parent.find("origin")
            if own is not None and own not in passed:
                # the ignored <origin> of a force/torque sensor in a link frame, whose pose now needs an <origin>
                # of its own: written after it, it would be read as a repeat
                orphans.append(f"<origin> of sensor '{ext.owner}' (its pose is written instead)")
                continue
        passed.add(el)
        anchor = None
        if ext.after is not None:
            tag, nth = ext.after
            same = [c for c in parent.iterchildren(etree.Element) if c.tag == tag]
            anchor = same[nth] if isinstance(nth, int) and nth < len(same) else None
        _place(parent, el, anchor, last)
    if orphans:
        diag.warn(f"{len(orphans)} pass-through element(s) or attribute(s) were not written, their link, joint, "
                  f"sensor or element being no longer in the model: {listed(orphans, 6)}")


def _owner_element(ext: Extension, written: dict[tuple[str, str], etree._Element]) -> etree._Element | None:
    """The element written for the link, joint, sensor, shape or inertial holding `ext` (None: not written)."""
    owner_kind = ext.owner_kind if ext.owner_kind in ("joint", "sensor") else "link"  # (shapes' and inertials')
    parent = written.get((owner_kind, ext.owner or ""))
    if parent is not None and ext.owner_kind in ("visual", "collision"):
        shapes = parent.findall(ext.owner_kind)
        parent = shapes[ext.index] if ext.index is not None and ext.index < len(shapes) else None
    elif parent is not None and ext.owner_kind == "inertial":
        parent = parent.find("inertial")  # none for a link written without mass: reported by the caller
    return parent


# Elements the exporter leaves out when they would say nothing (an identity <origin>, a continuous joint's
# <limit> without effort, a <texture> without file) and which URDF readers read the same when empty: made
# again, empty, for the source's attributes or children that belong in them.  Not an <inertial> (urdfdom
# requires its <mass>), an <inertia> or a <material> (required attributes): what belongs there is reported
# as not written.
_MADE_AGAIN = frozenset(("origin", "axis", "limit", "texture"))


def _child_or_made(parent: etree._Element, tag: str) -> etree._Element | None:
    child = next(parent.iterchildren(tag), None)
    if child is None and tag in _MADE_AGAIN:
        child = etree.Element(tag)
        if tag == "origin":
            parent.insert(0, child)  # where the exporter writes it
        else:
            parent.append(child)
    return child


def _place(parent: etree._Element, el: etree._Element, anchor: etree._Element | None,
           last: dict[etree._Element, etree._Element]) -> None:
    previous = last.get(parent)
    gone = anchor is None or anchor.getparent() is not parent
    if gone or (previous is not None and parent.index(previous) > parent.index(anchor)):
        anchor = previous
    if anchor is None:
        parent.insert(0, el)
    else:
        anchor.addnext(el)
    last[parent] = el


__all__ = ["dump"]
