"""Stage 3 of reading SDF: the frame graph, as libsdformat's FrameSemantics builds it.

`FrameGraph.build` collects every frame-bearing element of the chosen model (links, joints,
`<frame>`s, nested and included models, whose names are scoped `outer::inner::name`) as a vertex
with two edges: where its pose is given (`relative_to`, with the version's default) and what it is
attached to (`attached_to`, a joint's child, a model's canonical link).  `validate` then checks
both graphs whole (every reference names a vertex, no cycles, no pose relative to the world), and
`resolve` computes poses in the top model frame and the link each frame is attached to, walking
the edges iteratively.  The XML stays behind the vertices: nothing here parses values except the
`<pose>` of each vertex.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import numpy as np
from lxml import etree

from ...errors import ModelError
from ...model.transforms import inverse
from ..base import Diagnostics, LoadOptions
from ..xmlutil import XmlReader, find_child
from .document import (
    ATTRIBUTE_TRIM,
    TEXT_TRIM,
    check_values,
    child_bool,
    child_text,
    is_true,
    read_document,
    read_pose,
    reserved_name,
)
from .kept import ATTRIBUTES, FRAME_TAGS, NOT_MERGED, look
from .uris import (
    MAX_INCLUDE_DEPTH,
    MAX_INCLUDES,
    MAX_MODELS,
    MAX_NESTING,
    MAX_TOTAL_BYTES,
    IncludePolicy,
    check_uri,
    read_limited,
    resolve_uri,
)


class FrameKind(str, Enum):
    """What a vertex of the frame graph is (libsdformat's FrameType)."""

    WORLD = "world"
    MODEL = "model"
    LINK = "link"
    JOINT = "joint"
    FRAME = "frame"


RESOLVABLE = {"link": FrameKind.LINK, "joint": FrameKind.JOINT, "frame": FrameKind.FRAME, "model": FrameKind.MODEL}
WORLD = "world"


@dataclass
class Scope:
    """One <model> (top-level, nested or included) with its own version, file and names."""

    prefix: str  # "" for the top model, else "outer::inner"
    el: etree._Element
    version: tuple[int, int]
    r: XmlReader
    base_dir: str | None
    locals: dict[str, tuple[FrameKind, etree._Element]] = field(default_factory=dict)
    nested: dict[str, Scope] = field(default_factory=dict)
    parent: Scope | None = None
    include_pose: tuple[np.ndarray, str | None] | None = None
    include_el: etree._Element | None = None  # the <include> that brought it in (its <plugin>s are the model's)
    include_reader: tuple[XmlReader, tuple[int, int]] | None = None  # that <include>'s document's reader, version
    placement: str | None = None
    placement_at: etree._Element | None = None  # where `placement` is written: a <model>, or an <include>'s element
    static: bool = False
    empty: bool = False
    files: tuple[str, ...] = ()  # real paths of the include chain that brought this model in
    depth: int = 0
    # A merge-include's model (SDF 1.9): its names join the including model's (`locals`, `nested` and `owners`
    # are that model's own dicts, and `parent` is that model), and `merged` names the frame standing for its
    # model frame, `_merged__<name>__model__`, which its implicit and explicit `__model__` references mean.
    merged: str | None = None
    own: list[str] | None = None  # a merged model's names, in order (its proxy frame first)
    # where a name is first in this model's own element, by the version's key (up to 1.6 a link and a joint may
    # share a name)
    lines: dict[tuple[str, str], tuple[str | None, int]] = field(default_factory=dict)
    # the scope (id), file and line of each name's first element, shared with merged models: a name a merged
    # model shares with the model it is merged into is a duplicate whatever their versions
    owners: dict[str, tuple[int, str | None, int]] = field(default_factory=dict)

    def scoped(self, name: str) -> str:
        return f"{self.prefix}::{name}" if self.prefix else name

    @property
    def model_vertex(self) -> str:
        return self.scoped(self.merged or "__model__")

    @property
    def name(self) -> str:
        """The model whose names these are (for a merged model, the model it was merged into)."""
        return self.parent.name if self.merged and self.parent is not None else self.el.get("name", "")


@dataclass
class Vertex:
    name: str
    kind: FrameKind
    scope: Scope
    el: etree._Element | None
    rel: str | None = None  # pose relative_to vertex (None: the root of the pose graph)
    raw: np.ndarray | None = None
    attached: str | None = None  # attached_to vertex


NEAR = 1e300
"""Below this (m), no composition of a model's poses can overflow: each product adds at most a few times a
translation, and no model chains 1e7 poses.  Checking once that every pose is nearer spares each product a
guard against the overflow (numpy's warning and a finiteness test, a tenth of an SDF load)."""


def far_apart(transforms) -> bool:
    """Whether any of the 4x4 transforms has a translation at or beyond NEAR (or one not finite)."""
    t = [m[:3, 3] for m in transforms]
    return bool(t) and not bool(np.abs(np.array(t)).max() < NEAR)


def check_name(r: XmlReader, el: etree._Element, name: str, tag: str, version: tuple[int, int]) -> None:
    if (name == WORLD or name[:2] == "__") and reserved_name(name):  # (the test first: a call per name of the model)
        raise r.error(el, f"the {tag} name '{name}' is reserved ('world' and names like __name__ cannot be used)")
    if "::" in name and version >= (1, 8):
        raise r.error(el, f"the {tag} name '{name}' contains '::', which SDF 1.8+ reserves for scopes")


def pretty(name: str) -> str:
    return name.removesuffix("::__model__")


class FrameGraph:
    """Vertices of one model and its nested models; build, then validate, then resolve."""

    def __init__(self, options: LoadOptions, diag: Diagnostics, policy: IncludePolicy | None = None) -> None:
        self.options = options
        self.diag = diag
        self.policy = policy or IncludePolicy.for_load(options.base_dir, options.search_paths,
                                                       options.allow_include_outside)
        self.v: dict[str, Vertex] = {}
        self.scopes: list[Scope] = []
        self.included: dict[etree._Element, Scope] = {}  # the included <model> element -> its scope
        self._pose: dict[str, np.ndarray] = {}
        self._far: bool | None = None  # whether some raw pose is far enough for a composition to overflow
        self._attached: dict[str, str] = {}
        self._canonical: dict[str, str] = {}
        self.frame_notes: dict[etree._Element, list] = {}  # what a <frame> holds that is not read (kept.look)
        # libsdformat's spelling of a name it trims differently (scope prefix, name as read -> with its white space)
        self.spelled: dict[tuple[str, str], str] = {}

    # == build ==================================================================================
    def build(self, top: Scope) -> None:
        self.collect(top)
        if top.placement_at is not None:  # (a world's <include> of the model: its <placement_frame> overrides)
            self.placement(top)
        elif placement := (top.el.get("placement_frame") or "").strip():  # (without a <pose>: at the world's origin)
            self.resolve_or_fail(top, placement, top.el, "placement_frame")
        self.v[WORLD] = Vertex(WORLD, FrameKind.WORLD, top, None)
        self.edges()

    def collect(self, scope: Scope) -> None:
        """Every named element of a model and, depth first, of its nested and included models."""
        r, el = scope.r, scope.el
        self._count(scope)
        name = el.get("name")
        if name is None or not name.strip():
            raise r.error(el, "a <model> needs a name attribute")
        self.v[scope.model_vertex] = Vertex(scope.model_vertex, FrameKind.MODEL, scope, el)
        added = self._names(scope)
        if not self._has_link(scope, added):
            if scope.parent is not None and (child_bool(r, el, "static", False) or scope.nested):
                self.diag.warn(f"{self.diag.at(el)}: static model '{scope.name}' has no links; its frame is left out")
                scope.empty = True
                return
            raise r.error(el, f"model '{scope.name}' has no links (a model must have at least one link)")

    def _count(self, scope: Scope) -> None:
        self.scopes.append(scope)
        self.policy.models += 1
        if self.policy.models > MAX_MODELS:
            raise scope.r.error(scope.el, f"more than {MAX_MODELS} models (nested and included together); refused")
        if scope.depth > MAX_NESTING:
            raise scope.r.error(scope.el, f"models nested more than {MAX_NESTING} levels deep; refused")

    def _pre17_renames(self, el: etree._Element) -> None:
        """Before SDF 1.7 a link, a joint, a frame and a nested model may share a name. libsdformat loads a model's
        nested models, then its links, joints and frames, and gives one that takes a name already taken that
        name with _link, _joint or _frame after it (as often as needed): a frame 'x' beside a link 'x' is
        'x_frame'. Ours kept only the last of them under the name, so a joint or link was lost without a word
        (or the model had "no links"). Two of one kind stay an error, found where the names are registered."""
        taken: set[str] = set()
        for kind in ("model", "link", "joint", "frame"):
            own: set[str] = set()
            for c in el:
                if not isinstance(c.tag, str) or c.tag != kind:
                    continue
                n = (c.get("name") or "").strip()
                if not n or n in own:
                    continue  # (no name, or two of one kind: refused below, with the lines)
                new = n
                while new in taken:
                    new += f"_{kind}"
                if new != n:
                    self.diag.warn(f"{self.diag.at(c)}: {kind} '{n}' renamed '{new}' (another element of the model "
                                   "has that name, which SDF before 1.7 allowed; libsdformat renames it so)")
                    c.set("name", new)
                own.add(n)
                taken.add(new)

    def _has_link(self, scope: Scope, added: list[str]) -> bool:
        """Whether the names a model added hold a link, or a nested model that has one."""
        return any(scope.locals[n][0] is FrameKind.LINK or (n in scope.nested and not scope.nested[n].empty)
                   for n in added)

    def _names(self, scope: Scope) -> list[str]:
        """Register the links, joints, frames and models of `scope`'s element under its names; the names added."""
        r, version, el = scope.r, scope.version, scope.el
        seen_lines = scope.lines
        added: list[str] = []
        if version < (1, 7):
            self._pre17_renames(el)
        for c in el:
            if not isinstance(c.tag, str):
                continue
            tag = c.tag
            if tag == "include":
                merge = is_true(c.get("merge"))
                c = self.include(scope, c)
                if c is None:
                    continue
                if merge:
                    added += self.merge(scope, self.included[c])
                    continue
                tag = "model"
            if tag not in RESOLVABLE:
                continue
            raw = c.get("name") or ""
            n = raw.strip()
            if not n:
                raise r.error(c, f"<{tag}> needs a name attribute")
            if len(n) != len(raw) and len(raw.strip(ATTRIBUTE_TRIM)) != len(n):  # (libsdformat trims ASCII only)
                kept = raw.strip(ATTRIBUTE_TRIM)
                self.spelled[(scope.prefix, n)] = kept
                inc = self.included[c].include_el if c in self.included else None
                named = find_child(inc, "name") if inc is not None else None  # (an include's <name> gave it)
                self.diag.warn(f"{self.diag.at(c if named is None else named)}: <{tag}> name {kept!r} has white space "
                               f"around it that libsdformat keeps in the name: read as '{n}'; a reference to it must "
                               "spell it so, as libsdformat finds it only so")
            check_name(r, c, n, tag, version)
            # up to 1.6 only links clash with links and joints with joints
            key = ("any", n) if version >= (1, 7) else (tag, n)
            owner = scope.owners.get(n)
            merged = owner is not None and owner[0] != id(scope)
            if key in seen_lines or merged:
                other = scope.locals[n][0].value
                source, line = seen_lines[key] if key in seen_lines else owner[1:]
                first = f"line {line}" if source == r.source else f"{source}, line {line}"
                raise r.error(
                    c,
                    f"duplicate name '{n}' in model '{scope.name}': a {other} ({first}) and a {tag} "
                    "share it (names of links, joints, frames and nested models must be unique"
                    f"{', merged ones included' if merged or scope.merged else ''})",
                )
            seen_lines[key] = (r.source, c.sourceline)
            scope.owners.setdefault(n, (id(scope), r.source, c.sourceline))
            scope.locals[n] = (RESOLVABLE[tag], c)
            added.append(n)
            if tag == "model":
                sub = self.included.get(c)
                if sub is None:
                    sub = Scope(scope.scoped(n), c, version, r, scope.base_dir, parent=scope, files=scope.files)
                else:
                    sub.prefix, sub.parent = scope.scoped(n), scope
                sub.depth = scope.depth + 1
                # an include's <placement_frame> overrides the included model's own (libsdformat's parser)
                if not sub.placement:
                    sub.placement, sub.placement_at = (c.get("placement_frame") or "").strip() or None, c
                scope.nested[n] = sub
                self.collect(sub)
            else:
                self.v[scope.scoped(n)] = Vertex(scope.scoped(n), RESOLVABLE[tag], scope, c)
        return added

    def merge(self, into: Scope, sub: Scope) -> list[str]:
        """A merge-include (SDF 1.9): the included model's content joins `into`'s names, placed by a frame
        `_merged__<model>__model__` that stands for its model frame (libsdformat 12's parser does the same
        to the XML).  Its <static>, <self_collide>, <enable_wind> and <allow_auto_disable> are not merged
        (kept.py names them); `sub.parent` is `into`, which the proxy frame's pose is relative to."""
        name = (sub.el.get("name") or "").strip()
        if not name:
            raise sub.r.error(sub.el, "a <model> needs a name attribute")
        sub.prefix, sub.parent, sub.depth = into.prefix, into, into.depth
        sub.locals, sub.nested, sub.owners = into.locals, into.nested, into.owners
        sub.merged = f"_merged__{name}__model__"
        if not sub.placement:
            sub.placement, sub.placement_at = (sub.el.get("placement_frame") or "").strip() or None, sub.el
        self._count(sub)
        inc = sub.include_el
        dropped = [f"<{c.tag}>" for holder in (sub.el, inc) for c in holder
                   if isinstance(c.tag, str) and c.tag in NOT_MERGED]
        if dropped:
            self.diag.warn(f"{self.diag.at(inc)}: merge-include of model '{name}': {', '.join(dropped)} not applied "
                           f"(SDFormat merges a model's content into model '{into.name}', not these settings)")
        if sub.merged in into.locals:
            raise into.r.error(inc, f"model '{name}' is merged twice into model '{into.name}': the frame "
                                    f"'{sub.merged}' that stands for its model frame would be defined twice")
        proxy = etree.Element("frame", name=sub.merged)  # (made here: no file has it)
        into.locals[sub.merged] = (FrameKind.FRAME, proxy)
        into.lines[("any", sub.merged)] = (into.r.source, inc.sourceline)
        into.owners[sub.merged] = (id(into), into.r.source, inc.sourceline)
        self.v[sub.model_vertex] = Vertex(sub.model_vertex, FrameKind.FRAME, sub, proxy)
        added = self._names(sub)
        if not self._has_link(sub, added):
            raise sub.r.error(sub.el, f"merged model '{name}' has no links (a model must have at least one link)")
        sub.own = [sub.merged, *added]
        return sub.own

    def include(self, scope: Scope, inc: etree._Element) -> etree._Element | None:
        """The <model> an <include> brings in, read under the include policy and limits."""
        r = scope.r
        uri = child_text(r, inc, "uri")
        if not uri:
            raise r.error(inc, "<include> needs a <uri>")
        problem = check_uri(uri)
        if problem is not None:
            raise r.error(inc, problem)
        if not self.options.allow_file_access:  # the ROS services: nothing is read, nothing is revealed
            raise r.error(inc, f"include '{uri}' is not read: reading files is disabled for this load")
        self.policy.includes += 1
        if self.policy.includes > MAX_INCLUDES:
            raise r.error(inc, f"more than {MAX_INCLUDES} <include>s expanded for one model (includes that include "
                          "others multiply); refused")
        if len(scope.files) >= MAX_INCLUDE_DEPTH:
            raise r.error(inc, f"includes nested more than {MAX_INCLUDE_DEPTH} files deep; refused")
        path = resolve_uri(uri, scope.base_dir, self.options.search_paths, self.policy)
        if path is None:
            raise r.error(
                inc,
                f"cannot find '{uri}' (searched the file's directory, the model paths given as options, SDF_PATH "
                "and GZ_SIM_RESOURCE_PATH; other directories are read only when allowed with "
                "--allow-include-outside)",
            )
        real = os.path.realpath(path)
        if real in scope.files:
            chain = " -> ".join(Path(f).name for f in scope.files[scope.files.index(real):] + (real,))
            raise r.error(inc, f"include cycle {chain}: '{uri}' is already being read")
        data = read_limited(path)
        self.policy.bytes_read += len(data)
        if self.policy.bytes_read > MAX_TOTAL_BYTES:
            raise r.error(inc, f"the included files add up to more than {MAX_TOTAL_BYTES} bytes; refused")
        sub_root, sub_r, sub_version = read_document(data, path, self.diag)
        # (as the including document's: libsdformat reads both alike, and converts the included one to the including
        # one's version: a 1.6 model's '::' names are refused where a 1.8+ document includes it)
        check_values(sub_r, sub_root, max(sub_version, scope.version))
        model_el = find_child(sub_root, "model")
        if model_el is None:
            if find_child(sub_root, "light") is not None or find_child(sub_root, "actor") is not None:
                self.diag.warn(f"{self.diag.at(inc)}: included '{uri}' holds no model; ignored")
                return None
            raise r.error(inc, f"included file {path} has no <model>")
        name = child_text(r, inc, "name")
        if name:  # (spelled as libsdformat trims it: the frame graph reads it as a name, white space and all)
            model_el.set("name", (find_child(inc, "name").text or "").strip(TEXT_TRIM))
        sub = Scope("", model_el, sub_version, sub_r, str(Path(path).parent), files=scope.files + (real,))
        pose_el = find_child(inc, "pose")
        if pose_el is not None:
            sub.include_pose = read_pose(r, pose_el, scope.version)
        sub.placement = child_text(r, inc, "placement_frame") or None
        sub.placement_at = find_child(inc, "placement_frame")
        if sub.placement and pose_el is None:
            raise r.error(inc, "<placement_frame> needs a <pose> in the same <include>")
        sub.static = child_bool(r, inc, "static", False)
        sub.include_el, sub.include_reader = inc, (r, scope.version)
        for c in list(inc):
            if isinstance(c.tag, str) and c.tag[0] == "{" and etree.QName(c).localname == "params":
                self.diag.warn(f"{self.diag.at(c)}: <{c.prefix}:params> of the include of '{uri}' is not applied: "
                               "the included model is read as its file says")
                inc.remove(c)  # (not kept either: in the written nested model it would mean nothing)
        self.included[model_el] = sub
        return model_el

    def edges(self) -> None:
        """Both edges of every vertex: pose relative_to (with its raw pose) and attached_to."""
        for name, vx in list(self.v.items()):
            scope, r, el = vx.scope, vx.scope.r, vx.el
            if vx.kind is FrameKind.WORLD or (vx.kind is FrameKind.MODEL and scope.empty):
                continue
            if vx.kind is FrameKind.MODEL:
                if scope.parent is None:
                    vx.rel, vx.raw = None, np.eye(4)
                    continue
                vx.rel, vx.raw = self._model_pose(scope)
                vx.attached = self.canonical(scope)
                continue
            if vx.kind is FrameKind.FRAME and scope.merged and name == scope.model_vertex:
                vx.rel, vx.raw = self._model_pose(scope)  # (a merged model's stand-in frame)
                vx.attached = self.canonical(scope)
                continue
            if vx.kind is FrameKind.FRAME:
                notes: list = []
                pose_el = look(el, FRAME_TAGS, (), notes, ATTRIBUTES["frame"]).get("pose")
                if notes:
                    self.frame_notes[el] = notes
            else:
                pose_el = find_child(el, "pose")
            pose, rel = read_pose(r, pose_el, scope.version)
            vx.raw = pose
            if vx.kind is FrameKind.LINK:
                vx.rel = self.resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else scope.model_vertex
            elif vx.kind is FrameKind.FRAME:
                att = (el.get("attached_to") or "").strip()
                vx.attached = self.resolve_or_fail(scope, att, el, "attached_to") if att else scope.model_vertex
                if vx.attached == name:
                    raise r.error(el, f"frame '{el.get('name')}' is attached to itself")
                if vx.attached == WORLD:
                    raise r.error(el, f"frame '{el.get('name')}' of a model cannot be attached to 'world'")
                vx.rel = self.resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else vx.attached
            elif vx.kind is FrameKind.JOINT:
                child = self.joint_end(vx, "child")
                vx.attached = child
                vx.rel = self.resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else child
            if vx.rel == name:
                raise r.error(pose_el, f"the pose of '{el.get('name')}' is relative to itself")

    def _model_pose(self, scope: Scope) -> tuple[str, np.ndarray]:
        """Where a nested or included model's frame is, relative to what: the <include>'s pose (read in the
        including file), else the model's own, in the model that holds it.  An included file's own model pose may
        not name a frame (libsdformat: it "must be left empty"); the error names that file."""
        outer = scope.parent
        if scope.include_pose is not None:
            (pose, rel), at = scope.include_pose, find_child(scope.include_el, "pose")
        else:
            at = find_child(scope.el, "pose")
            pose, rel = read_pose(scope.r, at, scope.version)
            if rel and scope.include_el is not None:
                raise scope.r.error(at, f"the <pose> of included model '{scope.el.get('name')}' has relative_to "
                                        f"'{rel}': an included file's own model pose must not (its <include> places it)")
        return (self.resolve_or_fail(outer, rel, at, "relative_to") if rel else outer.model_vertex), pose

    def joint_end(self, vx: Vertex, end: str) -> str:
        """The vertex a joint's <parent> or <child> names (any frame from 1.8, resolved to a link later)."""
        scope, r, el = vx.scope, vx.scope.r, vx.el
        e = find_child(el, end)
        jname = el.get("name")
        if e is None or not r.text(e):
            raise r.error(el, f"joint '{jname}' needs a <{end}>")
        ref = r.text(e)
        if self.spelled or getattr(r, "kept_space", True):
            self.check_spelling(scope, ref, e.text, e, f"the {end} of joint '{jname}',", text=True)
        if end == "child" and ref == WORLD:
            raise r.error(e, f"joint '{jname}': the child cannot be 'world'")
        if ref == jname and scope.locals.get(ref, (None,))[0] is FrameKind.JOINT:
            raise r.error(e, f"joint '{jname}': its {end} cannot be the joint itself")
        if ref == "__model__" or ref.endswith("::__model__"):
            raise r.error(e, f"joint '{jname}': the {end} cannot be a model frame ('{ref}'); name a link or frame")
        target = self.resolve_name(scope, ref)
        if target is None:
            raise r.error(
                e, f"{end} '{ref}' of joint '{jname}' does not name a link, frame or nested model of model '{scope.name}'"
            )
        return target

    # -- names -------------------------------------------------------------------------------
    def resolve_name(self, scope: Scope, ref: str) -> str | None:
        """The vertex a frame reference names inside a scope, or None.

        A name with `::` is looked up as written first (names of SDF < 1.8 may contain it), then
        as a path through nested models, as libsdformat 12 does.
        """
        while True:
            if ref == "__model__":
                return scope.model_vertex
            if ref == WORLD:
                return WORLD
            if ref in scope.locals:
                kind = scope.locals[ref][0]
                return scope.nested[ref].model_vertex if kind is FrameKind.MODEL else scope.scoped(ref)
            if "::" not in ref:
                return None
            head, rest = ref.split("::", 1)
            sub = scope.nested.get(head)
            if sub is None:  # (white space around a part, kept by libsdformat: check_spelling judges it)
                sub = scope.nested.get(head.strip())
            if sub is None:
                return None
            scope, ref = sub, rest

    def resolve_or_fail(self, scope: Scope, ref: str, el: etree._Element | None, what: str,
                        r: XmlReader | None = None) -> str:
        """`r`: the reader of `el`'s document, where it is not the scope's (an <include>'s <placement_frame>)."""
        r = scope.r if r is None else r
        if ref[:2] == "__" and ref != "__model__" and reserved_name(ref):  # (the test first: a call per reference)
            raise r.error(el, f"{what} '{ref}' is a reserved name")
        target = self.resolve_name(scope, ref)
        if target is None:
            raise r.error(el, f"{what} '{ref}' does not name a link, joint, frame or nested model of model '{scope.name}'")
        if el is not None and (self.spelled or getattr(r, "kept_space", True)):  # (a plain XmlReader: not known)
            self.check_spelling(scope, ref, el.get(what), el, what, r=r)
        return target

    def placement(self, scope: Scope) -> str:
        """The vertex of a model's placement frame: an <include>'s <placement_frame> (judged in the including
        document), else the model's own attribute."""
        at = scope.placement_at if scope.placement_at is not None else scope.el
        if at.tag != "placement_frame":
            return self.resolve_or_fail(scope, scope.placement, at, "placement_frame")
        r = scope.include_reader[0] if scope.include_reader is not None else scope.r
        target = self.resolve_or_fail(scope, scope.placement, at, "placement_frame", r)
        self.check_spelling(scope, scope.placement, at.text, at, "placement_frame", text=True, r=r)
        return target

    def check_spelling(self, scope: Scope, ref: str, raw: str | None, el: etree._Element, what: str,
                       text: bool = False, r: XmlReader | None = None) -> None:
        """Refuse a reference that libsdformat, which trims only ASCII white space (ATTRIBUTE_TRIM, TEXT_TRIM), does
        not find: `<child>C&#160;</child>` for a link named C, or `<child>C</child>` for one named `C&#160;`. The
        reader strips every white space of names and references, and read such files (libsdformat: "Child frame with
        name[C ] ... not found"); a reference spelled as the name, white space and all, is read.  `ref` is the
        reference as read and found, `raw` as written (None: not known, nothing to judge)."""
        if raw is None or not (self.spelled or getattr(scope.r if r is None else r, "kept_space", True)):
            return  # (no name kept white space, and the reference's document holds none)
        kept = raw.strip(TEXT_TRIM if text else ATTRIBUTE_TRIM)
        if kept == ref and not self.spelled:  # (every file but those with such white space)
            return
        if kept.strip() != ref.strip():  # (a reference read from elsewhere than `raw`)
            return
        spelled = self.spelling(scope, ref)
        if spelled is None or spelled == kept:
            return
        raise (scope.r if r is None else r).error(
            el, f"{what} {kept!r} means the frame named {spelled!r}, but libsdformat trims only spaces, tabs and line "
                "feeds around names and references (and carriage returns around an element's text), finds no frame "
                f"spelled {kept!r} and refuses the file")

    def spelling(self, scope: Scope, ref: str) -> str | None:
        """How libsdformat spells the name `ref` finds in `scope` (resolve_name's walk), or None where the reader
        does not find it."""
        parts: list[str] = []
        while True:
            if ref in ("__model__", WORLD):
                return "::".join((*parts, ref))
            if ref in scope.locals:
                return "::".join((*parts, self.spelled.get((scope.prefix, ref), ref)))
            if "::" not in ref:
                return None
            head, ref = ref.split("::", 1)
            head = head if head in scope.nested else head.strip()
            sub = scope.nested.get(head)
            if sub is None:
                return None
            parts.append(self.spelled.get((scope.prefix, head), head))
            scope = sub

    def canonical(self, scope: Scope) -> str:
        """The canonical link of a model: `canonical_link`, else its first link, else its first
        non-empty nested model's canonical link."""
        key = scope.model_vertex  # (a merged model shares the prefix of the model it is merged into)
        if key in self._canonical:
            return self._canonical[key]
        r = scope.r
        attr = (scope.el.get("canonical_link") or "").strip()
        if attr:
            target = self.resolve_name(scope, attr)
            if target is None or self.v[target].kind is not FrameKind.LINK:
                raise r.error(scope.el, f"canonical_link '{attr}' is not a link of model '{scope.name}'")
            self.check_spelling(scope, attr, scope.el.get("canonical_link"), scope.el, "canonical_link")
            result = target
        else:
            own = scope.own if scope.own is not None else list(scope.locals)
            links = [n for n in own if scope.locals[n][0] is FrameKind.LINK]
            nested = [scope.nested[n] for n in own if n in scope.nested and not scope.nested[n].empty]
            if links:
                result = scope.scoped(links[0])
            elif nested:
                result = self.canonical(nested[0])
            else:
                raise r.error(scope.el, f"model '{scope.name}' has no links")
        self._canonical[key] = result
        return result

    # == validate ===============================================================================
    def validate(self) -> None:
        """Both graphs whole, attached_to first as libsdformat does: no cycle, every frame on a
        link, no pose relative to the world."""
        done: set[str] = {WORLD}
        for name, vx in self.v.items():
            if vx.kind not in (FrameKind.WORLD, FrameKind.LINK) and vx.raw is not None:
                self._walk(name, done, "attached_to",
                           lambda n: None if self.v[n].kind in (FrameKind.LINK, FrameKind.MODEL) else self.v[n].attached)
        done = {WORLD}
        for name, vx in self.v.items():
            if vx.kind is not FrameKind.WORLD and vx.raw is not None:
                self._walk(name, done, "pose relative_to", self._pose_parent)

    def _pose_parent(self, name: str) -> str | None:
        nxt = self.v[name].rel
        if nxt == WORLD:
            bad = self.v[name]
            raise ModelError("a pose relative to 'world' cannot be resolved inside a model",
                             element=bad.el.get("name") if bad.el is not None else None)
        return nxt

    def _walk(self, start: str, done: set[str], what: str, step) -> None:
        """Follow `step` from `start` until a vertex already checked or the end; a repeat is a cycle."""
        path: list[str] = []
        on_path: set[str] = set()
        cur: str | None = start
        while cur is not None and cur not in done:
            if cur in on_path:
                cycle = " -> ".join(pretty(n) for n in path[path.index(cur):] + [cur])
                bad = self.v[cur]
                raise bad.scope.r.error(bad.el, f"cycle in {what} references: {cycle}")
            path.append(cur)
            on_path.add(cur)
            cur = step(cur)
        done.update(path)

    # == resolve ================================================================================
    def pose(self, name: str) -> np.ndarray:
        """model_H_vertex in the TOP model frame (after `validate`)."""
        chain: list[str] = []
        cur = name
        while cur not in self._pose:
            vx = self.v[cur]
            if vx.rel is None:
                self._pose[cur] = self._raw(vx)
                break
            chain.append(cur)
            cur = vx.rel
        if chain and self._far is None:
            self._far = far_apart(vx.raw for vx in self.v.values() if vx.raw is not None)
        for n in reversed(chain):
            vx = self.v[n]
            if not self._far:
                self._pose[n] = self._pose[vx.rel] @ self._raw(vx)
                continue
            with np.errstate(all="ignore"):  # a pose beyond a double: refused here, at its element
                pose = self._pose[vx.rel] @ self._raw(vx)
            if not np.all(np.isfinite(pose)):
                at = vx.el if vx.el is not None else vx.scope.el
                raise vx.scope.r.error(at, f"the pose of '{n}' relative to '{vx.rel}' puts it beyond the range of "
                                           "a double")
            self._pose[n] = pose
        return self._pose[name]

    def _raw(self, vx: Vertex) -> np.ndarray:
        """A vertex's pose relative to its `rel`, with a nested model's placement_frame applied."""
        if not vx.scope.placement or vx.name != vx.scope.model_vertex:  # (a model's vertex, or a merged one's)
            return vx.raw
        scope = vx.scope
        target = self.placement(scope)
        # model_H_placement inside the model, walking relative_to up to the model frame
        h = np.eye(4)
        cur: str | None = target
        seen: set[str] = set()
        while cur != vx.name:
            if cur is None or cur in seen or cur == WORLD:
                raise scope.r.error(scope.el, f"placement_frame '{scope.placement}' cannot be resolved (cycle)")
            seen.add(cur)
            c = self.v[cur]
            h = self._raw(c) @ h
            cur = c.rel
        return vx.raw @ inverse(h)

    def attached_link(self, name: str) -> str:
        """The link a vertex is rigidly attached to ('world' for the world), after `validate`."""
        chain: list[str] = []
        cur = name
        while cur not in self._attached:
            if cur == WORLD:
                self._attached[cur] = WORLD
                break
            vx = self.v[cur]
            if vx.kind is FrameKind.LINK:
                self._attached[cur] = cur
                break
            if vx.kind is FrameKind.MODEL:
                self._attached[cur] = self.canonical(vx.scope)
                break
            chain.append(cur)
            cur = vx.attached
        for n in reversed(chain):
            self._attached[n] = self._attached[self.v[n].attached]
        return self._attached[name]


__all__ = ["RESOLVABLE", "WORLD", "FrameGraph", "FrameKind", "Scope", "Vertex", "check_name", "pretty"]
