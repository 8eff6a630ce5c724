"""Bad URDF input: each case gives a clear error (file, line, element, what is wrong) or a warning.

Nothing may crash, hang, read other files, expand entities or return an empty model.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import numpy as np
import pytest

from idyntree_models import load_model
from idyntree_models.errors import ModelError

from conftest import REPO

M = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'


def robot(body: str) -> str:
    return f'<robot name="r">\n<link name="a">{M}</link>\n<link name="b">{M}</link>\n{body}\n</robot>\n'


J_AB = '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>' \
       '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'

CASES = {
    "malformed": ("<robot name='r'><link name='a'></robot>", r"line 1: malformed XML"),
    "not a model": ("<COLLADA version='1.4.1'/>", r"cannot tell the model format from the root element <COLLADA>"),  # <mujoco> is MJCF now
    "no links": ("<robot name='r'/>", r"no <link>"),
    "missing child link": (robot('<joint name="j" type="fixed"><parent link="a"/><child link="zz"/></joint>'),
                           r"line 4: <child>: child link 'zz' of joint 'j' does not exist"),
    "missing parent element": (robot('<joint name="j" type="fixed"><child link="b"/></joint>'),
                               r"line 4: <joint name='j'>: a joint needs <parent"),
    "several roots": (robot(""), r"2 root links \('a', 'b'\)"),
    "cycle": (robot(J_AB + '<joint name="k" type="fixed"><parent link="b"/><child link="a"/></joint>'),
              r"cycle"),
    "two parents": (f'<robot name="r"><link name="a">{M}</link><link name="b">{M}</link><link name="c">{M}</link>'
                    '<joint name="j" type="fixed"><parent link="a"/><child link="c"/></joint>'
                    '<joint name="k" type="fixed"><parent link="b"/><child link="c"/></joint></robot>',
                    r"link 'c' has two parent joints"),
    "duplicate link": (robot(f'<link name="a">{M}</link>' + J_AB), r"line 4: <link name='a'>: duplicate link name 'a' \(first defined at line 2\)"),
    "duplicate sensor": (robot(J_AB + '<sensor name="s" type="gyroscope"><parent link="a"/></sensor>'
                                      '<sensor name="s" type="gyroscope"><parent link="b"/></sensor>'),
                         r"duplicate sensor name 's'"),
    "sensor named like a link is fine but frame clash is not": (
        robot(J_AB) .replace('<link name="b">', '<link name="c"/><joint name="f" type="fixed"><parent link="b"/>'
                             '<child link="c"/></joint><link name="b">') .replace("</robot>", f'<link name="c">{M}</link></robot>'),
        r"duplicate link name 'c'"),
    "nan": (robot(J_AB.replace('lower="-1"', 'lower="nan"')), r"line 4: <limit>: attribute 'lower' must be finite, got 'nan'"),
    "text for number": (robot('<joint name="j" type="fixed"><origin xyz="0 one 0"/><parent link="a"/><child link="b"/></joint>'),
                        r"line 4: <origin>: attribute 'xyz' must be numbers, got '0 one 0'"),
    "two numbers for xyz": (robot('<joint name="j" type="fixed"><origin xyz="0 0"/><parent link="a"/><child link="b"/></joint>'),
                            r"attribute 'xyz' needs 3 numbers, got 2"),
    "zero axis": (robot(J_AB.replace('xyz="0 0 1"', 'xyz="0 0 0"')), r"line 4: <axis>: joint 'j' has a zero axis"),
    "unknown joint type": (robot(J_AB.replace('"revolute"', '"hinge"')), r"unknown joint type 'hinge'"),
    "planar": (robot(J_AB.replace('"revolute"', '"planar"')), r"joint type 'planar' is not supported"),
    "bad ft frame": (robot(J_AB + '<sensor name="ft" type="force_torque"><parent joint="j"/><force_torque>'
                                  '<frame>world</frame><measure_direction>child_to_parent</measure_direction>'
                                  '</force_torque></sensor>'),
                     r"line 4: <frame>: force/torque sensor 'ft': <frame> must be child, parent or sensor, got 'world'"),
    "bad ft direction": (robot(J_AB + '<sensor name="ft" type="force_torque"><parent joint="j"/><force_torque>'
                                      '<frame>child</frame><measure_direction>up</measure_direction>'
                                      '</force_torque></sensor>'), r"<measure_direction> must be parent_to_child"),
    "ft on unknown joint": (robot(J_AB + '<sensor name="ft" type="force_torque"><parent joint="nope"/></sensor>'),
                            r"force/torque sensor 'ft': joint 'nope' does not exist"),
    "gyro on unknown link": (robot(J_AB + '<sensor name="g" type="gyroscope"><parent link="nope"/></sensor>'),
                             r"gyroscope 'g': parent link 'nope' does not exist"),
    "mimic unknown": (robot(J_AB.replace("</joint>", '<mimic joint="zz"/></joint>')), r"mimics 'zz'"),
    "limits reversed": (robot(J_AB.replace('lower="-1" upper="1"', 'lower="1" upper="-1"')), r"lower limit 1.0 is above upper limit -1.0"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_refused_clearly(name):
    text, pattern = CASES[name]
    with pytest.raises(ModelError, match=pattern):
        load_model(text, format="urdf" if name != "not a model" else None)


# physically impossible values that the reference loaders (iDynTree, urdfdom) load as written:
# a warning by default, an error with strict=True
PHYSICS = {
    "negative mass": (robot(J_AB).replace('<link name="b">' + M, '<link name="b"><inertial><mass value="-2"/></inertial>'),
                      r"line 3: link 'b': mass -2.0 is negative"),
    "non-psd inertia": (robot(J_AB).replace('<link name="b">' + M, '<link name="b"><inertial><mass value="1"/>'
                                          '<inertia ixx="1" iyy="1" izz="-1" ixy="0" ixz="0" iyz="0"/></inertial>'),
                        r"line 3: link 'b': rotational inertia is not positive semi-definite"),
    "triangle inequality": (robot(J_AB).replace('<link name="b">' + M, '<link name="b"><inertial><mass value="1"/>'
                                              '<inertia ixx="1" iyy="1" izz="3" ixy="0" ixz="0" iyz="0"/></inertial>'),
                            r"line 3: link 'b': principal moments .* violate the triangle inequality"),
}


@pytest.mark.parametrize("name", list(PHYSICS))
def test_impossible_physics_warns_and_strict_refuses(name):
    text, message = PHYSICS[name]
    warnings: list[str] = []
    model = load_model(text, warnings=warnings)
    assert len(model.links) == 2
    assert [w for w in warnings if re.search(message, w)], warnings
    with pytest.raises(ModelError, match=message + r".*\(strict: warnings are errors\)"):
        load_model(text, strict=True)


def test_error_names_the_file(tmp_path):
    path = tmp_path / "broken.urdf"
    path.write_text(CASES["zero axis"][0])
    with pytest.raises(ModelError) as info:
        load_model(path)
    assert str(info.value).startswith(f"{path}:4: <axis>: joint 'j' has a zero axis")


def test_trimmed_ft_text_is_accepted():
    """iDynTree rejects `<frame> sensor </frame>` and then drops every sensor; we trim."""
    text = robot(J_AB.replace('type="revolute"', 'type="fixed"') + '<sensor name="ft" type="force_torque"><parent joint="j"/>'
                 '<force_torque><frame> sensor </frame><measure_direction>\n child_to_parent \n</measure_direction>'
                 '</force_torque><origin xyz="0 0 0.1"/></sensor><sensor name="g" type="gyroscope"><parent link="a"/></sensor>')
    model = load_model(text)
    assert set(model.sensors) == {"ft", "g"}
    assert model.sensors["ft"].second_link_H_sensor[2, 3] == 0.1


def test_unknown_sensor_type_warns_and_keeps_the_rest():
    text = robot(J_AB + '<sensor name="cam" type="camera"><parent link="a"/></sensor>'
                        '<sensor name="g" type="gyroscope"><parent link="b"/></sensor>')
    warnings: list[str] = []
    model = load_model(text, warnings=warnings)
    assert set(model.sensors) == {"g"}
    assert any("sensor 'cam' of type 'camera' is not supported" in w and "line 4" in w for w in warnings)


def test_missing_limit_warns():
    warnings: list[str] = []
    load_model(robot('<joint name="j" type="revolute"><parent link="a"/><child link="b"/></joint>'), warnings=warnings)
    assert any("revolute joint 'j' has no <limit>" in w for w in warnings)


def test_billion_laughs_is_refused_quickly():
    lol = '<!DOCTYPE robot [<!ENTITY a "lollollollollol">' + "".join(
        f'<!ENTITY {chr(98 + i)} "' + f"&{chr(97 + i)};" * 10 + '">' for i in range(9)) + "]>"
    text = lol + '<robot name="&j;"><link name="a"/></robot>'
    start = time.monotonic()
    with pytest.raises(ModelError, match=r"line 1: the document declares XML entities"):
        load_model(text)
    assert time.monotonic() - start < 30  # a hang would be caught by this bound, not a speed check


def test_external_entity_is_not_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET")
    text = f'<?xml version="1.0"?>\n<!DOCTYPE robot [<!ENTITY x SYSTEM "file://{secret}">]>\n<robot name="&x;"><link name="a"/></robot>'
    with pytest.raises(ModelError) as info:
        load_model(text)
    assert "TOP-SECRET" not in str(info.value)
    assert "entities" in str(info.value)


def test_external_dtd_is_not_fetched(tmp_path):
    """A DOCTYPE pointing at a DTD (local or remote) is neither loaded nor needed."""
    text = '<?xml version="1.0"?>\n<!DOCTYPE robot SYSTEM "http://203.0.113.1/robot.dtd">\n<robot name="r"><link name="a"/></robot>'
    model = load_model(text)
    assert list(model.links) == ["a"]


def _cli(*args, stdin: str | None = None):
    return subprocess.run([sys.executable, "-m", "idyntree_models.cli", *args], input=stdin, capture_output=True,
                          text=True, cwd=REPO, timeout=120)


def test_cli_error_is_one_line_without_traceback(tmp_path):
    bad = tmp_path / "bad.urdf"
    bad.write_text(CASES["nan"][0])
    res = _cli("-i", str(bad), "-o", str(tmp_path / "out.json"))
    assert res.returncode == 1
    lines = res.stderr.strip().splitlines()
    assert lines == [f"idyntree-model-convert: error: {bad}:4: <limit>: attribute 'lower' must be finite, got 'nan'"]
    assert not (tmp_path / "out.json").exists()


def test_cli_missing_file_and_unknown_formats(tmp_path):
    res = _cli("-i", str(tmp_path / "nope.urdf"), "-o", str(tmp_path / "o.json"))
    assert res.returncode == 1 and "nope.urdf: no such file" in res.stderr and "Traceback" not in res.stderr
    res = _cli("-i", "-", "-o", "-", "--output-format", "json", stdin="hello")
    assert res.returncode == 1 and "neither JSON nor XML" in res.stderr
    res = _cli("-i", "-", "-o", "-", "--output-format", "yaml", stdin=robot(J_AB))
    assert res.returncode == 1 and "unknown format 'yaml'" in res.stderr


def test_romeo_with_indefinite_inertia_loads_like_idyntree_and_strict_refuses():
    """example-robot-data's romeo_laas_small.urdf (link 'body', principal moments -0.021, 0.052, 0.099) is
    loaded by iDynTree, pinocchio and Gazebo.  That file is not in the corpus: the vendored romeo.urdf with
    the same principal moments on 'body' stands for it, and the iDynTree wheel is the reference."""
    from conftest import MODELS

    idt = pytest.importorskip("idyntree.swig")
    path = MODELS / "urdf/example-robot-data/robots/romeo_description/urdf/romeo.urdf"
    original = ('<inertia ixx="0.241879" ixy="-6.88963e-05" ixz="0.00282915" iyy="0.238168" iyz="0.000306252" '
                'izz="0.0214739"/>')
    text = path.read_text()
    assert text.count(original) == 1
    text = text.replace(original, '<inertia ixx="-0.021" ixy="0" ixz="0" iyy="0.052" iyz="0" izz="0.099"/>')
    loader = idt.ModelLoader()
    assert loader.loadModelFromString(text)
    ref = loader.model()
    warnings: list[str] = []
    model = load_model(text, warnings=warnings)
    assert sorted(model.links) == sorted(ref.getLinkName(i) for i in range(ref.getNrOfLinks()))
    assert model.dofs == ref.getNrOfDOFs()
    body = ref.getLink(ref.getLinkIndex("body")).getInertia().getRotationalInertiaWrtCenterOfMass().toNumPy()
    assert np.allclose(model.links["body"].inertia.inertia, body)
    assert [w for w in warnings if "link 'body': rotational inertia is not positive semi-definite "
            "(principal moments -0.021, 0.052, 0.099 kg m^2)" in w], warnings
    with pytest.raises(ModelError, match=r"line 390: link 'body': rotational inertia is not positive.*strict"):
        load_model(text, strict=True)
