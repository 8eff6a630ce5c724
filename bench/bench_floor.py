"""The floor under the load-time targets: what lxml and the interpreter cost before any model logic.

    .venv/bin/python bench/bench_floor.py [--repeat N] [--sizes 10000,100000]

For each model of bench_targets.py's load rows, timed alternately with its reference (as there):
  parse    lxml parses the document (a 100,000-link file is streamed, as our reader does, since its
           tree alone would pass the 500 MB limit);
  visit    parse, then Python visits every element once and reads its tag, text and every attribute
           value: the least any reader written in Python over lxml does;
  numbers  visit, plus every number of the document converted to float in one numpy call (the
           cheapest conversion there is, with no check of the grammar, no error message, no line);
  objects  (URDF) parse, then one pass making the model's objects (links, inertias, shapes with their
           materials, joints with their limits and dynamics; named materials are not looked up in the
           robot's table) from every number converted in one numpy call, poses and
           inertias computed stacked, each object given views: what any Python reader of this model pays
           to hold it, with nothing checked, no line kept, no pass-through element, no frame, no sensor
           and no validation;
  ours     load_model, the whole load (checks, model objects, validation, the tree).
No model logic runs in the first three floors: nothing is checked, no object of the model is made.  When a
floor's ratio is already at or above the target, no reader of this design can meet it; the gap
between `objects` and `ours` is everything the objects floor leaves out.
"""

from __future__ import annotations

import argparse
import gc
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from lxml import etree

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_targets import BIPED, ICUB02, ICUB04, TIAGO, idyntree_load  # noqa: E402
from idyntree_models import export_model, load_model  # noqa: E402
from idyntree_models.model.model import (  # noqa: E402
    Box,
    Cylinder,
    Dynamics,
    Inertia,
    Joint,
    JointType,
    Limits,
    Link,
    Material,
    Mesh,
    Model,
    Sphere,
    maker,
)
from idyntree_models.model.transforms import rpy_xyz_to_transforms  # noqa: E402

from common import find_model, paired_ms, synthetic_urdf, table  # noqa: E402

logging.disable(logging.WARNING)
_OPTIONS = {"resolve_entities": False, "no_network": True, "huge_tree": True, "remove_comments": True}
# the attributes that hold numbers in URDF (SDFormat and SKEL hold theirs in element text): a reader
# knows which it reads
_NUMBER_ATTRS = frozenset(("xyz", "rpy", "value", "ixx", "ixy", "ixz", "iyy", "iyz", "izz", "size", "radius",
                           "length", "lower", "upper", "effort", "velocity", "scale", "rgba", "damping", "friction",
                           "multiplier", "offset"))


def parse(data: bytes) -> etree._Element:
    return etree.fromstring(data, etree.XMLParser(**_OPTIONS))


def visit(root: etree._Element, numbers: list[str] | None = None) -> None:
    """Every element's tag, text and attribute values read once; number strings collected."""
    for el in root.iter(etree.Element):
        tag = el.tag
        text = el.text
        if numbers is not None and text is not None and tag not in ("uri", "name", "type", "parent", "child"):
            s = text.strip()
            if s[:1] in "-+.0123456789" and s:
                numbers.append(s)
        for name, value in el.items():
            if numbers is not None and name in _NUMBER_ATTRS:
                numbers.append(value)


def convert(numbers: list[str]) -> np.ndarray:
    return np.array(" ".join(numbers).split(), dtype=float)


_make_link, _make_joint, _make_inertia, _make_limits, _make_material, _make_mesh, _make_box = map(
    maker, (Link, Joint, Inertia, Limits, Material, Mesh, Box))
_TYPES = {"fixed": JointType.FIXED, "revolute": JointType.REVOLUTE, "continuous": JointType.REVOLUTE,
          "prismatic": JointType.PRISMATIC}
_Z = "0 0 0"


def objects(data: bytes) -> Model:
    """The objects floor (module docstring) of a URDF document: plain URDF as the models here write it.  With
    the cyclic collector off, as load_model runs (it would re-scan the growing model)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _objects(data)
    finally:
        if collecting:
            gc.enable()


def _objects(data: bytes) -> Model:
    root = parse(data)
    poses: list[str] = []  # xyz, rpy of each posed object, in order
    posed: list[object] = []
    inertials: list[str] = []  # mass, xyz, rpy, the six moments
    massive: list[Link] = []
    vectors: list[str] = []  # a box's size, a mesh's scale, a colour: given to (owner, attribute, count) as views
    takers: list[tuple[object, str, int]] = []
    axes: list[str] = []
    moving: list[Joint] = []
    limits: list[str] = []
    limited: list[tuple[Joint, bool]] = []  # and whether continuous
    links: dict[str, Link] = {}
    joints: dict[str, Joint] = {}
    for el in root:
        tag = el.tag
        if tag == "link":
            visuals: list = []
            collisions: list = []
            link = links[el.get("name")] = _make_link(name=el.get("name"), inertia=None, visuals=visuals,
                                                      collisions=collisions)
            for c in el:
                t = c.tag
                o = g = m = i = mat = None
                for cc in c:
                    tt = cc.tag
                    if tt == "origin":
                        o = cc
                    elif tt == "geometry":
                        g = cc[0]
                    elif tt == "mass":
                        m = cc
                    elif tt == "inertia":
                        i = cc
                    elif tt == "material":
                        mat = cc
                if t == "inertial":
                    inertials += (m.get("value"), _Z, _Z) if o is None else (m.get("value"), o.get("xyz", _Z),
                                                                              o.get("rpy", _Z))
                    inertials += i.values()
                    massive.append(link)
                    continue
                if g is None:  # (another element: not in the model)
                    continue
                kind = g.tag
                if kind == "mesh":
                    shape = _make_mesh(link_H_geometry=None, name=c.get("name"), filename=g.get("filename"))
                    vectors.append(g.get("scale", "1 1 1"))
                    takers.append((shape, "scale", 3))
                elif kind == "box":
                    shape = _make_box(link_H_geometry=None, name=c.get("name"))
                    vectors.append(g.get("size"))
                    takers.append((shape, "size", 3))
                elif kind == "cylinder":
                    shape = Cylinder(None, c.get("name"), radius=float(g.get("radius")), length=float(g.get("length")))
                else:
                    shape = Sphere(None, c.get("name"), radius=float(g.get("radius")))
                if mat is not None:
                    material = shape.material = _make_material(name=mat.get("name"))
                    for color in mat:
                        vectors.append(color.get("rgba"))
                        takers.append((material, "color", 4))
                poses += (_Z, _Z) if o is None else (o.get("xyz", _Z), o.get("rpy", _Z))
                posed.append(shape)
                (visuals if t == "visual" else collisions).append(shape)
        elif tag == "joint":
            o = p = ch = ax = lim = dyn = None
            for c in el:
                t = c.tag
                if t == "origin":
                    o = c
                elif t == "parent":
                    p = c
                elif t == "child":
                    ch = c
                elif t == "axis":
                    ax = c
                elif t == "limit":
                    lim = c
                elif t == "dynamics":
                    dyn = c
            jtype = _TYPES[el.get("type")]
            joint = joints[el.get("name")] = _make_joint(name=el.get("name"), type=jtype, parent=p.get("link"),
                                                          child=ch.get("link"), rest_transform=None,
                                                          axis_origin=None, limits=_make_limits())
            poses += (_Z, _Z) if o is None else (o.get("xyz", _Z), o.get("rpy", _Z))
            posed.append(joint)
            if jtype is not JointType.FIXED:
                axes.append("1 0 0" if ax is None else ax.get("xyz"))
                moving.append(joint)
                if lim is not None:
                    limits += (lim.get("lower", "0"), lim.get("upper", "0"), lim.get("effort", "0"),
                               lim.get("velocity", "0"))
                    limited.append((joint, el.get("type") == "continuous"))
                if dyn is not None:
                    joint.dynamics = Dynamics(float(dyn.get("damping", "0")), float(dyn.get("friction", "0")))
    v = np.array(" ".join(poses + inertials + vectors + axes + limits).split(), dtype=float)
    n = 6 * len(posed)
    origins = v[:n].reshape(-1, 6)
    for owner, pose in zip(posed, rpy_xyz_to_transforms(origins[:, 3:], origins[:, :3])):
        if type(owner) is Joint:
            owner.rest_transform = pose
        else:
            owner.link_H_geometry = pose
    k = n + 13 * len(massive)
    w = v[n:k].reshape(-1, 13)
    xx, xy, xz, yy, yz, zz = w[:, 7:].T
    tensor = np.stack([xx, xy, xz, xy, yy, yz, xz, yz, zz], axis=1).reshape(-1, 3, 3)
    rot = rpy_xyz_to_transforms(w[:, 4:7], np.zeros((len(w), 3)))[:, :3, :3]
    for link, mass, com, inertia in zip(massive, w[:, 0].tolist(), w[:, 1:4].copy(),
                                        rot @ tensor @ rot.transpose(0, 2, 1)):
        link.inertia = _make_inertia(mass=mass, com=com, inertia=inertia)
    for owner, attr, count in takers:
        setattr(owner, attr, v[k:k + count])
        k += count
    a = v[k:k + 3 * len(moving)].reshape(-1, 3)
    for joint, axis, origin in zip(moving, a / np.linalg.norm(a, axis=1)[:, None], np.zeros((len(moving), 3))):
        joint.axis, joint.axis_origin = axis, origin
    for (joint, continuous), (lower, upper, effort, velocity) in zip(limited,
                                                                    v[k + 3 * len(moving):].reshape(-1, 4).tolist()):
        lim = joint.limits
        lim.effort_limit, lim.velocity_limit = effort, velocity
        lim.has_effort_limit = lim.has_velocity_limit = True
        if not continuous:  # (a continuous joint has no position limits)
            lim.min_position, lim.max_position, lim.has_position_limits = lower, upper, True
    model = Model(name=root.get("name"))
    model.links, model.joints = links, joints
    return model


def floors(data: bytes) -> dict[str, Callable[[], object]]:
    def numbers() -> None:
        found: list[str] = []
        visit(parse(data), found)
        convert(found)

    return {"parse": lambda: parse(data), "visit": lambda: visit(parse(data)), "numbers": numbers}


def streamed_floors(path: Path) -> dict[str, float]:
    """The floors of a file too big for a tree: top-level elements streamed and freed (one run each)."""
    out = {}
    for what in ("parse", "visit", "numbers"):
        t = time.perf_counter()
        found: list[str] | None = [] if what == "numbers" else None
        for _, el in etree.iterparse(str(path), events=("end",), tag=("link", "joint"), **_OPTIONS):
            if what != "parse":
                visit(el, found)
            el.clear(keep_tail=True)
            parent = el.getparent()
            while el.getprevious() is not None:
                del parent[0]
        if found is not None:
            convert(found)
        out[what] = time.perf_counter() - t
    return out


def same_objects(floor: Model, ours: Model) -> None:
    """The objects floor made what load_model made, for every link and joint both have: inertias, shapes (kind,
    pose, size, filename, name, material), joints (links, pose, axis, limits, dynamics), bit for bit where both
    compute the same way (ours turns massless links into frames and moves their shapes to the real link: those are
    left out).  Named materials are not looked up by the floor, so colours are not compared."""
    def same(a, b) -> bool:
        return a is None and b is None or a is not None and b is not None and np.allclose(a, b, rtol=0, atol=1e-15)

    def shape_fields(s) -> tuple:
        return (type(s), s.name, getattr(s, "filename", None), getattr(s, "radius", None), getattr(s, "length", None),
                s.material is None)

    for name, link in ours.links.items():
        other = floor.links[name]
        checks = [link.inertia.mass == other.inertia.mass, same(link.inertia.com, other.inertia.com),
                  same(link.inertia.inertia, other.inertia.inertia)]
        for mine, theirs in ((link.visuals, other.visuals), (link.collisions, other.collisions)):
            mine = [s for s in mine if s.source_frame is None]  # (those moved from a link that became a frame)
            checks.append(len(mine) == len(theirs))
            for s, t in zip(mine, theirs):
                checks += [shape_fields(s) == shape_fields(t), same(s.link_H_geometry, t.link_H_geometry),
                           same(getattr(s, "size", None), getattr(t, "size", None)),
                           same(getattr(s, "scale", None), getattr(t, "scale", None))]
        if not all(checks):
            raise AssertionError(f"the objects floor made link '{name}' otherwise than load_model")
    for name, joint in ours.joints.items():
        other = floor.joints[name]
        lim, olim = joint.limits, other.limits
        if not (joint.type == other.type and (joint.parent, joint.child) == (other.parent, other.child)
                and same(joint.rest_transform, other.rest_transform)
                and (joint.axis is None) == (other.axis is None)  # (the axis normalised otherwise: unit_rows)
                and (joint.axis is None or np.allclose(joint.axis, other.axis, rtol=0, atol=1e-9))
                and (lim.min_position, lim.max_position, lim.has_position_limits) ==
                    (olim.min_position, olim.max_position, olim.has_position_limits)
                and (lim.effort_limit, lim.velocity_limit) == (olim.effort_limit, olim.velocity_limit)
                and joint.dynamics == other.dynamics):
            raise AssertionError(f"the objects floor made joint '{name}' otherwise than load_model")


def _row(label: str, data: bytes, ours: Callable[[], object], ref: Callable[[], object], ref_name: str,
         target: float, repeat: int, urdf: bool = False) -> list[object]:
    """The floors and our load, each timed alternately with `ref`, as ratios to it (the objects floor for URDF)."""
    fns = floors(data)
    if urdf:
        same_objects(objects(data), ours())
        fns["objects"] = lambda: objects(data)
    ratios, ref_ms = [], []
    for fn in list(fns.values()) + [ours]:
        a, b = paired_ms(fn, ref, repeat)
        ratios.append(a / b)
        ref_ms.append(b)
    shown = [f"{r:.2f}" for r in ratios]
    if not urdf:
        shown.insert(3, "")
    return ([label, f"{ref_name} {statistics.median(ref_ms):.2f} ms"] + shown
            + [f"<= {target}", f"{target - ratios[2]:+.2f}", f"{target - ratios[3]:+.2f}" if urdf else ""])


def paired_rows(repeat: int) -> list[list[object]]:
    rows = []
    for label, rel in (("URDF iCubGenova02", ICUB02), ("URDF iCubGenova04", ICUB04), ("URDF tiago_dual", TIAGO),
                       ("URDF synthetic 1000-link tree", None)):
        path = find_model(rel) if rel else None
        if rel and path is None:
            rows.append([label, "model not present"] + [""] * 8)
            continue
        text = path.read_text() if path else synthetic_urdf(1000)
        rows.append(_row(label, text.encode(), lambda: load_model(text, "urdf"), lambda: idyntree_load(text),
                         "iDynTree", 1.0, repeat, urdf=True))
    biped = find_model(BIPED)
    if biped is None:
        rows.append(["SKEL biped.skel", "model not present"] + [""] * 8)
    else:
        import dartpy

        rows.append(_row("SKEL biped.skel", biped.read_bytes(), lambda: load_model(biped),
                         lambda: dartpy.utils.SkelParser.readWorld(str(biped)), "dartpy", 2.0, repeat))
    urdf = find_model(ICUB04)
    if urdf is None:
        rows.append(["SDF iCubGenova04", "model not present"] + [""] * 8)
    else:
        with tempfile.TemporaryDirectory() as d:
            sdf = Path(d) / "model.sdf"
            sdf.write_text(export_model(load_model(urdf), "sdf"))
            rows.append(_row("SDF iCubGenova04", sdf.read_bytes(), lambda: load_model(sdf), lambda: load_model(urdf),
                             "our URDF load", 1.5, repeat))
    return rows


def big_rows(sizes: list[int]) -> list[list[object]]:
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            path = Path(d) / f"tree{n}.urdf"
            path.write_text(synthetic_urdf(n))
            target = 0.5 if n == 10000 else 5.0 * n / 100000
            if n <= 10000:
                data = path.read_bytes()
                fns = floors(data)
                fns["objects"] = lambda: objects(data)
                f = {k: statistics.median(_times(fn, 3)) for k, fn in fns.items()}
            else:
                f = streamed_floors(path)
            t = time.perf_counter()
            load_model(path)
            ours = time.perf_counter() - t
            rows.append([f"URDF synthetic {n}-link tree", "(absolute, s)", f"{f['parse']:.2f} s", f"{f['visit']:.2f} s",
                         f"{f['numbers']:.2f} s", f"{f['objects']:.2f} s" if "objects" in f else "",
                         f"{ours:.2f} s", f"<= {target:g} s", f"{target - f['numbers']:+.2f} s",
                         f"{target - f['objects']:+.2f} s" if "objects" in f else ""])
    return rows


def _times(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=21, help="timed runs of each side per row")
    p.add_argument("--sizes", default="10000,100000", help="synthetic trees timed in absolute terms")
    args = p.parse_args()
    rows = paired_rows(args.repeat) + big_rows([int(s) for s in args.sizes.split(",") if s])
    print(table(rows, ["load", "reference", "parse", "visit", "numbers", "objects", "ours", "target",
                       "left for the model (target - numbers)", "left beyond the objects (target - objects)"]))
    print(f"\n(ratios to the reference: medians of {args.repeat} alternating runs per side; big trees: one run, "
          "seconds)")


if __name__ == "__main__":
    main()
