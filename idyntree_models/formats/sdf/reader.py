"""Stage 4 of reading SDF: the chosen model resolved in its own frame (`SdfGraph`).

`read_sdf` picks the model (first of the file or world, or the one asked for), checks the world
around it, builds, validates and resolves its frame graph, and reads what the tree step needs in
resolved form: joints (ends resolved to links, axes in the model frame, limits with the version's
defaults) and sensors.  The result mirrors libsdformat and is compared with it even for models
that are not trees.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import numpy as np
from lxml import etree

from ...errors import ModelError
from ...model.transforms import inverse, unit_vector
from ...model.validation import check_inertia
from ..base import Diagnostics, LoadOptions
from ..common import INERTIA_KEYS, inertia_from_six
from ..xmlutil import XmlReader, find_child, find_children, shown_tag
from .document import (
    ATTRIBUTE_TRIM,
    TEXT_TRIM,
    check_values,
    child_bool,
    child_float,
    child_text,
    found_float,
    is_true,
    read_document,
    read_pose,
    reserved_name,
)
from .frames import WORLD, FrameGraph, FrameKind, Scope, Vertex
from .kept import (
    ATTRIBUTES,
    AXIS_VALUE_TAGS,
    DOF,
    JOINT_REPEATED,
    OTHER_SENSOR_TAGS,
    OUR_MIMIC,
    SENSOR_TAGS,
    axis_reads,
    joint_tags,
    look,
)
from .uris import IncludePolicy

UNLIMITED = 1e16  # SDF's "no limit" default for position limits before 1.10


@dataclass
class SdfJoint:
    name: str
    type: str
    parent: str  # resolved link (or "world")
    child: str
    model_H_joint: np.ndarray
    axes: list[np.ndarray]  # unit directions in the model frame
    limits: list[dict[str, float]]
    el: etree._Element
    scope: Scope
    extra: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)  # what in it is not read, by path (kept.look)


@dataclass
class SdfSensor:
    name: str
    type: str
    owner: str  # link or joint scoped name
    model_H_sensor: np.ndarray
    el: etree._Element
    scope: Scope
    notes: list = field(default_factory=list)  # what in it is not read, by path (kept.look)
    model_name: str | None = None  # the model sensor made of it (an IMU's accelerometer), once made
    first: dict[str, etree._Element] = field(default_factory=dict)  # its first child of each tag (kept.look)


@dataclass
class SdfGraph:
    """The chosen model resolved in its own frame, before any tree-model choices."""

    name: str
    version: tuple[int, int]
    links: dict[str, np.ndarray] = field(default_factory=dict)  # model_H_link
    link_elements: dict[str, tuple[etree._Element, Scope]] = field(default_factory=dict)
    frame_elements: dict[str, etree._Element] = field(default_factory=dict)  # the <frame>s of `frames`
    joints: dict[str, SdfJoint] = field(default_factory=dict)
    frames: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # (attached link, model_H_frame)
    models: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # nested: (canonical link, model_H)
    sensors: list[SdfSensor] = field(default_factory=list)
    canonical: str = ""
    static: bool = False
    world: str | None = None
    model_element: etree._Element | None = None
    scopes: list[Scope] = field(default_factory=list)  # the top model, then its nested and included ones
    # what the readers of links, joints, shapes and sensors did not read, by their element (kept.look)
    unread: dict[etree._Element, list] = field(default_factory=dict)
    sensor_names: set[str] | None = None  # every name its sensors have or make (to_model, when renaming one)
    frame_graph: FrameGraph | None = field(default=None, repr=False)  # resolves what a pose is relative_to
    _link_H_model: dict[str, np.ndarray] = field(default_factory=dict, repr=False)

    def link_H_model(self, link: str) -> np.ndarray:
        """inverse(links[link]) (the world is at the model frame), made once per link: the joints, frames and
        sensors on a link each ask for it (iCubGenova04: 132 frames and 77 sensors on 39 links).  Shared, so
        read-only."""
        t = self._link_H_model.get(link)
        if t is None:
            t = self._link_H_model[link] = inverse(np.eye(4) if link == WORLD else self.links[link])
            t.setflags(write=False)
        return t


def read_sdf(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> SdfGraph:
    """Parse SDF text and resolve every frame of the chosen model in its model frame."""
    root, r, version = read_document(text, diag.source, diag)
    policy = IncludePolicy.for_load(options.base_dir, options.search_paths, options.allow_include_outside)
    g_frames = FrameGraph(options, diag, policy)
    for tag in ("model", "world"):  # (libsdformat: "World with name[w] already exists")
        seen: dict[str, etree._Element] = {}
        for el in find_children(root, tag):
            first = seen.setdefault((el.get("name") or "").strip(), el)
            if first is not el:
                raise r.error(el, f"two top-level {tag}s are named '{first.get('name')}' (the first at line "
                                  f"{first.sourceline})")
    check_values(r, root, version)  # (the whole document, as libsdformat: a world's lights and other models too)
    worlds = find_children(root, "world")
    for w in worlds:
        _check_world(g_frames, w, r, version)
    top, world = _choose_model(g_frames, root, r, version, options.base_dir)
    for w in worlds:  # (the model read is judged by the frame graph)
        for m in find_children(w, "model"):
            if m is not top.el:
                _check_other_model(r, m, version, diag)
    if world is not None:
        _name_the_rest_of_the_world(find_child(root, "world"), top, diag)
    world_el = find_child(root, "world")
    if world_el is not None:
        for tag in ("gravity", "magnetic_field", "wind/linear_velocity"):
            e = find_child(world_el, tag)
            if e is not None and r.text(e):
                r._floats(e, r.text(e), f"<{e.tag}> value", 3)
    g_frames.build(top)
    g_frames.validate()
    return _resolved(g_frames, top, world)


def _resolved(fg: FrameGraph, top: Scope, world: str | None) -> SdfGraph:
    g = SdfGraph(top.name, top.version, world=world, model_element=top.el, scopes=fg.scopes, frame_graph=fg)
    g.static = child_bool(top.r, top.el, "static", False) or top.static
    g.canonical = fg.canonical(top)
    for name, vx in fg.v.items():
        if vx.kind is FrameKind.LINK:
            g.links[name] = fg.pose(name)
            g.link_elements[name] = (vx.el, vx.scope)
            _link_sensors(fg, g, vx)
        elif vx.kind is FrameKind.FRAME:
            g.frames[name] = (fg.attached_link(name), fg.pose(name))
            g.frame_elements[name] = vx.el
        elif vx.kind is FrameKind.MODEL and vx.scope.parent is not None and not vx.scope.empty:
            g.models[vx.scope.prefix] = (fg.canonical(vx.scope), fg.pose(name))
    for vx in fg.v.values():
        if vx.kind is FrameKind.JOINT:
            j = g.joints[vx.name] = _joint(fg, vx)
            if j.notes:
                g.unread[j.el] = j.notes
            _joint_sensors(fg, g, vx)
    g.unread.update((s.el, s.notes) for s in g.sensors if s.notes)
    g.unread.update(fg.frame_notes)
    return g


def _choose_model(fg: FrameGraph, root: etree._Element, r: XmlReader, version: tuple[int, int],
                  base_dir: str | None) -> tuple[Scope, str | None]:
    wanted = fg.options.model
    models = find_children(root, "model")
    worlds = find_children(root, "world")
    if models and worlds:
        fg.diag.warn(f"the file has a top-level <model> and {len(worlds)} <world>(s): the model is read, the "
                     f"world(s) {', '.join(repr(w.get('name', '?')) for w in worlds)} are not")
    if len(worlds) > 1 and not models:
        fg.diag.warn(f"the file has {len(worlds)} worlds: the first, '{worlds[0].get('name', '?')}', is read, "
                     f"{', '.join(repr(w.get('name', '?')) for w in worlds[1:])} not")
    if models:
        if len(models) > 1:
            fg.diag.warn(f"the file has {len(models)} top-level models; libsdformat uses the first")
        el = models[0]
        if wanted and el.get("name") != wanted:
            el = next((m for m in models if m.get("name") == wanted), None)
            if el is None:
                raise r.error(root, f"no model named '{wanted}' (models: {', '.join(m.get('name', '?') for m in models)})")
        pose_el = find_child(el, "pose")
        if pose_el is not None and (pose_el.get("relative_to") or "").strip():
            raise r.error(pose_el, "the pose of a top-level model must not have relative_to")
        return Scope("", el, version, r, base_dir, files=_own_file(r.source)), None
    if not worlds:
        raise r.error(root, "the file holds neither a <model> nor a <world>")
    world = worlds[0]
    names: list[str] = []
    for c in world:
        if not isinstance(c.tag, str):
            continue
        if c.tag == "model":
            el, sub = c, Scope("", c, version, r, base_dir, files=_own_file(r.source))
        elif c.tag == "include":
            el = fg.include(Scope("", world, version, r, base_dir, files=_own_file(r.source)), c)
            if el is None:
                continue
            sub = fg.included[el]
            sub.include_pose = None
        else:
            continue
        names.append(el.get("name", "?"))
        if wanted is None or el.get("name") == wanted:
            return sub, world.get("name")
    if wanted:
        raise r.error(world, f"world '{world.get('name')}' has no model named '{wanted}' (models: {', '.join(names)})")
    raise r.error(world, f"world '{world.get('name')}' has no model")


def _name_the_rest_of_the_world(world: etree._Element, top: Scope, diag: Diagnostics) -> None:
    """The model is one model of the world: say what else the world holds (its other models, physics, lights,
    plugins), which no output of it will have."""
    models: list[str] = []
    other: dict[str, int] = {}
    for c in world:
        if not isinstance(c.tag, str) or c is top.el or c is top.include_el:
            continue
        if c.tag in ("model", "include"):
            models.append((c.get("name") if c.tag == "model" else child_text(top.r, c, "name")) or
                          (child_text(top.r, c, "uri") or "?"))
        else:
            tag = shown_tag(c)
            other[tag] = other.get(tag, 0) + 1
    if not models and not other:
        return
    parts = [f"{len(models)} other model(s) ({', '.join(models[:5])}{' ...' if len(models) > 5 else ''})"] if models else []
    parts += [f"{n} <{tag}>" if n > 1 else f"<{tag}>" for tag, n in other.items()]
    diag.warn(f"world '{world.get('name')}': the model is '{top.name}' alone; the rest of the world is not part of it "
              f"and is not written: {', '.join(parts)}")


def _own_file(source: str | None) -> tuple[str, ...]:
    """The real path of the file being read (the start of include cycles), if it is one."""
    return (os.path.realpath(source),) if source and os.path.isfile(source) else ()


_UNIQUE_IN_WORLD = frozenset(("model", "frame", "light", "actor", "physics"))  # (libsdformat 12's World::Load)


def _check_other_model(r: XmlReader, el: etree._Element, version: tuple[int, int], diag: Diagnostics) -> None:
    """What libsdformat refuses in a world's model that is not read, and in each model nested in it: no link nor
    nested model unless static (Model::Load's "A model must have at least one link"; an <include> may bring either:
    it counts); two links, joints, frames or nested models of one name, or from SDF 1.7 two of these of any kinds;
    two visuals, collisions, sensors, lights or particle emitters of one name in a link, two sensors in a joint;
    a link's impossible inertia (_check_other_inertia). The model read is judged so by the frame graph; in the
    others, the reader would never see it."""
    name = (el.get("name") or "").strip()
    if not any(c.tag in ("link", "model", "include") for c in el) and not child_bool(r, el, "static", False):
        raise r.error(el, f"model '{name}' has no links (a model must have at least one link; libsdformat refuses "
                          f"the world)")
    unique_children(r, el, _UNIQUE_IN_MODEL, f"model '{name}'", across=version >= (1, 7))
    _one_uri_once(r, el, f"model '{name}'")
    for c in el:
        if c.tag == "model":  # (not iter(): a plugin's content is not SDF)
            _check_other_model(r, c, version, diag)
        elif c.tag in ("link", "joint"):
            where = f"{c.tag} '{(c.get('name') or '').strip()}' of model '{name}'"
            unique_children(r, c, _UNIQUE_IN_LINK if c.tag == "link" else ("sensor",), where, across=False)
            if c.tag == "link":
                _check_other_inertia(r, c, where, diag)


def _check_other_inertia(r: XmlReader, link: etree._Element, where: str, diag: Diagnostics) -> None:
    """A link's inertia in a model not read, judged as the model read's (to_model.read_link): negative mass or a
    tensor that is not positive semi-definite refuses the world, as libsdformat refuses it ("A link named l has
    invalid inertia"); a violated triangle inequality, which it refuses too, is said, as in the model read. (Where
    the inertia is, its pose, does not change what it is; an automatic one is not computed here.)"""
    inertial = find_child(link, "inertial")
    if inertial is None or is_true(inertial.get("auto")):
        return
    tensor = find_child(inertial, "inertia")
    six = [child_float(r, tensor, k, d) for k, d in zip(INERTIA_KEYS, DEFAULT_MOMENTS)]
    mass = child_float(r, inertial, "mass", 1.0)
    if not all(map(math.isfinite, (mass, *six))):  # ('inf': SDF's unlimited; NaN is refused by check_values)
        # (libsdformat reads some infinite inertias, such as ixx inf alone, and refuses others: only the plainly
        # impossible ones, a mass or diagonal moment of -inf, are judged here)
        if -math.inf in (mass, six[0], six[3], six[5]):
            raise r.error(inertial, f"{where} has invalid inertia: a mass or moment of -inf (libsdformat refuses the "
                                    "world)")
        return
    i = inertia_from_six(*six)
    try:
        for w in check_inertia(mass, np.zeros(3), i, where, reject_impossible=True):
            diag.warn(f"{diag.at(inertial)}: {w} (libsdformat refuses the world: the model is not read, and this "
                      "does not stop the one read)")
    except ModelError as e:
        raise r.error(inertial, f"{where} has invalid inertia: {e.message} (libsdformat refuses the world)") from None


DEFAULT_MOMENTS = (1.0, 0.0, 0.0, 1.0, 0.0, 1.0)  # libsdformat's, in INERTIA_KEYS' order (to_model reads them too)
_UNIQUE_IN_MODEL = ("link", "joint", "frame", "model")
_UNIQUE_IN_LINK = ("visual", "collision", "sensor", "light", "particle_emitter")


def unique_children(r: XmlReader, el: etree._Element, tags: tuple[str, ...], where: str, across: bool,
                    refused: str = "the world") -> None:
    """The children of `el` of `tags` are unique by name, per tag (`across`: across the tags): libsdformat refuses
    `refused` otherwise ("link with name[l] already exists")."""
    seen: dict[tuple[str, str], etree._Element] = {}
    for c in el:
        if c.tag not in tags:  # (a comment's tag is a function: never one of them)
            continue
        name = (c.get("name") or "").strip(ATTRIBUTE_TRIM)  # (as libsdformat compares them: 'x' and 'x&#160;' differ)
        first = seen.setdefault(("" if across else c.tag, name), c)
        if first is not c:
            what, other = (f"<{c.tag}>", "") if first.tag == c.tag else ("elements", f", a <{first.tag}>,")
            raise r.error(c, f"{where} has two {what} named '{name}' (the first{other} at line {first.sourceline}; "
                             f"libsdformat refuses {refused})")


def _one_uri_once(r: XmlReader, el: etree._Element, where: str) -> None:
    """libsdformat names an <include> without <name> after the model it includes, so two such includes of one URI
    are two models of one name ("model with name[box] already exists"): judged without reading the file."""
    unnamed: dict[str, etree._Element] = {}
    for c in el:
        if c.tag != "include" or find_child(c, "name") is not None:
            continue
        uri = child_text(r, c, "uri")
        first = unnamed.setdefault(uri, c) if uri else c
        if first is not c:
            raise r.error(c, f"{where} includes '{uri}' twice without a <name> (the first at line {first.sourceline}): "
                             "both take the name of what it holds, and libsdformat refuses the world (give each "
                             "include a <name>)")


def _check_world(fg: FrameGraph, world: etree._Element, r: XmlReader, version: tuple[int, int]) -> None:
    """World-level frames and model poses must name world-level frames or models (no cycles); the names of the
    world's models, frames, lights, actors and physics are unique per kind, an actor's animations too (and once
    the model read is known, its other models are judged by _check_other_model).

    libsdformat refuses the whole world otherwise ("model with name[a] already exists", "A model must have at
    least one link"): read, the model asked for by name was one of two, or the world's broken models went
    unnoticed.  A frame named as a model is said: libsdformat renames the frame with a warning, so that a pose
    relative to that name means the model."""
    kinds: dict[tuple[str, str], etree._Element] = {}  # (kind, name) -> the element of that kind and name
    _one_uri_once(r, world, f"world '{world.get('name')}'")
    for c in world:
        if not isinstance(c.tag, str):
            continue
        if c.tag == "include":
            if is_true(c.get("merge")):
                raise r.error(c, "merge-include is not allowed directly in a <world> (only inside a model)")
            name = child_text(r, c, "name")  # (an include without <name> takes its file's: not known here)
        elif c.tag in _UNIQUE_IN_WORLD:
            name = (c.get("name") or "").strip() or ("default_physics" if c.tag == "physics" else "")
        else:
            continue
        kind = "model" if c.tag == "include" else c.tag
        if kind == "actor":  # ("animation with name[g] already exists": fuzz seed 20261506)
            unique_children(r, c, ("animation",), f"actor '{name}'", across=False)
        if name:
            first = kinds.setdefault((kind, name), c)
            if first is not c:
                raise r.error(c, f"world '{world.get('name')}' has two <{kind}> named '{name}' (the first at line "
                                 f"{first.sourceline}; libsdformat refuses the world)")
            if kind in ("model", "frame"):
                other = kinds.get(("frame" if kind == "model" else "model", name))
                if other is not None:  # (libsdformat's own test world_model_frame_same_name.sdf)
                    frame = c if kind == "frame" else other
                    fg.diag.warn(f"{fg.diag.at(frame)}: world '{world.get('name')}' has a model and a frame named "
                                 f"'{name}': the name is the model's, as libsdformat renames the frame "
                                 f"'{name}_frame' (`ign sdf -k` refuses the file)")

    def check(el: etree._Element, ref: str, what: str) -> None:
        if ref[:2] == "__" and reserved_name(ref):  # (the test first: a call per reference)
            raise r.error(el, f"{what} '{ref}' is a reserved name")
        head, _, rest = ref.partition("::")
        if ref == WORLD:
            return
        target = None
        for name in dict.fromkeys((head, head.strip())):  # (white space around the part: judged below, as spelled)
            target = kinds.get(("model", name))  # (a model before a frame of its name, which libsdformat renames)
            if target is None:
                target = kinds.get(("frame", name))
            if target is not None:
                break
        if target is None:
            raise r.error(el, f"{what} '{ref}' does not name a model or frame of world '{world.get('name')}'")
        kept = el.get(what, "").strip(ATTRIBUTE_TRIM)  # (as libsdformat trims it: FrameGraph.check_spelling)
        kept_head, _, kept_rest = kept.partition("::")
        if target.tag == "include":  # (named by its <name>: an element's text)
            name_el = find_child(target, "name")
            spelled = (name_el.text or "").strip(TEXT_TRIM) if name_el is not None else kept_head
        else:
            spelled = target.get("name", "").strip(ATTRIBUTE_TRIM)
        if kept_head != spelled:
            raise r.error(el, f"{what} {kept!r} means the {'model' if target.tag == 'include' else target.tag} named "
                              f"{spelled!r} of the world, but libsdformat trims only spaces, tabs and line feeds around "
                              f"names and references, finds none spelled {kept_head!r} and refuses the file")
        if rest and target.tag == "model":
            sub = FrameGraph(fg.options, Diagnostics(fg.diag.source, quiet=True), fg.policy)
            scope = Scope("", target, version, r, None)
            sub.collect(scope)
            if sub.resolve_name(scope, rest) is None:
                raise r.error(el, f"{what} '{ref}' does not name a frame inside model '{head}'")
            sub.check_spelling(scope, rest, kept_rest, el, what)
        elif rest and target.tag != "include":  # (what an include brings is not looked into here: docs/sdf.md)
            raise r.error(el, f"{what} '{ref}': '{head}' is not a model")

    for c in world:
        if not isinstance(c.tag, str) or c.tag not in ("model", "frame"):
            continue
        own = (c.get("name") or "").strip()
        att = (c.get("attached_to") or "").strip() if c.tag == "frame" else ""
        if att:
            if att == own:
                raise r.error(c, f"frame '{own}' is attached to itself")
            check(c, att, "attached_to")
        pose_el = find_child(c, "pose")
        rel = (pose_el.get("relative_to") or "").strip() if pose_el is not None else ""
        if rel:
            if rel == own:
                raise r.error(pose_el, f"the pose of '{own}' is relative to itself (cycle)")
            check(pose_el, rel, "relative_to")
        placement = (c.get("placement_frame") or "").strip() if c.tag == "model" else ""
        if placement[:2] == "__" and placement != "__model__" and reserved_name(placement):
            raise r.error(c, f"placement_frame '{placement}' is a reserved name")


# -- joints -----------------------------------------------------------------------------------------


def _axis_frame(fg: FrameGraph, vx: Vertex, xyz_el: etree._Element | None, axis_el: etree._Element) -> str:
    scope, r = vx.scope, vx.scope.r
    version = scope.version
    if version < (1, 7):
        # libsdformat converts 1.6 use_parent_model_frame=true to expressed_in="__model__"; its 1.4 converter adds
        # use_parent_model_frame=true where there is none, in the model/joint/axis and world/model/joint/axis of a
        # document only (not in a model nested in one); an expressed_in is read in these versions too
        if find_child(axis_el, "use_parent_model_frame") is not None:
            parent_frame = child_bool(r, axis_el, "use_parent_model_frame", False)
        else:
            holder = scope.el.getparent()
            parent_frame = version < (1, 5) and (holder is None or holder.tag in ("sdf", "world"))
        if parent_frame:
            return scope.model_vertex
    expressed = (xyz_el.get("expressed_in") or "").strip() if xyz_el is not None else ""
    if not expressed:
        return vx.name
    target = fg.resolve_name(scope, expressed)
    if target is None or target == WORLD:
        raise r.error(xyz_el, f"expressed_in '{expressed}' does not name a frame of model '{scope.name}'")
    fg.check_spelling(scope, expressed, xyz_el.get("expressed_in"), xyz_el, "expressed_in")
    return target


# libsdformat's "zero" axis length: up to 1e-6 as a float (9.99999997e-7), measured with ign sdf -k
_AXIS_ZERO = float(np.float32(1e-6))


def _check_axis_length(r: XmlReader, xyz_el: etree._Element, xyz: list[float], jname: str, tag: str) -> None:
    """libsdformat takes an axis shorter than 1e-6 as zero and refuses it ("The norm of the xyz vector cannot be
    zero"): a direction of 1e-9 0 0 was read as x."""
    length = math.hypot(*xyz)  # (no overflow nor underflow on the way)
    if not length > _AXIS_ZERO:
        said = "zero length" if length == 0.0 else f"length {length:.9g}, which libsdformat takes as zero (below 1e-6)"
        raise r.error(xyz_el, f"joint '{jname}': the <{tag}><xyz> direction has {said}")


def _joint(fg: FrameGraph, vx: Vertex) -> SdfJoint:
    scope, r, el = vx.scope, vx.scope.r, vx.el
    jname = el.get("name")
    jtype = (el.get("type") or "").strip()
    if jtype not in DOF:
        raise r.error(el, f"joint '{jname}': unknown type '{jtype}' (expected {', '.join(DOF)})")
    parent_ref = fg.joint_end(vx, "parent")
    child_ref = vx.attached
    parent = fg.attached_link(parent_ref) if parent_ref != WORLD else WORLD
    child = fg.attached_link(child_ref)
    if parent_ref == child_ref:
        raise r.error(el, f"joint '{jname}': parent and child are the same frame '{r.text(find_child(el, 'child'))}'")
    if parent == child:
        raise r.error(el, f"joint '{jname}': parent and child both resolve to link '{child}'")
    if child == WORLD:
        raise r.error(el, f"joint '{jname}': the child resolves to 'world'")
    axes: list[np.ndarray] = []
    limits: list[dict[str, float]] = []
    v10 = scope.version >= (1, 10)
    dof = DOF[jtype]
    notes: list = []
    first = look(el, joint_tags(jtype), (), notes, ATTRIBUTES["joint"], repeated=JOINT_REPEATED)
    axis_first: dict[str, etree._Element] = {}
    for i in range(dof):
        tag = "axis" if i == 0 else "axis2"
        axis_el = first.get(tag)
        if axis_el is None:
            fg.diag.warn(f"{fg.diag.at(el)}: {jtype} joint '{jname}' has no <{tag}>; using 0 0 1")
            axis_el = etree.Element(tag)
        found = look(axis_el, axis_reads(dof, scope.version)[0], (tag,), notes)
        if i == 0:
            axis_first = found
        if dof == 2 and ("mimic" in found or OUR_MIMIC in found):
            fg.diag.warn(f"{fg.diag.at(axis_el)}: the mimic in <{tag}> of {jtype} joint '{jname}' is ignored: the "
                         "two revolute joints it is split into mimic nothing")
        xyz_el = found.get("xyz")
        xyz = r.text_numbers(xyz_el, 3) if xyz_el is not None and r.text(xyz_el) else [0.0, 0.0, 1.0]
        _check_axis_length(r, xyz_el, xyz, jname, tag)
        frame = _axis_frame(fg, vx, xyz_el, axis_el)
        # (unit_vector: scaled by the largest component first, so huge ones do not overflow; plain floats)
        axes.append(fg.pose(frame)[:3, :3] @ unit_vector(xyz))
        lim = _values(found.get("limit"), "limit", (tag,), notes)
        dyn = _values(found.get("dynamics"), "dynamics", (tag,), notes)
        limits.append(
            {
                "lower": found_float(r, lim, "lower", -math.inf if v10 else -UNLIMITED),
                "upper": found_float(r, lim, "upper", math.inf if v10 else UNLIMITED),
                "effort": found_float(r, lim, "effort", math.inf if v10 else -1.0),
                "velocity": found_float(r, lim, "velocity", math.inf if v10 else -1.0),
                "damping": found_float(r, dyn, "damping", 0.0),
                "friction": found_float(r, dyn, "friction", 0.0),
            }
        )
    for tag in ("axis", "axis2")[dof:]:  # (an axis a joint of fewer DOF does not read: libsdformat checks it too)
        unread = find_child(el, tag)
        xyz_el = find_child(unread, "xyz") if unread is not None else None
        if xyz_el is not None and r.text(xyz_el):
            _check_axis_length(r, xyz_el, r.text_numbers(xyz_el, 3), jname, tag)
    extra: dict = {}
    if jtype == "screw":
        if "screw_thread_pitch" in first:
            extra["screw_thread_pitch"] = found_float(r, first, "screw_thread_pitch", 1.0)
        else:
            extra["thread_pitch"] = found_float(r, first, "thread_pitch", 1.0)
    # (only a one-axis joint mimics another: a split joint's mimic is ignored, said above)
    mimic_el = axis_first.get("mimic") if dof == 1 else None
    ours = axis_first.get(OUR_MIMIC) if dof == 1 else None  # what our 1.9 exporter writes
    if ours is not None:
        look(ours, frozenset(), ("axis", OUR_MIMIC), notes)
    if mimic_el is None and ours is not None:
        extra["mimic"] = (r.required(ours, "joint"), r.float_attr(ours, "multiplier", 1.0), r.float_attr(ours, "offset", 0.0))
    if mimic_el is not None:
        values = _values(mimic_el, "mimic", ("axis",), notes)
        extra["mimic"] = (
            r.required(mimic_el, "joint"),
            found_float(r, values, "multiplier", 1.0),
            found_float(r, values, "offset", 0.0),
        )
    return SdfJoint(scope.scoped(jname), jtype, parent, child, fg.pose(vx.name), axes, limits, el, scope, extra,
                    notes=notes)


def _values(el: etree._Element | None, tag: str, path: tuple[str, ...], notes: list) -> dict[str, etree._Element]:
    """The children of an axis's <limit>, <dynamics> or <mimic> by tag (none when absent); what is unread there
    is noted at `path` + tag."""
    if el is None:
        return {}
    return look(el, AXIS_VALUE_TAGS[tag], path + (tag,), notes)





# -- sensors ----------------------------------------------------------------------------------------
def _sensor(fg: FrameGraph, scope: Scope, el: etree._Element, owner: str, default: str) -> SdfSensor:
    name = scope.r.required(el, "name")
    kind = (el.get("type") or "").strip()
    notes: list = []
    first = look(el, SENSOR_TAGS.get(kind, OTHER_SENSOR_TAGS), (), notes, ATTRIBUTES["sensor"])
    pose_el = first.get("pose")
    pose, rel = read_pose(scope.r, pose_el, scope.version)
    base = fg.resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else default
    return SdfSensor(scope.scoped(name), kind, owner, fg.pose(base) @ pose, el, scope, notes=notes, first=first)


def _link_sensors(fg: FrameGraph, g: SdfGraph, vx: Vertex) -> None:
    _sensors_of(fg, g, vx, vx.name, "link")


def _joint_sensors(fg: FrameGraph, g: SdfGraph, vx: Vertex) -> None:
    _sensors_of(fg, g, vx, vx.scope.scoped(vx.el.get("name").strip()), "joint")


def _sensors_of(fg: FrameGraph, g: SdfGraph, vx: Vertex, owner: str, kind: str) -> None:
    """The sensors of a link or joint, whose names are unique within it (libsdformat: "sensor with name[s]
    already exists"; two were read as two sensors, the second renamed)."""
    seen: dict[str, int] = {}
    for s in find_children(vx.el, "sensor"):
        sensor = _sensor(fg, vx.scope, s, owner, vx.name)
        local = s.get("name").strip()
        if local in seen:
            raise vx.scope.r.error(s, f"duplicate sensor name '{local}' in {kind} '{owner}' (first at line {seen[local]})")
        seen[local] = s.sourceline
        g.sensors.append(sensor)


__all__ = ["UNLIMITED", "SdfGraph", "SdfJoint", "SdfSensor", "read_sdf"]
