"""Stage 1 of reading SDF: the XML document itself.

Lenient repair of what tinyxml2 (libsdformat) accepts, the strict `version` attribute, typed
readers for the values SDF elements hold, the check that no malformed value hides in parts of a
model we do not otherwise use, and the undoing of the legacy flattened form of nested models.
Nothing here knows about frames.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np
from lxml import etree

from ...errors import ModelError
from ...model.model import SensorType
from ...model.transforms import IDENTITY, make_transform, quat_to_matrix, rpy_to_matrix, unit_quaternions
from ..base import Diagnostics
from ..common import remembered_transform
from ..numbers import MAX_NUMBER_CHARS
from ..xmlutil import XmlReader, find_child, find_children, parse_xml, shown_tag
from .value_types import (
    CHILDREN,
    CONVERTED_BELOW,
    NEWER_CHILDREN,
    REQUIRED_ATTRIBUTES,
    REQUIRED_ATTRIBUTES_IN,
    REQUIRED_ATTRIBUTES_OF_TAG,
    REQUIRED_VALUES,
    REQUIRED_VALUES_IN,
    VALUE_RANGES,
    VALUE_RANGES_IN,
    VALUE_TYPES,
)

MIN_VERSION = (1, 4)
MAX_VERSION = (1, 11)
IDYNTREE_NS = "https://github.com/robotology/idyntree"
# An <imu> that measures one thing, said by this element in our namespace (the writer writes it, the reader reads
# it back as that one sensor): a lone accelerometer or gyroscope, or an angular accelerometer (no SDF type of its own)
IDYNTREE_KIND = f"{{{IDYNTREE_NS}}}kind"
SINGLE_IMU_KINDS = (SensorType.ACCELEROMETER, SensorType.GYROSCOPE, SensorType.ANGULAR_ACCELEROMETER)
MAX_NESTING = 100  # nested <model> levels, including those brought in by includes or '::' names (docs/sdf.md)
_VERSION_RE = re.compile(r"([0-9]{1,3})\.([0-9]{1,3})")  # ASCII digits only; short enough for int()


# -- lenient XML -------------------------------------------------------------------------------
def _as_utf8(data: str | bytes) -> str | bytes:
    """Bytes decoded as UTF-8, as tinyxml2 reads every file whatever its declaration says (left as bytes,
    for the parser to report, when they are not UTF-8)."""
    if isinstance(data, bytes):
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError:
            return data
    return data


def repair_xml(text: str | bytes, diag: Diagnostics) -> str | bytes:
    """Fix the deviations tinyxml2 (libsdformat) accepts and published worlds contain.

    Only repairs that cannot change the meaning of the document: text before the XML
    declaration, a declaration missing its `<`, `--` inside comments and undeclared namespace
    prefixes of custom elements.  Anything else is left to the strict parser, whose error names
    the line.
    """
    text = _as_utf8(text)
    if isinstance(text, bytes):
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
    if re.search(r":[A-Za-z_][\w.-]*\s*=", body):  # anchored on ':' (fast); whitespace-anchored scans every gap
        used |= set(re.findall(r"\s([A-Za-z_][\w.-]*):[A-Za-z_][\w.-]*\s*=", body))
    missing = sorted(p for p in used - {"xmlns", "xml"} if not re.search(rf"xmlns:{re.escape(p)}\s*=", body))
    if missing:
        decl = "".join(f' xmlns:{p}="urn:undeclared:{p}"' for p in missing)
        out, n = re.subn(r"<sdf\b", "<sdf" + decl, out, count=1)
        if n:
            diag.warn(f"undeclared XML namespace prefix(es) {', '.join(missing)} declared so the file can be read "
                      "(custom elements are kept as they are)")
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
    data = _as_utf8(data)
    try:
        root = parse_xml(data, source, blank_text=False)
        # the namespaces the document declares, for check_values to find their elements by (no element has one
        # where no xmlns is written); None: not known from the text (bytes not UTF-8, a character reference)
        namespaces = set(_XMLNS.findall(data)) if isinstance(data, str) else None
        if namespaces is not None and any("&" in uri for uri in namespaces):
            namespaces = None
    except ModelError:
        # every repair mends a document the strict parser refuses, so a well-formed file (nearly all)
        # does not pay for the whole-text scans; the repaired text is parsed again, whose error stands
        root = parse_xml(repair_xml(data, diag), source, blank_text=False)
        namespaces = None  # (a repair may declare the prefixes a file used without declaring them)
    diag.included(root, source)
    r = SdfXmlReader(source)
    r.namespaces = namespaces
    # whether a name check_values judges may hold '::' (it looks at every element only then; a character reference
    # may spell it)
    references = not isinstance(data, str) or "&#" in data  # (character references: any character may be spelled)
    r.delimited = references or not _delimiters_only_in_plugins(data)
    # whether a name or reference may hold white space libsdformat keeps (a carriage return is one only as a character
    # reference, the parser makes the others line feeds): FrameGraph.check_spelling looks only then
    r.kept_space = references or not data.isascii()
    if root.tag != "sdf":
        raise r.error(root, f"the root element is <{root.tag}>, an SDF file needs <sdf>")
    version = read_version(r, root, diag)
    r.document_version = version  # (what libsdformat converts the document from: where its elements are defined)
    if version < (1, 8):
        unflatten_world_models(r, root, diag)
    return root, r, version


def _delimiters_only_in_plugins(text: str) -> bool:
    """Whether every '::' of the text is in text content or in a <plugin ...> start tag (the plugin names of Gazebo
    files, 'gz::sim::systems::Physics', which libsdformat leaves alone): then no element's name needs the look at
    every element that finds one (half a millisecond of iCubGenova04's SDF load, whose 18 are all plugin names)."""
    i = text.find("::")
    while i != -1:
        start = text.rfind("<", 0, i)
        if start != -1 and text.find(">", start, i) == -1:  # (inside a tag, or a comment: its tag is looked at)
            end = start + 1
            while end < len(text) and not text[end].isspace() and text[end] not in "/>":
                end += 1
            if text[start + 1:end] != "plugin":
                return False
        i = text.find("::", i + 2)
    return True


class SdfXmlReader(XmlReader):
    """An XmlReader that parses each distinct number text once: check_values parses every value of the model
    (as libsdformat does), and the readers then parse most of them again."""

    def __init__(self, source: str | None) -> None:
        super().__init__(source)
        self._numbers: dict[str, list[float]] = {}
        self.namespaces: set[str] | None = None  # the namespace names the document declares (None: not known)
        self.delimited = True  # whether any name of the document may hold "::" (read_document knows from its text)
        self.kept_space = True  # whether any name may hold white space libsdformat keeps (read_document knows)
        self.document_version = MAX_VERSION  # the document's own version (read_document sets it)

    def floats_list(self, el: etree._Element, raw: str, what: str, n: int | None) -> list[float]:
        values = self._numbers.get(raw)
        if values is None:
            values = super().floats_list(el, raw, what, None)
            self._numbers[raw] = values
        if n is not None and len(values) != n:
            return super().floats_list(el, raw, what, n)  # (which says what is wrong)
        return list(values)


# -- small readers --------------------------------------------------------------------------------
def child_text(r: XmlReader, el: etree._Element, tag: str, default: str | None = None) -> str | None:
    c = find_child(el, tag)
    return r.text(c) if c is not None else default


def child_float(r: XmlReader, el: etree._Element | None, tag: str, default: float,
                child: etree._Element | None = None) -> float:
    """A number child (`child`, when the caller found it); SDF spells unlimited joint limits `inf`, so
    infinities are allowed here."""
    if el is None:
        return default
    c = find_child(el, tag) if child is None else child
    raw = r.text(c) if c is not None else ""
    if not raw:
        return default
    raw = raw.lower()
    if raw in ("inf", "+inf", "infinity", "+infinity"):
        return math.inf
    if raw in ("-inf", "-infinity"):
        return -math.inf
    return r.float_text(c)


def found_float(r: XmlReader, found: dict[str, etree._Element], tag: str, default: float) -> float:
    """child_float of the child `found[tag]` (a reader's one look at the children, kept.look)."""
    c = found.get(tag)
    return default if c is None else child_float(r, c, tag, default, c)


def child_bool(r: XmlReader, el: etree._Element, tag: str, default: bool) -> bool:
    c = find_child(el, tag)
    return r.bool_text(c) if c is not None and r.text(c) else default


def is_colour(values) -> bool:
    """Whether numbers are an SDF colour, r g b [a] each in [0, 1]: what the reader accepts in a
    material, and so what the writer may write there."""
    v = np.asarray(values, dtype=float).ravel().tolist()
    return len(v) in (3, 4) and all(0.0 <= x <= 1.0 for x in v)  # NaN fails both comparisons


def is_true(value: str | None) -> bool:
    return (value or "").strip().lower() in ("true", "1")


def read_pose(r: XmlReader, el: etree._Element | None, version: tuple[int, int],
              check_only: bool = False) -> tuple[np.ndarray | None, str | None]:
    """The transform of a <pose> element and its relative_to frame (None: the default frame).

    `check_only`: raise what reading would raise, but return no transform (None).  The transform is
    remembered in the reader by element: check_values reads every pose of the document first, and the
    frame graph, links and sensors read most of them again.
    """
    if el is None:
        return IDENTITY.copy(), None
    rel = el.get("relative_to")
    if rel is None and version < (1, 7):
        rel = el.get("frame")  # 1.5/1.6 //pose/@frame, read as relative_to
    rel = rel.strip() if rel is not None and rel.strip() else None
    t = r.pose_transforms.get(el)
    if t is None:
        t = r.pose_transforms[el] = _pose_transform(r, el)
    return (None if check_only else t.copy()), rel


def _pose_transform(r: XmlReader, el: etree._Element) -> np.ndarray:
    fmt = (el.get("rotation_format") or "").strip() or "euler_rpy"  # (blank is the default, as in libsdformat)
    raw_degrees = el.get("degrees")  # (most poses have none; a blank one is none, as in libsdformat)
    degrees = bool(raw_degrees) and not raw_degrees.isspace() and r.parse_bool(el, raw_degrees, "degrees")
    if degrees and fmt == "quat_xyzw":
        raise r.error(el, "degrees=\"true\" applies to euler_rpy poses, not to a quat_xyzw one (libsdformat refuses it)")
    if fmt not in ("euler_rpy", "quat_xyzw"):  # (libsdformat refuses it on an empty pose too)
        raise r.error(el, f"rotation_format must be euler_rpy or quat_xyzw, got '{fmt}'")
    raw = r.text(el)
    if not raw:
        return IDENTITY
    if fmt == "quat_xyzw":
        v = r.floats_list(el, raw, "<pose> value (x y z qx qy qz qw)", 7)
        q = np.array([v[6], v[3], v[4], v[5]])
        if not unit_quaternions(q)[1] >= 1e-12:
            raise r.error(el, "the pose quaternion has zero length")
        return make_transform(quat_to_matrix(q), v[:3])
    v = r.floats_list(el, raw, "<pose> value (x y z roll pitch yaw)", 6)
    rpy = np.radians(v[3:]) if degrees else v[3:]
    return remembered_transform("rpy", rpy, rpy_to_matrix, v)


# -- values anywhere in the model --------------------------------------------------------------------
# the value type of every element of SDF 1.9 that holds a number or a boolean, by its parent's tag (libsdformat's
# description files: value_types.py), and of elements newer than those (1.10, 1.11), in any parent
_TYPES: dict[str, dict[str, tuple[str, ...]]] = {}
for (_parent, _tag), _kinds in VALUE_TYPES.items():
    _TYPES.setdefault(_tag, {})[_parent] = _kinds
_NEWER = {"screw_thread_pitch": ("double",), "density": ("double",), "radii": ("vector3",)}
# tags of one type in every parent (most: mass, always_on, ambient) need no look at the parent
_UNIFORM = {tag: next(iter(set(by.values()))) for tag, by in _TYPES.items() if len(set(by.values())) == 1}
_UNIFORM.update((tag, kinds) for tag, kinds in _NEWER.items() if tag not in _TYPES)
_TEXT = ("text",)
# tags of values with bounds (in some parent): looked at by their parent, as the bounds depend on it
_BOUNDED_TAGS = frozenset(t for _, t in VALUE_RANGES) | frozenset(t for _, _, t in VALUE_RANGES_IN)
# tags of elements libsdformat refuses empty (in some parent), looked at even where their value is text
_REQUIRED_TAGS = frozenset(t for _, t in REQUIRED_VALUES) | frozenset(t for _, _, t in REQUIRED_VALUES_IN)
_CHECKED_TAGS = tuple(dict.fromkeys((*(t for t, by in _TYPES.items() if set(by.values()) != {_TEXT}),
                                     *(t for t in _NEWER if t not in _TYPES), "pose", *sorted(_REQUIRED_TAGS))))
_COUNTS = {"double": (1,), "int": (1,), "unsigned": (1,), "vector3": (3,), "vector2": (2,), "color": (3, 4),
           "time": (1, 2)}
_NAMESPACED = etree.XPath("//*[namespace-uri()]")  # (a union with //plugin costs twice as much as both apart)
_XMLNS = re.compile(r"""xmlns(?::[^\s=]+)?\s*=\s*["']([^"']*)""")  # a namespace declaration's name


def _check_value(r: XmlReader, el: etree._Element, raw: str, kind: str) -> None:
    """Refuse `raw` if it is not a value of `kind` (a value type of value_types.py), naming the element."""
    if kind == "bool":
        r.bool_text(el)
        return
    if kind == "double" and raw.lower().lstrip("+-") in ("inf", "infinity"):
        return
    if kind in ("int", "unsigned") and raw.lower().startswith("0x"):  # (libsdformat reads hexadecimal: a bitmask)
        try:
            int(raw, 16)
            return
        except ValueError:
            raise r.error(el, f"<{el.tag}> value must be an integer, got '{raw}'") from None
    counts = _COUNTS[kind]
    if len(raw) <= 4 * MAX_NUMBER_CHARS and raw.isascii() and "_" not in raw:  # plain finite numbers: the common case
        parts = raw.split()
        try:
            total = sum(map(float, parts))
        except ValueError:
            total = math.nan
        if (total * 0.0 == 0.0 and len(parts) in counts and (kind != "unsigned" or float(parts[0]) >= 0)
                and (kind != "color" or all(0.0 <= float(p) <= 1.0 for p in parts))):
            return
    values = r.floats_list(el, raw, f"<{el.tag}> value", counts[0] if len(counts) == 1 else None)
    if len(values) not in counts:
        raise r.error(el, f"<{el.tag}> needs {' or '.join(map(str, counts))} numbers, got {len(values)}")
    if kind == "color" and not all(0.0 <= v <= 1.0 for v in values):  # (libsdformat: "Error reading element")
        raise r.error(el, f"<{el.tag}> needs 3 or 4 numbers between 0 and 1 (r g b [a]), got '{raw}'")
    if kind == "unsigned" and values[0] < 0:
        raise r.error(el, f"<{el.tag}> must not be negative, got {raw}")


def _in_custom_element(r: XmlReader, el: etree._Element) -> bool:
    """Whether `el` is, or is inside, an element the specification does not define where it stands, which
    libsdformat copies with what it holds without a check (un-namespaced custom content:
    `<custom_stuff><ode><mu>-1</mu>`; an element of the specification in another's place: a <link> in a <light>).
    Where it stands is judged by the document's version (`children_of`). Asked only before a refusal, so that a
    valid file pays nothing for it."""
    children = children_of(getattr(r, "document_version", MAX_VERSION))
    node, parent = el, el.getparent()
    while parent is not None:
        if isinstance(parent.tag, str) and node.tag not in children.get(parent.tag, ()):
            return True
        node, parent = parent, parent.getparent()
    return False


@functools.cache
def children_of(version: tuple[int, int]) -> dict[str, frozenset[str]]:
    """The elements defined in each element of a document of `version`: SDF 1.9's, what libsdformat's converters
    move into place from an older version (a 1.5 <physics><gravity>, which it refuses malformed), and from 1.10 the
    elements the newer specifications add (a <collision>'s <density>)."""
    table = {parent: set(tags) for parent, tags in CHILDREN.items()}
    extra = [found for below, found in CONVERTED_BELOW.items() if version < below]
    if version >= (1, 10):
        extra.append(NEWER_CHILDREN)
    for found in extra:
        for parent, tags in found.items():
            table.setdefault(parent, set()).update(tags)
    return {parent: frozenset(tags) for parent, tags in table.items()}


def _number(text: str) -> float:
    """A number the value check has passed: a decimal, or a hexadecimal integer (libsdformat reads both)."""
    return float(int(text, 16)) if text.lower().startswith(("0x", "+0x", "-0x")) else float(text)


def _bound(b: float) -> str:
    return repr(int(b)) if b == int(b) else repr(b)  # (as the specification writes it: 6.283186, not 6.28319)


def _spec_key(el: etree._Element, pairs, triples) -> tuple[str, ...] | None:
    """The key of `el` in a table of the description files: (parent tag, tag) where every parent of that tag
    agrees, else (grandparent tag, parent tag, tag); None where neither table has it."""
    parent = el.getparent()
    if parent is None:
        return None
    key = (parent.tag, el.tag)
    if key in pairs:
        return key
    grandparent = parent.getparent()
    if grandparent is not None and (grandparent.tag, *key) in triples:
        return (grandparent.tag, *key)
    return None


def _check_not_required(r: XmlReader, el: etree._Element) -> None:
    """Refuse an empty element that the specification requires: libsdformat does ("Empty string used when setting
    a required parameter"), where an optional one takes its default.  Read with the default, an empty <size>
    was a 1 m box and an empty <uri> a mesh without a file, in a file libsdformat does not load."""
    if _spec_key(el, REQUIRED_VALUES, REQUIRED_VALUES_IN) is not None and not _in_custom_element(r, el):
        raise r.error(el, f"<{el.tag}> of <{el.getparent().tag}> is empty: the specification requires its value, and "
                          "libsdformat refuses an empty one (it takes no default for it)")


def _check_bounds(r: XmlReader, el: etree._Element, raw: str) -> None:
    """Refuse a value outside the bounds the description files give it (libsdformat: "Error reading element
    <mu>"): a negative friction coefficient or noise deviation, a camera's field of view of 7 rad."""
    key = _spec_key(el, VALUE_RANGES, VALUE_RANGES_IN)
    if key is None:
        return
    lo, hi = VALUE_RANGES[key] if len(key) == 2 else VALUE_RANGES_IN[key]
    values = [_number(v) for v in raw.split()]  # (numbers: the value check has passed them)
    if ((lo is not None and any(v < b for v, b in zip(values, lo))) or (
            hi is not None and any(v > b for v, b in zip(values, hi)))) and not _in_custom_element(r, el):
        span = f"at least {' '.join(map(_bound, lo))}" if hi is None else (
            f"at most {' '.join(map(_bound, hi))}" if lo is None else
            f"between {' '.join(map(_bound, lo))} and {' '.join(map(_bound, hi))}")
        raise r.error(el, f"<{el.tag}> of <{el.getparent().tag}> is {raw}: the specification wants it {span} "
                          "(libsdformat refuses it)")


def _check_kinds(r: XmlReader, el: etree._Element, raw: str, kinds: tuple[str, ...]) -> None:
    for k, kind in enumerate(kinds):  # (a tag of two types in one parent: either will do)
        try:
            _check_value(r, el, raw, kind)
            return
        except ModelError:
            if k == len(kinds) - 1:
                raise


# What libsdformat trims of a name or a frame reference (measured with `ign sdf -k`): ASCII space, tab and line feed
# around an attribute's value, and a carriage return too around an element's text (`<child>C&#13;</child>` names C,
# `name="C&#13;"` is a name of its own). Other white space (U+00A0, U+2028) stays in the name: the reader strips it
# (names are read with str.strip), and says where libsdformat would not find what a reference names.
ATTRIBUTE_TRIM = " \t\n"
TEXT_TRIM = " \t\n\r"


def reserved_name(name: str) -> bool:
    """libsdformat's reserved names: 'world', and __name__ of at least four characters ('__' and '___' are
    names like any other there; they were refused here)."""
    return name == "world" or (len(name) >= 4 and name.startswith("__") and name.endswith("__"))


# the elements whose name libsdformat refuses when reserved ("The supplied visual name [world] is reserved.")
NAMED_ENTITIES = frozenset(("model", "world", "link", "joint", "frame", "visual", "collision", "sensor", "light",
                             "particle_emitter", "physics"))


def check_values(r: XmlReader, root: etree._Element, version: tuple[int, int]) -> None:
    """Reject malformed values anywhere in the model, as libsdformat does, not only in what we use: the names of
    its elements too (a visual or sensor named 'world' was read, and written back for libsdformat to refuse).
    `version`: read_version's, or for an included document the including one's where that is newer."""
    skipped: set[etree._Element] = set()  # inside a <plugin> or a foreign namespace: not SDFormat's values
    namespaces = getattr(r, "namespaces", None)
    if namespaces is None:
        foreign = _NAMESPACED(root)
    else:  # (each namespace's elements found by lxml's own tag matching: a third of the XPath's time)
        foreign = [el for uri in namespaces for el in root.iter(f"{{{uri}}}*")]
    for top in (*root.iter("plugin"), *foreign):
        if top not in skipped:
            skipped.update(top.iter(etree.Element))  # one pass, instead of every element asking its ancestors
    # only the elements that carry a checked value, found by lxml (in document order: the first bad one is
    # the one reported), rather than every element of the document visited in Python
    good: set[tuple[tuple[str, ...], str]] = set()  # (types, text) found good: most repeat ("0", "1 1 1", "true")
    for el in root.iter(*_CHECKED_TAGS):
        if el in skipped:
            continue
        raw = el.text  # (r.text, spelled out: a call per element was a tenth of this loop)
        if len(el):  # (what it holds is judged on its own; an element of children and no value is empty, which
            if el.tag in _REQUIRED_TAGS and (raw is None or not raw.strip()):  # libsdformat refuses where required:
                _check_empty(r, el)  # a second <parent> holding an axis's <xyz>; an include's <name> is one of them)
            continue
        raw = raw.strip() if raw is not None else ""
        tag = el.tag
        if tag == "pose" and (raw or len(el.attrib) > ("relative_to" in el.attrib)):  # (empty: its degrees and
            _check_pose(r, el)  # rotation_format)
        if not raw:
            if tag in _REQUIRED_TAGS:  # (an include's <name>: "name" is required elsewhere)
                _check_empty(r, el)
            continue
        if tag == "pose":
            continue
        kinds = _UNIFORM.get(tag)
        parent = ""
        if kinds is None:  # (a tag whose type depends on its parent: a link's <gravity> is a boolean)
            parent = el.getparent().tag
            kinds = _TYPES[tag].get(parent)
        if kinds is None or kinds == _TEXT:
            continue
        if (kinds, raw) not in good:
            try:
                _check_kinds(r, el, raw, kinds)
            except ModelError:
                if _in_custom_element(r, el):
                    continue  # (not SDFormat's value: libsdformat copies it as it is)
                raise
            good.add((kinds, raw))
        if tag in _BOUNDED_TAGS:  # (a well-formed number, now: its bounds)
            _check_bounds(r, el, raw)
    models = find_children(root, "model")
    whole = find_child(root, "world") is not None or len(models) > 1  # (it holds models the reader does not read)
    _check_names(r, root, skipped, version, models, whole)
    _check_attributes_and_parts(r, root, skipped, whole)


def _check_empty(r: XmlReader, el: etree._Element) -> None:
    """An element without a value (none, blank, or only elements inside: `<name><x/></name>`) where libsdformat
    takes none: a required value, an include's <name>."""
    if el.tag in _REQUIRED_TAGS:
        _check_not_required(r, el)
    if el.tag == "name" and el.getparent().tag == "include":  # (optional; libsdformat 12 crashes on an empty one)
        raise r.error(el, "the <name> of an <include> is empty: leave it out for the included model's own "
                          "name (libsdformat crashes on an empty one)")


def _check_pose(r: XmlReader, el: etree._Element) -> None:
    """A pose read as the frame graph reads it (remembered by element), but not one in custom content, which
    libsdformat copies as it is (`<custom_stuff><pose>a b c</pose>` was refused)."""
    try:
        read_pose(r, el, (1, 11), check_only=True)
    except ModelError:
        if not _in_custom_element(r, el):
            raise


def _not_loaded(r: XmlReader, el: etree._Element, skipped: set[etree._Element]) -> bool:
    """Whether libsdformat's classes leave `el` alone: in a plugin or a namespaced element, in custom content, or in
    a world's <state>, <population> or <road>, which libsdformat 12 parses but loads as no models (a model named
    'world' in a <state> is read there). Asked only of an element with a problem."""
    if el in skipped or _in_custom_element(r, el):
        return True
    return any(a.tag in _UNLOADED_PARTS for a in el.iterancestors())


_UNLOADED_PARTS = frozenset(("state", "population", "road"))
_NAMED_NOT_IN_GRAPH = tuple(NAMED_ENTITIES - {"model", "link", "joint", "frame"})


# the attributes libsdformat's classes take one of a few values of, and refuse another ("Invalid light type with a
# value of [Point]"); a noise's type (its attribute, or a camera noise's <type>) is compared without case, and judged
# in every sensor, where libsdformat 12 judges it in some (a force/torque sensor's, a camera's; not an IMU's). (A
# camera's image format is not judged: the lists of formats grow with the specification.)
_KEYWORDS = {("light", "type"): ("point", "directional", "spot"),
             ("noise", "type"): ("none", "gaussian", "gaussian_quantized"),
             ("shader", "type"): ("pixel", "vertex", "normal_map_object_space", "normal_map_tangent_space",
                                  "normal_map_objectspace", "normal_map_tangentspace"),  # (Gazebo classic's spelling)
             ("particle_emitter", "type"): ("point", "box", "cylinder", "ellipsoid")}
_KEYWORD_OF = {tag: (attr, allowed) for (tag, attr), allowed in _KEYWORDS.items()}

# the elements the frame graph and the reader judge as they read them (a link, joint, frame, nested model, visual or
# collision needs its name there; they are most of a model's elements): judged here only in a document that holds
# models the reader does not read (a world's others: a model named "" there was read)
_READ_WITH_NAMES = frozenset(("link", "joint", "frame", "model", "visual", "collision"))
_ATTRIBUTE_TAGS = tuple(sorted({t for _, t in REQUIRED_ATTRIBUTES} | {t for _, _, t in REQUIRED_ATTRIBUTES_IN}
                               | set(_KEYWORD_OF) | {"script", "submesh", "pbr"}))  # (in a world: its other models' too)
# and where the document holds one model, the one read: its sensors' name and type are judged as they are read too,
# and what requires attributes only in a world is not there (a joint's <physics> requires none, a world's its type)
_ATTRIBUTE_TAGS_OF_MODEL = tuple(t for t in _ATTRIBUTE_TAGS if t not in _READ_WITH_NAMES
                                 and t not in ("sensor", "physics", "atmosphere", "state", "road", "population"))


def _check_attributes_and_parts(r: XmlReader, root: etree._Element, skipped: set[etree._Element],
                                whole: bool = True) -> None:
    """What libsdformat refuses in elements the model may not hold (a world's lights, a visual's material script,
    a sensor's noise): an attribute the specification requires, missing or blank; a keyword attribute of another
    value; a material script without its file and name, a submesh without a name, a normal-map shader without a
    normal map. The reader read such files, and kept and wrote back what libsdformat refuses. (Whether the element
    is in a plugin or custom content, where nothing is judged, is asked only of one with a problem.)"""
    for el in root.iter(*(_ATTRIBUTE_TAGS if whole else _ATTRIBUTE_TAGS_OF_MODEL)):
        problem = _attribute_problem(el)
        if problem is not None and not (_not_loaded(r, el, skipped) and not _own_plugin_attribute(r, el, problem, skipped)):
            raise r.error(*problem)


def _own_plugin_attribute(r: XmlReader, el: etree._Element, problem: tuple[etree._Element, str], skipped: set) -> bool:
    """A plugin's own filename is the specification's, though what the plugin holds is not: missing, libsdformat
    refuses the file ("Required attribute[filename] in element[plugin]"). (Its name, which libsdformat 12 requires
    too, is not judged: plugins in the wild are named by their filename alone, and only libsdformat 12, not the
    later ones that read SDF 1.10 and 1.11, could be asked here.)"""
    return (el.tag == "plugin" and problem[0] is el and problem[1].startswith("missing required attribute 'filename'")
            and not _not_loaded(r, el.getparent(), skipped))


def _attribute_problem(el: etree._Element) -> tuple[etree._Element, str] | None:
    """The element and the message of what _check_attributes_and_parts refuses in `el`, or None."""
    tag = el.tag
    needed = REQUIRED_ATTRIBUTES_OF_TAG.get(tag)  # (most: no need to look at the parent)
    if needed is None:
        key = _spec_key(el, REQUIRED_ATTRIBUTES, REQUIRED_ATTRIBUTES_IN)
        needed = () if key is None else REQUIRED_ATTRIBUTES[key] if len(key) == 2 else REQUIRED_ATTRIBUTES_IN[key]
    for attr in needed:
        value = el.get(attr)
        if not value or value.isspace():
            blank = " (it is blank)" if value is not None else ""
            return el, f"missing required attribute '{attr}'{blank}: libsdformat refuses the file"
    keyword = _KEYWORD_OF.get(tag)
    if keyword is not None:
        attr, allowed = keyword
        value = el.get(attr)
        if value is not None and (value.strip().lower() if tag == "noise" else value.strip()) not in allowed:
            return el, f"{attr}=\"{value}\" is not one of {', '.join(allowed)} (libsdformat refuses it)"
    if tag == "noise":  # (a camera's noise gives its type as an element)
        kind, allowed = find_child(el, "type"), _KEYWORDS[("noise", "type")]
        if kind is not None and (kind.text or "").strip().lower() not in allowed:
            return kind, (f"<noise> <type> '{(kind.text or '').strip()}' is not one of {', '.join(allowed)} "
                          "(libsdformat refuses it)")
    elif tag == "script":
        if el.getparent().tag == "material":
            for part in ("uri", "name"):
                if not _given(el, part):
                    return el, f"a material <script> needs a <{part}> (libsdformat refuses one without)"
    elif tag == "submesh":
        if not _given(el, "name"):
            return el, "a <submesh> needs a <name> (libsdformat refuses one without)"
    elif tag == "shader" and (el.get("type") or "").startswith("normal_map") and find_child(el, "normal_map") is None:
        return el, f"a {el.get('type')} <shader> needs a <normal_map> (libsdformat refuses one without)"
    elif tag == "pbr":  # (libsdformat reads each child as a workflow: "the provided SDF element is not <metal>")
        other = next((c for c in el if isinstance(c.tag, str) and c.tag not in ("metal", "specular")), None)
        if other is not None:
            return other, (f"<{shown_tag(other)}> in <pbr>: a PBR material holds <metal> and <specular> workflows "
                           "only (libsdformat refuses anything else there)")
    return None


def _given(el: etree._Element, tag: str) -> bool:
    """Whether `el` has a child `tag` with a value: neither blank nor the specification's default string, which
    libsdformat takes for none ("missing a child <uri> element, or the <uri> element is empty")."""
    child = find_child(el, tag)
    return child is not None and (child.text or "").strip() not in ("", "__default__")


def _check_names(r: XmlReader, root: etree._Element, skipped: set[etree._Element],
                 version: tuple[int, int], models: list[etree._Element], whole: bool) -> None:
    """Names libsdformat refuses in any element it reads (not in a plugin or a namespaced element): from SDF 1.8 one
    with '::', the delimiter of scopes, in any element at all ("Detected delimiter '::' in element name"; a
    visual or a sensor of such a name was read); and a reserved name of an entity."""
    # every element is visited only where a '::' of the text stands outside a <plugin> start tag (read_document's
    # `delimited`; Gazebo files name their plugins so)
    if version >= (1, 8) and getattr(r, "delimited", True):  # (a plain XmlReader: not known)
        for el in root.iter(etree.Element):
            name = el.get("name")
            if name is not None and "::" in name and el not in skipped:
                raise r.error(el, f"the {el.tag} name '{name}' contains '::', which SDF 1.8+ reserves for scopes "
                                  "(libsdformat refuses it)")
    # the frame graph judges the names of the model read (its links, joints, frames, nested models) as it reads them:
    # here the other entities', and in a world, which holds models not read, every one's
    for el in (*models, *root.iter(*(NAMED_ENTITIES if whole else _NAMED_NOT_IN_GRAPH))):
        name = el.get("name")
        if (name is not None and ("__" in name or "world" in name) and reserved_name(name.strip())
                and not _not_loaded(r, el, skipped)):
            raise r.error(el, f"the {el.tag} name '{name.strip()}' is reserved ('world' and names like __name__ "
                              "cannot be used; libsdformat refuses them)")


# -- the legacy flattened form -------------------------------------------------------------------------
_FLATTENABLE = ("frame", "joint", "link", "model", "gripper")


def unflatten_world_models(r: XmlReader, root: etree._Element, diag: Diagnostics) -> None:
    """libsdformat's 1.7 -> 1.8 conversion of the models of a world: `A::x` names become nested models.

    Before 1.8 an included model could be written flat (`ign sdf -p` did): its elements as siblings
    named `A::...` and its frame as `<frame name="A::__model__" attached_to="A::L">`.  libsdformat 12
    converts such models in a `<world>` back into nested models (its Converter's `unflatten` step);
    elsewhere `::` is just a character of a name, and so it is here.
    """
    for world in find_children(root, "world"):
        for model in find_children(world, "model"):
            _unflatten(r, model, diag, 0)


def _unflatten(r: XmlReader, model: etree._Element, diag: Diagnostics, depth: int) -> None:
    if depth > MAX_NESTING:
        raise r.error(model, f"flattened names nest models more than {MAX_NESTING} levels deep; refused")
    first_new: etree._Element | None = None
    restart = True
    while restart:
        restart = False
        for el in list(model):
            if el is first_new:
                return
            if not isinstance(el.tag, str) or el.tag not in _FLATTENABLE or not el.get("name"):
                continue
            name = el.get("name")
            if "::" not in name:
                if el.tag == "model":
                    _unflatten(r, el, diag, depth + 1)
                    return  # as libsdformat: a plain nested model ends the scan of its parent
                continue
            prefix = name.split("::", 1)[0]
            nested = etree.Element("model", name=prefix)
            nested.sourceline = el.sourceline  # errors about the nested model point at its first element
            if _move_into(r, model, nested, prefix + "::"):
                _unflatten(r, nested, diag, depth + 1)
                model.append(nested)
                diag.warn(f"{diag.at(el)}: flattened names '{prefix}::...' read as the nested model "
                          f"'{prefix}' (libsdformat's conversion of SDF 1.7)")
                first_new = first_new if first_new is not None else nested
                restart = True
                break


def _strip(el: etree._Element | None, attr: str, head: str) -> None:
    if el is not None and (el.get(attr) or "").startswith(head):
        el.set(attr, el.get(attr)[len(head):])


def _strip_text(r: XmlReader, el: etree._Element | None, head: str, what: str) -> None:
    if el is None or el.text is None:
        return
    if not el.text.startswith(head):
        raise r.error(el, f"flattened model '{head[:-2]}': {what} '{el.text}' does not start with '{head}'")
    el.text = el.text[len(head):]


def _move_into(r: XmlReader, model: etree._Element, nested: etree._Element, head: str) -> bool:
    """Move the elements named `head...` into `nested`, their references made local."""
    moved = False
    for el in list(model):
        if not isinstance(el.tag, str) or el.tag not in _FLATTENABLE:
            continue
        name = el.get("name") or ""
        if not name.startswith(head):
            continue
        local = name[len(head):]
        el.set("name", local)
        _strip(find_child(el, "pose"), "relative_to", head)
        if el.tag == "frame" and el.get("attached_to") is not None:
            _strip_text_attr(r, el, "attached_to", head)
            if local == "__model__":  # the nested model's own frame: its canonical link and pose
                nested.set("canonical_link", el.get("attached_to"))
                pose = find_child(el, "pose")
                if pose is not None:
                    nested.insert(0, pose)
                model.remove(el)
                moved = True
                continue
        elif el.tag == "link":
            for child in el:
                if isinstance(child.tag, str):
                    _strip(find_child(child, "pose"), "relative_to", head)
        elif el.tag == "joint":
            _strip_text(r, find_child(el, "parent"), head, "<parent>")
            _strip_text(r, find_child(el, "child"), head, "<child>")
            for axis in ("axis", "axis2"):
                xyz = find_child(el, f"{axis}/xyz")
                if xyz is not None and xyz.get("expressed_in") is not None:
                    _strip_text_attr(r, xyz, "expressed_in", head)
            for sensor in find_children(el, "sensor"):
                _strip(find_child(sensor, "pose"), "relative_to", head)
        nested.append(el)
        moved = True
    return moved


def _strip_text_attr(r: XmlReader, el: etree._Element, attr: str, head: str) -> None:
    value = el.get(attr)
    if not value.startswith(head):
        raise r.error(el, f"flattened model '{head[:-2]}': {attr} '{value}' does not start with '{head}'")
    el.set(attr, value[len(head):])


__all__ = [
    "IDYNTREE_NS",
    "MAX_NESTING",
    "MAX_VERSION",
    "MIN_VERSION",
    "check_values",
    "child_bool",
    "child_float",
    "child_text",
    "found_float",
    "is_colour",
    "is_true",
    "parse_version_text",
    "read_document",
    "read_pose",
    "read_version",
    "repair_xml",
    "unflatten_world_models",
]
