"""Compare two models by name, field by field, and by their kinematics at random configurations.

Reusable by every format's round-trip tests: `assert_models_equal(a, b)` raises one AssertionError
listing all differences (not only the first), which makes a failing round trip quick to read.
Things a format legitimately cannot keep are switched off with keyword arguments.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from idyntree_models.model.kinematics import Kinematics
from idyntree_models.model.model import (
    Box,
    Cylinder,
    ForceTorqueSensor,
    JointType,
    LinkSensor,
    Material,
    Mesh,
    Model,
    Shape,
    Sphere,
)


def _close(a, b, tol: float) -> bool:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)), float(np.max(np.abs(b), initial=0.0)))
    return bool(np.all(np.abs(a - b) <= tol * scale))


def _material_key(m: Material | None):
    if m is None or (m.color is None and m.texture is None and not m.name):
        return None
    with np.errstate(over="ignore"):  # a colour of 1e300 (the fuzzer's) rounds to inf on both sides
        color = None if m.color is None else tuple(np.round(np.asarray(m.color, float), 12))
    return (m.name or "", color, m.texture)


def _shape_diff(a: Shape, b: Shape, where: str, tol: float, materials: bool) -> list[str]:
    out: list[str] = []
    if type(a) is not type(b):
        return [f"{where}: {a.kind} vs {b.kind}"]
    if not _close(a.link_H_geometry, b.link_H_geometry, tol):
        out.append(f"{where}: pose differs\n{a.link_H_geometry}\n{b.link_H_geometry}")
    if (a.name or "") != (b.name or ""):
        out.append(f"{where}: name {a.name!r} vs {b.name!r}")
    if isinstance(a, Box) and not _close(a.size, b.size, tol):
        out.append(f"{where}: box size {a.size} vs {b.size}")
    if isinstance(a, Sphere) and not _close(a.radius, b.radius, tol):
        out.append(f"{where}: radius {a.radius} vs {b.radius}")
    if isinstance(a, Cylinder) and not _close([a.radius, a.length], [b.radius, b.length], tol):
        out.append(f"{where}: cylinder {a.radius, a.length} vs {b.radius, b.length}")
    if isinstance(a, Mesh) and (a.filename != b.filename or not _close(a.scale, b.scale, tol)):
        out.append(f"{where}: mesh {a.filename} {a.scale} vs {b.filename} {b.scale}")
    if materials and _material_key(a.material) != _material_key(b.material):
        out.append(f"{where}: material {_material_key(a.material)} vs {_material_key(b.material)}")
    return out


def _sensor_diff(a, b, tol: float) -> list[str]:
    where = f"sensor '{a.name}'"
    if type(a) is not type(b):
        return [f"{where}: {type(a).__name__} vs {type(b).__name__}"]
    out: list[str] = []
    if isinstance(a, ForceTorqueSensor):
        for attr in ("parent_joint", "first_link", "second_link", "applied_wrench_link"):
            if getattr(a, attr) != getattr(b, attr):
                out.append(f"{where}: {attr} {getattr(a, attr)!r} vs {getattr(b, attr)!r}")
        for attr in ("first_link_H_sensor", "second_link_H_sensor"):
            if not _close(getattr(a, attr), getattr(b, attr), tol):
                out.append(f"{where}: {attr} differs\n{getattr(a, attr)}\n{getattr(b, attr)}")
    elif isinstance(a, LinkSensor):
        if a.sensor_type != b.sensor_type or a.parent_link != b.parent_link:
            out.append(f"{where}: {a.sensor_type.value} on {a.parent_link} vs {b.sensor_type.value} on {b.parent_link}")
        if not _close(a.link_H_sensor, b.link_H_sensor, tol):
            out.append(f"{where}: link_H_sensor differs\n{a.link_H_sensor}\n{b.link_H_sensor}")
    return out


def random_configuration(model: Model, rng: np.random.Generator | None) -> dict[str, object]:
    """Positions for every moving joint (quaternions for spherical joints); all zero without `rng`.

    Mimic joints get the value their master implies, so the same configuration also drives a
    copy of the model that lost its mimic relations (formats without them).
    """
    config: dict[str, object] = {}
    for j in model.joints.values():
        if j.mimic is not None or j.dofs == 0:
            continue
        if j.type is JointType.SPHERICAL:
            q = rng.normal(size=4) if rng is not None else np.array([1.0, 0.0, 0.0, 0.0])
            config[j.name] = q / np.linalg.norm(q)
        else:
            config[j.name] = float(rng.uniform(-np.pi, np.pi)) if rng is not None else 0.0
    for j in model.joints.values():
        if j.mimic is not None:
            config[j.name] = j.mimic.multiplier * float(config.get(j.mimic.joint, 0.0)) + j.mimic.offset
    return config


def model_differences(
    a: Model,
    b: Model,
    *,
    tol: float = 1e-9,
    check_name: bool = True,
    check_shapes: bool = True,
    check_materials: bool = True,
    check_sensors: bool = True,
    check_limits: bool = True,
    check_dynamics: bool = True,
    check_mimic: bool = True,
    ignore_frames: Iterable[str] = (),
    kinematics_samples: int = 5,
    seed: int = 0,
    config_map=None,
) -> list[str]:
    """Every difference between `a` and `b` as readable lines (empty when equal).

    `config_map(config_a) -> config_b` translates joint positions when `b` names or splits joints
    differently (e.g. a spherical joint written as three revolutes).
    """
    out: list[str] = []
    ignore = set(ignore_frames)
    if check_name and a.name != b.name:
        out.append(f"name {a.name!r} vs {b.name!r}")
    if a.default_base_link != b.default_base_link:
        out.append(f"default_base_link {a.default_base_link!r} vs {b.default_base_link!r}")
    if set(a.links) != set(b.links):
        out.append(f"links only in a: {sorted(set(a.links) - set(b.links))}; only in b: {sorted(set(b.links) - set(a.links))}")
    for name in set(a.links) & set(b.links):
        la, lb = a.links[name], b.links[name]
        ia, ib = la.inertia, lb.inertia
        if not _close(ia.mass, ib.mass, tol) or not _close(ia.com, ib.com, tol) or not _close(ia.inertia, ib.inertia, tol):
            out.append(f"link '{name}': inertia {ia} vs {ib}")
        if check_shapes:
            for kind in ("visuals", "collisions"):
                sa, sb = getattr(la, kind), getattr(lb, kind)
                if len(sa) != len(sb):
                    out.append(f"link '{name}': {len(sa)} vs {len(sb)} {kind}")
                    continue
                for k, (x, y) in enumerate(zip(sa, sb)):
                    out += _shape_diff(x, y, f"link '{name}' {kind}[{k}]", tol, check_materials and kind == "visuals")
    fa, fb = set(a.frames) - ignore, set(b.frames) - ignore
    if fa != fb:
        out.append(f"frames only in a: {sorted(fa - fb)}; only in b: {sorted(fb - fa)}")
    for name in fa & fb:
        x, y = a.frames[name], b.frames[name]
        if x.parent_link != y.parent_link or not _close(x.link_H_frame, y.link_H_frame, tol):
            out.append(f"frame '{name}': on {x.parent_link}\n{x.link_H_frame}\nvs on {y.parent_link}\n{y.link_H_frame}")
    if set(a.joints) != set(b.joints):
        out.append(
            f"joints only in a: {sorted(set(a.joints) - set(b.joints))}; only in b: {sorted(set(b.joints) - set(a.joints))}"
        )
    for name in set(a.joints) & set(b.joints):
        x, y = a.joints[name], b.joints[name]
        where = f"joint '{name}'"
        if (x.type, x.parent, x.child) != (y.type, y.parent, y.child):
            out.append(f"{where}: {x.type.value} {x.parent}->{x.child} vs {y.type.value} {y.parent}->{y.child}")
            continue
        if not _close(x.rest_transform, y.rest_transform, tol):
            out.append(f"{where}: rest transform differs\n{x.rest_transform}\n{y.rest_transform}")
        if x.type in (JointType.REVOLUTE, JointType.PRISMATIC):
            if not _close(x.axis, y.axis, tol):
                out.append(f"{where}: axis {x.axis} vs {y.axis}")
            if x.type is JointType.REVOLUTE:
                pa = x.axis_origin - (x.axis_origin @ x.axis) * x.axis
                pb = y.axis_origin - (y.axis_origin @ y.axis) * y.axis
                if not _close(pa, pb, tol):
                    out.append(f"{where}: axis origin {x.axis_origin} vs {y.axis_origin}")
        if x.type is JointType.SPHERICAL and not _close(x.center, y.center, tol):
            out.append(f"{where}: centre {x.center} vs {y.center}")
        if check_limits and x.dofs == 1:
            la, lb = x.limits, y.limits
            for flag, val in (
                ("has_position_limits", ("min_position", "max_position")),
                ("has_effort_limit", ("effort_limit",)),
                ("has_velocity_limit", ("velocity_limit",)),
            ):
                if getattr(la, flag) != getattr(lb, flag):
                    out.append(f"{where}: {flag} {getattr(la, flag)} vs {getattr(lb, flag)}")
                elif getattr(la, flag) and not _close([getattr(la, v) for v in val], [getattr(lb, v) for v in val], tol):
                    out.append(f"{where}: {val} {[getattr(la, v) for v in val]} vs {[getattr(lb, v) for v in val]}")
        if check_dynamics and x.dofs == 1:
            da = None if x.dynamics is None else (x.dynamics.damping, x.dynamics.friction)
            db = None if y.dynamics is None else (y.dynamics.damping, y.dynamics.friction)
            if (da is None) != (db is None) or (da is not None and not _close(da, db, tol)):
                out.append(f"{where}: dynamics {da} vs {db}")
        if check_mimic:
            ma = None if x.mimic is None else (x.mimic.joint, x.mimic.multiplier, x.mimic.offset)
            mb = None if y.mimic is None else (y.mimic.joint, y.mimic.multiplier, y.mimic.offset)
            if (ma is None) != (mb is None) or (ma is not None and (ma[0] != mb[0] or not _close(ma[1:], mb[1:], tol))):
                out.append(f"{where}: mimic {ma} vs {mb}")
    if check_sensors:
        if set(a.sensors) != set(b.sensors):
            out.append(
                f"sensors only in a: {sorted(set(a.sensors) - set(b.sensors))}; "
                f"only in b: {sorted(set(b.sensors) - set(a.sensors))}"
            )
        for name in set(a.sensors) & set(b.sensors):
            out += _sensor_diff(a.sensors[name], b.sensors[name], tol)
    if out or not kinematics_samples:
        return out
    ka, kb = Kinematics(a), Kinematics(b)
    common = [n for n in ka.frame_names if n in kb.frame_index and n not in ignore]
    rng = np.random.default_rng(seed)
    for sample in range(kinematics_samples):
        config = random_configuration(a, None if sample == 0 else rng)
        wa = ka.world_transforms(config)
        wb = kb.world_transforms(config_map(config) if config_map else config)
        bad = [n for n in common if not _close(wa[n], wb[n], tol)]
        if bad:
            out.append(f"world transforms differ at configuration {sample} for frames {bad[:10]}")
    return out


def assert_models_equal(a: Model, b: Model, **kwargs) -> None:
    """Fail with the list of differences between two models (see model_differences for options)."""
    diffs = model_differences(a, b, **kwargs)
    if diffs:
        shown = "\n".join(diffs[:25]) + (f"\n... and {len(diffs) - 25} more" if len(diffs) > 25 else "")
        raise AssertionError(f"models differ ({len(diffs)} difference(s)):\n{shown}")


__all__ = ["assert_models_equal", "model_differences", "random_configuration"]
