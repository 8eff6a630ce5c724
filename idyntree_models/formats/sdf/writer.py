"""SDF 1.9 export: a model written so that our reader (and libsdformat) read the same model back.

Links are placed `relative_to="__model__"` of their model at the zero configuration, joints in
their child frame, inertials in the link frame, frames attached to their link.  `::` names become
nested models again; free bodies (a free link's six-joint chain) become free links; a massless
root link named `world` becomes SDF's own world attachment (joints whose parent is `world`).
Anything our reader would refuse is renamed with a warning (reserved names) or refused with the
element named (colours outside [0, 1], non-finite numbers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from lxml import etree

from ...errors import ModelError, listed
from ...model.kinematics import Kinematics
from ...model.model import (
    Box,
    Capsule,
    Cylinder,
    Ellipsoid,
    ForceTorqueSensor,
    FrameJoint,
    Joint,
    JointType,
    Link,
    LinkSensor,
    Mesh,
    Model,
    SensorType,
    Shape,
    Sphere,
)
from ...model.transforms import inverse, make_transform, matrix_to_rpy
from ...model.validation import check_inertia, validate
from ..base import Diagnostics, ExportOptions, LoadOptions
from ..common import (
    MAX_DISTANCE,
    base_pose_held,
    base_world_joint,
    default_free_prefix,
    format_number,
    format_numbers,
    free_chain_names,
    inertia_six,
    intact_free_chains,
    moved_base_pose,
    report_frame_joints,
    report_materials,
    unique_name,
)
from ..numbers import NumberError, show, xml_doubles
from ..xmlutil import attribute_prefixes
from .document import IDYNTREE_KIND, IDYNTREE_NS, NAMED_ENTITIES, SINGLE_IMU_KINDS, is_colour, reserved_name
from .frames import WORLD
from .gazebo import apply_gazebo_extensions, gazebo_extensions
from .kept import write_kept
from .reader import UNLIMITED, read_sdf
from .to_model import graph_to_model

_IDYNTREE_NSMAP = {"idyntree": IDYNTREE_NS}


def _pose_text(t: np.ndarray, what: str) -> str:
    return format_numbers(list(t[:3, 3]) + list(matrix_to_rpy(t[:3, :3])), f"the pose of {what}")


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrs) -> etree._Element:
    # our own elements declare their namespace themselves: declared on <sdf>, it would be in scope of (and so
    # serialised with) every element a reader keeps whole (kept.py)
    nsmap = _IDYNTREE_NSMAP if tag[0] == "{" else None
    e = etree.SubElement(parent, tag, {k: v for k, v in attrs.items() if v is not None}, nsmap=nsmap)
    if text is not None:
        e.text = text
    return e


@dataclass
class _Plan:
    """What is written where: output names, scopes of nested models, what is left out."""

    names: dict[str, str] = field(default_factory=dict)  # link name -> name as written (scoped)
    frames: dict[str, str] = field(default_factory=dict)  # frame name -> name as written
    joints: dict[str, str] = field(default_factory=dict)  # joint name -> name as written
    scopes: dict[str, etree._Element] = field(default_factory=dict)  # "" and "a::b" -> <model>
    scope_H: dict[str, np.ndarray] = field(default_factory=dict)  # base_H_scope model frame
    world_link: str | None = None  # a massless root written as SDF's world
    world_frame: str | None = None  # URDF's `world` link turned frame: written as the world attachment
    skip_links: set[str] = field(default_factory=set)
    skip_joints: set[str] = field(default_factory=set)
    skip_frames: set[str] = field(default_factory=set)
    to_world: set[str] = field(default_factory=set)  # fixed joints written with `world` as parent
    extra_joints: list[Joint] = field(default_factory=list)  # dropped world joints written back
    mimics: list[tuple[etree._Element, Joint, str]] = field(default_factory=list)  # (<joint>, joint, scope)

    def scope_of(self, name: str) -> str:
        """The nested model an output name lives in ('' = top)."""
        head, sep, _ = name.rpartition("::")
        return head if sep and head in self.scopes else ""

    def local(self, name: str) -> str:
        """An output name relative to its own scope."""
        s = self.scope_of(name)
        return name[len(s) + 2:] if s else name

    def ref(self, name: str, scope: str) -> str | None:
        """How `scope` refers to an output name (None: it cannot, the name is outside it)."""
        if name == WORLD:
            return WORLD
        if not scope:
            return name
        return name[len(scope) + 2:] if name.startswith(scope + "::") else None


def dump(model: Model, options: ExportOptions, diag: Diagnostics) -> str:
    """SDF 1.9 of the model: links placed in their model frame, joints in their child frames."""
    if options.sdf_version not in ("1.9", None):
        diag.warn(f"SDF {options.sdf_version} was asked; SDF 1.9 is written")
    root = etree.Element("sdf", {"version": "1.9"}, nsmap=attribute_prefixes(model.extensions, "sdf") or None)
    m = _sub(root, "model", name=_model_name(model.name, diag))
    if model.metadata.get("static"):
        _sub(m, "static", "true")
    world_H = _zero_pose(model)
    _check_range(model, world_H)
    report_materials(model, "SDF", diag, names=False, collisions=False)  # (colours only, on visuals)
    plan = _plan(model, m, world_H, diag)
    report_frame_joints(model, "SDF", diag, written={WORLD} if plan.world_frame is not None else ())
    base = model.default_base_link
    ordered = ([base] if base in model.links else []) + [n for n in model.links if n != base]
    if base in model.links and base not in plan.skip_links and base != plan.world_link:
        m.set("canonical_link", plan.names[base])
    links: dict[str, etree._Element] = {}
    sensors: dict[str, etree._Element] = {}  # by model sensor name (an IMU written from a pair: its accelerometer's)
    renamed: list[str] = []
    unreserved: list[str] = []  # shapes whose name SDF reserves, written under another
    for name in ordered:
        if name in plan.skip_links or name == plan.world_link:
            continue
        out = plan.names[name]
        scope = plan.scope_of(out)
        le = _sub(plan.scopes[scope], "link", name=plan.local(out))
        links[name] = le
        _sub(le, "pose", _pose_text(inverse(plan.scope_H[scope]) @ world_H[name], f"link '{name}'"),
             relative_to="__model__")
        _inertial(le, model.links[name])
        used: set[str] = set()  # (one set for both kinds: SDF names are unique among a link's children)
        for kind, shapes in (("visual", model.links[name].visuals), ("collision", model.links[name].collisions)):
            for i, shape in enumerate(shapes):
                written = _shape_el(le, kind, shape, i, used, diag, name)
                if shape.name and written != shape.name:
                    (unreserved if _unwritable(shape.name) else renamed).append(
                        f"{kind} '{shape.name}' of '{name}' as '{written}'")
        _link_sensors_out(le, model, name, plan, diag, sensors)
    if unreserved:
        diag.warn(f"{len(unreserved)} shape name(s) SDF cannot hold ('world', like __name__, with '::', blank or "
                  f"padded with white space) written as another: {listed(unreserved, 5)}")
    if renamed:
        diag.warn(f"{len(renamed)} shape name(s) that another visual or collision of the link has too, written with a "
                  f"suffix (SDF names are unique among a link's children): {listed(renamed, 5)}")
    joints: dict[str, etree._Element] = {}
    for joint in list(model.joints.values()) + plan.extra_joints:
        if joint.name in plan.skip_joints:
            continue
        joints[joint.name] = _joint_el(joint, model, diag, plan, sensors)
    _mimics_out(plan, diag)
    if plan.world_frame is not None:
        _world_attachment(m, model, plan, diag)
    else:
        _welded_base_pose(m, model, plan)
    frames = _frames_out(model, plan, diag)
    apply_gazebo_extensions(model, m, links, joints, diag)
    write_kept(model, m, plan.scopes, links, joints, sensors, frames, diag)
    _rename_copied_names(m, diag)
    _check_material_colours(m)
    etree.indent(root, space="  ")
    text = '<?xml version="1.0" ?>\n' + etree.tostring(root, encoding="unicode") + "\n"
    if gazebo_extensions(model):
        _check_gazebo_reads_back(text)
    return text


class _Quiet(Diagnostics):
    def warn(self, message: str) -> None:  # the trial reading's warnings are the reader's, not the export's
        pass


def _check_gazebo_reads_back(text: str) -> None:
    """URDF `<gazebo>` blocks are copied as libsdformat copies them: values we never interpreted.

    Whatever our reader would refuse in them (a `<self_collide>` that is no boolean, a sensor
    `<always_on>` of 2, ...) is found by reading the output once, and refused naming the link,
    joint or sensor it went into.  Only models with `<gazebo>` blocks pay for the second reading.
    """
    try:
        validate(graph_to_model(read_sdf(text, LoadOptions(), _Quiet()), _Quiet(), LoadOptions()))
    except ModelError as e:
        owner = None
        if e.line is not None:
            el = next((x for x in etree.fromstring(text.encode()).iter() if x.sourceline == e.line), None)
            owner = next((a for a in ([el] + list(el.iterancestors()) if el is not None else [])
                          if a.tag in ("sensor", "joint", "link", "model")), None)
        raise ModelError(f"the URDF <gazebo> extensions written {'here' if owner is not None else 'to SDF'} make "
                         f"SDF that SDF readers refuse: {e.message}",
                         element=f"{owner.tag} '{owner.get('name')}'" if owner is not None else None) from None


def _zero_pose(model: Model) -> dict[str, np.ndarray]:
    """World transforms with every joint at zero, mimic joints included.

    SDF places links at the model's zero configuration and the reader takes those poses as the
    joints' zero: a mimic joint's offset applied here would be applied again on reload.
    """
    plain = model
    if any(j.mimic is not None for j in model.joints.values()):
        plain = model.copy()
        for j in plain.joints.values():
            j.mimic = None
    return Kinematics(plain).world_transforms({})


def _check_range(model: Model, world_H: dict[str, np.ndarray]) -> None:
    places = [("frame" if n in model.frames and n not in model.links else "link", n, t) for n, t in world_H.items()]
    for j in model.joints.values():
        if j.child not in world_H:
            continue
        origin = j.axis_origin if j.dofs == 1 else np.zeros(3)
        if j.type is JointType.SPHERICAL and j.center is not None:
            origin = (inverse(j.rest_transform) @ np.append(j.center, 1.0))[:3]
        places.append(("joint", j.name, world_H[j.child] @ make_transform(None, origin)))
    for sensor in model.sensors.values():
        if sensor.frame_link in world_H:
            places.append(("sensor", sensor.name, world_H[sensor.frame_link] @ sensor.frame_transform))
    for kind, name, t in places:
        with np.errstate(all="ignore"):
            d = float(np.max(np.abs(t[:3, 3]))) if np.all(np.isfinite(t)) else float("inf")
        if not d <= MAX_DISTANCE:
            raise ModelError(f"it lies {d:.3g} m from the model frame at the zero configuration; SDF composes poses "
                             f"relative to the model, which overflows beyond {MAX_DISTANCE:g} m", element=f"{kind} '{name}'")


# -- planning --------------------------------------------------------------------------------------
def _plan(model: Model, m: etree._Element, world_H: dict[str, np.ndarray], diag: Diagnostics) -> _Plan:
    plan = _Plan(scopes={"": m}, scope_H={"": np.eye(4)})
    _plan_free_bodies(model, plan)
    base = model.default_base_link
    if base == WORLD and _is_bare_world(model, base):
        plan.world_link = base
    elif base == WORLD:  # a world that carries geoms (MJCF's worldbody): a link of its own, fixed to SDF's world
        name = unique_name("world_joint", lambda n: n in model.joints)
        plan.extra_joints.append(Joint(name, JointType.FIXED, base, base))
        plan.to_world.add(name)
    _plan_world_joints(model, plan)
    frame = model.frames.get(WORLD)
    if frame is not None and frame.parent_link == base and WORLD not in model.links and not plan.extra_joints:
        plan.world_frame = WORLD
        plan.skip_frames.add(WORLD)
    taken: set[str] = set()

    def free(n: str) -> bool:
        return n in taken

    # nested models the links' '::' names make: a link may not share a name with one of them
    # (SDF 1.6 readers accept a link and a model of one name side by side; 1.7+ refuse it)
    scopes = {scope for n in model.links for scope in _nested_models(n)}
    made: set[str] = set()  # the nested models of the links' output names

    def clash(n: str) -> bool:
        return free(n) or n in model.links or n in scopes or n in made

    def nests_in_a_link(n: str) -> bool:  # one of its nested models would have the name of a link
        return any(p in model.links or p in taken for p in _nested_models(n))

    # links first (they decide the nested scopes), then frames, then joints
    for name in model.links:
        if name in plan.skip_links or name == plan.world_link:
            continue
        out = name
        if reserved_name(name) or any(reserved_name(p) or _padded(p) for p in name.split("::")):
            out = _unreserved(name)
            if nests_in_a_link(out):  # a suffix would not help (it changes the last part): no nesting
                out = _flat(name, "link")
            out = unique_name(out, clash)
            diag.warn(f"link '{name}' written as '{out}': SDF needs names that are not blank, padded with white space, "
                      f"'world' or like __name__{_free_chain_note(model, plan, name, out)}")
        elif name in scopes:
            out = unique_name(name, clash)
            diag.warn(f"link '{name}' written as '{out}': a nested model has its name, and SDF names of links "
                      f"and nested models in one model must differ{_free_chain_note(model, plan, name, out)}")
        taken.add(out)
        made.update(_nested_models(out))
        plan.names[name] = out
    _say_free_joints_made_anew(model, plan, diag)
    _plan_scopes(model, plan, world_H)
    for name, frame in model.frames.items():
        if name in plan.skip_frames:  # (the world attachment's frame: no frame of the model written)
            continue
        if (name in plan.scopes and name not in model.links) or _sensor_frame(model, frame):
            plan.skip_frames.add(name)  # the nested model's or a sensor's own frame: the reader re-creates it
            continue
        plan.frames[name] = _flat_or_scoped(name, plan, taken, diag, "frame")
    for joint in list(model.joints.values()) + plan.extra_joints:
        if joint.name in plan.skip_joints:
            continue
        out = joint.name
        if out in taken or reserved_name(out):
            out = unique_name(out + "_joint" if not reserved_name(out) else _unreserved(out), free, "_")
            diag.warn(f"joint '{joint.name}' written as '{out}': SDF needs names unique across links, joints "
                      "and frames, and reserves 'world' and __names__")
        plan.joints[joint.name] = _flat_or_scoped(out, plan, taken, diag, "joint", original=joint.name)
    return plan


def _world_attachment(m: etree._Element, model: Model, plan: _Plan, diag: Diagnostics) -> None:
    """URDF's fixed `world` link (a frame on the base once read) is SDF's world: a fixed joint from
    `world` to the base, and the model placed in the world where that frame says."""
    base = model.default_base_link
    taken = set(plan.names.values()) | set(plan.frames.values()) | set(plan.joints.values())
    fj = (model.metadata.get("frame_joints") or {}).get(WORLD)
    name = unique_name(fj.joint if isinstance(fj, FrameJoint) else "world_joint", taken.__contains__)
    turned = (f"; in the source '{fj.joint}' went from '{base}' to 'world'"
              if isinstance(fj, FrameJoint) and not fj.frame_is_parent else "")
    world_H_base = inverse(model.frames[WORLD].link_H_frame)
    pose = etree.Element("pose")
    pose.text = _pose_text(world_H_base, "the world frame")
    m.insert(1 if m.find("static") is not None else 0, pose)
    je = _sub(m, "joint", name=name, type="fixed")
    _sub(je, "parent", WORLD)
    _sub(je, "child", plan.names[base])
    diag.warn(f"frame 'world' written as SDF's world attachment: fixed joint '{name}' from world to '{base}', the "
              "model posed in the world by that frame (read back as a fixed-base model, without a 'world' frame)"
              f"{turned}")


def _welded_base_pose(m: etree._Element, model: Model, plan: _Plan) -> None:
    """A base welded to the world away from its origin (an MJCF body's pos, whose joint to the world our MJCF export
    keeps) is fixed there: the model's pose puts it there, as the world joint holds its child where that pose puts
    it (the model frame written is the base link's)."""
    p = moved_base_pose(model)
    base = model.default_base_link
    if p is None or base is None or base_world_joint(model, base) not in plan.to_world:
        return
    if base_pose_held(model, base, p, "sdf"):
        pose = etree.Element("pose")
        pose.text = _pose_text(p, "the base's pose in the world")
        m.insert(1 if m.find("static") is not None else 0, pose)


def _plan_world_joints(model: Model, plan: _Plan) -> None:
    """SDF's fixed joints to the world, which the reader folds into the tree, are written back."""
    for name, d in (model.metadata.get("sdf_world_joints") or {}).items():
        by = d.get("joined_to_base_by")
        if by is not None:
            if by in model.joints and model.joints[by].type is JointType.FIXED:
                plan.to_world.add(by)
        elif model.metadata.get("fixed_base") and d.get("child") in model.links and name not in model.joints:
            plan.extra_joints.append(Joint(name, JointType.FIXED, d["child"], d["child"]))
            plan.to_world.add(name)


def _is_bare_world(model: Model, name: str) -> bool:
    """A root link named world that carries nothing: SDF's world attachment, not a link."""
    link = model.links[name]
    return link.inertia.mass == 0.0 and not link.visuals and not link.collisions and not any(
        s.frame_link == name for s in model.sensors.values())


def _free_chain_note(model: Model, plan: _Plan, name: str, out: str) -> str:
    """A free body is written as a free link and read back with a free joint named after it: a
    renamed one's chain comes back under the new name."""
    info = (model.metadata.get("free_bodies") or {}).get(name)
    if info is None or not set(info.get("joints", [])) <= plan.skip_joints:
        return ""
    old = [*info.get("links", []), *info.get("joints", [])]
    return (f"; its free joint is read back named after '{out}', not as " + ", ".join(f"'{n}'" for n in old))


def _say_free_joints_made_anew(model: Model, plan: _Plan, diag: Diagnostics) -> None:
    """SDF names no joint for a link joined to nothing: its reader joins such a link to the model's base by six
    joints named after the link (`<link>_free_x` ...), translating along that base's axes.  A free body whose
    chain has other names (MJCF's `<freejoint name>`), or hangs from a world link that is written as SDF's world
    while no moving joint makes the reader's base a world link again (an MJCF scene: read back from one of its
    bodies, such as a table, and along that body's axes), comes back as another chain: said, with every name
    of it.  A renamed link's chain is said by its rename warning."""
    world_base = any(j.dofs and j.parent == plan.world_link and j.name not in plan.skip_joints
                     for j in (*model.joints.values(), *plan.extra_joints))  # the reader's base is 'world' again
    said = []
    for link, info, _ in intact_free_chains(model):
        if plan.names.get(link) != link:
            continue
        base = info.get("base")
        same_base = plan.names.get(base) == base or (base == plan.world_link and world_base)
        if same_base and info["joints"] == free_chain_names(default_free_prefix(link))[0]:
            continue
        names = ", ".join(f"'{n}'" for n in (*info["joints"], *info.get("links", [])))
        said.append(f"'{link}' ({names}; from '{base}')")
    if said:
        diag.warn(f"{len(said)} free body(ies) written as SDF links joined to no joint, whose joints SDF does not "
                  "name: read back, each is joined to the model's base link by six new joints named after the link "
                  f"('<link>_free_x' ... '<link>_free_roll', along that link's axes), not by its chain as here: "
                  f"{listed(said, 10, '; ')}")


def _nested_models(name: str) -> list[str]:
    """The nested models a scoped name lives in, outermost first: `a::b::c` -> `a`, `a::b`."""
    parts = name.split("::")
    return ["::".join(parts[:k]) for k in range(1, len(parts))]


def _unreserved(name: str) -> str:
    parts = [_trim(p) or "link" for p in name.split("::")]
    parts = [p + "_link" if p == WORLD else p for p in parts]
    return "::".join(parts)


def _plan_free_bodies(model: Model, plan: _Plan) -> None:
    """Chains that still look as the reader made them are left out: their link is written free."""
    for _, info, _ in intact_free_chains(model):
        plan.skip_joints.update(info["joints"])
        plan.skip_links.update(info["links"])


def _plan_scopes(model: Model, plan: _Plan, world_H: dict[str, np.ndarray]) -> None:
    """Nested models for the `::` prefixes of link names; each placed at its model frame."""
    prefixes: dict[str, None] = {}  # in the links' order, so that the same model is written the same way by any process
    for out in plan.names.values():
        prefixes.update(dict.fromkeys(_nested_models(out)))
    for prefix in sorted(prefixes, key=lambda p: p.count("::")):
        parent, sep, local = prefix.rpartition("::")
        parent = parent if sep else ""
        el = _sub(plan.scopes[parent], "model", name=local)
        frame = model.frames.get(prefix)
        if frame is not None and frame.parent_link in plan.names:
            h = world_H[frame.parent_link] @ frame.link_H_frame
            canonical = plan.ref(plan.names[frame.parent_link], prefix)
            if canonical is not None:
                el.set("canonical_link", canonical)
        else:
            h = plan.scope_H[parent]
        plan.scope_H[prefix] = h
        plan.scopes[prefix] = el
        _sub(el, "pose", _pose_text(inverse(plan.scope_H[parent]) @ h, f"nested model '{prefix}'"),
             relative_to="__model__")
    # a nested model's elements must come before its pose refers to them: poses are relative to
    # __model__ (of the parent), so order does not matter to readers


def _flat_or_scoped(name: str, plan: _Plan, taken: set[str], diag: Diagnostics, kind: str,
                    original: str | None = None) -> str:
    """The output name of a joint or frame: scoped into a nested model when its prefix is one."""
    out = name
    head, sep, local = name.rpartition("::")
    used = lambda n: n in taken or n in plan.scopes  # noqa: E731  (a nested model's name is taken too)
    if sep and (not head or head not in plan.scopes):
        out = unique_name(_flat(name, kind), used)
        diag.warn(f"{kind} '{original or name}' written as '{out}': its '::' prefix is no nested model of links")
    elif _padded(local) or reserved_name(local):  # the reader needs a name and strips white space
        out = unique_name((head + "::" if sep else "") + _flat(local, kind), used)
        diag.warn(f"{kind} '{original or name}' written as '{out}': SDF needs a name that is not blank, padded "
                  "with white space, 'world' or like __name__")
    taken.add(out)
    return out


def _rename_copied_names(m: etree._Element, diag: Diagnostics) -> None:
    """Rename, with a warning, what SDF 1.9 cannot name so in the elements copied as they were read (a light of an
    SDF 1.7 file named 'lamp::1', a sensor of a URDF <gazebo> block named 'world'): libsdformat refuses '::' in any
    element's name from 1.8, and a reserved name of an entity. Plugins and namespaced elements are left as they are,
    as libsdformat leaves them. The model's own links, joints, frames, shapes and sensors are named right already."""
    renamed: list[str] = []
    stack = [m]
    while stack:
        el = stack.pop()
        for child in el:
            if not isinstance(child.tag, str) or child.tag == "plugin" or child.tag.startswith("{"):
                continue
            name = child.get("name")
            if name is not None and ("::" in name or (child.tag in NAMED_ENTITIES and reserved_name(name.strip()))):
                taken = {c.get("name") for c in el if c is not child}
                new = unique_name(_flat(name, child.tag), taken)
                child.set("name", new)
                renamed.append(f"{child.tag} '{name}' as '{new}'")
            stack.append(child)
    if renamed:
        diag.warn(f"{len(renamed)} name(s) of elements copied from the source that SDF 1.9 cannot hold ('::', 'world' "
                  f"or like __name__) written as another: {listed(renamed, 5)}")


def _unwritable(name: str) -> bool:
    """A name of a model, visual, collision or sensor that SDF 1.9 cannot hold as it is: reserved, with '::' (the
    delimiter of scopes from 1.8), or blank or padded with white space (the reader strips it, and needs a name)."""
    return reserved_name(name.strip()) or "::" in name or _padded(name)


def _model_name(name: str, diag: Diagnostics) -> str:
    """The model's name, renamed where SDF cannot hold it (a URDF robot may be named 'world'; libsdformat refuses
    such a model)."""
    if not name:
        return "model"
    if _unwritable(name):
        out = _flat(name, "model")
        diag.warn(f"model '{name}' written as '{out}': SDF needs a model name that is not 'world', like __name__, "
                  "padded with white space or with '::'")
        return out
    return name


def _flat(name: str, kind: str) -> str:
    """A name without '::', not blank, padded or reserved."""
    out = _trim("__".join(_trim(p) for p in name.split("::")))
    return f"{out}_{kind}" if out == WORLD else out or kind


def _trim(part: str) -> str:
    """Without surrounding white space (which the reader strips) and underscores (no __name__ form)."""
    while part != (part := part.strip().strip("_")):
        pass
    return part


def _padded(name: str) -> bool:
    """Blank, or with surrounding white space: the reader strips it (and needs a name)."""
    return not name.strip() or name != name.strip()


# -- elements ----------------------------------------------------------------------------------------
def _inertial(le: etree._Element, link: Link) -> None:
    ine = link.inertia
    what = f"the inertia of link '{link.name}'"
    try:
        # what the SDF reader (and libsdformat) refuse: negative mass, an indefinite tensor
        check_inertia(ine.mass, ine.com, ine.inertia, f"link '{link.name}'", reject_impossible=True)
    except ModelError as e:
        raise ModelError(f"{e.message}: SDF cannot hold it (libsdformat refuses it)", element=e.element) from None
    ie = _sub(le, "inertial")
    _sub(ie, "pose", _pose_text(make_transform(None, ine.com), f"the inertial of link '{link.name}'"))
    _sub(ie, "mass", format_number(ine.mass, what))
    ie_i = _sub(ie, "inertia")
    for k, v in inertia_six(ine.inertia).items():
        _sub(ie_i, k, format_number(v, what))


def _shape_el(le: etree._Element, kind: str, shape: Shape, i: int, used: set[str], diag: Diagnostics,
              link: str) -> str:
    """Write the shape; its name written."""
    # an unnamed shape is named as libsdformat's URDF reader names it (<link>_collision, <link>_collision_1, ...),
    # which a Gazebo contact sensor of the URDF's <gazebo> block names
    local = le.get("name")
    name = shape.name or (f"{local}_{kind}" if i == 0 else f"{local}_{kind}_{i}")
    if _unwritable(name):
        name = _flat(name, kind)
    while name in used:
        name = f"{name}_{i}"
    used.add(name)
    what = f"{kind} '{name}' of link '{link}'"
    se = _sub(le, kind, name=name)
    _sub(se, "pose", _pose_text(shape.link_H_geometry, what))
    ge = _sub(se, "geometry")
    if isinstance(shape, Box):
        _sub(_sub(ge, "box"), "size", format_numbers(shape.size, what))
    elif isinstance(shape, Sphere):
        _sub(_sub(ge, "sphere"), "radius", format_number(shape.radius, what))
    elif isinstance(shape, (Cylinder, Capsule)):
        c = _sub(ge, "cylinder" if isinstance(shape, Cylinder) else "capsule")
        _sub(c, "radius", format_number(shape.radius, what))
        _sub(c, "length", format_number(shape.length, what))
    elif isinstance(shape, Ellipsoid):
        _sub(_sub(ge, "ellipsoid"), "radii", format_numbers(shape.radii, what))
    elif isinstance(shape, Mesh):
        if not shape.filename.strip():
            raise ModelError(f"{what}: the mesh file name is empty, and libsdformat refuses an empty <uri>",
                             element=f"link '{link}'")
        c = _sub(ge, "mesh")
        _sub(c, "uri", shape.filename)
        _sub(c, "scale", format_numbers(shape.scale, what))
    else:
        diag.warn(f"link '{link}': {shape.kind} geometry cannot be written in SDF 1.9; written as an empty geometry")
        _sub(ge, "empty")
    if kind == "visual" and shape.material is not None and shape.material.color is not None:
        color = np.asarray(shape.material.color, dtype=float)
        if not is_colour(color):
            raise ModelError(f"colour {color.tolist()} of {what} is outside [0, 1]; SDF needs r g b a in [0, 1]",
                             element=f"link '{link}'")
        me = _sub(se, "material")
        rgba = format_numbers(color, what)
        _sub(me, "ambient", rgba)
        _sub(me, "diffuse", rgba)
    return name


def _check_material_colours(m: etree._Element) -> None:
    """Colours a URDF `<gazebo>` block brought into a visual's material, checked as the reader does."""
    for mat in m.iter("material"):
        visual = mat.getparent()
        link = visual.getparent() if visual is not None else None
        if visual is None or visual.tag != "visual" or link is None or link.tag != "link":
            continue
        for c in mat:
            if c.tag not in ("ambient", "diffuse", "specular", "emissive") or not (c.text or "").strip():
                continue
            try:
                v = xml_doubles(c.text)
            except NumberError as e:
                v, why = [], f"'{e.token}' is not a number"
            else:
                why = "not 3 or 4 numbers in [0, 1]"
            if not is_colour(v):
                raise ModelError(f"<{c.tag}> '{show(c.text.strip())}' of visual '{visual.get('name')}' (from a "
                                 f"<gazebo> block): {why}; SDF needs r g b [a] in [0, 1]",
                                 element=f"link '{link.get('name')}'")


def _sensor_name(s_name: str, out_element: str, plan: _Plan, diag: Diagnostics, shown: str | None = None) -> str:
    """The name a sensor of the written link or joint `out_element` gets: relative to its nested model,
    renamed where SDF 1.8+ cannot hold it, with a warning naming `shown` (by default the model's name of
    the sensor) and the name it is read back as."""
    full = shown or s_name
    scope = plan.scope_of(out_element)
    if scope and s_name.startswith(scope + "::"):
        s_name = s_name[len(scope) + 2:]
    elif scope:  # its link went into a nested model (a renamed link): the reader scopes the sensor by it
        diag.warn(f"sensor '{full}' is read back as '{scope}::{s_name}' (with its frame): its "
                  f"{'link' if out_element in plan.names.values() else 'joint'} is written in nested model '{scope}'")
    if _unwritable(s_name):
        new = _flat(s_name, "sensor")
        where = f" in nested model '{scope}', read back as '{scope}::{new}'" if scope else ""
        diag.warn(f"sensor '{full}' written as '{new}'{where}: SDF 1.8+ sensor names have no '::', no reserved "
                  "form and no blank or surrounding white space")
        return new
    return s_name


def _link_sensors_out(le: etree._Element, model: Model, link: str, plan: _Plan, diag: Diagnostics,
                      written: dict[str, etree._Element]) -> None:
    sensors = [s for s in model.sensors.values() if isinstance(s, LinkSensor) and s.parent_link == link]
    sensors.sort(key=lambda s: s.sensor_type is not SensorType.ACCELEROMETER)  # pairs before a lone gyroscope
    out_link = plan.names[link]
    done: set[str] = set()
    for s in sensors:
        if s.name in done:
            continue
        what = f"sensor '{s.name}'"
        if s.sensor_type is SensorType.ACCELEROMETER and s.name.endswith("_acc"):
            base = s.name[: -len("_acc")]
            gyro = model.sensors.get(base + "_gyro")
            if (isinstance(gyro, LinkSensor) and gyro.sensor_type is SensorType.GYROSCOPE and gyro.parent_link == link
                    and np.allclose(gyro.link_H_sensor, s.link_H_sensor, atol=1e-12)):
                se = _sub(le, "sensor", name=_sensor_name(base, out_link, plan, diag), type="imu")
                _sub(se, "pose", _pose_text(s.link_H_sensor, what))
                done |= {s.name, gyro.name}
                written[s.name] = se  # (by the accelerometer's name, unique where the IMU's is not: kept.py)
                continue
        if s.sensor_type in SINGLE_IMU_KINDS:  # an IMU measuring one thing, said by <idyntree:kind>
            se = _sub(le, "sensor", name=_sensor_name(s.name, out_link, plan, diag), type="imu")
            _sub(se, "pose", _pose_text(s.link_H_sensor, what))
            _sub(se, IDYNTREE_KIND, s.sensor_type.value)
        elif s.sensor_type is SensorType.OTHER and s.subtype:
            se = _sub(le, "sensor", name=_sensor_name(s.name, out_link, plan, diag), type=s.subtype)
            _sub(se, "pose", _pose_text(s.link_H_sensor, what))
        else:
            diag.warn(f"sensor '{s.name}' ({s.sensor_type.value}) has no SDF form and was dropped")
            continue
        done.add(s.name)
        written[s.name] = se


def _end_ref(link: str, scope: str, plan: _Plan) -> str | None:
    if link == plan.world_link:
        return WORLD
    return plan.ref(plan.names[link], scope)


def _joint_el(joint: Joint, model: Model, diag: Diagnostics, plan: _Plan,
              sensors: dict[str, etree._Element]) -> etree._Element:
    out = plan.joints[joint.name]
    scope = plan.scope_of(out)
    world = joint.name in plan.to_world
    parent, child = WORLD if world else _end_ref(joint.parent, scope, plan), _end_ref(joint.child, scope, plan)
    if parent is None or child is None:  # ends outside the joint's nested model: written at the top
        scope = ""
        out = unique_name(out.replace("::", "__"), lambda n: n in plan.names.values() or n in plan.frames.values())
        diag.warn(f"joint '{joint.name}' written as '{out}' in the top model: it joins links outside its "
                  "nested model")
        parent, child = WORLD if world else _end_ref(joint.parent, "", plan), _end_ref(joint.child, "", plan)
    if joint.type is JointType.FIXED:
        jt = "fixed"
    elif joint.type is JointType.SPHERICAL:
        jt = "ball"
    elif joint.type is JointType.PRISMATIC:
        jt = "prismatic"
    else:
        jt = "continuous" if joint.is_continuous else "revolute"
    pitch = _screw_pitch(model, joint, jt, diag)
    if pitch is not None:
        jt = "screw"  # (read as a revolute joint, with a warning: written back as the screw it was)
    what = f"joint '{joint.name}'"
    je = _sub(plan.scopes[scope], "joint", name=plan.local(out) if scope else out, type=jt)
    child_H_joint = np.eye(4)
    if joint.type is JointType.SPHERICAL:
        child_H_joint[:3, 3] = (inverse(joint.rest_transform) @ np.append(joint.center, 1.0))[:3]
    elif joint.dofs == 1:
        child_H_joint[:3, 3] = joint.axis_origin
    _sub(je, "pose", _pose_text(child_H_joint, what), relative_to=child)
    _sub(je, "parent", parent)
    _sub(je, "child", child)
    if pitch is not None:
        _sub(je, "thread_pitch", format_number(pitch, what))
    plan.joints[joint.name] = out  # as written (a joint moved to the top is renamed): what mimics refer to
    if joint.dofs == 1:
        _axis_el(je, joint, child, diag)
        if joint.mimic is not None:
            plan.mimics.append((je, joint, scope))
    for s in model.sensors.values():
        if isinstance(s, ForceTorqueSensor) and s.parent_joint == joint.name:
            sensors[s.name] = _ft_el(je, s, joint, plan, diag, said="sdf_version" in model.metadata)
    return je


def _screw_pitch(model: Model, joint: Joint, jt: str, diag: Diagnostics) -> float | None:
    """SDF 1.9's <thread_pitch> of a joint the reader approximated by a revolute one (model.metadata
    "sdf_screw_joints"), else None; a pitch that gives none is named, the joint written as `jt`.  1.10's
    <screw_thread_pitch> (metres per turn) is -2 pi / thread_pitch."""
    extra = (model.metadata.get("sdf_screw_joints") or {}).get(joint.name)
    if joint.type is not JointType.REVOLUTE or not isinstance(extra, dict):
        return None
    if "thread_pitch" in extra:
        pitch = float(extra["thread_pitch"])
    else:
        metres = float(extra.get("screw_thread_pitch", 0.0))
        with np.errstate(all="ignore"):
            pitch = -2.0 * math.pi / metres if metres else math.inf
    if math.isfinite(pitch) and pitch != 0.0:
        return pitch
    given = ", ".join(f"<{k}> {v!r}" for k, v in extra.items() if k in ("thread_pitch", "screw_thread_pitch"))
    diag.warn(f"screw joint '{joint.name}' is written as a {jt} joint: its pitch ({given}) gives no finite, "
              "non-zero <thread_pitch>")
    return None


def _axis_el(je: etree._Element, joint: Joint, child: str, diag: Diagnostics) -> None:
    what = f"joint '{joint.name}'"
    ae = _sub(je, "axis")
    _sub(ae, "xyz", format_numbers(joint.axis, what), expressed_in=child)
    lim = joint.limits
    le = _sub(ae, "limit")
    if lim.has_position_limits:
        _sub(le, "lower", format_number(max(lim.min_position, -UNLIMITED), what))
        _sub(le, "upper", format_number(min(lim.max_position, UNLIMITED), what))
    elif joint.type is JointType.PRISMATIC:
        _sub(le, "lower", format_number(-UNLIMITED, what))
        _sub(le, "upper", format_number(UNLIMITED, what))
    finite = lambda v: bool(np.isfinite(v))  # noqa: E731  (infinite effort/velocity = no limit)
    _sub(le, "effort", format_number(lim.effort_limit, what) if lim.has_effort_limit and finite(lim.effort_limit) else "-1")
    _sub(le, "velocity", format_number(lim.velocity_limit, what) if lim.has_velocity_limit and finite(lim.velocity_limit)
         else "-1")
    if joint.dynamics is not None:
        de = _sub(ae, "dynamics")
        _sub(de, "damping", format_number(joint.dynamics.damping, what))
        _sub(de, "friction", format_number(joint.dynamics.friction, what))


def _mimics_out(plan: _Plan, diag: Diagnostics) -> None:
    """Mimics name their master as written, relative to the follower's nested model (as the reader scopes it)."""
    for je, joint, scope in plan.mimics:
        what = f"joint '{joint.name}'"
        master = plan.joints.get(joint.mimic.joint) if joint.mimic.joint not in plan.skip_joints else None
        ref = plan.ref(master, scope) if master is not None else None
        if ref is None:
            diag.warn(f"{what}: its mimic of '{joint.mimic.joint}' is not written (that joint is not written in its "
                      "nested model or above): read back as an independent joint")
            continue
        diag.warn(f"{what}: mimic needs SDF 1.11; written as an idyntree:mimic extension element")
        _sub(je.find("axis"), f"{{{IDYNTREE_NS}}}mimic", joint=ref, multiplier=format_number(joint.mimic.multiplier, what),
             offset=format_number(joint.mimic.offset, what))


def _ft_el(je: etree._Element, s: ForceTorqueSensor, joint: Joint, plan: _Plan, diag: Diagnostics,
           said: bool = False) -> etree._Element:
    """Write the sensor with the frame keyword when our reader gives back the same frame, else explicitly.
    `said`: a sensor frame off the joint's origin was said on reading (the model is an SDF file's)."""
    child_H_sensor = s.second_link_H_sensor if s.first_link == joint.parent else s.first_link_H_sensor
    joint_origin = joint.axis_origin if joint.dofs == 1 else np.zeros(3)
    if joint.type is JointType.SPHERICAL:
        joint_origin = (inverse(joint.rest_transform) @ np.append(joint.center, 1.0))[:3]
    child_H_joint = make_transform(None, joint_origin)
    frame = s.frame
    expected = None
    if frame == "child":
        expected = child_H_joint.copy()
    elif frame == "parent":
        expected = make_transform(inverse(joint.rest_transform)[:3, :3], joint_origin)
    if expected is None or not np.allclose(expected, child_H_sensor, atol=1e-12):
        frame = "sensor"
    name = _sensor_name(s.name, plan.joints[joint.name], plan, diag, shown=s.name)
    se = _sub(je, "sensor", name=name, type="force_torque")
    joint_H_sensor = inverse(child_H_joint) @ child_H_sensor
    _sub(se, "pose", _pose_text(joint_H_sensor, f"sensor '{s.name}'"))
    off = float(np.linalg.norm(joint_H_sensor[:3, 3]))
    if off > 1e-6 and not said:  # (below: a file's rounding)
        diag.warn(f"force/torque sensor '{s.name}' takes torques about its frame's origin, {off:.6g} m from the origin of "
                  f"joint '{joint.name}': written as <frame>sensor with that <pose>, which gz-sim takes as the point "
                  "of the torques; the SDF specification and Gazebo classic take them about the joint's origin")
    fe = _sub(se, "force_torque")
    _sub(fe, "frame", frame)
    _sub(fe, "measure_direction", "parent_to_child" if s.applied_wrench_link == joint.child else "child_to_parent")
    return se


def _sensor_frame(model: Model, frame) -> bool:
    """Whether a frame is its sensor's own (same name, link and pose), which the loader adds again: not written,
    and its name not taken from a joint (an F/T joint named as its sensor was written '<name>_joint')."""
    s = model.sensors.get(frame.name)
    return s is not None and s.frame_link == frame.parent_link and np.allclose(s.frame_transform, frame.link_H_frame,
                                                                               atol=1e-12)


def _frames_out(model: Model, plan: _Plan, diag: Diagnostics) -> dict[str, etree._Element]:
    """The <frame> elements written, by model frame name."""
    written: dict[str, etree._Element] = {}
    joint_outs = set(plan.joints.values())
    for frame in model.frames.values():
        if frame.name in plan.skip_frames:
            continue
        out = plan.frames[frame.name]
        if out in joint_outs or reserved_name(frame.name) or any(reserved_name(p) for p in frame.name.split("::")):
            diag.warn(f"frame '{frame.name}' is not written: its name is a joint's or reserved in SDF")
            continue
        if frame.parent_link == plan.world_link or frame.parent_link in plan.skip_links:
            diag.warn(f"frame '{frame.name}' is not written: it is attached to '{frame.parent_link}', which is not "
                      "written as a link")
            continue
        scope = plan.scope_of(out)
        link_ref = plan.ref(plan.names[frame.parent_link], scope)
        if link_ref is None:
            scope = ""
            out = out.replace("::", "__")
            link_ref = plan.names[frame.parent_link]
            diag.warn(f"frame '{frame.name}' written as '{out}' in the top model: it is attached to a link outside "
                      "its nested model")
        fe = _sub(plan.scopes[scope], "frame", name=plan.local(out) if scope else out, attached_to=link_ref)
        _sub(fe, "pose", _pose_text(frame.link_H_frame, f"frame '{frame.name}'"), relative_to=link_ref)
        written[frame.name] = fe
    return written


__all__ = ["dump"]
