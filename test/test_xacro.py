"""xacro input: expanded by the xacro package itself, in the API, the CLI and the node, and never read as plain URDF.

test/data/xacro/arm.urdf.xacro uses macros (from an included file), properties, math, conditionals
and $(arg)s.  The reference is the `xacro` command of the same package, run as a separate process:
our model must have exactly the links and joints urdf_parser_py reads from its output.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from idyntree_models import ModelError, export_model, load_model
from idyntree_models.formats import get_format, loader
from idyntree_models.formats.base import Diagnostics, LoadOptions

from conftest import REPO

urdf_parser = pytest.importorskip("urdf_parser_py.urdf")

DATA = REPO / "test" / "data" / "xacro"
ARM = DATA / "arm.urdf.xacro"
XACRO = Path(sys.executable).parent / "xacro"


def _reference(path: Path, *args: str):
    """What the xacro command makes of the file, read by urdf_parser_py."""
    done = subprocess.run([str(XACRO), str(path), *args], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return urdf_parser.URDF.from_xml_string(done.stdout.encode())


def _names(robot) -> tuple[set, set]:
    return {link.name for link in robot.links}, {j.name for j in robot.joints}


def _cli(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "idyntree_models.cli", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize("args", [{}, {"prefix": "left_"}, {"with_tool": "true", "upper_length": "0.7"}])
def test_api_expands_like_the_xacro_command(args):
    ref = _reference(ARM, *(f"{k}:={v}" for k, v in args.items()))
    model = load_model(ARM, xacro_args=args)
    links, joints = _names(ref)
    # the tool is a massless-free fixed leaf with mass: a link; everything xacro made is in the model
    assert set(model.links) | set(model.frames) == links
    assert set(model.joints) == joints and len(model.joints) == 2 + (args.get("with_tool") == "true")
    assert len(links) == 3 + (args.get("with_tool") == "true")
    upper = model.joints[f"{args.get('prefix', '')}upper_joint"]
    lower = model.joints[f"{args.get('prefix', '')}lower_joint"]
    assert upper.rest_transform[2, 3] == pytest.approx(0.1) and lower.rest_transform[2, 3] == pytest.approx(0.4)
    assert upper.limits.max_position == pytest.approx(3.141592653589793 / 2)
    length = float(args.get("upper_length", 0.5))
    assert model.links[f"{args.get('prefix', '')}upper_link"].inertia.com[2] == pytest.approx(length / 2)
    # the macros' transmissions (and the conditional <gazebo>) are kept and written back
    urdf = export_model(model, "urdf")
    out = urdf_parser.URDF.from_xml_string(urdf.encode())
    assert _names(out) == (links, joints)
    assert sorted(t.name for t in out.transmissions) == sorted(t.name for t in ref.transmissions)
    assert ("<gazebo" in urdf) == (args.get("with_tool") != "true")


def test_cli_converts_a_xacro_file_with_arguments(tmp_path):
    out = tmp_path / "arm.urdf"
    r = _cli("-i", str(ARM), "-o", str(out), "--xacro-arg", "prefix:=r_", "--xacro-arg", "with_tool:=true")
    assert r.returncode == 0, r.stderr
    ref = _reference(ARM, "prefix:=r_", "with_tool:=true")
    assert _names(urdf_parser.URDF.from_xml_file(str(out))) == _names(ref)
    r = _cli("-i", str(ARM), "-o", str(tmp_path / "x.urdf"), "--xacro-arg", "prefix")
    assert r.returncode == 1 and "--xacro-arg needs NAME:=VALUE" in r.stderr


def test_missing_argument_and_broken_macro_are_clear_errors(tmp_path):
    need = tmp_path / "need.urdf.xacro"
    need.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                    '<link name="$(arg side)_link"/></robot>')
    with pytest.raises(ModelError, match=r"need.urdf.xacro: xacro: argument 'side' is not set"):
        load_model(need)
    assert set(load_model(need, xacro_args={"side": "left"}).links) == {"left_link"}
    bad = tmp_path / "bad.urdf.xacro"
    bad.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                   '<xacro:nothing_defined_here/><link name="a"/></robot>')
    with pytest.raises(ModelError, match=r"bad.urdf.xacro: xacro: .*nothing_defined_here"):
        load_model(bad)
    endless = tmp_path / "endless.urdf.xacro"  # (was an internal RecursionError)
    endless.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="m" params="">'
                       '<xacro:m/></xacro:macro><xacro:m/><link name="base"/></robot>')
    with pytest.raises(ModelError, match=r"endless.urdf.xacro: xacro: maximum recursion depth exceeded while "
                                         r"instantiating macro 'm'"):
        load_model(endless)


def test_findings_after_expansion_give_the_lines_of_the_expansion_not_of_the_file(tmp_path):
    """xacro keeps no line of its input, so the reader's lines are the output's: as file:line they pointed at lines
    the .xacro file does not have, or at the wrong ones."""
    src = tmp_path / "badlink.urdf.xacro"
    src.write_text('<?xml version="1.0"?><robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
                   '<link name="a"/><link name="b"/>\n<joint name="j" type="revolute"><parent link="a"/>'
                   '<child link="nonexistent"/><axis xyz="0 0 1"/></joint></robot>')
    import xacro
    expanded = xacro.process_file(str(src)).toprettyxml(indent="  ").splitlines()  # the reference xacro's output
    child_line = next(i for i, line in enumerate(expanded, 1) if "nonexistent" in line)
    joint_line = next(i for i, line in enumerate(expanded, 1) if "<joint" in line)
    assert child_line > 3  # a line the file does not have
    with pytest.raises(ModelError) as e:
        load_model(src)
    assert str(e.value).startswith(f"{src}: line {child_line} of the xacro output: ") and e.value.line is None
    fixed = tmp_path / "fixed.urdf.xacro"
    fixed.write_text(src.read_text().replace("nonexistent", "b"))
    with pytest.raises(ModelError, match=rf"{fixed.name}: line {joint_line} of the xacro output: revolute joint 'j' has "
                                         r"no <limit>.*\(strict"):
        load_model(fixed, strict=True)
    warnings: list[str] = []
    load_model(fixed, warnings=warnings)
    assert any(f"line {joint_line} of the xacro output: revolute joint 'j' has no <limit>" in w for w in warnings)


def test_xacro_read_as_plain_urdf_is_refused_not_shrunk(tmp_path):
    # the failure users saw: one link and no joints, exit code 0
    with pytest.raises(ModelError, match=r"arm.urdf.xacro:\d+: the document uses xacro macros.*format 'xacro'"):
        load_model(ARM, "urdf")
    r = _cli("-i", str(ARM), "-o", str(tmp_path / "a.urdf"), "--input-format", "urdf")
    assert r.returncode == 1 and "uses xacro macros" in r.stderr and not (tmp_path / "a.urdf").exists()
    # xacro elements without the namespace declaration are not even XML namespaces
    undeclared = '<robot name="r"><xacro:property name="a" value="1"/><link name="a"/></robot>'
    with pytest.raises(ModelError, match=r"uses xacro macros"):
        load_model(undeclared, "urdf")
    # the namespace written with a character reference (x) is still xacro's: the element is refused,
    # not passed through as an unknown one
    referenced = ('<robot name="r" xmlns:m="http://www.ros.org/wiki/&#120;acro">\n<link name="a"/>\n'
                  '<m:macro name="arm"/></robot>')
    with pytest.raises(ModelError, match=r"line 3: the document uses xacro macros.*\(<m:macro>\)"):
        load_model(referenced, "urdf")
    # bytes given to the loader in an encoding that spells "xmlns" otherwise (UTF-16; UTF-7's base64 form of
    # it) are looked through as well
    tail = ':xacro="http://www.ros.org/wiki/xacro"><link name="a"/><xacro:property name="p" value="1"/></robot>'
    utf16 = ('<?xml version="1.0" encoding="UTF-16"?><robot name="r" xmlns' + tail).encode("utf-16")
    utf7 = ('<?xml version="1.0" encoding="UTF-7"?><robot name="r" +AHgAbQBsAG4Acw-' + tail).encode("ascii")
    assert b"xmlns" not in utf16 and b"xmlns" not in utf7
    for data in (utf16, utf7):
        with pytest.raises(ModelError, match=r"uses xacro macros.*\(<xacro:property>\)"):
            loader(get_format("urdf"))(data, LoadOptions(), Diagnostics("r.urdf"))
    # a .urdf file that really is xacro is expanded, as its users run xacro on it
    copy = tmp_path / "arm.urdf"
    shutil.copy(ARM, copy)
    shutil.copy(DATA / "arm_macros.xacro", tmp_path)
    assert len(load_model(copy).joints) == 2


def test_text_with_xacro_is_refused_where_expansion_is_not_allowed():
    text = ARM.read_text()
    with pytest.raises(ModelError, match=r"xacro documents are not expanded in this load \(allow_xacro is off"):
        load_model(text.encode(), allow_xacro=False)
    with pytest.raises(ModelError, match=r"not expanded in this load"):  # (a file too: it said "only from files")
        load_model(ARM, allow_xacro=False)


def _package(root: Path, name: str) -> Path:
    pkg = root / name
    pkg.mkdir(parents=True)
    (pkg / "package.xml").write_text(f'<package format="3"><name>{name}</name></package>')
    shutil.copy(DATA / "arm_macros.xacro", pkg / "arm_macros.xacro")
    return pkg


def test_find_resolves_through_the_ament_index_and_ros_package_path(tmp_path, monkeypatch):
    main = tmp_path / "robot.urdf.xacro"
    main.write_text(ARM.read_text().replace('filename="arm_macros.xacro"',
                                            'filename="$(find my_arm_description)/arm_macros.xacro"'))
    monkeypatch.delenv("AMENT_PREFIX_PATH", raising=False)
    monkeypatch.delenv("ROS_PACKAGE_PATH", raising=False)
    with pytest.raises(ModelError, match=r"\$\(find my_arm_description\): package 'my_arm_description' not found "
                                         r"\(searched nowhere: neither AMENT_PREFIX_PATH"):
        load_model(main)
    # an installed package: <prefix>/share/<name> with its ament index marker
    prefix = tmp_path / "install"
    _package(prefix / "share", "my_arm_description")
    marker = prefix / "share" / "ament_index" / "resource_index" / "packages"
    marker.mkdir(parents=True)
    (marker / "my_arm_description").write_text("")
    monkeypatch.setenv("AMENT_PREFIX_PATH", str(prefix))
    assert len(load_model(main).joints) == 2
    # a source checkout on ROS_PACKAGE_PATH (package found by its package.xml, however deep)
    monkeypatch.delenv("AMENT_PREFIX_PATH")
    _package(tmp_path / "src" / "robots", "my_arm_description")
    monkeypatch.setenv("ROS_PACKAGE_PATH", str(tmp_path / "src"))
    assert len(load_model(main).joints) == 2
    # and the xacro command agrees once the package is in the ament index
    env = dict(os.environ, AMENT_PREFIX_PATH=str(prefix))
    done = subprocess.run([str(XACRO), str(main)], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr
    assert len(urdf_parser.URDF.from_xml_string(done.stdout.encode()).joints) == 2


def test_node_serves_a_xacro_file_with_arguments_and_refuses_xacro_text():
    rclpy = pytest.importorskip("rclpy")  # noqa: F841 - the ROS wheels
    from idyntree_models_interfaces.srv import GetModel
    from std_msgs.msg import String

    from ros_harness import TIMEOUT, Probe, latched_qos, start_server

    server = start_server(58, {"model_file": str(ARM), "xacro_args": "prefix:=n_ with_tool:=true"})
    probe = Probe(58)
    try:
        descriptions = probe.collect(String, "robot_description", latched_qos())
        resp = probe.call(GetModel, "/model_server/get_model", GetModel.Request(format="idyntree-model-json"))
        assert resp.success, server.output()
        probe.spin_until(lambda: descriptions, what="robot_description")
    finally:
        probe.close()
        server.stop()
    model = load_model(resp.model.encode(), "idyntree-model-json")
    assert set(model.links) == {"n_base_link", "n_upper_link", "n_lower_link", "n_tool"}
    # robot_description is the expanded URDF, as `xacro` prints it (what RViz and joint_state_publisher read)
    published = urdf_parser.URDF.from_xml_string(descriptions[0].data.encode())
    assert _names(published) == _names(_reference(ARM, "prefix:=n_", "with_tool:=true"))
    assert "xacro:" not in descriptions[0].data

    refused = start_server(59, {"robot_description": ARM.read_text()})
    try:
        refused.proc.wait(TIMEOUT)
    finally:
        refused.stop()
    assert refused.proc.returncode == 1
    assert "xacro documents are not expanded in this load" in refused.output()
    assert "or give the .xacro file as model_file (with xacro_args)" in refused.output()


def test_findings_in_a_file_the_expansion_includes_name_that_file(tmp_path):
    """An SDF <include> of a .sdf.xacro is read from its own file: its lines are that file's, not the xacro output's.
    (Warnings about an included file gave the including file's name with the included file's line.)"""
    (tmp_path / "sub.sdf").write_text('<?xml version="1.0"?>\n<sdf version="1.9">\n<model name="sub">\n'
                                      '<link name="a"/><link name="b"/>\n'
                                      '<joint name="j" type="revolute"><parent>a</parent><child>nope</child></joint>\n'
                                      '</model>\n</sdf>')
    top = tmp_path / "top.sdf.xacro"
    top.write_text('<?xml version="1.0"?>\n<sdf version="1.9" xmlns:xacro="http://www.ros.org/wiki/xacro">\n'
                   '<model name="top"><link name="base"/>\n<include><uri>sub.sdf</uri></include>\n</model></sdf>')
    with pytest.raises(ModelError) as e:
        load_model(top)
    assert str(e.value).startswith(f"{tmp_path / 'sub.sdf'}:5: <child>:") and "xacro output" not in str(e.value)
    (tmp_path / "sub.sdf").write_text((tmp_path / "sub.sdf").read_text().replace("nope", "b"))
    for path in (top, tmp_path / "top.sdf"):
        if path.suffix == ".sdf":
            path.write_text(top.read_text().replace(' xmlns:xacro="http://www.ros.org/wiki/xacro"', ""))
        warnings: list[str] = []
        load_model(path, warnings=warnings)
        said = [w for w in warnings if "has no <axis>" in w]
        assert said == [f"{path}: {tmp_path / 'sub.sdf'}, line 5: revolute joint 'j' has no <axis>; using 0 0 1"], warnings


def test_a_file_expands_to_the_text_the_xacro_command_prints(tmp_path):
    """Line numbers of findings are those of this text, so it must be the xacro command's, banner included (also
    above a comment the file has before its root)."""
    import xacro

    from idyntree_models.formats.base import Diagnostics
    from idyntree_models.formats.xacro import expand

    src = tmp_path / "lic.urdf.xacro"
    src.write_text('<?xml version="1.0"?>\n<!-- licence -->\n<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                   '<xacro:property name="m" value="2"/><link name="a"><inertial><mass value="${m}"/>'
                   '<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link></robot>')
    ours = expand(src.read_text(), str(src), None, Diagnostics(str(src)))
    assert ours == xacro.process_file(str(src)).toprettyxml(indent="  ")


def test_xacro_warnings_are_xacros_own_not_what_other_threads_print(tmp_path):
    """The expansion swapped the process's sys.stderr to catch xacro's warnings: what another thread printed
    meanwhile (our own log lines too) became a warning of this model, and an error under strict."""
    import sys
    import threading

    src = tmp_path / "w.urdf.xacro"
    src.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro">'
                   '<xacro:property name="p" value="1" bogus="x"/><link name="a${p}"/></robot>')
    stop = threading.Event()

    def noise() -> None:
        while not stop.is_set():
            print("NOISE from another thread", file=sys.stderr)
            stop.wait(0.0005)

    thread = threading.Thread(target=noise)
    thread.start()
    try:
        taken = own = 0
        for _ in range(100):
            warnings: list[str] = []
            load_model(src, warnings=warnings)
            taken += any("NOISE" in w for w in warnings)
            own += any("xacro: " in w and "unknown attribute" in w for w in warnings)
    finally:
        stop.set()
        thread.join()
    assert (taken, own) == (0, 100)


def _printed_and_said(src) -> tuple[list[str], list[str]]:
    """The lines the xacro command prints to stderr for `src`, and our load's xacro warnings."""
    done = subprocess.run([str(XACRO), str(src)], capture_output=True, text=True, timeout=60)
    warnings: list[str] = []
    load_model(src, warnings=warnings)
    return [ln.strip() for ln in done.stderr.splitlines() if ln.strip()], [w for w in warnings if "xacro: " in w]


def test_a_xacro_warning_and_where_it_arose_are_one_warning(tmp_path):
    """Found in review: xacro writes a warning and then the lines saying where it arose (the macro, the file); each
    line was a warning of its own (three, and three errors under strict). Compared with what the xacro command
    prints: the same lines, joined."""
    src = tmp_path / "r.urdf.xacro"
    src.write_text('<robot name="xr" xmlns:xacro="http://www.ros.org/wiki/xacro"><xacro:macro name="seg" '
                   'params="name len:=0.2"><link name="${name}"/></xacro:macro><xacro:seg name="a"/></robot>')
    printed, said = _printed_and_said(src)
    assert len(printed) == 3 and printed[0].startswith("warning: redefining global symbol: len"), printed
    assert said == [f"{src}: xacro: " + "; ".join(printed)], said


def test_a_xacro_warning_of_several_indented_lines_is_one_warning(tmp_path):
    """From the review of the joining: xacro's namespace warning goes on over indented lines (' old:', ' new:'),
    which were warnings of their own. Compared with the xacro command's output."""
    (tmp_path / "inc.xacro").write_text('<robot xmlns:xacro="http://www.ros.org/wiki/xacro" xmlns:foo="http://b">'
                                        '<link name="b"/></robot>')
    src = tmp_path / "top.urdf.xacro"
    src.write_text('<robot name="r" xmlns:xacro="http://www.ros.org/wiki/xacro" xmlns:foo="http://a">'
                   '<xacro:include filename="inc.xacro"/><link name="a"/>'
                   '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint></robot>')
    printed, said = _printed_and_said(src)
    assert len(printed) == 3 and printed[0].startswith("warning: inconsistent namespace"), printed
    assert said == [f"{src}: xacro: " + "; ".join(printed)], said
