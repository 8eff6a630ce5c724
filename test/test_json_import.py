"""idyntree-model-json import: what the exporter writes reads back, and bad input is named precisely."""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest

from idyntree_models.api import export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.model.model import ForceTorqueSensor, JointType, LinkSensor, SensorType

from conftest import MODELS
from model_compare import assert_models_equal

SOURCE = MODELS / "urdf/idyntree/icub_sensorised.urdf"


@pytest.fixture(scope="module")
def doc() -> dict:
    return json.loads(export_model(load_model(SOURCE), "idyntree-model-json"))


def _load(d: dict | str, tmp_path=None, warnings=None):
    text = d if isinstance(d, str) else json.dumps(d, indent=2)
    if tmp_path is not None:
        path = tmp_path / "robot.json"
        path.write_text(text)
        return load_model(path, warnings=warnings)
    return load_model(text, "idyntree-model-json", warnings=warnings)


def _fails(d, match: str, tmp_path=None) -> ModelError:
    with pytest.raises(ModelError, match=match) as info:
        _load(d, tmp_path)
    return info.value


def _ft(d: dict) -> dict:
    return next(s for s in d["sensors"] if s["type"] == "six_axis_force_torque")


def _mutated(doc: dict, fn) -> dict:
    d = copy.deepcopy(doc)
    fn(d)
    return d


def test_everything_the_export_writes_reads_back(doc):
    original = load_model(SOURCE)
    model = _load(doc)
    assert_models_equal(original, model, check_name=False)
    ft = [s for s in model.sensors.values() if isinstance(s, ForceTorqueSensor)]
    acc = [s for s in model.sensors.values() if isinstance(s, LinkSensor) and s.sensor_type is SensorType.ACCELEROMETER]
    assert len(ft) == 6 and acc
    assert json.loads(export_model(model, "idyntree-model-json")) == doc


def test_parse_error_names_file_and_line(tmp_path, doc):
    text = json.dumps(doc, indent=2).splitlines()
    text[6] = text[6] + " oops"
    err = _fails("\n".join(text), r"invalid JSON: .*line 7", tmp_path)
    assert err.line == 7 and str(err).startswith(f"{tmp_path / 'robot.json'}:7:")


def test_version_is_checked(doc):
    _fails(_mutated(doc, lambda d: d.pop("idyntree_model_json_version")), "missing key 'idyntree_model_json_version'")
    err = _fails(_mutated(doc, lambda d: d.update(idyntree_model_json_version=2)), "version 2 is not supported, expected 1")
    assert "idyntree_model_json_version" in str(err)
    _fails(_mutated(doc, lambda d: d.update(idyntree_model_json_version="1")), "expected the integer 1, got a string")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["joints"][3].pop("rest_transform"), r"joints\[3\]: missing key 'rest_transform'"),
        (lambda d: d["joints"][3]["rest_transform"].pop("position"), r"joints\[3\]\.rest_transform: missing key 'position'"),
        (lambda d: d["links"][0].pop("name"), r"links\[0\]: missing key 'name'"),
        (lambda d: d.pop("links"), r"missing key 'links'"),
        (lambda d: d["joints"][3].update(parent_link="nope"), r"joints\[3\]\.parent_link: link 'nope' does not exist"),
        (lambda d: d["joints"][3].update(child_link="nope"), r"joints\[3\]\.child_link: link 'nope' does not exist"),
        (lambda d: d["additional_frames"][0].update(parent_link="ghost"),
         r"additional_frames\[0\]\.parent_link: link 'ghost' does not exist"),
        (lambda d: d["visual_solid_shapes"][0].update(link_name="ghost"),
         r"visual_solid_shapes\[0\]\.link_name: link 'ghost' does not exist"),
        (lambda d: d.update(default_base_link="ghost"), r"default_base_link: link 'ghost' does not exist"),
        (lambda d: d["joints"][3]["rest_transform"]["rotation_matrix"][0].__setitem__(0, 2.0),
         r"joints\[3\]\.rest_transform\.rotation_matrix: is not a rotation matrix"),
        (lambda d: d["joints"][3]["rest_transform"].update(rotation_matrix=[[-1, 0, 0], [0, 1, 0], [0, 0, 1]]),
         r"joints\[3\]\.rest_transform\.rotation_matrix: is not a rotation matrix: a reflection"),
        (lambda d: d["joints"][3]["rest_transform"].update(rotation_matrix=[[1, 0, 0], [0, 1, 0]]),
         r"joints\[3\]\.rest_transform\.rotation_matrix: expected 3 rows"),
        # singular with a subnormal entry: LAPACK's determinant said "divide by zero" (found by the fuzzer)
        (lambda d: d["joints"][3]["rest_transform"].update(rotation_matrix=[[0, 0, 0], [0, 1, 0], [1e-320, 0, 1]]),
         r"joints\[3\]\.rest_transform\.rotation_matrix: is not a rotation matrix: not orthonormal"),
        (lambda d: d["joints"][3]["rest_transform"]["position"].append(1.0),
         r"joints\[3\]\.rest_transform\.position: expected 3 numbers, got 4"),
        (lambda d: d["links"][2]["inertia"].update(mass="heavy"), r"links\[2\]\.inertia\.mass: expected a number, got a string"),
        (lambda d: d["links"][2]["inertia"].update(mass=True), r"links\[2\]\.inertia\.mass: expected a number, got a boolean"),
        (lambda d: d["links"][2]["inertia"]["rotational_inertia_wrt_frame_origin"][0].__setitem__(1, 5.0),
         r"links\[2\]\.inertia\.rotational_inertia_wrt_frame_origin: .*not symmetric"),
        (lambda d: d.update(links={}), r"links: expected an array, got an object"),
        (lambda d: d["joints"][0].update(type="hinge"), r"joints\[0\]\.type: unknown joint type 'hinge'"),
        (lambda d: d["links"].append(copy.deepcopy(d["links"][0])), r"links\[\d+\]\.name: duplicate link name"),
        (lambda d: d["joints"].append(copy.deepcopy(d["joints"][0])), r"joints\[\d+\]\.name: duplicate joint name"),
        (lambda d: d["additional_frames"].append({**d["additional_frames"][0], "name": d["links"][0]["name"]}),
         r"additional_frames\[\d+\]\.name: frame name '.*' is already a link name"),
        (lambda d: _ft(d).update(parent_joint="ghost"), r"sensors\[\d+\]\.parent_joint: joint 'ghost' does not exist"),
        (lambda d: _ft(d)["second_link_H_sensor"]["position"].__setitem__(0, 9.0),
         r"sensors\[\d+\]: first_link_H_sensor and second_link_H_sensor disagree"),
        (lambda d: _ft(d).update(applied_wrench_link=d["links"][5]["name"]),
         r"sensors\[\d+\]\.applied_wrench_link: link '.*' is not one of the links of joint"),
        (lambda d: d["visual_solid_shapes"][0]["shapes"][0].update(type="blob"),
         r"visual_solid_shapes\[0\]\.shapes\[0\]\.type: unknown shape type 'blob'"),
        (lambda d: d["joints"][5]["limits"].update(has_position_limits="yes"),
         r"joints\[5\]\.limits\.has_position_limits: expected true or false, got a string"),
        (lambda d: d["joints"][5]["axis"].update(direction=[0, 0, 0]), r"joints\[5\]\.axis\.direction: .*zero axis"),
        (lambda d: d["joints"][5]["limits"].pop("min_position"), r"joints\[5\]\.limits: missing key 'min_position'"),
        (lambda d: d["joints"][5]["limits"].update(min_position=3.0, max_position=-3.0),
         r"joints\[5\]\.limits: min_position 3.0 is above max_position -3.0"),
        (lambda d: d["joints"][-1].update(child_link=d["joints"][1]["child_link"]), r"joints\[\d+\]: .*two parent joints"),
    ],
)
def test_bad_input_names_the_json_path(doc, edit, message):
    # find a revolute joint with position limits for the limit cases
    d = copy.deepcopy(doc)
    edit(d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an error of its own, not a numpy warning on the way
        _fails(d, message)


def test_limits_cases_hit_a_limited_revolute(doc):
    j = doc["joints"][5]
    assert j["type"] == "revolute" and j["limits"]["has_position_limits"]
    assert doc["visual_solid_shapes"][0]["shapes"], "the shape cases need a shape on the first entry"


def test_non_finite_numbers_are_rejected(doc):
    text = json.dumps(doc, indent=2)
    d = json.loads(text)
    d["joints"][3]["rest_transform"]["position"][1] = float("nan")
    _fails(json.dumps(d), r"joints\[3\]\.rest_transform\.position\[1\]: NaN is not a JSON number")
    d["joints"][3]["rest_transform"]["position"][1] = 0.0
    d["links"][1]["inertia"]["center_of_mass"][2] = float("inf")
    _fails(json.dumps(d), r"links\[1\]\.inertia\.center_of_mass\[2\]: Infinity is not a JSON number")
    # a literal that overflows to infinity
    big = text.replace('"mass": ', '"mass": 1e999, "_": ', 1)
    with pytest.raises(ModelError):
        _load(big)


def test_duplicate_keys_and_wrong_top_level(doc):
    _fails('{"idyntree_model_json_version": 1, "idyntree_model_json_version": 1}', "duplicate key 'idyntree_model_json_version'")
    _fails("[1, 2, 3]\n", r"\(top level\): expected an object, got an array")


def test_unknown_keys_warn_with_their_path(doc):
    d = _mutated(doc, lambda d: d["joints"][2].update(colour="blue"))
    warnings: list[str] = []
    _load(d, warnings=warnings)
    assert any("joints[2]: unknown key(s) colour ignored" in w for w in warnings)


def test_default_base_link_must_be_the_root(doc):
    d = _mutated(doc, lambda d: d.update(default_base_link=d["joints"][0]["child_link"]))
    _fails(d, r"default_base_link: link '.*' is not the root of the joint tree")


def test_iDynTree_specific_types_are_read():
    d = {
        "idyntree_model_json_version": 1,
        "default_base_link": "a",
        "links": [
            {"name": n, "inertia": {"mass": 1.0, "center_of_mass": [0, 0, 0.1],
                                    "rotational_inertia_wrt_frame_origin": [[0.02, 0, 0], [0, 0.02, 0], [0, 0, 0.01]]}}
            for n in ("a", "b", "c")
        ],
        "joints": [
            {"name": "so2", "type": "revolute_so2", "parent_link": "a", "child_link": "b",
             "rest_transform": {"position": [0, 0, 1], "rotation_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
             "axis": {"direction": [0, 0, 2], "origin": [0, 0, 0]}},
            {"name": "ball", "type": "spherical", "parent_link": "b", "child_link": "c",
             "rest_transform": {"position": [0, 0, 1], "rotation_matrix": [[0, -1, 0], [1, 0, 0], [0, 0, 1]]},
             "joint_center_wrt_parent": [0, 0, 0.5]},
        ],
        "additional_frames": [],
        "sensors": [
            {"name": "skin", "type": "three_axis_force_torque_contact", "parent_link": "c",
             "link_H_sensor": {"position": [0, 0, 0], "rotation_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
             "load_cell_locations": [[0, 0, 0], [0.1, 0, 0]]},
        ],
    }
    m = _load(d)
    assert m.joints["so2"].type is JointType.REVOLUTE and m.joints["so2"].is_continuous
    assert np.allclose(m.joints["so2"].axis, [0, 0, 1])
    assert m.joints["ball"].type is JointType.SPHERICAL and np.allclose(m.joints["ball"].center, [0, 0, 0.5])
    assert m.sensors["skin"].properties["load_cell_locations"] == [[0, 0, 0], [0.1, 0, 0]]
    assert np.allclose(m.links["a"].inertia.inertia, np.diag([0.01, 0.01, 0.01]))  # moved to the COM


def test_cli_reports_json_errors(tmp_path, doc):
    import subprocess
    import sys

    from conftest import REPO

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_mutated(doc, lambda d: d["joints"][3].update(parent_link="nope")), indent=2))
    r = subprocess.run([sys.executable, "-m", "idyntree_models.cli", "-i", str(bad), "-o", str(tmp_path / "o.urdf")],
                       cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0
    assert "bad.json" in r.stderr and "joints[3].parent_link: link 'nope' does not exist" in r.stderr


def test_negative_mass_warns_and_strict_refuses(doc):
    # iDynTree loads it as written; so do we, with a warning, unless strict
    d = copy.deepcopy(doc)
    d["links"][2]["inertia"]["mass"] = -1.0
    warnings: list[str] = []
    model = _load(d, warnings=warnings)
    name = d["links"][2]["name"]
    assert model.links[name].inertia.mass == -1.0
    assert any(f"link '{name}': mass -1.0 is negative" in w for w in warnings), warnings
    with pytest.raises(ModelError, match=r"mass -1.0 is negative.*strict"):
        load_model(json.dumps(d), "idyntree-model-json", strict=True)


def test_a_material_without_a_name_comes_back_without_one():
    """JSON writes a missing material name as "" (the schema's name is a string); read back, it is no name
    again, so URDF -> JSON -> URDF writes no name="" (63 shapes of 32 files came back named "")."""
    text = ('<robot name="r"><link name="a"><visual><geometry><box size="1 1 1"/></geometry><material name="">'
            '<color rgba="1 0 0 1"/></material></visual></link></robot>')
    model = load_model(text, "urdf")
    model.links["a"].visuals[0].material.name = None
    back = load_model(export_model(model, "idyntree-model-json").encode(), "idyntree-model-json")
    material = back.links["a"].visuals[0].material
    assert material.name is None and list(material.color) == [1.0, 0.0, 0.0, 1.0]


def _first(doc: dict, kind: str) -> int:
    return next(i for i, j in enumerate(doc["joints"]) if j["type"] == kind)


def test_what_the_schema_does_not_read_where_it_is_written_is_said(doc):
    """Limits without their has_* flag (or with it false) were dropped without a word: a revolute joint came
    back continuous; a fixed joint's axis, limits and dynamics were not looked at, nor NoJointDynamics values."""
    k = _first(doc, "revolute")
    d = _mutated(doc, lambda d: d["joints"][k]["limits"].update(has_position_limits=False, has_effort_limits=False)
                 or d["joints"][k]["limits"].pop("has_velocity_limits"))
    d["joints"][k]["limits"].update(min_position=-1.0, max_position=1.0, effort_limit=3.0, velocity_limit=2.0)
    f = _first(doc, "fixed")
    d["joints"][f].update(axis={"direction": [1, 0, 0]}, limits={}, dynamics="x")
    d["joints"][k]["dynamics"] = {"type": "NoJointDynamics", "damping": 0.5, "static_friction": 0.0}
    warnings: list[str] = []
    model = _load(d, warnings=warnings)
    assert not model.joints[d["joints"][k]["name"]].limits.has_position_limits
    said = sorted(w for w in warnings if w.startswith(f"joints[{k}]") or w.startswith(f"joints[{f}]"))
    assert said == sorted([f"joints[{f}]: axis, limits, dynamics not read (a fixed joint has none)",
                    f"joints[{k}].limits: min_position, max_position not read (has_position_limits is false)",
                    f"joints[{k}].limits: effort_limit not read (has_effort_limits is false)",
                    f"joints[{k}].limits: velocity_limit not read (has_velocity_limits is missing)",
                    f"joints[{k}].dynamics: damping not read (the type is NoJointDynamics)"]), warnings
    with pytest.raises(ModelError, match="not read"):
        load_model(json.dumps(d), "idyntree-model-json", strict=True)


def test_a_spherical_joint_s_limits_and_dynamics_are_checked():
    """They were not looked at: a limit flag "maybe", dynamics 17 loaded without a word."""
    base = json.loads(export_model(load_model(MODELS.parent.parent / "idyntree_models/data/demo_arm.urdf"),
                                   "idyntree-model-json"))
    k = _first(base, "spherical")
    for change, message in (({"limits": {"has_position_limits": "maybe"}}, r"limits\.has_position_limits: expected"),
                            ({"dynamics": 17}, r"dynamics: expected an object"),
                            ({"limits": {"has_position_limits": True, "min_position": [0, 0]}},
                             r"limits\.min_position: expected 3")):
        with pytest.raises(ModelError, match=rf"joints\[{k}\]\.{message}"):
            _load(_mutated(base, lambda d, change=change: d["joints"][k].update(change)))
    warnings: list[str] = []
    _load(_mutated(base, lambda d: d["joints"][k].update(
        dynamics={"type": "URDFJointDynamics", "damping": [0.1, 0, 0], "static_friction": [0, 0, 0]})),
        warnings=warnings)
    assert any(f"joints[{k}].dynamics: damping and friction of spherical joint" in w for w in warnings), warnings


@pytest.mark.parametrize("name", ["imu\x00link", "a\x1fb", "\ufffe"])
def test_a_name_no_xml_format_can_hold_is_refused(doc, name):
    """A NUL in a frame name loaded, then SDF and MJCF export failed with an internal error.  (A tab or a line
    break XML holds, as a character reference: test_any_spherical_joint_name_comes_back_after_unfolding.)"""
    d = _mutated(doc, lambda d: d["additional_frames"][0].update(name=name))
    _fails(d, r"additional_frames\[0\]\.name: .* holds the control character U\+[0-9A-F]{4}")


def test_errors_found_on_the_whole_document_point_at_their_entry(doc, tmp_path):
    """A duplicate key gave no line (eight 'mass' keys in the file); tree errors said only 'joints'."""
    text = json.dumps(doc, indent=2)
    first = text.index('"mass"')
    text = text[:first] + '"mass": 2.0, ' + text[first:]
    e = _fails(text, "duplicate key 'mass'")
    assert e.line == text.count("\n", 0, first) + 1
    # the key the reader refused: the innermost object closes first (the outer 'a' repeats on line 2)
    assert _fails('{"a": 1,\n "a": {"x": 1,\n\n\n "x": 2}}', "duplicate key 'x'").line == 5
    k = 3
    child = doc["joints"][k]["child_link"]
    e = _fails(_mutated(doc, lambda d: d["joints"].pop(k)), "root links")
    assert e.element == f"links[{[n['name'] for n in doc['links']].index(child)}]"
