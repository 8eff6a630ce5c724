"""What an SDF model holds that the tree model has no field for, kept as `Extension`s of format "sdf".

SDF files carry much besides kinematics and inertia: plugins, a collision's contact `<surface>`, a
link's `<velocity_decay>` or `<self_collide>`, a joint's `<physics>` and springs, a sensor's update
rate, camera and noise.  A converter that drops them silently breaks the simulation the file was
written for.  Each child the reader does not turn into the model is kept verbatim where it was: its
owner (the model or a nested model, a link, a joint, a visual or collision, a sensor) and the path of
read elements leading to it.  The SDF writer puts them back; every other exporter names them in its
lost-elements warning (mesh_uris.report_lost_extensions).

The tables below say which children each reader reads, by element.  They are walked after the model
is made, so that only what reached the model is kept (a shape without geometry or a gearbox joint
was already named in a warning, with all it holds).
"""

from __future__ import annotations

from collections import Counter

from lxml import etree

from ...model.model import Extension, Model
from ..base import Diagnostics
from ..common import INERTIA_KEYS
from ..xmlutil import fragment
from .document import IDYNTREE_NS
from .frames import Scope
from .reader import SdfGraph

# A table: (the child tags read, {read child tag: the table of that child}).
_Reads = tuple[frozenset[str], dict[str, "_Reads"]]

_MODEL: _Reads = (frozenset({"pose", "link", "joint", "frame", "model", "include"}), {})
# (the top model's pose places it in a world, which the model has no field for: kept when not zero)
_TOP_MODEL: _Reads = (frozenset({"pose", "link", "joint", "frame", "model", "include", "static"}), {})
_INCLUDE: _Reads = (frozenset({"uri", "name", "pose", "placement_frame"}), {})  # <static>: the top's only
_TOP_INCLUDE: _Reads = (_INCLUDE[0] | {"static"}, {})

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

_AXIS: _Reads = (
    frozenset({"xyz", "limit", "dynamics", "mimic", f"{{{IDYNTREE_NS}}}mimic", "use_parent_model_frame"}),
    {"limit": (frozenset({"lower", "upper", "effort", "velocity"}), {}),
     "dynamics": (frozenset({"damping", "friction"}), {}),
     "mimic": (frozenset({"multiplier", "offset"}), {})},
)
_JOINT_ENDS = frozenset({"pose", "parent", "child", "sensor"})
_JOINT: dict[int, _Reads] = {  # by degrees of freedom
    0: (_JOINT_ENDS, {}),
    1: (_JOINT_ENDS | {"axis", "thread_pitch", "screw_thread_pitch"}, {"axis": _AXIS}),
    2: (_JOINT_ENDS | {"axis", "axis2"}, {"axis": _AXIS}),  # axis2 goes to the second joint of the split
}
_DOF = {"fixed": 0, "ball": 0, "revolute": 1, "continuous": 1, "prismatic": 1, "screw": 1, "universal": 2,
        "revolute2": 2}

_SENSOR: _Reads = (frozenset({"pose"}), {})
_IMU: _Reads = (frozenset({"pose", f"{{{IDYNTREE_NS}}}kind"}), {})
_FORCE_TORQUE: _Reads = (frozenset({"pose", "force_torque"}),
                         {"force_torque": (frozenset({"frame", "measure_direction"}), {})})


_REPEATED = frozenset({"link", "joint", "frame", "model", "include", "visual", "collision", "sensor"})

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
    f"{{{IDYNTREE_NS}}}mimic": frozenset({"joint", "multiplier", "offset"}),
}
_NONE: frozenset[str] = frozenset()


def keep_unread(g: SdfGraph, model: Model, shape_elements: dict[str, list[etree._Element]]) -> None:
    """Add to `model.extensions` every element of the SDF model the model has no field for.

    `shape_elements`: per link, the <visual> and <collision> elements that became its shapes, in the order of
    link.visuals then link.collisions (a dropped shape moves the index of those after it).
    """
    out: list[Extension] = model.extensions
    for scope in g.scopes:
        if scope.empty:
            continue
        top = scope.parent is None
        owner = None if top else scope.prefix
        _attributes(scope.el, _TOP_MODEL_ATTRIBUTES if top else _ATTRIBUTES["model"], "model", owner, (), None, out)
        _keep(scope.el, _TOP_MODEL if top else _MODEL, "model", owner, (), None, out)
        if scope.include_el is not None:
            _attributes(scope.include_el, _ATTRIBUTES["include"], "model", owner, (), None, out)
            _keep(scope.include_el, _TOP_INCLUDE if top else _INCLUDE, "model", owner, (), None, out)
        if top:
            _placement(scope, out)
    for name, (el, _) in g.link_elements.items():
        if name not in model.links:
            continue
        _attributes(el, _NAME, "link", name, (), None, out)
        _keep(el, _LINK, "link", name, (), None, out)
        counts = {"visual": 0, "collision": 0}
        for shape_el in shape_elements.get(name, ()):
            kind = shape_el.tag
            _attributes(shape_el, _NAME, kind, name, (), counts[kind], out)
            _keep(shape_el, _VISUAL if kind == "visual" else _COLLISION, kind, name, (), counts[kind], out)
            counts[kind] += 1
    for j in g.joints.values():
        if j.type == "gearbox" or j.type not in _DOF:
            continue  # named in a warning as not part of the model
        dof = _DOF[j.type]
        _attributes(j.el, _ATTRIBUTES["joint"], "joint", j.name, (), None, out)
        _keep(j.el, _JOINT[dof], "joint", j.name, (), None, out)
        if dof == 2:  # the split's second joint, written with a plain <axis>, holds what <axis2> held
            axis2 = _first(j.el, "axis2")
            if axis2 is not None:
                _attributes(axis2, _NONE, "joint", f"{j.name}_axis2", ("axis",), None, out)
                _keep(axis2, _AXIS, "joint", f"{j.name}_axis2", ("axis",), None, out)
    for s in g.sensors:
        if s.name not in model.sensors and f"{s.name}_acc" not in model.sensors:
            continue  # named in a warning as ignored
        _attributes(s.el, _ATTRIBUTES["sensor"], "sensor", s.name, (), None, out)
        reads = _FORCE_TORQUE if s.type == "force_torque" else _IMU if s.type == "imu" else _SENSOR
        _keep(s.el, reads, "sensor", s.name, (), None, out)


# the top model's placement in a world is no part of the model: its pose (not zero, or with a placement frame)
# and placement frame are kept, from the model or from the <include> that placed it in the world
_TOP_MODEL_ATTRIBUTES = frozenset({"name", "canonical_link", "placement_frame"})  # (see _placement)


def _placement(scope: Scope, out: list[Extension]) -> None:
    inc = scope.include_el
    pose = _first(inc, "pose") if inc is not None else None
    if pose is None:
        pose = _first(scope.el, "pose")
    placement = (scope.el.get("placement_frame") or "").strip() or (scope.placement or "")
    if pose is None or pose.get("relative_to") or pose.get("frame"):
        return  # placed relative to another part of the world: named with the world
    if placement or _nonzero(pose):
        out.append(_extension(pose, "model", None, (), None))
    if placement:
        out.append(Extension("sdf", "model", etree.tostring(etree.Element("model", placement_frame=placement),
                                                            encoding="unicode"), "model", None, attributes=True))


def _attributes(el: etree._Element, read: frozenset[str], owner_kind: str, owner: str | None,
                path: tuple[str, ...], index: int | None, out: list[Extension]) -> None:
    """Keep the attributes of `el` (at `path` in its owner) that are not in `read`."""
    if len(el.attrib) <= len(read) and all(k in read for k in el.attrib):
        return
    extra = [(k, v) for k, v in el.items() if k not in read]
    uris = {k[1:k.index("}")] for k, _ in extra if k[0] == "{"}
    held = etree.Element(el.tag, nsmap={p: u for p, u in el.nsmap.items() if u in uris and p} or None)
    for k, v in extra:
        held.set(k, v)
    out.append(Extension("sdf", _shown(el), etree.tostring(held, encoding="unicode"), owner_kind, owner,
                         index=index, path=path, attributes=True))


def _keep(el: etree._Element, reads: _Reads, owner_kind: str, owner: str | None, path: tuple[str, ...],
          index: int | None, out: list[Extension]) -> None:
    """Keep the children of `el` that `reads` does not read, and look the same way into those it reads.

    A table without deeper tables (a value holder: <inertia>, <limit>, a shape) is looked into here rather
    than by a call (a third of the calls, on an SDF load's budget)."""
    tags, deeper = reads
    seen: set[str] = set()
    for c in el:
        tag = c.tag
        if tag in tags:
            if tag in _REPEATED:
                continue
            if tag not in seen:  # a second <pose> or <limit> is not read: readers take the first
                seen.add(tag)
                if c.attrib:
                    _attributes(c, _ATTRIBUTES.get(tag, _NONE), owner_kind, owner, path + (tag,), index, out)
                sub = deeper.get(tag) if deeper else None
                if sub is None:
                    continue
                if sub[1] or sub is _MATERIAL:
                    _keep(c, sub, owner_kind, owner, path + (tag,), index, out)
                    continue
                values, got = sub[0], set()
                for v in c:
                    vtag = v.tag
                    if vtag in values and vtag not in got:
                        got.add(vtag)
                        if v.attrib:
                            _attributes(v, _ATTRIBUTES.get(vtag, _NONE), owner_kind, owner, path + (tag, vtag), index,
                                        out)
                    elif isinstance(vtag, str):
                        out.append(_extension(v, owner_kind, owner, path + (tag,), index))
                continue
        elif not isinstance(tag, str):
            continue  # a comment or processing instruction
        out.append(_extension(c, owner_kind, owner, path, index))
    if reads is _MATERIAL:
        _material(el, owner_kind, owner, path, index, out)


def _material(mat: etree._Element, owner_kind: str, owner: str | None, path: tuple[str, ...], index: int | None,
              out: list[Extension]) -> None:
    """The model's colour is <diffuse> (else <ambient>), and the writer writes it as both: an <ambient> that
    differs from <diffuse> is kept (it replaces the written one)."""
    diffuse, ambient = _first(mat, "diffuse"), _first(mat, "ambient")
    if diffuse is not None and ambient is not None and (ambient.text or "").split() != (diffuse.text or "").split():
        out.append(_extension(ambient, owner_kind, owner, path, index))


def _first(el: etree._Element, tag: str) -> etree._Element | None:
    for c in el:
        if c.tag == tag:
            return c
    return None


def _nonzero(pose: etree._Element) -> bool:
    try:
        return any(float(v) != 0.0 for v in (pose.text or "").split()) or pose.get("rotation_format") is not None
    except ValueError:
        return True


def _extension(el: etree._Element, owner_kind: str, owner: str | None, path: tuple[str, ...],
               index: int | None) -> Extension:
    xml = etree.tostring(el, encoding="unicode", with_tail=False)
    if " xmlns" in xml[:xml.find(">")]:
        xml = _own_namespaces(xml)
    return Extension("sdf", _shown(el), xml, owner_kind, owner, index=index, path=path)


def _own_namespaces(xml: str) -> str:
    """Serialised alone, an element declares every namespace declared above it (our own SDF declares idyntree on
    <sdf>): only those it uses are kept, so that the same element reads back the same."""
    el = fragment(xml)
    etree.cleanup_namespaces(el)
    return etree.tostring(el, encoding="unicode")


def _shown(el: etree._Element) -> str:
    if el.tag[0] != "{":
        return el.tag
    q = etree.QName(el)
    return f"{el.prefix}:{q.localname}" if el.prefix else q.localname


# -- writing back -----------------------------------------------------------------------------------------
def write_kept(model: Model, top: etree._Element, scopes: dict[str, etree._Element], links: dict[str, etree._Element],
               joints: dict[str, etree._Element], sensors: dict[str, etree._Element], diag: Diagnostics) -> None:
    """Put the kept SDF elements back where they were: in the written model (`top`), nested model (`scopes`, by
    name), link, joint, shape or sensor (`sensors`: by the name the SDF sensor had, an IMU's pair by its base)."""
    orphans: Counter[str] = Counter()
    for e in model.extensions:
        if e.format != "sdf":
            continue
        parent = _owner(e, top, scopes, links, joints, sensors)
        if parent is None:
            orphans[f"<{e.tag}> of {e.owner_kind} '{e.owner}'"] += 1
            continue
        for tag in e.path:
            parent = _child_or_made(parent, tag)
        el = fragment(e.xml)
        if e.attributes:
            for key, value in el.items():
                if key == "placement_frame" and not _resolves(parent, value):
                    orphans[f"placement_frame '{value}' of the model (it names no written frame)"] += 1
                elif parent.get(key) is None:  # never one the writer wrote (only unread ones are kept)
                    parent.set(key, value)
            continue
        same = _first(parent, el.tag) if e.path[-1:] == ("material",) else None
        if same is not None:  # an <ambient> unlike <diffuse>: the writer wrote the model's colour as both
            parent.replace(same, el)
        else:
            parent.append(el)
        etree.cleanup_namespaces(el)
    if orphans:
        shown = ", ".join(f"{n} {what}" if n > 1 else what for what, n in orphans.most_common(10))
        diag.warn(f"{sum(orphans.values())} kept SDF element(s) are not written, their owner not being written: "
                  f"{shown}{' ...' if len(orphans) > 10 else ''}")


def _owner(e: Extension, top: etree._Element, scopes: dict[str, etree._Element], links: dict[str, etree._Element],
           joints: dict[str, etree._Element], sensors: dict[str, etree._Element]) -> etree._Element | None:
    kind = e.owner_kind
    if kind == "model":
        return top if e.owner is None else scopes.get(e.owner)
    if kind == "link":
        return links.get(e.owner)
    if kind == "joint":
        return joints.get(e.owner)
    if kind == "sensor":
        return sensors.get(e.owner)
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
    c = _first(parent, tag)
    return c if c is not None else etree.SubElement(parent, tag)


__all__ = ["keep_unread", "write_kept"]
