"""iDynTree model JSON (`idyntree-model-json`, version 1).

The schema is iDynTree's (see shared/docs/urdf-and-idyntree.md): transforms as position plus
rotation matrix, link inertia about the link ORIGIN, 1-DOF axes in the child frame.  Keys are
sorted with a 2-space indent so files diff cleanly; floats are written with repr, so they read
back bit for bit.
"""

from __future__ import annotations

import json
import re

import numpy as np

from ..errors import ModelError
from ..model.model import (
    Box,
    Cylinder,
    Dynamics,
    ForceTorqueSensor,
    Frame,
    Inertia,
    Joint,
    JointType,
    Limits,
    Link,
    LinkSensor,
    Material,
    Mesh,
    Model,
    SensorType,
    Shape,
    Sphere,
)
from ..model.transforms import det3, unit_vector, vector_norm
from .base import Diagnostics, ExportOptions, LoadOptions, decode_utf8
from .numbers import BadJsonNumber, NumberError, json_loads, json_number, json_number_line, lone_surrogate_line, show

VERSION = 1
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


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


def _ft_frame_keyword(parent_h: np.ndarray, child_h: np.ndarray) -> str:
    """The <frame> keyword a force/torque sensor read from JSON gets: JSON holds its pose only."""
    if np.array_equal(child_h, np.eye(4)):
        return "child"
    if np.array_equal(parent_h, np.eye(4)):
        return "parent"
    return "sensor"


def _sensor(s, model: Model, diag: Diagnostics) -> dict | None:
    if isinstance(s, ForceTorqueSensor):
        joint = model.joints.get(s.parent_joint)
        first_is_parent = joint is None or s.first_link == joint.parent
        h = (s.first_link_H_sensor, s.second_link_H_sensor)
        read_back = _ft_frame_keyword(*(h if first_is_parent else h[::-1]))
        if read_back != s.frame:
            diag.warn(f"force/torque sensor '{s.name}': its frame keyword '{s.frame}' is not written (JSON holds the "
                      f"sensor's pose, the same measurement frame, read back as '{read_back}')")
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
    kind = getattr(s, "subtype", None) or s.type.value
    diag.warn(f"sensor '{s.name}' ({kind}) has no idyntree-model-json form and was dropped")
    return None


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    _ = options
    doc = {
        "idyntree_model_json_version": VERSION,
        # Not in iDynTree's schema (it keeps no robot name); an extra top-level key that iDynTree's
        # reader ignores, so that the name survives JSON (the node's get_model, the estimator).
        "name": model.name,
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
        "sensors": [d for d in (_sensor(s, model, diag) for s in model.sensors.values()) if d is not None],
    }
    bad = _first_unreadable(doc, "")
    if bad is not None:
        path, why = bad
        raise ModelError(f"{_owner(doc, path)}: {why}, which idyntree-model-json readers refuse", element=path)
    mimics = [j.name for j in model.joints.values() if j.mimic is not None]
    if mimics:
        diag.warn(f"idyntree-model-json has no mimic joints; written as independent joints: {', '.join(mimics)}")
    return json.dumps(doc, indent=2, sort_keys=True, allow_nan=False) + "\n"


# strings our reader refuses when blank (names and references); shape and material names may be empty
_NON_BLANK = {"name", "parent_link", "child_link", "link_name", "filename", "texture", "parent_joint", "first_link",
              "second_link", "applied_wrench_link", "default_base_link", "type"}
_NON_NEGATIVE = {"size", "radius", "length"}


def _first_unreadable(v, path: str, key: str = "") -> tuple[str, str] | None:
    """JSON path and reason of the first value of the document that our reader would refuse.

    The exporter's own arithmetic (inertia about the link origin) can overflow a double, and models
    built in Python or read from other formats can hold what this format cannot (negative sizes, blank
    names, lone surrogates): refusing here keeps the promise that every file we write loads back.
    """
    if isinstance(v, float):
        if v - v != 0.0:
            return path, (f"the value is beyond the range of a double ({v}, computed from finite values: e.g. mass "
                          "times the squared distance of the centre of mass, for the inertia about the link origin)")
        if key in _NON_NEGATIVE and v < 0 and ".shapes[" in path:
            return path, f"the shape {key} {v} is negative"
        return None
    if isinstance(v, str):
        if not v.isascii():
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return path, "the text holds a lone UTF-16 surrogate, no character"
        if key in _NON_BLANK and not v.strip() and not (key == "name" and (".shapes[" in path or ".material" in path)):
            return path, f"the {key} is empty"
        return None
    if isinstance(v, dict):
        for k, x in v.items():
            found = _first_unreadable(x, f"{path}.{k}" if path else k, k)
            if found is not None:
                return found
    elif isinstance(v, list):
        for i, x in enumerate(v):
            found = _first_unreadable(x, f"{path}[{i}]", key)
            if found is not None:
                return found
    return None


def _owner(doc: dict, path: str) -> str:
    """'link 'x'' / 'joint 'y'' for a path of the document, for the message."""
    m = re.match(r"(links|joints|additional_frames|sensors|visual_solid_shapes|collision_solid_shapes)\[(\d+)\]", path)
    if m is None:
        return "the model"
    item = doc[m.group(1)][int(m.group(2))]
    kind = {"links": "link", "joints": "joint", "additional_frames": "frame", "sensors": "sensor"}.get(m.group(1))
    if kind is None:
        return f"a shape of link '{item['link_name']}'"
    return f"{kind} '{item['name']}'"


# -- import ----------------------------------------------------------------------------------
# Everything `dump` writes reads back; anything else is checked with an error naming the JSON
# path (`joints[3].rest_transform.rotation_matrix`), because iDynTree itself checks only that
# referenced links and joints exist.

_ROTATION_TOL = 1e-6


def _error(path: str, message: str, line: int | None = None) -> ModelError:
    return ModelError(message, element=path or "(top level)", line=line)


def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float, BadJsonNumber)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    return "an object"


class _Reader:
    def __init__(self, diag: Diagnostics, text: str = "") -> None:
        self.diag = diag
        self.text = text  # for the line of a refused number

    # -- containers
    def obj(self, v, path: str, known: tuple[str, ...] | None = None) -> dict:
        if not isinstance(v, dict):
            raise _error(path, f"expected an object, got {_kind(v)}")
        if known is not None:
            extra = sorted(set(v) - set(known))
            if extra:
                self.diag.warn(f"{path or 'top level'}: unknown key(s) {', '.join(extra)} ignored")
        return v

    def key(self, d: dict, key: str, path: str):
        if key not in d:
            raise _error(path, f"missing key '{key}'")
        return d[key]

    def array(self, v, path: str) -> list:
        if not isinstance(v, list):
            raise _error(path, f"expected an array, got {_kind(v)}")
        return v

    # -- scalars
    def string(self, v, path: str, allow_empty: bool = False) -> str:
        if not isinstance(v, str):
            raise _error(path, f"expected a string, got {_kind(v)}")
        if not allow_empty and not v.strip():
            raise _error(path, "must not be empty")
        bad = _NOT_XML.search(v)
        if bad is not None:  # every other format is XML, which cannot hold it (a tab or a line break it can)
            raise _error(path, f"{v!r} holds the control character U+{ord(bad.group()):04X}, which no other format can "
                               "hold")
        return v

    def boolean(self, v, path: str) -> bool:
        if not isinstance(v, bool):
            raise _error(path, f"expected true or false, got {_kind(v)}")
        return v

    def number(self, v, path: str) -> float:
        try:
            return json_number(v)
        except TypeError:
            raise _error(path, f"expected a number, got {_kind(v)}") from None
        except NumberError as e:
            line = json_number_line(self.text, v.ordinal) if isinstance(v, BadJsonNumber) else None
            raise _error(path, f"{show(e.token)} {e.reason}", line) from None

    def vector(self, v, path: str, n: int) -> np.ndarray:
        items = self.array(v, path)
        if len(items) != n:
            raise _error(path, f"expected {n} numbers, got {len(items)}")
        return np.array([self.number(x, f"{path}[{i}]") for i, x in enumerate(items)])

    def matrix3(self, v, path: str) -> np.ndarray:
        rows = self.array(v, path)
        if len(rows) != 3:
            raise _error(path, f"expected 3 rows of 3 numbers, got {len(rows)} rows")
        return np.array([self.vector(r, f"{path}[{i}]", 3) for i, r in enumerate(rows)])

    def transform(self, d: dict, key: str, path: str) -> np.ndarray:
        p = f"{path}.{key}" if path else key
        t = self.obj(self.key(d, key, path), p, ("position", "rotation_matrix"))
        pos = self.vector(self.key(t, "position", p), f"{p}.position", 3)
        rot = self.matrix3(self.key(t, "rotation_matrix", p), f"{p}.rotation_matrix")
        if float(np.max(np.abs(rot))) > 1.0 + _ROTATION_TOL:  # also keeps the products below from overflowing
            raise _error(f"{p}.rotation_matrix", "is not a rotation matrix: an entry is larger than 1 in magnitude")
        err = float(np.max(np.abs(rot @ rot.T - np.eye(3))))
        det = det3(rot)
        if err > _ROTATION_TOL or abs(det - 1.0) > _ROTATION_TOL:
            what = "a reflection (determinant -1)" if det < 0 and err <= _ROTATION_TOL else "not orthonormal"
            raise _error(
                f"{p}.rotation_matrix",
                f"is not a rotation matrix: {what} (|R R^T - I| = {err:.3g}, det = {det:.6g})",
            )
        if err > 1e-12:  # text rounding: snap to the nearest rotation so kinematics stay rigid
            from ..model.transforms import orthonormalize

            rot = orthonormalize(rot)
        out = np.eye(4)
        out[:3, :3] = rot
        out[:3, 3] = pos
        return out


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs: list) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _DuplicateKey(k)
        out[k] = v
    return out


_JSON_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:]')


def _duplicate_key_line(text: str) -> int | None:
    """Line of the repeated key the json module refused: its hook sees objects as they close (the innermost
    first), not where they are, so the objects are closed here in the same order."""
    open_objects: list[tuple[set, list] | None] = []  # each object's keys and its first repeat's line; None: array
    last = None
    for m in _JSON_STRUCTURE.finditer(text):
        token = m.group()
        if token == "{" or token == "[":
            open_objects.append((set(), []) if token == "{" else None)
        elif token == "}" or token == "]":
            closed = open_objects.pop() if open_objects else None
            if closed is not None and closed[1]:
                return closed[1][0]
        elif token == ":" and last is not None and open_objects and open_objects[-1] is not None:
            keys, repeats = open_objects[-1]
            key = json.loads(last.group())
            if key in keys and not repeats:
                repeats.append(text.count("\n", 0, last.start()) + 1)
            keys.add(key)
        last = m if token[0] == '"' else None
    return None


def _parse(text: str | bytes) -> tuple[object, str]:
    """The document and its text (line ends normalised to LF, so that lines count on CR-only files)."""
    if isinstance(text, bytes):
        text = decode_utf8(text)
    text = text.lstrip("\ufeff")
    if "\r" in text:  # CR is white space between JSON tokens and invalid inside strings: same document
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    line = lone_surrogate_line(text)
    if line is not None:
        raise ModelError("a string holds a \\u escape of a lone UTF-16 surrogate (D800-DFFF not in a pair), "
                         "which is no character", line=line)
    try:
        return json_loads(text, object_pairs_hook=_no_duplicate_keys), text
    except json.JSONDecodeError as e:
        raise ModelError(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})", line=e.lineno) from None
    except _DuplicateKey as e:  # (JSON readers differ on which of the two they keep)
        raise ModelError(f"duplicate key '{e.args[0]}' in a JSON object", line=_duplicate_key_line(text)) from None
    except RecursionError:
        raise ModelError("invalid JSON: nested too deeply") from None


_TOP_KEYS = (
    "idyntree_model_json_version",
    "default_base_link",
    "links",
    "joints",
    "additional_frames",
    "visual_solid_shapes",
    "collision_solid_shapes",
    "sensors",
    "name",
)


def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    _ = options
    doc, text = _parse(text)
    r = _Reader(diag, text)
    r.obj(doc, "", _TOP_KEYS)
    version = r.key(doc, "idyntree_model_json_version", "")
    if isinstance(version, bool) or not isinstance(version, int):
        raise _error("idyntree_model_json_version", f"expected the integer {VERSION}, got {_kind(version)} {version!r}")
    if version != VERSION:
        raise _error("idyntree_model_json_version", f"version {version} is not supported, expected {VERSION}")
    model = Model(name=r.string(doc["name"], "name") if "name" in doc else "model")
    model.default_base_link = None
    for i, v in enumerate(r.array(r.key(doc, "links", ""), "links")):
        _load_link(r, v, f"links[{i}]", model)
    if not model.links:
        raise _error("links", "the model has no links")
    joints_path: dict[str, str] = {}
    for i, v in enumerate(r.array(r.key(doc, "joints", ""), "joints")):
        path = f"joints[{i}]"
        joint = _load_joint(r, v, path, model)
        if joint.name in model.joints:
            raise _error(f"{path}.name", f"duplicate joint name '{joint.name}' (also {joints_path[joint.name]})")
        joints_path[joint.name] = path
        model.joints[joint.name] = joint
    _check_base(r, doc, model, joints_path)
    for i, v in enumerate(r.array(doc.get("additional_frames", []), "additional_frames")):
        _load_frame(r, v, f"additional_frames[{i}]", model)
    for key, attr in (("visual_solid_shapes", "visuals"), ("collision_solid_shapes", "collisions")):
        seen: set[str] = set()
        for i, v in enumerate(r.array(doc.get(key, []), key)):
            _load_link_shapes(r, v, f"{key}[{i}]", model, attr, seen)
    for i, v in enumerate(r.array(doc.get("sensors", []), "sensors")):
        sensor = _load_sensor(r, v, f"sensors[{i}]", model)
        if sensor is not None:
            model.sensors[sensor.name] = sensor
    return model


def _load_link(r: _Reader, v, path: str, model: Model) -> None:
    from ..model.validation import check_inertia

    d = r.obj(v, path, ("name", "inertia"))
    name = r.string(r.key(d, "name", path), f"{path}.name")
    if name in model.links:
        raise _error(f"{path}.name", f"duplicate link name '{name}'")
    p = f"{path}.inertia"
    ine = r.obj(r.key(d, "inertia", path), p, ("mass", "center_of_mass", "rotational_inertia_wrt_frame_origin"))
    mass = r.number(r.key(ine, "mass", p), f"{p}.mass")  # a negative one: a warning from validate()
    com = r.vector(r.key(ine, "center_of_mass", p), f"{p}.center_of_mass", 3)
    i_o = r.matrix3(
        r.key(ine, "rotational_inertia_wrt_frame_origin", p), f"{p}.rotational_inertia_wrt_frame_origin"
    )
    inertia = Inertia.from_origin(mass, com, i_o)
    try:
        check_inertia(mass, com, inertia.inertia, f"link '{name}'")  # warnings come from validate()
    except ModelError as e:
        raise _error(f"{p}.rotational_inertia_wrt_frame_origin", f"link '{name}': {e.message}") from None
    model.links[name] = Link(name, inertia)


_JSON_JOINT_TYPES = ("fixed", "revolute", "revolute_so2", "prismatic", "spherical")


def _link_ref(r: _Reader, d: dict, key: str, path: str, model: Model) -> str:
    name = r.string(r.key(d, key, path), f"{path}.{key}")
    if name not in model.links:
        raise _error(f"{path}.{key}", f"link '{name}' does not exist")
    return name


def _load_joint(r: _Reader, v, path: str, model: Model) -> Joint:
    d = r.obj(
        v,
        path,
        (
            "name",
            "type",
            "parent_link",
            "child_link",
            "rest_transform",
            "axis",
            "limits",
            "dynamics",
            "joint_center_wrt_parent",
        ),
    )
    name = r.string(r.key(d, "name", path), f"{path}.name")
    type_name = r.string(r.key(d, "type", path), f"{path}.type")
    if type_name not in _JSON_JOINT_TYPES:
        raise _error(f"{path}.type", f"unknown joint type '{type_name}' (expected one of {', '.join(_JSON_JOINT_TYPES)})")
    parent = _link_ref(r, d, "parent_link", path, model)
    child = _link_ref(r, d, "child_link", path, model)
    if parent == child:
        raise _error(path, f"joint '{name}' connects link '{parent}' to itself")
    rest = r.transform(d, "rest_transform", path)
    if type_name == "fixed":
        _not_read(r, d, ("axis", "limits", "dynamics", "joint_center_wrt_parent"), path, "a fixed joint has none")
        return Joint(name, JointType.FIXED, parent, child, rest)
    if type_name == "spherical":
        center = None
        if "joint_center_wrt_parent" in d:
            center = r.vector(d["joint_center_wrt_parent"], f"{path}.joint_center_wrt_parent", 3)
        _not_read(r, d, ("axis",), path, "a spherical joint has none")
        if "limits" in d:
            lim = _load_limits(r, d["limits"], f"{path}.limits", so2=False, size=3)
            if lim.has_position_limits or lim.has_effort_limit or lim.has_velocity_limit:
                r.diag.warn(f"{path}.limits: limits of spherical joint '{name}' are not supported and were ignored")
        if "dynamics" in d and _load_dynamics(r, d["dynamics"], f"{path}.dynamics", size=3) is not None:
            r.diag.warn(f"{path}.dynamics: damping and friction of spherical joint '{name}' are not supported and "
                        "were ignored")
        return Joint(name, JointType.SPHERICAL, parent, child, rest, center=center)
    jtype = JointType.PRISMATIC if type_name == "prismatic" else JointType.REVOLUTE
    ap = f"{path}.axis"
    axis_d = r.obj(r.key(d, "axis", path), ap, ("direction", "origin"))
    direction = r.vector(r.key(axis_d, "direction", ap), f"{ap}.direction", 3)
    norm = vector_norm(direction)
    if norm < 1e-12:
        raise _error(f"{ap}.direction", f"joint '{name}' has a zero axis direction")
    origin = r.vector(axis_d["origin"], f"{ap}.origin", 3) if "origin" in axis_d else np.zeros(3)
    if abs(norm - 1.0) > 1e-12:  # a unit axis is kept bit for bit, so JSON -> JSON is the identity
        direction = unit_vector(direction)
    joint = Joint(name, jtype, parent, child, rest, axis=direction, axis_origin=origin)
    if "limits" in d:
        joint.limits = _load_limits(r, d["limits"], f"{path}.limits", so2=type_name == "revolute_so2")
    if "dynamics" in d:
        joint.dynamics = _load_dynamics(r, d["dynamics"], f"{path}.dynamics")
    return joint


def _not_read(r: _Reader, d: dict, keys: tuple[str, ...], path: str, why: str) -> None:
    """Keys of the schema that mean nothing where they are: said, not dropped silently."""
    given = [k for k in keys if k in d]
    if given:
        r.diag.warn(f"{path}: {', '.join(given)} not read ({why})")


# each limit's flag and the values it enables (the schema writes a value only where its flag is true)
_LIMIT_FLAGS = (("has_position_limits", ("min_position", "max_position")), ("has_effort_limits", ("effort_limit",)),
                ("has_velocity_limits", ("velocity_limit",)))


def _load_limits(r: _Reader, v, path: str, so2: bool, size: int = 1) -> Limits:
    """The limits; `size` 3: a spherical joint's (read to be checked, then not used)."""
    d = r.obj(v, path, tuple(k for flag, values in _LIMIT_FLAGS for k in (flag, *values)))
    lim = Limits()
    flags = {}
    for flag, values in _LIMIT_FLAGS:
        flags[flag] = r.boolean(d[flag], f"{path}.{flag}") if flag in d else False
        if not flags[flag]:
            _not_read(r, d, values, path, f"{flag} is {'false' if flag in d else 'missing'}")

    def value(key: str):
        x = r.key(d, key, path)
        return r.number(x, f"{path}.{key}") if size == 1 else r.vector(x, f"{path}.{key}", size)

    lim.has_position_limits = flags["has_position_limits"]
    if lim.has_position_limits:
        if so2:
            raise _error(f"{path}.has_position_limits", "a revolute_so2 joint has no position limits")
        lo, hi = value("min_position"), value("max_position")
        if size == 1:
            lim.min_position, lim.max_position = lo, hi
            if lo > hi:
                raise _error(path, f"min_position {lo} is above max_position {hi}")
    lim.has_effort_limit = flags["has_effort_limits"]
    if lim.has_effort_limit:
        effort = value("effort_limit")
        if size == 1:
            lim.effort_limit = effort
    lim.has_velocity_limit = flags["has_velocity_limits"]
    if lim.has_velocity_limit:
        velocity = value("velocity_limit")
        if size == 1:
            lim.velocity_limit = velocity
    return lim


def _load_dynamics(r: _Reader, v, path: str, size: int = 1) -> Dynamics | None:
    """The dynamics; `size` 3: a spherical joint's (read to be checked; None when it has none)."""
    d = r.obj(v, path, ("type", "damping", "static_friction"))
    kind = r.string(r.key(d, "type", path), f"{path}.type")
    if kind == "NoJointDynamics":  # (iDynTree writes zeros beside it; other values are said)
        values = {k: (r.number(d[k], f"{path}.{k}") if size == 1 else r.vector(d[k], f"{path}.{k}", size))
                  for k in ("damping", "static_friction") if k in d}
        _not_read(r, {k: x for k, x in values.items() if np.any(np.asarray(x) != 0.0)}, ("damping", "static_friction"),
                  path, "the type is NoJointDynamics")
        return None
    if kind != "URDFJointDynamics":
        raise _error(f"{path}.type", f"unknown joint dynamics '{kind}' (expected NoJointDynamics or URDFJointDynamics)")
    if size == 3:
        values = [r.vector(d[k], f"{path}.{k}", 3) for k in ("damping", "static_friction") if k in d]
        return Dynamics(0.0, 0.0) if any(np.any(x != 0.0) for x in values) else None
    damping = r.number(d.get("damping", 0.0), f"{path}.damping")
    friction = r.number(d.get("static_friction", 0.0), f"{path}.static_friction")
    return Dynamics(damping, friction)


def _check_base(r: _Reader, doc: dict, model: Model, joints_path: dict[str, str]) -> None:
    from ..model.topology import tree_order

    try:
        tree = tree_order(model)
    except ModelError as e:  # at the entry it names: a joint, or a link (in the order of `links`)
        kind, _, name = (e.element or "").partition(" ")
        name = name.strip("'")
        links = {n: f"links[{i}]" for i, n in enumerate(model.links)}
        where = joints_path.get(name) if kind == "joint" else links.get(name) if kind == "link" else None
        raise _error(where or "joints", e.message if where or not e.element else f"{e.element}: {e.message}") from None
    base = doc.get("default_base_link")
    if base is None:
        model.default_base_link = tree.root
        return
    base = r.string(base, "default_base_link")
    if base not in model.links:
        raise _error("default_base_link", f"link '{base}' does not exist")
    if base != tree.root:
        raise _error(
            "default_base_link",
            f"link '{base}' is not the root of the joint tree: joints point away from the base, and the only link "
            f"that is no joint's child is '{tree.root}'",
        )
    model.default_base_link = base


def _load_frame(r: _Reader, v, path: str, model: Model) -> None:
    d = r.obj(v, path, ("name", "parent_link", "link_H_frame"))
    name = r.string(r.key(d, "name", path), f"{path}.name")
    if name in model.links:
        raise _error(f"{path}.name", f"frame name '{name}' is already a link name")
    if name in model.frames:
        raise _error(f"{path}.name", f"duplicate frame name '{name}'")
    parent = _link_ref(r, d, "parent_link", path, model)
    model.frames[name] = Frame(name, parent, r.transform(d, "link_H_frame", path))


_SHAPE_KEYS = (
    "type",
    "has_name",
    "name",
    "link_H_geometry",
    "has_material",
    "material",
    "size",
    "radius",
    "length",
    "filename",
    "scale",
)


def _load_link_shapes(r: _Reader, v, path: str, model: Model, attr: str, seen: set[str]) -> None:
    d = r.obj(v, path, ("link_name", "shapes"))
    link = _link_ref(r, d, "link_name", path, model)
    if link in seen:
        r.diag.warn(f"{path}: link '{link}' is listed twice; its shapes are appended")
    seen.add(link)
    target = getattr(model.links[link], attr)
    for i, s in enumerate(r.array(r.key(d, "shapes", path), f"{path}.shapes")):
        target.append(_load_shape(r, s, f"{path}.shapes[{i}]"))


def _nonneg(r: _Reader, d: dict, key: str, path: str) -> float:
    x = r.number(r.key(d, key, path), f"{path}.{key}")
    if x < 0:
        raise _error(f"{path}.{key}", f"{key} {x} is negative")
    return x


def _load_shape(r: _Reader, v, path: str) -> Shape:
    d = r.obj(v, path, _SHAPE_KEYS)
    kind = r.string(r.key(d, "type", path), f"{path}.type")
    pose = r.transform(d, "link_H_geometry", path)
    name = None
    if r.boolean(d["has_name"], f"{path}.has_name") if "has_name" in d else "name" in d:
        name = r.string(r.key(d, "name", path), f"{path}.name", allow_empty=True)
    shape: Shape
    if kind == "box":
        size = r.vector(r.key(d, "size", path), f"{path}.size", 3)
        if np.any(size < 0):
            raise _error(f"{path}.size", f"box size {size.tolist()} has a negative side")
        shape = Box(pose, name, size=size)
    elif kind == "sphere":
        shape = Sphere(pose, name, radius=_nonneg(r, d, "radius", path))
    elif kind == "cylinder":
        shape = Cylinder(pose, name, radius=_nonneg(r, d, "radius", path), length=_nonneg(r, d, "length", path))
    elif kind == "external_mesh":
        filename = r.string(r.key(d, "filename", path), f"{path}.filename")
        scale = r.vector(d["scale"], f"{path}.scale", 3) if "scale" in d else np.ones(3)
        shape = Mesh(pose, name, filename=filename, scale=scale)
    else:
        raise _error(f"{path}.type", f"unknown shape type '{kind}' (expected box, sphere, cylinder or external_mesh)")
    if r.boolean(d["has_material"], f"{path}.has_material") if "has_material" in d else "material" in d:
        mp = f"{path}.material"
        m = r.obj(r.key(d, "material", path), mp, ("name", "has_color", "color", "has_texture", "texture"))
        mat = Material((r.string(m["name"], f"{mp}.name", allow_empty=True) or None) if "name" in m else None)
        if r.boolean(m["has_color"], f"{mp}.has_color") if "has_color" in m else "color" in m:
            mat.color = r.vector(r.key(m, "color", mp), f"{mp}.color", 4)
        if r.boolean(m["has_texture"], f"{mp}.has_texture") if "has_texture" in m else "texture" in m:
            mat.texture = r.string(r.key(m, "texture", mp), f"{mp}.texture")
        shape.material = mat
    return shape


_JSON_LINK_SENSORS = {v: k for k, v in _LINK_SENSOR_TYPES.items()}


def _load_sensor(r: _Reader, v, path: str, model: Model):
    d = r.obj(v, path)
    name = r.string(r.key(d, "name", path), f"{path}.name")
    if name in model.sensors:
        raise _error(f"{path}.name", f"duplicate sensor name '{name}'")
    kind = r.string(r.key(d, "type", path), f"{path}.type")
    if kind == "six_axis_force_torque":
        r.obj(d, path, ("name", "type", "parent_joint", "first_link", "second_link", "applied_wrench_link",
                        "first_link_H_sensor", "second_link_H_sensor"))
        jname = r.string(r.key(d, "parent_joint", path), f"{path}.parent_joint")
        joint = model.joints.get(jname)
        if joint is None:
            raise _error(f"{path}.parent_joint", f"joint '{jname}' does not exist")
        links = {}
        for key in ("first_link", "second_link", "applied_wrench_link"):
            links[key] = _link_ref(r, d, key, path, model)
            if links[key] not in (joint.parent, joint.child):
                raise _error(
                    f"{path}.{key}",
                    f"link '{links[key]}' is not one of the links of joint '{jname}' ('{joint.parent}', '{joint.child}')",
                )
        if links["first_link"] == links["second_link"]:
            raise _error(path, f"first_link and second_link are both '{links['first_link']}'")
        first_h = r.transform(d, "first_link_H_sensor", path)
        second_h = r.transform(d, "second_link_H_sensor", path)
        parent_h, child_h = (first_h, second_h) if links["first_link"] == joint.parent else (second_h, first_h)
        if np.max(np.abs(joint.rest_transform @ child_h - parent_h)) > 1e-6:
            raise _error(
                path,
                f"first_link_H_sensor and second_link_H_sensor disagree with the rest transform of joint '{jname}' "
                "(they must describe the same sensor frame)",
            )
        frame = _ft_frame_keyword(parent_h, child_h)
        return ForceTorqueSensor(
            name,
            parent_joint=jname,
            first_link=links["first_link"],
            second_link=links["second_link"],
            applied_wrench_link=links["applied_wrench_link"],
            first_link_H_sensor=first_h,
            second_link_H_sensor=second_h,
            frame=frame,
        )
    if kind in _JSON_LINK_SENSORS or kind == "three_axis_force_torque_contact":
        r.obj(d, path, ("name", "type", "parent_link", "link_H_sensor", "load_cell_locations"))
        link = _link_ref(r, d, "parent_link", path, model)
        pose = r.transform(d, "link_H_sensor", path)
        if kind in _JSON_LINK_SENSORS:
            return LinkSensor(name, parent_link=link, link_H_sensor=pose, sensor_type=_JSON_LINK_SENSORS[kind])
        cells = [
            r.vector(c, f"{path}.load_cell_locations[{i}]", 3).tolist()
            for i, c in enumerate(r.array(d.get("load_cell_locations", []), f"{path}.load_cell_locations"))
        ]
        return LinkSensor(
            name,
            parent_link=link,
            link_H_sensor=pose,
            sensor_type=SensorType.OTHER,
            subtype=kind,
            properties={"load_cell_locations": cells},
        )
    r.diag.warn(f"{path}: sensor '{name}' of unknown type '{kind}' was ignored")
    return None
