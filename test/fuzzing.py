"""Mutation fuzzing of model files and the export/reload property, shared by the test and the fuzz report.

`mutate(text, fmt, pick)` applies one mutation chosen through `pick` (a `Picker`: hypothesis draws in
the test suite, a seeded random.Random in `bench/fuzz_report.py`), so both explore the same space:
edge-case numbers and names, deleted, duplicated and moved elements, and raw text damage.

`check(text, fmt)` is the invariant of issue 11: loading gives a ModelError or a model; a model
exports to every format or gets a ModelError; every export loads back, to the same model up to
the losses the exporter warned about (`equivalence_problems`).  Anything else raises.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from lxml import etree

from idyntree_models.api import export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model.kinematics import Kinematics
from idyntree_models.model.model import JointType, Model
from idyntree_models.model.spherical import fold_three_revolute_joints

from conftest import corpus_files

FORMATS = ("urdf", "sdf", "skel", "idyntree-model-json", "mjcf")  # xacro runs code: not fuzzed
EXPORTS = ("urdf", "sdf", "idyntree-model-json", "mjcf")
SEED_LIMIT = 20_000  # bytes: small seeds keep each example fast; the big files add nothing a mutation needs

EDGE_NUMBERS = (
    "0", "-0", "1", "-1", "1e308", "-1e308", "1.7976931348623157e308", "1e-320", "5e-324", "1e155", "-1e155",
    "1e999", "nan", "NaN", "inf", "-INF", "1_0", "\u0661", "\uff11", "0x1p3", "1e", ".", "", " ", "1 2",
    "9" * 400, "9" * 4400, "0." + "0" * 400 + "1", "1e-400", "3.0e+00", "+.5", "1.", "-1e-9",
)
EDGE_NAMES = (
    "world", "", " ", "a\nb", "a\rb", "x" * 300, "::", "a::b", "__model__", "\u00e9l\u00e9ment", "\U0001f916",
    "<&>", "a b", "base_link", "root", "spherical_rev_j_x", "link_axis_offset", "\t", "-", ".", "0",
)


VALID_NUMBERS = ("0.5", "-0.25", "2", "3.14159", "1e-3", "-7.5e2", "0.0", "12", "1e3", "-1", "0.999", "1e-9")


def _number(pick: Picker) -> str:
    """Half the time a plausible value (the model still loads and the exports get exercised), else an edge."""
    return pick.choose(VALID_NUMBERS) if pick.integer(0, 1) else pick.choose(EDGE_NUMBERS)


class Picker:
    """Where mutations get their choices from: hypothesis data or a random.Random."""

    def __init__(self, choose: Callable[[Sequence], object], integer: Callable[[int, int], int]) -> None:
        self.choose = choose
        self.integer = integer


def seeds(fmt: str) -> list[tuple[str, str]]:
    """(id, text) of the small corpus files of a format; JSON seeds are our exports of the URDF seeds."""
    if fmt == "idyntree-model-json":
        out = []
        for rel, text in seeds("urdf"):
            try:
                out.append((rel + ".json", export_model(load_model(text, "urdf"), "idyntree-model-json")))
            except ModelError:
                continue
        return out
    patterns = {"urdf": ("urdf", "*.urdf"), "sdf": ("sdf", "*.sdf"), "skel": ("skel", "*.skel"),
                "mjcf": ("mjcf", "*.xml")}
    sub, pattern = patterns[fmt]
    files = [p for p in corpus_files(sub, pattern) if p.stat().st_size <= SEED_LIMIT]
    files = [p for p in files if "/test/models/" in str(p)]  # the vendored corpus: the same on every clone
    return [(p.name, p.read_text(encoding="utf-8", errors="replace")) for p in files]


# -- mutations ---------------------------------------------------------------------------------------
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def mutate_text(text: str, pick: Picker) -> str:
    """Raw damage: a number or a span replaced, deleted or repeated, the text cut."""
    kind = pick.choose(("number", "number", "delete", "repeat", "insert", "cut", "newlines"))
    if kind == "number":
        spans = [m.span() for m in _NUMBER.finditer(text)]
        if spans:
            a, b = spans[pick.integer(0, len(spans) - 1)]
            return _replace_span(text, a, b, _number(pick))
        kind = "delete"
    n = len(text)
    a = pick.integer(0, max(0, n - 1))
    b = min(n, a + pick.integer(0, 64))
    if kind == "delete":
        return _replace_span(text, a, b, "")
    if kind == "repeat":
        return text[:b] + text[a:b] + text[b:]
    if kind == "insert":
        return text[:a] + pick.choose(('"', "<", ">", "&", "}", "{", "]", ",", "\x00", "\ud800", "\u2028", "\r",
                                       "<a>", "</link>", "<!ENTITY x 'y'>")) + text[a:]
    if kind == "cut":
        return text[:a]
    return text.replace("\n", pick.choose(("\r", "\r\n", "\n\n")))


def mutate_xml(text: str, pick: Picker) -> str:
    """Structure-aware damage: an element deleted, duplicated or moved, an attribute or text changed."""
    try:
        root = etree.fromstring(text.encode("utf-8"), etree.XMLParser(resolve_entities=False, no_network=True))
    except (etree.XMLSyntaxError, ValueError):
        return mutate_text(text, pick)
    elements = [e for e in root.iter() if isinstance(e.tag, str)]
    if len(elements) < 2:
        return mutate_text(text, pick)
    el = elements[pick.integer(1, len(elements) - 1)]
    kind = pick.choose(("delete", "duplicate", "move", "attribute", "attribute", "text", "text", "rename"))
    parent = el.getparent()
    if kind == "delete":
        parent.remove(el)
    elif kind == "duplicate":
        parent.insert(parent.index(el), copy.deepcopy(el))
    elif kind == "move":
        target = elements[pick.integer(0, len(elements) - 1)]
        if target is not el and el not in target.iterancestors():
            parent.remove(el)
            target.append(el)
    elif kind == "attribute" and el.attrib:
        key = pick.choose(sorted(el.attrib))
        value = el.attrib[key]
        if _NUMBER.search(value):
            parts = value.split()
            parts[pick.integer(0, len(parts) - 1)] = _number(pick)
            new = " ".join(parts)
        else:
            others = sorted({e.get(key) for e in elements if e.get(key)})
            new = pick.choose(EDGE_NAMES + tuple(others[:20]))
        try:
            el.set(key, new)
        except ValueError:  # a character XML cannot hold: damage the text instead
            return mutate_text(text, pick)
    elif kind == "text" and el.text and el.text.strip():
        new = el.text
        numbers = list(_NUMBER.finditer(new))
        if numbers:
            m = numbers[pick.integer(0, len(numbers) - 1)]
            new = _replace_span(new, m.start(), m.end(), _number(pick))
        else:
            others = sorted({(e.text or "").strip() for e in elements if e.tag == el.tag and (e.text or "").strip()})
            new = pick.choose(EDGE_NAMES + tuple(others[:20]))
        try:
            el.text = new
        except ValueError:
            return mutate_text(text, pick)
    elif kind == "rename":
        siblings = sorted({e.tag for e in elements})
        el.tag = pick.choose(siblings)
    else:
        return mutate_text(text, pick)
    return etree.tostring(root, encoding="unicode")


_JSON_EDGES = (0, -1, 0.5, 2.0, -0.3, 1e-3, 10, 1e308, -1e308, 5e-324, 1e155, "", "world", "a\nb", None, True, [], {}, [0, 0, 0],
               [[1, 0, 0], [0, 1, 0], [0, 0, -1]], {"position": [0, 0, 0]})


_JSON_NUMBER_LITERAL = "@number@"  # replaced by a raw edge literal (1e999, 1_0, 400 digits) after dumping


def mutate_json(text: str, pick: Picker) -> str:
    """A value replaced, a key deleted, an array item repeated; or raw damage (1e999, NaN, 400 digits)."""
    if pick.integer(0, 3) == 0:
        return mutate_text(text, pick)
    try:
        doc = json.loads(text)
    except ValueError:  # already damaged by an earlier mutation
        return mutate_text(text, pick)
    slots: list[tuple[object, object]] = []

    def walk(v) -> None:
        if isinstance(v, dict):
            for k in v:
                slots.append((v, k))
                walk(v[k])
        elif isinstance(v, list):
            for i in range(len(v)):
                slots.append((v, i))
                walk(v[i])

    walk(doc)
    if not slots:
        return mutate_text(text, pick)
    container, key = slots[pick.integer(0, len(slots) - 1)]
    value = container[key]
    kind = pick.choose(("same type", "same type", "same type", "replace", "delete", "repeat"))
    if kind == "delete":
        del container[key]
    elif kind == "repeat" and isinstance(container, list):
        container.insert(key, json.loads(json.dumps(value)))
    elif kind == "same type" and isinstance(value, bool):
        container[key] = not value
    elif kind == "same type" and isinstance(value, (int, float)):
        container[key] = float(pick.choose(VALID_NUMBERS)) if pick.integer(0, 1) else _JSON_NUMBER_LITERAL
    elif kind == "same type" and isinstance(value, str):
        others = sorted({v for c, k in slots if isinstance(v := c[k], str)})
        container[key] = pick.choose(EDGE_NAMES + tuple(others[:30]))
    else:
        container[key] = pick.choose(_JSON_EDGES)
    if _JSON_NUMBER_LITERAL in json.dumps(doc):
        return json.dumps(doc, indent=2).replace(f'"{_JSON_NUMBER_LITERAL}"', pick.choose(EDGE_NUMBERS) or "0")
    return json.dumps(doc, indent=pick.choose((None, 2)))


def mutate(text: str, fmt: str, pick: Picker) -> str:
    if fmt == "idyntree-model-json":
        return mutate_json(text, pick)
    return mutate_xml(text, pick) if pick.integer(0, 2) else mutate_text(text, pick)


# -- the invariant -----------------------------------------------------------------------------------
@dataclass
class Outcome:
    """What one input did: refused (and why), or loaded and exported (per format: 'ok' or the refusal)."""

    error: str | None = None
    exports: dict[str, str] = field(default_factory=dict)


def _spherical(m: Model) -> bool:
    return any(j.type is JointType.SPHERICAL for j in m.joints.values())


def check(text: str, fmt: str, targets: tuple[str, ...] = EXPORTS, derived: bool = False) -> Outcome:
    """Load, export to every format, reload each export; raise AssertionError or the crash itself.
    With `derived`, also what the CLI and the node make of the model (check_derived)."""
    try:
        model = load_model(text, format=fmt)
    except ModelError as e:
        assert "internal error" not in str(e), f"a loader bug, reported as a ModelError: {e}"
        return Outcome(error=str(e))
    Kinematics(model)  # what the node does with it: must not refuse a model the loader accepted
    if derived:
        check_derived(model, text, fmt)
    out = Outcome()
    for target in targets:
        warnings: list[str] = []
        try:
            exported = export_model(model, target, warnings=warnings)
        except ModelError as e:
            assert "internal error" not in str(e), f"an exporter bug, reported as a ModelError: {e}"
            out.exports[target] = f"refused: {e}"
            continue
        try:
            back = load_model(exported, format=target, warnings=warnings,
                              convert_three_revolute_joints_to_spherical=_spherical(model))
        except ModelError as e:
            raise AssertionError(f"the {target} export of a model we accepted does not load back: {e}\n"
                                 f"--- export ---\n{exported[:3000]}") from None
        reference = model
        if _spherical(model):  # the reload folded every foldable chain, not only the exported ones: so do we
            reference = model.copy()
            fold_three_revolute_joints(reference)
        problems = equivalence_problems(reference, back, warnings)
        assert not problems, f"{fmt} -> {target}: the reloaded model differs, without a warning:\n" + "\n".join(problems)
        out.exports[target] = "ok"
    return out


# Lock and joint positions from ordinary to the largest double: finite numbers that overflow in what is derived
POSITIONS = (0.0, 0.3, -2.5, 3.0, 1e15, 1e300, 1e308, -1e308, 5e-324)


def check_derived(model: Model, text: str, fmt: str) -> None:
    """What the CLI and the node derive from a model the loader accepted, each a ModelError or a valid,
    finite result: a reduced model (`--keep-joints`/`--lock`: random joints kept, the others locked at
    POSITIONS), the model loaded with spherical folding, `idyntree-model-info --json` (valid JSON, so no
    NaN) at zero and at POSITIONS, and the node's /tf poses for joint positions from POSITIONS (the node
    may refuse the model only where its URDF export does, for the same reason).  The choices are drawn
    from the input's own hash, so an example repeats exactly."""
    import random

    from idyntree_models.model.info import model_info
    from idyntree_models.model.reduce import reduce
    from idyntree_models.model.validation import validate
    from idyntree_models.ros.served import ServedModel

    rng = random.Random(text)
    joints = list(model.joints.values())
    names = tuple(j.name for j in joints if j.dofs == 1 and j.mimic is None)
    keep = [j.name for j in joints if rng.random() < 0.5]
    locked: dict[str, object] = {}
    for j in joints:
        if j.name in keep or rng.random() < 0.5:
            continue
        if j.type is JointType.SPHERICAL:
            locked[j.name] = [rng.choice(POSITIONS) for _ in range(4)]
        elif j.dofs == 1 and j.mimic is None:
            locked[j.name] = rng.choice(POSITIONS)
    try:  # what --keep-joints/--lock then do with it: kinematics, idyntree-model-info --json
        reduced = reduce(model, keep, locked)
        validate(reduced)
        json.dumps(model_info(reduced), allow_nan=False)
    except ModelError as e:
        assert "internal error" not in str(e), f"a reduce bug, reported as a ModelError: {e}"
    try:
        load_model(text, format=fmt, convert_three_revolute_joints_to_spherical=True)
    except ModelError as e:
        assert "internal error" not in str(e), f"a folding bug, reported as a ModelError: {e}"
    for config in ({}, {name: rng.choice(POSITIONS) for name in names}):  # idyntree-model-info --json [--q]
        try:
            json.dumps(model_info(model, config, frames=list(model.frames)[:3]), allow_nan=False)
        except ModelError as e:
            assert "internal error" not in str(e), f"a model_info bug, reported as a ModelError: {e}"
    try:
        served = ServedModel(model, text, fmt)
    except ModelError as e:
        # The node publishes the tree of the model's URDF description (urdf_form), so it refuses what the URDF
        # export refuses (a joint axis 1.8e308 m off its child's origin, found with seed 20261129), with the
        # same reason, and nothing else.
        try:
            export_model(model, "urdf")
        except ModelError as refused:
            assert str(refused) == str(e), f"the node and the URDF export refuse for different reasons: {e} / {refused}"
            return
        raise AssertionError(f"the node refused a model whose URDF export succeeds: {e}") from None
    served.fast_serialization = False  # rclpy's serializer is not what is checked here
    if names:
        plan = served.plan(names)
        for _ in range(3):
            positions = [rng.choice(POSITIONS) for _ in names]
            try:
                poses = served.transforms(plan, positions)
            except ModelError:
                continue
            assert np.isfinite(poses).all(), f"non-finite /tf poses for positions {dict(zip(names, positions))}"


def _close(a, b, tol: float = 1e-6, scale: float = 1.0) -> bool:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    fa, fb = np.isfinite(a), np.isfinite(b)
    if not np.array_equal(fa, fb):
        return False
    a, b = a[fa], b[fb]
    if a.size == 0:
        return True
    scale = max(scale, float(np.max(np.abs(a))), float(np.max(np.abs(b))))
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.all(np.abs(a - b) <= tol * scale))


def _warned(name: str, warnings: list[str]) -> bool:
    return any(f"'{name}'" in w or f" {name} " in w or f" {name}," in w or w.endswith(f" {name}") for w in warnings)


def equivalence_problems(a: Model, b: Model, warnings: list[str]) -> list[str]:
    """How `b` (a reloaded export of `a`) differs from `a` beyond what `warnings` announced.

    The same model means: every link and frame of `a` is a link or frame of `b` with the same world
    pose at random joint positions, links keep mass, centre of mass and inertia, moving joints keep
    their names and types, sensors keep their names; a link may become a frame (and vice versa) when
    it carries no mass, as URDF readers do.  What a warning names is a documented loss.
    """
    out: list[str] = []
    frames_b = set(b.links) | set(b.frames)
    # documented in docs/sdf.md: a massless, shapeless root link `world` is SDF's own world on export
    world = a.links.get("world")
    sdf_world = (world is not None and a.default_base_link == "world" and world.inertia.mass == 0.0
                 and not world.visuals and not world.collisions and "world" not in frames_b)
    for name in list(a.links) + list(a.frames):
        if name == "world" and sdf_world:
            continue
        if name not in frames_b and not _warned(name, warnings):
            out.append(f"'{name}' is neither a link nor a frame after reloading")
    for name, link in a.links.items():
        other = b.links.get(name)
        ia = link.inertia
        if other is None:
            if name in b.frames and ia.mass > 0 and not _warned(name, warnings):
                out.append(f"link '{name}' (mass {ia.mass}) became a frame")
            continue
        ib = other.inertia
        # the centre of mass of a massless link means nothing (MJCF does not keep it)
        same = (_close(ia.mass, ib.mass) and (ia.mass == 0.0 or _close(ia.com, ib.com))
                and _close(ia.about_origin(), ib.about_origin()))
        if not same and not _warned(name, warnings):
            out.append(f"link '{name}': inertia {ia} vs {ib}")
    for name, j in a.joints.items():
        if j.dofs == 0:
            continue
        other = b.joints.get(name)
        if (other is None or other.type is not j.type) and not _warned(name, warnings):
            out.append(f"joint '{name}' ({j.type.value}) is {other.type.value if other else 'missing'} after reloading")
    for name in a.sensors:
        if name not in b.sensors and not _warned(name, warnings):
            out.append(f"sensor '{name}' was lost")
    # (a fixed joint that is gone, such as SDF's world attachment, moves nothing: the poses below tell)
    changed = [n for n, j in a.joints.items() if j.dofs and (n not in b.joints or b.joints[n].type is not j.type)]
    if out or changed:  # a warned change of a joint changes the kinematics: nothing more to compare
        return out
    # world poses are sums of the model's lengths: their rounding is relative to the largest one
    lengths = [j.rest_transform[:3, 3] for j in a.joints.values()] + [j.axis_origin for j in a.joints.values()]
    lengths += [j.center for j in a.joints.values() if j.center is not None]
    lengths += [f.link_H_frame[:3, 3] for f in a.frames.values()]
    with np.errstate(all="ignore"):
        length = max([1.0] + [float(np.max(np.abs(v))) for v in lengths if np.all(np.isfinite(v))])
    ka, kb = Kinematics(a), Kinematics(b)
    common = [n for n in ka.frame_names if n in kb.frame_index]
    # a base link that became a frame (or SDF's world) moves the floating base: compare relative to a link of both
    base = a.default_base_link if a.default_base_link in kb.frame_index else next(
        (n for n in ka.frame_names if n in kb.frame_index), None)
    rng = np.random.default_rng(0)
    for sample in range(3):
        config = _configuration(a, None if sample == 0 else rng)
        with np.errstate(all="ignore"):  # a mimic gain near the largest double overflows both alike
            wa, wb = ka.world_transforms(config), kb.world_transforms(config)
        if base is not None:
            with np.errstate(all="ignore"):
                to_a = (wa[base] @ np.linalg.inv(wb[base])) if np.all(np.isfinite(wb[base])) else np.eye(4)
                wb = {n: to_a @ t for n, t in wb.items()}
        bad = [n for n in common if not _same_pose(wa[n], wb[n], length) and not _warned(n, warnings)]
        if bad:
            out.append(f"world poses differ at configuration {sample} for {bad[:5]}")
    return out


def _same_pose(a: np.ndarray, b: np.ndarray, length: float) -> bool:
    """World poses equal up to rounding; a pose that overflows a double is compared only as overflowed.

    Near 1.8e308 one model may overflow to inf where the other, its numbers rounded in another order,
    gives a huge finite value, and re-expressing an inf pose in the other base turns 0 * inf into NaN
    across its row: neither is a position to compare, but one model overflowing alone is a difference.
    """
    fa, fb = bool(np.all(np.isfinite(a))), bool(np.all(np.isfinite(b)))
    if not (fa and fb):
        return fa == fb
    return _close(a, b, scale=length)


def _configuration(model: Model, rng: np.random.Generator | None) -> dict[str, object]:
    config: dict[str, object] = {}
    for j in model.joints.values():
        if j.mimic is not None or j.dofs == 0:
            continue
        if j.type is JointType.SPHERICAL:
            q = rng.normal(size=4) if rng is not None else np.array([1.0, 0.0, 0.0, 0.0])
            config[j.name] = q / np.linalg.norm(q)
        else:
            config[j.name] = float(rng.uniform(-math.pi, math.pi)) if rng is not None else 0.0
    for j in model.joints.values():
        if j.mimic is not None:
            config[j.name] = j.mimic.multiplier * float(config.get(j.mimic.joint, 0.0)) + j.mimic.offset
    return config
