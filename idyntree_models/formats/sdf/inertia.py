"""`<inertial auto="true">` (SDF 1.11): mass, centre of mass and inertia from the collision shapes.

As the specification and libsdformat 14 do: each collision contributes a solid of its shape with
its `<density>` (else the inertial's `<density>`, else 1000 kg/m^3, water), the contributions are
summed about the common centre of mass, and a `<mass>` given next to `auto="true"` scales the
densities so that the total is that mass.  Meshes (which need the mesh file) and cones are not
computed here.
"""

from __future__ import annotations

import math

import numpy as np

from ...model.model import Box, Capsule, Cylinder, Ellipsoid, Inertia, Shape, Sphere, shift_inertia

DEFAULT_DENSITY = 1000.0


def solid(shape: Shape) -> tuple[float, np.ndarray] | None:
    """Volume and inertia per unit density about the shape's own origin, in its own axes.

    None for shapes whose volume we cannot compute (mesh, cone, plane...).
    """
    if isinstance(shape, Box):
        a, b, c = (float(v) for v in shape.size)
        v = a * b * c
        return v, v / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    if isinstance(shape, Sphere):
        r = float(shape.radius)
        v = 4.0 / 3.0 * math.pi * r**3
        return v, v * 0.4 * r * r * np.eye(3)
    if isinstance(shape, Ellipsoid):
        a, b, c = (float(x) for x in shape.radii)
        v = 4.0 / 3.0 * math.pi * a * b * c
        return v, v / 5.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    if isinstance(shape, Capsule):
        r, h = float(shape.radius), float(shape.length)
        vc, vh = math.pi * r * r * h, 4.0 / 3.0 * math.pi * r**3  # cylinder, both hemispheres
        ixx = vc * (3 * r * r + h * h) / 12.0 + vh * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0)
        izz = vc * r * r / 2.0 + vh * 0.4 * r * r
        return vc + vh, np.diag([ixx, ixx, izz])
    if isinstance(shape, Cylinder):
        r, h = float(shape.radius), float(shape.length)
        v = math.pi * r * r * h
        ixx = v * (3 * r * r + h * h) / 12.0
        return v, np.diag([ixx, ixx, v * r * r / 2.0])
    return None


def combine(parts: list[tuple[float, np.ndarray, np.ndarray]]) -> Inertia:
    """Sum of (mass, link_H_part, inertia about the part origin in part axes) about the common COM."""
    mass = sum(m for m, _, _ in parts)
    if mass <= 0.0:
        return Inertia(0.0)
    com = sum(m * t[:3, 3] for m, t, _ in parts) / mass
    total = np.zeros((3, 3))
    for m, t, i in parts:
        rot = t[:3, :3]
        total += shift_inertia(rot @ i @ rot.T, m, t[:3, 3] - com)
    return Inertia(mass, com, total)


__all__ = ["DEFAULT_DENSITY", "combine", "solid"]
