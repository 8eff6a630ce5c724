"""Checks that a model is a physically meaningful tree.

Loaders call `validate` last so that no format can hand out a half-valid model; each problem is
reported with the element it belongs to.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ..errors import ModelError
from .model import ForceTorqueSensor, Joint, JointType, Link, LinkSensor, Model, Sensor
from .topology import TreeOrder, tree_order
from .transforms import unit_vector

log = logging.getLogger(__name__)

# Published robots (CAD exports) carry inertias that are indefinite by rounding-level amounts;
# below this magnitude a negative principal moment is reported, not refused.
NEGLIGIBLE_INERTIA = 1e-6


def symmetric_eigenvalues(m: np.ndarray) -> list[float]:
    """Sorted eigenvalues of a symmetric 3x3 matrix in closed form (Smith's method).

    Called for every link of every model loaded; LAPACK's per-call overhead dominates at 3x3.
    The matrix is scaled to entries of at most 1 first, so that no square overflows (an inertia
    entry of 1e155 squared is beyond a double) or underflows; an eigenvalue beyond the range of a
    double comes back as inf.
    """
    s = float(np.max(np.abs(m)))
    if s == 0.0:
        return [0.0, 0.0, 0.0]
    return [e * s for e in _unit_scale_eigenvalues((np.asarray(m, dtype=float) / s).tolist())]


def _unit_scale_eigenvalues(a: list[list[float]]) -> list[float]:
    """symmetric_eigenvalues for entries in [-1, 1] (rows of floats): no intermediate value can overflow."""
    p1 = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2]
    q = (a[0][0] + a[1][1] + a[2][2]) / 3.0
    if p1 == 0.0:
        return sorted([a[0][0], a[1][1], a[2][2]])
    d0, d1, d2 = a[0][0] - q, a[1][1] - q, a[2][2] - q
    p2 = d0 * d0 + d1 * d1 + d2 * d2 + 2.0 * p1
    p = math.sqrt(p2 / 6.0)
    b = [[(a[r][c] - (q if r == c else 0.0)) / p for c in range(3)] for r in range(3)]
    det_b = (
        b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
        - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
        + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])
    )
    r = max(-1.0, min(1.0, det_b / 2.0))
    phi = math.acos(r) / 3.0
    e1 = q + 2.0 * p * math.cos(phi)
    e3 = q + 2.0 * p * math.cos(phi + 2.0 * math.pi / 3.0)
    return sorted([e1, 3.0 * q - e1 - e3, e3])


def check_inertia(mass, com, inertia, element: str, tol: float = 1e-9, reject_impossible: bool = False) -> list[str]:
    """Raise for inertia that is not numbers; return warnings for physically impossible values.

    Non-finite numbers and asymmetric tensors are errors: they are not an inertia at all.  Negative
    mass, a tensor that is not positive semi-definite and a violated triangle inequality describe no
    rigid body, but the reference loaders of URDF and iDynTree JSON (iDynTree, urdfdom, pinocchio)
    load such published robots as written, so they are warnings here too (`strict` makes them
    errors).  `reject_impossible` makes negative mass and indefinite tensors errors, for formats
    whose reference refuses them (libsdformat).
    Every test is done on the tensor scaled to entries of at most 1, so any finite input (up to
    1.8e308) is judged without overflow.
    """
    warnings: list[str] = []
    # plain floats: numpy's per-call cost was most of this (12 us a link), and SDF checks every link as it
    # reads it; the operations are numpy's, element by element (same results)
    i = np.asarray(inertia, dtype=float)
    if i.shape != (3, 3):
        raise ModelError(f"rotational inertia must be a 3x3 matrix, got shape {i.shape}", element=element)
    rows = i.tolist()
    flat = rows[0] + rows[1] + rows[2]
    if not (math.isfinite(mass) and all(map(math.isfinite, np.asarray(com, dtype=float).ravel().tolist()))
            and all(map(math.isfinite, flat))):
        raise ModelError("inertial values must be finite numbers", element=element)
    if mass < 0:
        if reject_impossible:
            raise ModelError(f"mass {mass} is negative", element=element)
        warnings.append(f"{element}: mass {mass} is negative (no rigid body has it); kept as written")
    s = max(map(abs, flat))
    if s == 0.0:
        return warnings
    u = [[x / s for x in row] for row in rows]  # |u| <= 1; absolute tolerances below are divided by s accordingly
    rel = max(1.0, s) / s  # the tolerances are relative to max(1, |I|)
    if max(abs(u[0][1] - u[1][0]), abs(u[0][2] - u[2][0]), abs(u[1][2] - u[2][1])) > tol * rel:
        raise ModelError("rotational inertia is not symmetric", element=element)
    eig = _unit_scale_eigenvalues(u)
    if eig[0] < -1e-9 * rel:
        moments = [e * s for e in eig]
        if moments[0] >= -NEGLIGIBLE_INERTIA:
            warnings.append(
                f"{element}: rotational inertia is not positive semi-definite (smallest principal moment "
                f"{moments[0]:.3g} kg m^2), by less than {NEGLIGIBLE_INERTIA:g} kg m^2; kept as written"
            )
        else:
            if reject_impossible:
                raise ModelError(f"rotational inertia is not positive semi-definite (principal moments {moments})",
                                 element=element)
            warnings.append(
                f"{element}: rotational inertia is not positive semi-definite (principal moments "
                f"{', '.join(f'{x:.3g}' for x in moments)} kg m^2): no rigid body has it; kept as written, as "
                "iDynTree and Gazebo load it"
            )
            return warnings  # the triangle inequality means nothing for an indefinite tensor
    a, b, c = eig
    if c > 0 and a + b < c - 1e-6 * max(c, 1e-12 / s):
        warnings.append(
            f"{element}: principal moments {[float(x * s) for x in (a, b, c)]} violate the triangle "
            "inequality (no rigid body has this inertia)"
        )
    return warnings


def locate(error: ModelError, model: Model, source: str | None = None) -> ModelError:
    """Give an error about a model element the line the loader recorded for it (metadata["lines"])."""
    lines = model.metadata.get("lines", {})
    if error.line is None and error.element is not None and error.element in lines:
        error.line = lines[error.element]
        error.args = (str(error),)
    return error.with_source(source)


def _joint_numbers(joint) -> dict[str, float]:
    lim, dyn, mimic = joint.limits, joint.dynamics, joint.mimic
    out = {"lower": lim.min_position, "upper": lim.max_position, "effort": lim.effort_limit,
           "velocity": lim.velocity_limit}
    if dyn is not None:
        out.update(damping=dyn.damping, friction=dyn.friction)
    if mimic is not None:
        out.update(multiplier=mimic.multiplier, offset=mimic.offset)
    return out


def _nan_in(joint) -> bool:
    lim = joint.limits
    if lim.min_position != lim.min_position or lim.max_position != lim.max_position or \
            lim.effort_limit != lim.effort_limit or lim.velocity_limit != lim.velocity_limit:
        return True
    dyn, mimic = joint.dynamics, joint.mimic
    return (dyn is not None and (dyn.damping != dyn.damping or dyn.friction != dyn.friction)) or \
        (mimic is not None and (mimic.multiplier != mimic.multiplier or mimic.offset != mimic.offset))


def check_mimics(model: Model, mimics: list[Joint] | None = None) -> None:
    """Every mimic joint follows an existing, independent 1-DOF joint.

    A joint that mimics itself, a cycle of mimics, or a chain (a mimic of a mimic) has no position
    that Kinematics (or robot_state_publisher) could compute, so it is refused where it is loaded.
    `mimics`: the model's joints that have a mimic, in order, when the caller found them.
    """
    for joint in model.joints.values() if mimics is None else mimics:
        if joint.mimic is None:
            continue
        el = f"joint '{joint.name}'"
        name = joint.mimic.joint
        master = model.joints.get(name)
        if master is None:
            raise ModelError(f"mimics '{name}', which is not a joint of the model", element=el)
        if master.dofs != 1 or joint.dofs != 1:
            raise ModelError("mimic joints must be 1-DOF and follow a 1-DOF joint", element=el)
        if master is joint:
            raise ModelError("mimics itself; a mimic joint must follow another, independent joint", element=el)
        if master.mimic is not None:
            seen = [joint.name, name]
            nxt = master.mimic.joint
            while nxt in model.joints and model.joints[nxt].mimic is not None and nxt not in seen:
                seen.append(nxt)
                nxt = model.joints[nxt].mimic.joint
            if nxt in seen:
                loop = " -> ".join(f"'{n}'" for n in seen[seen.index(nxt):] + [nxt])
                raise ModelError(f"mimic joints form a cycle ({loop}): none of them has a position", element=el)
            raise ModelError(
                f"mimics '{name}', which itself mimics '{master.mimic.joint}': a mimic joint must follow an "
                "independent joint (compose the multipliers and offsets)",
                element=el,
            )


def _inertia_suspects(links: list) -> list[int]:
    """Indices of the links whose inertia `check_inertia` may refuse or warn about, found for all at once.

    A model of 100,000 links would spend seconds in the per-link checks; here numpy tests every
    tensor in one go (inertia_suspects), and only the suspects go through check_inertia itself (which
    has the last word and writes the message).
    """
    if not links:
        return []
    return inertia_suspects(np.array([link.inertia.mass for link in links]),
                            np.array([link.inertia.com for link in links]).reshape(-1, 3),
                            np.array([link.inertia.inertia for link in links]).reshape(-1, 3, 3))


def inertia_suspects(mass: np.ndarray, com: np.ndarray, tensor: np.ndarray) -> list[int]:
    """_inertia_suspects of the stacked masses (n), centres of mass (n x 3) and tensors (n x 3 x 3), with
    tolerances half as strict as check_inertia's.  A reader that computed its links' inertias stacked screens
    them there (gathering them again from the links is most of the screen's time: 16 of 18 ms for 10,000)."""
    if not len(mass):
        return []
    with np.errstate(all="ignore"):
        finite = np.isfinite(mass) & np.isfinite(com).all(axis=1) & np.isfinite(tensor).all(axis=(1, 2))
        suspect = ~finite | (mass < 0)
        s = np.where(finite, np.abs(np.where(finite[:, None, None], tensor, 0.0)).max(axis=(1, 2)), 0.0)
        check = np.flatnonzero(finite & (s > 0))
        if check.size:
            sc = s[check]
            u = tensor[check] / sc[:, None, None]
            rel = np.maximum(1.0, sc) / sc
            asym = np.abs(u - u.transpose(0, 2, 1)).max(axis=(1, 2)) > 0.5e-9 * rel
            sym = 0.5 * (u + u.transpose(0, 2, 1))
            suspect[check] |= asym
            if len(check) > GERSHGORIN_ABOVE:
                # Both eigenvalue tests pass when (tr/2) I - sym is positive semidefinite (then the largest
                # principal moment is at most half the trace, so the other two add up to at least it and
                # the smallest is >= 0), which its Gershgorin discs show without eigenvalues for most
                # tensors; eigvalsh (47 ms for 100,000) runs on the others.  Exactly the screen's verdict:
                # a tensor that passes has its largest eigenvalue >= 2/3 (the entries are scaled to at
                # most 1), so rounding (1e-15) stays far inside the tolerances (test_validation_screens).
                d0, d1, d2 = sym[:, 0, 0], sym[:, 1, 1], sym[:, 2, 2]
                o01, o02, o12 = np.abs(sym[:, 0, 1]), np.abs(sym[:, 0, 2]), np.abs(sym[:, 1, 2])
                h = 0.5 * (d0 + d1 + d2)
                rest = np.flatnonzero((h - d0 < o01 + o02) | (h - d1 < o01 + o12) | (h - d2 < o02 + o12))
            else:
                rest = np.arange(len(check))
            if rest.size:
                eig = np.linalg.eigvalsh(sym[rest])  # ascending
                r, sr = rel[rest], sc[rest]
                indefinite = eig[:, 0] < -0.5e-9 * r
                a, b, c = eig[:, 0], eig[:, 1], eig[:, 2]
                triangle = (c > 0) & (a + b < c - 0.5e-6 * np.maximum(c, 1e-12 / sr))
                suspect[check[rest]] |= indefinite | triangle
    return np.flatnonzero(suspect).tolist()


# links above which the screen runs: all of them.  Counted (callgrind), the screen's extra numpy calls cost
# less than the eigenvalues they save even on small models: biped.skel (32 links) 607 k -> 527 k instructions
# per call, iCubGenova02 762 k -> 668 k, tiago_dual 1.62 M -> 1.36 M.  (A test sets it higher, for the verdict
# of the eigenvalues alone.)
GERSHGORIN_ABOVE = 0


def _rigid(t: np.ndarray) -> np.ndarray:
    """Which of the transforms `t` (n x 4 x 4) are finite, with a rotation block orthonormal and of
    determinant 1 to within 1e-6.

    Spelled out over the nine entries rather than as a stacked matmul and LAPACK determinant: three
    times faster on 100,000 transforms (every joint and shape of a huge model), and NaN simply fails.
    """
    with np.errstate(all="ignore"):
        (a0, a1, a2), (b0, b1, b2), (c0, c1, c2) = (t[:, i, :3].T for i in range(3))
        ok = np.isfinite(t).all(axis=(1, 2))
        for v in (a0 * a0 + a1 * a1 + a2 * a2, b0 * b0 + b1 * b1 + b2 * b2, c0 * c0 + c1 * c1 + c2 * c2):
            ok &= np.abs(v - 1.0) < 1e-6
        for v in (a0 * b0 + a1 * b1 + a2 * b2, a0 * c0 + a1 * c1 + a2 * c2, b0 * c0 + b1 * c1 + b2 * c2):
            ok &= np.abs(v) < 1e-6
        det = a0 * (b1 * c2 - b2 * c1) - a1 * (b0 * c2 - b2 * c0) + a2 * (b0 * c1 - b1 * c0)
        ok &= np.abs(det - 1.0) < 1e-6
    return ok


_ZERO3 = np.zeros(3)  # an axis origin not given


class _Joints:
    """The joints' values validation judges stacked, gathered in one pass over them (each pass over a huge
    model's joints costs its cache misses: five passes were 25 ms of a 10,000-link load, this one is 8)."""

    def __init__(self, model: Model) -> None:
        self.joints = joints = list(model.joints.values())
        self.rests: list[np.ndarray] = []
        self.origins: list[np.ndarray] = []
        self.moving: list[Joint] = []  # revolute and prismatic, in order
        self.axes: list[np.ndarray] = []
        self.spherical: list[Joint] = []
        self.odd: list[Joint] = []  # those that may have a NaN, limits the wrong way round or a mimic: in order
        rests, origins, moving, axes = self.rests, self.origins, self.moving, self.axes
        revolute, prismatic, spherical = JointType.REVOLUTE, JointType.PRISMATIC, JointType.SPHERICAL
        for j in joints:
            rests.append(j.rest_transform)
            origin = j.axis_origin
            origins.append(_ZERO3 if origin is None else origin)
            kind = j.type
            if kind in (revolute, prismatic):  # (equality, not identity: a model built in code may say "revolute")
                moving.append(j)
                axes.append(j.axis)
            elif kind == spherical:
                self.spherical.append(j)
            lim = j.limits
            # (a NaN fails every comparison, so `not lower <= upper` also finds one in either)
            if not lim.min_position <= lim.max_position or lim.effort_limit != lim.effort_limit or \
                    lim.velocity_limit != lim.velocity_limit or j.dynamics is not None or j.mimic is not None:
                self.odd.append(j)


def _check_joint_frames(model: Model, rigid: np.ndarray | None = None, table: _Joints | None = None) -> None:
    """Rest transforms rigid and finite, 1-DOF axes finite and non-zero (normalised), for all joints at once.

    `rigid` is _rigid's verdict on the rest transforms when the caller judged them with other poses (one
    stacked check costs what each of two does: a small model's checks are numpy's per-call cost), `table`
    the joints' values when the caller gathered them."""
    if table is None:
        table = _Joints(model)
    joints = table.joints
    if not joints:
        return
    if rigid is None:
        rigid = _rigid(np.array(table.rests, dtype=float).reshape(-1, 4, 4))
    bad = np.flatnonzero(~rigid)
    if bad.size:
        raise ModelError("rest transform is not a finite rigid transform", element=f"joint '{joints[bad[0]].name}'")
    # the points joints move about: computed by some readers and by reduce, where finite numbers can overflow
    # (axis origins of all joints at once: a loop of isfinite calls was 3% of a 100,000-link load)
    for joint in table.spherical:
        if joint.center is not None and not np.isfinite(joint.center).all():
            raise ModelError("spherical joint centre is not finite", element=f"joint '{joint.name}'")
    origins = np.array(table.origins).reshape(-1, 3)
    bad = np.flatnonzero(~np.isfinite(origins).all(axis=1))
    if bad.size:
        raise ModelError("joint axis origin is not finite", element=f"joint '{joints[bad[0]].name}'")
    moving = table.moving
    if not moving:
        return
    axes = np.array(table.axes).reshape(-1, 3)
    with np.errstate(all="ignore"):
        # every axis finite and of length 1 to within 1e-9, as loaders give them (|n - 1| <= |n^2 - 1| for n >= 0):
        # nothing to refuse or normalise, in two numpy calls instead of the eight below (a NaN fails the test)
        if (np.abs(np.einsum("ij,ij->i", axes, axes) - 1.0) <= 1e-9).all():
            return
        finite = np.isfinite(axes).all(axis=1)
        m = np.abs(np.where(finite[:, None], axes, 0.0)).max(axis=1)
        safe = np.where(m > 0, m, 1.0)
        norm = m * np.linalg.norm(axes / safe[:, None], axis=1)
    for k in np.flatnonzero(~finite | (norm < 1e-12) | (np.abs(norm - 1.0) > 1e-9)).tolist():
        joint = moving[k]
        el = f"joint '{joint.name}'"
        if not finite[k]:
            raise ModelError("joint axis must be finite", element=el)
        if norm[k] < 1e-12:
            raise ModelError("joint axis has zero length", element=el)
        joint.axis = unit_vector(joint.axis)


def _other_poses(model: Model) -> tuple[list, list, list, list[np.ndarray]]:
    """The frames, the sensor of each sensor pose, the shapes, and all their poses in that order (_check_poses)."""
    frames = list(model.frames.values())
    sensors: list[Sensor] = []
    sensor_poses: list[np.ndarray] = []
    for sensor in model.sensors.values():
        for attr in ("link_H_sensor", "first_link_H_sensor", "second_link_H_sensor"):
            pose = getattr(sensor, attr, None)
            if pose is not None:
                sensors.append(sensor)
                sensor_poses.append(pose)
    shapes: list = []
    for link in model.links.values():
        if link.visuals:
            shapes += link.visuals
        if link.collisions:
            shapes += link.collisions
    return frames, sensors, shapes, [f.link_H_frame for f in frames] + sensor_poses + [s.link_H_geometry for s in shapes]


def _check_poses(model: Model, gathered: tuple[list, list, list, list[np.ndarray]], rigid: np.ndarray) -> None:
    """Every other pose of the model (frames, sensors, shapes) a finite rigid transform, shape sizes finite.

    A reader that computes a pose (MJCF's xyaxes, fromto) from huge or degenerate numbers must not hand
    out a NaN or a non-rotation that an exporter would write and its reader refuse; checked in one go,
    each kind of size in one array (the owners' names are only looked up for the message).  `gathered` is
    _other_poses(model) and `rigid` _rigid's verdict on its poses (judged with the rest transforms, _validate).
    """
    frames, sensors, shapes, poses = gathered
    if poses:
        bad = np.flatnonzero(~rigid)
        if bad.size:
            k = int(bad[0])
            if k < len(frames):
                raise ModelError("a pose is not a finite rigid transform", element=f"frame '{frames[k].name}'")
            if k < len(frames) + len(sensors):
                raise ModelError("a pose is not a finite rigid transform",
                                 element=f"sensor '{sensors[k - len(frames)].name}'")
            shape = shapes[k - len(frames) - len(sensors)]
            raise ModelError("a pose (of a visual or collision shape) is not a finite rigid transform",
                             element=f"link '{_owner(model, shape)}'")
    kinds = {type(s) for s in shapes}
    for kind in kinds:
        members = shapes if len(kinds) == 1 else [s for s in shapes if type(s) is kind]
        for attr in _SIZES.get(kind.__name__, ()):
            if not np.isfinite(np.array([getattr(s, attr) for s in members], dtype=float)).all():
                for link in model.links.values():  # the first in the document's order, for the message
                    for shape in link.visuals + link.collisions:
                        for name in _SIZES.get(type(shape).__name__, ()):
                            if not np.isfinite(getattr(shape, name)).all():
                                raise ModelError(f"the {shape.kind} {name} is not finite", element=f"link '{link.name}'")


def _owner(model: Model, shape: object) -> str:
    """The link holding `shape` (for a message: a search, as no shape knows its link)."""
    return next(link.name for link in model.links.values()
                if any(s is shape for s in link.visuals) or any(s is shape for s in link.collisions))


_SIZES = {"Box": ("size",), "Sphere": ("radius",), "Cylinder": ("radius", "length"), "Mesh": ("scale",),
          "Ellipsoid": ("radii",), "Capsule": ("radius", "length"), "Cone": ("radius", "length")}


def validate(model: Model, *, source: str | None = None, tree: TreeOrder | None = None,
             inertia_suspects: list[Link] | None = None) -> list[str]:
    """Validate the whole model; raise ModelError on the first error, return warnings.

    Loaders may record where each element came from in model.metadata["lines"] (keyed by the
    element description, e.g. "link 'base'"), so that errors found here still carry a line.
    `tree` is the model's TreeOrder when the caller has just computed it (saves a pass on huge models);
    `inertia_suspects` the links whose inertia the inertia_suspects screen singled out, when the caller
    screened every link's inertia as the model now has it (links of it no longer in the model are passed over).
    """
    try:
        return _validate(model, tree, inertia_suspects)
    except ModelError as e:
        raise locate(e, model, source) from None


def _validate(model: Model, tree: TreeOrder | None, suspects: list[Link] | None = None) -> list[str]:
    warnings: list[str] = []
    if tree is None:
        tree = tree_order(model)
    if model.default_base_link is None:
        model.default_base_link = tree.root
    if model.default_base_link != tree.root:
        raise ModelError(
            f"default base link '{model.default_base_link}' is not the root of the tree ('{tree.root}')"
        )
    # each table's keys are unique, so a name can only be both a link's and a frame's: the loop over
    # every name (for the first problem, in order) runs only when there is one
    if "" in model.links or "" in model.frames or not model.links.keys().isdisjoint(model.frames):
        names: dict[str, str] = {}
        for kind, table in (("link", model.links), ("frame", model.frames)):
            for name in table:
                if not name:
                    raise ModelError(f"a {kind} has an empty name")
                if name in names:
                    raise ModelError(f"name '{name}' is used by a {names[name]} and a {kind}: frame names must be unique")
                names[name] = kind
    if suspects is None:
        links = list(model.links.values())
        suspects = [links[k] for k in _inertia_suspects(links)]
    for link in suspects:
        if model.links.get(link.name) is not link:  # (a link a loader made a frame after screening it)
            continue
        element = f"link '{link.name}'"
        for w in check_inertia(link.inertia.mass, link.inertia.com, link.inertia.inertia, element):
            line = model.metadata.get("lines", {}).get(element)
            warnings.append(f"line {line}: {w}" if line else w)
    # every rest transform and pose judged in one stacked check; reported joints first, as each check reports
    table = _Joints(model)
    rests = table.rests
    gathered = _other_poses(model)
    every = rests + gathered[3]
    rigid = _rigid(np.array(every, dtype=float).reshape(-1, 4, 4)) if every else np.ones(0, dtype=bool)
    _check_joint_frames(model, rigid[:len(rests)], table)
    _check_poses(model, gathered, rigid[len(rests):])
    # the rest of the joints' checks, on the joints the pass singled out (a NaN, lower > upper, dynamics or a mimic)
    for joint in [j for j in table.odd if _nan_in(j)]:  # (a model built in code, an MJCF's extras)
        raise ModelError(f"a limit, dynamics or mimic value is not a number: {_joint_numbers(joint)}",
                         element=f"joint '{joint.name}'", line=model.metadata.get("lines", {}).get(f"joint '{joint.name}'"))
    for joint in [j for j in table.odd if j.limits.min_position > j.limits.max_position]:
        lim = joint.limits
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC) and lim.has_position_limits:
            raise ModelError(f"lower position limit {lim.min_position} is above the upper limit {lim.max_position}",
                             element=f"joint '{joint.name}'")
    check_mimics(model, [j for j in table.odd if j.mimic is not None])
    for frame in model.frames.values():
        if frame.parent_link not in model.links:
            raise ModelError(f"parent link '{frame.parent_link}' does not exist", element=f"frame '{frame.name}'")
    for sensor in model.sensors.values():
        el = f"sensor '{sensor.name}'"
        if isinstance(sensor, ForceTorqueSensor):
            joint = model.joints.get(sensor.parent_joint)
            if joint is None:
                raise ModelError(f"parent joint '{sensor.parent_joint}' does not exist", element=el)
            if {sensor.first_link, sensor.second_link} != {joint.parent, joint.child}:
                raise ModelError(
                    f"links '{sensor.first_link}'/'{sensor.second_link}' are not the two links of joint "
                    f"'{joint.name}'",
                    element=el,
                )
            if sensor.applied_wrench_link not in (sensor.first_link, sensor.second_link):
                raise ModelError(f"applied-wrench link '{sensor.applied_wrench_link}' is not one of its links", element=el)
        elif isinstance(sensor, LinkSensor) and sensor.parent_link not in model.links:
            raise ModelError(f"parent link '{sensor.parent_link}' does not exist", element=el)
    return warnings
