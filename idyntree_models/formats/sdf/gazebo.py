"""URDF `<gazebo>` extensions written as SDF, as libsdformat's URDF reader (`ign sdf -p`) does.

A URDF keeps simulator settings in `<gazebo>` blocks: with `reference="L"` they belong to link or
joint L (sensors, friction and contact parameters, materials, self-collision, joint physics),
without one to the model (plugins).  The URDF reader keeps the blocks as XML text in
`model.extensions` (top-level `<gazebo>`); here they become the SDF elements libsdformat makes of them, in the
link, joint or model we write.  We never lump fixed joints, so a reference to a link that became a
frame (a massless leaf) moves its sensors to the frame's link with the frame's pose composed;
other settings of such a reference are dropped with a warning.
"""

from __future__ import annotations

import copy
import math

import numpy as np
from lxml import etree

from ...errors import listed
from ...model.model import Model
from ...model.transforms import inverse, matrix_to_rpy
from ..base import Diagnostics
from ..common import format_numbers, pose_text_transform
from ..xmlutil import find_child, find_children, parse_xml

# link settings: URDF extension tag -> (path inside each <collision>, or None for the link itself, SDF tag)
_COLLISION = {
    "mu1": "surface/friction/ode/mu", "mu2": "surface/friction/ode/mu2", "fdir1": "surface/friction/ode/fdir1",
    "slip1": "surface/friction/ode/slip1", "slip2": "surface/friction/ode/slip2",
    "kp": "surface/contact/ode/kp", "kd": "surface/contact/ode/kd",
    "minDepth": "surface/contact/ode/min_depth", "maxVel": "surface/contact/ode/max_vel",
    "maxContacts": "max_contacts", "laserRetro": "laser_retro",
}
_LINK = {"selfCollide": "self_collide", "gravity": "gravity", "kinematic": "kinematic", "enable_wind": "enable_wind"}
_JOINT = {
    "provideFeedback": ("physics/provide_feedback", "physics/ode/provide_feedback"),
    "implicitSpringDamper": ("physics/ode/implicit_spring_damper",),
    "cfmDamping": ("physics/ode/implicit_spring_damper",),
    "stopCfm": ("physics/ode/limit/cfm",), "stopErp": ("physics/ode/limit/erp",),
    "fudgeFactor": ("physics/ode/fudge_factor",),
    "springReference": ("axis/dynamics/spring_reference",),
    "springStiffness": ("axis/dynamics/spring_stiffness",),
}
_NO_OUTPUT = {"disableFixedJointLumping", "preserveFixedJoint"}  # we never lump fixed joints


def gazebo_extensions(model: Model) -> list:
    """The URDF's top-level `<gazebo>` blocks, as the URDF reader keeps them (model.extensions)."""
    return [e for e in model.extensions if e.format == "urdf" and e.tag == "gazebo" and e.owner_kind is None]


def blocks(model: Model, diag: Diagnostics) -> list[etree._Element]:
    out = []
    for text in (e.xml for e in gazebo_extensions(model)):
        try:
            out.append(parse_xml(text))
        except Exception:  # a block we kept ourselves: never expected to fail, never fatal
            diag.warn("a <gazebo> block could not be read back; not written")
    return out


def _value(el: etree._Element) -> str:
    """A setting's value: the old `value` attribute (`<material value="Gazebo/Black"/>`) or the text."""
    return (el.get("value") if el.get("value") is not None else el.text or "").strip()


def _path(parent: etree._Element, path: str) -> etree._Element:
    """The element at `path` below `parent`, created where missing (first match otherwise)."""
    el = parent
    for tag in path.split("/"):
        nxt = find_child(el, tag)
        el = nxt if nxt is not None else etree.SubElement(el, tag)
    return el


def _set(parent: etree._Element, path: str, text: str) -> None:
    _path(parent, path).text = text


def apply_gazebo_extensions(model: Model, m: etree._Element, links: dict[str, etree._Element],
                            joints: dict[str, etree._Element], diag: Diagnostics) -> None:
    """Write the model's URDF `<gazebo>` blocks into the SDF `<model>` `m` (links/joints by model name)."""
    dropped: list[str] = []  # settings for shapes a link does not have (_link_block)
    sensors = _GazeboSensors()
    for block in blocks(model, diag):
        ref = (block.get("reference") or "").strip()
        if not ref:
            _model_block(block, m, diag)
        elif ref in links:
            _link_block(block, links[ref], np.eye(4), ref, diag, whole=True, dropped=dropped, sensors=sensors)
        elif ref in joints:
            _joint_block(block, joints[ref], ref, diag, sensors)
        elif ref in model.frames and model.frames[ref].parent_link in links:
            frame = model.frames[ref]
            _link_block(block, links[frame.parent_link], frame.link_H_frame, ref, diag, whole=False, dropped=dropped,
                        sensors=sensors)
        else:
            diag.warn(f"<gazebo reference=\"{ref}\">: no link or joint '{ref}' is written; its settings are dropped")
    if dropped:
        diag.warn(f"{len(dropped)} <gazebo reference> setting(s) for visuals or collisions that the link does not have "
                  f"are dropped, as libsdformat drops them: {listed(dropped, 6)}")
    if sensors.added:
        diag.warn(f"{len(sensors.added)} <gazebo> sensor(s) written as sensors of the SDF beside the model's, as "
                  f"libsdformat converts the URDF ({listed(sensors.added, 6)}): read back from SDF they are sensors of "
                  "the model, which a URDF written from it gives iDynTree as <sensor> elements")
    if sensors.conflicts:
        diag.warn(f"{len(sensors.conflicts)} <gazebo> sensor(s) say otherwise than the model's sensor of their name, "
                  f"whose values are written (libsdformat's conversion of the URDF takes the <gazebo> block's): "
                  f"{listed(sensors.conflicts, 4)}")


class _GazeboSensors:
    """What writing the <gazebo> blocks' sensors did, said once: sensors added beside the model's, and those whose
    values disagree with the model's sensor of that name (merged into it: the model's win)."""

    def __init__(self) -> None:
        self.added: list[str] = []
        self.conflicts: list[str] = []
        self.elements: set[etree._Element] = set()  # the sensors added (a later block's of their name is not ours)


def _model_block(block: etree._Element, m: etree._Element, diag: Diagnostics) -> None:
    for c in block:
        if not isinstance(c.tag, str):
            continue
        if c.tag in ("static", "self_collide", "allow_auto_disable", "enable_wind"):
            _set(m, c.tag, _value(c))
        elif c.tag in ("selfCollide",):
            _set(m, "self_collide", _value(c))
        elif c.tag in ("pose", "canonicalBody"):
            diag.warn(f"<gazebo> <{c.tag}> of the model is not written (the model frame is its base link's)")
        else:
            m.append(copy.deepcopy(c))  # plugins and anything libsdformat copies as is


def _link_block(block: etree._Element, le: etree._Element, link_H_ref: np.ndarray, ref: str, diag: Diagnostics,
                whole: bool, dropped: list[str], sensors: _GazeboSensors) -> None:
    for c in block:
        if not isinstance(c.tag, str):
            continue
        if c.tag == "sensor":
            _sensor(le, c, link_H_ref, diag, sensors)
            continue
        if not whole:
            diag.warn(f"<gazebo reference=\"{ref}\"> <{c.tag}>: '{ref}' is a frame of link '{le.get('name')}' in "
                      "this model, not a link; dropped")
            continue
        text = _value(c)
        kind = ("collision" if c.tag in _COLLISION or c.tag == "collision" else "visual" if c.tag in ("material", "visual")
                else None)
        if kind is not None and not find_children(le, kind):  # (libsdformat drops it without a word)
            dropped.append(f"<{c.tag}> of '{ref}' (no {kind})")
            continue
        if c.tag in _COLLISION:
            for col in find_children(le, "collision"):
                _set(col, _COLLISION[c.tag], text)
        elif c.tag in _LINK:
            _set(le, _LINK[c.tag], text)
        elif c.tag == "turnGravityOff":
            _set(le, "gravity", "false" if text.lower() in ("1", "true") else "true")
        elif c.tag == "dampingFactor":
            _set(le, "velocity_decay/linear", text)
            _set(le, "velocity_decay/angular", text)
        elif c.tag == "material":
            for vis in find_children(le, "visual"):
                script = _path(vis, "material/script")
                _set(script, "uri", "file://media/materials/scripts/gazebo.material")
                _set(script, "name", text)
        elif c.tag in ("visual", "collision"):
            for target in find_children(le, c.tag):
                _merge(target, c)
        elif c.tag in _NO_OUTPUT:
            continue
        else:
            le.append(copy.deepcopy(c))


def _joint_block(block: etree._Element, je: etree._Element, ref: str, diag: Diagnostics,
                 sensors: _GazeboSensors) -> None:
    for c in block:
        if not isinstance(c.tag, str):
            continue
        text = _value(c)
        if c.tag == "sensor":
            _sensor(je, c, np.eye(4), diag, sensors)
        elif c.tag in _JOINT:
            if c.tag.startswith("spring") and find_child(je, "axis") is None:
                continue
            for path in _JOINT[c.tag]:
                _set(je, path, text)
        elif c.tag in _NO_OUTPUT:
            continue
        else:
            je.append(copy.deepcopy(c))


_COLOURS = frozenset(("ambient", "diffuse", "specular", "emissive"))


def _merge(target: etree._Element, extra: etree._Element) -> None:
    """Children of `extra` that `target` lacks are added; those it has are merged recursively.  A colour of a
    <material> is Gazebo's where the block gives one: libsdformat lets the extension's material win over the
    URDF colour (sdformat#526)."""
    for c in extra:
        if not isinstance(c.tag, str):
            continue
        have = find_child(target, c.tag)
        if have is None or c.tag == "plugin":
            target.append(copy.deepcopy(c))
        elif len(c):
            _merge(have, c)
        elif target.tag == "material" and c.tag in _COLOURS:
            have.text = c.text


def _sensor(parent: etree._Element, sensor: etree._Element, parent_H_ref: np.ndarray, diag: Diagnostics,
            sensors: _GazeboSensors) -> None:
    """A Gazebo sensor into a link or joint; merged into ours when we already write one of that name."""
    name = (sensor.get("name") or "").strip()
    ours = next((s for s in find_children(parent, "sensor") if s.get("name") == name), None)
    pose = find_child(sensor, "pose")
    ref_H = pose_text_transform(pose.text if pose is not None else None)  # (an empty <pose/> is the identity)
    h = parent_H_ref @ ref_H if ref_H is not None else None  # (None: not six numbers)
    if ours is not None:
        if ours.get("type") != sensor.get("type"):
            diag.warn(f"<gazebo> sensor '{name}' of type '{sensor.get('type')}' is not written: the model's own "
                      f"sensor of that name is of type '{ours.get('type')}'")
            return
        # (a second block's sensor of a name is merged into the first, not compared with it: only the model's own)
        differs = _differences(ours, sensor, h) if ours not in sensors.elements else []
        if differs:
            sensors.conflicts.append(f"'{name}' ({', '.join(differs)})")
        for c in sensor:  # what Gazebo adds (rates, noise, plugins); our pose and frame stay
            if isinstance(c.tag, str) and c.tag != "pose" and (find_child(ours, c.tag) is None or c.tag == "plugin"):
                ours.append(copy.deepcopy(c))
        return
    new = copy.deepcopy(sensor)
    if not np.allclose(parent_H_ref, np.eye(4)):
        if h is None:
            diag.warn(f"<gazebo> sensor '{name}': its <pose> is not six numbers; not written")
            return
        pose = find_child(new, "pose")
        if pose is None:
            pose = etree.SubElement(new, "pose")
        pose.text = format_numbers(list(h[:3, 3]) + list(matrix_to_rpy(h[:3, :3])), f"the pose of sensor '{name}'")
    parent.append(new)
    sensors.elements.add(new)
    sensors.added.append(f"'{name}' in {parent.tag} '{parent.get('name')}'")


_TRUE, _FALSE = frozenset(("1", "true")), frozenset(("0", "false"))


def _same_value(a: str, b: str) -> bool:
    """Two texts of one value as SDF reads them: booleans by truth ('1' is 'true'), numbers by value."""
    a, b = a.strip(), b.strip()
    if a == b:
        return True
    la, lb = a.lower(), b.lower()
    if (la in _TRUE and lb in _TRUE) or (la in _FALSE and lb in _FALSE):
        return True
    try:
        x, y = [float(v) for v in a.split()], [float(v) for v in b.split()]
    except ValueError:
        return False
    return len(x) == len(y) and bool(np.allclose(x, y, rtol=1e-12, atol=0.0))


def _differences(ours: etree._Element, theirs: etree._Element, parent_H_theirs: np.ndarray | None) -> list[str]:
    """Where a <gazebo> sensor gives a value the model's sensor of its name (as written) has otherwise: its pose
    (`parent_H_theirs`: where libsdformat puts it, its own <pose> or none; None where that is not six numbers),
    and each value both give (a force/torque <frame>, <measure_direction>), by value. A force/torque `sensor` frame
    at the joint (the identity) is the `child` frame, spelled otherwise."""
    out = []
    mine = find_child(ours, "pose")
    mine_H = pose_text_transform(mine.text if mine is not None else None)  # (as our writer writes it: six numbers)
    if parent_H_theirs is not None:
        d = inverse(mine_H) @ parent_H_theirs
        r = d[:3, :3]
        apart = float(np.linalg.norm(d[:3, 3]))
        turned = math.atan2(0.5 * math.hypot(r[2, 1] - r[1, 2], r[0, 2] - r[2, 0], r[1, 0] - r[0, 1]),
                            (float(np.trace(r)) - 1.0) / 2.0)
        if apart > 1e-6 or turned > 1e-6:  # (below: the rounding of a file's numbers, iCub's rpy at 3e-8 rad)
            out.append(f"<pose> {apart:.3g} m and {turned:.3g} rad apart")

    def frame(keyword: str, el_H: np.ndarray | None) -> str:
        at_joint = el_H is not None and np.allclose(el_H, np.eye(4), rtol=0.0, atol=1e-9)
        return "child" if keyword == "sensor" and at_joint else keyword

    def walk(a: etree._Element, b: etree._Element, path: str) -> None:
        for c in b:
            if not isinstance(c.tag, str) or c.tag in ("pose", "plugin"):
                continue
            mine = find_child(a, c.tag)
            if mine is None:
                continue
            if len(c):
                walk(mine, c, f"{path}<{c.tag}>")
                continue
            if len(mine):
                continue
            x, y = (mine.text or "").strip(), (c.text or "").strip()
            if path == "<force_torque>" and c.tag == "frame":
                x, y = frame(x, mine_H), frame(y, parent_H_theirs)
            if not _same_value(x, y):
                out.append(f"{path}<{c.tag}> {y!r} against {x!r}")

    walk(ours, theirs, "")
    return out


__all__ = ["apply_gazebo_extensions", "gazebo_extensions"]
