"""DART SKEL import: one skeleton of a SKEL world becomes one model.

Semantics follow DART's SkelParser as dartpy 6.20 runs it (see shared/docs/skel.md), checked
against dartpy in the tests: link frames ARE DART's body frames, so body poses, masses, COMs and
inertias compare one to one.  Where DART fails silently (unknown joint types, bodies in no joint,
screw joints that stop the parse, duplicate bodies) we raise or keep the data and say so.

Mapping and naming rules are user documentation: docs/skel.md.  In short, DART joints with
several DOF become chains of 1-DOF joints named `<joint>__<dof index>` through massless links
named `<joint>__link<k>`; `model.metadata["skel_joints"]` maps each original joint to its parts.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from collections.abc import Callable, Container
from dataclasses import dataclass, field
from decimal import Decimal

import numpy as np
from lxml import etree

from ..errors import ModelError
from ..model.model import (
    Box,
    Capsule,
    Cone,
    Cylinder,
    Dynamics,
    Ellipsoid,
    Frame,
    Inertia,
    Joint,
    JointType,
    Limits,
    Link,
    Material,
    Mesh,
    Mimic,
    Model,
    Shape,
    Sphere,
    maker,
)
from ..model.transforms import (
    IDENTITY,
    inverse,
    make_transform,
    matrix_to_quat,
    rot_x,
    rot_y,
    rot_z,
    rotation_vector_to_matrix,
    unit_vector,
    vector_norm,
)
from .base import Diagnostics, FileAccessRefused, LoadOptions, read_file_limited, referenced_file
from .common import INERTIA_KEYS, binary_stl_triangles, inertia_from_six, remembered_transform
from .numbers import NumberError, xml_double
from .xmlutil import XmlReader, find_children, first_children, parse_xml, shown_attribute, shown_tag

DEFAULT_GRAVITY = (0.0, 0.0, -9.81)
DEFAULT_TIME_STEP = 0.001
JOINT_DOFS = {
    "weld": 0,
    "revolute": 1,
    "prismatic": 1,
    "screw": 1,
    "universal": 2,
    "ball": 3,
    "euler": 3,
    "translational": 3,
    "translational2d": 2,
    "planar": 3,
    "free": 6,
}
ACTUATORS = ("force", "passive", "servo", "acceleration", "velocity", "locked")
SHAPE_TAGS = ("sphere", "box", "ellipsoid", "cylinder", "capsule", "cone", "pyramid", "plane", "multi_sphere", "mesh")
WORLD_LINK = "world"


def detect(text: str) -> bool:
    from .xmlutil import root_tag

    return root_tag(text.lstrip("\ufeff \t\r\n")) == "skel"


# -- parsed SKEL data (before it becomes a model) ---------------------------------------------
@dataclass
class _Dof:
    lower: float = -math.inf
    upper: float = math.inf
    vel_lower: float = -math.inf
    vel_upper: float = math.inf
    acc_lower: float = -math.inf
    acc_upper: float = math.inf
    force_lower: float = -math.inf
    force_upper: float = math.inf
    damping: float = 0.0
    friction: float = 0.0
    spring_rest: float = 0.0
    spring_stiffness: float = 0.0
    initial: float = 0.0
    init_vel: float = 0.0
    name: str | None = None


@dataclass
class _Body:
    name: str
    el: etree._Element
    pose: np.ndarray  # skeleton frame . body transformation = world pose at q = 0
    link: Link
    markers: list[tuple[str, np.ndarray, int]] = field(default_factory=list)
    inertia_shapes: list[tuple[str, np.ndarray, dict]] = field(default_factory=list)


@dataclass
class _Joint:
    name: str
    type: str
    el: etree._Element
    parent: str | None  # None: the world
    child: str
    child_H_joint: np.ndarray
    dofs: list[_Dof]
    axes: list[np.ndarray] = field(default_factory=list)
    pitch: float = 0.0
    actuator: str = "force"
    implicit: bool = False


# the model's objects made from values already in their final form (model.maker: no __post_init__ copies,
# no default inertia made and replaced)
_make_link, _make_inertia, _make_joint = maker(Link), maker(Inertia), maker(Joint)

_IDENTITY_INVERSE = inverse(IDENTITY)  # as inverse() gives it (a -0.0 translation): the products stay bit for bit


def _xyz_rotation(a: np.ndarray) -> np.ndarray:
    return rot_x(a[0]) @ rot_y(a[1]) @ rot_z(a[2])


class _Unparsable(ModelError):
    """What DART's parser itself refuses: a child it needs missing, a number it cannot read (its "Child element
    [size] not found", "stod"), as opposed to what the reader refuses beyond DART (a duplicate body DART drops)."""

    @classmethod
    def of(cls, e: ModelError) -> _Unparsable:
        return cls(e.message, source=e.source, line=e.line, element=e.element)

    def plain(self, message: str | None = None) -> ModelError:
        """The same error as the reader's own rule (DART reads what it names), or with `message`."""
        return ModelError(self.message if message is None else message, source=self.source, line=self.line,
                          element=self.element)


# DART reads a number as C's strtod (through std::stod) reads its prefix: '1x' is 1, '0x10' 16, 'nan' and 'inf' are
# read; it refuses a piece with no such prefix, or out of a double's range (ERANGE: beyond it, or an inexact value
# below the smallest normal double). The reader itself reads an underflowing number as 0 (docs/skel.md).
_STRTOD_PREFIX = re.compile(r"[+-]?(?:(inf|nan)|0x(?:[0-9a-f]+(?:\.[0-9a-f]*)?|\.[0-9a-f]+)(?:p[+-]?[0-9]+)?"
                            r"|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[+-]?[0-9]+)?)", re.IGNORECASE)
_C_SPACE = " \t\n\v\f\r"
_C_SPACES = re.compile(f"[{_C_SPACE}]+")
_DBL_MIN = sys.float_info.min
_DEC_DBL_MIN = Decimal(_DBL_MIN)


def _strtod(piece: str) -> float | None:
    """strtod's value of the prefix of `piece`; None where it reads none or reports a range error."""
    m = _STRTOD_PREFIX.match(piece)
    if m is None:
        return None
    text = m.group()
    if m.group(1):
        return float(text)
    hexa = "x" in text.lower()
    try:
        value = float.fromhex(text) if hexa else float(text)
    except OverflowError:
        return None
    if math.isinf(value):
        return None
    if abs(value) > _DBL_MIN:
        return value
    # at or below the smallest normal double, strtod reports a range error unless the value is exact
    exact = _hex_exact_or_normal(text) if hexa else (Decimal(text) == Decimal(value) or abs(Decimal(text)) >= _DEC_DBL_MIN)
    return value if exact else None


def _hex_exact_or_normal(text: str) -> bool:
    """Whether a hexadecimal float is exactly a double or at least the smallest normal one: decided from its
    mantissa's bits, never by a power of two as large as its exponent (`0x1p-99999999999`)."""
    mantissa, _, exponent = text.lower().lstrip("+-")[2:].partition("p")
    whole, _, frac = mantissa.partition(".")
    digits = int(whole + frac or "0", 16)
    if digits == 0:
        return True
    power = int(exponent or "0") - 4 * len(frac)  # the value is digits * 2**power
    if digits.bit_length() - 1 + power >= -1022:
        return True
    return power + ((digits & -digits).bit_length() - 1) >= -1074  # (a multiple of the smallest subnormal)


def _dart_values(raw: str, n: int | None, scalar: bool) -> list[float] | None:
    """The numbers DART's parser makes of the text `raw` of an element (None where it refuses the text): a vector
    takes each whitespace-separated piece (every one must be read; too few are zeros, too many are dropped to the
    `n` it wants), a single value the first piece; an element without text it refuses ("has no text content").
    What DART reads and the reader refuses (a count, a NaN, trailing text) refuses the skeleton loaded, but not the
    file when it stands in a skeleton not loaded: DART reads the world (fuzz_reference.py --format skel seed
    20261303)."""
    pieces = _C_SPACES.split(raw.strip(_C_SPACE))
    if pieces == [""]:
        return None
    values = [_strtod(p) for p in (pieces[:1] if scalar else pieces)]
    if None in values:
        return None
    if n is not None:
        values = (values + [0.0] * n)[:n]
    return values


class _SkelReader(XmlReader):
    """Reads SKEL elements; every child lookup goes through `child`, which indexes an element's
    children by tag the first time it is asked (a body or a joint is asked for some twenty tags,
    and scanning the children each time was a tenth of a load)."""

    def __init__(self, source: str | None) -> None:
        super().__init__(source)
        self.kids: dict[etree._Element, dict] = {}  # the first child of each tag, by element (also _unread's)
        self._transforms: dict[str, np.ndarray] = {}  # <transformation> text -> its matrix, for this file
        # while judging a skeleton not loaded: a number is what DART makes of it (the judging goes on to what DART
        # refuses further on), where the skeleton loaded refuses what the reader refuses
        self.dart_numbers = False

    def child(self, parent: etree._Element, tag: str) -> etree._Element | None:
        """The first child element `tag` of `parent` (a plain tag, never a path), or None."""
        kids = self.kids.get(parent)
        if kids is None:
            kids = self.kids[parent] = first_children(parent)
        return kids.get(tag)

    def unparsable(self, el: etree._Element, message: str) -> _Unparsable:
        return _Unparsable.of(self.error(el, message))

    def need(self, parent: etree._Element, tag: str, why: str = "") -> etree._Element:
        el = self.child(parent, tag)
        if el is None:
            raise self.unparsable(parent, f"missing <{tag}>{why}")
        return el

    def number(self, parent: etree._Element, tag: str, default: float | None = None) -> float:
        el = self.child(parent, tag)
        if el is None:
            if default is None:
                raise self.unparsable(parent, f"missing <{tag}>")
            return default
        return self.float_text(el)

    def vector(self, parent: etree._Element, tag: str, n: int, default=None) -> np.ndarray:
        el = self.child(parent, tag)
        if el is None:
            if default is None:
                raise self.unparsable(parent, f"missing <{tag}>")
            return np.array(default, dtype=float)
        return self.floats_text(el, n)

    def floats_list(self, el: etree._Element, raw: str, what: str, n: int | None) -> list[float]:
        try:
            return super().floats_list(el, raw, what, n)
        except ModelError as e:  # (refused here; unparsable only where DART cannot read it either)
            values = _dart_values(raw, n, scalar=False)
            if values is None:
                raise _Unparsable.of(e) from None
            if self.dart_numbers:
                return values
            raise

    def float_text(self, el: etree._Element) -> float:
        try:
            return self.text_numbers(el, 1)[0]
        except _Unparsable as e:  # DART reads a single value by the prefix of its first piece: '1 x' is 1
            values = _dart_values(el.text or "", 1, scalar=True)
            if values is None:
                raise
            if self.dart_numbers:
                return values[0]
            raise e.plain() from None

    def float_attr(self, el: etree._Element, attr: str, default: float | None = None) -> float:
        try:
            return super().float_attr(el, attr, default)
        except ModelError as e:  # DART reads a <dof>'s attributes whatever they hold (an unreadable one as 0)
            if self.dart_numbers:
                return 0.0 if default is None else default
            if isinstance(e, _Unparsable):
                raise e.plain() from None
            raise

    def transformation(self, parent: etree._Element) -> np.ndarray:
        """`x y z a b c`: translation, then R = Rx(a) Ry(b) Rz(c) (DART's XYZ Euler angles)."""
        el = self.child(parent, "transformation")
        if el is None:
            return IDENTITY.copy()
        raw = el.text or ""
        t = self._transforms.get(raw)  # a body's visual and collision shapes mostly repeat one pose
        if t is None:
            v = self.floats_list(el, raw, "<transformation> value", 6)
            t = self._transforms[raw] = remembered_transform("xyz", v[3:], _xyz_rotation, v)
        return t.copy()

    def bool_value(self, el: etree._Element) -> bool:
        value = self.text(el).lower()
        if not value:  # ("Child element [mobile] in parent [skeleton] has no text content")
            raise self.unparsable(el, f"<{el.tag}> is empty (DART refuses it)")
        try:
            return xml_double(value) != 0.0
        except NumberError:
            if self.dart_numbers:  # (DART reads any other text, 'abc' or a number beyond a double, with no error)
                return value in ("true", "1")
            return super().bool_text(el)


# -- entry point ------------------------------------------------------------------------------
def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    source = diag.source
    root = parse_xml(text, source, blank_text=False)  # (nothing of a SKEL file is kept as XML)
    r = _SkelReader(source)
    if root.tag != "skel":
        raise r.error(root, f"the root element is <{root.tag}>, a SKEL file needs <skel>")
    world = r.child(root, "world")
    if world is None:
        raise r.error(root, "<skel> has no <world> (a SKEL file holds one world with its skeletons)")
    lost: list[str] = []
    gravity, time_step, detector = _physics(r, world)
    skeletons = find_children(world, "skeleton")
    if not skeletons:
        raise r.error(world, "the world has no <skeleton>: there is no model to load")
    names = _skeleton_names(skeletons)
    if options.skeleton is not None:
        if options.skeleton not in names:
            raise r.error(
                world, f"no skeleton named '{options.skeleton}' (skeletons: {', '.join(repr(n) for n in names)})"
            )
        chosen = names.index(options.skeleton)
    else:
        chosen = 0
    skel_el = skeletons[chosen]
    if len(skeletons) > 1:
        others = [n for k, n in enumerate(names) if k != chosen]
        diag.warn(
            f"the world has {len(skeletons)} skeletons; loaded '{names[chosen]}' "
            f"(choose another with the skeleton option): {', '.join(repr(n) for n in others)} not loaded"
        )
    unread = _unread(root, world, skel_el, r.kids)  # (first, so that the reader uses what it saw of each element)
    model = _skeleton(r, skel_el, options, diag, lost, names[chosen])
    _check_other_skeletons(r, skeletons, chosen, names, options)
    if unread:
        model.metadata["skel_not_read"] = unread
        shown = "; ".join(unread[:_SHOWN]) + (f"; and {len(unread) - _SHOWN} more" if len(unread) > _SHOWN else "")
        diag.warn(f"{len(unread)} element(s) or attribute(s) of the SKEL file are not read, as DART reads none of "
                  f"them, and are not in the model (listed in model.metadata['skel_not_read']): {shown}")
    model.metadata["gravity"] = [float(g) for g in gravity]
    model.metadata["time_step"] = float(time_step)
    model.metadata["skel_skeletons"] = names
    model.metadata["skel_skeleton"] = names[chosen]
    if world.get("name") is not None:  # (DART reads no name of the world; kept, as the skeletons' names are)
        model.metadata["skel_world"] = world.get("name")
    if detector is not None:
        model.metadata["collision_detector"] = detector
    lost.insert(0, f"world physics (gravity {list(map(float, gravity))}, time step {time_step:g})")
    if len(skeletons) > 1:
        lost.insert(1, f"the other {len(skeletons) - 1} skeleton(s) of the world")
    model.metadata["skel_not_representable"] = lost
    diag.warn(
        "not representable in URDF or iDynTree JSON (kept in model.metadata): " + "; ".join(lost)
    )
    return model


def _check_other_skeletons(r: _SkelReader, skeletons: list[etree._Element], chosen: int, names: list[str],
                           options: LoadOptions) -> None:
    """Read the skeletons not loaded, to refuse the file where DART's parser refuses one of them: DART reads every
    skeleton of the world and refuses the whole file ("Child element [size] not found in parent element
    [ellipsoid]"), where the reader loaded the one asked for and said nothing. Only what DART refuses counts (a
    child it needs, a number it cannot read: raised as _Unparsable where it is found): what the reader refuses
    beyond DART (a duplicate body DART drops with a word) passes over that body or joint (_judge_skeleton), not
    the load. What they would warn about is not said: they are not loaded."""
    for k, other in enumerate(skeletons):
        if k == chosen:
            continue
        r.dart_numbers = True
        try:
            with np.errstate(all="ignore"):  # (DART's numbers: an infinite angle's rotation is NaN, not a warning)
                _judge_skeleton(r, other, options)
        except _Unparsable as e:
            raise e.plain(f"{e.message} (in skeleton '{names[k]}', which is not loaded; DART refuses the whole "
                          "world)") from None
        finally:
            r.dart_numbers = False


def _judge_skeleton(r: _SkelReader, el: etree._Element, options: LoadOptions) -> None:
    """Raise _Unparsable where DART refuses a skeleton that is not loaded. Each body and joint is read on its own, as
    DART reads them: one that the reader refuses by its own rule (an unknown joint type, a zero axis, a parent that
    is no body: DART reads them, or drops them with a word) is passed over, where it ended the judging of the
    skeleton and what DART refuses further on was read. Where the bodies meet the joints (roots, cycles) is the
    reader's own judging only."""
    diag = Diagnostics(source=r.source, quiet=True)
    skel_frame = r.transformation(el)
    mobile = r.child(el, "mobile")
    if mobile is not None:
        r.bool_value(mobile)
    # every body DART reads, whether the reader's own rules take it or not (a negative mass): the joints name them
    bodies = {name for c in find_children(el, "body") if (name := (c.get("name") or "").strip())}
    for tag, read in (("body", lambda c: _body(r, c, skel_frame, options, diag, [], [])),
                      ("joint", lambda c: _joint(r, c, bodies, diag, []))):
        for c in find_children(el, tag):
            try:
                read(c)
            except _Unparsable:
                raise
            except ModelError:
                continue


def _physics(r: _SkelReader, world: etree._Element):
    gravity = np.array(DEFAULT_GRAVITY)
    time_step = DEFAULT_TIME_STEP
    detector = None
    physics = r.child(world, "physics")
    if physics is not None:
        time_step = r.number(physics, "time_step", DEFAULT_TIME_STEP)
        if time_step <= 0:
            raise r.error(r.child(physics, "time_step"), f"time step {time_step} must be positive")
        gravity = r.vector(physics, "gravity", 3, DEFAULT_GRAVITY)
        cd = r.child(physics, "collision_detector")
        if cd is not None:
            detector = r.text(cd)
            if not detector.strip():  # (DART: "Child element [collision_detector] in parent [physics] has no text")
                raise r.error(cd, "<collision_detector> is empty: DART refuses the file (name one, e.g. fcl)")
    return gravity, time_step, detector


# -- what nothing reads ------------------------------------------------------------------------
# What the reader (and DART's SkelParser, shared/docs/skel.md) reads of each element, its kind: (attributes,
# {child tag: (the child's kind, read all children of that tag or only the first)}).  A child's kind is a table
# of its own, or _VALUE (an element holding its text), _BODY or _JOINT (looked into as such, with their names),
# or _WHOLE (read as a whole: a soft shape, named as not representable; the world, looked into by _unread).
# Anything else in the world and the skeleton loaded is named in one warning: DART ignores it silently, and so
# did we.
_Kind = tuple[frozenset[str], dict[str, tuple[object, bool]]]
_FIRST, _ALL = False, True
_VALUE, _BODY, _JOINT, _WHOLE = "value", "body", "joint", "whole"
_V = (_VALUE, _FIRST)  # most children: a value, once
_NO_ATTRIBUTES: frozenset[str] = frozenset()
_LEAF: _Kind = (_NO_ATTRIBUTES, {})
_SHAPES: dict[str, _Kind] = {  # what is read of the one shape of a <geometry> DART takes
    "sphere": (_NO_ATTRIBUTES, {"radius": _V}),
    "box": (_NO_ATTRIBUTES, {"size": _V}),
    "ellipsoid": (_NO_ATTRIBUTES, {"size": _V}),
    "cylinder": (_NO_ATTRIBUTES, {"radius": _V, "height": _V}),
    "capsule": (_NO_ATTRIBUTES, {"radius": _V, "height": _V}),
    "cone": (_NO_ATTRIBUTES, {"radius": _V, "height": _V}),
    "pyramid": (_NO_ATTRIBUTES, dict.fromkeys(("base_width", "base_depth", "height"), _V)),
    "plane": (_NO_ATTRIBUTES, dict.fromkeys(("normal", "offset", "point"), _V)),
    "multi_sphere": (_NO_ATTRIBUTES, {"sphere": ((_NO_ATTRIBUTES, {"radius": _V, "position": _V}), _ALL)}),
    "mesh": (_NO_ATTRIBUTES, {"file_name": _V, "scale": _V}),
}
_GEOMETRY: _Kind = (_NO_ATTRIBUTES, {})  # one of _SHAPES: see _look
_LIMITS: _Kind = (_NO_ATTRIBUTES, {"lower": _V, "upper": _V})
_DYNAMICS = dict.fromkeys(("damping", "friction", "spring_rest_position", "spring_stiffness"), _V)
_DOF_VALUES: _Kind = (frozenset({"lower", "upper", "initial"}), {})
_DOF: _Kind = (frozenset({"local_index", "name"}), {
    **dict.fromkeys(("position", "velocity", "acceleration", "force"), (_DOF_VALUES, _FIRST)), **_DYNAMICS})
_PLANE_AXIS: _Kind = (_NO_ATTRIBUTES, {"xyz": _V})
_PLANE: _Kind = (frozenset({"type"}), {"translation_axis1": (_PLANE_AXIS, _FIRST),
                                       "translation_axis2": (_PLANE_AXIS, _FIRST)})
# (DART reads a visual shape's <color> only, and a collision shape's <collidable>; we read <color> of both)
_VISUAL_SHAPE: _Kind = (_NO_ATTRIBUTES, {"transformation": _V, "geometry": (_GEOMETRY, _FIRST), "color": _V})
_COLLISION_SHAPE: _Kind = (_NO_ATTRIBUTES, {**_VISUAL_SHAPE[1], "collidable": _V})
_INERTIA: _Kind = (_NO_ATTRIBUTES, {"mass": _V, "offset": _V,
                                    "moment_of_inertia": ((_NO_ATTRIBUTES, dict.fromkeys(INERTIA_KEYS, _V)), _FIRST)})
_BODY_KIND: _Kind = (frozenset({"name"}), {
    "gravity": _V, "transformation": _V, "inertia": (_INERTIA, _FIRST), "visualization_shape": (_VISUAL_SHAPE, _ALL),
    "collision_shape": (_COLLISION_SHAPE, _ALL), "marker": ((frozenset({"name"}), {"offset": _V}), _ALL),
    "soft_shape": (_WHOLE, _FIRST)})
_SKELETON: _Kind = (frozenset({"name"}), {"transformation": _V, "mobile": _V, "body": (_BODY, _ALL),
                                          "joint": (_JOINT, _ALL)})
_PHYSICS: _Kind = (_NO_ATTRIBUTES, dict.fromkeys(("time_step", "gravity", "collision_detector"), _V))
_SKEL: _Kind = (frozenset({"version"}), {"world": (_WHOLE, _FIRST)})  # (version: the format's, nothing to hold)
_AXES_READ = {"revolute": 1, "prismatic": 1, "screw": 1, "universal": 2}  # joints whose <axis>/<axis2> give directions
# joints whose DOFs DART sets only through <dof> elements: an <axis>, its <limit> or <dynamics> is not read
_NO_OLD_STYLE_AXES = frozenset(("ball", "free"))
_SHOWN = 10  # unread items named in the warning (all are in the metadata)


@functools.cache
def _joint_kind(jtype: str) -> _Kind:
    """What is read of a joint of type `jtype`: the axes of its DOF (their limits and dynamics, old style; a
    direction only where the type takes one, a pitch for a screw), its plane or axis order."""
    children: dict[str, tuple[object, bool]] = {
        "parent": _V, "child": _V, "transformation": _V, "init_pos": _V, "init_vel": _V, "dof": (_DOF, _ALL)}
    for i in range(0 if jtype in _NO_OLD_STYLE_AXES else JOINT_DOFS.get(jtype, 0)):
        axis: dict[str, tuple[object, bool]] = {"damping": _V, "dynamics": ((_NO_ATTRIBUTES, _DYNAMICS), _FIRST),
                                                "limit": (_LIMITS, _FIRST)}
        if i < _AXES_READ.get(jtype, 0):
            axis["xyz"] = _V
        if jtype == "screw":
            axis["pitch"] = _V
        children["axis" if i == 0 else f"axis{i + 1}"] = ((_NO_ATTRIBUTES, axis), _FIRST)
    if jtype == "euler":
        children["axis_order"] = _V
    if jtype in ("planar", "translational2d"):
        children["plane"] = (_PLANE, _FIRST)
    return frozenset({"name", "type", "actuator"}), children


def _unread(root: etree._Element, world: etree._Element, skeleton: etree._Element,
            kids: dict[etree._Element, dict]) -> list[str]:
    """Every element and attribute of the document that neither we nor DART read, in document order: outside
    the world and the skeleton loaded (the other skeletons are named in their own warning), and in them.
    `kids` gets the first child of each tag of every element looked into (_SkelReader.child: one pass over
    each element's children serves both)."""
    out: list[tuple] = []
    _look(root, _SKEL, "the <skel>", out, kids)
    out += [(f"attribute {shown_attribute(world, k)}", world, "the <world>", "", "") for k in world.attrib if k != "name"]
    seen: set[str] = set()
    for c in world:
        tag = c.tag
        if not isinstance(tag, str):
            continue
        if tag == "physics" and tag not in seen:
            _look(c, _PHYSICS, "the <physics>", out, kids)
        elif tag != "skeleton":
            out.append(_item(c, tag in seen, "the <world>"))
        elif c is skeleton:
            _look(c, _SKELETON, f"skeleton '{c.get('name', '')}'", out, kids)
        seen.add(tag)
    return [_said(*item) for item in out]


def _look(el: etree._Element, kind: _Kind, me, out: list, kids: dict[etree._Element, dict]) -> None:
    """What `el` and the elements read below it hold that is not read, added to `out` as _said's arguments;
    the first child of each tag of `el` goes to `kids`.  `me` is where `el` is, for messages: (its tag, where
    its parent is), or the text naming a body, a joint or the skeleton, made into words only for what is named
    (formatting every element's place cost a tenth of a load)."""
    attributes, children = kind
    for k in el.keys():  # noqa: SIM118  (an element's keys are its attribute names; iterating it gives children)
        if k not in attributes:
            out.append((f"attribute {shown_attribute(el, k)}", el, me, "", ""))
    first: dict[str, etree._Element] = {}
    for c in el:
        tag = c.tag
        read = children.get(tag)
        repeated = tag in first
        if not repeated:
            first[tag] = c
            if read is _V:  # most elements: a value, once
                if len(c) or c.keys():
                    _look(c, _LEAF, (tag, me), out, kids)
                continue
        if kind is _GEOMETRY and isinstance(tag, str) and tag in _SHAPES:
            if repeated:
                out.append(_item(c, repeated, me))
            continue  # DART takes one shape, the first present in its order: looked at below, once all are seen
        if read is None and not isinstance(tag, str):
            continue  # (a comment is removed by the parser; a processing instruction too)
        if read is None or (repeated and read[1] is _FIRST):
            out.append(_item(c, repeated, me))
        elif read[0] is _BODY:
            _look(c, _BODY_KIND, f"body '{c.get('name', '')}'", out, kids)
        elif read[0] is _JOINT:
            _look(c, _joint_kind((c.get("type") or "").strip()), f"joint '{c.get('name', '')}'", out, kids)
        elif read[0] is not _WHOLE:
            _look(c, read[0], (tag, me), out, kids)
    kids[el] = first
    if kind is _GEOMETRY:
        present = [t for t in SHAPE_TAGS if t in first]
        if present:
            _look(first[present[0]], _SHAPES[present[0]], (present[0], me), out, kids)
        for t in present[1:]:  # DART reads the first in its order, and no other
            out.append((f"<{t}>", first[t], me, "", f": DART reads only its <{present[0]}>"))


def _item(el: etree._Element, repeated: bool, me) -> tuple:
    if repeated:
        return (f"a second <{shown_tag(el)}>", el, me, "; the first is read", "")
    return (f"<{shown_tag(el)}>", el, me, "", "")


def _said(what: str, el: etree._Element, me, inside: str, after: str) -> str:
    """The words for an unread item: `what`, where (`me`, see _look), its line (and `inside` the parentheses),
    then `after`."""
    where = []
    while isinstance(me, tuple):
        where.append(f"the <{me[0]}>")
        me = me[1]
    where.append(me)
    joint = "of" if what.startswith("attribute") else "in"
    return f"{what} {joint} {' of '.join(where)} (line {el.sourceline}{inside}){after}"


# -- skeleton ---------------------------------------------------------------------------------
def _skeleton_names(skeletons: list[etree._Element]) -> list[str]:
    """The skeletons' names as DART's world names them: none or an empty one is `skeleton`, and a name already
    taken gets `(1)`, `(2)`, ... (its NameManager), so that every skeleton of the file can be chosen (two named `s`
    made the second unreachable; a skeleton named "" could not be chosen by the name DART gives it)."""
    out: list[str] = []
    for s in skeletons:
        name = s.get("name") or "skeleton"
        k, unique = 0, name
        while unique in out:
            k += 1
            unique = f"{name}({k})"
        out.append(unique)
    return out


def _skeleton(r: _SkelReader, el: etree._Element, options: LoadOptions, diag: Diagnostics, lost: list[str],
              unique_name: str) -> Model:
    name = unique_name.strip() or "skeleton"
    skel_frame = r.transformation(el)
    model = Model(name=name)
    mobile = r.child(el, "mobile")
    if mobile is not None:
        model.metadata["skel_mobile"] = r.bool_value(mobile)
        if not model.metadata["skel_mobile"]:
            lost.append("the skeleton is immobile (<mobile>false</mobile>)")
    bodies: dict[str, _Body] = {}
    pending: list[tuple] = []  # bodies whose inertia comes from their shapes: summed for all at once
    for body_el in find_children(el, "body"):
        body = _body(r, body_el, skel_frame, options, diag, lost, pending)
        if body.name in bodies:
            raise r.error(
                body_el,
                f"duplicate body name '{body.name}' (first defined at line {bodies[body.name].el.sourceline}); "
                "DART would silently discard this body",
            )
        bodies[body.name] = body
    if not bodies:
        raise r.error(el, f"skeleton '{name}' has no <body>")
    _shape_inertias(r, pending)
    joints: list[_Joint] = []
    by_child: dict[str, _Joint] = {}
    joint_names: dict[str, int] = {}
    for joint_el in find_children(el, "joint"):
        joint = _joint(r, joint_el, bodies, diag, lost)
        if joint.name in joint_names:
            raise r.error(joint_el, f"duplicate joint name '{joint.name}' (first defined at line {joint_names[joint.name]})")
        joint_names[joint.name] = joint_el.sourceline
        if joint.child in by_child:
            other = by_child[joint.child]
            raise r.error(
                joint_el,
                f"body '{joint.child}' has two parent joints ('{other.name}' at line {other.el.sourceline} and "
                f"'{joint.name}'); DART would silently discard the second",
            )
        by_child[joint.child] = joint
        joints.append(joint)
    _check_cycles(r, joints, by_child)
    # bodies that are nobody's child: DART gives a parent-only body a free joint named "root" and
    # drops a body in no joint at all; we keep both as free bodies
    parents = {j.parent for j in joints if j.parent is not None}
    for body in bodies.values():
        if body.name in by_child:
            continue
        if body.name in parents:
            jname = _unique("root", joint_names, body.name)
        else:
            jname = _unique(f"{body.name}_free", joint_names, body.name)
            diag.warn(
                f"line {body.el.sourceline}: body '{body.name}' is in no joint: DART drops it silently (and dartpy "
                f"6.20 crashes on many such worlds); kept as a free-floating body with free joint '{jname}'"
            )
            model.metadata.setdefault("skel_free_bodies", []).append(body.name)
        implicit = _Joint(jname, "free", body.el, None, body.name, np.eye(4), [_Dof() for _ in range(6)], implicit=True)
        joint_names[jname] = body.el.sourceline
        by_child[body.name] = implicit
        joints.append(implicit)
    _build(r, model, bodies, joints, diag, lost)
    return model


def _unique(base: str, used: dict[str, int], body: str) -> str:
    name = base
    if name in used:
        name = f"{base}_{body}"
    k = 1
    while name in used:
        name = f"{base}_{body}_{k}"
        k += 1
    return name


def _check_cycles(r: _SkelReader, joints: list[_Joint], by_child: dict[str, _Joint]) -> None:
    """Refuse joints that form a cycle, in time linear in the number of joints.

    Each body has at most one parent joint (checked before), so following parents from any body
    either reaches a root or loops.  Bodies already known to reach a root end every later walk, so
    each body is visited once over all walks.
    """
    state: dict[str, int] = {}  # body -> 1 on the current walk, 2 known to reach a root
    for joint in joints:
        walk: list[str] = []
        body: str | None = joint.child
        while body is not None and state.get(body) is None:
            state[body] = 1
            walk.append(body)
            parent_joint = by_child.get(body)
            body = parent_joint.parent if parent_joint is not None else None
        if body is not None and state[body] == 1:  # came back to a body of this very walk
            raise r.error(by_child[body].el, f"joints form a cycle through body '{body}'")
        for b in walk:
            state[b] = 2


# -- bodies -----------------------------------------------------------------------------------
def _body(r: _SkelReader, el: etree._Element, skel_frame: np.ndarray, options: LoadOptions, diag: Diagnostics,
          lost: list[str], pending: list[tuple]) -> _Body:
    """The body; one without <moment_of_inertia> goes to `pending` with its shapes' parts, and gets its
    inertia from _shape_inertias once every body is read."""
    name = r.required(el, "name")
    pose = skel_frame @ r.transformation(el)
    link = _make_link(name=name, inertia=None)  # (every branch below gives it its inertia)
    body = _Body(name, el, pose, link)
    grav = r.child(el, "gravity")
    if grav is not None and not r.bool_value(grav):
        lost.append(f"body '{name}' is not affected by gravity")
    markers = []
    visuals, collisions = [], []
    for c in el:  # (one pass for the three repeated children: a scan each was a twentieth of the body)
        tag = c.tag
        if tag == "visualization_shape":
            visuals.append(c)
        elif tag == "collision_shape":
            collisions.append(c)
        elif tag == "marker":
            markers.append(c)
    for shape_els, target in ((visuals, link.visuals), (collisions, link.collisions)):
        for shape_el in shape_els:
            shape, info = _shape(r, shape_el, name, options, diag, lost)
            if shape is not None:
                target.append(shape)
            body.inertia_shapes.append(info)
    soft = r.child(el, "soft_shape")
    if soft is not None:
        _soft_shape(r, soft, name, lost)
    inertia_el = r.child(el, "inertia")
    if inertia_el is None:
        link.inertia = _make_inertia(mass=1.0, com=np.zeros(3), inertia=np.eye(3))  # DART's default body
    else:
        mass_el = r.child(inertia_el, "mass")
        if mass_el is None:
            raise r.unparsable(inertia_el, f"body '{name}': <inertia> needs <mass> (DART refuses it too)")
        mass = r.float_text(mass_el)
        if mass < 0:
            raise r.error(mass_el, f"body '{name}': mass {mass} is negative")
        if mass == 0:
            diag.warn(f"line {mass_el.sourceline}: body '{name}' has mass 0 (DART warns about it too)")
        com = r.vector(inertia_el, "offset", 3, (0.0, 0.0, 0.0))
        moi = r.child(inertia_el, "moment_of_inertia")
        if moi is not None:
            link.inertia = _make_inertia(mass=mass, com=com,
                                         inertia=inertia_from_six(*(r.number(moi, k) for k in INERTIA_KEYS)))
        else:
            parts = _inertia_parts(body.inertia_shapes, name, options, diag)  # warns (and reads meshes) in body order
            pending.append((link, mass, com, parts, inertia_el))
    for marker_el in markers:
        mname = r.required(marker_el, "name")
        offset = r.vector(marker_el, "offset", 3, (0.0, 0.0, 0.0))
        body.markers.append((mname, offset, marker_el.sourceline))
    return body


# what DART's parser reads of each soft shape, in the order it looks for them (the first found is read, the others
# not looked into), each child needed: "Child element [num_slices] not found in parent element [sphere]"
_SOFT_PARTS = {"sphere": (("radius", 1), ("num_slices", 1), ("num_stacks", 1)),
               "box": (("size", 3), ("frags", 3)),
               "ellipsoid": (("size", 3), ("num_slices", 1), ("num_stacks", 1)),
               "cylinder": (("radius", 1), ("height", 1), ("num_slices", 1), ("num_stacks", 1), ("num_rings", 1))}


def _soft_shape(r: _SkelReader, soft: etree._Element, body: str, lost: list[str]) -> None:
    """Named as lost (only the rigid part is loaded), but judged as DART reads it: a soft ellipsoid without its
    <num_slices> was read, where DART refuses the file."""
    total = r.float_text(r.need(soft, "total_mass", f" in the <soft_shape> of body '{body}' (DART refuses it too)"))
    geo = r.need(soft, "geometry", f" in the <soft_shape> of body '{body}'")
    kind = next((k for k in _SOFT_PARTS if r.child(geo, k) is not None), None)
    if kind is None:  # (DART reads on, a soft body without its points: refused here, beyond DART)
        kinds = [c.tag for c in geo if isinstance(c.tag, str)]
        raise r.error(geo, f"body '{body}': unknown soft shape {kinds} ({', '.join(_SOFT_PARTS)})")
    shape = r.child(geo, kind)
    for tag, n in _SOFT_PARTS[kind]:
        el = r.need(shape, tag, f" in the soft <{kind}> of body '{body}' (DART refuses it too)")
        values = r.floats_text(el, n)
        if tag == "frags":  # (DART makes a count below 3 a 3, with a warning; a missing one it reads from whatever
            if len((el.text or "").split()) < n:  # its memory holds: it ran out of memory on '2 2', checked with dartpy)
                raise r.unparsable(el, f"body '{body}': the <frags> of its soft box needs three counts (DART reads a "
                                       "missing one from whatever its memory holds)")
            continue
        if tag not in ("radius", "size", "height") and min(values) < 1:  # (DART: stoul's '0x5' is 0, '-1' huge)
            raise r.unparsable(el, f"body '{body}': a count of its soft <{kind}>'s <{tag}> is below 1 (DART refuses "
                                   "it, runs out of memory or never ends)")
    lost.append(f"soft body '{body}' (soft {kind} of {total:g} kg point masses; only the rigid part is loaded)")


def _shape(r: _SkelReader, el: etree._Element, body: str, options: LoadOptions, diag: Diagnostics,
           lost: list[str]) -> tuple[Shape | None, tuple[str, np.ndarray, dict]]:
    pose = r.transformation(el)
    geo = r.child(el, "geometry")
    if geo is None:
        raise r.unparsable(el, f"missing <geometry> in <{el.tag}> of body '{body}' (DART crashes on it)")
    kinds: dict[str, etree._Element] = {}  # first child of each shape tag
    for c in geo:
        if c.tag in SHAPE_TAGS and c.tag not in kinds:
            kinds[c.tag] = c
    if not kinds:
        found = [c.tag for c in geo if isinstance(c.tag, str)]
        raise r.unparsable(geo, f"body '{body}': no known shape in <geometry> (found {found or 'nothing'}; expected "
                                f"one of {', '.join(SHAPE_TAGS)}; DART crashes on it)")
    # DART looks the shapes up in a fixed order and takes the first present
    g = kinds[next(t for t in SHAPE_TAGS if t in kinds)]
    tag = g.tag
    data: dict = {}
    shape: Shape | None = None
    if tag == "sphere":
        data["radius"] = _dart_size(r, g, "radius", body, diag)
        shape = Sphere(pose, radius=data["radius"])
    elif tag == "box":
        data["size"] = _dart_size(r, g, "size", body, diag)
        shape = Box(pose, size=data["size"])
    elif tag == "ellipsoid":
        data["size"] = _dart_size(r, g, "size", body, diag)
        shape = Ellipsoid(pose, radii=data["size"] / 2.0)
    elif tag in ("cylinder", "capsule", "cone"):
        data["radius"] = _dart_size(r, g, "radius", body, diag)
        data["height"] = _dart_size(r, g, "height", body, diag)
        cls = {"cylinder": Cylinder, "capsule": Capsule, "cone": Cone}[tag]
        shape = cls(pose, radius=data["radius"], length=data["height"])
    elif tag == "pyramid":
        data.update(width=_dart_size(r, g, "base_width", body, diag), depth=_dart_size(r, g, "base_depth", body, diag),
                    height=_dart_size(r, g, "height", body, diag))
    elif tag == "plane":
        data["normal"] = r.vector(g, "normal", 3)
        if r.child(g, "offset") is None and r.child(g, "point") is not None:
            data["offset"] = float(data["normal"] @ r.vector(g, "point", 3))
        else:
            data["offset"] = r.number(g, "offset", 0.0)
    elif tag == "multi_sphere":
        spheres = [(r.number(s, "radius"), r.vector(s, "position", 3)) for s in find_children(g, "sphere")]
        if not spheres:
            raise r.error(g, f"body '{body}': <multi_sphere> has no <sphere>")
        if any(rad < 0 for rad, _ in spheres):
            raise r.error(g, f"body '{body}': a <sphere> of <multi_sphere> has a negative radius")
        data["spheres"] = spheres
    elif tag == "mesh":
        filename = r.text(r.need(g, "file_name"))
        if not filename:
            raise r.unparsable(r.child(g, "file_name"), f"body '{body}': <mesh> has an empty <file_name> (DART refuses it)")
        r.need(g, "scale", " (DART refuses a mesh without one)")
        scale = r.vector(g, "scale", 3)
        data.update(filename=filename, scale=scale, element=g)  # read only if the inertia needs it
        shape = Mesh(pose, filename=filename, scale=scale)
    if shape is None:
        what = f"{tag} {el.tag.replace('_shape', '')} shape of body '{body}'"
        diag.warn(f"line {g.sourceline}: the {what} has no equivalent in the model: not kept (it still counts "
                  "for the body's inertia, as in DART)")
        lost.append(f"the {what}")
    collidable = r.child(el, "collidable") if el.tag == "collision_shape" else None
    if collidable is not None and not r.bool_value(collidable):
        lost.append(f"the {tag} collision shape of body '{body}' does not collide (<collidable>)")
    color_el = r.child(el, "color")
    if color_el is not None and el.tag == "visualization_shape" and not r.text(color_el):
        raise r.unparsable(color_el, f"the <color> of a visual shape of body '{body}' is empty (DART refuses it)")
    if color_el is not None and shape is not None:
        try:
            c = r.text_numbers(color_el)
        except ModelError as e:
            if el.tag == "visualization_shape":
                raise
            # (DART does not read a collision shape's colour, and reads the file)
            diag.warn(f"line {color_el.sourceline}: {e.message}; ignored (DART does not read a collision shape's colour)")
        else:
            if len(c) == 3:
                c.append(1.0)
            if len(c) == 4:
                shape.material = Material(color=np.array(c))
            else:
                diag.warn(f"line {color_el.sourceline}: <color> needs 3 or 4 numbers, got {len(c)}; ignored")
    return shape, (tag, pose, data)


def _dart_size(r: _SkelReader, g: etree._Element, tag: str, body: str, diag: Diagnostics):
    """A shape dimension (a number, or the 3 numbers of a box or ellipsoid <size>) as DART takes it.

    DART requires every dimension to be positive: it ignores a zero or negative one with a warning and
    keeps its default (1, or a 1 x 1 x 1 size), for the shape and for the inertia computed from it
    (checked with dartpy 6.20 for every shape type; DART's own kima_human_left_leg.skel has a negative
    box).  We do the same and say so, so that masses and inertias agree with DART.
    """
    if tag == "size":
        value = r.vector(g, tag, 3)
        if value[0] > 0 and value[1] > 0 and value[2] > 0:
            return value
        default, shown = np.ones(3), " ".join(f"{v:g}" for v in value)
    else:
        value = r.number(g, tag)
        if value > 0:
            return value
        default, shown = 1.0, f"{value:g}"
    diag.warn(f"line {r.child(g, tag).sourceline}: body '{body}': <{g.tag}> <{tag}> {shown} is not positive; DART "
              f"ignores it and keeps its default {'1 1 1' if tag == 'size' else '1'}, and so do we (for the shape "
              "and for the inertia)")
    return default


def _mesh_extents(filename: str, scale: np.ndarray, options: LoadOptions, diag: Diagnostics,
                  el: etree._Element, body: str) -> np.ndarray | None:
    """Bounding-box extents of an OBJ or STL mesh, which DART uses for the inertia of a mesh shape.

    Only meshes this load may read (see formats.base.referenced_file: the SKEL file's own directory
    tree and the allowed directories) are opened; any other does not count, with a warning.
    """
    lost = f"body '{body}': mesh '{filename}'"
    try:
        path = referenced_file(filename, options, "mesh")
    except FileAccessRefused as e:
        diag.warn(f"line {el.sourceline}: {e.message}; it does not count for the inertia computed from the shapes")
        return None
    if not os.path.isfile(path):
        diag.warn(f"line {el.sourceline}: {lost} not found: it does not count for the inertia computed from the shapes")
        return None
    kind = path.lower().rsplit(".", 1)[-1]
    if kind not in ("obj", "stl"):
        diag.warn(f"line {el.sourceline}: {lost} is not OBJ or STL, the mesh formats read here for the bounding box "
                  "DART gives its inertia: it does not count for the inertia computed from the shapes")
        return None
    try:
        points = _mesh_points(read_file_limited(path), kind)
    except (ModelError, ValueError):
        diag.warn(f"line {el.sourceline}: cannot read mesh '{filename}' for its bounding box")
        return None
    if not len(points) or not np.all(np.isfinite(points)):
        return None
    return (points.max(axis=0) - points.min(axis=0)) * np.abs(scale)


_STL_TRIANGLE = np.dtype([("normal", "<f4", 3), ("vertices", "<f4", (3, 3)), ("attributes", "<u2")])


def _mesh_points(data: bytes, kind: str) -> np.ndarray:
    """The vertices of an OBJ, or of a binary or ASCII STL, as an n x 3 array."""
    if kind == "stl":
        count = binary_stl_triangles(data, len(data))
        if count is not None:  # binary: per 50-byte triangle a normal, three vertices, two bytes
            triangles = np.frombuffer(data, dtype=_STL_TRIANGLE, count=count, offset=84)
            return triangles["vertices"].reshape(-1, 3).astype(float)
        lines = (line.split() for line in data.decode("utf-8", errors="replace").splitlines())
        return np.array([[float(x) for x in f[1:4]] for f in lines if f[:1] == ["vertex"]]).reshape(-1, 3)
    lines = data.decode("utf-8", errors="replace").splitlines()
    return np.array([[float(x) for x in line.split()[1:4]] for line in lines if line.startswith("v ")]).reshape(-1, 3)


# -- inertia from shapes (dartpy 6.20) --------------------------------------------------------
# Every shape's moment of inertia about its origin is diagonal in its own axes, so a shape gives the
# three principal moments as plain floats (computed in DART's order of operations); _shape_inertias
# turns them into tensors for all shapes at once.
Moments = tuple[float, float, float]


def _box_moments(mass: float, e) -> Moments:
    x, y, z = float(e[0]), float(e[1]), float(e[2])
    k = mass / 12.0
    return k * (y * y + z * z), k * (x * x + z * z), k * (x * x + y * y)


def _shape_volume_inertia(tag: str, d: dict, body: str, options: LoadOptions,
                          diag: Diagnostics) -> tuple[float, Callable[[float], Moments]] | None:
    """(volume, mass -> principal moments about the shape origin), DART's formulas and quirks included."""
    if tag == "sphere":
        rad = d["radius"]

        def sphere(m: float) -> Moments:
            i = 0.4 * m * rad * rad
            return i, i, i

        return 4.0 / 3.0 * math.pi * rad * rad * rad, sphere
    if tag == "box":
        e = d["size"]
        return float(e[0]) * float(e[1]) * float(e[2]), lambda m: _box_moments(m, e)
    if tag == "ellipsoid":
        e = d["size"]
        return math.pi / 6.0 * (float(e[0]) * float(e[1]) * float(e[2])), lambda m: tuple(
            i * 12.0 / 20.0 for i in _box_moments(m, e))
    if tag == "cylinder":
        rad, h = d["radius"], d["height"]

        def cylinder(m: float) -> Moments:
            i = m * (3 * rad * rad + h * h) / 12.0
            return i, i, m * rad * rad / 2.0

        return math.pi * rad * rad * h, cylinder
    if tag == "capsule":
        rad, h = d["radius"], d["height"]
        v_cyl, v_sph = math.pi * rad * rad * h, 4.0 / 3.0 * math.pi * rad * rad * rad

        def capsule(m: float) -> Moments:
            total = v_cyl + v_sph
            mc, ms = (m * v_cyl / total, m * v_sph / total) if total > 0 else (0.0, 0.0)
            ixx = mc * (3 * rad * rad + h * h) / 12.0 + ms * (0.4 * rad * rad + h * h / 4.0 + 3.0 / 8.0 * h * rad)
            return ixx, ixx, mc * rad * rad / 2.0 + ms * 0.4 * rad * rad

        return v_cyl + v_sph, capsule
    if tag == "cone":
        rad, h = d["radius"], d["height"]

        def cone(m: float) -> Moments:
            i = 0.15 * m * (rad * rad + 2.0 / 3.0 * h * h)
            return i, i, 0.3 * m * rad * rad

        return math.pi * rad * rad * h / 3.0, cone
    if tag == "pyramid":
        diag.warn(f"body '{body}': the inertia of a pyramid shape is DART's placeholder (identity), as in dartpy")
        return d["width"] * d["depth"] * d["height"] / 3.0, lambda m: (1.0, 1.0, 1.0)
    if tag == "plane":
        return 1.0, lambda m: (0.0, 0.0, 0.0)  # dartpy 6.20 gives a plane unit volume and no inertia
    if tag == "multi_sphere":
        lo = np.min([p - rad for rad, p in d["spheres"]], axis=0)
        hi = np.max([p + rad for rad, p in d["spheres"]], axis=0)
        return 1.0, lambda m: _box_moments(m, hi - lo)  # unit volume, bounding-box inertia, as dartpy
    if tag == "mesh":
        e = _mesh_extents(d["filename"], d["scale"], options, diag, d["element"], body)
        if e is None:
            return None
        volume = float(np.prod(e))
        return (volume if volume > 0 else 1.0), lambda m: _box_moments(m, e)  # (dartpy: a flat mesh weighs as volume 1)
    return None


def _inertia_parts(shapes: list, body: str, options: LoadOptions, diag: Diagnostics) -> list[tuple]:
    """(pose, volume, mass -> inertia) of each shape that has a volume."""
    parts = []
    for tag, pose, data in shapes:
        vi = _shape_volume_inertia(tag, data, body, options, diag)
        if vi is not None:
            parts.append((pose, vi[0], vi[1]))
    return parts


def _shape_inertias(r: _SkelReader, pending: list[tuple]) -> None:
    """Bodies without <moment_of_inertia>: the mass is split over all shapes by volume, each shape's
    inertia is rotated to body axes and moved to the COM `offset` (dartpy 6.20's rule, not DART 6.12's).

    Every shape of every such body in one stacked computation (a dozen small numpy operations per
    shape, one by one, were a quarter of loading biped.skel); a body with no shape keeps DART's
    default moment, the identity.
    """
    owner: list[int] = []
    masses: list[float] = []
    poses: list[np.ndarray] = []
    moments: list[Moments] = []
    coms: list[np.ndarray] = []
    with np.errstate(over="ignore", invalid="ignore"):  # huge shapes: refused below, with the body named
        for k, (_, mass, com, parts, _) in enumerate(pending):
            total = sum(v for _, v, _ in parts)
            for pose, volume, inertia_of in parts:
                m = mass * volume / total if total > 0 else 0.0
                owner.append(k)
                masses.append(m)
                poses.append(pose)
                moments.append(inertia_of(m))
                coms.append(com)
        sums = np.zeros((len(pending), 3, 3))
        sums[:] = np.eye(3)
        if owner:
            t = np.array(poses)
            rot = t[:, :3, :3]
            d = t[:, :3, 3] - np.array(coms)
            m = np.array(masses)[:, None, None]
            about_shape = np.zeros((len(owner), 3, 3))
            about_shape[:, (0, 1, 2), (0, 1, 2)] = moments
            terms = rot @ about_shape @ rot.transpose(0, 2, 1) + m * (
                np.einsum("ij,ij->i", d, d)[:, None, None] * np.eye(3) - d[:, :, None] * d[:, None, :])
            with_parts = sorted(set(owner))
            sums[with_parts] = 0.0
            np.add.at(sums, owner, terms)
    finite = np.isfinite(sums).all(axis=(1, 2))
    for (link, mass, com, _, inertia_el), inertia, ok in zip(pending, sums, finite):
        if not ok:
            raise r.error(inertia_el, f"body '{link.name}': the moment of inertia computed from its shapes (it has no "
                                      "<moment_of_inertia>) is beyond the range of a double: the shapes are too "
                                      "large for its mass")
        link.inertia = _make_inertia(mass=mass, com=com, inertia=inertia)  # (a view into `sums`, one per body)


# -- joints -----------------------------------------------------------------------------------
def _joint(r: _SkelReader, el: etree._Element, bodies: Container[str], diag: Diagnostics, lost: list[str]) -> _Joint:
    """`bodies`: the names of the skeleton's bodies (a joint names its parent and child among them)."""
    name = r.required(el, "name")
    jtype = r.required(el, "type")
    if jtype not in JOINT_DOFS:
        raise r.error(el, f"unknown joint type '{jtype}' (expected one of {', '.join(JOINT_DOFS)})")
    ends = {}
    for end in ("parent", "child"):
        e = r.child(el, end)
        if e is None or not r.text(e):
            # (what DART refuses: an empty <parent> or <child>; it reads a joint without <parent>, and crashes on one
            # without <child> in some skeletons and reads it in others: judged by the reader's own rule)
            error = r.error if e is None else r.unparsable
            raise error(el, f"joint '{name}' has no <{end}> (the name of a body{' or world' if end == 'parent' else ''})")
        ends[end] = (r.text(e), e)
    parent, parent_el = ends["parent"]
    child, child_el = ends["child"]
    if parent == "world" and "world" not in bodies:
        parent_name: str | None = None
    else:
        parent_name = parent
        if parent not in bodies:
            raise r.error(parent_el, f"parent body '{parent}' of joint '{name}' does not exist")
    if child not in bodies:
        raise r.error(child_el, f"child body '{child}' of joint '{name}' does not exist")
    if parent_name == child:
        raise r.error(el, f"joint '{name}' has the same parent and child body '{child}'")
    n = JOINT_DOFS[jtype]
    joint = _Joint(name, jtype, el, parent_name, child, r.transformation(el), [_Dof() for _ in range(n)])
    actuator = el.get("actuator")
    if actuator is not None:
        actuator = actuator.strip()
        if actuator not in ACTUATORS:
            raise r.error(el, f"joint '{name}': unknown actuator '{actuator}' (expected one of {', '.join(ACTUATORS)})")
        joint.actuator = actuator
    _axes(r, el, joint, diag)
    _old_style_dofs(r, el, joint, diag)
    _init_values(r, el, joint, "init_pos", "initial")
    _init_values(r, el, joint, "init_vel", "init_vel")
    for dof_el in find_children(el, "dof"):
        _dof_element(r, dof_el, joint, lost)
    for i, dof in enumerate(joint.dofs):
        if dof.lower > dof.upper:  # (DART keeps such a DOF; no model can hold it)
            raise r.error(el, f"joint '{name}': DOF {i} has its lower position limit {dof.lower:g} above its upper "
                              f"limit {dof.upper:g}")
    return joint


def _axis(r: _SkelReader, el: etree._Element, tag: str, name: str, raw: bool = False,
          dart_needs: bool = False) -> np.ndarray:
    """A joint's direction. A missing `<axis>` DART reads as its default direction with an error message (refused
    here, the reader's own rule); `dart_needs`: DART crashes on it (a plane's translation axes). An `<axis>` without
    `<xyz>` DART refuses: unparsable, so that a skeleton not loaded refuses the file too."""
    axis_el = r.child(el, tag)
    if axis_el is None:
        if dart_needs:
            raise r.unparsable(el, f"joint '{name}' needs <{tag}><xyz> (DART crashes without it)")
        raise r.error(el, f"joint '{name}' needs <{tag}><xyz>")
    xyz_el = r.child(axis_el, "xyz")
    if xyz_el is None:
        raise r.unparsable(axis_el, f"missing <xyz> in <{tag}> of joint '{name}' (DART refuses it too)")
    xyz = r.text_numbers(xyz_el, 3)  # (floats: unit_vector reads a list's at a fraction of an array's cost)
    unit = unit_vector(xyz)
    if unit is None:
        raise r.error(xyz_el, f"joint '{name}': <{tag}> has zero length")
    return np.array(xyz) if raw else unit


def _plane_axes(r: _SkelReader, el: etree._Element, joint: _Joint, diag: Diagnostics | None = None) -> None:
    plane = r.child(el, "plane")
    ptype = "xy" if plane is None else (plane.get("type") or "").strip()
    if plane is None and diag is not None:
        diag.warn(f"line {el.sourceline}: {joint.type} joint '{joint.name}' has no <plane>: it moves in the xy plane "
                  "(DART's default, which DART warns about too)")
    fixed = {"xy": ((1, 0, 0), (0, 1, 0)), "yz": ((0, 1, 0), (0, 0, 1)), "zx": ((0, 0, 1), (1, 0, 0))}
    if ptype in fixed:
        t1, t2 = (np.array(a, dtype=float) for a in fixed[ptype])
    elif ptype == "arbitrary":
        t1 = _axis(r, plane, "translation_axis1", joint.name, dart_needs=True)
        t2 = _axis(r, plane, "translation_axis2", joint.name, dart_needs=True)
        t2 = unit_vector(t2 - (t2 @ t1) * t1)  # DART makes the second axis orthogonal to the first
        if t2 is None:
            raise r.error(plane, f"joint '{joint.name}': the two translation axes are parallel")
    else:
        raise r.error(plane, f"joint '{joint.name}': plane type '{ptype}' (expected xy, yz, zx or arbitrary)")
    joint.axes = [t1, t2, np.cross(t1, t2)]


def _axes(r: _SkelReader, el: etree._Element, joint: _Joint, diag: Diagnostics) -> None:
    t = joint.type
    if t in ("revolute", "prismatic", "screw"):
        joint.axes = [_axis(r, el, "axis", joint.name)]
        if t == "screw":
            axis_el = r.child(el, "axis")
            joint.pitch = r.number(axis_el, "pitch", 0.0)
    elif t == "universal":
        # DART keeps a universal joint's axes as written, and a non-unit axis gives it a non-finite
        # transform that it silently replaces by the identity; we normalise and say so
        raw = [_axis(r, el, "axis", joint.name, raw=True), _axis(r, el, "axis2", joint.name, raw=True)]
        joint.axes = [unit_vector(a) for a in raw]
        for tag, a in zip(("axis", "axis2"), raw):
            if abs(vector_norm(a) - 1.0) > 1e-9:
                diag.warn(f"line {r.child(el, tag).sourceline}: <{tag}> of universal joint '{joint.name}' is not a unit "
                          "vector: normalised (DART would leave the joint frozen at q = 0, with a warning)")
    elif t == "euler":
        order_el = r.child(el, "axis_order")
        order = r.text(order_el) if order_el is not None else ""
        if order not in ("xyz", "zyx"):  # (DART refuses a missing or empty one; reads another as its default)
            error = r.unparsable if order_el is None or not (order_el.text or "").strip() else r.error
            raise error(order_el if order_el is not None else el,
                        f"euler joint '{joint.name}' needs <axis_order> xyz or zyx, got '{order}'")
        ex, ey, ez = np.eye(3)
        joint.axes = [ex, ey, ez] if order == "xyz" else [ez, ey, ex]
    elif t == "translational":
        joint.axes = list(np.eye(3))
    elif t in ("planar", "translational2d"):
        _plane_axes(r, el, joint, diag)
        if t == "translational2d":
            joint.axes = joint.axes[:2]


def _old_style_dofs(r: _SkelReader, el: etree._Element, joint: _Joint, diag: Diagnostics) -> None:
    if joint.type in _NO_OLD_STYLE_AXES:  # (named as not read, as DART reads none of it)
        return
    for i, dof in enumerate(joint.dofs):
        tag = "axis" if i == 0 else f"axis{i + 1}"
        axis_el = r.child(el, tag)
        if axis_el is None:
            continue
        if r.child(axis_el, "damping") is not None:
            dof.damping = r.number(axis_el, "damping")
        dyn = r.child(axis_el, "dynamics")
        if dyn is not None:
            dof.damping = r.number(dyn, "damping", dof.damping)
            dof.friction = r.number(dyn, "friction", dof.friction)
            dof.spring_rest = r.number(dyn, "spring_rest_position", dof.spring_rest)
            dof.spring_stiffness = r.number(dyn, "spring_stiffness", dof.spring_stiffness)
        lim = r.child(axis_el, "limit")
        if lim is not None:
            dof.lower = r.number(lim, "lower", dof.lower)
            dof.upper = r.number(lim, "upper", dof.upper)


def _init_values(r: _SkelReader, el: etree._Element, joint: _Joint, tag: str, attr: str) -> None:
    e = r.child(el, tag)
    if e is None:
        return
    n = len(joint.dofs)
    if r.dart_numbers:  # (DART reads none of a weld joint's, one value of a joint of one DOF: '1 x' is 1)
        if n:
            values = _dart_values(e.text or "", n, scalar=n == 1)
            if values is None:
                raise r.unparsable(e, f"<{tag}> of {joint.type} joint '{joint.name}' is empty or holds no number "
                                      "DART reads (DART refuses it)")
            for dof, v in zip(joint.dofs, values):
                setattr(dof, attr, v)
        return
    values = r.text_numbers(e)
    if len(values) != n:  # (DART reads a count that differs, but no value at all: "has no text content")
        error = r.error if values else r.unparsable
        raise error(e, f"{joint.type} joint '{joint.name}' has {n} DOF, so <{tag}> needs {n} values, got {len(values)}")
    for dof, v in zip(joint.dofs, values):
        setattr(dof, attr, v)


def _dof_element(r: _SkelReader, el: etree._Element, joint: _Joint, lost: list[str]) -> None:
    n = len(joint.dofs)
    if el.get("local_index") is None:
        if n != 1:
            raise r.error(el, f"joint '{joint.name}' has {n} DOF: its <dof> elements need local_index")
        index = 0
    else:
        index = r.int_attr(el, "local_index")
        if not 0 <= index < n:
            raise r.error(el, f"local_index {index} is out of range for joint '{joint.name}' ({n} DOF)")
    dof = joint.dofs[index]
    if el.get("name"):
        dof.name = el.get("name").strip()
    for tag, lo, hi, init in (
        ("position", "lower", "upper", "initial"),
        ("velocity", "vel_lower", "vel_upper", "init_vel"),
        ("acceleration", "acc_lower", "acc_upper", None),
        ("force", "force_lower", "force_upper", None),
    ):
        e = r.child(el, tag)
        if e is None:
            continue
        setattr(dof, lo, r.float_attr(e, "lower", getattr(dof, lo)))
        setattr(dof, hi, r.float_attr(e, "upper", getattr(dof, hi)))
        if init is not None:
            setattr(dof, init, r.float_attr(e, "initial", getattr(dof, init)))
        elif e.get("initial") is not None:  # DART starts the joint with it (setAccelerations, setForces)
            lost.append(f"the initial {tag} {r.float_attr(e, 'initial'):g} of DOF {index} of joint '{joint.name}'")
    dof.damping = r.number(el, "damping", dof.damping)
    dof.friction = r.number(el, "friction", dof.friction)
    dof.spring_rest = r.number(el, "spring_rest_position", dof.spring_rest)
    dof.spring_stiffness = r.number(el, "spring_stiffness", dof.spring_stiffness)


# -- building the model -----------------------------------------------------------------------
@dataclass
class _Segment:
    kind: JointType
    axis: np.ndarray | None  # in the DART joint frame
    dof: int | None  # DART DOF index (1-DOF segments)
    name: str


def _segments(joint: _Joint) -> list[_Segment]:
    j, t = joint.name, joint.type
    R, P = JointType.REVOLUTE, JointType.PRISMATIC
    if t == "weld":
        return [_Segment(JointType.FIXED, None, None, j)]
    if t == "revolute":
        return [_Segment(R, joint.axes[0], 0, j)]
    if t == "prismatic":
        return [_Segment(P, joint.axes[0], 0, j)]
    if t == "screw":
        return [_Segment(P, joint.axes[0], None, f"{j}__translation"), _Segment(R, joint.axes[0], 0, j)]
    if t == "ball":
        return [_Segment(JointType.SPHERICAL, None, None, j)]
    if t in ("universal", "euler"):
        return [_Segment(R, a, i, f"{j}__{i}") for i, a in enumerate(joint.axes)]
    if t in ("translational", "translational2d"):
        return [_Segment(P, a, i, f"{j}__{i}") for i, a in enumerate(joint.axes)]
    if t == "planar":
        a = joint.axes
        return [_Segment(P, a[0], 0, f"{j}__0"), _Segment(P, a[1], 1, f"{j}__1"), _Segment(R, a[2], 2, f"{j}__2")]
    if t == "free":
        ex, ey, ez = np.eye(3)
        return [_Segment(P, ex, 3, f"{j}__3"), _Segment(P, ey, 4, f"{j}__4"), _Segment(P, ez, 5, f"{j}__5"),
                _Segment(JointType.SPHERICAL, None, None, f"{j}__rot")]
    raise AssertionError(t)


def _limits(dof: _Dof, joint: _Joint, what: str, lost: list[str]) -> Limits:
    lim = Limits()
    if math.isfinite(dof.lower) and math.isfinite(dof.upper):
        lim.has_position_limits, lim.min_position, lim.max_position = True, dof.lower, dof.upper
    elif math.isfinite(dof.lower) or math.isfinite(dof.upper):
        lost.append(f"one-sided position limit [{dof.lower:g}, {dof.upper:g}] of {what}")
    for kind, lo, hi in (("velocity", dof.vel_lower, dof.vel_upper), ("effort", dof.force_lower, dof.force_upper)):
        if not (math.isfinite(lo) or math.isfinite(hi)):
            continue
        bound = min(abs(lo), abs(hi))
        if math.isfinite(bound):
            if kind == "velocity":
                lim.has_velocity_limit, lim.velocity_limit = True, bound
            else:
                lim.has_effort_limit, lim.effort_limit = True, bound
        if lo != -hi:
            lost.append(f"asymmetric {kind} limits [{lo:g}, {hi:g}] of {what} (kept as +-{bound:g})")
    if math.isfinite(dof.acc_lower) or math.isfinite(dof.acc_upper):
        lost.append(f"acceleration limits of {what}")
    return lim


def _build(r: _SkelReader, model: Model, bodies: dict[str, _Body], joints: list[_Joint], diag: Diagnostics,
           lost: list[str]) -> None:
    world_joints = [j for j in joints if j.parent is None]
    floating = len(world_joints) == 1 and world_joints[0].type == "free"
    world_link = None
    if not floating:
        world_link = WORLD_LINK if WORLD_LINK not in bodies else "skel_world"
        model.add_link(Link(world_link))
    # links in joint-tree order so that the base comes first
    order: list[_Joint] = []
    children: dict[str | None, list[_Joint]] = {}
    for j in joints:
        children.setdefault(j.parent, []).append(j)
    stack = list(reversed(children.get(None, [])))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(children.get(j.child, [])))
    for j in order:
        model.add_link(bodies[j.child].link)
    used_names = set(bodies) | ({world_link} if world_link else set()) | {j.name for j in joints}
    skel_joints: dict[str, dict] = {}
    init: dict[str, object] = {}
    # each joint's frame in its parent body, and the child body in the joint frame, for all joints in
    # two stacked products (one small inverse and product per joint were a sixth of a load)
    poses = np.array([bodies[j.parent].pose if j.parent is not None else IDENTITY for j in order]
                     + [bodies[j.child].pose for j in order]).reshape(2, len(order), 4, 4)
    child_H_joints = np.array([j.child_H_joint for j in order]).reshape(len(order), 4, 4)
    with np.errstate(all="ignore"):  # bodies too far apart for a double: refused per joint below, with its line
        parent_H_joints = inverse(poses[0]) @ poses[1] @ child_H_joints
        joint_H_childs = inverse(child_H_joints)
    overflowed = (~np.isfinite(parent_H_joints).all(axis=(1, 2)) | ~np.isfinite(joint_H_childs).all(axis=(1, 2))).tolist()
    for n, j in enumerate(order):
        body = bodies[j.child]
        info = {"type": j.type, "parent": j.parent if j.parent is not None else "world", "child": j.child,
                "joints": [], "links": [], "dofs": [], "actuator": j.actuator}
        if j.implicit:
            info["implicit"] = True
        skel_joints[j.name] = info
        if j.actuator != "force":
            lost.append(f"actuator type '{j.actuator}' of joint '{j.name}'")
        if any(d.spring_stiffness != 0.0 for d in j.dofs):
            lost.append(f"joint springs of '{j.name}'")
        if any(d.init_vel != 0.0 for d in j.dofs):
            lost.append(f"initial velocity of joint '{j.name}'")
        if floating and j.parent is None:
            # the root free joint is the floating base: its pose is the body pose
            t_cj = j.child_H_joint
            q = [d.initial for d in j.dofs]
            with np.errstate(all="ignore"):  # beyond a double: refused just below, with the joint
                q_h = make_transform(rotation_vector_to_matrix(q[:3]), q[3:])
                initial = body.pose @ t_cj @ q_h @ inverse(t_cj)
                if not np.all(np.isfinite(initial)):  # the joint's offset may cancel (q = 0): compose it first
                    initial = body.pose @ (t_cj @ q_h @ inverse(t_cj))
            if not np.all(np.isfinite(initial)):
                raise r.error(j.el, f"the initial position of free joint '{j.name}' puts its body beyond the range "
                                    "of a double")
            model.default_base_link = j.child
            model.metadata["base_pose"] = body.pose.tolist()
            model.metadata["initial_base_pose"] = initial.tolist()
            model.metadata["floating_base_joint"] = j.name
            info["joints"] = []
            continue
        parent_name = j.parent if j.parent is not None else world_link
        parent_H_joint = parent_H_joints[n]
        if overflowed[n]:
            raise r.error(j.el, f"joint '{j.name}': its frame in the parent body is beyond the range of a double "
                                "(the two bodies, or the joint and its child, are too far apart)")
        segs = _segments(j)
        k = len(segs)
        links = [parent_name] + [f"{j.name}__link{i}" for i in range(1, k)] + [j.child]
        for name in links[1:-1] + [s.name for s in segs if s.name != j.name]:
            if name in used_names:
                raise r.error(j.el, f"joint '{j.name}' becomes a chain whose generated name '{name}' is already "
                                    "used by a body or joint")
            used_names.add(name)
        for link_name in links[1:-1]:
            model.links[link_name] = _make_link(name=link_name)  # massless, at the joint frame
        info["links"] = links[1:-1]
        dof_names: list[str | None] = [None] * len(j.dofs)
        for i, seg in enumerate(segs):
            t_p = parent_H_joint if i == 0 else IDENTITY
            t_c, c_inv = (j.child_H_joint, joint_H_childs[n]) if i == k - 1 else (IDENTITY, _IDENTITY_INVERSE)
            joint = _make_joint(name=seg.name, type=seg.kind, parent=links[i], child=links[i + 1],
                                rest_transform=t_p @ c_inv)
            rot_c = t_c[:3, :3]
            what = f"joint '{j.name}'" + (f" DOF {seg.dof}" if len(j.dofs) > 1 and seg.dof is not None else "")
            if seg.kind is JointType.REVOLUTE or seg.kind is JointType.PRISMATIC:
                joint.axis = rot_c @ seg.axis
                joint.axis_origin = t_c[:3, 3].copy()
                if seg.dof is None:  # the translation of a screw joint follows its rotation
                    joint.mimic = Mimic(j.name, j.pitch / (2.0 * math.pi), 0.0)
                else:
                    dof = j.dofs[seg.dof]
                    joint.limits = _limits(dof, j, what, lost)
                    if dof.damping or dof.friction:
                        joint.dynamics = Dynamics(dof.damping, dof.friction)
                    init[seg.name] = dof.initial
                    dof_names[seg.dof] = seg.name
            elif seg.kind is JointType.SPHERICAL:
                joint.center = t_p[:3, 3].copy()
                rot_dofs = j.dofs[:3]
                v = [d.initial for d in rot_dofs]
                rot_0 = rotation_vector_to_matrix(v)
                if not np.all(np.isfinite(rot_0)):
                    raise r.error(j.el, f"the initial rotation vector of {j.type} joint '{j.name}' is longer than "
                                        "the largest double")
                init[seg.name] = matrix_to_quat(rot_c @ rot_0 @ rot_c.T).tolist()
                for i3 in range(3):
                    dof_names[i3] = seg.name
                if any(math.isfinite(d.lower) or math.isfinite(d.upper) for d in rot_dofs):
                    lost.append(f"rotation limits of {j.type} joint '{j.name}'")
                if any(d.damping or d.friction for d in rot_dofs):
                    joint.dynamics = Dynamics(max(d.damping for d in rot_dofs), max(d.friction for d in rot_dofs))
                    if len({(d.damping, d.friction) for d in rot_dofs}) > 1:
                        lost.append(f"per-axis damping/friction of {j.type} joint '{j.name}'")
            model.add_joint(joint)
            info["joints"].append(seg.name)
        info["dofs"] = dof_names
        if j.type == "screw":
            info["pitch"] = j.pitch
            diag.warn(f"line {j.el.sourceline}: screw joint '{j.name}' became revolute '{j.name}' and prismatic "
                      f"'{j.name}__translation' that mimics it (pitch {j.pitch:g} per turn); DART drops this joint "
                      "and every later one")
        if j.type == "translational2d":
            diag.warn(f"line {j.el.sourceline}: translational2d joint '{j.name}' became two prismatic joints; DART "
                      "drops this joint and every later one")
    # markers: additional frames on their body
    for body in bodies.values():
        for mname, offset, line in body.markers:
            fname = mname
            if model.has_frame(fname) or fname in used_names:
                fname = f"{body.name}__{mname}"
                diag.warn(f"line {line}: marker '{mname}' has the name of a link or frame; its frame is '{fname}'")
            if model.has_frame(fname):
                raise r.error(body.el, f"marker '{mname}': frame name '{fname}' is already used")
            model.add_frame(Frame(fname, body.name, make_transform(None, offset)))
    if world_link is not None:
        model.default_base_link = world_link
    model.initial_configuration = init
    model.metadata["skel_joints"] = skel_joints
    if not floating:
        model.metadata["base_pose"] = np.eye(4).tolist()
        model.metadata["initial_base_pose"] = np.eye(4).tolist()


__all__ = ["detect", "load"]
