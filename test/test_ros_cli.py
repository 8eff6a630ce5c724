"""The package as ROS users drive it: the real `ros2` command-line tools, in separate processes over DDS.

`ros2 launch`, `ros2 run`, `ros2 param`, `ros2 service call` and `ros2 topic echo` come from
../shared/ros2-cli (ROS 2 Kilted's launch, launch_ros and ros2cli, built from their release
sources), which `scripts/test.sh` installs into the venv when it is present. Without them these
tests skip with the reason. Every process runs on loopback in its own ROS_DOMAIN_ID, in its own
process group, and is stopped by PID.
"""

from __future__ import annotations

import ast
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from idyntree_models.api import export_model, load_model

from conftest import DEMO, MODELS
from model_compare import assert_models_equal
from ros_harness import ros_env

VENV_BIN = Path(sys.executable).parent
ROS2 = VENV_BIN / "ros2"
pytestmark = pytest.mark.skipif(
    not ROS2.exists(), reason="the ros2 command-line tools are not installed (scripts/test.sh installs them "
    "from ../shared/ros2-cli when present)")

DEMO_ARM = DEMO / "demo_arm.urdf"
ICUB = MODELS / "urdf" / "idyntree" / "iCubGenova02.urdf"
SDF_MODEL = MODELS / "sdf" / "idyntree" / "model_with_sensors_geometry.sdf"
SENSOR_LIST = "idyntree_models_interfaces/msg/SensorList"
STARTUP = 60.0  # seconds for a node to come up on a loaded 2-core machine


def _env(domain: int) -> dict[str, str]:
    env = ros_env(domain)
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    env.pop("PYTHONPATH", None)  # as a user runs it: the package comes from the venv's registration
    return env


def ros2(domain: int, *args: str, stdin: str | None = None, timeout: float = 60.0,
         retries: int = 1) -> subprocess.CompletedProcess:
    """Run `ros2 ARGS`; with retries, again while it fails (discovery can be slow under load)."""
    for attempt in range(retries):
        proc = subprocess.run([str(ROS2), *args], env=_env(domain), input=stdin, capture_output=True, text=True,
                              timeout=timeout, cwd="/")
        if proc.returncode == 0 or attempt == retries - 1:
            return proc
        time.sleep(2.0)  # "Node not found": --no-daemon discovery is slow on a loaded 2-core machine
    raise AssertionError("unreachable")


class Launched:
    """A `ros2 launch` / `ros2 run` process group, as a terminal runs it (Ctrl-C = SIGINT to the group)."""

    def __init__(self, domain: int, *args: str) -> None:
        self.domain = domain
        self.proc = subprocess.Popen(
            [str(ROS2), *args], env=_env(domain), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=True, cwd="/", preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.out = ""

    def wait_for(self, text: str, timeout: float = STARTUP) -> None:
        end = time.monotonic() + timeout
        os.set_blocking(self.proc.stdout.fileno(), False)
        while text not in self.out:
            try:
                chunk = self.proc.stdout.read()
            except (BlockingIOError, TypeError):  # nothing to read yet
                chunk = None
            if chunk:
                self.out += chunk
            elif self.proc.poll() is not None:
                raise AssertionError(f"exited with {self.proc.returncode} before '{text}':\n{self.out}")
            elif time.monotonic() > end:
                raise AssertionError(f"no '{text}' after {timeout} s:\n{self.out}")
            else:
                time.sleep(0.05)

    def stop(self, sig: int = signal.SIGINT, timeout: float = 30.0) -> int:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, sig)
        os.set_blocking(self.proc.stdout.fileno(), True)
        try:
            rest, _ = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            rest, _ = self.proc.communicate()
        self.out += rest or ""
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            os.set_blocking(self.proc.stdout.fileno(), True)
            self.proc.communicate()


@pytest.fixture
def launched():
    started: list[Launched] = []

    def start(domain: int, *args: str) -> Launched:
        p = Launched(domain, *args)
        started.append(p)
        return p

    yield start
    for p in started:
        p.kill()


def param_get(domain: int, name: str, node: str = "/model_server") -> str:
    proc = ros2(domain, "param", "get", "--no-daemon", node, name, retries=15)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout.strip()


def _response_fields(stdout: str) -> dict:
    """success/message/model/warnings of a `ros2 service call` answer (printed as the message repr)."""
    text = stdout[stdout.index("response:"):]
    fields = {}
    for key in ("success", "message", "model"):
        m = re.search(rf"\b{key}=((?:True|False)|'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", text, re.S)
        assert m, f"no {key} in {text[:500]}"
        fields[key] = ast.literal_eval(m.group(1))
    return fields


def service_call(domain: int, service: str, srv_type: str, request: dict) -> dict:
    proc = ros2(domain, "service", "call", "--stdin", service, srv_type, stdin=json.dumps(request), timeout=90)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _response_fields(proc.stdout)


# -- ros2 launch -------------------------------------------------------------------------------

def test_launch_with_every_argument(launched):
    d = 60
    p = launched(d, "launch", "idyntree_models", "model_server.launch.py", f"model_file:={ICUB}",
                 "convert_three_revolute_joints_to_spherical:=true", "add_sensor_frames_as_additional_frames:=false",
                 "publish_frequency:=55.5", "frame_prefix:=r1/", "ignore_timestamp:=true",
                 "description_from_topic:=false", "node_name:=ms", "namespace:=robot1", "strict:=false",
                 "free_bodies:=error", "allow_file_access:=true", "xacro_args:=a:=1")
    p.wait_for("serving model")
    node = "/robot1/ms"
    assert param_get(d, "model_file", node) == f"String value is: {ICUB}"
    assert param_get(d, "convert_three_revolute_joints_to_spherical", node) == "Boolean value is: True"
    assert param_get(d, "add_sensor_frames_as_additional_frames", node) == "Boolean value is: False"
    assert param_get(d, "publish_frequency", node) == "Double value is: 55.5"
    assert param_get(d, "frame_prefix", node) == "String value is: r1/"
    assert param_get(d, "ignore_timestamp", node) == "Boolean value is: True"
    assert param_get(d, "description_from_topic", node) == "Boolean value is: False"
    assert param_get(d, "strict", node) == "Boolean value is: False"
    assert param_get(d, "free_bodies", node) == "String value is: error"
    assert param_get(d, "allow_file_access", node) == "Boolean value is: True"
    assert param_get(d, "xacro_args", node) == "String value is: a:=1"
    # the namespace applies to relative topics: the sensor list is /robot1/robot_sensors
    echo = ros2(d, "topic", "echo", "--once", "--no-daemon", "--qos-durability", "transient_local",
                "--qos-reliability", "reliable", "/robot1/robot_sensors", SENSOR_LIST, timeout=90, retries=3)
    assert echo.returncode == 0 and "l_arm_ft_sensor" in echo.stdout, echo.stdout + echo.stderr
    assert p.stop() == 0, p.out
    assert "Traceback" not in p.out and "has died" not in p.out, p.out
    # robot_description as an argument: the text itself, typed as a string (never parsed as YAML)
    p = launched(d, "launch", "idyntree_models", "model_server.launch.py", f"robot_description:={DEMO_ARM.read_text()}")
    p.wait_for("serving model")
    got = service_call(d, "/model_server/get_model", "idyntree_models_interfaces/srv/GetModel", {"format": ""})
    assert got["success"] and got["model"] == DEMO_ARM.read_text()
    assert p.stop() == 0, p.out


def test_launch_config_file_then_given_arguments(launched, tmp_path):
    d = 61
    config = tmp_path / "custom.yaml"
    config.write_text(f"/**:\n  ros__parameters:\n    model_file: {DEMO_ARM}\n    publish_frequency: 7.0\n"
                      "    frame_prefix: cfg/\n    ignore_timestamp: true\n")
    p = launched(d, "launch", "idyntree_models", "model_server.launch.py", f"config:={config}",
                 "ignore_timestamp:=false")
    p.wait_for("serving model")
    assert param_get(d, "publish_frequency") == "Double value is: 7.0"  # from the file, not the default 20
    assert param_get(d, "frame_prefix") == "String value is: cfg/"
    assert param_get(d, "model_file") == f"String value is: {DEMO_ARM}"
    assert param_get(d, "ignore_timestamp") == "Boolean value is: False"  # the given argument wins
    # the package's own config file: its defaults
    assert p.stop() == 0, p.out
    p = launched(d, "launch", "idyntree_models", "model_server.launch.py", f"model_file:={DEMO_ARM}")
    p.wait_for("serving model")
    assert param_get(d, "publish_frequency") == "Double value is: 20.0"
    assert param_get(d, "frame_prefix") == "String value is:"
    assert p.stop() == 0, p.out
    # a mistyped config path: launch_ros only warned ("Parameter file path is not a file") and started the node
    # on built-in defaults, dropping the whole configuration
    p = launched(d, "launch", "idyntree_models", "model_server.launch.py", f"config:={tmp_path / 'typo.yaml'}",
                 f"model_file:={DEMO_ARM}")
    p.wait_for(f"config:={tmp_path / 'typo.yaml'}: no such parameter file")
    assert p.proc.wait(30) != 0 and "serving model" not in p.out, p.out
    assert p.stop() != 0


# -- ros2 run, services, topics, parameters ---------------------------------------------------------

def test_run_services_topics_and_parameters(launched):
    d = 62
    p = launched(d, "run", "idyntree_models", "model_server", "--ros-args", "-p", f"model_file:={DEMO_ARM}")
    p.wait_for("serving model")
    reference = load_model(DEMO_ARM)
    srv = "idyntree_models_interfaces/srv/ConvertModel"
    for fmt in ("idyntree-model-json", "sdf", "urdf"):
        r = service_call(d, "/model_server/convert_model", srv,
                         {"model": DEMO_ARM.read_text(), "output_format": fmt})
        assert r["success"] and not r["message"], r
        # the answer is the library's conversion (reloaded and compared as models)
        converted = load_model(r["model"].encode(), fmt)
        assert_models_equal(converted, load_model(export_model(reference, fmt).encode(), fmt))
    bad = service_call(d, "/model_server/convert_model", srv,
                       {"model": "<robot name='r'><link name='a'/><joint name='j' type='fixed'><parent link='a'/>"
                                 "</joint></robot>", "output_format": "sdf"})
    assert not bad["success"] and "joint name='j'" in bad["message"] and "child" in bad["message"], bad
    bad = service_call(d, "/model_server/convert_model", srv, {"model": DEMO_ARM.read_text(), "output_format": "stl"})
    assert not bad["success"] and "unknown format 'stl'" in bad["message"], bad

    got = service_call(d, "/model_server/get_model", "idyntree_models_interfaces/srv/GetModel", {"format": ""})
    assert got["success"] and got["model"] == DEMO_ARM.read_text()
    got = service_call(d, "/model_server/get_model", "idyntree_models_interfaces/srv/GetModel",
                       {"format": "idyntree-model-json"})
    assert load_model(got["model"].encode(), "idyntree-model-json").name == "demo_arm"

    echo = ros2(d, "topic", "echo", "--once", "--no-daemon", "--qos-durability", "transient_local",
                "--qos-reliability", "reliable", "/robot_sensors", SENSOR_LIST, timeout=90, retries=3)
    assert echo.returncode == 0, echo.stdout + echo.stderr
    assert all(f"name: {s}" in echo.stdout for s in reference.sensors), echo.stdout
    echo = ros2(d, "topic", "echo", "--once", "--no-daemon", "--full-length", "--qos-durability", "transient_local",
                "--qos-reliability", "reliable", "/tf_static", "tf2_msgs/msg/TFMessage", timeout=90, retries=3)
    assert echo.returncode == 0, echo.stdout + echo.stderr
    children = set(re.findall(r"child_frame_id: (\S+)", echo.stdout))
    assert set(reference.frames) <= children, (children, set(reference.frames))

    # a bad description is refused with the reason; the old model stays; a good one replaces it
    ros2(d, "param", "set", "--no-daemon", "/model_server", "model_file", "", retries=15)
    assert param_get(d, "model_file") == "String value is:"
    bad = ros2(d, "param", "set", "--no-daemon", "/model_server", "robot_description",
               "<robot name='broken'><link name='a'/></robot><x", retries=15)
    assert "Setting parameter failed" in bad.stdout + bad.stderr, bad.stdout + bad.stderr
    got = service_call(d, "/model_server/get_model", "idyntree_models_interfaces/srv/GetModel", {"format": ""})
    assert got["model"] == DEMO_ARM.read_text()
    # (ros2 param set reads the value as YAML: a description with tabs or "key: value" comments fails
    # inside ros2cli itself, so this one is a file that parses as one YAML string; see docs/ros.md)
    good_file = MODELS / "urdf" / "idyntree" / "icub_model.urdf"
    good = ros2(d, "param", "set", "--no-daemon", "/model_server", "robot_description", good_file.read_text(),
                retries=5)
    assert "Set parameter successful" in good.stdout, good.stdout + good.stderr
    got = service_call(d, "/model_server/get_model", "idyntree_models_interfaces/srv/GetModel",
                       {"format": "idyntree-model-json"})
    assert_models_equal(load_model(got["model"].encode(), "idyntree-model-json"),
                        load_model(export_model(load_model(good_file), "idyntree-model-json").encode()))
    assert p.stop() == 0, p.out
    assert "Traceback" not in p.out, p.out


# -- Ctrl-C and SIGTERM ---------------------------------------------------------------------------

RUNS = int(os.environ.get("IDYNTREE_SHUTDOWN_RUNS", "5"))


def _demo_server(verb: str) -> tuple[str, ...]:
    """`ros2 run` or `ros2 launch` arguments of the server on the demo arm."""
    if verb == "run":
        return ("run", "idyntree_models", "model_server", "--ros-args", "-p", f"model_file:={DEMO_ARM}")
    return ("launch", "idyntree_models", "model_server.launch.py", f"model_file:={DEMO_ARM}")


@pytest.mark.parametrize("how", ["run-SIGINT", "run-SIGTERM", "launch-SIGINT", "launch-SIGTERM"])
def test_clean_shutdown(launched, how):
    """Every stop exits 0 with no traceback (SIGINT/SIGTERM to the whole group, as a terminal or systemd)."""
    verb, signame = how.split("-")
    sig = getattr(signal, signame)
    d = 63 + ["run-SIGINT", "run-SIGTERM", "launch-SIGINT", "launch-SIGTERM"].index(how)
    args = _demo_server(verb)
    for i in range(RUNS):
        p = launched(d, *args)
        p.wait_for("serving model")
        time.sleep(0.2 * (i % 3))  # at start-up, and once spinning
        rc = p.stop(sig)
        assert "Traceback" not in p.out and "has died" not in p.out and "exit code -" not in p.out, p.out
        if verb == "launch" and sig == signal.SIGTERM:
            # ros2 launch itself ends by its SIGTERM (launch 3.8: "using SIGTERM can result in orphaned
            # processes"): only its child's behaviour is ours, and it must leave no process behind
            assert "process has died" not in p.out
        else:
            assert rc == 0, f"run {i}: exit code {rc}\n{p.out}"
        leftover = subprocess.run(["pgrep", "-f", f"model_file:={DEMO_ARM}"], capture_output=True, text=True)
        time.sleep(0.5)
        still = [pid for pid in leftover.stdout.split() if _alive_in_group(int(pid), p.proc.pid)]
        assert not still, f"processes left behind: {still}"


def _alive_in_group(pid: int, pgid: int) -> bool:
    try:
        return os.getpgid(pid) == pgid
    except ProcessLookupError:
        return False


@pytest.mark.parametrize("how", ["launch-SIGTERM", "launch-SIGKILL", "run-SIGKILL"])
def test_node_stops_when_its_launcher_is_killed_alone(launched, how):
    """`kill <pid of ros2 launch>` ends launch but leaves its processes running (launch says so: "using
    SIGTERM can result in orphaned processes"), and a killed `ros2 run` leaves its node: an orphaned
    server would go on publishing /tf_static next to the next one started.  Ours stops by itself."""
    verb, signame = how.split("-")
    d = 75 + ["launch-SIGTERM", "launch-SIGKILL", "run-SIGKILL"].index(how)
    args = _demo_server(verb)
    p = launched(d, *args)
    p.wait_for("serving model")
    found = subprocess.run(["pgrep", "-g", str(p.proc.pid), "-f", "lib/idyntree_models/model_server"],
                           capture_output=True, text=True)
    nodes = [int(pid) for pid in found.stdout.split()]
    assert len(nodes) == 1, (found.stdout, p.out)
    try:
        os.kill(p.proc.pid, getattr(signal, signame))  # the launcher alone, not its process group
        p.proc.wait(timeout=30)
        end = time.monotonic() + 20.0
        while _alive_in_group(nodes[0], p.proc.pid) and time.monotonic() < end:
            time.sleep(0.1)
        assert not _alive_in_group(nodes[0], p.proc.pid), f"model_server (pid {nodes[0]}) outlived its launcher"
    finally:  # the fixture stops process groups whose leader lives; this one's leader is gone
        if _alive_in_group(nodes[0], p.proc.pid):
            os.kill(nodes[0], signal.SIGKILL)
