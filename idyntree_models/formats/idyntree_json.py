"""iDynTree model JSON (`idyntree-model-json`, version 1).

The schema is iDynTree's (see shared/docs/urdf-and-idyntree.md): transforms as position plus
rotation matrix, link inertia about the link ORIGIN, 1-DOF axes in the child frame.  Keys are
sorted with a 2-space indent so files diff cleanly; floats are written with repr, so they read
back bit for bit.
"""

from __future__ import annotations

import json

import numpy as np

from ..model.model import (
    Box,
    Cylinder,
    ForceTorqueSensor,
    JointType,
    LinkSensor,
    Mesh,
    Model,
    SensorType,
    Shape,
    Sphere,
)
from .base import Diagnostics, ExportOptions

VERSION = 1


def _vec(v) -> list[float]:
    return [float(x) + 0.0 for x in np.ravel(v)]  # + 0.0 turns -0.0 into 0.0


def _transform(t: np.ndarray) -> dict:
    return {"position": _vec(t[:3, 3]), "rotation_matrix": [_vec(row) for row in t[:3, :3]]}


def _limits(j) -> dict:
    lim = j.limits
    out: dict = {"has_position_limits": lim.has_position_limits}
    if lim.has_position_limits:
        out["min_position"] = float(lim.min_position)
        out["max_position"] = float(lim.max_position)
    out["has_effort_limits"] = lim.has_effort_limit
    if lim.has_effort_limit:
        out["effort_limit"] = float(lim.effort_limit)
    out["has_velocity_limits"] = lim.has_velocity_limit
    if lim.has_velocity_limit:
        out["velocity_limit"] = float(lim.velocity_limit)
    return out


def _dynamics(j) -> dict:
    if j.dynamics is None:
        return {"type": "NoJointDynamics", "damping": 0.0, "static_friction": 0.0}
    return {"type": "URDFJointDynamics", "damping": float(j.dynamics.damping), "static_friction": float(j.dynamics.friction)}


def _joint(j) -> dict:
    out = {
        "name": j.name,
        "parent_link": j.parent,
        "child_link": j.child,
        "rest_transform": _transform(j.rest_transform),
    }
    if j.type is JointType.FIXED:
        out["type"] = "fixed"
    elif j.type is JointType.SPHERICAL:
        out["type"] = "spherical"
        out["joint_center_wrt_parent"] = _vec(j.center)
        out["limits"] = {
            "has_position_limits": False,
            "has_effort_limits": False,
            "has_velocity_limits": False,
        }
        out["dynamics"] = {"type": "NoJointDynamics", "damping": [0.0] * 3, "static_friction": [0.0] * 3}
    else:
        out["type"] = "revolute" if j.type is JointType.REVOLUTE else "prismatic"
        out["axis"] = {"direction": _vec(j.axis), "origin": _vec(j.axis_origin)}
        out["limits"] = _limits(j)
        out["dynamics"] = _dynamics(j)
    return out


def _shape(s: Shape, diag: Diagnostics, link: str) -> dict | None:
    out: dict = {"has_name": s.name is not None, "link_H_geometry": _transform(s.link_H_geometry)}
    if s.name is not None:
        out["name"] = s.name
    if isinstance(s, Box):
        out.update(type="box", size=_vec(s.size))
    elif isinstance(s, Sphere):
        out.update(type="sphere", radius=float(s.radius))
    elif isinstance(s, Cylinder):
        out.update(type="cylinder", length=float(s.length), radius=float(s.radius))
    elif isinstance(s, Mesh):
        out.update(type="external_mesh", filename=s.filename, scale=_vec(s.scale))
    else:
        diag.warn(f"link '{link}': {s.kind} shape cannot be written to idyntree-model-json and was dropped")
        return None
    m = s.material
    out["has_material"] = m is not None
    if m is not None:
        mat: dict = {"name": m.name or "", "has_color": m.color is not None, "has_texture": m.texture is not None}
        if m.color is not None:
            mat["color"] = _vec(m.color)
        if m.texture is not None:
            mat["texture"] = m.texture
        out["material"] = mat
    return out


def _shapes(model: Model, attr: str, diag: Diagnostics) -> list[dict]:
    out = []
    for link in model.links.values():
        shapes = [d for d in (_shape(s, diag, link.name) for s in getattr(link, attr)) if d is not None]
        out.append({"link_name": link.name, "shapes": shapes})
    return out


_LINK_SENSOR_TYPES = {
    SensorType.ACCELEROMETER: "accelerometer",
    SensorType.GYROSCOPE: "gyroscope",
    SensorType.ANGULAR_ACCELEROMETER: "three_axis_angular_accelerometer",
}


def _sensor(s, diag: Diagnostics) -> dict | None:
    if isinstance(s, ForceTorqueSensor):
        return {
            "name": s.name,
            "type": "six_axis_force_torque",
            "parent_joint": s.parent_joint,
            "first_link": s.first_link,
            "second_link": s.second_link,
            "applied_wrench_link": s.applied_wrench_link,
            "first_link_H_sensor": _transform(s.first_link_H_sensor),
            "second_link_H_sensor": _transform(s.second_link_H_sensor),
        }
    if isinstance(s, LinkSensor) and s.sensor_type in _LINK_SENSOR_TYPES:
        return {
            "name": s.name,
            "type": _LINK_SENSOR_TYPES[s.sensor_type],
            "parent_link": s.parent_link,
            "link_H_sensor": _transform(s.link_H_sensor),
        }
    diag.warn(f"sensor '{s.name}' ({getattr(s, 'subtype', None) or s.type.value}) has no idyntree-model-json form and was dropped")
    return None


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    _ = options
    doc = {
        "idyntree_model_json_version": VERSION,
        "default_base_link": model.default_base_link,
        "links": [
            {
                "name": link.name,
                "inertia": {
                    "mass": float(link.inertia.mass),
                    "center_of_mass": _vec(link.inertia.com),
                    "rotational_inertia_wrt_frame_origin": [_vec(r) for r in link.inertia.about_origin()],
                },
            }
            for link in model.links.values()
        ],
        "joints": [_joint(j) for j in model.joints.values()],
        "additional_frames": [
            {"name": f.name, "parent_link": f.parent_link, "link_H_frame": _transform(f.link_H_frame)}
            for f in model.frames.values()
        ],
        "visual_solid_shapes": _shapes(model, "visuals", diag),
        "collision_solid_shapes": _shapes(model, "collisions", diag),
        "sensors": [d for d in (_sensor(s, diag) for s in model.sensors.values()) if d is not None],
    }
    mimics = [j.name for j in model.joints.values() if j.mimic is not None]
    if mimics:
        diag.warn(f"idyntree-model-json has no mimic joints; written as independent joints: {', '.join(mimics)}")
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
