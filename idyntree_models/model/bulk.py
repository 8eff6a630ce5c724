"""Numeric work over all links or joints of a model at once (loaders and validation).

A model of N links costs N small numpy calls when each element is handled on its own, and at 3x3
numpy's per-call overhead is most of the time.  These functions do the same arithmetic on stacked
arrays in a few calls.  The checks are screens: they return the elements that could fail (or warn)
and leave the verdict, and its message, to the exact per-element check, so behaviour is unchanged.
"""

from __future__ import annotations

import numpy as np

# margin of the screens: stacked arithmetic may differ from the per-element one in the last bits
_MARGIN = 1e-12


def rpy_xyz_to_transforms(rpy: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    """(N, 4, 4) poses from (N, 3) roll-pitch-yaw (R = Rz(y) Ry(p) Rx(r)) and (N, 3) positions.

    The same expressions, in the same order, as transforms.rpy_xyz_to_transform, so every entry
    is bit-identical to the one-element version.
    """
    rpy = np.asarray(rpy, dtype=float).reshape(-1, 3)
    cr, cp, cy = np.cos(rpy).T
    sr, sp, sy = np.sin(rpy).T
    out = np.zeros((len(rpy), 4, 4))
    out[:, 0, 0] = cy * cp
    out[:, 0, 1] = cy * sp * sr - sy * cr
    out[:, 0, 2] = cy * sp * cr + sy * sr
    out[:, 1, 0] = sy * cp
    out[:, 1, 1] = sy * sp * sr + cy * cr
    out[:, 1, 2] = sy * sp * cr - cy * sr
    out[:, 2, 0] = -sp
    out[:, 2, 1] = cp * sr
    out[:, 2, 2] = cp * cr
    out[:, :3, 3] = xyz
    out[:, 3, 3] = 1.0
    return out


def _unit_scale_eigenvalues(u: np.ndarray) -> np.ndarray:
    """Sorted eigenvalues (N, 3) of symmetric (N, 3, 3) matrices with entries in [-1, 1] (Smith's method)."""
    p1 = u[:, 0, 1] ** 2 + u[:, 0, 2] ** 2 + u[:, 1, 2] ** 2
    q = np.trace(u, axis1=1, axis2=2) / 3.0
    d = np.diagonal(u, axis1=1, axis2=2) - q[:, None]
    p = np.sqrt((np.sum(d * d, axis=1) + 2.0 * p1) / 6.0)
    diagonal = p1 == 0.0
    p = np.where(diagonal, 1.0, p)
    b = (u - q[:, None, None] * np.eye(3)) / p[:, None, None]
    r = np.clip(np.linalg.det(b) / 2.0, -1.0, 1.0) if len(b) else np.zeros(0)
    phi = np.arccos(r) / 3.0
    e1 = q + 2.0 * p * np.cos(phi)
    e3 = q + 2.0 * p * np.cos(phi + 2.0 * np.pi / 3.0)
    eig = np.stack([e1, 3.0 * q - e1 - e3, e3], axis=1)
    eig = np.where(diagonal[:, None], np.diagonal(u, axis1=1, axis2=2), eig)
    return np.sort(eig, axis=1)


def inertia_suspects(masses: np.ndarray, coms: np.ndarray, inertias: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """Indices of the links whose inertia validation.check_inertia might refuse or warn about.

    The others are finite, of non-negative mass, symmetric, positive semi-definite and within the
    triangle inequality by more than the screen's margin, so the exact check would say nothing.
    """
    masses = np.asarray(masses, dtype=float)
    n = len(masses)
    if n == 0:
        return np.zeros(0, dtype=int)
    i = np.asarray(inertias, dtype=float).reshape(n, 3, 3)
    finite = np.isfinite(masses) & np.isfinite(np.asarray(coms, dtype=float).reshape(n, 3)).all(axis=1)
    finite &= np.isfinite(i).reshape(n, 9).all(axis=1)
    bad = ~finite | ~(masses >= 0.0)
    s = np.abs(np.where(finite[:, None, None], i, 0.0)).reshape(n, 9).max(axis=1)
    moving = s > 0.0
    scale = np.where(moving, s, 1.0)
    u = np.where(finite[:, None, None], i, 0.0) / scale[:, None, None]
    rel = np.maximum(1.0, scale) / scale
    bad |= moving & (np.abs(u - u.transpose(0, 2, 1)).reshape(n, 9).max(axis=1) > tol * rel * 0.5)
    eig = _unit_scale_eigenvalues(0.5 * (u + u.transpose(0, 2, 1)))
    a, b, c = eig[:, 0], eig[:, 1], eig[:, 2]
    bad |= moving & (a < -1e-9 * rel + _MARGIN)
    bad |= moving & (c > 0) & (a + b < c - 1e-6 * np.maximum(c, 1e-12 / scale) + _MARGIN)
    return np.flatnonzero(bad)


def rotation_suspects(transforms: np.ndarray, tol: float = 1e-6) -> np.ndarray:
    """Indices of the (N, 4, 4) transforms whose rotation block transforms.is_rotation might refuse
    (or that are not finite)."""
    t = np.asarray(transforms, dtype=float).reshape(-1, 4, 4)
    if len(t) == 0:
        return np.zeros(0, dtype=int)
    finite = np.isfinite(t).reshape(len(t), 16).all(axis=1)
    r = np.where(finite[:, None, None], t[:, :3, :3], np.eye(3))
    err = np.abs(r @ r.transpose(0, 2, 1) - np.eye(3)).reshape(len(t), 9).max(axis=1)
    det = np.linalg.det(r)
    return np.flatnonzero(~finite | (err >= tol * 0.5) | (np.abs(det - 1.0) >= tol * 0.5))


def norm_suspects(vectors: np.ndarray, zero: float = 1e-12, unit: float = 1e-9) -> np.ndarray:
    """Indices of the (N, 3) vectors that are not finite, near zero, or not unit within `unit`:
    the joint axes validation normalises or refuses."""
    v = np.asarray(vectors, dtype=float).reshape(-1, 3)
    finite = np.isfinite(v).all(axis=1)
    n = np.sqrt(np.sum(np.where(finite[:, None], v, 0.0) ** 2, axis=1))
    return np.flatnonzero(~finite | (n < zero * 10.0) | (np.abs(n - 1.0) > unit * 0.5))
