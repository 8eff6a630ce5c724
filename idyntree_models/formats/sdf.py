"""SDFormat 1.4 to 1.11: import with the specification's frame semantics, export to SDF 1.9.

Import happens in two stages.  `read_sdf` builds an `SdfGraph`: every link, joint, frame, nested
model and sensor of the chosen model, with scoped names (`outer::inner::link`) and poses resolved
in the top model's frame through the pose graph (`relative_to`, `attached_to`, `placement_frame`,
version-dependent defaults).  That stage mirrors libsdformat and can be compared with it even for
files that are not trees.  `load` then turns the graph into a tree `Model`, with the choices of
docs/sdf.md (universal joints split, world joints, IMU split, ...).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

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
)
from ..model.transforms import (
    inverse,
    make_transform,
    matrix_to_rpy,
    quat_to_matrix,
    rpy_to_matrix,
)
from .base import Diagnostics, ExportOptions, LoadOptions
from .xmlutil import XmlReader, parse_xml

MIN_VERSION = (1, 4)
MAX_VERSION = (1, 11)
UNLIMITED = 1e16  # SDF's "no limit" default for position limits before 1.10
EQUAL_LIMITS_TOL = 1e-10  # iDynTree: a revolute/prismatic joint with equal limits is fixed
IDYNTREE_NS = "https://github.com/robotology/idyntree"
RESOLVABLE_KINDS = ("link", "joint", "frame", "model")


def detect(text: str) -> bool:
    from .xmlutil import root_tag

    return root_tag(text) == "sdf"


# -- lenient XML -------------------------------------------------------------------------------
def _repair_xml(text: str | bytes, diag: Diagnostics) -> str | bytes:
    """Fix the three deviations tinyxml2 (libsdformat) accepts and published worlds contain.

    Only repairs that cannot change the meaning of the document: text before the XML
    declaration, a declaration missing its `<`, and `--` inside comments.  Anything else is
    left to the strict parser, whose error names the line.
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError:
            return text
    out = text.lstrip("\ufeff")
    m = re.match(r"\s*((?:<!--.*?-->\s*)+)(<\?xml)", out, flags=re.DOTALL)
    if m:
        out = out[m.start(2):]
        diag.warn("comment before the <?xml ...?> declaration removed (not valid XML, accepted by libsdformat)")
    elif re.match(r"\s+<\?xml", out):
        out = out.lstrip()
    if re.match(r"\s*\?xml\b", out):
        out = "<" + out.lstrip()
        diag.warn("the XML declaration lacks its '<'; read as '<?xml ...?>' (accepted by libsdformat)")

    fixed = 0

    def comment(mm: re.Match) -> str:
        nonlocal fixed
        body = mm.group(1)
        if "--" in body or body.endswith("-"):
            fixed += 1
            body = body.replace("--", "- -")
            if body.endswith("-"):
                body += " "
        return "<!--" + body + "-->"

    out = re.sub(r"<!--(.*?)-->", comment, out, flags=re.DOTALL)
    if fixed:
        diag.warn(f"{fixed} comment(s) contain '--' (not valid XML, accepted by libsdformat); read anyway")
    # custom elements (<mysim:thing>) often use a prefix that is never declared
    body = re.sub(r"<!--.*?-->", "", out, flags=re.DOTALL)
    used = set(re.findall(r"</?([A-Za-z_][\w.-]*):[A-Za-z_]", body))
    used |= set(re.findall(r"\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=", body))
    missing = sorted(p for p in used - {"xmlns", "xml"} if not re.search(rf"xmlns:{re.escape(p)}\s*=", body))
    if missing:
        decl = "".join(f' xmlns:{p}="urn:undeclared:{p}"' for p in missing)
        out, n = re.subn(r"<sdf\b", "<sdf" + decl, out, count=1)
        if n:
            diag.warn(f"undeclared XML namespace prefix(es) {', '.join(missing)} declared so the file can be read "
                      "(custom elements are not part of the model)")
    return out


# -- small readers --------------------------------------------------------------------------------
def _version(r: XmlReader, root: etree._Element, diag: Diagnostics) -> tuple[int, int]:
    raw = (root.get("version") or "").strip()
    m = re.fullmatch(r"(\d+)\.(\d+)", raw)
    if not m:
        raise r.error(root, f"<sdf> needs a version attribute like '1.9', got '{raw}'")
    v = (int(m.group(1)), int(m.group(2)))
    if v[0] != 1:
        raise r.error(root, f"SDF version {raw} is not supported (1.4 to 1.11)")
    if v < MIN_VERSION:
        diag.warn(f"SDF version {raw} is older than 1.4; read with the 1.4 rules")
        return MIN_VERSION
    if v > MAX_VERSION:
        diag.warn(f"SDF version {raw} is newer than 1.11; read with the 1.11 rules")
    return v


def _child_text(r: XmlReader, el: etree._Element, tag: str, default: str | None = None) -> str | None:
    c = el.find(tag)
    return r.text(c) if c is not None else default


def _child_float(r: XmlReader, el: etree._Element | None, tag: str, default: float) -> float:
    if el is None:
        return default
    c = el.find(tag)
    if c is None or not r.text(c):
        return default
    raw = r.text(c).lower()
    if raw in ("inf", "+inf", "infinity"):
        return math.inf
    if raw in ("-inf", "-infinity"):
        return -math.inf
    return r.float_text(c)


def _child_bool(r: XmlReader, el: etree._Element, tag: str, default: bool) -> bool:
    c = el.find(tag)
    return r.bool_text(c) if c is not None and r.text(c) else default


def _pose(r: XmlReader, el: etree._Element | None, version: tuple[int, int]) -> tuple[np.ndarray, str | None]:
    """The transform of a <pose> element and its relative_to frame (None: the default frame)."""
    if el is None:
        return np.eye(4), None
    rel = el.get("relative_to")
    if rel is None and version < (1, 7):
        rel = el.get("frame")  # 1.5/1.6 //pose/@frame, read as relative_to
    rel = rel.strip() if rel is not None and rel.strip() else None
    fmt = (el.get("rotation_format") or "euler_rpy").strip()
    degrees = (el.get("degrees") or "false").strip().lower() in ("true", "1")
    raw = r.text(el)
    if not raw:
        return np.eye(4), rel
    if fmt == "quat_xyzw":
        v = r._floats(el, raw, "<pose> value (x y z qx qy qz qw)", 7)
        q = np.array([v[6], v[3], v[4], v[5]])
        if np.linalg.norm(q) < 1e-12:
            raise r.error(el, "the pose quaternion has zero length")
        return make_transform(quat_to_matrix(q), v[:3]), rel
    if fmt != "euler_rpy":
        raise r.error(el, f"rotation_format must be euler_rpy or quat_xyzw, got '{fmt}'")
    v = r._floats(el, raw, "<pose> value (x y z roll pitch yaw)", 6)
    rpy = np.radians(v[3:]) if degrees else v[3:]
    return make_transform(rpy_to_matrix(rpy), v[:3]), rel


# -- the graph -------------------------------------------------------------------------------------
@dataclass
class _Scope:
    """One <model> (top-level, nested or included) with its own version and file."""

    prefix: str  # "" for the top model, else "outer::inner"
    el: etree._Element
    version: tuple[int, int]
    r: XmlReader
    base_dir: str | None
    locals: dict[str, tuple[str, etree._Element]] = field(default_factory=dict)  # name -> (kind, element)
    nested: dict[str, _Scope] = field(default_factory=dict)
    parent: _Scope | None = None
    include_pose: tuple[np.ndarray, str | None] | None = None
    placement: str | None = None
    static: bool = False
    empty: bool = False

    def scoped(self, name: str) -> str:
        return f"{self.prefix}::{name}" if self.prefix else name

    @property
    def model_vertex(self) -> str:
        return self.scoped("__model__")

    @property
    def name(self) -> str:
        return self.el.get("name", "")


@dataclass
class _Vertex:
    name: str
    kind: str  # link, joint, frame, model, sensor, world
    scope: _Scope
    el: etree._Element | None
    rel: str | None = None  # pose relative_to vertex
    raw: np.ndarray | None = None
    attached: str | None = None  # attached_to vertex


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
    scope: _Scope
    extra: dict = field(default_factory=dict)


@dataclass
class SdfSensor:
    name: str
    type: str
    owner: str  # link or joint scoped name
    model_H_sensor: np.ndarray
    el: etree._Element
    scope: _Scope


@dataclass
class SdfGraph:
    """The chosen model resolved in its own frame, before any tree-model choices."""

    name: str
    version: tuple[int, int]
    links: dict[str, np.ndarray] = field(default_factory=dict)  # model_H_link
    link_elements: dict[str, tuple[etree._Element, _Scope]] = field(default_factory=dict)
    joints: dict[str, SdfJoint] = field(default_factory=dict)
    frames: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # (attached link, model_H_frame)
    models: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # nested: (canonical link, model_H)
    sensors: list[SdfSensor] = field(default_factory=list)
    canonical: str = ""
    static: bool = False
    world: str | None = None


class _Builder:
    def __init__(self, options: LoadOptions, diag: Diagnostics) -> None:
        self.options = options
        self.diag = diag
        self.v: dict[str, _Vertex] = {}
        self.scopes: list[_Scope] = []
        self._pose_cache: dict[str, np.ndarray] = {}
        self._attach_cache: dict[str, str] = {}
        self._canonical: dict[str, str] = {}
        self.included: dict[etree._Element, _Scope] = {}  # the included <model> element -> its scope

    # -- collection ------------------------------------------------------------------------
    def collect(self, scope: _Scope) -> None:
        self.scopes.append(scope)
        r, version = scope.r, scope.version
        el = scope.el
        name = el.get("name")
        if name is None or not name.strip():
            raise r.error(el, "a <model> needs a name attribute")
        self.v[scope.model_vertex] = _Vertex(scope.model_vertex, "model", scope, el)
        seen_lines: dict[tuple[str, str], int] = {}
        for c in el:
            if not isinstance(c.tag, str):
                continue
            tag = c.tag
            if tag == "include":
                c = self._include(scope, c)
                if c is None:
                    continue
                tag = "model"
            if tag not in RESOLVABLE_KINDS:
                continue
            n = (c.get("name") or "").strip()
            if not n:
                raise r.error(c, f"<{tag}> needs a name attribute")
            _check_name(r, c, n, tag, version)
            # up to 1.6 only links clash with links and joints with joints
            key = ("any", n) if version >= (1, 7) else (tag, n)
            if key in seen_lines:
                other = scope.locals[n][0]
                raise r.error(
                    c,
                    f"duplicate name '{n}' in model '{scope.name}': a {other} (line {seen_lines[key]}) and a {tag} "
                    "share it (names of links, joints, frames and nested models must be unique)",
                )
            seen_lines[key] = c.sourceline
            if n in scope.locals and version < (1, 7) and tag == "joint" and scope.locals[n][0] == "link":
                # the 1.7 conversion of libsdformat renames such joints to <name>_joint
                new = n + "_joint"
                while new in scope.locals:
                    new += "_joint"
                self.diag.warn(f"line {c.sourceline}: joint '{n}' renamed '{new}' (a link has the same name)")
                c.set("name", new)
                n = new
            scope.locals[n] = (tag, c)
            if tag == "model":
                sub = self.included.get(c)
                if sub is None:
                    sub = _Scope(scope.scoped(n), c, version, r, scope.base_dir, parent=scope)
                else:
                    sub.prefix, sub.parent = scope.scoped(n), scope
                sub.placement = (c.get("placement_frame") or "").strip() or sub.placement
                scope.nested[n] = sub
                self.collect(sub)
            else:
                self.v[scope.scoped(n)] = _Vertex(scope.scoped(n), tag, scope, c)
        if not any(kind == "link" for kind, _ in scope.locals.values()) and all(n.empty for n in scope.nested.values()):
            if scope.parent is not None and (_child_bool(r, el, "static", False) or scope.nested):
                self.diag.warn(f"line {el.sourceline}: static model '{scope.name}' has no links; its frame is left out")
                scope.empty = True
                return
            raise r.error(el, f"model '{scope.name}' has no links (a model must have at least one link)")

    def _include(self, scope: _Scope, inc: etree._Element) -> etree._Element | None:
        r = scope.r
        uri = _child_text(r, inc, "uri")
        if not uri:
            raise r.error(inc, "<include> needs a <uri>")
        path = resolve_uri(uri, scope.base_dir, self.options.search_paths)
        if path is None:
            raise r.error(
                inc,
                f"cannot find '{uri}' (searched the file's directory, the model paths given as options, SDF_PATH "
                "and GZ_SIM_RESOURCE_PATH)",
            )
        sub_root, sub_r, sub_version = _read_file(path, self.diag)
        model_el = sub_root.find("model")
        if model_el is None:
            if sub_root.find("light") is not None or sub_root.find("actor") is not None:
                self.diag.warn(f"line {inc.sourceline}: included '{uri}' holds no model; ignored")
                return None
            raise r.error(inc, f"included file {path} has no <model>")
        if (inc.get("merge") or "").strip().lower() in ("true", "1"):
            self.diag.warn(
                f"line {inc.sourceline}: merge-include of '{uri}' is read as a nested model (names keep the "
                "included model's name as scope)"
            )
        name = _child_text(r, inc, "name")
        if name:
            model_el.set("name", name)
        sub = _Scope("", model_el, sub_version, sub_r, str(Path(path).parent))
        pose_el = inc.find("pose")
        if pose_el is not None:
            sub.include_pose = _pose(r, pose_el, scope.version)
        sub.placement = _child_text(r, inc, "placement_frame") or None
        if sub.placement and pose_el is None:
            raise r.error(inc, "<placement_frame> needs a <pose> in the same <include>")
        sub.static = _child_bool(r, inc, "static", False)
        self.included[model_el] = sub
        return model_el

    # -- name resolution -------------------------------------------------------------------
    def resolve(self, scope: _Scope, ref: str) -> str | None:
        """The vertex a frame reference names inside a scope, or None."""
        if ref == "__model__":
            return scope.model_vertex
        if ref == "world":
            return "world"
        if "::" in ref:
            head, rest = ref.split("::", 1)
            sub = scope.nested.get(head)
            return self.resolve(sub, rest) if sub is not None else None
        if ref in scope.nested:
            return scope.nested[ref].model_vertex
        if ref in scope.locals:
            return scope.scoped(ref)
        return None

    def _resolve_or_fail(self, scope: _Scope, ref: str, el: etree._Element, what: str) -> str:
        if ref.startswith("__") and ref.endswith("__") and ref != "__model__":
            raise scope.r.error(el, f"{what} '{ref}' is a reserved name")
        target = self.resolve(scope, ref)
        if target is None:
            raise scope.r.error(
                el, f"{what} '{ref}' does not name a link, joint, frame or nested model of model '{scope.name}'"
            )
        return target

    # -- canonical links -------------------------------------------------------------------
    def canonical(self, scope: _Scope) -> str:
        if scope.prefix in self._canonical:
            return self._canonical[scope.prefix]
        r = scope.r
        attr = (scope.el.get("canonical_link") or "").strip()
        if attr:
            target = self.resolve(scope, attr)
            if target is None or self.v[target].kind != "link":
                raise r.error(scope.el, f"canonical_link '{attr}' is not a link of model '{scope.name}'")
            result = target
        else:
            links = [n for n, (k, _) in scope.locals.items() if k == "link"]
            if links:
                result = scope.scoped(links[0])
            elif any(not n.empty for n in scope.nested.values()):
                result = self.canonical(next(n for n in scope.nested.values() if not n.empty))
            else:
                raise r.error(scope.el, f"model '{scope.name}' has no links")
        self._canonical[scope.prefix] = result
        return result

    # -- edges -----------------------------------------------------------------------------
    def edges(self) -> None:
        for name, vx in list(self.v.items()):
            scope, r, el = vx.scope, vx.scope.r, vx.el
            if vx.kind == "world":
                continue
            if vx.kind == "model" and scope.empty:
                continue
            if vx.kind == "model":
                if scope.parent is None:
                    vx.rel, vx.raw = None, np.eye(4)
                    continue
                pose_el = el.find("pose")
                pose, rel = scope.include_pose if scope.include_pose is not None else _pose(r, pose_el, scope.version)
                parent = scope.parent
                vx.rel = self._resolve_or_fail(parent, rel, pose_el, "relative_to") if rel else parent.model_vertex
                vx.raw = pose
                vx.attached = self.canonical(scope)
                continue
            pose_el = el.find("pose")
            pose, rel = _pose(r, pose_el, scope.version)
            vx.raw = pose
            if vx.kind == "link":
                vx.rel = self._resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else scope.model_vertex
                vx.attached = None
            elif vx.kind == "frame":
                att = (el.get("attached_to") or "").strip()
                vx.attached = self._resolve_or_fail(scope, att, el, "attached_to") if att else scope.model_vertex
                if vx.attached == name:
                    raise r.error(el, f"frame '{el.get('name')}' is attached to itself")
                if vx.attached == "world":
                    raise r.error(el, f"frame '{el.get('name')}' of a model cannot be attached to 'world'")
                vx.rel = self._resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else vx.attached
            elif vx.kind == "joint":
                child = self._joint_end(vx, "child")
                vx.attached = child
                vx.rel = self._resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else child
            if vx.rel == name:
                raise r.error(pose_el, f"the pose of '{el.get('name')}' is relative to itself")

    def _joint_end(self, vx: _Vertex, end: str) -> str:
        scope, r, el = vx.scope, vx.scope.r, vx.el
        e = el.find(end)
        jname = el.get("name")
        if e is None or not r.text(e):
            raise r.error(el, f"joint '{jname}' needs a <{end}>")
        ref = r.text(e)
        if end == "child" and ref == "world":
            raise r.error(e, f"joint '{jname}': the child cannot be 'world'")
        if ref == jname and scope.locals.get(ref, ("",))[0] == "joint":
            raise r.error(e, f"joint '{jname}': its {end} cannot be the joint itself")
        if ref == "__model__" or ref.endswith("::__model__"):
            raise r.error(e, f"joint '{jname}': the {end} cannot be a model frame ('{ref}'); name a link or frame")
        target = self.resolve(scope, ref)
        if target is None:
            raise r.error(
                e, f"{end} '{ref}' of joint '{jname}' does not name a link, frame or nested model of model '{scope.name}'"
            )
        return target

    # -- resolution ------------------------------------------------------------------------
    def pose(self, name: str, stack: tuple[str, ...] = ()) -> np.ndarray:
        """model_H_vertex in the TOP model frame."""
        if name in self._pose_cache:
            return self._pose_cache[name]
        if name in stack:
            cycle = " -> ".join(self._pretty(n) for n in stack[stack.index(name):] + (name,))
            vx = self.v[name]
            raise vx.scope.r.error(vx.el, f"cycle in pose relative_to references: {cycle}")
        if name == "world":
            vx = self.v[stack[-1]] if stack else None
            raise ModelError(
                "a pose relative to 'world' cannot be resolved inside a model", element=vx and vx.el.get("name")
            )
        vx = self.v[name]
        if vx.rel is None:
            result = vx.raw
        else:
            result = self.pose(vx.rel, stack + (name,)) @ self._raw(vx, stack + (name,))
        self._pose_cache[name] = result
        return result

    def _raw(self, vx: _Vertex, stack: tuple[str, ...]) -> np.ndarray:
        if vx.kind != "model" or not vx.scope.placement:
            return vx.raw
        scope = vx.scope
        target = self._resolve_or_fail(scope, scope.placement, scope.el, "placement_frame")
        # model_H_placement inside the model, walking relative_to up to the model frame
        h = np.eye(4)
        cur = target
        seen = set(stack)
        while cur != vx.name:
            if cur is None or cur in seen or cur == "world":
                raise scope.r.error(scope.el, f"placement_frame '{scope.placement}' cannot be resolved (cycle)")
            seen.add(cur)
            c = self.v[cur]
            h = self._raw(c, stack + (cur,)) @ h
            cur = c.rel
        return vx.raw @ inverse(h)

    def attached_link(self, name: str, stack: tuple[str, ...] = ()) -> str:
        if name in self._attach_cache:
            return self._attach_cache[name]
        if name in stack:
            cycle = " -> ".join(self._pretty(n) for n in stack[stack.index(name):] + (name,))
            vx = self.v[name]
            raise vx.scope.r.error(vx.el, f"cycle in attached_to references: {cycle}")
        if name == "world":
            return "world"
        vx = self.v[name]
        if vx.kind == "link":
            result = name
        elif vx.kind == "model" and name.endswith("__model__"):
            result = self.canonical(vx.scope)
        else:
            result = self.attached_link(vx.attached, stack + (name,))
        self._attach_cache[name] = result
        return result

    @staticmethod
    def _pretty(name: str) -> str:
        return name.removesuffix("::__model__")


def _check_name(r: XmlReader, el: etree._Element, name: str, tag: str, version: tuple[int, int]) -> None:
    if name == "world" or (name.startswith("__") and name.endswith("__")):
        raise r.error(el, f"the {tag} name '{name}' is reserved ('world' and names like __name__ cannot be used)")
    if "::" in name and version >= (1, 8):
        raise r.error(el, f"the {tag} name '{name}' contains '::', which SDF 1.8+ reserves for scopes")


# -- files and URIs --------------------------------------------------------------------------------
def search_path_list(extra: tuple[str, ...] | list[str] = ()) -> list[str]:
    out = [str(p) for p in extra]
    for var in ("SDF_PATH", "GZ_SIM_RESOURCE_PATH", "IGN_GAZEBO_RESOURCE_PATH"):
        out += [p for p in os.environ.get(var, "").split(os.pathsep) if p]
    return out


def resolve_uri(uri: str, base_dir: str | None, extra: tuple[str, ...] | list[str] = ()) -> str | None:
    """A model directory or file for an include URI (model://, file://, relative or absolute path)."""
    rel = uri.strip()
    for scheme in ("model://", "file://"):
        if rel.startswith(scheme):
            rel = rel[len(scheme):]
            break
    else:
        if "://" in rel:
            return None
    candidates: list[Path] = []
    if os.path.isabs(rel):
        candidates.append(Path(rel))
    else:
        if base_dir:
            candidates.append(Path(base_dir) / rel)
        candidates += [Path(p) / rel for p in search_path_list(extra)]
    for c in candidates:
        if c.is_file():
            return str(c)
        if c.is_dir():
            f = _model_file(c)
            if f is not None:
                return f
    return None


def _model_file(directory: Path) -> str | None:
    config = directory / "model.config"
    if config.is_file():
        try:
            root = parse_xml(config.read_bytes(), str(config))
        except ModelError:
            root = None
        if root is not None:
            best: tuple[tuple[int, int], str] | None = None
            for s in root.findall("sdf"):
                m = re.fullmatch(r"(\d+)\.(\d+)", (s.get("version") or "0.0").strip())
                v = (int(m.group(1)), int(m.group(2))) if m else (0, 0)
                name = (s.text or "").strip()
                if name and (directory / name).is_file() and v <= MAX_VERSION and (best is None or v > best[0]):
                    best = (v, str(directory / name))
            if best is not None:
                return best[1]
    return None


def _read_file(path: str, diag: Diagnostics) -> tuple[etree._Element, XmlReader, tuple[int, int]]:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise ModelError(f"cannot read the included file: {e.strerror}", source=path) from None
    root = parse_xml(_repair_xml(data, diag), path)
    r = XmlReader(path)
    if root.tag != "sdf":
        raise r.error(root, f"the root element is <{root.tag}>, an SDF file needs <sdf>")
    return root, r, _version(r, root, diag)


# -- building the graph -------------------------------------------------------------------------
def _choose_model(
    b: _Builder, root: etree._Element, r: XmlReader, version: tuple[int, int], base_dir: str | None
) -> tuple[_Scope, str | None]:
    wanted = b.options.model
    models = root.findall("model")
    worlds = root.findall("world")
    if models:
        if len(models) > 1:
            b.diag.warn(f"the file has {len(models)} top-level models; libsdformat uses the first")
        el = models[0]
        if wanted and el.get("name") != wanted:
            el = next((m for m in models if m.get("name") == wanted), None)
            if el is None:
                raise r.error(root, f"no model named '{wanted}' (models: {', '.join(m.get('name', '?') for m in models)})")
        pose_el = el.find("pose")
        if pose_el is not None and (pose_el.get("relative_to") or "").strip():
            raise r.error(pose_el, "the pose of a top-level model must not have relative_to")
        return _Scope("", el, version, r, base_dir), None
    if not worlds:
        raise r.error(root, "the file holds neither a <model> nor a <world>")
    world = worlds[0]
    names: list[str] = []
    for c in world:
        if not isinstance(c.tag, str):
            continue
        if c.tag == "model":
            el, sub = c, _Scope("", c, version, r, base_dir)
        elif c.tag == "include":
            dummy = _Scope("", world, version, r, base_dir)
            el = b._include(dummy, c)
            if el is None:
                continue
            sub = b.included[el]
            sub.include_pose = None
        else:
            continue
        names.append(el.get("name", "?"))
        if wanted is None or el.get("name") == wanted:
            return sub, world.get("name")
    if wanted:
        raise r.error(world, f"world '{world.get('name')}' has no model named '{wanted}' (models: {', '.join(names)})")
    raise r.error(world, f"world '{world.get('name')}' has no model")


_DOUBLE_TAGS = {"linear", "angular", "update_rate", "stiffness", "dissipation", "spring_reference", "spring_stiffness",
                "mass", "ixx", "ixy", "ixz", "iyy", "iyz", "izz", "lower", "upper", "radius", "length", "mu", "mu2",
                "restitution_coefficient", "soft_cfm", "soft_erp", "kp", "kd", "max_vel", "min_depth", "transparency",
                "laser_retro", "thread_pitch", "screw_thread_pitch", "gearbox_ratio", "cfm_damping"}
_BOOL_TAGS = {"static", "self_collide", "allow_auto_disable", "kinematic", "must_be_base_link", "enable_wind",
              "always_on", "visualize", "cast_shadows", "use_parent_model_frame", "implicit_spring_damper"}
_VECTOR_TAGS = {"size": 3, "scale": 3, "radii": 3, "gravity": 3, "magnetic_field": 3, "wind": 3}


def _check_values(r: XmlReader, root: etree._Element) -> None:
    """Reject malformed values anywhere in the model, as libsdformat does, not only in what we use."""
    for el in root.iter():
        if not isinstance(el.tag, str) or "}" in el.tag or el.tag == "plugin":
            continue
        if any(a.tag == "plugin" or (isinstance(a.tag, str) and "}" in a.tag) for a in el.iterancestors()):
            continue
        raw = r.text(el)
        if not raw or len(el):
            continue
        if el.tag in _DOUBLE_TAGS:
            if raw.lower().lstrip("+-") not in ("inf", "infinity"):
                r._floats(el, raw, f"<{el.tag}> value", 1)
        elif el.tag in _BOOL_TAGS:
            r.bool_text(el)
        elif el.tag in _VECTOR_TAGS and not (el.tag == "gravity" and el.getparent().tag == "link"):
            if el.tag in ("scale", "size") and el.getparent().tag not in ("mesh", "box"):
                continue
            r._floats(el, raw, f"<{el.tag}> value", _VECTOR_TAGS[el.tag])
        elif el.tag == "pose":
            _pose(r, el, (1, 11))


def _check_world(b: _Builder, world: etree._Element, r: XmlReader, version: tuple[int, int]) -> None:
    """World-level frames and model poses must name world-level frames or models (no cycles)."""
    names: dict[str, etree._Element] = {}
    for c in world:
        if isinstance(c.tag, str) and c.tag in ("model", "frame"):
            names[(c.get("name") or "").strip()] = c
        elif isinstance(c.tag, str) and c.tag == "include":
            if (c.get("merge") or "").strip().lower() in ("true", "1"):
                raise r.error(c, "merge-include is not allowed directly in a <world> (only inside a model)")
            n = _child_text(r, c, "name")
            if n:
                names[n] = c

    def check(el: etree._Element, ref: str, what: str) -> None:
        if ref.startswith("__") and ref.endswith("__"):
            raise r.error(el, f"{what} '{ref}' is a reserved name")
        head, _, rest = ref.partition("::")
        if ref == "world":
            return
        target = names.get(head)
        if target is None:
            raise r.error(el, f"{what} '{ref}' does not name a model or frame of world '{world.get('name')}'")
        if rest and target.tag == "model":
            sub = _Builder(b.options, Diagnostics(b.diag.source))
            scope = _Scope("", target, version, r, None)
            sub.collect(scope)
            if sub.resolve(scope, rest) is None:
                raise r.error(el, f"{what} '{ref}' does not name a frame inside model '{head}'")
        elif rest:
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
        pose_el = c.find("pose")
        rel = (pose_el.get("relative_to") or "").strip() if pose_el is not None else ""
        if rel:
            if rel == own:
                raise r.error(pose_el, f"the pose of '{own}' is relative to itself (cycle)")
            check(pose_el, rel, "relative_to")
        placement = (c.get("placement_frame") or "").strip() if c.tag == "model" else ""
        if placement.startswith("__") and placement.endswith("__") and placement != "__model__":
            raise r.error(c, f"placement_frame '{placement}' is a reserved name")


def read_sdf(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> SdfGraph:
    """Parse SDF text and resolve every frame of the chosen model in its model frame."""
    root = parse_xml(_repair_xml(text, diag), diag.source)
    r = XmlReader(diag.source)
    if root.tag != "sdf":
        raise r.error(root, f"the root element is <{root.tag}>, an SDF file needs <sdf>")
    version = _version(r, root, diag)
    b = _Builder(options, diag)
    names = [m.get("name") for m in root.findall("model")]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup is not None:
        raise r.error(root, f"two top-level models are named '{dup}'")
    for w in root.findall("world"):
        _check_world(b, w, r, version)
    top, world = _choose_model(b, root, r, version, options.base_dir)
    _check_values(top.r, top.el)
    if root.find("world") is not None:
        for tag in ("gravity", "magnetic_field", "wind/linear_velocity"):
            e = root.find("world").find(tag)
            if e is not None and r.text(e):
                r._floats(e, r.text(e), f"<{e.tag}> value", 3)
    b.collect(top)
    placement = (top.el.get("placement_frame") or "").strip()
    if placement:
        if top.el.find("pose") is None and top.include_pose is None:
            raise top.r.error(top.el, "placement_frame needs a <pose> in the model")
        b._resolve_or_fail(top, placement, top.el, "placement_frame")
    b.v["world"] = _Vertex("world", "world", top, None)
    b.edges()
    g = SdfGraph(top.name, top.version, world=world)
    g.static = _child_bool(top.r, top.el, "static", False) or top.static
    g.canonical = b.canonical(top)
    for name, vx in b.v.items():
        if vx.kind == "world" or "\x00" in name:
            continue
        if vx.kind == "link":
            g.links[name] = b.pose(name)
            g.link_elements[name] = (vx.el, vx.scope)
            _link_sensors(b, g, vx)
        elif vx.kind == "frame":
            g.frames[name] = (b.attached_link(name), b.pose(name))
        elif vx.kind == "model" and vx.scope.parent is not None and not vx.scope.empty:
            g.models[vx.scope.prefix] = (b.canonical(vx.scope), b.pose(name))
    for vx in b.v.values():
        if vx.kind == "joint":
            g.joints[vx.name] = _joint(b, vx)
            _joint_sensors(b, g, vx)
    return g


def _axis_frame(b: _Builder, vx: _Vertex, xyz_el: etree._Element | None, axis_el: etree._Element) -> str:
    scope, r = vx.scope, vx.scope.r
    version = scope.version
    if version < (1, 5):
        return scope.model_vertex
    if version < (1, 7):
        return scope.model_vertex if _child_bool(r, axis_el, "use_parent_model_frame", False) else vx.name
    expressed = (xyz_el.get("expressed_in") or "").strip() if xyz_el is not None else ""
    if not expressed:
        return vx.name
    target = b.resolve(scope, expressed)
    if target is None or target == "world":
        raise r.error(xyz_el, f"expressed_in '{expressed}' does not name a frame of model '{scope.name}'")
    return target


_DOF = {"fixed": 0, "revolute": 1, "continuous": 1, "prismatic": 1, "screw": 1, "gearbox": 1, "ball": 0,
        "universal": 2, "revolute2": 2}


def _joint(b: _Builder, vx: _Vertex) -> SdfJoint:
    scope, r, el = vx.scope, vx.scope.r, vx.el
    jname = el.get("name")
    jtype = (el.get("type") or "").strip()
    if jtype not in _DOF:
        raise r.error(el, f"joint '{jname}': unknown type '{jtype}' (expected {', '.join(_DOF)})")
    parent_ref = b._joint_end(vx, "parent")
    child_ref = vx.attached
    parent = b.attached_link(parent_ref) if parent_ref != "world" else "world"
    child = b.attached_link(child_ref)
    if parent_ref == child_ref:
        raise r.error(el, f"joint '{jname}': parent and child are the same frame '{r.text(el.find('child'))}'")
    if parent == child:
        raise r.error(el, f"joint '{jname}': parent and child both resolve to link '{child}'")
    if child == "world":
        raise r.error(el, f"joint '{jname}': the child resolves to 'world'")
    model_H_joint = b.pose(vx.name)
    axes: list[np.ndarray] = []
    limits: list[dict[str, float]] = []
    v10 = scope.version >= (1, 10)
    for i in range(_DOF[jtype]):
        tag = "axis" if i == 0 else "axis2"
        axis_el = el.find(tag)
        if axis_el is None:
            if jtype in ("screw", "gearbox") and i == 0 and el.find("axis") is None:
                pass
            b.diag.warn(f"line {el.sourceline}: {jtype} joint '{jname}' has no <{tag}>; using 0 0 1")
            axis_el = etree.Element(tag)
        xyz_el = axis_el.find("xyz")
        xyz = r.floats_text(xyz_el, 3) if xyz_el is not None and r.text(xyz_el) else np.array([0.0, 0.0, 1.0])
        n = float(np.linalg.norm(xyz))
        if n < 1e-12:
            raise r.error(xyz_el, f"joint '{jname}': the <{tag}><xyz> direction has zero length")
        frame = _axis_frame(b, vx, xyz_el, axis_el)
        axes.append(b.pose(frame)[:3, :3] @ (xyz / n))
        lim_el = axis_el.find("limit")
        dyn_el = axis_el.find("dynamics")
        limits.append(
            {
                "lower": _child_float(r, lim_el, "lower", -math.inf if v10 else -UNLIMITED),
                "upper": _child_float(r, lim_el, "upper", math.inf if v10 else UNLIMITED),
                "effort": _child_float(r, lim_el, "effort", math.inf if v10 else -1.0),
                "velocity": _child_float(r, lim_el, "velocity", math.inf if v10 else -1.0),
                "damping": _child_float(r, dyn_el, "damping", 0.0),
                "friction": _child_float(r, dyn_el, "friction", 0.0),
            }
        )
    extra: dict = {}
    if jtype == "screw":
        if el.find("screw_thread_pitch") is not None:
            extra["screw_thread_pitch"] = _child_float(r, el, "screw_thread_pitch", 1.0)
        else:
            extra["thread_pitch"] = _child_float(r, el, "thread_pitch", 1.0)
    mimic_el = el.find("axis/mimic")
    ours = el.find(f"axis/{{{IDYNTREE_NS}}}mimic")  # what our 1.9 exporter writes
    if mimic_el is None and ours is not None:
        extra["mimic"] = (r.required(ours, "joint"), r.float_attr(ours, "multiplier", 1.0), r.float_attr(ours, "offset", 0.0))
    if mimic_el is not None:
        extra["mimic"] = (
            r.required(mimic_el, "joint"),
            _child_float(r, mimic_el, "multiplier", 1.0),
            _child_float(r, mimic_el, "offset", 0.0),
        )
    return SdfJoint(scope.scoped(jname), jtype, parent, child, model_H_joint, axes, limits, el, scope, extra)


def _sensor_pose(b: _Builder, scope: _Scope, el: etree._Element, default: str) -> np.ndarray:
    pose_el = el.find("pose")
    pose, rel = _pose(scope.r, pose_el, scope.version)
    base = b._resolve_or_fail(scope, rel, pose_el, "relative_to") if rel else default
    return b.pose(base) @ pose


def _link_sensors(b: _Builder, g: SdfGraph, vx: _Vertex) -> None:
    for s in vx.el.findall("sensor"):
        name = vx.scope.r.required(s, "name")
        g.sensors.append(
            SdfSensor(vx.scope.scoped(name), (s.get("type") or "").strip(), vx.name,
                      _sensor_pose(b, vx.scope, s, vx.name), s, vx.scope)
        )


def _joint_sensors(b: _Builder, g: SdfGraph, vx: _Vertex) -> None:
    owner = vx.scope.scoped(vx.el.get("name").strip())
    for s in vx.el.findall("sensor"):
        name = vx.scope.r.required(s, "name")
        g.sensors.append(
            SdfSensor(vx.scope.scoped(name), (s.get("type") or "").strip(), owner,
                      _sensor_pose(b, vx.scope, s, vx.name), s, vx.scope)
        )


# -- graph to model ------------------------------------------------------------------------------
def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    g = read_sdf(text, options, diag)
    return graph_to_model(g, diag)


def graph_to_model(g: SdfGraph, diag: Diagnostics) -> Model:
    model = Model(name=g.name)
    model.metadata["sdf_version"] = f"{g.version[0]}.{g.version[1]}"
    if g.static:
        model.metadata["static"] = True
    if g.world:
        model.metadata["world"] = g.world
    for name in g.links:
        el, scope = g.link_elements[name]
        model.links[name] = _link(scope.r, el, name, scope, diag)
    world_joints: dict[str, dict] = {}
    for j in g.joints.values():
        _add_joint(model, g, j, diag, world_joints)
    if world_joints:
        model.metadata["sdf_world_joints"] = world_joints
    for name, (link, model_H_frame) in g.frames.items():
        model.frames[name] = Frame(name, link, inverse(g.links[link]) @ model_H_frame)
    for name, (link, model_H_m) in g.models.items():
        if name not in model.frames and name not in model.links:
            model.frames[name] = Frame(name, link, inverse(g.links[link]) @ model_H_m)
    for s in g.sensors:
        _add_sensor(model, g, s, diag)
    from ..model.topology import tree_order

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
    return model


def _link(r: XmlReader, el: etree._Element, name: str, scope: _Scope, diag: Diagnostics) -> Link:
    link = Link(name)
    inertial = el.find("inertial")
    if inertial is None:
        link.inertia = Inertia(1.0, np.zeros(3), np.eye(3))  # libsdformat's default for a missing <inertial>
    else:
        if (inertial.get("auto") or "").strip().lower() in ("true", "1"):
            diag.warn(
                f"line {inertial.sourceline}: link '{name}': <inertial auto=\"true\"> is not computed; "
                "the written (or default) values are used"
            )
        pose, rel = _pose(r, inertial.find("pose"), scope.version)
        if rel and rel != name.split("::")[-1]:
            diag.warn(f"line {inertial.sourceline}: link '{name}': inertial pose relative_to '{rel}' ignored "
                      "(the inertial pose is in the link frame)")
        mass = _child_float(r, inertial, "mass", 1.0)
        i_el = inertial.find("inertia")
        v = {k: _child_float(r, i_el, k, 1.0 if k in ("ixx", "iyy", "izz") else 0.0)
             for k in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")}
        tensor = np.array(
            [[v["ixx"], v["ixy"], v["ixz"]], [v["ixy"], v["iyy"], v["iyz"]], [v["ixz"], v["iyz"], v["izz"]]]
        )
        rot = pose[:3, :3]
        link.inertia = Inertia(mass, pose[:3, 3], rot @ tensor @ rot.T)
        from ..model.validation import check_inertia

        try:
            # libsdformat refuses negative mass and indefinite tensors: so do we, for SDF
            for w in check_inertia(mass, link.inertia.com, link.inertia.inertia, f"link '{name}'",
                                   reject_impossible=True):
                diag.warn(f"line {inertial.sourceline}: {w}")
        except ModelError as e:
            raise r.error(inertial, f"link '{name}' has invalid inertia: {e.message}") from None
    for kind in ("visual", "collision"):
        seen: dict[str, int] = {}
        for shape_el in el.findall(kind):
            sname = (shape_el.get("name") or "").strip()
            if sname in seen:
                raise r.error(shape_el, f"duplicate {kind} name '{sname}' in link '{name}' (first at line {seen[sname]})")
            seen[sname] = shape_el.sourceline
            shape = _shape(r, shape_el, name, scope, diag)
            if shape is not None:
                (link.visuals if kind == "visual" else link.collisions).append(shape)
    return link


def _shape(r: XmlReader, el: etree._Element, link: str, scope: _Scope, diag: Diagnostics) -> Shape | None:
    material = _material(r, el.find("material")) if el.find("material") is not None else None
    geo = el.find("geometry")
    if geo is None:
        diag.warn(f"line {el.sourceline}: <{el.tag}> of link '{link}' has no <geometry>; ignored")
        return None
    children = [c for c in geo if isinstance(c.tag, str)]
    if not children:
        return None
    g = children[0]
    pose, rel = _pose(r, el.find("pose"), scope.version)
    if rel and rel != link.split("::")[-1]:
        diag.warn(f"line {el.sourceline}: <{el.tag}> pose relative_to '{rel}' is read as relative to its link")
    name = el.get("name")
    shape: Shape
    if g.tag == "box":
        size = _child_text(r, g, "size")
        shape = Box(pose, name, size=r.floats_text(g.find("size"), 3) if size else np.ones(3))
    elif g.tag == "sphere":
        shape = Sphere(pose, name, radius=_child_float(r, g, "radius", 1.0))
    elif g.tag == "cylinder":
        shape = Cylinder(pose, name, radius=_child_float(r, g, "radius", 1.0), length=_child_float(r, g, "length", 1.0))
    elif g.tag == "capsule":
        shape = Capsule(pose, name, radius=_child_float(r, g, "radius", 0.5), length=_child_float(r, g, "length", 1.0))
    elif g.tag == "cone":
        shape = Cone(pose, name, radius=_child_float(r, g, "radius", 0.5), length=_child_float(r, g, "length", 1.0))
    elif g.tag == "ellipsoid":
        radii = g.find("radii")
        shape = Ellipsoid(pose, name, radii=r.floats_text(radii, 3) if radii is not None else np.ones(3))
    elif g.tag == "mesh":
        uri = _child_text(r, g, "uri") or ""
        scale_el = g.find("scale")
        scale = r.floats_text(scale_el, 3) if scale_el is not None and r.text(scale_el) else np.ones(3)
        shape = Mesh(pose, name, filename=uri, scale=scale)
        if g.find("submesh") is not None:
            diag.warn(f"line {g.sourceline}: mesh <submesh> of link '{link}' ignored (the whole mesh is used)")
    elif g.tag == "empty":
        return None
    else:
        diag.warn(f"line {g.sourceline}: <{el.tag}> geometry <{g.tag}> of link '{link}' is not supported; ignored")
        return None
    shape.material = material
    return shape


def _material(r: XmlReader, mat: etree._Element) -> Material:
    if True:
        color = None
        for tag in ("emissive", "specular", "ambient", "diffuse"):  # diffuse wins, ambient is the fallback
            c = mat.find(tag)
            if c is not None and r.text(c):
                v = r.floats_text(c)
                if len(v) not in (3, 4) or np.any(v < 0) or np.any(v > 1):
                    raise r.error(c, f"<{tag}> needs 3 or 4 numbers between 0 and 1 (r g b [a]), got '{r.text(c)}'")
                if tag in ("ambient", "diffuse"):
                    color = np.append(v, 1.0) if len(v) == 3 else v
        script_name = _child_text(r, mat, "script/name") if mat.find("script") is not None else None
    return Material(script_name, color, None)


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


def _add_joint(model: Model, g: SdfGraph, j: SdfJoint, diag: Diagnostics, world_joints: dict) -> None:
    r, el = j.scope.r, j.el
    line = el.sourceline
    if j.type == "gearbox":
        diag.warn(
            f"line {line}: gearbox joint '{j.name}' couples two other joints and is no kinematic joint of a tree; "
            "ignored"
        )
        return
    parent = j.parent
    if parent == "world":
        if j.type == "fixed":
            model.metadata["fixed_base"] = True
            world_joints[j.name] = {"child": j.child, "type": "fixed", "model_H_child": g.links[j.child].tolist()}
            return
        if "world" not in model.links:
            model.links["world"] = Link("world", Inertia(0.0))
            diag.warn(
                f"line {line}: {j.type} joint '{j.name}' connects to 'world': a massless link 'world' was added "
                "as the root of the model"
            )
        parent_H = np.eye(4)
    else:
        parent_H = g.links[parent]
    child_H = g.links[j.child]
    rest = inverse(parent_H) @ child_H
    child_H_joint = inverse(child_H) @ j.model_H_joint
    origin = child_H_joint[:3, 3]
    rot_c = child_H[:3, :3].T
    jtype = j.type
    if jtype == "screw":
        diag.warn(
            f"line {line}: screw joint '{j.name}' is approximated by a revolute joint about its axis "
            "(the translation coupled to the rotation is lost)"
        )
        model.metadata.setdefault("sdf_screw_joints", {})[j.name] = j.extra
        jtype = "revolute"
    if jtype == "fixed":
        model.joints[j.name] = Joint(j.name, JointType.FIXED, parent, j.child, rest)
        return
    if jtype == "ball":
        center = (inverse(parent_H) @ j.model_H_joint)[:3, 3]
        model.joints[j.name] = Joint(j.name, JointType.SPHERICAL, parent, j.child, rest, center=center)
        return
    kinds = {"revolute": JointType.REVOLUTE, "continuous": JointType.REVOLUTE, "prismatic": JointType.PRISMATIC,
             "universal": JointType.REVOLUTE, "revolute2": JointType.REVOLUTE}
    kind = kinds[jtype]
    if jtype in ("universal", "revolute2"):
        mid = f"{j.name}_link"
        second = f"{j.name}_axis2"
        for n in (mid, second):
            if n in model.links or n in model.joints or n in g.joints or n in g.links or n in g.frames:
                raise r.error(el, f"{jtype} joint '{j.name}' is split into two revolute joints through link '{mid}' "
                              f"and joint '{second}', but the name '{n}' is already used")
        model.links[mid] = Link(mid, Inertia(0.0))
        j1 = Joint(j.name, kind, parent, mid, rest, axis=rot_c @ j.axes[0], axis_origin=origin,
                   limits=_limits(j.limits[0], "revolute"), dynamics=_dyn(j.limits[0]))
        j2 = Joint(second, kind, mid, j.child, np.eye(4), axis=rot_c @ j.axes[1], axis_origin=origin,
                   limits=_limits(j.limits[1], "revolute"), dynamics=_dyn(j.limits[1]))
        model.joints[j1.name] = j1
        model.joints[j2.name] = j2
        diag.warn(f"line {line}: {jtype} joint '{j.name}' split into revolute joints '{j.name}' (axis) and "
                  f"'{second}' (axis2) through the massless link '{mid}'")
        return
    lim = j.limits[0]
    limits = _limits(lim, jtype)
    if jtype != "continuous" and limits.has_position_limits and limits.min_position > limits.max_position:
        raise r.error(el, f"joint '{j.name}': lower limit {limits.min_position} is above upper limit "
                      f"{limits.max_position}")
    if jtype != "continuous" and abs(lim["upper"] - lim["lower"]) < EQUAL_LIMITS_TOL:
        diag.warn(f"line {line}: {jtype} joint '{j.name}' has equal lower and upper limits; read as fixed "
                  "(as iDynTree does)")
        model.joints[j.name] = Joint(j.name, JointType.FIXED, parent, j.child, rest)
        return
    joint = Joint(j.name, kind, parent, j.child, rest, axis=rot_c @ j.axes[0], axis_origin=origin, limits=limits,
                  dynamics=_dyn(lim))
    if "mimic" in j.extra:
        ref, mult, off = j.extra["mimic"]
        joint.mimic = Mimic(j.scope.scoped(ref) if j.scope.prefix else ref, mult, off)
    model.joints[j.name] = joint


def _dyn(lim: dict[str, float]) -> Dynamics | None:
    if lim["damping"] == 0.0 and lim["friction"] == 0.0:
        return None
    return Dynamics(lim["damping"], lim["friction"])


_IDT_KIND = f"{{{IDYNTREE_NS}}}kind"


def _add_sensor(model: Model, g: SdfGraph, s: SdfSensor, diag: Diagnostics) -> None:
    r, el = s.scope.r, s.el
    if not s.type:
        diag.warn(f"line {el.sourceline}: sensor '{s.name}' has no type; ignored")
        return
    if s.owner in g.links:
        link_H = inverse(g.links[s.owner]) @ s.model_H_sensor
        if s.type == "imu":
            kind = _child_text(r, el, _IDT_KIND)
            if kind in ("accelerometer", "gyroscope"):  # written by our exporter for a lone sensor
                model.sensors[s.name] = LinkSensor(s.name, parent_link=s.owner, link_H_sensor=link_H,
                                                   sensor_type=SensorType(kind))
                return
            for suffix, st in (("_acc", SensorType.ACCELEROMETER), ("_gyro", SensorType.GYROSCOPE)):
                n = s.name + suffix
                if n in model.sensors:
                    raise r.error(el, f"IMU '{s.name}' becomes sensor '{n}', a name already used")
                model.sensors[n] = LinkSensor(n, parent_link=s.owner, link_H_sensor=link_H.copy(), sensor_type=st)
            return
        if s.type == "force_torque":
            diag.warn(f"line {el.sourceline}: force_torque sensor '{s.name}' is in a link, not a joint; ignored")
            return
        model.sensors[s.name] = LinkSensor(s.name, parent_link=s.owner, link_H_sensor=link_H,
                                           sensor_type=SensorType.OTHER, subtype=s.type)
        return
    # joint sensors
    if s.type != "force_torque":
        diag.warn(f"line {el.sourceline}: {s.type} sensor '{s.name}' in joint '{s.owner}' is not supported; ignored")
        return
    j = g.joints[s.owner]
    joint = model.joints.get(j.name)
    if joint is None or j.parent == "world" and j.type == "fixed":
        diag.warn(f"line {el.sourceline}: force_torque sensor '{s.name}': its joint '{j.name}' is not in the "
                  "model (world or gearbox joint); ignored")
        return
    ft = el.find("force_torque")
    frame = "parent" if s.scope.version < (1, 5) else "child"
    direction = "child_to_parent"
    if ft is not None:
        frame = _child_text(r, ft, "frame") or frame
        direction = _child_text(r, ft, "measure_direction") or direction
    if frame not in ("child", "parent", "sensor"):
        raise r.error(ft, f"force/torque sensor '{s.name}': <frame> must be child, parent or sensor, got '{frame}'")
    if direction not in ("child_to_parent", "parent_to_child"):
        raise r.error(ft, f"force/torque sensor '{s.name}': <measure_direction> must be child_to_parent or "
                      f"parent_to_child, got '{direction}'")
    parent_H = g.links[j.parent] if j.parent != "world" else np.eye(4)
    child_H = g.links[j.child]
    if frame == "sensor":
        model_H_s = s.model_H_sensor
    else:
        model_H_s = (child_H if frame == "child" else parent_H).copy()
        model_H_s[:3, 3] = j.model_H_joint[:3, 3]  # torque about the joint origin
    second = joint.child
    model.sensors[s.name] = ForceTorqueSensor(
        s.name,
        parent_joint=joint.name,
        first_link=joint.parent,
        second_link=second,
        applied_wrench_link=second if direction == "parent_to_child" else joint.parent,
        first_link_H_sensor=inverse(parent_H) @ model_H_s,
        second_link_H_sensor=inverse(child_H) @ model_H_s,  # a split joint's middle link sits at the child
        frame=frame,
    )


# -- export ----------------------------------------------------------------------------------------
def _f(x: float) -> str:
    x = float(x) + 0.0
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def _pose_text(t: np.ndarray) -> str:
    rpy = matrix_to_rpy(t[:3, :3])
    return " ".join(_f(v) for v in list(t[:3, 3]) + list(rpy))


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrs) -> etree._Element:
    e = etree.SubElement(parent, tag, {k: v for k, v in attrs.items() if v is not None})
    if text is not None:
        e.text = text
    return e


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    """SDF 1.9 of the model: links placed in the model frame, joints in their child frames."""
    from ..model.kinematics import Kinematics

    if options.sdf_version not in ("1.9", None):
        diag.warn(f"SDF {options.sdf_version} was asked; SDF 1.9 is written")
    nsmap = {"idyntree": IDYNTREE_NS}
    root = etree.Element("sdf", {"version": "1.9"}, nsmap=nsmap)
    m = _sub(root, "model", name=model.name or "model")
    if model.metadata.get("static"):
        _sub(m, "static", "true")
    world_H = Kinematics(model).world_transforms({})
    base = model.default_base_link
    ordered = [base] + [n for n in model.links if n != base] if base in model.links else list(model.links)
    if base in model.links:
        m.set("canonical_link", base)
    joint_names = set(model.joints)
    for name in ordered:
        if "::" in name:
            diag.warn(f"link '{name}' keeps '::' in its name, which SDF 1.8+ reserves for nested models")
        link = model.links[name]
        le = _sub(m, "link", name=name)
        _sub(le, "pose", _pose_text(world_H[name]), relative_to="__model__")
        _inertial(le, link)
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            used: set[str] = set()
            for i, shape in enumerate(shapes):
                _shape_el(le, kind, shape, i, used, diag, name)
        _link_sensors_out(le, model, name)
    taken = set(model.links) | set(model.frames)
    for joint in model.joints.values():
        out_name = joint.name
        if out_name in taken or _reserved(out_name):
            while out_name in taken or out_name in model.joints or _reserved(out_name):
                out_name += "_joint"
            diag.warn(f"joint '{joint.name}' written as '{out_name}': SDF needs names unique across links, joints "
                      "and frames, and reserves 'world' and __names__")
        joint_names.add(out_name)
        _joint_el(m, joint, model, diag, out_name)
    sensor_names = set(model.sensors)
    for frame in model.frames.values():
        s = model.sensors.get(frame.name)
        if frame.name in sensor_names and s is not None and s.frame_link == frame.parent_link and np.allclose(
            s.frame_transform, frame.link_H_frame, atol=1e-12
        ):
            continue  # the loader adds sensor frames again
        if frame.name in joint_names or _reserved(frame.name):
            diag.warn(f"frame '{frame.name}' is not written: its name is a joint's or reserved in SDF")
            continue
        fe = _sub(m, "frame", name=frame.name, attached_to=frame.parent_link)
        _sub(fe, "pose", _pose_text(frame.link_H_frame), relative_to=frame.parent_link)
    etree.indent(root, space="  ")
    return '<?xml version="1.0" ?>\n' + etree.tostring(root, encoding="unicode") + "\n"


def _reserved(name: str) -> bool:
    return name == "world" or (name.startswith("__") and name.endswith("__"))


def _inertial(le: etree._Element, link: Link) -> None:
    ine = link.inertia
    ie = _sub(le, "inertial")
    _sub(ie, "pose", _pose_text(make_transform(None, ine.com)))
    _sub(ie, "mass", _f(ine.mass))
    i = ine.inertia
    _sub(ie, "inertia")
    ie_i = ie.find("inertia")
    for k, (a, b) in {"ixx": (0, 0), "ixy": (0, 1), "ixz": (0, 2), "iyy": (1, 1), "iyz": (1, 2), "izz": (2, 2)}.items():
        _sub(ie_i, k, _f(i[a, b]))


def _shape_el(le, kind: str, shape: Shape, i: int, used: set[str], diag: Diagnostics, link: str) -> None:
    name = shape.name or f"{kind}_{i}"
    while name in used:
        name = f"{name}_{i}"
    used.add(name)
    se = _sub(le, kind, name=name)
    _sub(se, "pose", _pose_text(shape.link_H_geometry))
    ge = _sub(se, "geometry")
    if isinstance(shape, Box):
        _sub(_sub(ge, "box"), "size", " ".join(_f(v) for v in shape.size))
    elif isinstance(shape, Sphere):
        _sub(_sub(ge, "sphere"), "radius", _f(shape.radius))
    elif isinstance(shape, Cylinder):
        c = _sub(ge, "cylinder")
        _sub(c, "radius", _f(shape.radius))
        _sub(c, "length", _f(shape.length))
    elif isinstance(shape, Capsule):
        c = _sub(ge, "capsule")
        _sub(c, "radius", _f(shape.radius))
        _sub(c, "length", _f(shape.length))
    elif isinstance(shape, Ellipsoid):
        _sub(_sub(ge, "ellipsoid"), "radii", " ".join(_f(v) for v in shape.radii))
    elif isinstance(shape, Mesh):
        c = _sub(ge, "mesh")
        _sub(c, "uri", shape.filename)
        _sub(c, "scale", " ".join(_f(v) for v in shape.scale))
    else:
        diag.warn(f"link '{link}': {shape.kind} geometry cannot be written in SDF 1.9; written as an empty geometry")
        _sub(ge, "empty")
    if kind == "visual" and shape.material is not None and shape.material.color is not None:
        me = _sub(se, "material")
        rgba = " ".join(_f(v) for v in shape.material.color)
        _sub(me, "ambient", rgba)
        _sub(me, "diffuse", rgba)


def _link_sensors_out(le: etree._Element, model: Model, link: str) -> None:
    sensors = [s for s in model.sensors.values() if isinstance(s, LinkSensor) and s.parent_link == link]
    done: set[str] = set()
    for s in sensors:
        if s.name in done:
            continue
        if s.sensor_type is SensorType.ACCELEROMETER and s.name.endswith("_acc"):
            base = s.name[: -len("_acc")]
            gyro = model.sensors.get(base + "_gyro")
            if (isinstance(gyro, LinkSensor) and gyro.sensor_type is SensorType.GYROSCOPE and gyro.parent_link == link
                    and np.allclose(gyro.link_H_sensor, s.link_H_sensor, atol=1e-12)):
                se = _sub(le, "sensor", name=base, type="imu")
                _sub(se, "pose", _pose_text(s.link_H_sensor))
                done |= {s.name, gyro.name}
                continue
        if s.sensor_type in (SensorType.ACCELEROMETER, SensorType.GYROSCOPE):
            se = _sub(le, "sensor", name=s.name, type="imu")
            _sub(se, "pose", _pose_text(s.link_H_sensor))
            _sub(se, _IDT_KIND, s.sensor_type.value)
        elif s.sensor_type is SensorType.OTHER and s.subtype:
            se = _sub(le, "sensor", name=s.name, type=s.subtype)
            _sub(se, "pose", _pose_text(s.link_H_sensor))
        else:
            continue
        done.add(s.name)


def _joint_el(m: etree._Element, joint: Joint, model: Model, diag: Diagnostics, out_name: str) -> None:
    if joint.type is JointType.FIXED:
        jt = "fixed"
    elif joint.type is JointType.SPHERICAL:
        jt = "ball"
    elif joint.type is JointType.PRISMATIC:
        jt = "prismatic"
    else:
        jt = "continuous" if joint.is_continuous else "revolute"
    je = _sub(m, "joint", name=out_name, type=jt)
    child_H_joint = np.eye(4)
    if joint.type is JointType.SPHERICAL:
        child_H_joint[:3, 3] = (inverse(joint.rest_transform) @ np.append(joint.center, 1.0))[:3]
    elif joint.dofs == 1:
        child_H_joint[:3, 3] = joint.axis_origin
    _sub(je, "pose", _pose_text(child_H_joint), relative_to=joint.child)
    _sub(je, "parent", joint.parent)
    _sub(je, "child", joint.child)
    if joint.dofs == 1:
        ae = _sub(je, "axis")
        _sub(ae, "xyz", " ".join(_f(v) for v in joint.axis), expressed_in=joint.child)
        lim = joint.limits
        le = _sub(ae, "limit")
        if lim.has_position_limits:
            _sub(le, "lower", _f(lim.min_position))
            _sub(le, "upper", _f(lim.max_position))
        elif joint.type is JointType.PRISMATIC:
            _sub(le, "lower", _f(-UNLIMITED))
            _sub(le, "upper", _f(UNLIMITED))
        _sub(le, "effort", _f(lim.effort_limit) if lim.has_effort_limit else "-1")
        _sub(le, "velocity", _f(lim.velocity_limit) if lim.has_velocity_limit else "-1")
        if joint.dynamics is not None:
            de = _sub(ae, "dynamics")
            _sub(de, "damping", _f(joint.dynamics.damping))
            _sub(de, "friction", _f(joint.dynamics.friction))
        if joint.mimic is not None:
            diag.warn(f"joint '{joint.name}': mimic needs SDF 1.11; written as an idyntree:mimic extension element")
            _sub(ae, f"{{{IDYNTREE_NS}}}mimic", joint=joint.mimic.joint, multiplier=_f(joint.mimic.multiplier),
                 offset=_f(joint.mimic.offset))
    for s in model.sensors.values():
        if isinstance(s, ForceTorqueSensor) and s.parent_joint == joint.name:
            _ft_el(je, s, joint)


def _ft_el(je: etree._Element, s: ForceTorqueSensor, joint: Joint) -> None:
    """Write the sensor with the frame keyword when our reader gives back the same frame, else explicitly."""
    if s.first_link == joint.parent:
        child_H_sensor = s.second_link_H_sensor
    else:  # first/second swapped relative to the joint
        child_H_sensor = s.first_link_H_sensor
    parent_H_sensor = joint.rest_transform @ child_H_sensor
    joint_origin = joint.axis_origin if joint.dofs == 1 else np.zeros(3)
    if joint.type is JointType.SPHERICAL:
        joint_origin = (inverse(joint.rest_transform) @ np.append(joint.center, 1.0))[:3]
    child_H_joint = make_transform(None, joint_origin)
    frame = s.frame
    expected = None
    if frame == "child":
        expected = child_H_joint.copy()
    elif frame == "parent":
        expected = make_transform(inverse(joint.rest_transform)[:3, :3], joint_origin)
    if expected is None or not np.allclose(expected, child_H_sensor, atol=1e-12):
        frame = "sensor"
    _ = parent_H_sensor
    se = _sub(je, "sensor", name=s.name, type="force_torque")
    _sub(se, "pose", _pose_text(inverse(child_H_joint) @ child_H_sensor))
    fe = _sub(se, "force_torque")
    _sub(fe, "frame", frame)
    direction = "parent_to_child" if s.applied_wrench_link == joint.child else "child_to_parent"
    _sub(fe, "measure_direction", direction)
