"""MJCF (MuJoCo's XML): export, and import of what export writes plus common hand-written MJCF.

Export maps each link to a body nested as the tree is, each joint to a MuJoCo joint in the child
body (hinge, slide, ball; fixed joints are bodies without joints), inertia to `<inertial>` with
principal moments (`diaginertia` + `quat`, so MuJoCo's own eigen-decomposition never rounds a
boundary inertia into an invalid one), shapes to geoms (visuals without contacts in group 1,
collisions in group 3), frames and sensor frames to sites, sensors to MuJoCo sensors
(accelerometer, gyro, force + torque pairs), mimic joints to `<equality><joint>`.
MuJoCo refuses some valid models, and we say what we change for it:
- a moving body whose rigid group (the body and what is welded to it) has no mass or inertia:
  MuJoCo's compiler rejects it ("mass and inertia of moving bodies must be larger than mjMINVAL");
  its `boundmass`/`boundinertia` remedy would change every body, so we add the smallest mass and
  inertia it accepts (MIN_MASS, MIN_INERTIA) to that body only, with a warning;
- principal moments violating the triangle inequality (A + B >= C): `balanceinertia` is switched
  on, with a warning naming the links (MuJoCo refuses them otherwise);
- a mesh file that is not found, or is in a format MuJoCo does not read, is left out (MuJoCo refuses
  a model whose mesh file is missing), with one warning.
What MJCF cannot hold (fixed joint names, velocity limits, force/torque sensor semantics, exact
masses of the bodies above) goes into `<custom><text name="idyntree_models">` as JSON, so that our
import gives the model back; MuJoCo ignores it.

Import also reads common MJCF: `<default>` classes (nested, `class`, `childclass`), `<compiler
angle eulerseq meshdir assetdir autolimits inertiafromgeom>`, every orientation form (quat,
axisangle, euler, xyaxes, zaxis), `fromto`, `<frame>`, bodies with several joints (a chain of
massless links, as MuJoCo applies them in order), inertia from primitive geoms when a body has no
`<inertial>`, equality joints as mimic joints.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
from pathlib import Path

import numpy as np
from lxml import etree

from ..errors import ModelError, listed
from ..model.model import (
    Box,
    Capsule,
    Cylinder,
    Dynamics,
    Ellipsoid,
    ForceTorqueSensor,
    Frame,
    FrameJoint,
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
from ..model.reduce import combine_inertias
from ..model.topology import root_frame, tree_order
from ..model.transforms import (
    axis_angle_to_matrix,
    det3,
    inverse,
    make_transform,
    matrix_to_quat,
    plain_norm,
    quat_to_matrix,
    unit_vector,
)
from .base import Diagnostics, ExportOptions, LoadOptions
from .common import (
    FREE_JOINT_AXES,
    base_world_joint,
    binary_stl_triangles,
    format_number,
    format_numbers,
    free_chain,
    free_chains_said,
    held_placement,
    intact_free_chains,
    moved_base_pose,
    report_materials,
    report_world_joints,
    unique_name,
)
from .mjcf_schema import UNIQUE_CHILDREN
from .xmlutil import XmlReader, describe, parse_xml, shown_attribute, shown_tag

MIN_MASS = 1e-9  # kg: added to a massless moving body (MuJoCo's mjMINVAL is 1e-15)
MIN_INERTIA = 1e-12  # kg m^2: added to each principal moment of such a body
MESH_EXTENSIONS = (".stl", ".obj", ".msh")  # what MuJoCo reads without plugins
EXTRAS = "idyntree_models"  # name of the <custom><text> holding what MJCF cannot express
VISUAL_GROUP, COLLISION_GROUP = 1, 3


def _num(x: float) -> str:
    return format_number(x, "a number written to MJCF")


def _nums(v) -> str:
    return format_numbers(v, "a number written to MJCF")


def _set_pose(el: etree._Element, t: np.ndarray) -> None:
    if np.any(t[:3, 3]):
        el.set("pos", _nums(t[:3, 3]))
    if not np.array_equal(t[:3, :3], np.eye(3)):
        el.set("quat", _nums(matrix_to_quat(t[:3, :3])))


# -- export ------------------------------------------------------------------------------------
def _principal(inertia: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Principal moments (ascending) and the rotation whose columns are the principal axes.

    Computed on the tensor scaled to entries of at most 1 (entries of 1e308 would overflow the sum);
    moments beyond a double's range are refused."""
    s = float(np.max(np.abs(inertia)))
    if s == 0.0:
        return np.zeros(3), np.eye(3)
    u = inertia / s
    w, v = np.linalg.eigh(0.5 * (u + u.T))
    with np.errstate(over="ignore"):
        w = w * s
    if not np.all(np.isfinite(w)):
        raise ModelError("the principal moments of inertia are beyond the range of a double")
    if det3(v) < 0:
        v[:, 0] *= -1.0
    return w, v


def _weld_groups(model: Model, tree) -> dict[str, list[tuple[str, np.ndarray]]]:
    """Moving bodies -> the links welded to them, with their pose in the moving body's frame."""
    groups: dict[str, list[tuple[str, np.ndarray]]] = {}
    owner: dict[str, tuple[str, np.ndarray]] = {}
    for link in tree.order:
        joint = tree.parent_joint.get(link)
        if joint is None or joint.dofs:
            owner[link] = (link, np.eye(4))
            groups[link] = [(link, np.eye(4))]
        else:
            g, x = owner[joint.parent]
            owner[link] = (g, x @ joint.rest_transform)
            groups[g].append((link, owner[link][1]))
    return groups


class _Exporter:
    def __init__(self, model: Model, options: ExportOptions, diag: Diagnostics) -> None:
        self.model, self.options, self.diag = model, options, diag
        self.tree = tree_order(model)
        self.extras: dict = {}
        self.root = etree.Element("mujoco", model=model.name)
        self.compiler = etree.SubElement(self.root, "compiler", angle="radian", autolimits="true",
                                         inertiafromgeom="false")
        self.asset = etree.SubElement(self.root, "asset")
        self.worldbody = etree.SubElement(self.root, "worldbody")
        # the base where the source put it (an MJCF body's pos, a SKEL free body's pose, an SDF fixed joint to the world,
        # a URDF `world` link above it), and its free joint where the source had one (an MJCF <freejoint>, a SKEL free
        # joint) or it is asked for: else MuJoCo welds the base there
        root = self.tree.root
        pose = model.metadata.get("base_pose")
        fixed = base_world_joint(model, root)
        if pose is None and fixed is not None:
            held = held_placement(model, root)
            pose = held[0] if held is not None else model.metadata["sdf_world_joints"][fixed]["model_H_child"]
        top = root_frame(model, root) if pose is None else None
        if top == "world":
            pose = inverse(model.frames[top].link_H_frame)
        self.world_H_base = np.array(pose, dtype=float) if pose is not None and root != "world" else np.eye(4)
        self.base_free_joint: str | None = None
        if root != "world" and (options.mjcf_free_joint or not (fixed is not None or top == "world")):
            source = model.metadata.get("mjcf_free_joint", model.metadata.get("floating_base_joint"))
            if source is not None:
                self.base_free_joint = str(source)
            elif options.mjcf_free_joint:
                self.base_free_joint = f"{root}_free_joint"
        report_world_joints(model, "MJCF", diag, written=(fixed,) if self.base_free_joint is None else (),
                            why="the base has a free joint (mjcf_free_joint)" if fixed is not None else "")
        if fixed is not None and self.base_free_joint is None and root != "world":
            self.extras["world_joint"] = fixed  # (the welded base's joint: its name, and that it is one, come back)
        self.meshes: dict[tuple[str, tuple[float, ...]], str] = {}
        self.missing_meshes: list[str] = []
        self.unsized: list[str] = []  # primitive shapes with a size MuJoCo refuses (not positive): left out
        self.unbalanced: list[str] = []
        self.unlimited: list[str] = []  # joints whose limits MuJoCo would not take as limits (see _joint)
        self.geom_names: set[str] = set()
        self.renamed_geoms: list[str] = []
        self.lost_materials: list[str] = []  # material names not written (see _geom)
        self.lost_colours: list[str] = []  # colours beyond single precision, which MuJoCo refuses: left out
        self.material_rgba: dict[str, str] = {}  # material assets written: their colour
        self.sites: dict[str, tuple[str, np.ndarray]] = {}  # site name -> (link, link_H_site)

    def run(self) -> str:
        model, tree = self.model, self.tree
        # <mujoco>, <worldbody>, a <body> per link below the world body, and the elements inside the deepest
        deepest = max(tree.depth, key=tree.depth.__getitem__)
        depth = 2 + tree.depth[deepest] + (tree.root != "world") + 1
        if depth > MUJOCO_MAX_DEPTH:
            raise ModelError(f"MJCF nests a body per link: link '{deepest}' is {tree.depth[deepest]} joints from the "
                             f"root, which puts elements {depth} levels deep; {_DEPTH_REASON}")
        if "world" in model.links and tree.root != "world":  # (the root link 'world' is the world body: see below)
            raise ModelError("it is not the root, and MJCF would write it as a body named 'world', the name "
                             "of MuJoCo's world body (MuJoCo refuses the file: repeated name 'world' in body)",
                             element="link 'world'")
        self.free = self._free_bodies()
        self._patch_massless()
        if tree.root == "world":  # the URDF convention for a fixed base: MuJoCo's world body is that link
            free = model.metadata.get("mjcf_free_joint", model.metadata.get("floating_base_joint"))
            if free is not None or moved_base_pose(model) is not None:
                self.diag.warn("MJCF: the base link is named 'world', which MJCF writes as its world body: the base's "
                               + (f"free joint '{free}' and " if free else "free joint and " if free is not None else "")
                               + "pose in the world are not written (the model written is fixed at the origin)")
            self.extras["world_link"] = True
            self._fill(self.worldbody, tree.root, world=True)
        else:
            body = etree.SubElement(self.worldbody, "body", name=tree.root)
            _set_pose(body, self.world_H_base)
            if self.base_free_joint is not None:
                free = etree.SubElement(body, "freejoint")
                if self.base_free_joint:  # (an unnamed one comes back unnamed)
                    free.set("name", self.base_free_joint)
            self._fill(body, tree.root)
        self._sensors()
        self._equalities()
        if self.unbalanced:
            self.compiler.set("balanceinertia", "true")
            self.extras["balanced_by_mujoco"] = self.unbalanced
            self.diag.warn(
                f"MJCF: principal moments of inertia of link(s) {', '.join(self.unbalanced)} violate A + B >= C; "
                "MuJoCo refuses that, so balanceinertia is on and MuJoCo will change those inertias"
            )
        if self.unlimited:
            shown = ", ".join(dict.fromkeys(self.unlimited))
            self.diag.warn(f"MJCF: joint(s) {shown} have position limits whose lower bound is not below the upper, or "
                           "an effort limit of 0, which MuJoCo does not take as limits: written without them (our "
                           "MJCF import restores them)")
        if self.missing_meshes:
            self.diag.warn(
                f"MJCF: {len(self.missing_meshes)} mesh geometry(ies) left out, because MuJoCo refuses a model whose "
                "mesh file it cannot read (not found, or not OBJ, MSH or binary STL): "
                + ", ".join(sorted(set(self.missing_meshes))[:10])
            )
        if self.unsized:
            self.diag.warn(f"MJCF: {len(self.unsized)} geometry(ies) left out, because MuJoCo refuses a geom size that "
                           "is not positive (URDF and SDF readers take one): " + ", ".join(self.unsized[:10])
                           + (", ..." if len(self.unsized) > 10 else ""))
        if self.renamed_geoms:
            self.diag.warn(f"MJCF: {len(self.renamed_geoms)} geom name(s) that another shape has too, written "
                           f"with the link's name before them (MuJoCo's names are unique in the model): "
                           f"{listed(self.renamed_geoms, 5)}")
        if self.lost_colours:
            self.diag.warn(f"MJCF: {len(self.lost_colours)} colour(s) left out, because MuJoCo holds a colour in single "
                           f"precision and refuses a number beyond it: {listed(self.lost_colours, 5)}")
        if self.lost_materials:
            self.diag.warn(f"MJCF: {len(self.lost_materials)} material name(s) not written (a material asset has one "
                           f"colour): {listed(self.lost_materials, 5)}")
        report_materials(model, "MJCF", self.diag, names=True, collisions=True)
        if not len(self.asset):
            self.root.remove(self.asset)
        lost = [j.name for j in model.joints.values() if j.limits.has_velocity_limit and j.dofs]
        if lost:
            self.extras["velocity_limits"] = {n: model.joints[n].limits.velocity_limit for n in lost}
        if self.extras:
            custom = etree.SubElement(self.root, "custom")
            etree.SubElement(custom, "text", name=EXTRAS, data=json.dumps(self.extras, sort_keys=True))
        etree.indent(self.root, space="  ")
        return etree.tostring(self.root, encoding="unicode") + "\n"

    # bodies --------------------------------------------------------------------------------
    def _patch_massless(self) -> None:
        """Give each massless moving rigid group the least mass and inertia MuJoCo accepts (see module doc)."""
        self.inertia = {name: link.inertia for name, link in self.model.links.items()}
        moving = _weld_groups(self.model, self.tree)
        floating = self.base_free_joint is not None
        patched = {}
        skipped = {n for info in self.free.values() for n in info["links"]}  # written as one free joint
        for g, members in moving.items():
            if (g == self.tree.root and not floating) or g in skipped:
                continue
            with np.errstate(all="ignore"):
                total = combine_inertias((self.model.links[n].inertia, x) for n, x in members)
            if not (np.isfinite(total.mass) and np.all(np.isfinite(total.inertia))):
                raise ModelError("the inertia of the links welded to it is beyond the range of a double "
                                 "(MJCF needs it to decide whether MuJoCo accepts the body)", element=f"link '{g}'")
            low_mass = total.mass <= 1e-12
            low_inertia = min(np.linalg.eigvalsh(total.inertia)) <= 1e-12 if not low_mass else True
            if not (low_mass or low_inertia):
                continue
            own = self.model.links[g].inertia
            mass = own.mass + (MIN_MASS if low_mass else 0.0)
            com = own.com if own.mass > 0 or not low_mass else np.zeros(3)
            self.inertia[g] = Inertia(mass, com, own.inertia + MIN_INERTIA * np.eye(3))
            self._keep_exact(g)
            patched[g] = True
        if patched:
            self.diag.warn(
                f"MJCF: link(s) {', '.join(patched)} move but have no mass or inertia (with what is welded to them), "
                f"which MuJoCo refuses: written with {MIN_MASS:g} kg and {MIN_INERTIA:g} kg m^2 more "
                "(our MJCF import restores the exact values)"
            )

    def _keep_exact(self, name: str) -> None:
        """Record the model's inertia of a link whose <inertial> we had to change for MuJoCo."""
        i = self.model.links[name].inertia
        self.extras.setdefault("exact_inertia", {})[name] = {
            "mass": i.mass, "com": i.com.tolist(), "inertia": i.inertia.tolist()}

    def _fill(self, body: etree._Element, name: str, world: bool = False) -> None:
        link = self.model.links[name]
        if not world:
            self._inertial(body, name)
        elif link.inertia.mass > 0:
            self.diag.warn(f"MJCF: root link 'world' has mass {link.inertia.mass} kg, which MuJoCo's world body ignores")
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            for shape in shapes:
                self._geom(body, name, shape, kind)
        frame_joints = self.model.metadata.get("frame_joints") or {}
        for frame in self.model.frames.values():
            if frame.parent_link == name:
                self._site(body, frame.name, name, frame.link_H_frame)
                fj = frame_joints.get(frame.name)
                if isinstance(fj, FrameJoint):  # (the URDF exporter writes the frame back as that link and joint)
                    self.extras.setdefault("frame_joints", {})[frame.name] = [fj.joint, fj.frame_is_parent]
        for joint in self.tree.children[name]:
            info = self.free.get(joint.name)
            if info is not None:  # a free body of the scene: its link, free, at its initial pose
                child = etree.SubElement(body, "body", name=info["link"])
                _set_pose(child, joint.rest_transform)
                etree.SubElement(child, "freejoint", name=info["joints"][0][:-2])  # (the chain's prefix)
                self._fill(child, info["link"])
                continue
            child = etree.SubElement(body, "body", name=joint.child)
            _set_pose(child, joint.rest_transform)
            self._joint(child, joint)
            self._fill(child, joint.child)

    def _free_bodies(self) -> dict[str, dict]:
        """The chains of free bodies on the world still as a reader made them (common.intact_free_chains, and
        here also undamped, on massless links without shapes, with free_chain's names, poses and axes) by their
        first joint, each with its body's link: MuJoCo has free joints in bodies of its world body only.  Those on
        another base stay chains, named in a warning: a free body beside a base that is not the world comes back
        from MJCF hanging on a new root link `world` (a scene's top-level bodies)."""
        model = self.model
        root = self.tree.root
        if root != "world":
            chains = [link for link, _, _ in intact_free_chains(model)]
            if chains:
                self.diag.warn(f"MJCF: {len(chains)} free body(ies) ({listed(chains, 5)}) written as the chains of six "
                               f"joints that join them to the base '{root}': MuJoCo has free joints in bodies of its world "
                               "body only, and the base is not the world")
            return {}
        out = {}
        for link, info, chain in intact_free_chains(model):
            joints, mids = info["joints"], info.get("links", [])
            if len(mids) != 5:
                continue
            ends = ["world", *mids, link]
            if any(j.parent != a or j.child != b for j, a, b in zip(chain, ends, ends[1:])):
                continue
            if any(j.dynamics for j in chain) or any(
                    model.links[n].inertia.mass or model.links[n].visuals or model.links[n].collisions for n in mids):
                continue
            if not joints[0].endswith("_x") or any(not np.array_equal(j.rest_transform, np.eye(4)) for j in chain[1:]):
                continue
            axes = chain[0].rest_transform[:3, :3].T  # (column i: the world's axis i, in the chain's axes)
            if any(j.type is not kind or not np.allclose(j.axis, axes[:, i], rtol=0.0, atol=1e-12)
                   for j, (_, kind, i) in zip(chain, FREE_JOINT_AXES)):
                continue
            out[joints[0]] = {"link": link, "joints": joints, "links": mids}
        return out

    def _inertial(self, body: etree._Element, name: str) -> None:
        i = self.inertia[name]
        if i.mass == 0.0 and not np.any(i.inertia):
            return
        try:
            moments, axes = _principal(i.inertia)
        except ModelError as e:
            raise ModelError(e.message, element=f"link '{name}'") from None
        if moments[0] < 0.0:  # rounding-level indefinite inertia (the loaders refuse worse): MuJoCo refuses it
            self.diag.warn(f"MJCF: link '{name}': smallest principal moment of inertia {moments[0]:.3g} kg m^2 is "
                           "negative, which MuJoCo refuses: written as 0 (our MJCF import restores the exact value)")
            self._keep_exact(name)
            moments = np.maximum(moments, 0.0)
        a, b, c = moments
        if a + b < c:
            if c - a - b <= 1e-12 * c:  # rounding of a boundary inertia (rods, plates): stay on the boundary
                moments = np.array([a, b, a + b])
            else:
                self.unbalanced.append(name)
        el = etree.SubElement(body, "inertial", pos=_nums(i.com), mass=_num(i.mass), diaginertia=_nums(moments))
        if not np.allclose(axes, np.eye(3), rtol=0.0, atol=0.0):
            el.set("quat", _nums(matrix_to_quat(axes)))

    def _joint(self, body: etree._Element, joint: Joint) -> None:
        if joint.type is JointType.FIXED:
            self.extras.setdefault("fixed_joints", {})[joint.child] = joint.name
            return
        el = etree.SubElement(body, "joint", name=joint.name)
        if joint.type is JointType.SPHERICAL:
            r, p = joint.rest_transform[:3, :3], joint.rest_transform[:3, 3]
            el.set("type", "ball")
            centre = r.T @ (joint.center - p)
            if np.any(centre):
                el.set("pos", _nums(centre))
            return
        el.set("type", "hinge" if joint.type is JointType.REVOLUTE else "slide")
        el.set("axis", _nums(joint.axis))
        if joint.type is JointType.REVOLUTE and np.any(joint.axis_origin):
            el.set("pos", _nums(joint.axis_origin))
        lim = joint.limits
        # MuJoCo takes a range as a limit only where it increases (and refuses limited="true" otherwise): a
        # joint locked by equal bounds, or with an effort limit of 0, is written unlimited, and the exact limits
        # go to the extras
        if lim.has_position_limits and lim.min_position < lim.max_position:
            el.set("range", _nums([lim.min_position, lim.max_position]))
        elif lim.has_position_limits:
            self.extras.setdefault("position_limits", {})[joint.name] = [lim.min_position, lim.max_position]
            self.unlimited.append(joint.name)
        if lim.has_effort_limit and lim.effort_limit > 0:
            el.set("actuatorfrcrange", _nums([-lim.effort_limit, lim.effort_limit]))
        elif lim.has_effort_limit:
            self.extras.setdefault("effort_limits", {})[joint.name] = lim.effort_limit
            self.unlimited.append(joint.name)
        if joint.dynamics is not None:  # written even when zero: "given as zero" is not "not given"
            el.set("damping", _num(joint.dynamics.damping))
            el.set("frictionloss", _num(joint.dynamics.friction))

    def _site(self, body: etree._Element, name: str, link: str, pose: np.ndarray) -> str:
        el = etree.SubElement(body, "site", name=name)
        _set_pose(el, pose)
        self.sites[name] = (link, pose)
        return name

    def _geom(self, body: etree._Element, link: str, shape: Shape, kind: str) -> None:
        attrs: dict[str, str] = {}
        if isinstance(shape, Box):
            attrs.update(type="box", size=_nums(0.5 * np.asarray(shape.size)))
        elif isinstance(shape, Sphere):
            attrs.update(type="sphere", size=_num(shape.radius))
        elif isinstance(shape, Cylinder):
            attrs.update(type="cylinder", size=_nums([shape.radius, 0.5 * shape.length]))
        elif isinstance(shape, Capsule):
            attrs.update(type="capsule", size=_nums([shape.radius, 0.5 * shape.length]))
        elif isinstance(shape, Ellipsoid):
            attrs.update(type="ellipsoid", size=_nums(shape.radii))
        elif isinstance(shape, Mesh):
            mesh = self._mesh(shape)
            if mesh is None:
                return
            attrs.update(type="mesh", mesh=mesh)
        else:
            self.diag.warn(f"MJCF: link '{link}': a {shape.kind} {kind} geometry left out (MuJoCo has no {shape.kind})")
            return
        if attrs["type"] in _SIZES_USED:
            sizes = [float(v) for v in attrs["size"].split()]
            bad = [f"{what} {v:g}" for what, v in zip(_SIZES_USED[attrs["type"]], sizes) if not v > 0.0]
            if bad:
                self.unsized.append(f"{kind} {shape.kind} of link '{link}' ({', '.join(bad)})")
                return
        name = shape.name
        if name:  # (MuJoCo's geom names are the model's, where ours are a link's)
            if name in self.geom_names:
                out = unique_name(f"{link}_{name}", self.geom_names)
                self.renamed_geoms.append(f"'{name}' of '{link}' as '{out}'")
                name = out
            attrs["name"] = name
            self.geom_names.add(name)
        el = etree.SubElement(body, "geom", **attrs)
        _set_pose(el, shape.link_H_geometry)
        if kind == "visual":
            el.set("contype", "0")
            el.set("conaffinity", "0")
            el.set("group", str(VISUAL_GROUP))
        else:
            el.set("group", str(COLLISION_GROUP))
        m = shape.material
        if m is None:
            return
        if m.color is not None and not _single_precision(m.color):
            named = f" (material '{m.name}', not written either)" if m.name else ""
            self.lost_colours.append(f"{_nums(m.color)} of {kind} '{shape.name or '(unnamed)'}' of '{link}'{named}")
            return
        rgba = _nums(m.color) if m.color is not None else None
        if m.name and rgba is not None:  # a material asset of that name, so that the name comes back
            asset = self.material_rgba.get(m.name)
            if asset is None:
                etree.SubElement(self.asset, "material", name=m.name, rgba=rgba)
                asset = self.material_rgba[m.name] = rgba
            if asset == rgba:
                el.set("material", m.name)
                return
        if m.name:  # (MuJoCo takes a geom's own rgba only where it differs from its default: no material beside it)
            why = "no colour" if rgba is None else f"the colour {rgba}, not the {self.material_rgba[m.name]} of another shape"
            self.lost_materials.append(f"'{m.name}' of {kind} '{shape.name or '(unnamed)'}' of '{link}' ({why})")
        if rgba is not None:
            el.set("rgba", rgba)

    def _mesh(self, shape: Mesh) -> str | None:
        path = find_resource(shape.filename, self.model.metadata.get("source_dir"))
        if path is None or not mujoco_reads(path):
            self.missing_meshes.append(shape.filename)
            return None
        key = (path, tuple(float(s) for s in np.ravel(shape.scale)))
        if key not in self.meshes:
            name = f"mesh{len(self.meshes)}_{Path(path).stem}"
            self.meshes[key] = name
            el = etree.SubElement(self.asset, "mesh", name=name, file=path)
            if not np.allclose(shape.scale, 1.0, rtol=0.0, atol=0.0):
                el.set("scale", _nums(shape.scale))
        return self.meshes[key]

    # sensors and equalities ----------------------------------------------------------------
    def _sensor_site(self, name: str, link: str, pose: np.ndarray) -> str:
        """The site of a sensor: its own frame when the model has it, else a new site."""
        existing = self.sites.get(name)
        if existing is not None and existing[0] == link and np.allclose(existing[1], pose, rtol=0.0, atol=1e-12):
            return name
        site = name if name not in self.sites else unique_name(f"{name}_sensor_site", self.sites)
        body = self.worldbody if link == "world" else self.root.find(f".//body[@name='{link}']")
        self._site(body, site, link, pose)
        self.extras.setdefault("sensor_sites", []).append(site)
        return site

    def _sensors(self) -> None:
        block = etree.Element("sensor")
        skipped = []
        # MuJoCo refuses two sensors of one name: a force/torque pair's names are made beside the names of the
        # sensors written as they are (our import takes the pair's name from the extras, by its site)
        taken = {s.name for s in self.model.sensors.values() if isinstance(s, LinkSensor)}
        for s in self.model.sensors.values():
            if isinstance(s, ForceTorqueSensor):
                site = self._sensor_site(s.name, s.second_link, s.second_link_H_sensor)
                for tag in ("force", "torque"):
                    written = unique_name(f"{s.name}_{tag}", taken)
                    taken.add(written)
                    etree.SubElement(block, tag, name=written, site=site)
                self.extras.setdefault("force_torque", {})[s.name] = {
                    "site": site, "applied_wrench_link": s.applied_wrench_link, "frame": s.frame}
                if s.applied_wrench_link != s.second_link:
                    self.diag.warn(
                        f"MJCF: force/torque sensor '{s.name}' measures the wrench on '{s.applied_wrench_link}'; "
                        "MuJoCo's force/torque sensors measure the wrench on the child body, so the signs are opposite"
                    )
            elif isinstance(s, LinkSensor):
                tag = {SensorType.ACCELEROMETER: "accelerometer", SensorType.GYROSCOPE: "gyro",
                       SensorType.ANGULAR_ACCELEROMETER: "frameangacc"}.get(s.sensor_type)
                site = self._sensor_site(s.name, s.parent_link, s.link_H_sensor)
                if tag is None:
                    skipped.append(f"{s.name} ({s.subtype or s.sensor_type.value})")
                    self.extras.setdefault("other_sensors", {})[s.name] = {
                        "site": site, "subtype": s.subtype, "properties": s.properties}
                elif tag == "frameangacc":
                    etree.SubElement(block, tag, name=s.name, objtype="site", objname=site)
                else:
                    etree.SubElement(block, tag, name=s.name, site=site)
        if len(block):
            self.root.append(block)
        if skipped:
            self.diag.warn(f"MJCF: sensor(s) {', '.join(skipped)} have no MuJoCo sensor type: written as sites only")

    def _equalities(self) -> None:
        mimics = [j for j in self.model.joints.values() if j.mimic is not None]
        if not mimics:
            return
        block = etree.SubElement(self.root, "equality")
        for j in mimics:
            etree.SubElement(block, "joint", name=f"{j.name}_mimic", joint1=j.name, joint2=j.mimic.joint,
                             polycoef=_nums([j.mimic.offset, j.mimic.multiplier, 0, 0, 0]))


def mujoco_reads(path: str) -> bool:
    """Whether MuJoCo can read this mesh file: OBJ, MSH, or binary STL (it refuses ASCII STL)."""
    suffix = Path(path).suffix.lower()
    if suffix not in MESH_EXTENSIONS:
        return False
    if suffix != ".stl":
        return True
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as fh:
            head = fh.read(84)
    except OSError:
        return False
    return bool(binary_stl_triangles(head, size))  # (one without a triangle: not read either)


def find_resource(uri: str, source_dir: str | None) -> str | None:
    """Absolute path of a mesh given as a path, file://, package:// or model:// URI, if it exists."""
    if not uri:
        return None
    rel = None
    if uri.startswith("file://"):
        candidates = [Path(uri[len("file://"):])]
    elif uri.startswith(("package://", "model://")):
        scheme, rest = uri.split("://", 1)
        package, _, rel = rest.partition("/")
        roots: list[Path] = []
        env = ("ROS_PACKAGE_PATH", "AMENT_PREFIX_PATH") if scheme == "package" else ("SDF_PATH", "GZ_SIM_RESOURCE_PATH",
                                                                                      "IGN_GAZEBO_RESOURCE_PATH")
        for var in env:
            for d in os.environ.get(var, "").split(os.pathsep):
                if d:
                    roots += [Path(d) / package, Path(d) / "share" / package]
        if source_dir:
            for parent in [Path(source_dir), *Path(source_dir).parents]:
                roots.append(parent / package)
                if parent.name == package:
                    roots.append(parent)
        candidates = [r / rel for r in roots]
    else:
        p = Path(uri)
        candidates = [p] if p.is_absolute() else ([Path(source_dir) / p] if source_dir else [])
    for c in candidates:
        try:  # a name too long for the file system (or with a NUL) names no file: pathlib raises for it
            if c.is_file():
                return str(c.resolve())
        except (OSError, ValueError):
            continue
    return None


# MuJoCo's XML parser (tinyxml2) refuses an element nested 500 levels deep (XML_ELEMENT_DEPTH_EXCEEDED; measured with
# MuJoCo 4.0: <mujoco>, <worldbody>, 496 nested bodies and a <geom> in the last load, one body more does not).  MJCF
# nests a body per link, so a chain deeper than that has no MJCF form MuJoCo reads.
MUJOCO_MAX_DEPTH = 499
_DEPTH_REASON = f"MuJoCo reads at most {MUJOCO_MAX_DEPTH} (its XML parser's limit)"


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    """The model as MJCF text (see the module docstring for what changes and why)."""
    return _Exporter(model, options, diag).run()


# -- import ------------------------------------------------------------------------------------
_KNOWN_TOP = {"compiler", "option", "size", "visual", "statistic", "asset", "default", "worldbody", "sensor",
              "equality", "custom", "extension"}


def _rot_axis(axis: str, angle: float) -> np.ndarray:
    v = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}[axis.lower()]
    return axis_angle_to_matrix(np.array(v), angle)


# MuJoCo 4 takes a direction this close to +-z (the sine of the angle between them) as along z: an opposite one is
# then turned about x, not about the axis the cross product gives (measured with MuJoCo: the switch is at 1e-7)
_PARALLEL = 1e-7


def _z_to(v: np.ndarray) -> np.ndarray:
    """The smallest rotation taking +z to the direction v (MuJoCo's zaxis and fromto)."""
    u = unit_vector(v)  # scaled: a fromto of 1e308 must not overflow
    if u is None:  # not finite: validation refuses the pose, naming the element
        return np.full((3, 3), np.nan)
    v = u
    z = np.array([0.0, 0.0, 1.0])
    c = float(z @ v)
    axis = np.cross(z, v)
    s = float(np.linalg.norm(axis))
    if s <= _PARALLEL:
        return np.eye(3) if c > 0 else _rot_axis("x", math.pi)
    return axis_angle_to_matrix(axis / s, math.atan2(s, c))


class _Looked(dict):
    """An element's attributes (its own and its default class's) that remembers which were asked for: what the
    importer never asks for is not in the model, and is named (_Importer._name_the_unread)."""

    def __init__(self, attrs: dict[str, str]) -> None:
        super().__init__(attrs)
        self.asked: set[str] = set()

    def get(self, key, default=None):
        self.asked.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key) -> bool:
        self.asked.add(key)
        return super().__contains__(key)


# attributes the importer reads with el.get (not through attrs), by tag, and a frame's name (MuJoCo keeps no frame)
_READ_DIRECTLY = {"body": {"name", "childclass"}, "joint": {"name", "class"}, "freejoint": {"name", "class"},
                  "geom": {"name", "class"}, "site": {"name", "class"}, "frame": {"name", "childclass"},
                  "mesh": {"name", "file", "class"}, "material": {"name", "class"}}
# what a body, a frame or the world body holds that the importer reads (anything else is named)
_BODY_CONTENT = frozenset({"inertial", "geom", "site", "frame", "body", "joint", "freejoint"})
# the compiler settings the importer applies (autolimits: a range limits a joint unless limited="false")
_COMPILER_READ = frozenset({"angle", "eulerseq", "inertiafromgeom", "assetdir", "meshdir", "autolimits",
                            "inertiagrouprange"})
_LEAVES = frozenset({"inertial", "geom", "site", "joint", "freejoint", "mesh", "material"})
_ORIENTATIONS = ("quat", "axisangle", "euler", "xyaxes", "zaxis")
# top-level blocks of simulation settings (timestep, gravity, memory, rendering): nothing of them is in the model
_SETTINGS = ("option", "size", "visual", "statistic", "extension")
# what the importer reads in the blocks whose other children it does not (a texture, a height field, a skin;
# a <custom> <numeric>; a <compiler> <lengthrange>)
_BLOCK_CONTENT = {"asset": frozenset({"mesh", "material"}), "custom": frozenset(), "compiler": frozenset()}
# the attributes of a sensor the importer reads (noise=, cutoff=, user= are not in the model)
_SENSOR_READ = {"accelerometer": ("name", "site"), "gyro": ("name", "site"), "force": ("name", "site"),
                "torque": ("name", "site"), "frameangacc": ("name", "objtype", "objname")}


class _Importer:
    def __init__(self, root: etree._Element, options: LoadOptions, diag: Diagnostics) -> None:
        self.root, self.options, self.diag = root, options, diag
        self.r = XmlReader(diag.source)
        self._asked: list[tuple[etree._Element, _Looked]] = []  # each element's attributes, as handed out
        self.unread_elements: list[etree._Element] = []  # elements not in the model (named whole)
        self.model = Model(name=root.get("model") or "mjcf_model")
        comp: dict[str, str] = {}
        for c in root.findall("compiler"):
            comp.update(c.attrib)
        self.degrees = _compiler_keyword(self.r, root, comp, "angle", ("degree", "radian"), "degree") == "degree"
        self.eulerseq = comp.get("eulerseq", "xyz").strip()
        if len(self.eulerseq) != 3 or any(ch not in "xyzXYZ" for ch in self.eulerseq):
            raise self.r.error(root.find("compiler"), f"eulerseq must be three of x, y, z, X, Y, Z (got '{self.eulerseq}')")
        self.inertia_from_geom = _compiler_keyword(self.r, root, comp, "inertiafromgeom", ("false", "true", "auto"), "auto")
        self.autolimits = _compiler_keyword(self.r, root, comp, "autolimits", ("false", "true"), "true") == "true"
        self.inertia_groups = _group_range(self.r, root, comp)  # geoms of groups outside it weigh nothing (MuJoCo)
        base = Path(options.base_dir) if options.base_dir else None
        asset_dir = comp.get("assetdir")
        self.mesh_dir = comp.get("meshdir", asset_dir)
        self.base_dir = base
        self.defaults: dict[str, dict[str, dict[str, str]]] = {"main": {}}
        for d in root.findall("default"):
            self._defaults(d, {}, top=True)
        _check_references(self.r, root, _check_unique_names(self.r, root), self.defaults)
        _check_unique_children(self.r, root)
        extras_el = root.find(f"custom/text[@name='{EXTRAS}']")
        try:
            self.extras = json.loads(extras_el.get("data", "{}")) if extras_el is not None else {}
        except json.JSONDecodeError:
            raise self.r.error(extras_el, "the idyntree_models extras are not valid JSON") from None
        if extras_el is not None:
            problem = _extras_problem(self.extras)
            if problem:
                raise self.r.error(extras_el, f"the idyntree_models extras (our MJCF export's own data): {problem}")
        self.mesh_assets: dict[str, etree._Element] = {}
        self.materials: dict[str, etree._Element] = {}
        for a in root.findall("asset"):
            for m in a.findall("mesh"):
                name = m.get("name") or Path(_asset_file(m)).stem
                self.mesh_assets[name] = m
            for m in a.findall("material"):
                self._check_colour(m, self._class_attrs(m, None))
                if m.get("name"):
                    self.materials[m.get("name")] = m
        self.sites: dict[str, tuple[str, np.ndarray, etree._Element]] = {}
        self.world_sites: set[str] = set()  # sites of a world body that is not part of the robot
        self.free_bodies: dict[str, dict] = {}  # bodies of a scene with a free joint: their chains (free_chain)
        self.ignored_equalities: set[etree._Element] = set()  # said to be ignored (their attributes are not named)
        self.skipped_geoms = 0
        self.moving: set[str] = set()  # bodies with a joint, or inside one that has one (MuJoCo: not static)
        self.fitted_geoms = 0  # primitives sized to a mesh by MuJoCo (type="box" mesh="..."): left out
        self.link_of_body: dict[str, str] = {}

    # defaults and attributes -------------------------------------------------------------------
    def _defaults(self, el: etree._Element, inherited: dict, top: bool = False) -> None:
        name = el.get("class", "main")
        if top and name != "main":  # (MuJoCo: "top-level default class 'main' cannot be renamed")
            raise self.r.error(el, f"the top-level <default> is class 'main' and cannot be renamed '{name}'")
        if not top and name in self.defaults:  # (MuJoCo: "repeated default class name")
            raise self.r.error(el, f"default class '{name}' is defined twice (MuJoCo refuses a repeated class name)")
        if top:  # a second top-level <default> adds to class 'main', as in MuJoCo (it replaced it)
            inherited = self.defaults["main"]
        mine = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in el:
            if child.tag != "default" and isinstance(child.tag, str):
                self._check_default_values(child)
                own = [k for k in _ORIENTATIONS if k in child.attrib]
                if len(own) > 1:  # (MuJoCo: "multiple orientation specifiers are not allowed")
                    raise self.r.error(child, f"orientation given twice ({', '.join(own)})")
                attrs = mine.get(child.tag, {})
                if own:  # the class's orientation replaces the one it inherits, whatever its form
                    attrs = {k: v for k, v in attrs.items() if k not in _ORIENTATIONS}
                mine[child.tag] = _over(attrs, child.attrib)
        self.defaults[name] = mine
        for child in el.findall("default"):
            if not child.get("class"):
                raise self.r.error(child, "a nested <default> needs a class name")
            self._defaults(child, mine)

    def _check_default_values(self, el: etree._Element) -> None:
        """The values of a default class's element that the import reads, judged as MuJoCo judges them where the
        class is defined (used by an element or not): a malformed euler= of a class no element used was read."""
        for key, raw in el.attrib.items():
            if key in _NUMBERS:
                self.r.floats_list(el, raw, f"attribute '{key}'", _NUMBERS[key])
            elif key in _LEADING:
                self.leading_floats(el, el.attrib, key, (0.0,) * _LEADING[key])
            elif key in _INTEGERS:
                _integer(self.r, el, el.attrib, key, 0)
            elif key == "type" and el.tag in _TYPE_KEYWORDS:
                _keyword(self.r, el, el.attrib, "type", _TYPE_KEYWORDS[el.tag], "")

    def attrs(self, el: etree._Element, childclass: str | None) -> dict[str, str]:
        return self._looking(el, self._class_attrs(el, childclass))

    def _class_attrs(self, el: etree._Element, childclass: str | None) -> dict[str, str]:
        """An element's attributes over its class's, as a plain dict: what is asked of it is not recorded, for
        an element that is checked but not read (its attributes are not named one by one as not in the model)."""
        cls = el.get("class")
        if cls is None:  # (class="" names no class: MuJoCo refuses it, where it was taken for 'main')
            cls = childclass or "main"
        if cls not in self.defaults:
            raise self.r.error(el, f"unknown default class '{cls}'")
        tag = "joint" if el.tag == "freejoint" else el.tag
        if el.getparent() is not None and el.getparent().tag == "equality":
            tag = "equality"  # (an equality's <joint> takes the class's <equality> defaults, not its <joint> ones)
        return _over(self.defaults[cls].get(tag, {}), el.attrib)

    def _childclass(self, el: etree._Element, inherited: str | None) -> str | None:
        """The default class an element's content takes: its childclass, which must name a class (MuJoCo: "unknown
        default childclass"; an empty one was taken for none), else the one it inherits."""
        cc = el.get("childclass")
        if cc is None:
            return inherited
        if cc not in self.defaults:
            raise self.r.error(el, f"unknown default childclass '{cc}' (MuJoCo refuses it)")
        return cc

    def _looking(self, el: etree._Element, attrs: dict[str, str]) -> _Looked:
        looked = _Looked(attrs)
        self._asked.append((el, looked))
        return looked

    def _name_the_unread(self) -> None:
        """One warning naming, by element and attribute, what the model does not hold: attributes never asked
        for (a joint's armature, a geom's friction: MuJoCo reads them; the model has no field for them) and
        elements of a body the importer does not read (a camera, a light)."""
        had: dict[etree._Element, set[str]] = {}  # (an element's attributes may be handed out more than once)
        asked: dict[etree._Element, set[str]] = {}
        for el, looked in self._asked:
            had.setdefault(el, set()).update(looked)
            asked.setdefault(el, set()).update(looked.asked)
        whole = set(self.unread_elements)
        counts: dict[str, list] = {}
        for el, attrs in had.items():
            if el in whole or el in self.ignored_equalities:
                continue  # (named whole, or said to be ignored)
            tag = "equality joint" if el.getparent() is not None and el.getparent().tag == "equality" else el.tag
            for key in sorted(attrs - asked[el] - _READ_DIRECTLY.get(el.tag, set())):
                entry = counts.setdefault(f"{tag} {shown_attribute(el, key)}=", [0, el.sourceline])
                entry[0] += 1
        for el in had:  # (these hold no elements in MJCF: MuJoCo refuses one)
            if el.tag in _LEAVES and el not in whole:
                self.unread_elements += [c for c in el if isinstance(c.tag, str)]
        for el in dict.fromkeys(self.unread_elements):  # (the world body's are found twice in a world model)
            entry = counts.setdefault(f"<{el.tag}> in <{el.getparent().tag}>", [0, el.sourceline])
            entry[0] += 1
        # compiler settings that change the model MuJoCo builds (boundmass, fusestatic, ...), which the model does
        # not apply; balanceinertia is accounted for where our own export wrote it (with the exact inertias)
        read = _COMPILER_READ | ({"balanceinertia"} if self.extras else set())
        for c in self.root.findall("compiler"):
            for key in c.keys():  # noqa: SIM118  (attribute names)
                if key not in read:
                    entry = counts.setdefault(f"compiler {shown_attribute(c, key)}=", [0, c.sourceline])
                    entry[0] += 1
        for top in self.root:
            if not isinstance(top.tag, str):
                continue
            if top.tag in _SETTINGS and (len(top.attrib) or any(isinstance(c.tag, str) for c in top)):
                entry = counts.setdefault(f"<{top.tag}>", [0, top.sourceline])
                entry[0] += 1
            known = _BLOCK_CONTENT.get(top.tag)
            if known is None:
                continue
            for c in top:
                if (isinstance(c.tag, str) and c.tag not in known
                        and not (top.tag == "custom" and c.tag == "text" and c.get("name") == EXTRAS)):
                    entry = counts.setdefault(f"<{shown_tag(c)}> in <{top.tag}>", [0, c.sourceline])
                    entry[0] += 1
        if counts:
            shown = ", ".join(f"{what} ({n}, first at line {line})" for what, (n, line) in counts.items())
            self.diag.warn(f"MJCF: not in the model (the model has no field for them): {shown}")

    def floats(self, el, attrs: dict, key: str, n: int | None, default=None) -> np.ndarray | None:
        raw = attrs.get(key)
        if raw is None:
            return None if default is None else np.array(default, dtype=float)
        return np.array(self.r.floats_list(el, raw, f"attribute '{key}'", n), dtype=float)

    def leading_floats(self, el, attrs: dict, key: str, default: tuple[float, ...]) -> np.ndarray:
        """An attribute of which MuJoCo reads one to len(default) numbers, the rest its defaults (a geom's size, an
        equality's polycoef): more is refused ("too much data"; a size's fourth number was dropped)."""
        given = self.floats(el, attrs, key, None, ())
        if len(given) > len(default):  # (none is MuJoCo's defaults, as no attribute)
            raise self.r.error(el, f"attribute '{key}' takes 1 to {len(default)} numbers, got {len(given)} "
                                   f"('{attrs[key]}'); MuJoCo refuses it")
        return np.concatenate([given, np.array(default[len(given):], dtype=float)])

    def angle(self, x: float) -> float:
        return math.radians(x) if self.degrees else x

    def rotation(self, el, attrs: dict) -> np.ndarray:
        given = [k for k in _ORIENTATIONS if k in attrs]
        if len(given) > 1 and el.get(given[0]) is not None and el.get(given[1]) is not None:
            raise self.r.error(el, f"orientation given twice ({', '.join(given)})")
        # the element's own attribute wins over a default's
        own = [k for k in given if el.get(k) is not None]
        key = own[0] if own else (given[0] if given else None)
        if key is None:
            return np.eye(3)
        # directions are scaled with unit_vector: a component of 1e308 must not overflow into "zero"
        if key == "quat":
            q = unit_vector(self.floats(el, attrs, "quat", 4))
            if q is None:
                raise self.r.error(el, "quat has zero length")
            return quat_to_matrix(q)
        if key == "axisangle":
            a = self.floats(el, attrs, "axisangle", 4)
            u = None if _too_short(a[:3]) else unit_vector(a[:3])
            if u is None:
                raise self.r.error(el, f"axisangle: its axis is shorter than {_MJ_MIN_LENGTH:g} (MuJoCo refuses it: "
                                       "'axisangle too small')")
            return axis_angle_to_matrix(u, self.angle(a[3]))
        if key == "euler":
            e = self.floats(el, attrs, "euler", 3)
            rot = np.eye(3)
            for ch, a in zip(self.eulerseq, e):
                step = _rot_axis(ch, self.angle(a))
                rot = rot @ step if ch.islower() else step @ rot  # lower case: moving axes
            return rot
        if key == "xyaxes":
            v = self.floats(el, attrs, "xyaxes", 6)
            x = None if _too_short(v[:3]) else unit_vector(v[:3])
            if x is None:
                raise self.r.error(el, f"xyaxes: the x axis is shorter than {_MJ_MIN_LENGTH:g} (MuJoCo refuses it: "
                                       "'xaxis too small')")
            m = float(np.max(np.abs(v[3:])))  # (y is scaled: its part across x is as MuJoCo's, without overflow)
            across = (v[3:] / m) - (v[3:] / m @ x) * x if m > 0.0 else np.zeros(3)
            y = None if _too_short(across, m) else unit_vector(across, zero=0.0)
            if y is None:
                raise self.r.error(el, f"xyaxes: the y axis's part across the x axis is shorter than "
                                       f"{_MJ_MIN_LENGTH:g} (MuJoCo refuses it: 'yaxis too small')")
            return np.column_stack([x, y, np.cross(x, y)])
        z = self.floats(el, attrs, "zaxis", 3)
        z = None if _too_short(z) else unit_vector(z)
        if z is None:
            raise self.r.error(el, f"zaxis is shorter than {_MJ_MIN_LENGTH:g} (MuJoCo refuses it: 'zaxis too small')")
        return _z_to(z)

    def pose(self, el, attrs: dict) -> np.ndarray:
        return make_transform(self.rotation(el, attrs), self.floats(el, attrs, "pos", 3, (0.0, 0.0, 0.0)))

    # tree ---------------------------------------------------------------------------------------
    def run(self) -> Model:
        for el in self.root.iter("include"):
            raise self.r.error(el, "<include> is not supported: merge the included file first")
        ignored = sorted({c.tag for c in self.root if isinstance(c.tag, str) and c.tag not in _KNOWN_TOP})
        if ignored:
            self.diag.warn(f"MJCF: <{'>, <'.join(ignored)}> not represented in the model (ignored)")
        world = self.root.find("worldbody")
        if world is None:
            raise self.r.error(self.root, "no <worldbody>")
        world_level = self._world_level(world)
        moving_world = next((c for c, _ in world_level if c.tag in ("joint", "freejoint", "inertial")), None)
        if moving_world is not None:  # (it was left out without a word)
            what = "has no inertia" if moving_world.tag == "inertial" else "cannot move"
            raise self.r.error(moving_world, f"a <{moving_world.tag}> in the world body, which {what} (MuJoCo refuses "
                                             "it)")
        tops = self._top_bodies(world, np.eye(4), None)
        if not tops:
            raise self.r.error(world, "no <body> in <worldbody>: there is no robot to load")
        world_mode = self.extras.get("world_link") or len(tops) > 1 or any(
            j.tag != "freejoint" and self.attrs(j, jcc).get("type", "hinge") != "free"
            for b, _, cc in tops for j, _, jcc in self._body_joints(b, None, cc))
        if not world_mode:  # the world body's own content (in its frames too) is not the robot's
            self.unread_elements += [c for c, _ in world_level if c.tag not in _BODY_CONTENT]
            self.world_sites = {c.get("name") for c, _ in world_level if c.tag == "site"} - {None}
            self._check_unread_shapes(world_level)
            if any(c.tag in ("geom", "site") for c, _ in world_level):
                self.diag.warn("MJCF: geoms and sites of the world body are not part of the robot (ignored)")
        if world_mode:
            if len(tops) > 1 and self.options.model:
                tops = [t for t in tops if t[0].get("name") == self.options.model] or tops
            self.model.add_link(Link("world"))
            self._content(world, "world", np.eye(4), None, world=True)
            for body, pose, cc in tops:
                self._body(body, "world", pose, cc, top=True)
            self._said_free_bodies()
        else:
            body, pose, cc = tops[0]
            if np.any(pose != np.eye(4)):
                self.model.metadata["base_pose"] = pose.tolist()
            self._body(body, None, np.eye(4), cc)
        joint = self.extras.get("world_joint")
        if joint is not None and not world_mode and "mjcf_free_joint" not in self.model.metadata \
                and joint not in self.model.joints:
            # (our export welded the base for an SDF fixed joint to the world: that joint again, under its name)
            self.model.metadata["fixed_base"] = True
            self.model.metadata["sdf_world_joints"] = {joint: {"child": next(iter(self.model.links)),
                                                               "type": "fixed", "model_H_child": pose.tolist()}}
        elif joint is not None:  # (a file edited since: its base is free, or one of several, or the name is taken)
            self.diag.warn(f"MJCF: the extras name the fixed joint '{joint}' from the world to the base, which this "
                           "file's base no longer fits (it has a joint, or the world holds several bodies, or a joint "
                           "has that name): not read back")
        self._sensors()
        self._equalities()
        self._apply_extras()
        self._name_the_unread()
        if self.fitted_geoms:
            self.diag.warn(f"MJCF: {self.fitted_geoms} geom(s) fitted to a mesh (a primitive type with mesh=) left "
                           "out: MuJoCo sizes them from the mesh file, which the import does not read")
        if self.skipped_geoms:
            self.diag.warn(f"MJCF: {self.skipped_geoms} geom(s) of a type we do not hold (plane, hfield, sdf, "
                           "or a mesh given by vertices) left out")
        return self.model

    def _said_free_bodies(self) -> None:
        if not self.free_bodies:
            return
        self.model.metadata["free_bodies"] = self.free_bodies
        shown, how = free_chains_said(self.free_bodies)
        self.diag.warn(f"MJCF: {len(self.free_bodies)} free body(ies) beside others in the world ({shown}): each is "
                       f"joined to 'world' {how}, at its initial pose when all are zero (model.metadata['free_bodies'])")

    def _world_level(self, el, cc: str | None = None) -> list[tuple[etree._Element, str | None]]:
        """The elements of the world body other than bodies and frames, those in its frames too, each with the
        default class its frames give it."""
        out = []
        for child in el:
            if child.tag == "frame":
                out += self._world_level(child, self._childclass(child, cc))
            elif isinstance(child.tag, str) and child.tag != "body":
                out.append((child, cc))
        return out

    def _top_bodies(self, el, pose: np.ndarray, cc) -> list[tuple[etree._Element, np.ndarray, str | None]]:
        out = []
        for child in el:
            if child.tag == "body":
                out.append((child, pose @ self.pose(child, self.attrs_frame(child, cc)), self._childclass(child, cc)))
            elif child.tag == "frame":
                out += self._top_bodies(child, pose @ self.pose(child, self.attrs_frame(child, cc)),
                                        self._childclass(child, cc))
        return out

    def attrs_frame(self, el, cc) -> dict:
        return self._looking(el, dict(el.attrib))  # bodies and frames take no defaults

    def _unique(self, name: str, table) -> str:
        out, k = name, 1
        while out in table or out in self.model.frames:
            k += 1
            out = f"{name}_{k}"
        return out

    def _body(self, el, parent: str | None, parent_H_body: np.ndarray, childclass: str | None,
              top: bool = False) -> None:
        """A body and those inside it; `top`: a body of the world body beside others (a scene), which a free
        joint joins to the world by six 1-DOF joints (as SDF's free links), else free joints are refused."""
        cc = self._childclass(el, childclass)
        name = el.get("name") or self._unique(f"body{len(self.model.links)}", self.model.links)
        if name in self.model.links or name in self.model.frames:
            raise self.r.error(el, f"body name '{name}' is used twice")
        placed = self._body_joints(el, None, cc)  # (body_H_frame of a joint in a <frame>, its class)
        joints = [j for j, _, _ in placed]
        # each <joint>'s attributes (its own and its class's) handed out once; a <freejoint> takes no class
        attrs = [self.attrs(j, jcc) if j.tag == "joint" else None for j, _, jcc in placed]
        kinds = ["free" if a is None else a.get("type", "hinge") for a in attrs]
        free = [j for j, kind in zip(joints, kinds) if kind == "free"]
        after = next((k for k, kind in enumerate(kinds) if kind == "ball"), len(kinds)) + 1
        turning = next((j for j, kind in zip(joints[after:], kinds[after:]) if kind in ("ball", "hinge")), None)
        if turning is not None:
            raise self.r.error(turning, f"body '{name}': a ball joint followed by a rotation (MuJoCo refuses it)")
        if free:
            if (parent is not None and not top) or len(joints) > 1:
                raise self.r.error(free[0], "a free joint is only supported alone in a top-level body (floating base)")
            if parent is not None and self.options.free_bodies == "error":
                raise self.r.error(free[0], f"body '{name}' has a free joint beside other top-level bodies: a free "
                                            "body of the scene (free_bodies='chain' joins it to the world by six 1-DOF "
                                            "joints)")
            if parent is None:
                self.model.metadata["mjcf_free_joint"] = free[0].get("name") or ""
            if free[0].tag == "freejoint":  # (no default class applies to one, as in MuJoCo)
                self._looking(free[0], dict(free[0].attrib))  # its align= or group= is named
            joints, placed = [], []
        links = [f"{name}__{self._joint_name(j, name, k)}" for k, j in enumerate(joints[:-1])] + [name]
        for ln in links:
            self.model.add_link(Link(ln))
        if joints or free or parent in self.moving:
            self.moving.add(name)
        self.link_of_body[name] = name
        if parent is not None and free:
            self.free_bodies[name] = free_chain(self.model, parent, name, parent_H_body, free[0].get("name"))
        elif parent is not None:
            if not joints:
                jname = self.extras.get("fixed_joints", {}).get(name) or self._unique(f"{name}_fixed_joint", self.model.joints)
                self.model.add_joint(Joint(jname, JointType.FIXED, parent, name, parent_H_body))
            prev, rest = parent, parent_H_body
            for k, ((j, body_H_frame, _), a, child) in enumerate(zip(placed, attrs, links)):
                self._joint(j, a, self._joint_name(j, name, k), prev, child, rest, body_H_frame)
                prev, rest = child, np.eye(4)
        self._content(el, name, np.eye(4), cc)
        for child, pose, ccc in self._top_bodies(el, np.eye(4), cc):
            self._body(child, name, pose, ccc)

    def _body_joints(self, el, body_H_el: np.ndarray | None,
                     cc) -> list[tuple[etree._Element, np.ndarray | None, str | None]]:
        """The joints of a body in document order, those inside its <frame>s too (MuJoCo moves a frame's content
        into its body), each with body_H_frame (None: in the body frame itself) and the default class it takes."""
        out = []
        for child in el:
            if child.tag in ("joint", "freejoint"):
                out.append((child, body_H_el, cc))
            elif child.tag == "frame":
                pose = self._frame_pose(child)
                out += self._body_joints(child, pose if body_H_el is None else body_H_el @ pose,
                                         self._childclass(child, cc))
        return out

    def _limited(self, el, a: dict, rng: np.ndarray, key: str, flag: str) -> bool:
        """Whether MuJoCo limits a joint by its `key` range: `flag` true (the range must then be increasing),
        false, or auto (limited where the range increases; refused without autolimits, as MuJoCo does)."""
        limited = _keyword(self.r, el, a, flag, ("false", "true", "auto"), "auto")
        if limited == "auto":
            if not self.autolimits:
                raise self.r.error(el, f"joint has {key} but not {flag}, and the compiler's autolimits is false "
                                       f"(MuJoCo refuses it: give {flag}=\"true\" or \"false\")")
            return bool(rng[0] < rng[1])
        if limited == "true" and not rng[0] < rng[1]:
            raise self.r.error(el, f"{key} {rng[0]:g} {rng[1]:g}: the lower bound must be below the upper")
        return limited == "true"

    def _joint_name(self, el, body: str, k: int) -> str:
        return el.get("name") or f"{body}_joint{k}"

    def _joint(self, el, a: dict, name: str, parent: str, child: str, rest: np.ndarray,
               body_H_frame: np.ndarray | None) -> None:
        """A joint of `child`, in its body frame (or in a <frame> of it at body_H_frame)."""
        if name in self.model.joints:
            raise self.r.error(el, f"joint name '{name}' is used twice")
        kind = a.get("type", "hinge")
        pos = self.floats(el, a, "pos", 3, (0.0, 0.0, 0.0))
        if body_H_frame is not None:
            pos = body_H_frame[:3, :3] @ pos + body_H_frame[:3, 3]
        if kind == "ball":
            a.get("axis")  # (a ball joint has none: MuJoCo ignores it too)
            cone = self.floats(el, a, "range", 2)
            limited = _keyword(self.r, el, a, "limited", ("false", "true", "auto"), "auto")
            if cone is not None and cone[0] != 0.0 and (limited == "true" or (
                    limited == "auto" and self.autolimits and cone[0] < cone[1])):
                # (a ball joint's range is a cone: its first number is no bound; MuJoCo judges this first)
                raise self.r.error(el, f"ball joint '{name}': range {cone[0]:g} {cone[1]:g} must start at 0 (a "
                                       "ball joint's limit is the cone angle, the second number; MuJoCo refuses it)")
            if cone is not None and self._limited(el, a, np.array([0.0, cone[1]]), "range", "limited"):
                self.diag.warn(f"MJCF: ball joint '{name}': its cone limit is not represented")
            joint = Joint(name, JointType.SPHERICAL, parent, child, rest, center=rest[:3, :3] @ pos + rest[:3, 3])
            self.model.add_joint(joint)
            return
        if kind not in ("hinge", "slide"):
            raise self.r.error(el, f"joint type '{kind}' is not supported (hinge, slide, ball, free)")
        axis = self.floats(el, a, "axis", 3, (0.0, 0.0, 1.0))
        axis = None if _too_short(axis) else unit_vector(axis if body_H_frame is None else body_H_frame[:3, :3] @ axis)
        if axis is None:  # (a frame's turn does not change its length)
            raise self.r.error(el, f"joint axis is shorter than {_MJ_MIN_LENGTH:g} (MuJoCo refuses it: 'axis too "
                                   "small')")
        revolute = kind == "hinge"
        limits = Limits()
        rng = self.floats(el, a, "range", 2)
        if rng is None and a.get("limited") == "true":  # (MuJoCo: the default range 0 0 does not increase)
            raise self.r.error(el, "limited=\"true\" without a range (MuJoCo refuses it)")
        if rng is not None and self._limited(el, a, rng, "range", "limited"):
            lo, hi = (self.angle(rng[0]), self.angle(rng[1])) if revolute else (rng[0], rng[1])
            limits.has_position_limits, limits.min_position, limits.max_position = True, lo, hi
        frc = self.floats(el, a, "actuatorfrcrange", 2)
        if frc is not None and self._limited(el, a, frc, "actuatorfrcrange", "actuatorfrclimited"):
            limits.has_effort_limit, limits.effort_limit = True, float(max(abs(frc[0]), abs(frc[1])))
            if -frc[0] != frc[1]:
                self.diag.warn(f"MJCF: joint '{name}': actuatorfrcrange {frc[0]:g} {frc[1]:g} is read as the "
                               f"symmetric effort limit {limits.effort_limit:g} (the model's limit is one number)")
        ref = float(self.floats(el, a, "ref", 1, (0.0,))[0])
        if ref:  # (the body is placed as written at qpos = ref, our position 0; the range is in qpos terms)
            shift = self.angle(ref) if revolute else ref
            moved = ""
            if limits.has_position_limits:
                limits.min_position -= shift
                limits.max_position -= shift
                moved = (f"; its range is moved by it, to {limits.min_position:g} {limits.max_position:g} "
                         f"{'rad' if revolute else 'm'} from the pose as written")
            self.diag.warn(f"MJCF: joint '{name}': ref={ref:g} is not represented (our position 0 is MuJoCo's qpos "
                           f"{shift:g} {'rad' if revolute else 'm'}, the pose as written){moved}")
        damping = float(self.floats(el, a, "damping", 1, (0.0,))[0])
        friction = float(self.floats(el, a, "frictionloss", 1, (0.0,))[0])
        joint = Joint(name, JointType.REVOLUTE if revolute else JointType.PRISMATIC, parent, child, rest, axis=axis,
                      axis_origin=pos if revolute else np.zeros(3), limits=limits,
                      dynamics=Dynamics(damping, friction) if ("damping" in a or "frictionloss" in a) else None)
        self.model.add_joint(joint)

    def _check_colour(self, el, a: dict, key: str = "rgba") -> None:
        """MuJoCo holds a colour in single precision and refuses a number beyond it ("number is too large"); the
        import read it as a double and wrote 1e39 out to every format. Only looked at (`a` is not marked)."""
        raw = dict.get(a, key)
        if raw is None:
            return
        if not _single_precision(self.r.floats_list(el, raw, f"attribute '{key}'", 4)):
            raise self.r.error(el, f"{key}=\"{raw}\": a number beyond single precision ({_FLOAT32_MAX:.7g}), which "
                                   "MuJoCo refuses")

    def _material_known(self, el, a: dict) -> None:
        """MuJoCo refuses a geom or site whose material (its own, or its class's) names no material asset;
        the colour it would give was left out without a word."""
        material = dict.get(a, "material")  # (only looked at: a site's material is not in the model, and said so)
        if material and material not in self.materials:  # ('' is none, as in MuJoCo: it clears a class's)
            raise self.r.error(el, f"unknown material '{material}' (no <material> of that name in <asset>)")

    def _content(self, el, link: str, link_H_el: np.ndarray, cc: str | None, world: bool = False,
                 geoms: list | None = None) -> None:
        """Inertial, geoms and sites of a body or the world body, and of the frames inside it: MuJoCo moves a
        frame's content into its body, so the body's inertia is that of all its geoms (`geoms`: the body's
        list, for a frame)."""
        top = geoms is None
        geoms = [] if geoms is None else geoms
        inertial = None
        for child in el:
            if child.tag == "inertial" and top and not world:
                inertial = child
            elif child.tag == "geom":
                a = self.attrs(child, cc)
                self._material_known(child, a)
                geoms.append((child, a, link_H_el @ self._geom_pose(child, a)))
            elif child.tag == "site":
                name = child.get("name")
                a = self.attrs(child, cc) if name else self._class_attrs(child, cc)
                self._site_shape(child, a)
                if not name:  # a frame needs a name: the site is not in the model (named whole)
                    self.unread_elements.append(child)
                    continue
                self.sites[name] = (link, link_H_el @ self._geom_pose(child, a), child)  # (a fromto places it)
            elif child.tag == "frame":
                ccc = self._childclass(child, cc)
                self._content(child, link, link_H_el @ self._frame_pose(child), ccc, world, geoms)
            elif isinstance(child.tag, str) and child.tag not in _BODY_CONTENT:
                self.unread_elements.append(child)
        if not top:
            return
        lk = self.model.links[link]
        for g, a, pose in geoms:
            self._shape(lk, g, a, pose)
        if world:
            for _, ga, _ in geoms:  # (MuJoCo's world body has no mass: a geom's there is ignored by it too)
                ga.get("mass"), ga.get("density")
            return
        lo, hi = self.inertia_groups
        massive = [g for g in geoms if lo <= _integer(self.r, g[0], g[1], "group", 0) <= hi]
        mode = self.inertia_from_geom
        # MuJoCo: "true" takes the geoms' inertia over an <inertial> (and the <inertial> where there is no geom),
        # "auto" the <inertial> where there is one, "false" nothing but the <inertial>
        from_geoms = bool(massive) and (mode == "true" or (mode != "false" and inertial is None))
        for _, ga, _ in geoms if not from_geoms else [g for g in geoms if g not in massive]:
            ga.get("mass"), ga.get("density")  # (MuJoCo, too, reads no mass or density of a geom it does not weigh)
        if inertial is not None and from_geoms:
            ignored = self._looking(inertial, dict(inertial.attrib))  # (MuJoCo ignores it: not lost)
            for key in inertial.keys():  # noqa: SIM118  (attribute names)
                ignored.get(key)
        if inertial is not None and not from_geoms:
            a = self._looking(inertial, dict(inertial.attrib))
            mass = float(self.floats(inertial, a, "mass", 1)[0]) if "mass" in a else None
            if mass is None:
                raise self.r.error(inertial, "missing required attribute 'mass'")
            if "pos" not in a:  # (required by MuJoCo)
                raise self.r.error(inertial, "missing required attribute 'pos'")
            rot = self.rotation(inertial, a)
            if "fullinertia" in a:
                beside = [k for k in ("diaginertia", *_ORIENTATIONS) if k in a]
                if beside:  # (MuJoCo refuses both: the tensor is in the body frame, and one tensor is given)
                    raise self.r.error(inertial, f"fullinertia cannot be given with {', '.join(beside)}")
                f = self.floats(inertial, a, "fullinertia", 6)
                inertia = np.array([[f[0], f[3], f[4]], [f[3], f[1], f[5]], [f[4], f[5], f[2]]])
            elif "diaginertia" in a:
                with np.errstate(all="ignore"):  # moments near the largest double, turned: refused below
                    inertia = rot @ np.diag(self.floats(inertial, a, "diaginertia", 3)) @ rot.T
                if not np.all(np.isfinite(inertia)):
                    raise self.r.error(inertial, "diaginertia turned by the inertial's orientation is beyond the "
                                                 "range of a double")
            else:
                raise self.r.error(inertial, "needs diaginertia or fullinertia")
            lk.inertia = Inertia(mass, self.floats(inertial, a, "pos", 3, (0.0, 0.0, 0.0)), inertia)
        elif from_geoms:
            with np.errstate(all="ignore"):  # a sum beyond a double's range is refused here, with the body
                total = combine_inertias(self._geom_inertias(massive))
            if not total.is_finite():
                raise self.r.error(el, f"body '{link}': the inertia of its geoms together (inertiafromgeom) is "
                                       "beyond the range of a double: check their sizes, masses and positions")
            lk.inertia = total

    def _check_unread_shapes(self, world_level: list[tuple[etree._Element, str | None]]) -> None:
        """The geoms and sites of a world body that is not the robot's are not read, but MuJoCo refuses the file
        for what is wrong in them (a size of 0, an unknown material, a fromto on a sphere), and so does the import:
        it read files MuJoCo does not."""
        for child, cc in world_level:
            if child.tag == "geom":
                a = self._class_attrs(child, cc)
                self._material_known(child, a)
                self._geom_pose(child, a)
                self._checked_geom(child, a)
            elif child.tag == "site":
                self._site_shape(child, self._class_attrs(child, cc))

    def _site_shape(self, el, a: dict) -> None:
        """Check a site's shape as MuJoCo does, named or not: the model holds only a named site's frame, but MuJoCo
        refuses a site whose size is not positive, whose type is a plane, or whose mesh is unknown. Only looked
        at (a plain dict of `a`): its type, size and material are not in the model, and said so."""
        a = dict(a)
        self._material_known(el, a)
        self._check_colour(el, a)
        self._geom_pose(el, a)
        kind, _ = self._geom_size(el, a, pad=_SITE_SIZE)
        if kind in ("plane", "hfield"):
            raise self.r.error(el, f"a site of type {kind}: MuJoCo allows planes and height fields only as geoms")
        if "mesh" in a and kind != "mesh":
            raise self.r.error(el, f"mesh= on a site of type {kind}: MuJoCo takes a mesh only on a site of type mesh")
        if kind == "mesh" and a.get("mesh") not in self.mesh_assets:
            raise self.r.error(el, f"a mesh site needs a mesh= that names a <mesh> asset (got {a.get('mesh')!r})")

    def _frame_pose(self, el) -> np.ndarray:
        """el_H_frame of a <frame> (its own attributes: a frame takes none from a default class)."""
        return self.pose(el, self._looking(el, dict(el.attrib)))

    def _geom_pose(self, el, a: dict) -> np.ndarray:
        fromto = self.floats(el, a, "fromto", 6)  # (its own, or its default class's)
        if fromto is None:
            return self.pose(el, a)
        kind = dict.get(a, "type", "sphere")  # (only looked at: a site's type is not in the model, and said so)
        pos = self.floats(el, a, "pos", 3, (0.0, 0.0, 0.0))
        if np.any(pos != 0.0):  # (MuJoCo: "both pos and fromto defined"; the pos was ignored. A class's counts too)
            raise self.r.error(el, f"both pos and fromto are given to this {el.tag} (MuJoCo refuses it: fromto places it)")
        if kind not in _FROMTO_TYPES:  # (it was placed at the middle of the segment, a file MuJoCo refuses)
            raise self.r.error(el, f"fromto on a {kind} {el.tag}: MuJoCo refuses it (fromto requires "
                                   f"{', '.join(_FROMTO_TYPES)})")
        for key in _ORIENTATIONS:  # (MuJoCo ignores an orientation beside fromto: not lost)
            a.get(key)
        p1, p2 = fromto[:3], fromto[3:]
        with np.errstate(all="ignore"):
            apart, middle = _distance(p1, p2), 0.5 * (p1 + p2)
        if not (math.isfinite(apart) and np.all(np.isfinite(middle))):
            raise self.r.error(el, "fromto: the two points are too far apart for a double")
        if _too_short(p1 - p2):
            raise self.r.error(el, f"fromto: the two points are closer than {_MJ_MIN_LENGTH:g} (MuJoCo refuses them: "
                                   "'fromto points too close')")
        return make_transform(_z_to(p1 - p2), middle)  # MuJoCo points z from "to" towards "from"

    def _geom_size(self, el, a: dict, pad: float = 0.0) -> tuple[str, np.ndarray]:
        """Type and the three sizes of a geom, or of a site (`pad`: the sizes not given, 0 for a geom and MuJoCo's
        0.005 for a site), refused where MuJoCo refuses them."""
        kind = _keyword(self.r, el, a, "type", _GEOM_TYPES, "sphere")
        size = self.leading_floats(el, a, "size", (pad, pad, pad))
        along = -1  # the size that is half the length of a fromto, if one gives it
        if "fromto" in a and kind in _FROMTO_TYPES:
            f = self.floats(el, a, "fromto", 6)
            half = 0.5 * _distance(f[:3], f[3:])
            if kind in ("capsule", "cylinder"):
                size[1], along = half, 1
            else:  # (MuJoCo: a box or an ellipsoid along a segment is as wide as deep, size[0])
                size[1], size[2], along = size[0], half, 2
        doubled = size if kind == "box" else size[1:2] if kind in ("capsule", "cylinder") else size[:0]
        if not np.all(np.abs(doubled) <= _MAX_HALF_SIZE):  # the model holds these as full sizes (lengths)
            raise self.r.error(el, f"{kind} {el.tag} size beyond the range of a double (its full size, twice the "
                                   "half-size MJCF gives, would overflow)")
        if not _fitted(kind, a) or el.tag == "site":  # (a geom fitted to a mesh takes the mesh's size instead)
            if kind == "plane" and not size[2] > 0.0:
                raise self.r.error(el, f"plane geom: size[2], its grid spacing, is {size[2]:g}; MuJoCo refuses a "
                                       "plane whose spacing is not positive (the first two may be 0: infinite)")
            for i, what in enumerate(_SIZES_USED.get(kind, ())):
                if not size[i] > 0.0:  # (a negative radius or length was kept, and written out to every format)
                    given = "half the length of its fromto" if i == along else f"size[{i}]"
                    raise self.r.error(el, f"{kind} {el.tag}: its {what} ({given}) is {size[i]:g}; MuJoCo refuses a "
                                           f"{el.tag} size that is not positive")
        return kind, size

    def _checked_geom(self, el, a: dict) -> tuple[str, np.ndarray]:
        """_geom_size, and the rest of what MuJoCo refuses in a geom whatever body holds it."""
        kind, size = self._geom_size(el, a)
        self._check_colour(el, a)
        for key in ("mass", "density"):  # (MuJoCo: "mass, inertia or density are negative in geom")
            if key in a and float(self.floats(el, a, key, 1)[0]) < 0:
                raise self.r.error(el, f"geom {key} {a[key]} is negative (MuJoCo refuses it)")
        if (kind == "mesh" or "mesh" in a) and a.get("mesh") not in self.mesh_assets:
            raise self.r.error(el, f"unknown mesh '{a.get('mesh')}'")  # (also of a primitive fitted to a mesh)
        return kind, size

    def _shape(self, link: Link, el, a: dict, pose: np.ndarray) -> None:
        kind, size = self._checked_geom(el, a)
        if _fitted(kind, a):
            self.fitted_geoms += 1
            return
        if kind == "plane" and link.name in self.moving:
            raise self.r.error(el, f"a plane geom in body '{link.name}', which moves (MuJoCo allows planes only in "
                                   "static bodies)")
        shape: Shape
        if kind == "sphere":
            shape = Sphere(pose, radius=float(size[0]))
        elif kind == "box":
            shape = Box(pose, size=2.0 * size)
        elif kind == "cylinder":
            shape = Cylinder(pose, radius=float(size[0]), length=2.0 * float(size[1]))
        elif kind == "capsule":
            shape = Capsule(pose, radius=float(size[0]), length=2.0 * float(size[1]))
        elif kind == "ellipsoid":
            shape = Ellipsoid(pose, radii=size.copy())
        elif kind == "mesh" and a.get("mesh") in self.mesh_assets and self.mesh_assets[a["mesh"]].get("file"):
            m = self.mesh_assets[a["mesh"]]
            ma = self.attrs(m, None)
            shape = Mesh(pose, filename=self._mesh_path(_asset_file(m)),
                         scale=self.floats(m, ma, "scale", 3, (1.0, 1.0, 1.0)))
        else:
            self.skipped_geoms += 1
            return
        shape.name = el.get("name")
        rgba = self.floats(el, a, "rgba", 4)
        mat = self.materials.get(a.get("material"))
        if mat is not None:  # (its other attributes, a specular, a texture, are named)
            ma = self.attrs(mat, None)
            if rgba is None:
                rgba = self.floats(mat, ma, "rgba", 4)
            else:
                ma.get("rgba")  # (the geom's own colour wins, as in MuJoCo)
        if rgba is not None:
            shape.material = Material(a.get("material"), rgba)
        contacts = _integer(self.r, el, a, "contype", 1) != 0 or _integer(self.r, el, a, "conaffinity", 1) != 0
        if not contacts:
            link.visuals.append(shape)
        elif _integer(self.r, el, a, "group", 0) == COLLISION_GROUP:
            link.collisions.append(shape)
        else:
            link.visuals.append(shape)
            link.collisions.append(copy.deepcopy(shape))  # a colliding geom is drawn too

    def _mesh_path(self, file: str) -> str:
        p = Path(file)
        if p.is_absolute():
            return file
        if self.base_dir is None:  # (a document given as text: relative to where it is used, meshdir kept)
            return str(Path(self.mesh_dir) / p) if self.mesh_dir else file
        base = self.base_dir / self.mesh_dir if self.mesh_dir else self.base_dir
        return str(base / p)

    def _geom_inertias(self, geoms) -> list[tuple[Inertia, np.ndarray]]:
        """MuJoCo's inertia of primitive geoms (density 1000 or the given mass), as `inertiafromgeom`."""
        out = []
        meshes = 0
        for el, a, pose in geoms:
            kind, s = self._geom_size(el, a)
            if kind in ("plane", "hfield", "sdf"):
                continue
            with np.errstate(all="ignore"):  # too large a size is refused below, with the geom's line
                unit = _unit_mass_moments(kind, s)
            if unit is None:
                meshes += 1
                continue
            vol, diag = unit
            if _fitted(kind, a):
                meshes += 1
                continue
            if vol < _MJ_EPS and "mass" in a:  # (MuJoCo leaves out a geom of less volume given a mass, whose density
                continue  # it cannot make: measured, a sphere of radius 1.33e-5, 1e-14 m^3; its 0.2 kg were counted)
            with np.errstate(all="ignore"):
                if "mass" in a:
                    a.get("density")  # (MuJoCo uses the mass, not the density, of a geom that has both)
                    mass = float(self.floats(el, a, "mass", 1)[0])
                else:
                    mass = float(float(self.floats(el, a, "density", 1, (1000.0,))[0]) * vol)
                moments = mass * diag
            if not (math.isfinite(mass) and np.all(np.isfinite(moments))):
                raise self.r.error(el, f"the inertia of this {kind} geom (inertiafromgeom) is not a finite number: its "
                                       "size (or mass) is zero, or too small or too large for a double")
            out.append((Inertia(mass, np.zeros(3), np.diag(moments)), pose))
        if meshes:
            self.diag.warn(f"MJCF: inertia of {meshes} mesh geom(s) not computed (a body without <inertial> "
                           "gets its inertia from primitive geoms only)")
        return out

    # sensors, equalities, extras ----------------------------------------------------------------
    def _sensors(self) -> None:
        skip = set(self.extras.get("sensor_sites", []))
        for name, (link, pose, _) in self.sites.items():
            if name in skip:
                continue
            if name in self.model.links or name in self.model.frames:
                self.diag.warn(f"MJCF: site '{name}' has the name of a link or frame: not added as a frame")
                continue
            self.model.add_frame(Frame(name, link, pose))
        ft_sites: dict[str, list[str]] = {}
        ft_names: dict[str, list[str | None]] = {}  # the MJCF names of each site's force and torque sensors
        other: set[str] = set()
        by_site_ft = {v["site"]: k for k, v in self.extras.get("force_torque", {}).items()}
        # names a sensor has of its own (MJCF's name=, our export's extras): a name taken from a site gives way to them
        self.sensor_names = {s.get("name") for block in self.root.findall("sensor") for s in block
                             if isinstance(s.tag, str) and s.tag not in ("force", "torque") and s.get("name")}
        self.sensor_names |= set(self.extras.get("force_torque", {})) | set(self.extras.get("other_sensors", {}))
        for block in self.root.findall("sensor"):
            for s in block:
                if not isinstance(s.tag, str):
                    continue
                if s.tag in _SENSOR_READ:  # (a sensor of another type is named whole below)
                    looked = self._looking(s, dict(s.attrib))
                    for key in _SENSOR_READ[s.tag]:
                        looked.get(key)
                if s.tag == "frameangacc" and s.get("objtype") != "site":
                    self._body_frame_sensor(s)
                    continue
                site = s.get("site") if s.tag != "frameangacc" else s.get("objname")
                if s.tag in ("accelerometer", "gyro", "frameangacc", "force", "torque") and site not in self.sites:
                    if site in self.world_sites:
                        self.diag.warn(f"MJCF: <{s.tag}> sensor '{s.get('name') or site}' is on site '{site}' of the "
                                       "world body, which is not part of the robot: left out")
                        continue
                    raise self.r.error(s, f"unknown site '{site}'")
                if s.tag in ("force", "torque"):
                    ft_sites.setdefault(site, []).append(s.tag)
                    ft_names.setdefault(site, []).append(s.get("name"))
                    continue
                kind = {"accelerometer": SensorType.ACCELEROMETER, "gyro": SensorType.GYROSCOPE,
                        "frameangacc": SensorType.ANGULAR_ACCELEROMETER}.get(s.tag)
                if kind is None:
                    other.add(s.tag)
                    continue
                link, pose, _ = self.sites[site]
                self._add_sensor(LinkSensor(s.get("name") or site, parent_link=link, link_H_sensor=pose.copy(),
                                            sensor_type=kind), derived=not s.get("name"))
        for site, kinds in ft_sites.items():
            link, pose, _ = self.sites[site]
            joint = next((j for j in self.model.joints.values() if j.child == link), None)
            if joint is None:
                self.diag.warn(f"MJCF: force/torque sensor on site '{site}': its body has no parent joint (ignored)")
                continue
            name = by_site_ft.get(site) or self._sensor_name(site)
            renamed = [n for n in ft_names[site] if n is not None and n != name]
            if renamed and site not in by_site_ft:  # (our export's names are derived from the sensor's)
                self.diag.warn(f"MJCF: {' and '.join(kinds)} sensor(s) {', '.join(map(repr, renamed))} on site "
                               f"'{site}' are read as one six-axis force/torque sensor named '{name}'")
            info = self.extras.get("force_torque", {}).get(name, {})
            self._add_sensor(ForceTorqueSensor(
                name, parent_joint=joint.name, first_link=joint.parent, second_link=link,
                applied_wrench_link=info.get("applied_wrench_link", link), first_link_H_sensor=joint.rest_transform @ pose,
                second_link_H_sensor=pose.copy(), frame=info.get("frame", "sensor")))
            if set(kinds) != {"force", "torque"}:
                self.diag.warn(f"MJCF: site '{site}' has only a {kinds[0]} sensor: read as a six-axis F/T sensor '{name}'")
        for name, info in self.extras.get("other_sensors", {}).items():
            if info.get("site") in self.sites:
                link, pose, _ = self.sites[info["site"]]
                self._add_sensor(LinkSensor(name, parent_link=link, link_H_sensor=pose.copy(),
                                                 sensor_type=SensorType.OTHER, subtype=info.get("subtype"),
                                                 properties=info.get("properties") or {}))
        if other:
            self.diag.warn(f"MJCF: sensor type(s) {', '.join(sorted(other))} not represented (ignored)")

    def _sensor_name(self, wanted: str) -> str:
        """A name for a sensor that has none of its own (it takes its site's or body's): `wanted`, or made unique
        against the sensors read and the names other sensors have of their own, with a warning."""
        name = unique_name(wanted, lambda n: n in self.model.sensors or n in self.sensor_names)
        if name != wanted:
            self.diag.warn(f"MJCF: an unnamed sensor on '{wanted}' takes that name, which another sensor has: "
                           f"read as '{name}'")
        return name

    def _add_sensor(self, sensor, derived: bool = False) -> None:
        """Add a sensor: under its own name, or, where it has none (`derived`), under one _sensor_name gives."""
        if derived:
            sensor.name = self._sensor_name(sensor.name)
        elif sensor.name in self.model.sensors:  # (MuJoCo refuses two sensors of one name: a defensive rename)
            name = unique_name(sensor.name, self.model.sensors)
            self.diag.warn(f"MJCF: two sensors are named '{sensor.name}': the second is read as '{name}'")
            sensor.name = name
        self.model.add_sensor(sensor)

    def _body_frame_sensor(self, s: etree._Element) -> None:
        """A frameangacc on a body: on its frame (xbody), which is its link's; the inertial frame (body) and
        other objects have no frame in the model."""
        if s.get("objtype") is None:  # (MuJoCo: "required attribute missing: 'objtype'")
            raise self.r.error(s, "missing required attribute 'objtype'")
        objtype, objname = _keyword(self.r, s, dict(s.attrib), "objtype", _OBJTYPES, ""), s.get("objname")
        name = s.get("name") or objname
        if objtype != "xbody":
            self.diag.warn(f"MJCF: frameangacc '{name}' on the {objtype} '{objname}' is not represented (ignored): "
                           "only those on a site or a body's frame (objtype xbody) are")
            return
        link = self.link_of_body.get(objname, objname if objname == "world" else None)
        if link not in self.model.links:
            raise self.r.error(s, f"unknown body '{objname}'")
        self._add_sensor(LinkSensor(name, parent_link=link, link_H_sensor=np.eye(4),
                                    sensor_type=SensorType.ANGULAR_ACCELEROMETER), derived=not s.get("name"))

    def _equalities(self) -> None:
        for block in self.root.findall("equality"):
            for e in block:
                if e.tag != "joint":
                    if isinstance(e.tag, str):
                        self.diag.warn(f"MJCF: equality <{e.tag}> not represented (ignored)")
                    continue
                a = self.attrs(e, None)
                j1, j2 = a.get("joint1"), a.get("joint2")
                coef = self.leading_floats(e, a, "polycoef", (0.0, 1.0, 0.0, 0.0, 0.0))
                if j1 not in self.model.joints or (j2 is not None and j2 not in self.model.joints):
                    raise self.r.error(e, f"unknown joint '{j1 if j1 not in self.model.joints else j2}'")
                if j2 is None or np.any(coef[2:]) or a.get("active", "true") == "false":
                    self.diag.warn(f"MJCF: equality on joint '{j1}' is not a linear mimic relation (ignored)")
                    self.ignored_equalities.add(e)
                    continue
                self.model.joints[j1].mimic = Mimic(j2, float(coef[1]), float(coef[0]))

    def _apply_extras(self) -> None:
        joints = {name: FrameJoint(joint, is_parent) for name, (joint, is_parent) in self.extras.get("frame_joints", {}).items()
                  if name in self.model.frames}
        if joints:
            self.model.metadata["frame_joints"] = joints
        for name, v in self.extras.get("velocity_limits", {}).items():
            if name in self.model.joints:
                lim = self.model.joints[name].limits
                lim.has_velocity_limit, lim.velocity_limit = True, float(v)
        for name, (lo, hi) in self.extras.get("position_limits", {}).items():
            if name in self.model.joints:
                lim = self.model.joints[name].limits
                lim.has_position_limits, lim.min_position, lim.max_position = True, float(lo), float(hi)
        for name, v in self.extras.get("effort_limits", {}).items():
            if name in self.model.joints:
                lim = self.model.joints[name].limits
                lim.has_effort_limit, lim.effort_limit = True, float(v)
        for name, i in self.extras.get("exact_inertia", {}).items():
            if name in self.model.links:
                self.model.links[name].inertia = Inertia(i["mass"], i["com"], i["inertia"])


# What our export writes in the extras, by key: a checker of each value (malformed extras are refused by name, not
# met as an internal error halfway through the import)
def _number(v) -> bool:
    return type(v) in (int, float) and v == v  # (JSON's NaN is refused: a limit that is not a number)


def _numbers(n: int):
    return lambda v: isinstance(v, list) and len(v) == n and all(map(_number, v))


def _table(check):
    return lambda v: isinstance(v, dict) and all(check(x) for x in v.values())


def _fields(**checks):
    return lambda v: isinstance(v, dict) and all(k not in v or c(v[k]) for k, c in checks.items())


def _text(v) -> bool:
    return isinstance(v, str)


def _texts(v) -> bool:
    return isinstance(v, list) and all(map(_text, v))


_EXTRAS = {
    "world_link": lambda v: isinstance(v, bool),
    "balanced_by_mujoco": _texts,
    "velocity_limits": _table(_number),
    "effort_limits": _table(_number),
    "position_limits": _table(_numbers(2)),
    "exact_inertia": _table(lambda v: isinstance(v, dict) and _number(v.get("mass")) and _numbers(3)(v.get("com"))
                            and isinstance(v.get("inertia"), list) and len(v["inertia"]) == 3
                            and all(map(_numbers(3), v["inertia"]))),
    "fixed_joints": _table(_text),
    "sensor_sites": _texts,
    "force_torque": _table(_fields(site=_text, applied_wrench_link=_text, frame=_text)),
    "other_sensors": _table(_fields(site=_text, subtype=lambda v: v is None or _text(v),
                                    properties=lambda v: v is None or isinstance(v, dict))),
    "frame_joints": _table(lambda v: isinstance(v, list) and len(v) == 2 and _text(v[0]) and isinstance(v[1], bool)),
    "world_joint": _text,
}


def _extras_problem(extras) -> str | None:
    """What is wrong with the extras' JSON (None: nothing), naming the key."""
    if not isinstance(extras, dict):
        return "not a JSON object"
    for key, check in _EXTRAS.items():
        if key in extras and not check(extras[key]):
            return f"'{key}' is not what our MJCF export writes there"
    return None


def load(text: str, options: LoadOptions, diag: Diagnostics) -> Model:
    """Read MJCF text (see the module docstring for what is understood)."""
    root = parse_xml(text, diag.source, max_depth=MUJOCO_MAX_DEPTH, depth_reason=_DEPTH_REASON)
    if root.tag != "mujoco":
        raise ModelError(f"the root element is <{root.tag}>, not <mujoco>", source=diag.source, line=root.sourceline,
                         element=describe(root))
    _one_world_body(XmlReader(diag.source), root)
    return _Importer(root, options, diag).run()


def _one_world_body(r: XmlReader, root: etree._Element) -> None:
    """MuJoCo makes one world body of every <worldbody> in the file, in order: the importer reads the first,
    so the content of the others is moved into it (their bodies were lost without a word). The world body is
    MuJoCo's own and takes no attribute ("World body cannot have attributes"): a name or a childclass there is
    refused, not ignored."""
    worlds = root.findall("worldbody")
    for world in worlds:
        if world.attrib:
            raise r.error(world, f"<worldbody> takes no attributes (has {', '.join(world.keys())}); MuJoCo refuses "
                                 "them")
    for other in worlds[1:]:
        worlds[0].extend(list(other))  # (an element keeps its source line when moved)
        root.remove(other)


_MAX_HALF_SIZE = 0.5 * np.finfo(float).max
_SITE_SIZE = 0.005  # MuJoCo's size of a site where its size does not say
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def _single_precision(values) -> bool:
    """Whether MuJoCo can hold the numbers in single precision (rounded as it rounds them: FLT_MAX and a hair more
    are FLT_MAX), as it holds a colour."""
    with np.errstate(over="ignore"):
        return not np.any(np.isinf(np.asarray(values, dtype=float).astype(np.float32)))


# the attributes of a default class the import reads, judged where the class is defined: numbers by count, those of
# which MuJoCo reads up to a count, integers, and the keywords of a type
_NUMBERS = {"pos": 3, "quat": 4, "euler": 3, "axisangle": 4, "xyaxes": 6, "zaxis": 3, "fromto": 6, "rgba": 4,
            "axis": 3, "range": 2, "mass": 1, "density": 1, "diaginertia": 3, "fullinertia": 6, "scale": 3}
_LEADING = {"size": 3, "polycoef": 5}
_INTEGERS = ("group", "contype", "conaffinity")
_FROMTO_TYPES = ("capsule", "cylinder", "box", "ellipsoid")  # the geom and site types a fromto may place
_OBJTYPES = ("body", "xbody", "geom", "site", "camera")  # what a frame sensor's objtype may be (MuJoCo 4.0)
_GEOM_TYPES = ("plane", "hfield", "sphere", "capsule", "ellipsoid", "cylinder", "box", "mesh", "sdf")
_TYPE_KEYWORDS = {"geom": _GEOM_TYPES, "site": _GEOM_TYPES, "joint": ("free", "ball", "slide", "hinge")}
# how many of a geom's sizes MuJoCo's compiler uses and requires positive (a plane's third, its grid spacing,
# is checked on its own; a mesh, height field or sdf takes its size from its asset)
_SIZES_USED = {"sphere": ("radius",), "capsule": ("radius", "half-length"), "cylinder": ("radius", "half-length"),
               "ellipsoid": ("x radius", "y radius", "z radius"), "box": ("x half-size", "y half-size", "z half-size")}


def _keyword(r: XmlReader, el: etree._Element, a: dict, key: str, allowed: tuple[str, ...], default: str) -> str:
    """An attribute that takes one of MuJoCo's keywords (exactly as written: MuJoCo refuses "False", "RADIAN")."""
    value = a.get(key, default)
    if value not in allowed:
        raise r.error(el, f"{key}=\"{value}\" is not one of {', '.join(allowed)} (MuJoCo refuses it)")
    return value


def _compiler_keyword(r: XmlReader, root: etree._Element, comp: dict, key: str, allowed: tuple[str, ...],
                      default: str) -> str:
    """_keyword of the <compiler> settings (the last <compiler> giving `key` is the one named)."""
    holder = next((c for c in reversed(root.findall("compiler")) if key in c.attrib), root)
    return _keyword(r, holder, comp, key, allowed, default)


def _over(inherited: dict[str, str], own) -> dict[str, str]:
    """Attributes given over those a class gives (an element's over its class's, a nested class's over its parent's):
    each replaces the inherited one, but for a size or polycoef, of which MuJoCo sets the numbers given and keeps the
    class's others (a class size "0.05 0.5" and a geom's "0.1" make a capsule 0.1 by 0.5; the geom's 0 half-length was
    refused, and a box took 0 for the sizes the class gave)."""
    out = dict(inherited)
    out.update(own)
    for key in _LEADING:
        if key in own and key in inherited:
            mine, theirs = own[key].split(), inherited[key].split()
            out[key] = " ".join(mine + theirs[len(mine):])
    return out


def _group_range(r: XmlReader, root: etree._Element, comp: dict) -> tuple[int, int]:
    """The compiler's inertiagrouprange: two integers, as MuJoCo reads it ("-1e-9 3" was read as a range of
    numbers; MuJoCo refuses it, "bad format")."""
    raw = comp.get("inertiagrouprange")
    if raw is None:
        return 0, 5
    holder = next(c for c in reversed(root.findall("compiler")) if "inertiagrouprange" in c.attrib)
    parts = raw.split()
    if len(parts) != 2 or not all(_INTEGER.fullmatch(p) for p in parts):
        raise r.error(holder, f"inertiagrouprange=\"{raw}\" is not two integers (MuJoCo refuses it)")
    lo, hi = _int32(parts[0]), _int32(parts[1])
    if lo is None or hi is None:
        raise r.error(holder, f"inertiagrouprange=\"{raw}\" is beyond a 32-bit integer (MuJoCo refuses it: 'number is "
                              "too large')")
    return lo, hi


def _integer(r: XmlReader, el: etree._Element, a: dict, key: str, default: int) -> int:
    """An integer attribute as MuJoCo reads one: ASCII digits and a sign, within 32 bits (Python's int() took "1_0"
    for 10, and any size)."""
    raw = a.get(key)
    if raw is None or not raw.strip():  # (none given: MuJoCo's default)
        return default
    if not _INTEGER.fullmatch(raw):
        raise r.error(el, f"{key}=\"{raw}\" is not an integer (MuJoCo refuses it)")
    value = _int32(raw)
    if value is None:
        raise r.error(el, f"{key}=\"{raw}\" is beyond a 32-bit integer (MuJoCo refuses it: 'number is too large')")
    return value


def _int32(raw: str) -> int | None:
    """The value of an _INTEGER text, None beyond 32 bits. Leading zeros are no size (MuJoCo reads 4,400 digits
    '000...01' as 1, where Python's int() refuses more than 4,300 digits: an internal error, found by fuzzing)."""
    text = raw.strip()
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > 10:
        return None
    value = int(digits or "0") * (-1 if text.startswith("-") else 1)
    return value if -2**31 <= value < 2**31 else None


_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")


# MuJoCo's names are unique per kind of object (a body and a site may share one, two sites may not); the
# kinds of the elements each section holds, by tag (every child of <sensor> is a sensor, and so on)
_NAMED_IN_BODIES = {"body": "body", "joint": "joint", "freejoint": "joint", "geom": "geom", "site": "site",
                    "camera": "camera", "light": "light"}
_NAMED_SECTIONS = {"sensor": "sensor", "actuator": "actuator", "tendon": "tendon", "equality": "equality",
                   "keyframe": "key"}
_NAMED_ASSETS = ("mesh", "material", "texture", "hfield")
_FILE_NAMED = ("mesh", "hfield", "texture")


def _check_unique_children(r: XmlReader, root: etree._Element) -> None:
    """Refuse a second child of a kind MuJoCo's schema takes once ("unique element 'inertial' found 2 times"): the
    reader took one of a body's two <inertial>, or of a default class's two <geom>, without a word."""
    for parent in root.iter(*UNIQUE_CHILDREN):
        first: dict[str, int] = {}
        for child in parent:
            if isinstance(child.tag, str) and child.tag in UNIQUE_CHILDREN[parent.tag]:
                if child.tag in first:
                    raise r.error(child, f"a second <{child.tag}> in <{parent.tag}> (the first at line {first[child.tag]}); "
                                         "MuJoCo allows one and refuses the file")
                first[child.tag] = child.sourceline


def _check_unique_names(r: XmlReader, root: etree._Element) -> dict[tuple[str, str], etree._Element]:
    """Refuse a name given twice to objects of one kind, as MuJoCo does ("repeated name 's' in site"): a second
    site of a name was dropped without a word, a second geom or sensor of a name kept under another. Gives the
    element of each (kind, name)."""
    seen: dict[tuple[str, str], etree._Element] = {}

    def note(el: etree._Element, kind: str, name: str | None) -> None:
        if not name:
            return  # (unnamed objects are many and nameless in MuJoCo too)
        first = seen.setdefault((kind, name), el)
        if first is el:
            return
        if first.tag == "worldbody":
            raise r.error(el, "a body is named 'world', the name of MuJoCo's world body; MuJoCo refuses a repeated name")
        how = " (a name taken from the file name where the element has none)" if kind in _FILE_NAMED else ""
        raise r.error(el, f"{kind} name '{name}' is used twice (first at line {first.sourceline}){how}; MuJoCo "
                          "refuses a repeated name")

    for world in root.findall("worldbody"):
        seen.setdefault(("body", "world"), world)
        inside: set[etree._Element] = set()  # what stands in a joint, geom, site, ...: no object MuJoCo makes
        for el in world.iter(*_NAMED_IN_BODIES):
            parent = el.getparent()
            while parent is not world and parent.tag not in _NAMED_IN_BODIES:  # (a frame, a replicate, ...)
                parent = parent.getparent()
            if parent in inside or (parent.tag != "body" and parent is not world):
                inside.add(el)  # (a <body> in a <joint> of a <frame>, which MuJoCo 4.0 reads past unchecked)
                continue
            note(el, _NAMED_IN_BODIES[el.tag], el.get("name"))
    for tag, kind in _NAMED_SECTIONS.items():
        for section in root.findall(tag):
            for el in section:
                if isinstance(el.tag, str):
                    note(el, kind, el.get("name"))
    for asset in root.findall("asset"):
        for el in asset:
            if el.tag in _NAMED_ASSETS:  # (a mesh, height field or texture is named after its file where it has none)
                default = Path(_asset_file(el)).stem if el.tag in _FILE_NAMED else None
                note(el, el.tag, el.get("name") or default)
    return seen


# the attributes by which the elements of the sections the import does not read (actuators, tendons, contact pairs,
# equalities, most sensors) name another object, by its kind; a sensor's objname/refname is of its objtype/reftype
_REFERENCE_SECTIONS = ("actuator", "sensor", "tendon", "contact", "equality")
_REFERENCES = {"joint": "joint", "jointinparent": "joint", "joint1": "joint", "joint2": "joint", "site": "site",
               "refsite": "site", "site1": "site", "site2": "site", "cranksite": "site", "slidersite": "site", "sidesite": "site",
               "body": "body", "body1": "body", "body2": "body", "geom": "geom", "geom1": "geom", "geom2": "geom",
               "tendon": "tendon", "tendon1": "tendon", "tendon2": "tendon", "actuator": "actuator", "camera": "camera",
               "subtree1": "body", "subtree2": "body"}
_OBJECT_KINDS = {"body": "body", "xbody": "body", "geom": "geom", "site": "site", "camera": "camera", "joint": "joint",
                 "tendon": "tendon", "actuator": "actuator"}
_GENERATORS = ("replicate", "attach", "flexcomp", "composite")  # (they make bodies, joints, ... of names of their own)


def _check_references(r: XmlReader, root: etree._Element, names: dict[tuple[str, str], etree._Element],
                      classes: dict) -> None:
    """Refuse a reference to an object the file does not define, as MuJoCo does ("unknown transmission target",
    "unrecognized name of sensorized object"), in the sections the import does not read: the file was read, and
    its actuator or tendon named as not in the model, where MuJoCo builds no model of it. Not judged in a file
    whose <replicate>, <attach>, <flexcomp> or <composite> make objects whose names the file does not spell."""
    if next(root.iter(*_GENERATORS), None) is not None:
        return
    for tag in _REFERENCE_SECTIONS:
        for section in root.findall(tag):
            for el in section.iter():
                if not isinstance(el.tag, str) or el is section:
                    continue
                if el.get("class") is not None and el.get("class") not in classes:
                    raise r.error(el, f"unknown default class '{el.get('class')}' (MuJoCo refuses it)")
                for key, value in el.attrib.items():
                    kind = _REFERENCES.get(key)
                    if key in ("objname", "refname"):
                        kind = _OBJECT_KINDS.get(el.get("objtype" if key == "objname" else "reftype", ""))
                    if kind is not None and (kind, value) not in names:
                        raise r.error(el, f"{key}=\"{value}\" names no {kind} of this file (MuJoCo refuses it)")


def _asset_file(el: etree._Element) -> str:
    """An asset's file= with MuJoCo's separators: a backslash is one, as a slash is (a mesh "dir\\a.stl" is the file
    dir/a.stl, named 'a'; the import named it 'dir\\a' and refused the geoms that use it as 'a')."""
    return el.get("file", "").replace("\\", "/")


def _fitted(kind: str, a: dict) -> bool:
    """Whether a primitive geom is sized by MuJoCo to fit a mesh (its own size is then not the geom's)."""
    return kind != "mesh" and "mesh" in a


# MuJoCo's compiler refuses a direction (a joint axis, zaxis, xyaxes, an axisangle's axis) or a fromto whose squared
# length is below its mjEPS, 1e-14: one shorter than 1e-7 (measured: 1e-7 refused, 1.1e-7 read). The import took any
# length above 1e-12.
_MJ_EPS = 1e-14
_MJ_MIN_LENGTH = 1e-7


def _too_short(v: np.ndarray, scale: float = 1.0) -> bool:
    """Whether `scale` * v is too short for MuJoCo, its squared length computed as MuJoCo's (an overflow is long)."""
    with np.errstate(all="ignore"):
        if scale == 1.0:
            return float(v @ v) < _MJ_EPS
        length = math.sqrt(float(v @ v)) * scale  # (scaled back before squaring: as MuJoCo's rounding)
        return length * length < _MJ_EPS


def _distance(p1: np.ndarray, p2: np.ndarray) -> float:
    """|p2 - p1| as MuJoCo computes it; inf when the difference itself overflows."""
    with np.errstate(over="ignore"):
        return plain_norm(p2 - p1)


def _unit_mass_moments(kind: str, s) -> tuple[float, np.ndarray] | None:
    """Volume and principal moments per unit mass of a primitive geom (None for a mesh), as MuJoCo's
    `inertiafromgeom` computes them."""
    r = s[0]
    if kind == "sphere":
        return 4.0 / 3.0 * math.pi * r ** 3, np.full(3, 0.4 * r * r)
    if kind == "capsule":
        h = 2.0 * s[1]
        vol = math.pi * r * r * h + 4.0 / 3.0 * math.pi * r ** 3
        m_cyl, m_sph = math.pi * r * r * h / vol, 4.0 / 3.0 * math.pi * r ** 3 / vol
        perp = m_cyl * (3 * r * r + h * h) / 12.0 + m_sph * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0)
        return vol, np.array([perp, perp, m_cyl * r * r / 2.0 + m_sph * 0.4 * r * r])
    if kind == "cylinder":
        h = 2.0 * s[1]
        perp = (3 * r * r + h * h) / 12.0
        return math.pi * r * r * h, np.array([perp, perp, r * r / 2.0])
    if kind == "ellipsoid":
        return (4.0 / 3.0 * math.pi * s[0] * s[1] * s[2],
                np.array([s[1] ** 2 + s[2] ** 2, s[0] ** 2 + s[2] ** 2, s[0] ** 2 + s[1] ** 2]) / 5.0)
    if kind == "box":
        return (8.0 * s[0] * s[1] * s[2],
                np.array([s[1] ** 2 + s[2] ** 2, s[0] ** 2 + s[2] ** 2, s[0] ** 2 + s[1] ** 2]) / 3.0)
    return None


__all__ = ["dump", "find_resource", "load", "mujoco_reads"]
