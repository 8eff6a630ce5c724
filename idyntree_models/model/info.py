"""What a model is, as plain data: counts, mass properties, joint/sensor/frame tables, frame poses.

`model_info` returns only JSON types (dicts, lists, str, float, bool, None), so the CLI prints it
as text or as JSON from the same data and scripts can rely on its keys.  The mass properties are
those of libsdformat's `--inertial-stats` (total mass, centre of mass, inertia about the COM), here
in the base link's frame and at any configuration.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..errors import ModelError
from .kinematics import Kinematics
from .model import ForceTorqueSensor, JointType, LinkSensor, Model
from .reduce import combine_inertias
from .transforms import inverse, matrix_to_quat, matrix_to_rpy


@dataclass
class MassProperties:
    """Total mass, centre of mass and inertia about it, all in one frame (the base link's)."""

    mass: float
    com: np.ndarray
    inertia: np.ndarray


def mass_properties(model: Model, world: Mapping[str, np.ndarray]) -> MassProperties:
    """Mass properties of the whole model given every link's pose (`world[link]`) in one frame."""
    total = combine_inertias((link.inertia, world[name]) for name, link in model.links.items())
    return MassProperties(total.mass, total.com, total.inertia)


def _list(a) -> list:
    return np.asarray(a, dtype=float).tolist()


def _pose(t: np.ndarray) -> dict:
    return {
        "xyz": _list(t[:3, 3]),
        "rpy": _list(matrix_to_rpy(t[:3, :3])),
        "quaternion_wxyz": _list(matrix_to_quat(t[:3, :3])),
        "matrix": _list(t),
    }


def _limit(flag: bool, value: float) -> float | None:
    return float(value) if flag else None


def joint_table(model: Model) -> list[dict]:
    rows = []
    for j in model.joints.values():
        lim = j.limits
        row = {
            "name": j.name,
            "type": j.type.value,
            "parent": j.parent,
            "child": j.child,
            "dofs": j.dofs,
            "axis": _list(j.axis) if j.axis is not None else None,
            "lower": _limit(lim.has_position_limits and j.dofs == 1, lim.min_position),
            "upper": _limit(lim.has_position_limits and j.dofs == 1, lim.max_position),
            "effort": _limit(lim.has_effort_limit and j.dofs > 0, lim.effort_limit),
            "velocity": _limit(lim.has_velocity_limit and j.dofs > 0, lim.velocity_limit),
            "mimic": None if j.mimic is None else {
                "joint": j.mimic.joint, "multiplier": j.mimic.multiplier, "offset": j.mimic.offset},
        }
        if j.type is JointType.SPHERICAL:
            row["center"] = _list(j.center)
        rows.append(row)
    return rows


def sensor_table(model: Model) -> list[dict]:
    rows = []
    for s in model.sensors.values():
        row: dict = {"name": s.name, "type": s.type.value}
        if isinstance(s, ForceTorqueSensor):
            row.update(joint=s.parent_joint, first_link=s.first_link, second_link=s.second_link,
                       measure_direction=s.measure_direction, pose_in_second_link=_pose(s.second_link_H_sensor))
        elif isinstance(s, LinkSensor):
            row.update(link=s.parent_link, pose_in_link=_pose(s.link_H_sensor))
            if s.subtype:
                row["subtype"] = s.subtype
        rows.append(row)
    return rows


def model_info(model: Model, config: Mapping[str, object] | None = None, frames: Iterable[str] = ()) -> dict:
    """Everything `idyntree-model-info` shows, as JSON-ready data (see the module docstring).

    Poses and mass properties are in the base link's frame at `config` (joint name -> position;
    joints left out at zero); the mass properties are None when they overflow a double.  Raises
    ModelError for an unknown frame or joint, a fixed or mimic joint given a position, and for a
    configuration that puts a frame at a non-finite pose.
    """
    for name in config or {}:  # (Kinematics ignores them, as robot_state_publisher a follower's state: asked for
        joint = model.joints.get(name)  # here by name, a position that changes nothing is an error)
        if joint is not None and joint.mimic is not None:
            raise ModelError(f"joint '{name}' mimics '{joint.mimic.joint}': its position follows that joint's, so "
                             f"it is not given (give '{joint.mimic.joint}')")
        if joint is not None and not joint.dofs:
            raise ModelError(f"joint '{name}' is fixed: it has no position to give")
    kin = Kinematics(model)
    base = model.default_base_link or kin.link_names[0]
    with np.errstate(all="ignore"):  # what overflows is refused or reported as None below
        world = kin.world_transforms(config or {})
        base_inv = inverse(world[base])
        in_base = {name: base_inv @ t for name, t in world.items()}
        mp = mass_properties(model, in_base)
    far = [name for name, t in in_base.items() if not np.isfinite(t).all()]
    if far:
        raise ModelError(f"at this configuration, frame(s) {', '.join(far[:5])} have a non-finite pose (finite "
                         "numbers that overflow: a position times a mimic multiplier, offsets past the largest double)")
    if not (np.isfinite(mp.mass) and np.isfinite(mp.com).all() and np.isfinite(mp.inertia).all()):
        mp = None  # masses and distances beyond a double (1e308 m apart): no finite answer to give
    poses = {}
    for name in frames:
        if name not in in_base:
            raise ModelError(f"unknown frame '{name}' (links and additional frames: see the frames table)")
        poses[name] = {"relative_to": base, **_pose(in_base[name])}
    return {
        "name": model.name,
        "base_link": base,
        "n_links": len(model.links),
        "n_frames": len(model.frames),
        "n_joints": len(model.joints),
        "n_dofs": model.dofs,
        "n_sensors": len(model.sensors),
        "total_mass": None if mp is None else mp.mass,  # None: not finite in a double
        "center_of_mass": None if mp is None else _list(mp.com),
        "inertia_about_com": None if mp is None else _list(mp.inertia),
        "configuration": {k: (_list(v) if np.ndim(v) else float(v)) for k, v in (config or {}).items()},  # type: ignore[arg-type]
        "links": [{"name": n, "mass": lk.inertia.mass} for n, lk in model.links.items()],
        "joints": joint_table(model),
        "sensors": sensor_table(model),
        "frames": [{"name": f.name, "parent": f.parent_link} for f in model.frames.values()],
        "frame_poses": poses,
    }


__all__ = ["MassProperties", "joint_table", "mass_properties", "model_info", "sensor_table"]
