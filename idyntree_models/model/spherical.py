"""Spherical joints <-> chains of three revolute joints.

URDF has no spherical joint, so exporters write three perpendicular revolutes through two
massless links; folding recognises such chains (or any hand-written equivalent) and restores one
spherical joint.  Unlike iDynTree, the joint centre is the point where the three axes meet, so
the folded kinematics equal the chain's even when that point is not the parent origin.
"""

from __future__ import annotations

import re

import numpy as np

from .._lazy import LazyPattern
from ..errors import ModelError
from .model import Frame, Inertia, Joint, JointType, Limits, Link, Model, dangling_mentions
from .transforms import det3, inverse, matrix_to_quat, translation, vector_norm

_EXPORTED = LazyPattern(r"spherical_rev_(.+)_x", re.S)  # any name, line breaks too
FAKE_LINK = "spherical_fake_{joint}_link{index}"
REV_JOINT = "spherical_rev_{joint}_{axis}"
OFFSET_JOINT = "spherical_offset_{joint}"


def folded_joint_name(first_revolute: str) -> str:
    """Name of the spherical joint made from a chain whose first revolute is `first_revolute`.

    Our own exports (`spherical_rev_J_x`) fold back to exactly `J`; other names follow iDynTree
    (cut at the first `_x`, else at `_rev_`).
    """
    m = _EXPORTED.fullmatch(first_revolute)
    if m:
        return m.group(1)
    for cut in ("_x", "_rev_"):
        i = first_revolute.find(cut)
        if i > 0:
            return first_revolute[:i]
    return first_revolute


def _axis_line(t: np.ndarray, joint: Joint) -> tuple[np.ndarray, np.ndarray]:
    """Axis direction and a point on it, in the frame where `t` is the joint's child rest pose."""
    return t[:3, :3] @ joint.axis, t[:3, :3] @ joint.axis_origin + t[:3, 3]


def _meeting_point(lines, tol: float) -> np.ndarray | None:
    # solved relative to the first line's point, so that far-away joints (1e308) do not overflow
    origin = lines[0][1]
    a = np.zeros((3, 3))
    b = np.zeros(3)
    with np.errstate(over="ignore", invalid="ignore"):
        for d, p in lines:
            proj = np.eye(3) - np.outer(d, d)
            a += proj
            b += proj @ (p - origin)
    if abs(det3(a)) < 1e-12 or not np.all(np.isfinite(b)):
        return None
    x = np.linalg.solve(a, b) + origin
    for d, p in lines:
        r = x - p
        if np.linalg.norm(r - (r @ d) * d) > tol:
            return None
    return x


def _unheld(joints: tuple[Joint, Joint, Joint]) -> str:
    """What the revolutes of a folded chain held that a spherical joint cannot: their limits (three angles'
    ranges are no bound on a rotation) and dynamics. '' when they hold none (our own exports)."""
    parts = []
    for j in joints:
        lim, dyn = j.limits, j.dynamics
        held = []
        if lim.has_position_limits:
            held.append(f"range {lim.min_position:g} {lim.max_position:g}")
        if lim.has_effort_limit:
            held.append(f"effort {lim.effort_limit:g}")
        if lim.has_velocity_limit:
            held.append(f"velocity {lim.velocity_limit:g}")
        if dyn is not None and (dyn.damping or dyn.friction):
            held.append(f"damping {dyn.damping:g} friction {dyn.friction:g}")
        if held:
            parts.append(f"'{j.name}' ({', '.join(held)})")
    return "; ".join(parts)


def fold_three_revolute_joints(model: Model, tol: float = 1e-6, lost: list[str] | None = None) -> list[str]:
    """Replace every foldable revolute chain by a spherical joint, in place; return new joint names.

    `lost` receives, per folded chain that had any, the limits and dynamics the spherical joint cannot hold:
    iDynTree drops them without a word, and a robot's joint limits silently gone is what the caller must say."""
    sensor_joints = {getattr(s, "parent_joint", None) for s in model.sensors.values()}
    attached = {f.parent_link for f in model.frames.values()} | {
        getattr(s, "parent_link", None) for s in model.sensors.values()
    }
    mimicked = {j.mimic.joint for j in model.joints.values() if j.mimic} | {
        j.name for j in model.joints.values() if j.mimic
    }
    created: list[str] = []
    removed: set[str] = set()  # the revolutes' names and their massless links'
    changed = True
    while changed:
        changed = False
        children: dict[str, list[Joint]] = {}
        parent_joint: dict[str, Joint] = {}
        for j in model.joints.values():
            children.setdefault(j.parent, []).append(j)
            parent_joint[j.child] = j

        def candidate(j: Joint) -> bool:
            return j.type is JointType.REVOLUTE and j.name not in sensor_joints and j.name not in mimicked

        def fake(link: str, children: dict[str, list[Joint]] = children) -> bool:
            lk = model.links[link]
            return (
                lk.inertia.mass <= tol
                and len(children.get(link, [])) == 1
                and link not in attached
                and not lk.visuals
                and not lk.collisions
            )

        for j1 in list(model.joints.values()):
            if not candidate(j1) or not fake(j1.child):
                continue
            j2 = children[j1.child][0]
            if not candidate(j2) or not fake(j2.child):
                continue
            j3 = children[j2.child][0]
            if not candidate(j3):
                continue
            t1 = j1.rest_transform
            t12 = t1 @ j2.rest_transform
            t123 = t12 @ j3.rest_transform
            lines = [_axis_line(t1, j1), _axis_line(t12, j2), _axis_line(t123, j3)]
            d = [ln[0] for ln in lines]
            if max(abs(d[0] @ d[1]), abs(d[0] @ d[2]), abs(d[1] @ d[2])) > tol:
                continue
            center = _meeting_point(lines, tol)
            if center is None:
                continue
            name = folded_joint_name(j1.name)
            taken = set(model.joints) - {j1.name, j2.name, j3.name}
            if name in taken:
                name = j1.name
            joint = Joint(name, JointType.SPHERICAL, j1.parent, j3.child, t123, center=center, limits=Limits())
            unheld = _unheld((j1, j2, j3)) if lost is not None else ""
            if unheld:
                lost.append(f"spherical joint '{name}', folded from revolute joints '{j1.name}', '{j2.name}', "
                            f"'{j3.name}', does not hold their limits and dynamics: {unheld}")
            for old in (j1, j2, j3):
                del model.joints[old.name]
            del model.links[j1.child]
            del model.links[j2.child]
            removed.update((j1.name, j2.name, j3.name, j1.child, j2.child))
            model.joints[name] = joint
            _merge_offset_joint(model, joint)
            created.append(name)
            changed = True
            break
    if lost is not None and removed:
        _name_dangling(model, removed, lost)
    return created


def _name_dangling(model: Model, removed: set[str], lost: list[str]) -> None:
    """The source's own elements (a <transmission>, a <gazebo reference>, a plugin's <joint_name>) are written as
    they are: where they name a folded joint or its massless links, they name what the model no longer has."""
    dangling = [f"<{tag}> names {', '.join(repr(n) for n in names)}"
                for tag, names in dangling_mentions(model.extensions, sorted(removed))]
    if dangling:
        lost.append(f"{len(dangling)} kept source element(s) name a joint or link the folding into spherical joints "
                    f"removed, and are written as they are: {'; '.join(dangling)}")


def _merge_offset_joint(model: Model, joint: Joint) -> None:
    """Absorb the fixed joint our exporter adds when the centre is not the child origin."""
    offset = model.joints.get(OFFSET_JOINT.format(joint=joint.name))
    if offset is None or offset.parent != joint.child or offset.type is not JointType.FIXED:
        return
    link = model.links[joint.child]
    if link.inertia.mass > 0 or link.visuals or link.collisions:
        return
    if any(j.parent == link.name and j is not offset for j in model.joints.values()):
        return
    if any(f.parent_link == link.name for f in model.frames.values()):
        return
    del model.joints[offset.name]
    del model.links[link.name]
    joint.child = offset.child
    joint.rest_transform = joint.rest_transform @ offset.rest_transform


def revolute_names(joint: str) -> list[str]:
    """The three revolute joints that unfold_spherical_joints makes of spherical joint `joint`, x, y, z."""
    return [REV_JOINT.format(joint=joint, axis=a) for a in "xyz"]


def unfold_spherical_joints(model: Model) -> Model:
    """A copy of the model where each spherical joint J is three continuous joints.

    Joints `spherical_rev_J_x/_y/_z` rotate about x, y, z of the child's rest axes through the
    joint centre, via massless links `spherical_fake_J_link1/2`.  When the centre is not the
    child origin a third fake link and a fixed joint `spherical_offset_J` put the child back.
    """
    for joint in model.joints.values():  # (the three revolutes' names must be free: else one would replace another)
        if joint.type is JointType.SPHERICAL:
            j = joint.name
            made = [FAKE_LINK.format(joint=j, index=i) for i in (1, 2, 3)] + revolute_names(j) + [OFFSET_JOINT.format(joint=j)]
            clash = [n for n in made if n in model.links or n in model.joints or n in model.frames]
            if clash:
                raise ModelError(f"cannot write spherical joint '{j}' as three revolute joints: the model already "
                                 f"has {', '.join(repr(c) for c in clash)}")
    out = model.copy()
    joints: dict[str, Joint] = {}
    for joint in out.joints.values():
        if joint.type is not JointType.SPHERICAL:
            joints[joint.name] = joint
            continue
        j = joint.name
        rest = joint.rest_transform
        with np.errstate(all="ignore"):
            c_child = rest[:3, :3].T @ (joint.center - rest[:3, 3])
        if not np.all(np.isfinite(c_child)):
            raise ModelError("its centre is too far from the child link's origin for a double (their difference "
                             "overflows)", element=f"joint '{j}'")
        offset = vector_norm(c_child) > 1e-12
        names = [FAKE_LINK.format(joint=j, index=i) for i in (1, 2, 3)]
        for n in names[: 3 if offset else 2]:
            out.links[n] = Link(n, Inertia())
        last = names[2] if offset else joint.child
        axes = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
        chain = [(joint.parent, names[0], rest @ translation(c_child)), (names[0], names[1], np.eye(4)),
                 (names[1], last, np.eye(4))]
        for (parent, child, origin), axis, name in zip(chain, axes, revolute_names(j)):
            joints[name] = Joint(name, JointType.REVOLUTE, parent, child, origin, axis=axis)
        if offset:
            name = OFFSET_JOINT.format(joint=j)
            joints[name] = Joint(name, JointType.FIXED, last, joint.child, translation(-c_child))
    out.joints = joints
    return out


def three_revolute_to_quaternion(x: float, y: float, z: float) -> np.ndarray:
    """Quaternion of a spherical joint driven as its exported revolutes: Rx(x) Ry(y) Rz(z)."""
    from .transforms import rot_x, rot_y, rot_z

    return matrix_to_quat(rot_x(x) @ rot_y(y) @ rot_z(z))


def sensor_frame_order(model: Model) -> list:
    """The order in which add_sensor_frames adds sensor frames (iDynTree's): F/T, accelerometers, gyroscopes, others."""
    from .model import ForceTorqueSensor, LinkSensor, SensorType

    # one pass into the four groups, each in the model's order (three filtered passes were a twentieth of
    # iCubGenova04's load, with its 95 sensors)
    ft: list = []
    other: list = []
    linked: dict[SensorType, list] = {SensorType.ACCELEROMETER: [], SensorType.GYROSCOPE: []}
    for s in model.sensors.values():
        if isinstance(s, ForceTorqueSensor):
            ft.append(s)
        else:
            (linked.get(s.sensor_type, other) if isinstance(s, LinkSensor) else other).append(s)
    return ft + linked[SensorType.ACCELEROMETER] + linked[SensorType.GYROSCOPE] + other


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    """np.allclose(a, b, rtol=0, atol=1e-12) (equal infinities too) without its generic machinery (~20 us).

    Equal poses (a sensor on a link that became a frame of that name, without an <origin>) are told by
    comparing the numbers as Python floats, without an errstate and five numpy calls."""
    if a.tolist() == b.tolist():  # (NaN is unequal to itself here as in the test below)
        return True
    with np.errstate(invalid="ignore"):  # inf - inf
        return bool(((a == b) | (abs(a - b) <= 1e-12)).all())


def add_sensor_frames(model: Model) -> list[str]:
    """iDynTree's add_sensor_frames_as_additional_frames: one frame per sensor, unless the name is taken.

    Returns the names that could not be added (to be reported as warnings).
    """

    skipped: list[str] = []
    for sensor in sensor_frame_order(model):
        if model.has_frame(sensor.name):
            existing = model.frames.get(sensor.name)
            same = (
                existing is not None
                and existing.parent_link == sensor.frame_link
                # a link that became a frame named like its IMU is common (22 of iCubGenova04's sensors)
                and _close(existing.link_H_frame, sensor.frame_transform)
            )
            if not same:  # a file that already lists the sensor frame itself (JSON) is not a clash
                skipped.append(sensor.name)
            continue
        model.frames[sensor.name] = Frame(sensor.name, sensor.frame_link, sensor.frame_transform.copy())
    return skipped


__all__ = [
    "add_sensor_frames",
    "fold_three_revolute_joints",
    "folded_joint_name",
    "inverse",
    "three_revolute_to_quaternion",
    "unfold_spherical_joints",
]
