"""Rigid transforms as 4x4 homogeneous numpy matrices.

Plain arrays rather than a wrapper class: kinematics batches thousands of them with one
matmul, and every format module can use them without learning a new type.
"""

from __future__ import annotations

import math

import numpy as np

Transform = np.ndarray  # shape (4, 4), or (..., 4, 4) when batched

IDENTITY = np.eye(4)
IDENTITY.setflags(write=False)


def make_transform(rotation: np.ndarray | None = None, position=None) -> np.ndarray:
    t = IDENTITY.copy()  # a copy is several times cheaper than np.eye(4), and loaders make one a pose
    if rotation is not None:
        t[:3, :3] = rotation
    if position is not None:
        t[:3, 3] = position
    return t


def translation(position) -> np.ndarray:
    return make_transform(None, position)


def inverse(t: np.ndarray) -> np.ndarray:
    """Inverse of a rigid transform (batched too), exact for orthonormal rotations.

    One transform is inverted with scalar math (loaders invert hundreds, one at a time, and einsum's
    set-up costs more than the arithmetic), summing in the order the batched path does.
    """
    if t.shape == (4, 4):
        (a, b, c, x), (d, e, f, y), (g, h, i, z), _ = t.tolist()
        return np.array([[a, d, g, -(0.0 + a * x + d * y + g * z)], [b, e, h, -(0.0 + b * x + e * y + h * z)],
                         [c, f, i, -(0.0 + c * x + f * y + i * z)], [0.0, 0.0, 0.0, 1.0]])
    out = np.zeros_like(t)
    rt = np.swapaxes(t[..., :3, :3], -1, -2)
    out[..., :3, :3] = rt
    out[..., :3, 3] = -np.einsum("...ij,...j->...i", rt, t[..., :3, 3])
    out[..., 3, 3] = 1.0
    return out


def _scaled3(v) -> tuple[float, tuple[float, float, float] | None]:
    """The largest magnitude m of three numbers and the numbers divided by it (None when m is zero or
    not finite), so that no square overflows or underflows.  Scalar math: every joint axis of every
    loader comes here, and numpy's reductions cost microseconds each."""
    x, y, z = float(v[0]), float(v[1]), float(v[2])
    m = max(abs(x), abs(y), abs(z))
    if m == 0.0 or not math.isfinite(m):
        return m, None
    return m, (x / m, y / m, z / m)


def vector_norm(v) -> float:
    """Euclidean norm without overflow or underflow in the squares (`[1e308, 1e308, 0]` is not inf)."""
    if len(v) == 3:
        m, scaled = _scaled3(v)
        if scaled is None:
            return m
        x, y, z = scaled
        return m * math.sqrt(x * x + y * y + z * z)
    a = np.asarray(v, dtype=float)
    m = float(np.max(np.abs(a))) if a.size else 0.0
    if m == 0.0 or not math.isfinite(m):
        return m
    with np.errstate(over="ignore"):
        return m * float(np.linalg.norm(a / m))


def plain_norm(v) -> float:
    """np.linalg.norm(v), the square root of the summed squares that the reference readers (MuJoCo, DART)
    compute, bit for bit; only where those squares overflow, the scaled norm (vector_norm), so that a
    length up to the largest double is not inf."""
    with np.errstate(over="ignore"):
        n = float(np.linalg.norm(v))
    return n if not math.isinf(n) else vector_norm(v)


def unit_vector(v, zero: float = 1e-12) -> np.ndarray | None:
    """`v` scaled to length 1, or None when its length is below `zero` (or it is not finite)."""
    if len(v) == 3:
        m, scaled = _scaled3(v)
        if scaled is None:
            return None
        x, y, z = scaled
        n = math.sqrt(x * x + y * y + z * z)
        if m * n < zero:
            return None
        return np.array([x / n, y / n, z / n])
    a = np.asarray(v, dtype=float)
    m = float(np.max(np.abs(a))) if a.size else 0.0
    if not math.isfinite(m) or m == 0.0:
        return None
    scaled = a / m
    n = float(np.linalg.norm(scaled))
    if m * n < zero:
        return None
    return scaled / n


def unit_rows(v: np.ndarray) -> np.ndarray:
    """The rows of `v` (n x 3, each of length at least 1e-12, finite) as unit vectors, in one go.

    Bit for bit what unit_vector gives each row (the same operations in the same order), except
    that a row already of length 1 to within 1e-12 is kept as it is: dividing by a norm of 1 +- 1
    ulp would change the last digits of an axis as written.
    """
    x, y, z = v.T
    with np.errstate(over="ignore"):  # an axis of 1e200 is a direction: its square is only tested
        unit = np.abs(x * x + y * y + z * z - 1.0) <= 2e-12
    if unit.all():
        return v
    out = v.copy()
    k = np.flatnonzero(~unit)
    m = np.abs(v[k]).max(axis=1)
    sx, sy, sz = (v[k] / m[:, None]).T
    n = np.sqrt(sx * sx + sy * sy + sz * sz)
    out[k, 0], out[k, 1], out[k, 2] = sx / n, sy / n, sz / n
    return out


def rot_x(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]])


def rot_z(a: float) -> np.ndarray:
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def rpy_to_matrix(rpy) -> np.ndarray:
    """URDF/SDF fixed-axis roll-pitch-yaw: R = Rz(yaw) Ry(pitch) Rx(roll)."""
    r, p, y = rpy
    return rot_z(y) @ rot_y(p) @ rot_x(r)


def rpy_xyz_to_transform(rpy, xyz) -> np.ndarray:
    """Pose from URDF-style rpy and xyz, with scalar math: loaders call this for every element."""
    r, p, y = rpy
    cr, sr = math.cos(r), math.sin(r)
    cp, sp = math.cos(p), math.sin(p)
    cy, sy = math.cos(y), math.sin(y)
    return np.array(
        [
            [cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr, xyz[0]],
            [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr, xyz[1]],
            [-sp, cp * sr, cp * cr, xyz[2]],
            [0.0, 0.0, 0.0, 1.0],
        ]
    )


def rpy_xyz_to_transforms(rpy: np.ndarray, xyz: np.ndarray) -> np.ndarray:
    """(N, 4, 4) poses from (N, 3) roll-pitch-yaw and (N, 3) positions, for a loader's poses all at once.

    The same expressions in the same order as rpy_xyz_to_transform, so each pose is bit-identical to
    the one-element version (test_transforms_stacked checks it), at a fraction of a microsecond a pose.
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
    out[:, :3, 3] = np.asarray(xyz, dtype=float).reshape(-1, 3)
    out[:, 3, 3] = 1.0
    return out


def matrix_to_rpy(rot: np.ndarray) -> np.ndarray:
    """Roll-pitch-yaw (R = Rz(y) Ry(p) Rx(r)) that rebuilds `rot` to a few ulps, even near gimbal lock.

    Exporters write every pose through this, so accuracy matters: pitch and roll are solved from
    Rz(y)^T R, whose column 0 and row 1 hold them at full precision, whereas asin (and reading roll
    from R directly) loses half the digits near +-90 deg pitch.
    """
    r = np.asarray(rot, dtype=float)
    yaw = math.atan2(r[1, 0], r[0, 0])
    m = rot_z(yaw).T @ r  # = Ry(p) Rx(r) up to rounding
    pitch = math.atan2(-m[2, 0], m[0, 0])
    roll = math.atan2(-m[1, 2], m[1, 1])
    return np.array([roll, pitch, yaw])


def unit_quaternions(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(q / |q|, |q|) over the last axis.

    A quaternion whose components are near the largest double is still a direction, but its squares
    overflow: divided by an infinite norm it would become zero, the identity rotation.  Only then are
    the quaternions measured scaled by their largest component (so every other input keeps the
    plain quotient, bit for bit); a norm beyond a double is inf, a zero or non-finite one is NaN or 0
    for the caller to refuse.
    """
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        n = np.linalg.norm(q, axis=-1, keepdims=True)
        unit = q / n
        over = np.isinf(n)[..., 0]
        if over.any():  # those rows only: every other keeps its plain quotient
            big = np.max(np.abs(q[over]), axis=-1, keepdims=True)
            scaled = q[over] / big
            scaled_n = np.linalg.norm(scaled, axis=-1, keepdims=True)
            unit[over] = scaled / scaled_n
            n[over] = scaled_n * big
        return unit, n[..., 0]


def quat_to_matrix(q) -> np.ndarray:
    """Unit quaternion (w, x, y, z) to rotation matrix; batched over leading axes."""
    q = unit_quaternions(np.asarray(q, dtype=float))[0]
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    out = np.empty(q.shape[:-1] + (3, 3))
    out[..., 0, 0] = 1 - 2 * (y * y + z * z)
    out[..., 0, 1] = 2 * (x * y - w * z)
    out[..., 0, 2] = 2 * (x * z + w * y)
    out[..., 1, 0] = 2 * (x * y + w * z)
    out[..., 1, 1] = 1 - 2 * (x * x + z * z)
    out[..., 1, 2] = 2 * (y * z - w * x)
    out[..., 2, 0] = 2 * (x * z - w * y)
    out[..., 2, 1] = 2 * (y * z + w * x)
    out[..., 2, 2] = 1 - 2 * (x * x + y * y)
    return out


def matrix_to_quat(rot: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) to unit quaternions (..., 4) as (w, x, y, z) with w >= 0.

    Shepperd's method, vectorised (the ROS layer converts every /tf transform through this):
    each matrix pivots on the largest of w, x, y, z, so no division by a small number happens.
    """
    m = np.asarray(rot, dtype=float)
    shape = m.shape[:-2]
    m = m.reshape(-1, 3, 3)
    m00, m11, m22 = m[:, 0, 0], m[:, 1, 1], m[:, 2, 2]
    d21, d02, d10 = m[:, 2, 1] - m[:, 1, 2], m[:, 0, 2] - m[:, 2, 0], m[:, 1, 0] - m[:, 0, 1]
    s01, s02, s12 = m[:, 0, 1] + m[:, 1, 0], m[:, 0, 2] + m[:, 2, 0], m[:, 1, 2] + m[:, 2, 1]
    diag = np.stack([m00 + m11 + m22, m00 - m11 - m22, m11 - m00 - m22, m22 - m00 - m11], axis=1)
    pivot = np.argmax(diag, axis=1)
    rows = np.arange(len(m))
    s = 2.0 * np.sqrt(np.maximum(1.0 + diag[rows, pivot], 1e-300))
    inv, quarter = 1.0 / s, 0.25 * s
    cands = np.empty((4, len(m), 4))  # (w, x, y, z) for each pivot
    cands[0] = np.stack([quarter, d21 * inv, d02 * inv, d10 * inv], axis=1)
    cands[1] = np.stack([d21 * inv, quarter, s01 * inv, s02 * inv], axis=1)
    cands[2] = np.stack([d02 * inv, s01 * inv, quarter, s12 * inv], axis=1)
    cands[3] = np.stack([d10 * inv, s02 * inv, s12 * inv, quarter], axis=1)
    q = cands[pivot, rows]
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    q[q[:, 0] < 0] *= -1.0
    return q.reshape(shape + (4,))


def axis_angle_to_matrix(axis, angle) -> np.ndarray:
    """Rodrigues' formula, batched: axis (..., 3) unit vectors, angle (...)."""
    axis = np.asarray(axis, dtype=float)
    angle = np.asarray(angle, dtype=float)
    c = np.cos(angle)[..., None, None]
    s = np.sin(angle)[..., None, None]
    x, y, z = axis[..., 0], axis[..., 1], axis[..., 2]
    k = np.zeros(np.broadcast_shapes(axis.shape[:-1], angle.shape) + (3, 3))
    k[..., 0, 1] = -z
    k[..., 0, 2] = y
    k[..., 1, 0] = z
    k[..., 1, 2] = -x
    k[..., 2, 0] = -y
    k[..., 2, 1] = x
    outer = axis[..., :, None] * axis[..., None, :]
    return c * np.eye(3) + s * k + (1 - c) * outer


def rotation_vector_to_matrix(v) -> np.ndarray:
    """Exponential map of a rotation vector (DART ball/free joints)."""
    v = np.asarray(v, dtype=float)
    angle = plain_norm(v)  # an angle up to the largest double is still an angle
    if not math.isfinite(angle):
        return np.full((3, 3), np.nan)  # no rotation: for the caller to refuse, with its element
    if angle < 1e-15:
        return np.eye(3)
    return axis_angle_to_matrix(v / angle, angle)


def det3(m) -> float:
    """The determinant of a 3x3 matrix by cofactors, in floats.

    LAPACK's LU (np.linalg.det) says "divide by zero" on a singular matrix with a subnormal entry (a
    rotation read from a file as [[0, 0, 0], [0, 1, 0], [1e-320, 0, 1]]), which is no error of ours, and
    costs more at this size."""
    (a, b, c), (d, e, f), (g, h, i) = np.asarray(m, dtype=float).tolist()
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


def is_rotation(rot: np.ndarray, tol: float = 1e-6) -> bool:
    r = np.asarray(rot, dtype=float)
    if r.shape != (3, 3):
        return False
    err = float(np.abs(r @ r.T - np.eye(3)).max())  # nan fails the comparison below too
    return err < tol and abs(det3(r) - 1.0) < tol


def orthonormalize(rot: np.ndarray) -> np.ndarray:
    """Nearest rotation (polar decomposition), to remove rounding left by text formats."""
    u, _, vt = np.linalg.svd(rot)
    r = u @ vt
    if det3(r) < 0:
        u[:, -1] *= -1
        r = u @ vt
    return r
