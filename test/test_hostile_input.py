"""Hostile and huge input (issue 11): every reader answers ModelError with the element and line, or a model.

Each defect found by fuzzing the readers has its own small input here.  Numbers are checked
against the grammars of the formats (XML Schema for URDF/SKEL, RFC 8259 for JSON) and, where a
reference implementation runs here, against it (dartpy for SKEL shape sizes).
"""

from __future__ import annotations

import json
import math
import os
import re

import numpy as np
import pytest

from idyntree_models import load_model
from idyntree_models.api import export_model
from idyntree_models.errors import ModelError
from idyntree_models.formats.base import MAX_FILE_BYTES
from idyntree_models.formats.numbers import MAX_NUMBER_CHARS
from idyntree_models.model.kinematics import Kinematics
from idyntree_models.model.transforms import make_transform

from conftest import DEMO, REPO
from test_skel import compare_with_dart, dart_reference, needs_dartpy

M = '<inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>'
J_AB = ('<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>')


def robot(body: str = J_AB, inertial_a: str = M) -> str:
    """Links a (line 2) and b (line 3); `body` starts on line 4."""
    return f'<robot name="r">\n<link name="a">{inertial_a}</link>\n<link name="b">{M}</link>\n{body}\n</robot>\n'


def fails(text, pattern: str, **kw) -> ModelError:
    with pytest.raises(ModelError, match=pattern) as info:
        load_model(text, **kw)
    return info.value


# -- one strict number reader per format family -------------------------------------------------
# Python's float() reads all of these; no model format does.
BAD_NUMBERS = {
    "digit separator": "1_0",
    "Arabic-Indic digits": "\u0661\u0662",
    "full-width digits": "\uff11\uff12",
    "no-break space inside": "1\u00a02",
    "infinity": "Infinity",
    "nan": "nan",
    "overflow": "1e999",
    "hex": "0x10",
    "4301 digits": "1" * 4301,
}


@pytest.mark.parametrize("token", list(BAD_NUMBERS.values()), ids=list(BAD_NUMBERS))
def test_urdf_numbers_are_xml_schema_doubles(token):
    e = fails(robot(J_AB.replace('lower="-1"', f'lower="{token}"')), r"attribute 'lower' must be")
    assert e.line == 4 and e.element == "<limit>"


@pytest.mark.parametrize("token", list(BAD_NUMBERS.values()), ids=list(BAD_NUMBERS))
def test_skel_numbers_are_xml_schema_doubles(token):
    text = ('<skel>\n<world name="w">\n<skeleton name="s">\n<body name="b">\n<inertia><mass>'
            f"{token}</mass></inertia>\n</body>\n</skeleton></world></skel>")
    e = fails(text, r"<mass> value must be")
    assert e.line == 5 and e.element == "<mass>"


def test_xml_schema_forms_that_float_shares_are_accepted():
    model = load_model(robot(J_AB.replace('lower="-1" upper="1"', 'lower="-1.e0" upper=" +.5E+0 "')))
    lim = model.joints["j"].limits
    assert (lim.min_position, lim.max_position) == (-1.0, 0.5)


def test_skel_integer_attribute_is_xml_schema_int():
    text = ('<skel><world name="w"><skeleton name="s"><body name="b"/><body name="c"/>'
            '<joint type="revolute" name="j"><parent>b</parent><child>c</child><axis><xyz>0 0 1</xyz></axis>\n'
            '<dof local_index="\uff10"/></joint></skeleton></world></skel>')
    e = fails(text, r"attribute 'local_index' must be an integer")
    assert e.line == 2


def _json_doc() -> dict:
    return json.loads(export_model(load_model(robot()), "json"))


def _mass_line(text: str) -> int:
    return text[: text.index('"mass"')].count("\n") + 1


@pytest.mark.parametrize("literal,reason", [
    ("9" * 400, "beyond the range of a double"),  # was OverflowError
    ("9" * 4301, f"more than {MAX_NUMBER_CHARS} characters"),  # was ValueError (int digit limit)
    ("1e400", "beyond the range of a double"),
    ("NaN", "JSON has no NaN or Infinity"),
    ("-Infinity", "JSON has no NaN or Infinity"),
])
def test_json_numbers_follow_the_json_grammar(literal, reason):
    text = json.dumps(_json_doc(), indent=2).replace('"mass": 1.0', f'"mass": {literal}', 1)
    e = fails(text, re.escape(reason))
    assert e.element == "links[0].inertia.mass" and e.line == _mass_line(text)


def test_lone_surrogates_are_refused_with_the_line():
    # a JSON \u escape of half a surrogate pair: not a character (every later write would fail)
    text = json.dumps(_json_doc(), indent=2).replace('"name": "b"', '"name": "b\\udc00"', 1)
    e = fails(text, "lone UTF-16 surrogate")
    assert e.line == text[: text.index("udc00")].count("\n") + 1
    pair = json.dumps(_json_doc(), indent=2).replace('"name": "j"', '"name": "j\\ud83d\\ude00"')
    assert "j\U0001f600" in load_model(pair).joints
    # a Python str holding one, through the API, in any format
    e = fails(robot().replace('name="b"', 'name="b\ud800"', 1), "lone UTF-16 surrogate")
    assert e.line == 3


# -- overflow is impossible in validation ------------------------------------------------------------
@pytest.mark.parametrize("value", ["1e155", "1e300", "1.7e308"])
def test_huge_inertia_is_judged_without_overflow(value):
    # a physically valid huge tensor loads; one that is indefinite is judged so, not an OverflowError
    big = M.replace('ixx="1" iyy="1" izz="1"', f'ixx="{value}" iyy="{value}" izz="{value}"')
    model = load_model(robot(inertial_a=big))
    assert model.links["a"].inertia.inertia[0, 0] == float(value)
    bad = (f'<inertial><mass value="1"/><inertia ixx="{value}" iyy="{value}" izz="{value}" ixy="{value}" '
           f'ixz="{value}" iyz="-{value}"/></inertial>')  # principal moments 2v, 2v, -v
    warnings: list[str] = []
    load_model(robot(inertial_a=bad), warnings=warnings)  # as iDynTree: kept, with a warning
    assert any("not positive semi-definite" in w for w in warnings)
    fails(robot(inertial_a=bad), "not positive semi-definite", strict=True)


def test_huge_inertia_in_json_is_judged_without_overflow():
    doc = _json_doc()
    doc["links"][0]["inertia"]["rotational_inertia_wrt_frame_origin"] = [[1e155, 0, 0], [0, 1e155, 0], [0, 0, 1e155]]
    assert load_model(json.dumps(doc)).links["a"].inertia.inertia[1, 1] == 1e155


def test_axis_of_1e308_is_a_direction_not_zero():
    model = load_model(robot(J_AB.replace('xyz="0 0 1"', 'xyz="1e308 1e308 0"')))
    np.testing.assert_allclose(model.joints["j"].axis, [2**-0.5, 2**-0.5, 0.0])
    assert np.all(np.isfinite(Kinematics(model).world_transforms({"j": 0.5})["b"]))


def test_mass_times_com_overflow_is_refused_when_exporting_json():
    big = M.replace('<mass value="1"/>', '<origin xyz="1e160 0 0"/><mass value="1e10"/>')
    model = load_model(robot(inertial_a=big))  # finite about the COM: a valid model
    with pytest.raises(ModelError, match=r"link 'a'.*beyond the range of a double"):
        export_model(model, "json")


@pytest.mark.parametrize("far", ["1e155", "1e300"])
def test_a_massless_link_far_from_its_centre_of_mass_exports_to_json(far):
    # Found by fuzzing (seed 7): mass 0 times a squared distance that overflows is 0 * inf = NaN, and the
    # JSON export refused a sound model. A massless body's parallel-axis term is zero at any distance,
    # so its tensor about the origin is its tensor about the COM (here zero), and the COM comes back.
    massless = (f'<inertial><origin xyz="0 {far} 0"/><mass value="0"/>'
                '<inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial>')
    model = load_model(robot(inertial_a=massless))
    np.testing.assert_array_equal(model.links["a"].inertia.about_origin(), np.zeros((3, 3)))
    doc = json.loads(export_model(model, "json"))
    (entry,) = [link for link in doc["links"] if link["name"] == "a"]
    assert entry["inertia"]["rotational_inertia_wrt_frame_origin"] == [[0, 0, 0]] * 3
    back = load_model(json.dumps(doc)).links["a"].inertia
    assert back.mass == 0.0 and back.com.tolist() == [0.0, float(far), 0.0]
    np.testing.assert_array_equal(back.inertia, np.zeros((3, 3)))


def test_skel_shape_inertia_overflow_is_an_error():
    # a radius of 1e200 on a body with a mass and no moment of inertia: was OverflowError
    text = ('<skel><world name="w"><skeleton name="s">\n<body name="b">\n<inertia><mass>1</mass></inertia>\n'
            '<visualization_shape><geometry><sphere><radius>1e200</radius></sphere></geometry>'
            "</visualization_shape></body></skeleton></world></skel>")
    e = fails(text, r"body 'b': the moment of inertia computed from its shapes .* beyond the range of a double")
    assert e.line == 3


# -- size limit ---------------------------------------------------------------------------------------
def test_files_larger_than_the_limit_are_refused_before_reading(tmp_path):
    path = tmp_path / "huge.urdf"
    with open(path, "wb") as f:  # sparse: no disk space used, and reading it would take gigabytes
        f.write(b"<robot>")
        f.truncate(MAX_FILE_BYTES + 1)
    fails(path, rf"the file has {MAX_FILE_BYTES + 1} bytes, more than the {MAX_FILE_BYTES}")
    fails("<robot>" + " " * MAX_FILE_BYTES, "more than the")


def test_special_files_are_not_read(tmp_path):
    fifo = tmp_path / "pipe.urdf"
    os.mkfifo(fifo)
    fails(fifo, "not a regular file")  # and no hang waiting for a writer


# -- line numbers wherever the element is known ----------------------------------------------------
TOPOLOGY = {
    "self loop": ('<joint name="j" type="fixed"><parent link="a"/><child link="a"/></joint>',
                  4, r"joint 'j': parent and child are the same link 'a'"),
    "two parents": (J_AB + '\n<link name="c"/><joint name="k" type="fixed"><parent link="c"/><child link="b"/></joint>',
                    5, r"joint 'k': link 'b' has two parent joints"),
    "several roots": ("", 3, r"link 'b': the model has 2 root links"),
    "cycle": (J_AB + f'\n<link name="c">{M}</link><link name="d">{M}</link>'
              '\n<joint name="k" type="fixed"><parent link="c"/><child link="d"/></joint>'
              '\n<joint name="l" type="fixed"><parent link="d"/><child link="c"/></joint>', 7,
              r"joint 'l': the joints form a cycle through links 'c', 'd'"),
    "mimic of nothing": (J_AB.replace("</joint>", '<mimic joint="zz"/></joint>'), 4, r"joint 'j': mimics 'zz'"),
    "self mimic": (J_AB.replace("</joint>", '<mimic joint="j"/></joint>'), 4, r"joint 'j': mimics itself"),
}


@pytest.mark.parametrize("name", list(TOPOLOGY))
def test_topology_errors_give_the_line(name, tmp_path):
    body, line, pattern = TOPOLOGY[name]
    path = tmp_path / "r.urdf"
    path.write_text(robot(body))
    e = fails(path, pattern)
    assert str(e).startswith(f"{path}:{line}: ")


CYCLE_CD = (J_AB + f'\n<link name="c">{M}</link><link name="d">{M}</link>'
            '\n<joint name="k" type="fixed"><parent link="c"/><child link="d"/></joint>'
            '\n<joint name="l" type="fixed"><parent link="d"/><child link="c"/></joint>')


@pytest.mark.parametrize("extra, pattern", [
    # a massless link off the cycle would become a frame: the cycle is reported as the file has it
    ('\n<link name="e"/><joint name="m" type="fixed"><parent link="d"/><child link="e"/></joint>',
     r"cycle through links 'c', 'd', 'e' \(not reachable from the root 'a'\)"),
    # a massless root on a fixed joint would become a frame of its child: the root is the file's
    ("fixed root", r"not reachable from the root 'a'"),
    # a sensor on a missing link: the tree is refused first, as the file's first problem
    ('\n<sensor name="s" type="accelerometer"><parent link="zz"/></sensor>', r"the joints form a cycle"),
])
def test_a_tree_error_is_found_before_the_model_is_changed(extra, pattern):
    """URDF turns massless links into frames and attaches sensors once the tree is known to be one:
    a model that is no tree is refused as the file wrote it."""
    body = CYCLE_CD.replace('type="revolute"', 'type="fixed"', 1) if extra == "fixed root" else CYCLE_CD + extra
    fails(robot(body, inertial_a=""), pattern, format="urdf")


def test_mimic_cycles_and_chains_are_refused_at_load():
    text = (f'<robot name="r">\n<link name="a">{M}</link>\n<link name="b">{M}</link>\n<link name="c">{M}</link>\n'
            '<joint name="j" type="revolute"><parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/><mimic joint="k"/></joint>\n'
            '<joint name="k" type="continuous"><parent link="b"/><child link="c"/><mimic joint="j"/></joint>\n'
            "</robot>")
    e = fails(text, r"mimic joints form a cycle \('j' -> 'k' -> 'j'\)")
    assert e.line == 5
    chain = text.replace('<mimic joint="j"/>', "").replace(
        "</robot>", f'<link name="d">{M}</link>\n<joint name="l" type="continuous"><parent link="c"/>'
        '<child link="d"/><mimic joint="j"/></joint>\n</robot>')
    e = fails(chain, r"joint 'l': mimics 'j', which itself mimics 'k'")
    assert e.line == 8


def test_non_utf8_input_gives_the_line(tmp_path):
    path = tmp_path / "latin1.urdf"
    path.write_bytes(robot().replace('name="b"', 'name="b\xe9"').encode("latin-1"))
    e = fails(path, r"not UTF-8 text")
    assert e.line == 3
    for encoding in ("utf-16", "utf-16-be"):  # (a BOM first: said as what it is)
        path.write_bytes((b"\xfe\xff" if encoding == "utf-16-be" else b"") + robot().encode(encoding))
        assert fails(path, r"UTF-16 text \(it starts with a UTF-16 byte order mark\): save it as UTF-8").line == 1


def test_cr_only_line_ends_count_lines(tmp_path):
    text = robot(J_AB.replace('xyz="0 0 1"', 'xyz="0 0 0"')).replace("\n", "\r")
    assert fails(text, "zero axis").line == 4
    doc = json.dumps(_json_doc(), indent=2)
    text = doc.replace('"mass": 1.0', '"mass": 1e999', 1)
    assert fails(text.replace("\n", "\r"), "beyond the range").line == _mass_line(text)
    skel = "<skel>\r<world name='w'>\r<skeleton name='s'>\r<body name='b'>\r<inertia><mass>x</mass></inertia>"
    assert fails(skel + "</body></skeleton></world></skel>", "<mass> value").line == 5


def test_leading_blank_lines_before_the_declaration_keep_lines():
    text = '\n\n<?xml version="1.0"?>\n' + robot(J_AB.replace('xyz="0 0 1"', 'xyz="0 0 0"'))
    assert fails(text, "zero axis").line == 7



_SKEL_BAD_MASS = "<skel>\n<world name='w'>\n<skeleton name='s'>\n<body name='b'>\n<inertia><mass>x</mass></inertia>" \
                 "</body></skeleton></world></skel>"


@pytest.mark.parametrize("decl", [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<?xml version="1.0' + "0" * 300 + '" encoding="UTF-8"?>',  # found by the fuzzer: past the first 200 characters
    '<?xml version="1.0"' + " " * 300 + 'encoding="utf-8"?>',
    '<?xml version="1.0"\n  encoding = \'UTF-8\'\n?>',  # line ends inside the declaration
    '<?xml version="1.0" encoding="UTF-8" encoding="UTF-8"?>',
])
@pytest.mark.parametrize("text, pattern, line", [(robot(J_AB.replace('xyz="0 0 1"', 'xyz="0 0 0"')), "zero axis", 4),
                                                 (_SKEL_BAD_MASS, "<mass> value", 5)])
def test_an_encoding_declaration_reads_the_same_from_text_and_bytes(decl, text, pattern, line):
    """lxml refuses a str whose declaration names an encoding (ValueError, an internal error to the user),
    so the readers drop it from text, however long the declaration: the same error on the same line
    as libxml2 gives for the bytes, declaration and all."""
    doc = f"{decl}\n{text}"
    expected = line + decl.count("\n") + 1
    assert fails(doc.encode(), pattern).line == expected
    assert fails(doc, pattern).line == expected

def test_encoding_pseudo_attributes_are_dropped_as_lxmls_pattern_finds_them():
    """The declaration's encoding is removed by search and anchored matches (linear), where a pattern
    like lxml's backtracks quadratically on long white space: same result as that pattern, applied
    until it no longer matches, on declarations built from the pieces that matter."""
    import random

    from idyntree_models.formats import xmlutil

    lxml_like = re.compile(r"(<\?xml[^>]+)(\s+encoding\s*=\s*[\"'][^\"']*[\"'])")

    def by_pattern(decl: str) -> str:
        while (m := lxml_like.match(decl)) is not None:
            decl = m.group(1) + "\n" * m.group(2).count("\n") + decl[m.end():]
        return decl

    rng = random.Random(4)
    parts = [" ", "\n", "\t", "encoding", "=", '"utf-8"', "'x'", " = ", 'version="1.0"', "xencoding", "encodingx", '"']
    for _ in range(3000):
        decl = "<?xml" + "".join(rng.choice(parts) for _ in range(rng.randint(0, 8))) + "?>"
        assert xmlutil._without_encoding(decl) == by_pattern(decl), decl
    long = '<?xml version="1.0"' + " " * 100_000 + 'encoding="utf-8"' + " " * 100_000 + "?>"
    assert xmlutil._without_encoding(long) == by_pattern('<?xml version="1.0" encoding="utf-8"?>').replace(
        "?>", " " * 199_999 + "?>")
    model = load_model(long + '\n<robot name="r"><link name="a"/></robot>\n', "urdf")  # seconds before
    assert list(model.links) == ["a"]


@pytest.mark.parametrize("head, error", [
    ('<?xml version="1.0" encoding=">', "malformed XML"),  # found by the piece/whole differential fuzzer
    ('<?xml version="1.0" encoding="utf-8"', "malformed XML"),
    ('<?xml version="1.0"' + " " * 50_000 + ">", "malformed XML"),
    ('<?xml-stylesheet href="a>b.xsl"?>', None),  # an instruction, not a declaration: '>' is allowed in it
])
def test_a_declaration_libxml2_refuses_is_a_syntax_error_not_an_internal_one(head, error):
    """A str starting `<?xml` whose declaration libxml2 would not accept is read as bytes: lxml's own test
    of a str's declaration (which raised ValueError, an internal error, for an unterminated encoding
    value, and backtracks quadratically on long white space) never runs, and libxml2 says what is wrong."""
    text = head + '\n<robot name="r">\n<link name="a"/>\n</robot>\n'
    if error is None:
        assert list(load_model(text, "urdf").links) == ["a"]
        return
    e = fails(text, error, format="urdf")
    assert "internal error" not in str(e) and e.line in (1, 2)  # libxml2 may see it at the next line's "<"


# -- URDF's world --floating--> base, as the README promises ------------------------------------------
def test_world_floating_base_is_accepted():
    text = robot('<link name="world"/>\n<joint name="float" type="floating"><parent link="world"/>'
                 '<child link="a"/></joint>\n' + J_AB)
    warnings: list[str] = []
    model = load_model(text, warnings=warnings)
    assert set(model.links) == {"a", "b"} and model.default_base_link == "a"
    assert any("floating joint 'float'" in w and "line 5" in w for w in warnings)
    two = text.replace("</robot>", '<joint name="f2" type="floating"><parent link="world"/><child link="b"/>'
                       "</joint>\n</robot>")
    fails(two, "floating joint")


# -- SKEL shape sizes: DART ignores non-positive ones and keeps its default ------------------------
NEG_SIZES = """<?xml version="1.0"?>
<skel version="1.0"><world name="w"><skeleton name="s">
<body name="b"><inertia><mass>2</mass></inertia>
<visualization_shape><geometry><box><size>-0.1 0.2 0.3</size></box></geometry></visualization_shape>
<collision_shape><geometry><box><size>-0.1 0.2 0.3</size></box></geometry></collision_shape></body>
<body name="c"><inertia><mass>2</mass></inertia>
<visualization_shape><geometry><cylinder><radius>-0.1</radius><height>0.2</height></cylinder></geometry>
</visualization_shape></body>
<body name="d"><inertia><mass>2</mass></inertia>
<visualization_shape><geometry><sphere><radius>0</radius></sphere></geometry></visualization_shape></body>
<body name="e"><inertia><mass>2</mass></inertia>
<visualization_shape><geometry><box><size>-0.1 -0.2 0.3</size></box></geometry></visualization_shape></body>
<joint type="free" name="j"><parent>world</parent><child>b</child></joint>
<joint type="weld" name="k"><parent>b</parent><child>c</child></joint>
<joint type="weld" name="l"><parent>b</parent><child>d</child></joint>
<joint type="weld" name="m"><parent>b</parent><child>e</child></joint>
</skeleton></world></skel>
"""


def test_skel_non_positive_sizes_warn_and_use_dart_defaults(tmp_path):
    path = tmp_path / "neg.skel"
    path.write_text(NEG_SIZES)
    warnings: list[str] = []
    model = load_model(path, warnings=warnings)
    assert [w for w in warnings if "is not positive" in w and "line 4" in w]
    np.testing.assert_array_equal(model.links["b"].visuals[0].size, [1.0, 1.0, 1.0])
    assert model.links["c"].visuals[0].radius == 1.0 and model.links["c"].visuals[0].length == 0.2
    # the double negative box is not taken for a positive one
    np.testing.assert_allclose(np.diag(model.links["e"].inertia.inertia), [2 / 6] * 3)


@needs_dartpy
def test_skel_non_positive_sizes_match_dartpy(tmp_path):
    path = tmp_path / "neg.skel"
    path.write_text(NEG_SIZES)
    ref = dart_reference(path)
    assert ref["ok"], ref
    assert compare_with_dart(path, ref) == 4


# -- containment: SKEL meshes are read only inside the file's tree or an allowed directory -----------
MESH_SKEL = ('<skel><world name="w"><skeleton name="s">\n<body name="b"><inertia><mass>1</mass></inertia>\n'
             "<visualization_shape><geometry><mesh><file_name>{}</file_name><scale>1 1 1</scale></mesh></geometry></visualization_shape>"
             '</body><joint type="free" name="j"><parent>world</parent><child>b</child></joint></skeleton></world></skel>')
OBJ = "v 0 0 0\nv 1 2 3\n"  # a 1 x 2 x 3 bounding box: inertia m/12 diag(13, 10, 5)
FROM_OBJ = np.diag([13.0, 10.0, 5.0]) / 12.0


def _skel_with_mesh(tmp_path, ref: str):
    path = tmp_path / "robot" / "r.skel"
    path.parent.mkdir(exist_ok=True)
    path.write_text(MESH_SKEL.format(ref))
    return path


def _mesh_notes(path, **kw) -> tuple[np.ndarray, list[str]]:
    warnings: list[str] = []
    model = load_model(path, warnings=warnings, **kw)
    return model.links["b"].inertia.inertia, [w for w in warnings if "mesh '" in w]


def test_skel_mesh_in_the_file_tree_is_read(tmp_path):
    path = _skel_with_mesh(tmp_path, "meshes/part.obj")
    (path.parent / "meshes").mkdir()
    (path.parent / "meshes" / "part.obj").write_text(OBJ)
    inertia, notes = _mesh_notes(path)
    np.testing.assert_allclose(inertia, FROM_OBJ)
    assert notes == []


@pytest.mark.parametrize("ref", ["../outside.obj", "{tmp}/outside.obj", "file://{tmp}/outside.obj"])
def test_skel_mesh_outside_the_tree_needs_allow_include_outside(tmp_path, ref):
    (tmp_path / "outside.obj").write_text(OBJ)
    path = _skel_with_mesh(tmp_path, ref.format(tmp=tmp_path))
    inertia, notes = _mesh_notes(path)
    assert np.array_equal(inertia, np.eye(3))  # not read: DART's default inertia
    assert len(notes) == 1 and "--allow-include-outside DIR" in notes[0] and "line 3" in notes[0]
    inertia, notes = _mesh_notes(path, allow_include_outside=[str(tmp_path)])
    np.testing.assert_allclose(inertia, FROM_OBJ)


def test_skel_mesh_symlink_out_of_the_tree_is_refused(tmp_path):
    (tmp_path / "outside.obj").write_text(OBJ)
    path = _skel_with_mesh(tmp_path, "link.obj")
    (path.parent / "link.obj").symlink_to(tmp_path / "outside.obj")
    inertia, notes = _mesh_notes(path)
    assert np.array_equal(inertia, np.eye(3)) and "symbolic link" in notes[0]


def test_refusals_say_nothing_about_the_file_system(tmp_path):
    (tmp_path / "outside.obj").write_text(OBJ)
    for kw in ({}, {"allow_file_access": False}):
        seen = []
        for name in ("outside.obj", "missing.obj"):
            ref = str(tmp_path / name)
            _, notes = _mesh_notes(_skel_with_mesh(tmp_path, ref), **kw)
            seen.append([n.replace(ref, "REF") for n in notes])
        assert seen[0] == seen[1] and seen[0], kw
    # as text (no file, so no directory tree): nothing is read either
    text = MESH_SKEL.format("part.obj")
    warnings: list[str] = []
    load_model(text, warnings=warnings)
    assert any("given as text" in w for w in warnings)


def test_cli_allow_include_outside(tmp_path):
    import subprocess
    import sys

    (tmp_path / "outside.obj").write_text(OBJ)
    path = _skel_with_mesh(tmp_path, "../outside.obj")
    out = tmp_path / "out.json"
    args = [sys.executable, "-m", "idyntree_models.cli", "-i", str(path), "-o", str(out)]
    res = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "--allow-include-outside" in res.stderr
    assert np.array_equal(load_model(out).links["b"].inertia.inertia, np.eye(3))
    res = subprocess.run(args + ["--allow-include-outside", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    np.testing.assert_allclose(load_model(out).links["b"].inertia.inertia, FROM_OBJ)


def test_ft_sensor_in_a_joint_with_an_offset_axis_keeps_its_pose_through_urdf():
    """Found by the export/reload property: URDF moves an off-origin axis onto a helper link, and the
    F/T sensor of that joint must move with its pose re-expressed (vendored MJCF arm, wrist sensor)."""
    from conftest import model_file

    model = load_model(model_file("mjcf/fixed_arm_radian.xml"))
    back = load_model(export_model(model, "urdf"))
    config = {"j1": 0.3, "j2": -0.4, "j3": 0.7}
    wa, wb = Kinematics(model).world_transforms(config), Kinematics(back).world_transforms(config)
    sa, sb = model.sensors["wrist"], back.sensors["wrist"]
    np.testing.assert_allclose(wa[sa.frame_link] @ sa.frame_transform, wb[sb.frame_link] @ sb.frame_transform,
                               atol=1e-12)


@pytest.mark.filterwarnings("error::RuntimeWarning")  # the refusal is computed without numpy's overflow warning
@pytest.mark.parametrize("distance", [1e308, 2e300])
def test_an_axis_offset_near_overflow_is_refused_by_the_urdf_exporter(distance):
    """Found by the fuzzer (the iDynTree JSON of ur10 with a wrist axis origin of 1e308): URDF writes an
    off-origin axis as a pose and its inverse on a helper link, and at that distance the reloaded
    model's poses overflow or cancel where the original's do not. Refused with the joint named, as SDF
    refuses poses beyond 1e300 m; a far but representable offset is written and keeps the kinematics."""
    doc = json.loads(export_model(load_model('<robot name="r"><link name="a"/><link name="b"><inertial><mass '
                                             'value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/>'
                                             '</inertial></link><joint name="j" type="continuous"><parent link="a"/>'
                                             '<child link="b"/><axis xyz="0 1 0"/></joint></robot>', "urdf"), "json"))
    doc["joints"][0]["axis"]["origin"] = [distance, 0.0, 0.0]
    model = load_model(json.dumps(doc), "json")
    with pytest.raises(ModelError, match=r"joint 'j'.*axis passes .* from the child link origin.*overflows beyond 1e\+300"):
        export_model(model, "urdf")
    doc["joints"][0]["axis"]["origin"] = [1e3, 0.0, 0.0]
    near = load_model(json.dumps(doc), "json")
    back = load_model(export_model(near, "urdf"), "urdf")
    wa, wb = Kinematics(near).world_transforms({"j": 0.7}), Kinematics(back).world_transforms({"j": 0.7})
    np.testing.assert_allclose(wb["b"], wa["b"], atol=1e-9)


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_spherical_centre_whose_offset_overflows_is_refused_by_the_urdf_exporter():
    """Found by the fuzzer (ball_joint.urdf.json with a centre of 1e308): URDF writes a spherical joint as
    three revolute joints about its centre, expressed in the child; centre minus child origin overflowed
    (numpy's warning, then an inf pose). Refused with the joint named; a far but representable centre is
    written."""
    urdf = ('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" iyy="1" '
            'izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="spherical"><parent link="a"/>'
            '<child link="b"/></joint></robot>')
    doc = json.loads(export_model(load_model(urdf, "urdf"), "json"))
    doc["joints"][0]["joint_center_wrt_parent"] = [1e308, 0.0, 0.0]
    doc["joints"][0]["rest_transform"]["position"] = [-1e308, 0.0, 0.0]
    with pytest.raises(ModelError, match=r"joint 'j'.*centre is too far from the child link's origin"):
        export_model(load_model(json.dumps(doc), "json"), "urdf")
    doc["joints"][0]["rest_transform"]["position"] = [-1e3, 0.0, 0.0]
    back = load_model(export_model(load_model(json.dumps(doc), "json"), "urdf"), "urdf",
                      convert_three_revolute_joints_to_spherical=True)
    assert back.joints["j"].type.name == "SPHERICAL"
    np.testing.assert_allclose(back.joints["j"].center, [1e308, 0.0, 0.0])


def test_ft_sensor_in_a_joint_urdf_readers_drop_is_dropped_with_a_warning():
    """Found by the fuzzer: an F/T sensor in the fixed joint of a massless root link. URDF readers turn
    that link into a frame and drop the joint, so writing the sensor gave a file that does not load."""
    doc = {"idyntree_model_json_version": 1, "default_base_link": "a",
           "links": [{"name": "a", "inertia": {"mass": 0.0, "center_of_mass": [0, 0, 0],
                                                "rotational_inertia_wrt_frame_origin": [[0, 0, 0]] * 3}},
                     {"name": "b", "inertia": {"mass": 2.0, "center_of_mass": [0, 0, 0],
                                                "rotational_inertia_wrt_frame_origin": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}],
           "joints": [{"name": "j", "type": "fixed", "parent_link": "a", "child_link": "b",
                       "rest_transform": {"position": [0, 0, 1], "rotation_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}],
           "sensors": [{"name": "ft", "type": "six_axis_force_torque", "parent_joint": "j", "first_link": "a",
                        "second_link": "b", "applied_wrench_link": "b",
                        "first_link_H_sensor": {"position": [0, 0, 1], "rotation_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]},
                        "second_link_H_sensor": {"position": [0, 0, 0], "rotation_matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}]}
    model = load_model(json.dumps(doc))
    warnings: list[str] = []
    back = load_model(export_model(model, "urdf", warnings=warnings))
    assert "ft" not in back.sensors and "b" in back.links
    assert any("force/torque sensor 'ft'" in w and "dropped" in w for w in warnings)


# -- the fuzz checker's own findings (SKEL as source) ---------------------------------------------------
FAR_BALL_CHAIN = """<?xml version="1.0"?>
<skel version="1.0"><world name="w"><skeleton name="s">
<body name="a"><transformation>0 0 0 0 0 0</transformation><inertia><mass>0.1</mass></inertia></body>
<body name="b"><transformation>1.7976931348623157e308 -0.05 0 0 0 0</transformation><inertia><mass>0.1</mass>
</inertia></body>
<body name="c"><transformation>0 -0.1 0 0 0 0</transformation><inertia><mass>0.1</mass></inertia></body>
<joint type="free" name="j1"><parent>world</parent><child>a</child></joint>
<joint type="ball" name="j2"><parent>a</parent><child>b</child><transformation>0 0.025 0 0 0 0</transformation></joint>
<joint type="ball" name="j3"><parent>b</parent><child>c</child><transformation>0 0.025 0 0 0 0</transformation></joint>
</skeleton></world></skel>
"""


def test_poses_that_overflow_compare_as_overflowed():
    # SKEL bodies are placed in the world: c, 1.8e308 m from b, overflows a double once b turns (both
    # models alike); re-expressed in the other model's base, 0 * inf made NaN of the rest of the row
    from fuzzing import _configuration, equivalence_problems

    model = load_model(FAR_BALL_CHAIN, format="skel")
    back = load_model(export_model(model, "urdf"), format="urdf", convert_three_revolute_joints_to_spherical=True)
    rng = np.random.default_rng(0)
    config = _configuration(model, rng)
    with np.errstate(all="ignore"):
        wa, wb = Kinematics(model).world_transforms(config), Kinematics(back).world_transforms(config)
    assert not np.all(np.isfinite(wa["c"])) and not np.all(np.isfinite(wb["c"]))  # the overflow is real
    np.testing.assert_array_equal(wa["b"], wb["b"])
    assert equivalence_problems(model, back, []) == []
    back.joints["j2"].rest_transform[0, 3] = 0.0  # a real difference (b no longer far away) is still one
    with np.errstate(all="ignore"):
        assert equivalence_problems(model, back, [])


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_a_quaternion_of_huge_components_is_the_rotation_it_points_to():
    """Found by the fuzzer: an SDF pose `quat_xyzw 0 0 0 1e308 0 0 1e308` gave the identity rotation with an
    overflow warning (its norm overflowed, and dividing by inf made every component 0). A quaternion's rotation
    does not depend on its scale: it must equal the one of `1 0 0 1`; spherical joint positions alike, in one
    configuration and in a batch."""
    def sdf(q: str) -> str:
        return ('<?xml version="1.0"?><sdf version="1.9"><model name="m"><link name="a"/><link name="b"><pose '
                f'rotation_format="quat_xyzw">0 0 0 {q}</pose></link><joint name="j" type="fixed"><parent>a</parent>'
                '<child>b</child></joint></model></sdf>')

    huge, small = (Kinematics(load_model(sdf(q), "sdf")).world_transforms()["b"] for q in ("1e308 0 0 1e308", "1 0 0 1"))
    np.testing.assert_allclose(huge, small, atol=1e-15)
    np.testing.assert_allclose(small[:3, :3], [[1, 0, 0], [0, 0, -1], [0, 1, 0]], atol=1e-15)
    ball = load_model('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" '
                      'iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="spherical">'
                      '<parent link="a"/><child link="b"/></joint></robot>', "urdf")
    kin = Kinematics(ball)
    q = np.array([[1e308, 1e308, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0]] * 10)  # 20 rows: the batch schedule
    batch = kin.compute_q(q)
    np.testing.assert_allclose(batch[0], batch[1], atol=1e-15)
    np.testing.assert_allclose(kin.compute_q(q[0])[0], batch[1], atol=1e-15)
    with pytest.raises(ModelError, match="non-zero finite quaternions"):
        kin.compute_q(np.array([0.0, 0.0, 0.0, 0.0]))


_SKEL_TWO_BODIES = '''<skel version="1.0"><world name="w"><skeleton name="s">
<body name="a"><transformation>0 0 0 0 0 0</transformation><inertia><mass>1</mass><moment_of_inertia><ixx>0.1</ixx>
<iyy>0.1</iyy><izz>0.1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></moment_of_inertia></inertia></body>
<body name="b"><transformation>0 0 1 0 0 0</transformation><inertia><mass>1</mass><moment_of_inertia><ixx>0.1</ixx>
<iyy>0.1</iyy><izz>0.1</izz><ixy>0</ixy><ixz>0</ixz><iyz>0</iyz></moment_of_inertia></inertia></body>
<joint type="{root}" name="j0"><parent>world</parent><child>a</child>{root_init}</joint>
<joint type="ball" name="j1"><parent>a</parent><child>b</child>{ball_init}</joint>
</skeleton></world></skel>'''


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_skel_initial_rotations_near_the_largest_double():
    """A DART rotation vector's angle is its norm: for `1e300 0 0` the squares overflowed, and the initial
    quaternion (and a free joint's initial base pose) silently became NaN. The angle is now measured scaled
    (1e300 rad, the quaternion Python's math gives for it), and a vector longer than any double, or an initial
    base pose beyond one, is refused at its joint's line."""
    model = load_model(_SKEL_TWO_BODIES.format(root="weld", root_init="", ball_init="<init_pos>1e300 0 0</init_pos>"),
                       "skel")
    half = 0.5e300
    expected = np.array([math.cos(half), math.sin(half), 0.0, 0.0])
    expected *= 1.0 if expected[0] >= 0 else -1.0  # w >= 0, as matrix_to_quat writes it
    np.testing.assert_allclose(model.initial_configuration["j1"], expected, atol=1e-12)
    with pytest.raises(ModelError, match="initial rotation vector of ball joint 'j1' is longer") as e:
        load_model(_SKEL_TWO_BODIES.format(root="weld", root_init="",
                                           ball_init="<init_pos>1.7e308 1.7e308 1.7e308</init_pos>"), "skel")
    assert e.value.line == 7
    with pytest.raises(ModelError, match="initial position of free joint 'j0' puts its body beyond") as e:
        load_model(_SKEL_TWO_BODIES.format(root="free", root_init="<init_pos>1.7e308 1.7e308 1.7e308 0 0 0</init_pos>",
                                           ball_init=""), "skel")
    assert e.value.line == 6


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_one_huge_quaternion_leaves_the_other_rows_of_a_batch_bit_for_bit():
    """Review of the fix above: measuring every row scaled once one row overflowed changed the last bits of
    the others (23 of 31 rows), and one configuration went through a second normalisation. A row's result
    must not depend on its neighbours."""
    ball = load_model('<robot name="r"><link name="a"/><link name="b"><inertial><mass value="1"/><inertia ixx="1" '
                      'iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link><joint name="j" type="spherical">'
                      '<parent link="a"/><child link="b"/></joint></robot>', "urdf")
    kin = Kinematics(ball)
    q = np.random.default_rng(3).normal(size=(32, 4))
    alone = kin.compute_q(q)
    mixed = q.copy()
    mixed[7] = [1e308, 1e308, 0.0, 0.0]
    together = kin.compute_q(mixed)
    rows = [i for i in range(32) if i != 7]
    np.testing.assert_array_equal(together[rows], alone[rows])
    for i in (0, 7):  # one configuration: the same bits as its row of a batch of one
        np.testing.assert_array_equal(kin.compute_q(mixed[i])[0], kin.compute_q(mixed[i:i + 1])[0])


@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_bodies_and_frames_too_far_apart_for_a_double_are_refused_at_their_line():
    """Review of this stop's fixes: two SKEL bodies at -1.7e308 and +1.7e308 (and the SDF cases below): the poses
    relative to each other overflowed (numpy's warning) and validation refused them later without a line. A free
    SKEL body whose far joint offset cancels (q = 0) is not refused: its initial base pose is its body pose."""
    skel = _SKEL_TWO_BODIES.replace("0 0 0 0 0 0</transformation>", "{ta}</transformation>", 1).replace(
        "0 0 1 0 0 0</transformation>", "{tb}</transformation>", 1)
    with pytest.raises(ModelError, match="joint 'j1': its frame in the parent body is beyond the range") as e:
        load_model(skel.format(ta="-1.7e308 0 0 0 0 0", tb="1.7e308 0 0 0 0 0", root="weld", root_init="",
                               ball_init=""), "skel")
    assert e.value.line == 7
    far = load_model(skel.format(ta="1.7e308 0 0 0 0 0", tb="1.7e308 0 1 0 0 0", root="free",
                                 root_init="<transformation>1.7e308 0 0 0 0 0</transformation>", ball_init=""), "skel")
    np.testing.assert_array_equal(far.metadata["initial_base_pose"], make_transform(None, [1.7e308, 0, 0]))


_FAR_SDF = {
    "frame": ('<sdf version="1.9"><model name="m"><link name="a"/><frame name="f"><pose>1.7e308 0 0 0 0 0</pose>'
              '</frame>\n<link name="b"><pose relative_to="f">1.7e308 0 0 0 0 0</pose></link>\n<joint name="j" '
              'type="fixed"><parent>a</parent><child>b</child></joint></model></sdf>',
              "pose of 'b' relative to 'f' puts it beyond the range", 2),
    "links": ('<sdf version="1.9"><model name="m"><link name="a"><pose>-1.7e308 0 0 0 0 0</pose></link>\n<link name="b">'
              '<pose>1.7e308 0 0 0 0 0</pose></link>\n<joint name="j" type="revolute"><parent>a</parent><child>b'
              '</child><axis><xyz>0 0 1</xyz></axis></joint></model></sdf>',
              "joint 'j': its child's pose .* beyond the range of a double", 3),
}


@pytest.mark.filterwarnings("error::RuntimeWarning")
@pytest.mark.parametrize("case", list(_FAR_SDF))
def test_sdf_poses_too_far_apart_for_a_double_are_refused_at_their_line(case):
    """The SDF side of the test above: a link 1.7e308 m from a frame that is itself 1.7e308 m away, or two links
    that far apart."""
    text, message, line = _FAR_SDF[case]
    with pytest.raises(ModelError, match=message) as e:
        load_model(text, "sdf")
    assert e.value.line == line


def test_a_long_prolog_does_not_hide_the_root_element():
    """Format detection looked at the first 20,000 characters only: a URDF after a long licence comment was 'neither
    JSON nor XML', and the robot_description parameter and topic cannot say the format (libxml2, urdfdom read it)."""
    text = '<?xml version="1.0"?>\n<!--' + " licence text" * 2000 + '-->\n<!DOCTYPE robot>\n<robot name="r"><link name="a"/></robot>'
    assert len(text) > 25000
    assert set(load_model(text).links) == {"a"}
    assert set(load_model("\ufeff" + text).links) == {"a"}
    # a ']' in a quoted literal or a comment of the DOCTYPE's internal subset does not end it
    for subset in ('<!ATTLIST link name CDATA "]">', "<!-- ] -->"):
        assert set(load_model(f'<!DOCTYPE robot [{subset}]><robot name="r"><link name="a"/></robot>').links) == {"a"}


@pytest.mark.parametrize("text", ["<!DOCTYPE " + "[]" * 50000, "<!DOCTYPE " + "[a]" * 50000 + "x", "<?" * 200000,
                                  "<!--" * 200000, "<!DOCTYPE r [" + "<!--" * 200000, "<!DOCTYPE r [" + '"a' * 100000])
def test_a_hostile_prolog_is_refused_at_once(text):
    """With no length limit on the prolog, skipping it must stay one pass: a regular expression for a DOCTYPE's
    internal subset backtracks without end on `<!DOCTYPE [][][]...` (500 pairs did not finish in two minutes)."""
    import subprocess
    import sys

    code = ("import sys\nfrom idyntree_models import load_model\nfrom idyntree_models.errors import ModelError\n"
            "try:\n    load_model(sys.stdin.read())\nexcept ModelError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], input=text, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "cannot tell the model format: the text is neither JSON nor XML" in done.stdout, \
        done.stdout + done.stderr


def test_an_unknown_root_element_is_shown_cut():
    with pytest.raises(ModelError) as e:
        load_model("<" + "a" * 100000 + "/>")
    assert len(str(e.value)) < 300 and "(100000 characters)" in str(e.value)


@pytest.mark.parametrize("call, key, value", [
    ("load", "allow_xacro", "false"), ("load", "allow_file_access", "no"), ("load", "strict", "no"),
    ("load", "spherical_joint_tolerance", "1e-6"), ("load", "search_paths", 5), ("load", "model", 3),
    ("export", "mjcf_free_joint", "no"), ("export", "export_spherical_joints_as_three_revolute_joints", "false"),
    ("export", "output_dir", 3), ("export", "sdf_version", 1.9)])
def test_option_values_of_the_wrong_type_are_refused_by_name(call, key, value):
    """Options come from config files and ROS parameters as text: a truthy "false" turned a switch on (allow_xacro
    expanded xacro, whose $(eval) runs Python), and other types were internal errors."""
    with pytest.raises(ModelError, match=rf"option {key} must be"):
        if call == "load":
            load_model(REPO / "test" / "data" / "xacro" / "arm.urdf.xacro", **{key: value})
        else:
            export_model(load_model(DEMO / "demo_arm.urdf"), "mjcf", **{key: value})


@pytest.mark.parametrize("text", ["\n", " \t\r\n ", "\u3000\n\u2003", "\n" * 100, b"  \n", b""],
                         ids=["newline", "ascii space", "unicode space", "many lines", "bytes", "no bytes"])
def test_blank_model_text_is_refused_as_empty(text):
    fails(text, "the model is empty")
