"""Reduced models: keep some joints, lock the others, lump each rigid group into one link.

The semantics are those of iDynTree's `ModelLoader.loadReducedModelFromFullModel` (and
`createReducedModel`): the tree is cut at the kept joints; every group of links connected by
locked joints becomes one link named after the group's link nearest the base, whose frame it keeps;
the group's mass, centre of mass and inertia are combined exactly at the locked positions; the
other links of the group become additional frames, and every frame, shape and sensor is re-expressed
on the lumped link.

One difference, so that no sensor is lost silently: a force/torque sensor measures across its joint,
which a lumped link no longer has.  iDynTree drops such a sensor without a word; by default we keep
its joint (fixed at its locked position, with a warning saying so), and with
`keep_sensor_joints=False` we drop the sensor as iDynTree does, with a warning naming it.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping

import numpy as np

from ..errors import STRICT_NOTE, ModelError, listed
from .kinematics import Kinematics
from .model import (
    ForceTorqueSensor,
    Frame,
    FrameJoint,
    Inertia,
    Joint,
    JointType,
    Link,
    LinkSensor,
    Model,
    Shape,
    dangling_mentions,
    shift_inertia,
)
from .spherical import revolute_names
from .topology import TreeOrder, tree_order
from .transforms import inverse, unit_quaternions
from .validation import validate

log = logging.getLogger(__name__)


def combine_inertias(parts: Iterable[tuple[Inertia, np.ndarray]]) -> Inertia:
    """The inertia of rigidly joined bodies, each given with its pose in the common frame.

    Exact (parallel-axis theorem about the common COM); a massless result keeps its rotational
    inertia about the frame origin, as iDynTree's spatial-inertia sum does.
    """
    parts = list(parts)
    mass = sum(i.mass for i, _ in parts)
    coms = [(x[:3, :3] @ i.com + x[:3, 3]) for i, x in parts]
    # a massless part adds no first or second moment, however far away it is: skipped here, not multiplied by
    # zero (0 * inf is NaN for a part past ~1e154 m, whose squared distance overflows), and in shift_inertia
    if mass > 0.0:
        com = sum(i.mass * c for (i, _), c in zip(parts, coms) if i.mass != 0.0) / mass
    else:
        com = np.zeros(3)
    inertia = np.zeros((3, 3))
    for (i, x), c in zip(parts, coms):
        r = x[:3, :3]
        inertia += shift_inertia(r @ i.inertia @ r.T, i.mass, c - com)
    return Inertia(mass, com, 0.5 * (inertia + inertia.T))


def _spherical_hint(model: Model, names: list[str], verb: str) -> str:
    """For names of the three revolutes the URDF form writes for a spherical joint (the node's description and /tf
    show them): which joint of the model to `verb` instead."""
    hints = [f"'{n}' is one of the three revolutes URDF writes for spherical joint '{j.name}': {verb} '{j.name}'"
             for n in names for j in model.joints.values()
             if j.type is JointType.SPHERICAL and n in revolute_names(j.name)]
    return f" ({'; '.join(hints)})" if hints else ""


def _locked_positions(model: Model, keep: set[str], locked: Mapping[str, object]) -> dict[str, object]:
    """Positions of every locked joint (given, mimicked or zero), after checking the request."""
    for name, value in locked.items():
        joint = model.joints.get(name)
        if joint is None:
            raise ModelError(f"cannot lock joint '{name}': the model has no such joint" + _spherical_hint(model, [name], "lock"))
        if name in keep:
            raise ModelError(f"joint '{name}' is both kept and locked")
        if joint.type is JointType.SPHERICAL:
            q = np.asarray(value, dtype=float).reshape(-1)
            if q.shape != (4,) or not np.all(np.isfinite(q)) or not unit_quaternions(q)[1] >= 1e-12:
                raise ModelError(f"spherical joint '{name}' is locked with a quaternion w, x, y, z (got {value!r})")
        elif joint.dofs == 1:
            try:
                v = float(value)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                raise ModelError(f"joint '{name}' is locked with one number (got {value!r})") from None
            if not np.isfinite(v):
                raise ModelError(f"joint '{name}' is locked at a non-finite position ({value!r})")
    positions: dict[str, object] = dict(locked)
    for joint in model.joints.values():
        if joint.mimic is None:
            continue
        master = joint.mimic.joint
        if (joint.name in keep) != (master in keep):
            kept, other = (joint.name, master) if joint.name in keep else (master, joint.name)
            raise ModelError(
                f"joint '{joint.name}' mimics '{master}': keep both or lock both ('{kept}' is kept, '{other}' is not)"
            )
        if joint.name in keep:
            continue
        implied = joint.mimic.multiplier * float(positions.get(master, 0.0)) + joint.mimic.offset  # type: ignore[arg-type]
        if not np.isfinite(implied):  # finite numbers, an overflowing product: 1e308 * 3
            raise ModelError(
                f"joint '{joint.name}' mimics '{master}' (multiplier {joint.mimic.multiplier!r}, offset "
                f"{joint.mimic.offset!r}): at the position of '{master}' its own position is not finite"
            )
        if joint.name in locked and abs(float(locked[joint.name]) - implied) > 1e-12:  # type: ignore[arg-type]
            raise ModelError(
                f"joint '{joint.name}' mimics '{master}', so it is locked at {implied!r}, not at {locked[joint.name]!r}"
            )
        positions[joint.name] = implied
    return positions


def reduce(
    model: Model,
    keep: Iterable[str],
    locked: Mapping[str, object] | None = None,
    *,
    keep_sensor_joints: bool = True,
    warnings: list[str] | None = None,
    strict: bool = False,
) -> Model:
    """A new model with only the joints in `keep` (any type); the others are locked.

    `locked` gives positions of locked joints by name (a number, or a quaternion w, x, y, z for a
    spherical joint); joints left out are locked at zero.  The input model is not changed.
    Raises ModelError for unknown joints, a joint both kept and locked, or a mimic relation cut
    in two.  Warnings (sensor joints kept or sensors dropped, a joint locked outside its limits) are
    appended to `warnings`; with `strict`, the first is raised as a ModelError instead.
    """
    keep_list = list(dict.fromkeys(keep))
    unknown = [name for name in keep_list if name not in model.joints]
    if unknown:
        raise ModelError(f"cannot keep joint(s) {', '.join(repr(n) for n in unknown)}: the model has no such joint"
                         + _spherical_hint(model, unknown, "keep"))
    kept = set(keep_list)
    locked = dict(locked or {})
    positions = _locked_positions(model, kept, locked)
    notes: list[str] = []
    for joint in model.joints.values():  # a lock no robot takes (a typo, degrees for radians) is said
        lim = joint.limits
        if joint.name in kept or joint.dofs != 1 or not lim.has_position_limits:
            continue
        value = float(positions.get(joint.name, 0.0))  # type: ignore[arg-type]
        if not lim.min_position <= value <= lim.max_position:
            how = "given" if joint.name in locked else "mimicking its master" if joint.mimic else "by default"
            notes.append(f"joint '{joint.name}' is locked at {value!r} ({how}), outside its limits "
                         f"[{lim.min_position!r}, {lim.max_position!r}]")

    sensors = dict(model.sensors)
    fixed_for_sensor: dict[str, str] = {}  # joint -> sensor that needs it
    for sensor in model.sensors.values():
        if isinstance(sensor, ForceTorqueSensor) and sensor.parent_joint not in kept:
            if keep_sensor_joints:
                fixed_for_sensor.setdefault(sensor.parent_joint, sensor.name)
            else:
                del sensors[sensor.name]
                notes.append(
                    f"force/torque sensor '{sensor.name}' dropped: its joint '{sensor.parent_joint}' is locked "
                    "inside a lumped link"
                )
    for joint, sensor in fixed_for_sensor.items():
        notes.append(
            f"joint '{joint}' kept as a fixed joint at its locked position because force/torque sensor "
            f"'{sensor}' measures across it"
        )

    tree = tree_order(model)
    kin = Kinematics(model)
    with np.errstate(all="ignore"):  # an overflow is refused below, with the joints named
        local = kin.joint_transforms(_independent(kin, positions))[0]  # parent_H_child at the locked positions
    # kept joints are not at a lock (a kept mimic follower sits at its offset here): only the others count
    overflow = [joint.name for joint, pose in zip(kin.joints, local)
                if joint.name not in kept and not np.isfinite(pose).all()]
    if overflow:
        raise ModelError(f"locked at the given positions, joint(s) {', '.join(overflow[:5])} have a non-finite pose")
    at_lock = {joint.name: local[i] for i, joint in enumerate(kin.joints)}

    group: dict[str, str] = {}
    root_H: dict[str, np.ndarray] = {}  # group root_H_link
    for link in tree.order:
        joint = tree.parent_joint.get(link)
        if joint is None or joint.name in kept or joint.name in fixed_for_sensor:
            group[link], root_H[link] = link, np.eye(4)
        else:
            group[link] = group[joint.parent]
            with np.errstate(all="ignore"):
                root_H[link] = root_H[joint.parent] @ at_lock[joint.name]
            if not np.isfinite(root_H[link]).all():  # offsets that add up past the largest double
                raise ModelError(f"link '{link}' would be at a non-finite pose in the lumped link '{group[link]}'")

    # the lumped model: any overflow (huge masses summed, a frame far out on a far link) leaves a NaN or
    # inf that validation below refuses, with the element named
    with np.errstate(all="ignore"):
        out = _lumped(model, tree, group, root_H, at_lock, kept, fixed_for_sensor, sensors, notes)
    try:  # what the readers guarantee for a loaded model
        with np.errstate(all="ignore"):
            validate(out)
    except ModelError as e:
        raise ModelError(f"the reduced model is not valid: {e.message}", element=e.element) from None
    if strict and notes:  # (as a loader's strict: no model that needed a warning)
        raise ModelError(f"{notes[0]} {STRICT_NOTE}")
    for note in notes:
        log.warning(note)
        if warnings is not None:
            warnings.append(note)
    return out


def _lumped(model: Model, tree: TreeOrder, group: dict[str, str], root_H: dict[str, np.ndarray],
            at_lock: dict[str, np.ndarray], kept: set[str], fixed_for_sensor: dict[str, str],
            sensors: dict, notes: list[str]) -> Model:
    """The reduced model: a link per group (combined inertia, every shape, the other links as frames)."""
    out = Model(name=model.name, default_base_link=model.default_base_link)
    out.metadata = {k: v for k, v in model.metadata.items() if k != "lines"}
    members: dict[str, list[str]] = {}
    for link in tree.order:
        members.setdefault(group[link], []).append(link)
    for root, names in members.items():
        out.links[root] = Link(
            root,
            combine_inertias((model.links[n].inertia, root_H[n]) for n in names),
            visuals=[_moved(s, root_H[n]) for n in names for s in model.links[n].visuals],
            collisions=[_moved(s, root_H[n]) for n in names for s in model.links[n].collisions],
        )
        for n in names[1:]:
            out.frames[n] = Frame(n, root, root_H[n].copy())
    # a lumped link is a frame joined by its (locked) joint: exporters write it under that joint's name
    frame_joints = dict(model.metadata.get("frame_joints") or {})
    frame_joints.update((n, FrameJoint(tree.parent_joint[n].name)) for names in members.values() for n in names[1:])
    if frame_joints:
        out.metadata["frame_joints"] = frame_joints
    for frame in model.frames.values():
        out.frames[frame.name] = Frame(frame.name, group[frame.parent_link], root_H[frame.parent_link] @ frame.link_H_frame)

    for joint in model.joints.values():
        if joint.name in kept:
            out.joints[joint.name] = _moved_joint(joint, group[joint.parent], root_H[joint.parent])
        elif joint.name in fixed_for_sensor:
            out.joints[joint.name] = Joint(joint.name, JointType.FIXED, group[joint.parent], joint.child,
                                           root_H[joint.parent] @ at_lock[joint.name])

    for sensor in sensors.values():
        if isinstance(sensor, ForceTorqueSensor) and sensor.parent_joint in fixed_for_sensor:
            sensor = _sensor_at_lock(sensor, model.joints[sensor.parent_joint], at_lock[sensor.parent_joint])
        out.sensors[sensor.name] = _moved_sensor(sensor, group, root_H)
    out.initial_configuration = {k: v for k, v in model.initial_configuration.items() if k in kept}
    out.extensions = _carried_extensions(model, out, members, notes)
    return out


def _carried_extensions(model: Model, out: Model, members: dict[str, list[str]], notes: list[str]) -> list:
    """The source's kept elements (model.extensions), on what still holds them: the document's own stay, a
    lumped link's shapes are its group's (the index moved past the shapes before them); those of a locked
    joint, or of a lumped link itself (its inertial, its own tags), have no element left and are named."""
    shapes: dict[tuple[str, str], tuple[str, int]] = {}  # (link, kind) -> (group link, index of its first shape)
    for root, names in members.items():
        counts = {"visual": 0, "collision": 0}
        for n in names:
            for kind in counts:
                shapes[(n, kind)] = (root, counts[kind])
                counts[kind] += len(getattr(model.links[n], kind + "s"))
    # (a frame that was a link is written with its fixed joint, whose elements go with it)
    frame_joints = {fj.joint for name, fj in (model.metadata.get("frame_joints") or {}).items() if name in out.frames}
    # a frame that was a massless link is written as one, with its own elements and shapes' (their shapes are
    # on the link it is attached to; Shape.source_frame)
    holders = {"link": out.links.keys() | out.frames.keys(), "inertial": out.links,
               "joint": out.joints.keys() | frame_joints, "sensor": out.sensors, "frame": out.frames,
               "visual": out.frames, "collision": out.frames}
    carried: list = []
    lost: list[str] = []
    for e in model.extensions:
        kind = e.owner_kind
        if kind in ("visual", "collision") and (e.owner, kind) in shapes:
            root, first = shapes[(e.owner, kind)]
            if root != e.owner:
                e = copy.copy(e)
                e.owner, e.index = root, (e.index or 0) + first
            carried.append(e)
        elif kind is None or kind == "model" or e.owner in holders.get(kind, ()):
            carried.append(e)
        else:
            lost.append(f"<{e.tag}> of {kind} '{e.owner}'")
    # what the document's kept elements (a <transmission>, a <ros2_control>, a plugin: all carried, written as they
    # are) name that the reduced model has no more
    removed = [n for n in model.joints if n not in out.joints] + [
        n for n in model.links if n not in out.links and n not in out.frames]
    dangling = [f"<{tag}> ({', '.join(names)})" for tag, names in dangling_mentions(model.extensions, removed)]
    if dangling:
        notes.append(f"{len(dangling)} kept source element(s) are written as they are but name joint(s) locked or "
                     f"link(s) lumped by the reduction: {listed(dangling, 5)}")
    if lost:
        notes.append(f"{len(lost)} kept source element(s) belong to a joint locked or a link lumped by the "
                     f"reduction and are not in the reduced model: {listed(lost, 5)}")
    return carried


def _independent(kin: Kinematics, positions: Mapping[str, object]) -> dict[str, object]:
    """The positions Kinematics takes (independent joints only: mimic joints follow their master)."""
    return {name: value for name, value in positions.items() if name in kin.position_index}


def _moved(shape: Shape, root_H_link: np.ndarray) -> Shape:
    out = copy.deepcopy(shape)
    out.link_H_geometry = root_H_link @ shape.link_H_geometry
    return out


def _moved_joint(joint: Joint, parent: str, root_H_parent: np.ndarray) -> Joint:
    out = copy.deepcopy(joint)
    out.parent = parent
    out.rest_transform = root_H_parent @ joint.rest_transform
    if joint.type is JointType.SPHERICAL and joint.center is not None:
        out.center = root_H_parent[:3, :3] @ joint.center + root_H_parent[:3, 3]
    return out


def _sensor_at_lock(sensor: ForceTorqueSensor, joint: Joint, parent_H_child: np.ndarray) -> ForceTorqueSensor:
    """A force/torque sensor across a joint kept fixed at its lock: its two poses agree with that fixed joint.

    They were given at the joint's rest position.  The sensor stays on the link its frame keyword puts it on: the
    parent for `parent`, else the child (a sensor frame moves with the joint's child, as SDF's joint frame does)."""
    out = copy.copy(sensor)
    first_is_parent = sensor.first_link == joint.parent
    parent_H, child_H = ((sensor.first_link_H_sensor, sensor.second_link_H_sensor) if first_is_parent
                         else (sensor.second_link_H_sensor, sensor.first_link_H_sensor))
    if sensor.frame == "parent":
        child_H = inverse(parent_H_child) @ parent_H
    else:
        parent_H = parent_H_child @ child_H
    out.first_link_H_sensor, out.second_link_H_sensor = (parent_H, child_H) if first_is_parent else (child_H, parent_H)
    return out


def _moved_sensor(sensor, group: dict[str, str], root_H: dict[str, np.ndarray]):
    out = copy.deepcopy(sensor)
    if isinstance(sensor, LinkSensor):
        out.parent_link = group[sensor.parent_link]
        out.link_H_sensor = root_H[sensor.parent_link] @ sensor.link_H_sensor
    elif isinstance(sensor, ForceTorqueSensor):
        out.first_link = group[sensor.first_link]
        out.second_link = group[sensor.second_link]
        out.applied_wrench_link = group[sensor.applied_wrench_link]
        out.first_link_H_sensor = root_H[sensor.first_link] @ sensor.first_link_H_sensor
        out.second_link_H_sensor = root_H[sensor.second_link] @ sensor.second_link_H_sensor
    return out


__all__ = ["combine_inertias", "reduce"]
