"""Write idyntree_models/formats/sdf/value_types.py from libsdformat's SDF description files.

    python3 scripts/sdf_value_types.py [/usr/share/sdformat12/1.9] > idyntree_models/formats/sdf/value_types.py

The description files (Debian libsdformat-dev) give each element its value type; libsdformat refuses a file
whose element holds a value of the wrong type.  The reader checks the same (document.check_values), by the
element and its parent's tag, for the types that are numbers or booleans.  They also say which elements are
required (required="1"): libsdformat refuses such an element whose value is empty ("Empty string used when
setting a required parameter"), where an optional one takes its default; REQUIRED_VALUES lists them. Some
give a value's bounds (min, max): libsdformat refuses a value outside them ("Error reading element <mu>");
VALUE_RANGES lists them, where every definition of (parent tag, tag) gives the same. And some attributes are
required: libsdformat refuses an element without one, or with a blank one ("Required attribute[type] in
element[light] is not specified"); REQUIRED_ATTRIBUTES lists them. CHILDREN (with CONVERTED_BELOW, what the
version converters move into place, and NEWER_CHILDREN) says where an element is the specification's: anything
else libsdformat copies unchecked.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from lxml import etree

CHECKED = {"double": "double", "float": "double", "int": "int", "unsigned int": "unsigned", "bool": "bool",
           "vector3": "vector3", "vector2d": "vector2", "color": "color", "time": "time"}


@dataclass
class Found:
    """What the description files say, gathered by walk."""

    types: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (parent, tag) -> value types
    required: dict[tuple[str, str, str], set[bool]] = field(default_factory=dict)  # (grandparent, parent, tag)
    ranges: dict[tuple[str, str, str], set] = field(default_factory=dict)  # the same -> {(min, max)}
    children: dict[str, set[str]] = field(default_factory=dict)  # parent tag -> the child tags any of its kind has
    attributes: dict[tuple[str, str, str], set[tuple[str, ...]]] = field(default_factory=dict)  # the same -> required


def walk(spec: Path, el: etree._Element, parent: str | None, grandparent: str | None, found: Found,
         seen: set) -> None:
    """Record what `el` and the elements it holds say (types, required="1", min and max, children), following
    <include filename>."""
    name = el.get("name")
    if name and name != "__default__" and parent:
        found.children.setdefault(parent, set()).add(name)
        needed = tuple(sorted(a.get("name") for a in el.findall("attribute") if a.get("required") == "1"))
        found.attributes.setdefault((grandparent or "", parent, name), set()).add(needed)
    kind = CHECKED.get(el.get("type") or "", "text")  # (text: a string, a pose, ... not checked as a number)
    if el.get("type") and parent and name and name != "__default__":
        found.types.setdefault((parent, name), set()).add(kind)
        key = (grandparent or "", parent, name)
        found.required.setdefault(key, set()).add(el.get("required") == "1")
        found.ranges.setdefault(key, set()).add((el.get("min"), el.get("max")))
    for child in el:
        if child.tag == "element":
            walk(spec, child, name, parent, found, seen)
        elif child.tag == "include":
            key = (name, child.get("filename"))
            if key in seen:
                continue
            seen.add(key)
            path = spec / child.get("filename")
            if path.is_file():  # (libsdformat 12 ships sensor.sdf naming a navsat.sdf it does not have)
                walk(spec, etree.parse(str(path)).getroot(), name, parent, found, seen)


# the children of navsat.sdf, which libsdformat 12's sensor.sdf includes and builds in, but Debian's
# libsdformat-dev does not ship (walk skips it): SDF 1.9's navsat sensor
NAVSAT_CHILDREN = {"sensor": ("navsat",), "navsat": ("position_sensing", "velocity_sensing"),
                   "position_sensing": ("horizontal", "vertical"), "velocity_sensing": ("horizontal", "vertical")}
# the elements SDF 1.10 and 1.11 add where the reader reads them (libsdformat 12 has no description of these
# versions): defined in documents of those versions
NEWER_CHILDREN = {"collision": ("auto_inertia_params", "density"), "inertial": ("auto_inertia_params", "density"),
                  "joint": ("screw_thread_pitch",), "axis": ("mimic",), "axis2": ("mimic",),
                  "mimic": ("multiplier", "offset", "reference"), "geometry": ("cone",), "cone": ("length", "radius")}


def converted(spec_root: Path) -> dict[tuple[int, int], dict[str, set[str]]]:
    """The (parent, child) places libsdformat's version converters move or map from, by the version below which
    they apply (X_Y.convert in the directory of version V converts documents older than V): libsdformat converts
    an older document to its own version before it reads it, so an element there is the specification's too (a
    SDF 1.5 <physics><gravity>, moved to the world)."""
    out: dict[tuple[int, int], dict[str, set[str]]] = {}

    def walk(el: etree._Element, context: list[str], found: dict[str, set[str]]) -> None:
        for c in el:
            if c.tag == "convert":
                walk(c, [*context, c.get("name")], found)
            elif c.tag in ("move", "copy", "map"):
                src = c.find("from")
                path = (src.get("element") or src.get("name") or "") if src is not None else ""
                names = [context[-1], *path.split("::")] if path else []
                for parent, child in zip(names, names[1:]):
                    found.setdefault(parent, set()).add(child)

    for directory in sorted(spec_root.glob("1.*")):
        version = tuple(int(x) for x in directory.name.split("."))
        for path in directory.glob("*.convert"):
            walk(etree.parse(str(path)).getroot(), ["sdf"], out.setdefault(version, {}))
    return {v: found for v, found in out.items() if found}


def by_parent(defs: dict[tuple[str, str, str], set], keep) -> tuple[dict, dict]:
    """Of each (grandparent, parent, tag)'s definitions: the value of (parent, tag) where every definition of it
    says one thing worth keeping, and else the value of (grandparent, parent, tag) where its own do."""
    pairs: dict[tuple[str, str], set] = {}
    for (_, parent, tag), values in defs.items():
        pairs.setdefault((parent, tag), set()).update(values)
    uniform = {k: next(iter(v)) for k, v in pairs.items() if len(v) == 1 and keep(next(iter(v)))}
    within = {k: next(iter(v)) for k, v in defs.items()
              if len(pairs[k[1:]]) > 1 and len(v) == 1 and keep(next(iter(v)))}
    return uniform, within


def bounds_text(bounds: tuple[str | None, str | None]) -> str:
    lo, hi = (None if b is None else tuple(float(x) for x in b.split()) for b in bounds)
    return f"({lo!r}, {hi!r})"


def main() -> None:
    spec = Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/sdformat12/1.9")
    found = Found()
    walk(spec, etree.parse(str(spec / "root.sdf")).getroot(), None, None, found, set())
    if not (spec / "navsat.sdf").is_file():
        for parent, tags in NAVSAT_CHILDREN.items():
            found.children.setdefault(parent, set()).update(tags)
    print('"""The value type of each SDFormat element that holds a value, by its parent\'s tag and its own ("text": a')
    print("string, a pose or another type not checked as numbers).")
    print()
    print(f"Generated by scripts/sdf_value_types.py from libsdformat 12's SDF {spec.name} description files")
    print('(Apache-2.0; the element names and types are the specification\'s).  Do not edit."""')
    print()
    print("VALUE_TYPES: dict[tuple[str, str], tuple[str, ...]] = {")
    for (parent, tag), kinds in sorted(found.types.items()):
        print(f"    ({parent!r}, {tag!r}): {tuple(sorted(kinds))!r},")
    print("}")
    print()
    required, required_in = by_parent(found.required, lambda flag: flag)
    print("# elements whose value libsdformat refuses empty: required=\"1\" wherever (parent tag, tag) is defined;")
    print("# then those required in some parents of that tag only: (grandparent tag, parent tag, tag)")
    for title, table in (("REQUIRED_VALUES: frozenset[tuple[str, str]]", required),
                         ("REQUIRED_VALUES_IN: frozenset[tuple[str, str, str]]", required_in)):
        print(f"{title} = frozenset({{")
        for key in sorted(table):
            print(f"    {key!r},")
        print("})")
    # (libsdformat enforces the bounds of one number, not of a vector's)
    scalar = {k: v for k, v in found.ranges.items() if not any(len(b.split()) > 1 for pair in v for b in pair if b)}
    ranges, ranges_in = by_parent(scalar, lambda bounds: bounds != (None, None))
    print("# the bounds of a number, (min, max) each a tuple of one number or None, where every")
    print("# definition of (parent tag, tag) gives the same; then those given in some parents of that tag only")
    bounds_type = "tuple[tuple[float, ...] | None, tuple[float, ...] | None]"
    for title, table in ((f"VALUE_RANGES: dict[tuple[str, str], {bounds_type}]", ranges),
                         (f"VALUE_RANGES_IN: dict[tuple[str, str, str], {bounds_type}]", ranges_in)):
        print(f"{title} = {{")
        for key, bounds in sorted(table.items()):
            print(f"    {key!r}: {bounds_text(bounds)},")
        print("}")
    attrs, attrs_in = by_parent(found.attributes, lambda needed: bool(needed))
    print("# the attributes libsdformat requires of an element (required=\"1\": missing or blank, the file is refused),")
    print("# by (parent tag, tag) where every definition agrees; then by (grandparent tag, parent tag, tag)")
    for title, table in (("REQUIRED_ATTRIBUTES: dict[tuple[str, str], tuple[str, ...]]", attrs),
                         ("REQUIRED_ATTRIBUTES_IN: dict[tuple[str, str, str], tuple[str, ...]]", attrs_in)):
        print(f"{title} = {{")
        for key, needed in sorted(table.items()):
            print(f"    {key!r}: {needed!r},")
        print("}")
    by_tag: dict[str, set[tuple[str, ...]]] = {}
    for (_, _, tag), needed in found.attributes.items():
        by_tag.setdefault(tag, set()).update(needed)
    print("# the tags that require the same attributes wherever the specification defines them (a link its name)")
    print("REQUIRED_ATTRIBUTES_OF_TAG: dict[str, tuple[str, ...]] = {")
    for tag, needed in sorted(by_tag.items()):
        if len(needed) == 1 and next(iter(needed)):
            print(f"    {tag!r}: {next(iter(needed))!r},")
    print("}")
    print("# the elements the specification defines in each element (by tag, over all its definitions): one of another")
    print("# tag there is one libsdformat copies without a check (a <link> in a <light>), and so is what it holds")
    print("CHILDREN: dict[str, frozenset[str]] = {")
    for parent, tags in sorted(found.children.items()):
        print(f"    {parent!r}: frozenset((")
        tags = sorted(tags)
        for i in range(0, len(tags), 4):
            print("        " + " ".join(f"{t!r}," for t in tags[i:i + 4]))
        print("    )),")
    print("}")
    print("# what libsdformat's converters move into place in a document older than the version (X_Y.convert), and the")
    print("# elements of SDF 1.10 and 1.11 the reader reads: defined there too")
    print("CONVERTED_BELOW: dict[tuple[int, int], dict[str, frozenset[str]]] = {")
    for version, found in sorted(converted(spec.parent).items()):
        print(f"    {version!r}: {{")
        for parent, tags in sorted(found.items()):
            print(f"        {parent!r}: frozenset({tuple(sorted(tags))!r}),")
        print("    },")
    print("}")
    print("NEWER_CHILDREN: dict[str, frozenset[str]] = {")
    for parent, tags in sorted(NEWER_CHILDREN.items()):
        print(f"    {parent!r}: frozenset({tuple(sorted(tags))!r}),")
    print("}")


if __name__ == "__main__":
    main()
