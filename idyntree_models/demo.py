"""Demo: the library on the bundled demo robot, then model_server seen by an estimator.

Run with `python -m idyntree_models.demo` (scripts/demo.sh).  ROS traffic stays on this machine
(ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST) in its own domain; the server is stopped by PID at the
end, also on errors and Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from .api import export_model, load_model
from .model.model import ForceTorqueSensor, LinkSensor
from .model.transforms import matrix_to_rpy

DEMO_URDF = Path(__file__).resolve().parent / "data" / "demo_arm.urdf"


def step(text: str) -> None:
    print(f"\n== {text}", flush=True)


def pose(h: np.ndarray) -> str:
    r, p, y = matrix_to_rpy(h[:3, :3])
    return f"xyz=({h[0, 3]:+.3f}, {h[1, 3]:+.3f}, {h[2, 3]:+.3f}) rpy=({r:+.2f}, {p:+.2f}, {y:+.2f})"


def library_part() -> None:
    step(f"library: load {DEMO_URDF.name}")
    model = load_model(DEMO_URDF)
    print(model.summary())
    print("links :", ", ".join(model.links))
    print("joints:", ", ".join(f"{j.name} ({j.type.value}{', mimic ' + j.mimic.joint if j.mimic else ''})"
                               for j in model.joints.values()))
    print("frames:", ", ".join(f"{f.name}@{f.parent_link}" for f in model.frames.values()))
    for s in model.sensors.values():
        if isinstance(s, ForceTorqueSensor):
            print(f"sensor: {s.name} force_torque in joint {s.parent_joint} ({s.measure_direction})")
        elif isinstance(s, LinkSensor):
            print(f"sensor: {s.name} {s.sensor_type.value} on link {s.parent_link}")
    text = export_model(model, "idyntree-model-json")
    again = load_model(text.encode(), "idyntree-model-json")
    print(f"converted to idyntree-model-json: {len(text)} characters; reloaded: {again.summary()}")


class Server:
    """model_server in its own process group, stopped by PID."""

    def __init__(self, domain: int, model_file: Path) -> None:
        env = dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", ROS_DOMAIN_ID=str(domain))
        self.log = tempfile.NamedTemporaryFile("w+", prefix="model_server_", suffix=".log", delete=False)  # noqa: SIM115
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "idyntree_models.ros.model_server", "--ros-args",
             "-p", f"model_file:={model_file}", "-p", "publish_frequency:=0.0"],
            env=env, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        print(f"started model_server (pid {self.proc.pid}, ROS_DOMAIN_ID={domain}, log {self.log.name})")

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.log.close()
        print(f"model_server stopped (exit code {self.proc.returncode})")


def ros_part(domain: int, timeout: float) -> None:
    os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    os.environ["ROS_DOMAIN_ID"] = str(domain)
    import rclpy
    from idyntree_models_interfaces.srv import ConvertModel
    from sensor_msgs.msg import JointState

    from .model.kinematics import Kinematics
    from .model.spherical import three_revolute_to_quaternion
    from .ros.client import ModelClient

    step("ROS 2: model_server on the demo robot")
    server = Server(domain, DEMO_URDF)
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=domain)
    node = rclpy.create_node("demo_estimator", context=context)
    try:
        client = ModelClient(node)
        if not client.wait(lambda: client.sensors and client.static, timeout):
            raise RuntimeError(f"no sensors from model_server within {timeout} s; its log: {server.log.name}")
        step("estimator view: sensors (topic robot_sensors)")
        for s in client.sensors:
            where = f"joint {s.parent_joint}" if s.parent_joint else f"link {s.parent_link}"
            print(f"  {s.name:<10} {s.type:<14} TF frame {s.frame_id:<10} {where}")
        print(f"  /tf_static: {len(client.static)} fixed frames")
        model = client.get_model(timeout)
        print(f"  model fetched with ~/get_model: {model.summary()}")

        step("publish one joint_states message; transforms from /tf_static + /tf")
        x, y, z = 0.4, -0.3, 0.2
        js = JointState()
        js.name = ["torso_yaw", "spherical_rev_shoulder_x", "spherical_rev_shoulder_y", "spherical_rev_shoulder_z",
                   "elbow", "finger_left_joint"]
        js.position = [0.5, x, y, z, -1.2, 0.02]
        pub = node.create_publisher(JointState, "joint_states", 10)
        end = time.monotonic() + timeout
        while client.tf_messages == 0:  # the first messages may leave before discovery completes
            if time.monotonic() > end:
                raise RuntimeError("no /tf from model_server")
            js.header.stamp = node.get_clock().now().to_msg()
            pub.publish(js)
            client.wait(lambda: client.tf_messages > 0, 0.3)
        config = dict(zip(js.name, js.position))
        config["shoulder"] = three_revolute_to_quaternion(x, y, z)
        for k in ("spherical_rev_shoulder_x", "spherical_rev_shoulder_y", "spherical_rev_shoulder_z"):
            del config[k]
        # the library's FK of the bundled file (the JSON from get_model has no mimic joints)
        fk = Kinematics(load_model(DEMO_URDF)).world_transforms(config)
        for frame in ("wrist_ft", "tool_tip", "imu_acc", "finger_right"):
            h = client.lookup("base_link", frame)
            print(f"  base_link -> {frame:<12} {pose(h)}  = library FK: {np.allclose(h, fk[frame], atol=1e-9)}")

        step("convert through ~/convert_model")
        service = node.create_client(ConvertModel, "/model_server/convert_model")
        for fmt, text in (("urdf", DEMO_URDF.read_text()), ("urdf", "<robot name='bad'><link/></robot>")):
            future = service.call_async(ConvertModel.Request(model=text, output_format=fmt))
            if not client.wait(future.done, timeout):
                raise RuntimeError("no answer from ~/convert_model")
            r = future.result()
            if r.success:
                joints = load_model(r.model.encode()).joints
                print(f"  to {fmt}: ok, {len(r.model)} characters, {len(joints)} joints "
                      f"(spherical shoulder as {sum(n.startswith('spherical_rev_') for n in joints)} revolutes)")
            else:
                print(f"  bad request answered: success=false, message: {r.message}")
    finally:
        node.destroy_node()
        context.try_shutdown()
        server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--domain-id", type=int, default=int(os.environ.get("DEMO_ROS_DOMAIN_ID", "77")),
                        help="ROS_DOMAIN_ID for the demo's nodes (default 77)")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for ROS answers")
    parser.add_argument("--no-ros", action="store_true", help="only the library part")
    opts = parser.parse_args(argv)
    try:
        library_part()
        if not opts.no_ros:
            ros_part(opts.domain_id, opts.timeout)
    except KeyboardInterrupt:
        print("\ninterrupted")
        return 130
    except Exception as e:  # noqa: BLE001 - one readable line for the demo
        print(f"\ndemo failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print("\ndemo finished")
    return 0


if __name__ == "__main__":
    sys.exit(main())
