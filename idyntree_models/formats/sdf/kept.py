"""What an SDF model holds that the tree model has no field for, kept as `Extension`s of format "sdf".

SDF files carry much besides kinematics and inertia: plugins, a collision's contact `<surface>`, a
link's `<velocity_decay>` or `<self_collide>`, a joint's `<physics>` and springs, a sensor's update
rate, camera and noise.  A converter that drops them silently breaks the simulation the file was
written for.  Each child the reader does not turn into the model is kept verbatim where it was: its
owner (the model or a nested model, a link, a joint, a visual or collision, a sensor) and the path of
read elements leading to it.  The SDF writer puts them back; every other exporter names them in its
lost-elements warning (mesh_uris.report_lost_extensions).

The tables below say which children each reader reads, by element.  The readers look at each element
they read once (`look`), noting what they do not read; keep_unread makes extensions of the notes of what
reached the model (a shape without geometry or a gearbox joint was already named in a warning, with all
it holds).  A walk of the whole model with the same tables (`everything`) is what the tests compare the
notes with.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import numpy as np
from lxml import etree

from ...model.model import Extension, Model
from ...model.transforms import inverse, matrix_to_rpy
from ..base import Diagnostics
from ..common import INERTIA_KEYS, format_numbers
from ..xmlutil import find_child, fragment, shown_tag
from .document import IDYNTREE_NS, read_pose

if TYPE_CHECKING:
    from .frames import Scope
    from .reader import SdfGraph

# A table: (the child tags read, {read child tag: the table of that child}).
_Reads = tuple[frozenset[str], dict[str, "_Reads"]]

_MODEL: _Reads = (frozenset({"pose", "link", "joint", "frame", "model", "include"}), {})
# the top model's <static> is read, and a nested one's where its <include> has one (which applies instead); the
# top model's pose places it in a world, which the model has no field for: kept by _placement
_MODEL_STATIC: _Reads = (_MODEL[0] | {"static"}, {})
_INCLUDE: _Reads = (frozenset({"uri", "name", "pose", "placement_frame"}), {})  # <static>: the top's only
_TOP_INCLUDE: _Reads = (_INCLUDE[0] | {"static"}, {})
# what SDFormat does not merge from a merge-included model (frames.FrameGraph.merge names them in a warning)
NOT_MERGED = frozenset({"static", "self_collide", "enable_wind", "allow_auto_disable"})
_MERGED: _Reads = (_MODEL[0] | NOT_MERGED, {})

_SHAPES: dict[str, _Reads] = {
    "box": (frozenset({"size"}), {}),
    "sphere": (frozenset({"radius"}), {}),
    "cylinder": (frozenset({"radius", "length"}), {}),
    "capsule": (frozenset({"radius", "length"}), {}),
    "cone": (frozenset({"radius", "length"}), {}),
    "ellipsoid": (frozenset({"radii"}), {}),
    "mesh": (frozenset({"uri", "scale", "submesh"}), {}),  # <submesh>: named in a warning when read
}
_GEOMETRY: _Reads = (frozenset(_SHAPES), _SHAPES)
_MATERIAL: _Reads = (frozenset({"diffuse", "ambient"}), {})  # an <ambient> unlike <diffuse>: see _material
_VISUAL: _Reads = (frozenset({"pose", "geometry", "material"}), {"geometry": _GEOMETRY, "material": _MATERIAL})
# (a <density> is kept: the model holds the inertia computed from it, and the writer writes that one)
_COLLISION: _Reads = (frozenset({"pose", "geometry"}), {"geometry": _GEOMETRY})
_INERTIAL: _Reads = (frozenset({"pose", "mass", "inertia"}), {"inertia": (frozenset(INERTIA_KEYS), {})})
_LINK: _Reads = (frozenset({"pose", "inertial", "visual", "collision", "sensor"}), {"inertial": _INERTIAL})

OUR_MIMIC = f"{{{IDYNTREE_NS}}}mimic"  # what our writer writes for a mimic (SDF 1.9 has none)
_AXIS: _Reads = (
    frozenset({"xyz", "limit", "dynamics", "mimic", OUR_MIMIC, "use_parent_model_frame"}),
    {"limit": (frozenset({"lower", "upper", "effort", "velocity"}), {}),
     "dynamics": (frozenset({"damping", "friction"}), {}),
     "mimic": (frozenset({"multiplier", "offset"}), {}),
     OUR_MIMIC: (frozenset(), {})},  # (see write_kept)
)
_AXES: dict[tuple[bool, bool], _Reads] = {}


def axis_reads(dof: int, version: tuple[int, int]) -> _Reads:
    """What the reader reads of an axis.  <use_parent_model_frame> only in SDF 1.5 and 1.6 (where it exists).  A
    mimic is read whole of a split (universal, revolute2) joint: its two joints mimic nothing, which the reader
    says; kept, it would make the first of them a mimic joint when read back."""
    key = (dof == 1, (1, 5) <= version < (1, 7))
    reads = _AXES.get(key)
    if reads is None:
        drop = set() if key[1] else {"use_parent_model_frame"}
        deeper = {t: r for t, r in _AXIS[1].items() if key[0] or t not in ("mimic", OUR_MIMIC)}
        reads = _AXES[key] = (_AXIS[0] - drop, deeper)
    return reads


_JOINT_ENDS = frozenset({"pose", "parent", "child", "sensor"})
_JOINT_TAGS = {0: _JOINT_ENDS, 1: _JOINT_ENDS | {"axis"}, 2: _JOINT_ENDS | {"axis", "axis2"}}  # by DOF
# each joint type's degrees of freedom in SDF (a gearbox couples two other joints: no joint of the tree)
DOF = {"fixed": 0, "revolute": 1, "continuous": 1, "prismatic": 1, "screw": 1, "gearbox": 1, "ball": 0,
       "universal": 2, "revolute2": 2}
# (a universal joint's <axis2> goes to its second joint: see keep_unread)
_JOINT_BY_TYPE = {jtype: _JOINT_TAGS[dof] | ({"thread_pitch", "screw_thread_pitch"} if jtype == "screw" else set())
                  for jtype, dof in DOF.items()}


def _joint_reads(jtype: str, version: tuple[int, int]) -> _Reads:
    dof = DOF[jtype]
    axis = axis_reads(dof, version)
    return joint_tags(jtype), ({"axis": axis} if dof == 1 else {"axis": axis, "axis2": axis} if dof == 2 else {})


_FRAME: _Reads = (frozenset({"pose"}), {})
_SENSOR: _Reads = (frozenset({"pose"}), {})
_IMU: _Reads = (frozenset({"pose", f"{{{IDYNTREE_NS}}}kind"}), {})
_FORCE_TORQUE: _Reads = (frozenset({"pose", "force_torque"}),
                         {"force_torque": (frozenset({"frame", "measure_direction"}), {})})


# The children that may repeat, each looked at on its own, by the element holding them (elsewhere a second one of
# a tag is unread: a <frame> in a <force_torque> is a value).
_REPEATED: dict[str, frozenset[str]] = {
    "model": frozenset({"link", "joint", "frame", "model", "include"}),
    "link": frozenset({"visual", "collision", "sensor"}),
    "joint": frozenset({"sensor"}),
}
LINK_REPEATED, JOINT_REPEATED = _REPEATED["link"], _REPEATED["joint"]

# The attributes each read element's reader reads; any other attribute of it is kept (Extension.attributes).
_NAME = frozenset({"name"})
_ATTRIBUTES: dict[str, frozenset[str]] = {
    "model": frozenset({"name", "canonical_link", "placement_frame"}),
    "link": _NAME, "visual": _NAME, "collision": _NAME,
    "joint": frozenset({"name", "type"}),
    "sensor": frozenset({"name", "type"}),
    "frame": frozenset({"name", "attached_to"}),
    "pose": frozenset({"relative_to", "rotation_format", "degrees", "frame"}),  # (frame: 1.5/1.6 relative_to)
    "xyz": frozenset({"expressed_in"}),
    "include": frozenset({"merge"}),
    "inertial": frozenset({"auto"}),  # (the inertia computed is written)
    "mimic": frozenset({"joint"}),
    OUR_MIMIC: frozenset({"joint", "multiplier", "offset"}),
}
_NONE: frozenset[str] = frozenset()


def keep_unread(g: SdfGraph, model: Model, shape_elements: dict[str, list[etree._Element]], diag: Diagnostics,
                everything: bool = False) -> None:
    """Add to `model.extensions` every element of the SDF model the model has no field for.

    `shape_elements`: per link, the <visual> and <collision> elements that became its shapes, in the order of
    link.visuals then link.collisions (a dropped shape moves the index of those after it).  What the readers
    of links, joints, shapes and sensors noted unread (`g.unread`) is kept; with `everything`, all of them
    are walked instead (what the tests compare the notes with).  A second element of a tag read once (a
    second <damping>) is neither read (readers take the first) nor kept: one warning names them.
    """
    out: list[Extension] = model.extensions
    repeats: Counter[str] = Counter()
    for scope in g.scopes:
        if scope.empty:
            continue
        # (a merged model's content is the model's it is merged into: its prefix, its <plugin>s)
        top = scope.parent is None
        owner = scope.prefix or None
        _attributes(scope.el, _ATTRIBUTES["model"], "model", owner, (), None, out)  # (top: see _placement)
        overridden = scope.include_el is not None and find_child(scope.include_el, "static") is not None
        reads = _MERGED if scope.merged else _MODEL_STATIC if top or overridden else _MODEL
        _keep(scope.el, reads, "model", owner, (), None, out, repeats)
        if scope.include_el is not None:
            _attributes(scope.include_el, _ATTRIBUTES["include"], "model", owner, (), None, out)
            _keep(scope.include_el, _TOP_INCLUDE if top or scope.merged else _INCLUDE, "model", owner, (), None, out,
                  repeats)
        if top:
            base = model.default_base_link
            _placement(scope, g.links[base] if base in g.links else np.eye(4), out, diag, g.joints)
    notes = g.unread
    for name, (el, _) in g.link_elements.items():
        if name not in model.links:
            continue
        if everything:
            _attributes(el, _NAME, "link", name, (), None, out)
            _keep(el, _LINK, "link", name, (), None, out)
        elif el in notes:
            _from_notes(el, notes[el], "link", name, None, out, repeats)
        counts = {"visual": 0, "collision": 0}
        for shape_el in shape_elements.get(name, ()):
            kind = shape_el.tag
            if everything:
                _attributes(shape_el, _NAME, kind, name, (), counts[kind], out)
                _keep(shape_el, _VISUAL if kind == "visual" else _COLLISION, kind, name, (), counts[kind], out)
            elif shape_el in notes:
                _from_notes(shape_el, notes[shape_el], kind, name, counts[kind], out, repeats)
            counts[kind] += 1
    for j in g.joints.values():
        if j.type == "gearbox":
            continue  # named in a warning as not part of the model
        dof = DOF[j.type]
        mine: list[Extension] = []
        if everything:
            _attributes(j.el, _ATTRIBUTES["joint"], "joint", j.name, (), None, mine)
            _keep(j.el, _joint_reads(j.type, j.scope.version), "joint", j.name, (), None, mine)
        else:
            _from_notes(j.el, notes.get(j.el, ()), "joint", j.name, None, mine, repeats)
        for e in mine:
            if dof == 2 and ("mimic" in e.path or OUR_MIMIC in e.path):
                continue  # (a split joint's axis mimic, its attributes included, is read and ignored with a warning)
            if dof == 2 and e.path[:1] == ("axis2",):
                # what a universal joint's <axis2> held goes to its second joint, written with a plain <axis>
                e = Extension("sdf", e.tag, e.xml, "joint", f"{j.name}_axis2", path=("axis",) + e.path[1:],
                              attributes=e.attributes)
            out.append(e)
    for name, el in g.frame_elements.items():
        if name not in model.frames:
            continue
        if everything:
            _attributes(el, _ATTRIBUTES["frame"], "frame", name, (), None, out)
            _keep(el, _FRAME, "frame", name, (), None, out, repeats)
        elif el in notes:
            _from_notes(el, notes[el], "frame", name, None, out, repeats)
    for s in g.sensors:
        owner = s.model_name  # (an IMU made two sensors: its accelerometer's name)
        if owner is None or owner not in model.sensors:
            continue  # named in a warning as ignored
        if not everything:
            _from_notes(s.el, notes.get(s.el, ()), "sensor", owner, None, out, repeats)
            continue
        _attributes(s.el, _ATTRIBUTES["sensor"], "sensor", owner, (), None, out)
        reads = _FORCE_TORQUE if s.type == "force_torque" else _IMU if s.type == "imu" else _SENSOR
        _keep(s.el, reads, "sensor", owner, (), None, out)
    if repeats:
        shown = ", ".join(f"{n} {what}" if n > 1 else what for what, n in repeats.most_common(10))
        diag.warn(f"{sum(repeats.values())} repeated element(s) are not read (readers take the first of each, as "
                  f"libsdformat does) and not kept: {shown}{' ...' if len(repeats) > 10 else ''}")


# -- what the readers see as they read ----------------------------------------------------------------------
# The readers look at each element they read once, through `look`: the first child of each tag (what they
# read, instead of a search per tag) and what there is unread, noted by path for the owner (kept in
# `SdfGraph.unread` by the owner's element).  keep_unread makes the extensions of those notes: walking every
# link, joint, shape and sensor again would cost a tenth of an SDF load, and most hold nothing unread.  (The
# walk, `everything`, stays as what the tests compare the notes with.)
LINK_TAGS = _LINK[0]
INERTIAL_TAGS = _INERTIAL[0]
INERTIA_TAGS = _INERTIAL[1]["inertia"][0]
VISUAL_TAGS = _VISUAL[0]
COLLISION_TAGS = _COLLISION[0]
MATERIAL_TAGS = _MATERIAL[0]
SHAPE_TAGS = {kind: reads[0] for kind, reads in _SHAPES.items()}
AXIS_VALUE_TAGS = {tag: reads[0] for tag, reads in _AXIS[1].items()}
FORCE_TORQUE_TAGS = _FORCE_TORQUE[1]["force_torque"][0]
SENSOR_TAGS = {"imu": _IMU[0], "force_torque": _FORCE_TORQUE[0]}  # other types: OTHER_SENSOR_TAGS
OTHER_SENSOR_TAGS = _SENSOR[0]
FRAME_TAGS = _FRAME[0]
ATTRIBUTES = _ATTRIBUTES

# An unread item: (element, None) for an element kept whole, (element, attributes read) for the other
# attributes of an element that is read, (element, REPEATED) for a second element of a tag that is read once.
REPEATED = "repeated"
Unread = list[tuple[etree._Element, "frozenset[str] | str | None"]]


def joint_tags(jtype: str) -> frozenset[str]:
    return _JOINT_BY_TYPE.get(jtype, _JOINT_ENDS)


def look(el: etree._Element, tags: frozenset[str], path: tuple[str, ...], notes: list,
         attributes: frozenset[str] = _NONE, many: dict[str, list[etree._Element]] | None = None,
         repeated: frozenset[str] = _NONE) -> dict[str, etree._Element]:
    """The first child of each tag of an element read at `path` in its owner (() for the owner itself).

    What is not read there is noted in `notes` (at `path`): a child whose tag is not in `tags` or that is not
    the first of its tag, the attributes of a child not in `ATTRIBUTES`, and for the owner its own attributes
    not in `attributes` (an element inside has its attributes looked at by the look at its parent).  The tags
    in `repeated` (a link's shapes and sensors) may repeat, each looked at on its own: they go to `many`."""
    first: dict[str, etree._Element] = {}
    unread: Unread = []
    for c in el:
        tag = c.tag
        if tag in repeated:
            if many is not None:
                many.setdefault(tag, []).append(c)
        elif tag in first:
            if tag in tags:
                unread.append((c, REPEATED))  # (readers take the first: named in a warning, not kept)
            elif isinstance(tag, str):
                unread.append((c, None))
        elif tag not in tags:
            first[tag] = c
            if isinstance(tag, str):  # (not a comment)
                unread.append((c, None))
        else:
            first[tag] = c
            if c.keys():
                read = _ATTRIBUTES.get(tag, _NONE)
                if not read.issuperset(c.keys()):
                    unread.append((c, read))
    if unread:
        notes.append((path, unread))
    if not path and el.keys() and not attributes.issuperset(el.keys()):
        notes.append(((), [(el, attributes)]))
    return first


def _from_notes(owner_el: etree._Element, notes: list, owner_kind: str, owner: str, index: int | None,
                out: list[Extension], repeats: Counter[str]) -> None:
    for path, items in notes:
        for el, read in items:
            if read is None:
                out.append(_extension(el, owner_kind, owner, path, index))
            elif read is REPEATED:
                repeats[_repeat(el, path, owner_kind, owner, index)] += 1
            else:
                _attributes(el, read, owner_kind, owner, path if el is owner_el else path + (el.tag,), index, out)


def _repeat(el: etree._Element, path: tuple[str, ...], owner_kind: str, owner: str | None,
            index: int | None = None) -> str:
    where = "".join(f" in <{t}>" for t in reversed(path))
    if owner is None:
        return f"<{shown_tag(el)}>{where} of the model"
    if index is not None:  # (a shape: by its place among the link's)
        return f"<{shown_tag(el)}>{where} of {owner_kind} {index} of link '{owner}'"
    return f"<{shown_tag(el)}>{where} of {owner_kind} '{owner}'"


# the top model's placement in a world is no part of the model: its pose (not zero, or with a placement frame)
# and placement frame are kept, from the model or from the <include> that placed it in the world
def _placement(scope: Scope, model_H_base: np.ndarray, out: list[Extension], diag: Diagnostics,
               joints: dict) -> None:
    """The pose places the model frame (or its placement frame) in the world.  The model frame written is the
    base link's: without a placement frame, the pose kept is composed with the base's pose in the model read."""
    inc = scope.include_el
    pose = find_child(inc, "pose") if inc is not None else None
    r, version = scope.r, scope.version
    if pose is not None and scope.include_reader is not None:
        r, version = scope.include_reader  # (read as the world that includes it reads it)
    elif pose is None:
        pose = find_child(scope.el, "pose")
    if pose is not None:
        world_H, rel = read_pose(r, pose, version)
    elif (scope.el.get("placement_frame") or "").strip():  # (libsdformat: the placement frame at the world's origin)
        world_H, rel = np.eye(4), None
    else:
        return
    if rel not in (None, "world"):
        diag.warn(f"{diag.at(pose)}: the model's pose in its world is relative to '{rel}', another part of "
                  "the world: it is not part of the model and is not written")
        return
    # (an include's <placement_frame> overrides the model's own)
    placement = (scope.placement if inc is not None and scope.placement else
                 (scope.el.get("placement_frame") or "").strip())
    if placement == "__model__":  # (the model frame placed is no placement: the writer writes the base link's)
        placement = ""
    joint = joints.get(placement)
    if joint is not None:  # (the writer writes a joint's frame at its child link, not where the file put it)
        diag.warn(f"{diag.at(scope.el)}: the model's placement_frame '{placement}' is a joint, whose frame the "
                  "writer does not write as read: written as the pose it gives the model instead")
        world_H = world_H @ inverse(joint.model_H_joint)
        placement = ""
    if not placement:
        world_H = world_H @ model_H_base
    text = format_numbers(list(world_H[:3, 3]) + list(matrix_to_rpy(world_H[:3, :3])), "the pose of the model")
    if placement or any(float(v) != 0.0 for v in text.split()):
        out.append(Extension("sdf", "pose", f"<pose>{text}</pose>", "model", None))
    if placement:
        out.append(Extension("sdf", "model", etree.tostring(etree.Element("model", placement_frame=placement),
                                                            encoding="unicode"), "model", None, attributes=True))


def _attributes(el: etree._Element, read: frozenset[str], owner_kind: str, owner: str | None,
                path: tuple[str, ...], index: int | None, out: list[Extension]) -> None:
    """Keep the attributes of `el` (at `path` in its owner) that are not in `read`."""
    if read.issuperset(el.keys()):
        return
    extra = [(k, v) for k, v in el.items() if k not in read]
    uris = {k[1:k.index("}")] for k, _ in extra if k[0] == "{"}
    if el.tag[0] == "{":
        uris.add(el.tag[1:el.tag.index("}")])
    held = etree.Element(el.tag, nsmap={p: u for p, u in el.nsmap.items() if u in uris and p} or None)
    for k, v in extra:
        held.set(k, v)
    out.append(Extension("sdf", shown_tag(el), etree.tostring(held, encoding="unicode"), owner_kind, owner,
                         index=index, path=path, attributes=True))


def _keep(el: etree._Element, reads: _Reads, owner_kind: str, owner: str | None, path: tuple[str, ...],
          index: int | None, out: list[Extension], repeats: Counter[str] | None = None) -> None:
    """Keep the children of `el` that `reads` does not read, and look the same way into those it reads (a second
    child of a tag read once is counted in `repeats`)."""
    tags, deeper = reads
    repeated = _REPEATED.get(el.tag, _NONE) if not path else _NONE
    if reads is _GEOMETRY:  # only the first shape is read
        first = next((c for c in el if isinstance(c.tag, str)), None)
        tags = frozenset({first.tag}) & tags if first is not None else _NONE
    seen: set[str] = set()
    for c in el:
        tag = c.tag
        if tag in tags:
            if tag in repeated:
                continue
            if tag in seen:  # a second <pose> or <limit> is not read (readers take the first), nor kept
                if repeats is not None:
                    repeats[_repeat(c, path, owner_kind, owner, index)] += 1
                continue
            seen.add(tag)
            if c.keys():
                _attributes(c, _ATTRIBUTES.get(tag, _NONE), owner_kind, owner, path + (tag,), index, out)
            sub = deeper.get(tag)
            if sub is not None:
                _keep(c, sub, owner_kind, owner, path + (tag,), index, out, repeats)
            continue
        if isinstance(tag, str):  # (not a comment or processing instruction)
            out.append(_extension(c, owner_kind, owner, path, index))
    if reads is _MATERIAL:
        _material(el, owner_kind, owner, path, index, out)


def _material(mat: etree._Element, owner_kind: str, owner: str | None, path: tuple[str, ...], index: int | None,
              out: list[Extension]) -> None:
    ambient = find_child(mat, "ambient")
    if own_ambient(ambient, find_child(mat, "diffuse")):
        out.append(_extension(ambient, owner_kind, owner, path, index))


def own_ambient(ambient: etree._Element | None, diffuse: etree._Element | None) -> bool:
    """Whether a material's <ambient> is kept: the model's colour is <diffuse> (else <ambient>), and the writer
    writes it as both, so an <ambient> unlike <diffuse> is the file's own (it replaces the written one)."""
    return (diffuse is not None and ambient is not None
            and (ambient.text or "").split() != (diffuse.text or "").split())


def _extension(el: etree._Element, owner_kind: str, owner: str | None, path: tuple[str, ...],
               index: int | None) -> Extension:
    xml = etree.tostring(el, encoding="unicode", with_tail=False)
    if " xmlns" in xml[:xml.find(">")]:
        xml = _own_namespaces(xml)
    return Extension("sdf", shown_tag(el), xml, owner_kind, owner, index=index, path=path)


def _own_namespaces(xml: str) -> str:
    """Serialised alone, an element declares every namespace declared above it (our own SDF declares idyntree on
    <sdf>): only those it uses are kept, so that the same element reads back the same."""
    el = fragment(xml)
    etree.cleanup_namespaces(el)
    return etree.tostring(el, encoding="unicode")


# -- writing back -----------------------------------------------------------------------------------------
def write_kept(model: Model, top: etree._Element, scopes: dict[str, etree._Element], links: dict[str, etree._Element],
               joints: dict[str, etree._Element], sensors: dict[str, etree._Element], frames: dict[str, etree._Element],
               diag: Diagnostics) -> None:
    """Put the kept SDF elements back where they were: in the written model (`top`), nested model (`scopes`, by
    name), link, joint, shape, sensor (`sensors`: by model sensor name, an IMU by its accelerometer's) or frame."""
    orphans: Counter[str] = Counter()
    placed: set[etree._Element] = set()
    converted: list[etree._Element] = []
    for e in model.extensions:
        if e.format != "sdf":
            continue
        parent = _owner(e, top, scopes, links, joints, sensors, frames)
        for tag in e.path:
            if parent is None:
                break
            if tag in _WRITTEN_AS:  # (a 1.11 <mimic> is written as our own element, which readers need whole)
                parent = find_child(parent, _WRITTEN_AS[tag])
            else:
                parent = _child_or_made(parent, tag)
        if parent is None:
            where = "".join(f" in <{_shown_tag(t)}>" for t in reversed(e.path))
            orphans[f"<{e.tag}>{where} of {e.owner_kind} '{e.owner}'"] += 1
            continue
        el = fragment(e.xml)
        if e.attributes:
            for key, value in el.items():
                if key == "placement_frame" and not _resolves(parent, value):
                    orphans[f"placement_frame '{value}' of the model (it names no written frame)"] += 1
                elif parent.get(key) is None:  # never one the writer wrote (only unread ones are kept)
                    parent.set(key, value)
            continue
        same = find_child(parent, "ambient") if el.tag == "ambient" and e.path[-1:] == ("material",) else None
        if same is not None and same not in placed:  # (unlike <diffuse>: the writer wrote the colour as both)
            parent.replace(same, el)
        else:
            parent.append(el)
        placed.add(el)
        if e.tag != "plugin" and e.tag[0] != "{" and ":" not in e.tag and not (e.owner_kind == "model" and
                                                                                   e.owner is None and e.tag == "pose"):
            converted.append(el)  # (not a plugin, another namespace's, or the world pose written in 1.9 form)
    version = model.metadata.get("sdf_version")
    v = tuple(int(x) for x in version.split(".")) if version else (1, 9)
    if converted and v < (1, 7):  # (libsdformat's conversions to 1.7 change such elements; later ones do not)
        diag.warn(f"{len(converted)} kept SDF element(s) read from SDF {version} are written as they are into SDF "
                  "1.9: libsdformat converts elements whose form changed between versions (an IMU's <noise> before "
                  "1.6, a <pose frame=> before 1.7) only in files of the version they were written for")
    elif converted and v > (1, 9):
        diag.warn(f"{len(converted)} kept SDF element(s) read from SDF {version} are written as they are into SDF "
                  "1.9: an element newer than 1.9 is unknown to SDF 1.9 readers")
    if orphans:
        shown = ", ".join(f"{n} {what}" if n > 1 else what for what, n in orphans.most_common(10))
        diag.warn(f"{sum(orphans.values())} kept SDF element(s) are not written, where they were not being written: "
                  f"{shown}{' ...' if len(orphans) > 10 else ''}")


_WRITTEN_AS = {"mimic": OUR_MIMIC, OUR_MIMIC: OUR_MIMIC}


def _shown_tag(tag: str) -> str:
    return "idyntree:" + tag.split("}")[1] if tag.startswith(f"{{{IDYNTREE_NS}}}") else tag


def _owner(e: Extension, top: etree._Element, scopes: dict[str, etree._Element], links: dict[str, etree._Element],
           joints: dict[str, etree._Element], sensors: dict[str, etree._Element],
           frames: dict[str, etree._Element]) -> etree._Element | None:
    kind = e.owner_kind
    if kind == "model":
        return top if e.owner is None else scopes.get(e.owner)
    if kind == "link":
        return links.get(e.owner)
    if kind == "joint":
        return joints.get(e.owner)
    if kind == "sensor":
        return sensors.get(e.owner)
    if kind == "frame":
        return frames.get(e.owner)
    le = links.get(e.owner)
    if le is None or e.index is None:
        return None
    shapes = [c for c in le if c.tag == kind]
    return shapes[e.index] if e.index < len(shapes) else None


def _resolves(model: etree._Element, ref: str) -> bool:
    """Whether a frame reference of a written model names one of its links, joints, frames or nested models (the
    reader refuses a placement frame that does not)."""
    *scopes, last = ref.split("::")
    for name in scopes:
        model = next((c for c in model if c.tag == "model" and c.get("name") == name), None)
        if model is None:
            return False
    return any(c.tag in ("link", "joint", "frame", "model") and c.get("name") == last for c in model)


def _child_or_made(parent: etree._Element, tag: str) -> etree._Element:
    c = find_child(parent, tag)
    return c if c is not None else etree.SubElement(parent, tag)


__all__ = ["keep_unread", "write_kept"]
