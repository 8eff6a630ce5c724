"""Output writing of idyntree-model-convert and save_model: never replace what should not be replaced.

Real CLI runs in subprocesses: symlinks are written through, devices and FIFOs written directly,
modes kept, and no temporary file survives a failure or a SIGTERM/SIGINT.  Also the one-line
promise of CLI errors and warnings, whatever the names and messages hold.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from idyntree_models import load_model, save_model
from idyntree_models.errors import ModelError

from conftest import DEMO, MODELS, REPO
from model_compare import assert_models_equal

DEMO_URDF = DEMO / "demo_arm.urdf"


def cli(*args, stdin: str | None = None, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "idyntree_models.cli", *map(str, args)], input=stdin,
                          capture_output=True, text=True, cwd=REPO, timeout=300, **kw)


def outline(model) -> tuple:
    """What every format keeps of a model (JSON has no robot name)."""
    return sorted(model.links), sorted(model.joints), sorted(model.sensors)


DEMO_OUTLINE = outline(load_model(DEMO_URDF))


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp") or ".tmp" in p.name)


def test_symlink_output_writes_the_target(tmp_path):
    target = tmp_path / "real" / "model.json"
    target.parent.mkdir()
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    chain = tmp_path / "chain.json"
    chain.symlink_to(link)
    res = cli("-i", DEMO_URDF, "-o", chain, "-q")
    assert res.returncode == 0, res.stderr
    assert chain.is_symlink() and link.is_symlink()  # the links stay links
    assert outline(load_model(target)) == DEMO_OUTLINE
    assert leftovers(tmp_path) == [] and leftovers(target.parent) == []


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "out.urdf"
    link.symlink_to(tmp_path / "new.urdf")
    assert cli("-i", DEMO_URDF, "-o", link, "-q").returncode == 0
    assert link.is_symlink() and (tmp_path / "new.urdf").is_file()


def test_existing_mode_is_kept_and_new_files_follow_the_umask(tmp_path):
    out = tmp_path / "out.json"
    out.write_text("old")
    out.chmod(0o640)
    assert cli("-i", DEMO_URDF, "-o", out, "-q").returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    new = tmp_path / "new.json"
    res = cli("-i", DEMO_URDF, "-o", new, "-q", preexec_fn=lambda: os.umask(0o027))
    assert res.returncode == 0
    assert stat.S_IMODE(new.stat().st_mode) == 0o640  # 0666 & ~027, as open() would create it


def test_devices_are_written_not_replaced():
    before = os.stat("/dev/null")
    res = cli("-i", DEMO_URDF, "-o", "/dev/null", "--output-format", "json", "-q")
    assert res.returncode == 0, res.stderr
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev


def test_fifo_is_written_directly(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    res = cli("-i", DEMO_URDF, "-o", fifo, "--output-format", "json", "-q")
    reader.join(60)
    assert res.returncode == 0, res.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert outline(load_model(received[0].decode())) == DEMO_OUTLINE


def test_stdout():
    res = cli("-i", DEMO_URDF, "-o", "-", "--output-format", "sdf", "-q")
    assert res.returncode == 0 and outline(load_model(res.stdout)) == DEMO_OUTLINE


def test_a_large_output_and_every_warning_are_out_before_the_command_ends():
    """The commands end through os._exit (cli_options.exit_process): what they buffered must be out by then."""
    src = MODELS / "urdf/idyntree/iCubGenova02.urdf"
    res = cli("-i", src, "-o", "-", "--output-format", "json")
    assert res.returncode == 0, res.stderr
    assert len(res.stdout) > 1 << 17  # more than a pipe's buffer
    assert_models_equal(load_model(src), load_model(res.stdout, "json"), check_name=False)
    assert "7 <gazebo> sensor description(s) are not in the model" in res.stderr
    info = subprocess.run([sys.executable, "-m", "idyntree_models.info_cli", str(src)], capture_output=True, text=True,
                          timeout=300)
    assert info.returncode == 0 and info.stdout.rstrip().splitlines()[-1].strip(), info.stderr


def test_directory_output_is_refused_in_one_line(tmp_path):
    (tmp_path / "d.json").mkdir()
    res = cli("-i", DEMO_URDF, "-o", tmp_path / "d.json", "-q")
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1 and "is a directory" in res.stderr


def _limit_file_size() -> None:
    # writes beyond 4 kB fail with EFBIG (SIGXFSZ ignored): a full disk, deterministically
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


def test_failed_write_removes_the_temporary_file_and_keeps_the_old_output(tmp_path):
    out = tmp_path / "out.json"
    out.write_text("old")
    res = cli("-i", DEMO_URDF, "-o", out, "-q", preexec_fn=_limit_file_size)
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1 and "cannot write the output: File too large" in res.stderr
    assert out.read_text() == "old"
    assert leftovers(tmp_path) == []


def _big_model(tmp_path: Path) -> Path:
    sys.path.insert(0, str(REPO / "bench"))
    from common import synthetic_urdf

    path = tmp_path / "big.urdf"
    path.write_text(synthetic_urdf(4000))
    return path


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_leave_no_temporary_file(tmp_path, signum):
    """Kill runs at spread-out moments (load, export, write): each either finished or left the old file."""
    big = _big_model(tmp_path)
    out = tmp_path / "out.json"
    out.write_text("old")
    start = time.monotonic()
    full = cli("-i", big, "-o", out, "-q")
    duration = time.monotonic() - start
    assert full.returncode == 0
    written = out.read_text()
    codes = set()
    for k in range(4):
        out.write_text("old")
        proc = subprocess.Popen([sys.executable, "-m", "idyntree_models.cli", "-i", str(big), "-o", str(out), "-q"],
                                cwd=REPO, stderr=subprocess.PIPE, text=True)
        time.sleep(duration * (0.35 + 0.2 * k))
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=300)
        codes.add(proc.returncode)
        assert proc.returncode in (0, 128 + signum, -signum), err
        assert "Traceback" not in err
        assert leftovers(tmp_path) == []
        assert out.read_text() in ("old", written)
    assert codes & {128 + signum, -signum}, "no run was interrupted: the test did not test anything"


def test_save_model_api(tmp_path):
    model = load_model(DEMO_URDF)
    target = tmp_path / "a.sdf"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "b.sdf"
    link.symlink_to(target)
    save_model(model, link)
    assert link.is_symlink() and stat.S_IMODE(target.stat().st_mode) == 0o600
    assert load_model(target).summary() == model.summary()
    with pytest.raises(ModelError, match="cannot tell the output format"):
        save_model(model, tmp_path / "c.txt")


# -- one line per error and per warning -----------------------------------------------------------------
def test_errors_with_newlines_in_names_stay_one_line(tmp_path):
    # a link name holding a newline (&#10;) in an error message, and a libxml message ending in one
    bad = tmp_path / "bad.urdf"
    bad.write_text('<robot name="r">\n<link name="a&#10;b"/>\n<joint name="j&#10;k" type="fixed"><parent link="a&#10;b"/>'
                   '<child link="zz"/></joint>\n</robot>\n')
    res = cli("-i", bad, "-o", tmp_path / "o.json")
    assert res.returncode == 1
    assert res.stderr.count("\n") == 1, res.stderr
    assert f"{bad}:3: <child>: child link 'zz' of joint 'j\\nk' does not exist" in res.stderr
    broken = tmp_path / "broken.urdf"
    broken.write_text("<robot name='r'>\n<link name='a'>\n</robot>\n")
    res = cli("-i", broken, "-o", tmp_path / "o.json")
    assert res.returncode == 1 and res.stderr.count("\n") == 1 and f"{broken}:3: malformed XML" in res.stderr


def test_warnings_with_newlines_stay_one_line_each(tmp_path):
    src = tmp_path / "w.urdf"
    src.write_text('<robot name="r">\n<link name="a"/>\n<sensor name="cam&#10;1" type="camera"><parent link="a"/>'
                   "</sensor>\n</robot>\n")
    res = cli("-i", src, "-o", tmp_path / "o.json")
    assert res.returncode == 0
    lines = res.stderr.splitlines()
    assert any("sensor 'cam\\n1' of type 'camera'" in line for line in lines), res.stderr
    assert all(line.startswith("WARNING: ") for line in lines), res.stderr


def test_the_input_is_never_the_output(tmp_path):
    """-i a.urdf -o a.urdf replaced the source with the conversion, its comments gone; through a symlink too."""
    src = tmp_path / "a.urdf"
    src.write_bytes(DEMO_URDF.read_bytes())
    (tmp_path / "link.urdf").symlink_to(src)
    for out in (src, tmp_path / "link.urdf", tmp_path / "." / "a.urdf"):
        done = cli("-i", src, "-o", out)
        assert done.returncode == 1 and "the output is the input file" in done.stderr, done.stderr
        assert src.read_bytes() == DEMO_URDF.read_bytes()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write a read-only file: nothing to refuse")
def test_a_read_only_output_is_not_replaced(tmp_path):
    out = tmp_path / "out.urdf"
    out.write_text("keep")
    out.chmod(0o444)
    done = cli("-i", DEMO_URDF, "-o", out)
    assert done.returncode == 1 and "read-only" in done.stderr and out.read_text() == "keep"


def test_what_cannot_be_written_names_the_input(tmp_path):
    """A colour SDF cannot hold, read from JSON: the error named no file, as if the output were at fault."""
    doc = load_model(DEMO_URDF)
    doc.links["base_link"].visuals[0].material.color[0] = 5.0
    src = tmp_path / "m.json"
    save_model(doc, src)
    done = cli("-i", src, "-o", tmp_path / "m.sdf")
    assert done.returncode == 1
    assert f"{src}: cannot be written as sdf: link 'base_link': colour" in done.stderr, done.stderr


def test_standard_input_is_judged_as_a_file_is(tmp_path):
    """Empty or UTF-16 standard input was 'neither JSON nor XML' (a file: 'empty', 'UTF-16'): the format was
    guessed before the text was read as UTF-8."""
    cases = [(b"", "the model is empty"),
             (b"\xff\xfe" + DEMO_URDF.read_text().encode("utf-16-le"), "the model is UTF-16 text")]
    for data, message in cases:
        path = tmp_path / "m.urdf"
        path.write_bytes(data)
        from_file = cli("-i", path, "-o", tmp_path / "o.sdf")
        from_stdin = subprocess.run([sys.executable, "-m", "idyntree_models.cli", "-i", "-", "-o", str(tmp_path / "o.sdf")],
                                    input=data, capture_output=True, cwd=REPO, timeout=300)
        assert from_file.returncode == from_stdin.returncode == 1
        assert message in from_file.stderr and message in from_stdin.stderr.decode(), from_stdin.stderr


def test_an_output_format_that_is_read_only_is_refused_before_the_input_is_read(tmp_path):
    """`-o x.skel` loaded the whole input (printing its warnings) and then blamed it: 'icub.urdf: cannot be written
    as skel'. The output is checked first, and the message names the formats that are written."""
    missing = tmp_path / "not_there.urdf"  # (an input error would come first if the input were read)
    for args in (["-o", tmp_path / "x.skel"], ["-o", "-", "--output-format", "xacro"],
                 ["-o", "-", "--output-format", "blah"]):
        r = cli("-i", missing, *args)
        assert r.returncode == 1 and "not_there" not in r.stderr, r.stderr
        assert "(formats written: urdf, sdf, idyntree-model-json, mjcf)" in r.stderr
    assert "skel is read, not written" in cli("-i", DEMO_URDF, "-o", tmp_path / "x.skel").stderr
    assert not (tmp_path / "x.skel").exists()


@pytest.mark.parametrize("tool", ["cli", "info_cli"])
def test_closed_standard_streams_are_said_in_one_line(tool, tmp_path):
    """A closed stdout or stdin was an internal error, and a traceback from the exit's flush."""
    module = [sys.executable, "-m", f"idyntree_models.{tool}"]
    out = ["-i", str(DEMO_URDF), "-o", "-", "--output-format", "urdf"] if tool == "cli" else [str(DEMO_URDF)]
    closed_out = subprocess.run(module + out, stdout=None, stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=300,
                                pass_fds=(), preexec_fn=lambda: os.close(1))
    assert closed_out.returncode == 1 and "standard output is closed" in closed_out.stderr, closed_out.stderr
    inp = ["-i", "-", "-o", str(tmp_path / "x.urdf")] if tool == "cli" else ["-"]
    closed_in = subprocess.run(module + inp, stdin=None, capture_output=True, text=True, cwd=REPO, timeout=300,
                               preexec_fn=lambda: os.close(0))
    assert closed_in.returncode == 1 and "<stdin>: standard input is closed" in closed_in.stderr, closed_in.stderr
    for r in (closed_out, closed_in):
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_a_pipe_given_as_a_file_says_to_use_standard_input(tmp_path):
    fifo = tmp_path / "model.urdf"
    os.mkfifo(fifo)
    r = cli("-i", fifo, "-o", tmp_path / "x.json")
    assert r.returncode == 1 and "not a regular file (to read a pipe, give - as the model file" in r.stderr, r.stderr


def test_relative_meshes_of_a_model_from_standard_input_are_said_not_to_be_rebased(tmp_path):
    """From a file, a relative mesh is rebased onto the output's folder (or made absolute, or looked up); from standard
    input there is no folder to start from, and it was written as it was without a word."""
    src = tmp_path / "r.urdf"
    src.write_text('<robot name="r"><link name="a"><visual><geometry><mesh filename="meshes/a.stl"/></geometry>'
                   '</visual></link></robot>')
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / "r.urdf"
    r = cli("-i", "-", "-o", out, "--mesh-uri", "absolute", "--resolve-mesh-uris", stdin=src.read_text())
    assert r.returncode == 0 and "1 relative mesh reference(s) are written as they were" in r.stderr, r.stderr
    assert 'filename="meshes/a.stl"' in out.read_text()
    assert cli("--strict", "-i", "-", "-o", out, stdin=src.read_text()).returncode == 1
    from_file = cli("-i", src, "-o", out)  # (rebased, and not missing: said as before)
    assert "written as they were" not in from_file.stderr and 'filename="../meshes/a.stl"' in out.read_text()
    to_stdout = cli("-i", "-", "-o", "-", "--output-format", "urdf", stdin=src.read_text())  # nothing to rebase onto
    assert to_stdout.returncode == 0 and "mesh" not in to_stdout.stderr


def test_info_ends_quietly_when_its_reader_stops_reading():
    """`idyntree-model-info big.urdf | head`: the reader has what it wanted; the converter's model cut short by a
    closed pipe stays an error."""
    results = {}
    for tool, args in (("info_cli", [str(DEMO_URDF)]), ("cli", ["-i", str(DEMO_URDF), "-o", "-", "--output-format", "urdf"])):
        r, w = os.pipe()
        os.close(r)
        try:
            results[tool] = subprocess.run([sys.executable, "-m", f"idyntree_models.{tool}", *args, "-q"], stdout=w,
                                           stderr=subprocess.PIPE, text=True, cwd=REPO, timeout=300)
        finally:
            os.close(w)
    assert results["info_cli"].returncode == 0 and results["info_cli"].stderr == "", results["info_cli"].stderr
    assert results["cli"].returncode == 1 and "the reader closed the pipe" in results["cli"].stderr
