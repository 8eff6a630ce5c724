"""Checks that a model is a physically meaningful tree.

Loaders call `validate` last so that no format can hand out a half-valid model; each problem is
reported with the element it belongs to.
"""

from __future__ import annotations

import logging

import numpy as np

from ..errors import ModelError
from .model import ForceTorqueSensor, JointType, LinkSensor, Model
from .topology import tree_order
from .transforms import is_rotation

log = logging.getLogger(__name__)

# Published robots (CAD exports) carry inertias that are indefinite by rounding-level amounts;
# below this magnitude a negative principal moment is reported, not refused.
NEGLIGIBLE_INERTIA = 1e-6


def check_inertia(mass: float, com, inertia, element: str, tol: float = 1e-9) -> list[str]:
    """Raise for impossible inertia; return warnings for merely suspicious values.

    Negative mass, non-finite numbers, asymmetric or non-positive-semidefinite tensors are
    errors.  A violated triangle inequality is only a warning: many published robots (exported
    from CAD with rounding) violate it slightly and every simulator still loads them.
    """
    warnings: list[str] = []
    values = np.concatenate([[mass], np.ravel(com), np.ravel(inertia)])
    if not np.all(np.isfinite(values)):
        raise ModelError("inertial values must be finite numbers", element=element)
    if mass < 0:
        raise ModelError(f"mass {mass} is negative", element=element)
    i = np.asarray(inertia, dtype=float)
    scale = max(1.0, float(np.max(np.abs(i))))
    if not np.allclose(i, i.T, atol=tol * scale):
        raise ModelError("rotational inertia is not symmetric", element=element)
    eig = np.linalg.eigvalsh(i)
    if -NEGLIGIBLE_INERTIA <= eig[0] < -1e-9 * scale:
        warnings.append(
            f"{element}: rotational inertia is not positive semi-definite (smallest principal moment "
            f"{eig[0]:.3g} kg m^2), by less than {NEGLIGIBLE_INERTIA:g} kg m^2; kept as written"
        )
    elif eig[0] < -1e-9 * scale:
        raise ModelError(
            f"rotational inertia is not positive semi-definite (principal moments {eig.tolist()})",
            element=element,
        )
    a, b, c = sorted(eig)
    if a + b < c - 1e-6 * max(c, 1e-12) and c > 0:
        warnings.append(
            f"{element}: principal moments {[float(x) for x in (a, b, c)]} violate the triangle "
            "inequality (no rigid body has this inertia)"
        )
    return warnings


def validate(model: Model, *, source: str | None = None) -> list[str]:
    """Validate the whole model; raise ModelError on the first error, return warnings."""
    try:
        return _validate(model)
    except ModelError as e:
        raise e.with_source(source) from None


def _validate(model: Model) -> list[str]:
    warnings: list[str] = []
    tree = tree_order(model)
    if model.default_base_link is None:
        model.default_base_link = tree.root
    if model.default_base_link != tree.root:
        raise ModelError(
            f"default base link '{model.default_base_link}' is not the root of the tree ('{tree.root}')"
        )
    names: dict[str, str] = {}
    for kind, table in (("link", model.links), ("frame", model.frames)):
        for name in table:
            if not name:
                raise ModelError(f"a {kind} has an empty name")
            if name in names:
                raise ModelError(f"name '{name}' is used by a {names[name]} and a {kind}: frame names must be unique")
            names[name] = kind
    for link in model.links.values():
        warnings += check_inertia(link.inertia.mass, link.inertia.com, link.inertia.inertia, f"link '{link.name}'")
    for joint in model.joints.values():
        el = f"joint '{joint.name}'"
        t = joint.rest_transform
        if not np.all(np.isfinite(t)) or not is_rotation(t[:3, :3]):
            raise ModelError("rest transform is not a finite rigid transform", element=el)
        if joint.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            n = float(np.linalg.norm(joint.axis))
            if not np.isfinite(n) or n < 1e-12:
                raise ModelError("joint axis has zero length", element=el)
            if abs(n - 1.0) > 1e-9:
                joint.axis = joint.axis / n
            lim = joint.limits
            if lim.has_position_limits and lim.min_position > lim.max_position:
                raise ModelError(
                    f"lower position limit {lim.min_position} is above the upper limit {lim.max_position}", element=el
                )
        if joint.mimic is not None:
            master = model.joints.get(joint.mimic.joint)
            if master is None:
                raise ModelError(f"mimics joint '{joint.mimic.joint}', which does not exist", element=el)
            if master.dofs != 1 or joint.dofs != 1:
                raise ModelError("mimic joints must be 1-DOF and follow a 1-DOF joint", element=el)
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
        elif isinstance(sensor, LinkSensor):
            if sensor.parent_link not in model.links:
                raise ModelError(f"parent link '{sensor.parent_link}' does not exist", element=el)
    return warnings
