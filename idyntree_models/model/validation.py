"""Checks that a model is a physically meaningful tree.

Loaders call `validate` last so that no format can hand out a half-valid model; each problem is
reported with the element it belongs to.
"""

from __future__ import annotations

import logging
import math

import numpy as np

from ..errors import ModelError
from .model import ForceTorqueSensor, JointType, LinkSensor, Model
from .topology import tree_order
from .transforms import is_rotation

log = logging.getLogger(__name__)

# Published robots (CAD exports) carry inertias that are indefinite by rounding-level amounts;
# below this magnitude a negative principal moment is reported, not refused.
NEGLIGIBLE_INERTIA = 1e-6


def symmetric_eigenvalues(m: np.ndarray) -> list[float]:
    """Sorted eigenvalues of a symmetric 3x3 matrix in closed form (Smith's method).

    Called for every link of every model loaded; LAPACK's per-call overhead dominates at 3x3.
    """
    a = m.tolist()
    p1 = a[0][1] ** 2 + a[0][2] ** 2 + a[1][2] ** 2
    q = (a[0][0] + a[1][1] + a[2][2]) / 3.0
    if p1 == 0.0:
        return sorted([a[0][0], a[1][1], a[2][2]])
    p2 = (a[0][0] - q) ** 2 + (a[1][1] - q) ** 2 + (a[2][2] - q) ** 2 + 2.0 * p1
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
    """
    warnings: list[str] = []
    i = np.asarray(inertia, dtype=float)
    total = mass + float(np.sum(com)) + float(i.sum())
    if total - total != 0.0:  # nan or inf somewhere
        raise ModelError("inertial values must be finite numbers", element=element)
    if mass < 0:
        if reject_impossible:
            raise ModelError(f"mass {mass} is negative", element=element)
        warnings.append(f"{element}: mass {mass} is negative (no rigid body has it); kept as written")
    scale = max(1.0, float(np.abs(i).max()))
    if float(np.abs(i - i.T).max()) > tol * scale:
        raise ModelError("rotational inertia is not symmetric", element=element)
    if not i.any():
        return warnings
    eig = symmetric_eigenvalues(i)
    if -NEGLIGIBLE_INERTIA <= eig[0] < -1e-9 * scale:
        warnings.append(
            f"{element}: rotational inertia is not positive semi-definite (smallest principal moment "
            f"{eig[0]:.3g} kg m^2), by less than {NEGLIGIBLE_INERTIA:g} kg m^2; kept as written"
        )
    elif eig[0] < -1e-9 * scale:
        if reject_impossible:
            raise ModelError(f"rotational inertia is not positive semi-definite (principal moments {eig})",
                             element=element)
        warnings.append(
            f"{element}: rotational inertia is not positive semi-definite (principal moments "
            f"{', '.join(f'{x:.3g}' for x in eig)} kg m^2): no rigid body has it; kept as written, as iDynTree "
            "and Gazebo load it"
        )
        return warnings  # the triangle inequality means nothing for an indefinite tensor
    a, b, c = sorted(eig)
    if a + b < c - 1e-6 * max(c, 1e-12) and c > 0:
        warnings.append(
            f"{element}: principal moments {[float(x) for x in (a, b, c)]} violate the triangle "
            "inequality (no rigid body has this inertia)"
        )
    return warnings


def validate(model: Model, *, source: str | None = None) -> list[str]:
    """Validate the whole model; raise ModelError on the first error, return warnings.

    Loaders may record where each element came from in model.metadata["lines"] (keyed by the
    element description, e.g. "link 'base'"), so that errors found here still carry a line.
    """
    try:
        return _validate(model)
    except ModelError as e:
        lines = model.metadata.get("lines", {})
        if e.line is None and e.element is not None and e.element in lines:
            e.line = lines[e.element]
            e.args = (str(e),)
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
        element = f"link '{link.name}'"
        for w in check_inertia(link.inertia.mass, link.inertia.com, link.inertia.inertia, element):
            line = model.metadata.get("lines", {}).get(element)
            warnings.append(f"line {line}: {w}" if line else w)
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
        elif isinstance(sensor, LinkSensor) and sensor.parent_link not in model.links:
            raise ModelError(f"parent link '{sensor.parent_link}' does not exist", element=el)
    return warnings
