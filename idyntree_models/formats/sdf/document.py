"""Stage 1 of reading SDF: the XML document itself.

Lenient repair of what tinyxml2 (libsdformat) accepts, the strict `version` attribute, typed
readers for the values SDF elements hold, the check that no malformed value hides in parts of a
model we do not otherwise use, and the undoing of the legacy flattened form of nested models.
Nothing here knows about frames.
"""

from __future__ import annotations

import math
import re

import numpy as np
from lxml import etree

from ...model.transforms import make_transform, quat_to_matrix, rpy_to_matrix
from ..base import Diagnostics
from ..xmlutil import XmlReader, parse_xml

MIN_VERSION = (1, 4)
MAX_VERSION = (1, 11)
IDYNTREE_NS = "https://github.com/robotology/idyntree"
_VERSION_RE = re.compile(r"([0-9]{1,3})\.([0-9]{1,3})")  # ASCII digits only; short enough for int()


# -- lenient XML -------------------------------------------------------------------------------
def repair_xml(text: str | bytes, diag: Diagnostics) -> str | bytes:
    """Fix the deviations tinyxml2 (libsdformat) accepts and published worlds contain.

    Only repairs that cannot change the meaning of the document: text before the XML
    declaration, a declaration missing its `<`, `--` inside comments and undeclared namespace
    prefixes of custom elements.  Anything else is left to the strict parser, whose error names
    the line.
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


def parse_version_text(raw: str) -> tuple[int, int] | None:
    """`major.minor` of an SDF version attribute or model.config entry; None if it is not one."""
    m = _VERSION_RE.fullmatch(raw.strip())
    return (int(m.group(1)), int(m.group(2))) if m else None


def read_version(r: XmlReader, root: etree._Element, diag: Diagnostics) -> tuple[int, int]:
    raw = (root.get("version") or "").strip()
    v = parse_version_text(raw)
    if v is None:
        shown = raw if len(raw) <= 20 else raw[:20] + f"... ({len(raw)} characters)"
        raise r.error(root, f"<sdf> needs a version attribute like '1.9', got '{shown}'")
    if v[0] != 1:
        raise r.error(root, f"SDF version {raw} is not supported (1.4 to 1.11)")
    if v < MIN_VERSION:
        diag.warn(f"SDF version {raw} is older than 1.4; read with the 1.4 rules")
        return MIN_VERSION
    if v > MAX_VERSION:
        diag.warn(f"SDF version {raw} is newer than 1.11; read with the 1.11 rules")
    return v


def read_document(data: str | bytes, source: str | None, diag: Diagnostics
                  ) -> tuple[etree._Element, XmlReader, tuple[int, int]]:
    """Parse (after the lenient repairs) and check the root: the `<sdf>` element, its reader, its version."""
    root = parse_xml(repair_xml(data, diag), source)
    r = XmlReader(source)
    if root.tag != "sdf":
        raise r.error(root, f"the root element is <{root.tag}>, an SDF file needs <sdf>")
    version = read_version(r, root, diag)
    if version < (1, 8):
        for model in list(root.iter("model")):
            unflatten(r, model, diag)
    return root, r, version


# -- small readers --------------------------------------------------------------------------------
def child_text(r: XmlReader, el: etree._Element, tag: str, default: str | None = None) -> str | None:
    c = el.find(tag)
    return r.text(c) if c is not None else default


def child_float(r: XmlReader, el: etree._Element | None, tag: str, default: float) -> float:
    """A number child; SDF spells unlimited joint limits `inf`, so infinities are allowed here."""
    if el is None:
        return default
    c = el.find(tag)
    if c is None or not r.text(c):
        return default
    raw = r.text(c).lower()
    if raw in ("inf", "+inf", "infinity", "+infinity"):
        return math.inf
    if raw in ("-inf", "-infinity"):
        return -math.inf
    return r.float_text(c)


def child_bool(r: XmlReader, el: etree._Element, tag: str, default: bool) -> bool:
    c = el.find(tag)
    return r.bool_text(c) if c is not None and r.text(c) else default


def is_true(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1")


def read_pose(r: XmlReader, el: etree._Element | None, version: tuple[int, int]) -> tuple[np.ndarray, str | None]:
    """The transform of a <pose> element and its relative_to frame (None: the default frame)."""
    if el is None:
        return np.eye(4), None
    rel = el.get("relative_to")
    if rel is None and version < (1, 7):
        rel = el.get("frame")  # 1.5/1.6 //pose/@frame, read as relative_to
    rel = rel.strip() if rel is not None and rel.strip() else None
    fmt = (el.get("rotation_format") or "euler_rpy").strip()
    degrees = is_true(el.get("degrees") or "false")
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


# -- values anywhere in the model --------------------------------------------------------------------
_DOUBLE_TAGS = {"linear", "angular", "update_rate", "stiffness", "dissipation", "spring_reference", "spring_stiffness",
                "mass", "ixx", "ixy", "ixz", "iyy", "iyz", "izz", "lower", "upper", "radius", "length", "mu", "mu2",
                "restitution_coefficient", "soft_cfm", "soft_erp", "kp", "kd", "max_vel", "min_depth", "transparency",
                "laser_retro", "thread_pitch", "screw_thread_pitch", "gearbox_ratio", "cfm_damping", "density"}
_BOOL_TAGS = {"static", "self_collide", "allow_auto_disable", "kinematic", "must_be_base_link", "enable_wind",
              "always_on", "visualize", "cast_shadows", "use_parent_model_frame", "implicit_spring_damper"}
_VECTOR_TAGS = {"size": 3, "scale": 3, "radii": 3, "gravity": 3, "magnetic_field": 3, "wind": 3}


def check_values(r: XmlReader, root: etree._Element) -> None:
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
            read_pose(r, el, (1, 11))


# -- the legacy flattened form -------------------------------------------------------------------------
_REF_ATTRS = ("relative_to", "attached_to", "expressed_in", "canonical_link", "placement_frame")


def unflatten(r: XmlReader, model: etree._Element, diag: Diagnostics) -> None:
    """Rebuild nested models from the flattened form libsdformat 1.7 wrote (`M::__model__` frames).

    Before 1.8 a nested model could be written flat: its frame as `<frame name="M::__model__"
    attached_to="M::L">` and its elements as siblings named `M::...`.  libsdformat 12 reads such a
    model as if `M` were nested; so do we, by moving the elements back into a `<model name="M">`
    whose canonical link is the marker's `attached_to` and whose pose is the marker's pose.
    """
    while True:
        markers = [c for c in model if c.tag == "frame" and (c.get("name") or "").strip().endswith("::__model__")]
        markers = [m for m in markers if "::" not in m.get("name").strip()[: -len("::__model__")]]
        if not markers:
            return
        marker = markers[0]
        prefix = marker.get("name").strip()[: -len("::__model__")]
        head = prefix + "::"
        nested = etree.Element("model", name=prefix)
        nested.sourceline = marker.sourceline
        attached = (marker.get("attached_to") or "").strip()
        if attached.startswith(head):
            nested.set("canonical_link", attached[len(head):])
        elif attached:
            raise r.error(marker, f"flattened model frame '{prefix}::__model__' is attached to '{attached}', "
                          f"which is not inside '{prefix}'")
        pose = marker.find("pose")
        if pose is not None:
            nested.append(pose)
        marker.addprevious(nested)
        model.remove(marker)
        moved = [c for c in model if isinstance(c.tag, str) and c.tag in ("link", "joint", "frame", "model")
                 and (c.get("name") or "").strip().startswith(head)]
        for c in moved:
            c.set("name", c.get("name").strip()[len(head):])
            nested.append(c)
            for el in c.iter():
                for attr in _REF_ATTRS:
                    v = (el.get(attr) or "").strip()
                    if v.startswith(head):
                        el.set(attr, v[len(head):])
                if el.tag in ("parent", "child") and el.getparent().tag == "joint":
                    v = (el.text or "").strip()
                    if v.startswith(head):
                        el.text = v[len(head):]
        diag.warn(f"line {marker.sourceline}: flattened nested model '{prefix}' (frame '{prefix}::__model__') "
                  "read as a nested model, as libsdformat does")
        unflatten(r, nested, diag)


__all__ = [
    "IDYNTREE_NS",
    "MAX_VERSION",
    "MIN_VERSION",
    "check_values",
    "child_bool",
    "child_float",
    "child_text",
    "is_true",
    "parse_version_text",
    "read_document",
    "read_pose",
    "read_version",
    "repair_xml",
    "unflatten",
]
