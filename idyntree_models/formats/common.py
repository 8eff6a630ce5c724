"""Helpers several formats need in the same form, kept once here.

Each format reads and writes its own syntax; what is shared is meaning: the six numbers of an
inertia tensor, the force/torque sensor's frame and measure-direction keywords (URDF's iDynTree
extension copies SDF's), how generated names avoid existing ones, how a free body of a scene (SDF's
free link, MJCF's free joint beside other bodies) joins the tree, and how numbers are written so
that they read back bit for bit.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Collection, Iterator

import numpy as np

from ..errors import ModelError, listed
from ..model.model import Extension, Inertia, Joint, JointType, Link, Model
from ..model.transforms import make_transform, rpy_to_matrix
from .base import Diagnostics

INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
FT_FRAMES = ("child", "parent", "sensor")
FT_DIRECTIONS = ("child_to_parent", "parent_to_child")


def inertia_from_six(ixx: float, ixy: float, ixz: float, iyy: float, iyz: float, izz: float) -> np.ndarray:
    """The symmetric tensor of URDF/SDF/SKEL's six entries (off-diagonals are tensor entries, -m*x*y)."""
    return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=float)


def inertia_six(tensor: np.ndarray) -> dict[str, float]:
    """The six entries of a tensor, by the names the XML formats use."""
    t = np.asarray(tensor, dtype=float)
    return {"ixx": float(t[0, 0]), "ixy": float(t[0, 1]), "ixz": float(t[0, 2]),
            "iyy": float(t[1, 1]), "iyz": float(t[1, 2]), "izz": float(t[2, 2])}


def check_ft_keywords(frame: str, direction: str, fail: Callable[[str, str], ModelError], sensor: str) -> None:
    """Refuse an F/T `<frame>` or `<measure_direction>` outside the keywords both formats define.

    `fail(tag, message)` builds the error for the element concerned (the caller knows its line).
    """
    if frame not in FT_FRAMES:
        raise fail("frame", f"force/torque sensor '{sensor}': <frame> must be child, parent or sensor, got '{frame}'")
    if direction not in FT_DIRECTIONS:
        raise fail("measure_direction", f"force/torque sensor '{sensor}': <measure_direction> must be "
                   f"child_to_parent or parent_to_child, got '{direction}'")


def unique_name(base: str, taken: Collection[str] | Callable[[str], bool], suffix: str = "_") -> str:
    """`base` if free, else `base` + suffix + k for the smallest k >= 1 that is free.

    `taken` is a collection or a predicate, so callers can check several namespaces at once.
    """
    used = taken if callable(taken) else taken.__contains__
    if not used(base):
        return base
    k = 1
    while used(f"{base}{suffix}{k}"):
        k += 1
    return f"{base}{suffix}{k}"


MAX_DISTANCE = 1e300
"""Farthest (m) an exporter places anything that its format composes with other poses.

Readers compose poses (SDF: relative to the model, to each other, inverted for joints; URDF: an axis
offset becomes a pose and its inverse on two links): beyond this, sums and differences of coordinates
near the largest double (1.8e308) overflow to infinity or cancel to nothing, and the file reads back
as another model, or not at all.  No robot is 1e300 m long."""


def format_number(x: float, what: str = "value") -> str:
    """Shortest text that reads back to the same double (Python's repr), `-0.0` written as `0.0`.

    Non-finite numbers cannot be written in any of our formats: ModelError naming `what`.
    """
    x = float(x) + 0.0  # -0.0 -> 0.0
    if not math.isfinite(x):
        raise ModelError(f"{what} is {x}, which cannot be written (only finite numbers)")
    return repr(x)


def format_number_list(values, what: str = "value") -> list[str]:
    """format_number of each of `values` (any shape), with one finiteness test for all of them: a writer
    formats thousands of numbers, and a call each was a tenth of a URDF export."""
    if type(values) is list and all(type(x) is float for x in values):  # (most: no array made to flatten)
        flat = values
    elif type(values) is np.ndarray and values.dtype == np.float64:
        flat = values.ravel().tolist()
    else:
        flat = np.ravel(np.asarray(values, dtype=float)).tolist()
    if all(map(math.isfinite, flat)):
        return [repr(x + 0.0) for x in flat]  # + 0.0: -0.0 written as 0.0, as format_number does
    return [format_number(x, what) for x in flat]  # raises, naming `what`


def format_numbers(values, what: str = "value") -> str:
    return " ".join(format_number_list(values, what))


_ROTATIONS: dict[tuple[str, bytes], np.ndarray] = {}  # (convention, angle bits) -> 4x4 with that rotation
_pack3 = struct.Struct("<3d").pack


def remembered_transform(convention: str, angles, build: Callable[[np.ndarray], np.ndarray],
                         position) -> np.ndarray:
    """make_transform(build(angles), position), the rotation remembered by the convention and the angles'
    bits (so -0.0 and 0.0 stay apart).

    Models repeat few rotations (biped.skel: 6 in 80 transformations; iCubGenova04 as SDF: 165 in 429
    poses), and three small numpy matrices and two products per pose are most of a pose's cost; a
    remembered 4x4 copied and given its three position numbers is half of make_transform's.
    """
    key = (convention, _pack3(float(angles[0]), float(angles[1]), float(angles[2])))
    t = _ROTATIONS.get(key)
    if t is None:
        if len(_ROTATIONS) >= 4096:
            _ROTATIONS.clear()
        t = _ROTATIONS[key] = make_transform(build(angles))
    out = t.copy()
    out[0, 3], out[1, 3], out[2, 3] = position[0], position[1], position[2]
    return out


__all__ = [
    "MAX_DISTANCE",
    "remembered_transform",
    "FT_DIRECTIONS",
    "FT_FRAMES",
    "INERTIA_KEYS",
    "check_ft_keywords",
    "format_number",
    "format_number_list",
    "format_numbers",
    "inertia_from_six",
    "inertia_six",
    "unique_name",
]


# A free body's six 1-DOF joints, in order: translations along the base's axes, then yaw, pitch, roll
FREE_JOINT_AXES = (("x", JointType.PRISMATIC, 0), ("y", JointType.PRISMATIC, 1), ("z", JointType.PRISMATIC, 2),
                   ("yaw", JointType.REVOLUTE, 2), ("pitch", JointType.REVOLUTE, 1), ("roll", JointType.REVOLUTE, 0))


def free_chain_names(prefix: str) -> tuple[list[str], list[str]]:
    """The six joints and five massless links of a free chain whose free joint is named `prefix`."""
    return [f"{prefix}_{a}" for a, _, _ in FREE_JOINT_AXES], [f"{prefix}_link{k}" for k in range(1, 6)]


def default_free_prefix(link: str) -> str:
    """The free joint's name where the file gives none (SDF never does): the chain is named after the link."""
    return f"{link}_free"


def free_chain(model: Model, base: str, link: str, base_H_link: np.ndarray, prefix: str | None = None) -> dict:
    """Join `link` to `base` by six 1-DOF joints (FREE_JOINT_AXES) through five massless links, so that a body
    that moves freely is in the tree; all zero is the link's initial pose.  Names start with `prefix` (the
    file's name for the free joint), else `<link>_free`, made unique.  Returns the model.metadata["free_bodies"]
    entry that exporters use to write the body free again."""

    def taken(p: str) -> bool:
        joints, links = free_chain_names(p)
        return any(n in model.joints or model.has_frame(n) or n in model.sensors for n in (*joints, *links))

    prefix = unique_name(prefix or default_free_prefix(link), taken)
    names, middle = free_chain_names(prefix)
    axes_in_link = base_H_link[:3, :3].T  # column i: base axis i in the link's (and the chain's) axes
    chain = [base, *middle, link]
    for k, ((_, kind, axis), name) in enumerate(zip(FREE_JOINT_AXES, names)):
        if k > 0:
            model.links[chain[k]] = Link(chain[k], Inertia(0.0))
        rest = base_H_link if k == 0 else np.eye(4)
        model.joints[name] = Joint(name, kind, chain[k], chain[k + 1], rest, axis=axes_in_link[:, axis].copy())
    return {"base": base, "joints": names, "links": middle}


def intact_free_chains(model: Model) -> Iterator[tuple[str, dict, list[Joint]]]:
    """(link, model.metadata["free_bodies"] entry, its six joints) of each free chain that still looks as
    free_chain made it: its joints there and ending in the link, none limited or a mimic, no frame or sensor
    riding on its massless links.  An exporter may write such a body free again (SDF: a free link; MJCF: a
    <freejoint>); a chain a user changed stays a chain of joints."""
    carrying = {s.frame_link for s in model.sensors.values()} | {f.parent_link for f in model.frames.values()}
    for link, info in (model.metadata.get("free_bodies") or {}).items():
        chain = [model.joints.get(j) for j in info.get("joints", [])]
        if link not in model.links or len(chain) != 6 or any(j is None for j in chain):
            continue
        if chain[-1].child != link or any(j.limits.has_position_limits or j.mimic for j in chain):
            continue
        if any(n in carrying for n in info.get("links", [])):  # something rides on the chain: keep it
            continue
        yield link, info, chain


def free_chains_said(info: dict[str, dict]) -> tuple[str, str]:
    """The free bodies of `info` (model.metadata["free_bodies"]) as a warning names them, and how they were
    joined, for the readers that make free chains (one wording for both)."""
    names = list(info)
    shown = ", ".join(f"'{n}'" for n in names[:10]) + (" ..." if len(names) > 10 else "")
    first = info[names[0]]["joints"]
    how = ("by a free joint made of prismatic x, y, z and revolute yaw, pitch, roll joints through massless links "
           f"(e.g. '{first[0]}' ... '{first[-1]}')")
    return shown, how


def binary_stl_triangles(head: bytes, size: int) -> int | None:
    """The triangle count of a binary STL file (an 80-byte header, a count, 50 bytes a triangle) from its first 84
    bytes and its size; None when the size says it is no binary STL (an ASCII one)."""
    if len(head) < 84:
        return None
    count = int.from_bytes(head[80:84], "little")
    return count if size == 84 + 50 * count else None


def report_initial_configuration(model: Model, fmt: str, diag: Diagnostics) -> None:
    """One warning when the model starts away from its zero configuration (SKEL's <init_pos>), which no
    exporter writes: the file written starts at zero."""
    moved = []
    for name, value in model.initial_configuration.items():
        joint = model.joints.get(name)
        rest = [1.0, 0.0, 0.0, 0.0] if joint is not None and joint.type is JointType.SPHERICAL else 0.0
        if np.any(np.asarray(value, dtype=float) != np.asarray(rest)):
            moved.append(f"{name} = {value}")
    what = [f"{len(moved)} joint(s) ({listed(moved, 5)})"] if moved else []
    initial, pose = model.metadata.get("initial_base_pose"), model.metadata.get("base_pose")  # (SKEL's free base)
    if initial is not None and not np.array_equal(np.asarray(initial, dtype=float), np.asarray(pose, dtype=float)):
        what.append(f"the base (at {format_numbers(np.asarray(initial, dtype=float)[:3, 3], 'the base pose')})")
    if what:
        diag.warn(f"the initial configuration of {' and of '.join(what)} is not written: {fmt} has no field for it, so "
                  "the model written starts at the zero configuration")


def report_frame_joints(model: Model, fmt: str, diag: Diagnostics, written: Collection[str] = ()) -> None:
    """One warning naming the fixed joints of frames that were links joined by them (model.metadata "frame_joints":
    massless links of the source, links a reduction lumped), for the exporters that write frames (SDF, JSON).

    Left out: the frames in `written` (the exporter writes their joint) and a joint named `<frame>_fixed_joint` from
    the frame's link to it, which the URDF exporter makes again from the frame alone (iDynTree's own exports)."""
    from ..model.topology import root_frame

    frame_joints = model.metadata.get("frame_joints") or {}
    if not frame_joints:
        return
    top = root_frame(model)
    joints = []
    for name, fj in frame_joints.items():
        frame = model.frames.get(name)
        if frame is None or name in written or (fj.joint == f"{name}_fixed_joint" and name != top):
            continue
        above = f", the parent of '{frame.parent_link}' there" if name == top else ""
        joints.append(f"'{fj.joint}' ('{name}'{above})")
    if joints:
        diag.warn(f"the fixed joints of {len(joints)} frame(s) that were links joined by them (massless links of the "
                  f"source, or links a reduction lumped) are not written ({fmt} writes frames): {listed(joints, 5)}")


def report_source_structure(model: Model, fmt: str, diag: Diagnostics) -> None:
    """Warnings naming how the source attached or placed things that `fmt` writes in another way, or not at all.

    A massless link with one fixed joint is a frame here (iDynTree's rule): the URDF exporter writes it back as that
    link and joint, under the joint's name and in its direction (model.metadata "frame_joints", Shape.source_frame),
    MJCF keeps the joints in its extras, and the SDF writer names those it does not write (report_frame_joints); JSON
    is named here. Shapes such links carried are written on the link the frame is fixed to, but in URDF. SDF's fixed
    joints to the world ("sdf_world_joints") SDF, URDF and MJCF write or name; JSON is named here. SDF's `<static>`
    only SDF writes; the base's pose in the world ("base_pose", MJCF and SKEL) only MJCF.
    """
    if fmt == "idyntree-model-json":
        report_frame_joints(model, "idyntree-model-json", diag)
    if fmt != "urdf":
        moved = [f"{kind} '{shape.name or '(unnamed)'}' of '{shape.source_frame}' on '{link.name}'"
                 for link in model.links.values()
                 for kind, shapes in (("visual", link.visuals), ("collision", link.collisions))
                 for shape in shapes if shape.source_frame is not None and shape.source_frame in model.frames]
        if moved:
            diag.warn(f"{len(moved)} shape(s) of links that are frames here are written on the links those are fixed "
                      f"to ({fmt} has no shapes on frames): {listed(moved, 5)}")
    if fmt == "idyntree-model-json":
        report_world_joints(model, fmt, diag, written=())
    if model.metadata.get("static") and fmt != "sdf":
        diag.warn(f"the model is static in SDF (it stays where it is, whatever its joints): {fmt} has no such flag, so "
                  "the model written moves")
    p = moved_base_pose(model)
    base = model.default_base_link
    if p is not None and fmt != "mjcf" and not base_pose_held(model, base, p, fmt):
        diag.warn(f"the pose of the base '{base}' in the world (at {format_numbers(p[:3, 3], 'the base pose')}) is not "
                  f"written: the {fmt} written has its base at the origin")


def base_pose_held(model: Model, base: str | None, world_H_base: np.ndarray, fmt: str) -> bool:
    """Whether `fmt` writes the base's pose in the world another way: a frame 'world' on the base at that pose (a
    URDF `world` link, which every format writes), or an SDF fixed joint from the world to the base there, which
    URDF writes as its world joint and SDF (without a kept model <pose>) as the model's pose (both come back from
    our MJCF export's extras, beside the body's pos)."""
    world = model.frames.get("world")
    if world is not None and world.parent_link == base:
        with np.errstate(all="ignore"):
            return bool(np.allclose(world.link_H_frame @ world_H_base, np.eye(4), rtol=0.0, atol=1e-9))
    joint = base_world_joint(model, base) if base is not None and fmt in ("urdf", "sdf") else None
    if joint is None or (fmt == "sdf" and kept_placement(model)[0] is not None):
        return False
    return bool(np.allclose(np.array(model.metadata["sdf_world_joints"][joint]["model_H_child"]), world_H_base,
                            rtol=0.0, atol=1e-12))


def moved_base_pose(model: Model) -> np.ndarray | None:
    """The base's pose in the world (model.metadata "base_pose": an MJCF body's pos, a SKEL skeleton's pose) when it
    is not the origin."""
    pose = model.metadata.get("base_pose")
    if pose is None:
        return None
    p = np.asarray(pose, dtype=float)
    return None if np.array_equal(p, np.eye(4)) else p


def base_world_joint(model: Model, base: str) -> str | None:
    """The SDF fixed joint from the world to `base` (model.metadata "sdf_world_joints", which the SDF reader folds
    away), if any: the URDF and MJCF exporters put the base where it puts it.  A link fixed to the world beside the
    base is joined to it by a joint of the model ("joined_to_base_by"), and is not this."""
    return next((name for name, d in (model.metadata.get("sdf_world_joints") or {}).items()
                 if d.get("child") == base and "joined_to_base_by" not in d), None)


def kept_placement(model: Model) -> tuple[Extension | None, Extension | None]:
    """The SDF reader's kept <pose> of the top model in its world, and its kept placement frame (an attribute of
    <model>), each None where there is none."""
    pose = placement = None
    for e in model.extensions:
        if e.format == "sdf" and e.owner_kind == "model" and e.owner is None:
            if e.tag == "pose":
                pose = e
            elif e.tag == "model" and e.attributes and "placement_frame" in e.xml:
                placement = e
    return pose, placement


def pose_text_transform(text: str | None) -> np.ndarray | None:
    """The transform of an SDF <pose>'s text, x y z roll pitch yaw: the identity for none or blank (as libsdformat
    reads an empty pose), None where it is not six numbers."""
    try:
        v = [float(x) for x in (text or "").split()]
    except ValueError:
        return None
    if not v:
        return make_transform()
    return make_transform(rpy_to_matrix(v[3:6]), v[:3]) if len(v) == 6 else None


def held_placement(model: Model, base: str) -> tuple[np.ndarray, tuple[Extension, ...]] | None:
    """The pose in the world of `base` (the root link) where an SDF fixed joint holds it there, and the kept model
    <pose> (and placement frame) that give it: (world_H_base, those extensions).

    A model's pose in its world is no part of the model (kept as an SDF element), but a fixed joint to the world
    holds its child where the model's pose puts it: URDF's world joint and MJCF's welded base hold that pose. The
    SDF reader keeps the pose composed with the base's pose in the model (world_H_base), or, with a placement frame
    (kept beside it), the pose of that frame (world_H_frame). None where there is no such joint or pose, or the
    placement frame is none of the model's links and frames."""
    if base_world_joint(model, base) is None:
        return None
    pose, placement = kept_placement(model)
    if pose is None:
        return None
    from .xmlutil import fragment  # (lxml: not imported by every exporter)

    world_H = pose_text_transform(fragment(pose.xml).text)
    if world_H is None:  # (the reader wrote it: six numbers)
        return None
    if placement is not None:
        frame = (fragment(placement.xml).get("placement_frame") or "").strip()
        if frame not in model.links and frame not in model.frames:
            return None
        from ..model.kinematics import Kinematics

        world_H = world_H @ np.linalg.inv(Kinematics(model).world_transforms({})[frame])  # (base_H_frame at rest)
        return world_H, (pose, placement)
    return world_H, (pose,)


def report_world_joints(model: Model, fmt: str, diag: Diagnostics, written: Collection[str], why: str = "") -> None:
    """One warning naming SDF's fixed joints to the world (model.metadata "sdf_world_joints") that an exporter does
    not write: those not in `written`, and not made a joint of the model (a link fixed to the world beside the base
    is joined to the base by a fixed joint of that name)."""
    lost = [f"'{name}' to '{d.get('child')}'" for name, d in (model.metadata.get("sdf_world_joints") or {}).items()
            if name not in written and d.get("joined_to_base_by") not in model.joints]
    if lost:
        diag.warn(f"SDF's fixed joint(s) from the world ({listed(lost, 5)}) are not written: "
                  f"{why or f'{fmt} has no joint to the world'}, so the model written is not fixed there")


def report_materials(model: Model, fmt: str, diag: Diagnostics, *, names: bool, collisions: bool) -> None:
    """One warning naming what of the shapes' materials `fmt` has no place for: the names (`names` False), the
    materials of collisions (`collisions` False), textures (no exporter but URDF's and JSON's writes them).

    An SDF model's material names are its scripts' (kept with the script, and written back by the SDF writer)."""
    kept_names = names or "sdf_version" in model.metadata
    named: dict[str, None] = {}  # (ordered sets: each name once, in the order met)
    textures: dict[str, None] = {}
    coloured = 0
    for link in model.links.values():
        for kind, shapes in (("visual", link.visuals), ("collision", link.collisions)):
            for shape in shapes:
                m = shape.material
                if m is None:
                    continue
                if kind == "collision" and not collisions:
                    coloured += 1
                    continue
                if m.name and not kept_names:
                    named[m.name] = None
                if m.texture:
                    textures[m.texture] = None
    lost = []
    if named:
        lost.append(f"the names of {len(named)} material(s) ({listed(list(named), 5)})")
    if textures:
        lost.append(f"{len(textures)} texture(s) ({listed(list(textures), 3)})")
    if coloured:
        lost.append(f"the materials of {coloured} collision shape(s)")
    if lost:
        diag.warn(f"the {fmt} exporter has no place for {' and '.join(lost)}: not written")
