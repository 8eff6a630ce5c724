"""model_server over real DDS: joint_states -> /tf throughput and latency, convert_model round trip.

Three processes on loopback in their own domain (ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST):
the server, a joint_states publisher (this script with --publisher) and this script receiving
/tf.  Latency = arrival of a /tf message - the joint_states stamp set just before publishing
(one clock: same machine), so it includes both DDS hops and the server's work.

    .venv/bin/python bench/bench_ros.py [--rate 1000] [--seconds 5] [--domain 90] [--paths thread,executor]
        [--executors single] [--busy]

BENCH_ROS_DUMP=FILE writes each /tf arrival and its stamp (ns), to see when the slow messages came.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"

from common import MODELS, table  # noqa: E402


def humanoid_urdf(n_links: int = 200, dofs: int = 57, seed: int = 1) -> str:
    """A humanoid-shaped tree: torso, neck/head, two 7-DOF arms with hands, two 6-DOF legs.

    The moving joints form the limbs; the remaining links (sensor mounts, skin patches, covers)
    hang on fixed joints, as on real humanoids, so /tf_static is large and /tf carries `dofs`.
    """
    rng = random.Random(seed)
    links = ["pelvis"]
    joints: list[str] = []

    def add(parent: str, name: str, kind: str, axis: str = "0 0 1") -> str:
        links.append(name)
        xyz = f"{rng.uniform(-0.1, 0.1):.3f} {rng.uniform(-0.1, 0.1):.3f} {rng.uniform(0.05, 0.2):.3f}"
        rpy = f"{rng.uniform(-0.3, 0.3):.3f} {rng.uniform(-0.3, 0.3):.3f} {rng.uniform(-0.3, 0.3):.3f}"
        body = f'<origin xyz="{xyz}" rpy="{rpy}"/><parent link="{parent}"/><child link="{name}"/>'
        if kind == "revolute":
            body += f'<axis xyz="{axis}"/><limit lower="-2" upper="2" effort="50" velocity="5"/>'
        joints.append(f'<joint name="{name}_joint" type="{kind}">{body}</joint>')
        return name

    axes = ["1 0 0", "0 1 0", "0 0 1"]

    def chain(parent: str, prefix: str, n: int) -> str:
        for i in range(n):
            parent = add(parent, f"{prefix}{i}", "revolute", axes[i % 3])
        return parent

    torso = chain("pelvis", "torso", 3)
    chain(torso, "neck", 3)
    ends = [chain(torso, f"{side}_arm", 7) for side in "lr"]
    [chain("pelvis", f"{side}_leg", 6) for side in "lr"]
    moving = 3 + 3 + 14 + 12
    fingers = 0
    while moving < dofs:
        hand = ends[fingers % 2]
        n = min(3, dofs - moving)
        chain(hand, f"{'lr'[fingers % 2]}_finger{fingers // 2}_", n)
        moving += n
        fingers += 1
    k = 0
    while len(links) < n_links:
        add(rng.choice(links), f"mount{k}", "fixed")
        k += 1
    out = ['<robot name="synthetic_humanoid">']
    for name in links:
        out.append(f'<link name="{name}"><inertial><mass value="1.0"/>'
                   '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial></link>')
    out += joints
    out.append("</robot>")
    return "\n".join(out)


def env(domain: int) -> dict[str, str]:
    return dict(os.environ, ROS_AUTOMATIC_DISCOVERY_RANGE="LOCALHOST", ROS_DOMAIN_ID=str(domain))


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def run_publisher(names: list[str], rate: float, seconds: float, delay: float, warmup: int = 200) -> None:
    """The joint_states source: `rate` messages per second, stamped just before publishing."""
    import rclpy
    from sensor_msgs.msg import JointState

    rclpy.init()
    node = rclpy.create_node("bench_joint_states")
    pub = node.create_publisher(JointState, "joint_states", 10)
    msg = JointState(name=names, position=[0.0] * len(names))
    end = time.monotonic() + 30
    while pub.get_subscription_count() == 0 and time.monotonic() < end:  # the server has matched us
        time.sleep(0.05)
    time.sleep(delay)
    gc.collect()
    gc.disable()  # the instrument must not add pauses of its own between a stamp and its publish
    for _ in range(warmup):  # stamp 0: the server builds its plan for this name list; not measured
        pub.publish(msg)
        time.sleep(1.0 / rate)
    # Published as pre-serialised bytes with the stamp and positions patched in place, as a C++
    # driver would send them at no cost: the instrument must not take the CPU the server needs.
    from rclpy.serialization import serialize_message

    sentinel = 1.2345678901234567e-300
    template = bytearray(serialize_message(JointState(name=names, position=[sentinel] * len(names))))
    at = bytes(template).index(struct.pack("<d", sentinel))
    positions = np.frombuffer(template, dtype="<f8", count=len(names), offset=at)
    stamp = np.frombuffer(template, dtype="<i4", count=1, offset=4), np.frombuffer(template, dtype="<u4", count=1,
                                                                                    offset=8)
    period = 1.0 / rate
    start = time.perf_counter()
    n = int(seconds * rate)
    for i in range(n):
        wait = start + i * period - time.perf_counter()
        if wait > 0:
            time.sleep(wait)  # sleeping, not spinning: the publisher must not take a core from the server
        positions[:] = 0.001 * (i % 1000)
        ns = time.time_ns()
        stamp[0][0], stamp[1][0] = ns // 1_000_000_000, ns % 1_000_000_000
        pub.publish(bytes(template))
    print(f"published {n} in {time.perf_counter() - start:.2f} s", flush=True)
    time.sleep(1.0)  # leaving the graph stirs DDS in every process: not while the last messages travel
    node.destroy_node()
    rclpy.try_shutdown()


def busy_core(seconds: float) -> subprocess.Popen:
    """A process spinning for `seconds` on the last core (the "other core busy" condition).

    Pinned, so that it is the other core that is busy: left to the scheduler it also shares the
    core the three ROS processes run on, time slice by time slice.
    """
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass"
    last = max(os.sched_getaffinity(0))
    return subprocess.Popen([sys.executable, "-c", code], start_new_session=True,
                            preexec_fn=lambda: os.sched_setaffinity(0, {last}))


def measure_tf(domain: int, urdf: str, names: list[str], rate: float, seconds: float, path: str, executor: str,
               busy: bool) -> dict:
    import rclpy
    from rclpy.qos import QoSProfile, ReliabilityPolicy
    from tf2_msgs.msg import TFMessage

    from idyntree_models.ros.joint_state_tap import JointStateTap

    with tempfile.NamedTemporaryFile("w", suffix=".urdf", delete=False) as f:
        f.write(urdf)
    server = subprocess.Popen([sys.executable, "-m", "idyntree_models.ros.model_server", "--ros-args",
                               "-p", f"model_file:={f.name}", "-p", "publish_frequency:=0.0"],
                              env=dict(env(domain), IDYNTREE_MODELS_EXECUTOR=executor, IDYNTREE_MODELS_TF_PATH=path),
                              start_new_session=True, stdout=subprocess.DEVNULL)
    publisher = burner = None
    rclpy.init(domain_id=domain)
    node = rclpy.create_node("bench_tf_receiver")
    arrivals: list[tuple[int, int]] = []

    def on_tf(raw: bytes) -> None:
        t = time.time_ns()
        sec, nsec = struct.unpack_from("<iI", raw, 8)  # the first transform's stamp
        if sec:  # stamp 0: the publisher's warm-up
            arrivals.append((t, sec * 1_000_000_000 + nsec))

    # the receiver takes /tf off the wire the same way the server takes joint_states (a thread on one
    # wait set), so what it measures is the server, not an executor in the receiver
    tap = JointStateTap.create(node, TFMessage, "/tf", QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE),
                               on_tf)
    if tap is None:
        node.create_subscription(TFMessage, "/tf", on_tf, QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE),
                                 raw=True)
    gc.collect()
    gc.freeze()  # the receiver's own collections must not show up as /tf latency
    try:
        time.sleep(2.0)
        if busy:
            burner = busy_core(seconds + 20)
        publisher = subprocess.Popen([sys.executable, __file__, "--publisher", "--rate", str(rate), "--seconds",
                                      str(seconds), "--domain", str(domain)], env=env(domain),
                                     start_new_session=True)
        def receive_until(deadline: float, done=lambda: False) -> None:
            while not done() and time.monotonic() < deadline:
                if tap is None:
                    rclpy.spin_once(node, timeout_sec=0.01)
                else:
                    time.sleep(0.05)  # the tap's thread receives

        receive_until(time.monotonic() + seconds + 15, lambda: publisher.poll() is not None)
        receive_until(time.monotonic() + 1.0)  # what is still on its way
    finally:
        for proc in (publisher, burner):
            if proc is not None:
                stop(proc)
        stop(server)
        if tap is not None:
            tap.destroy()
        node.destroy_node()
        rclpy.try_shutdown()
        os.unlink(f.name)
    expected = int(rate * seconds)
    if len(arrivals) < 2:
        return {"received": len(arrivals), "expected": expected}
    if os.environ.get("BENCH_ROS_DUMP"):
        np_rows = [(a, s) for a, s in arrivals]
        with open(os.environ["BENCH_ROS_DUMP"], "w") as out:
            out.writelines(f"{a} {s}\n" for a, s in np_rows)
    lat = sorted((a - s) / 1e6 for a, s in arrivals)
    span = (arrivals[-1][0] - arrivals[0][0]) / 1e9
    return {
        "received": len(arrivals),
        "expected": expected,
        "rate": (len(arrivals) - 1) / span if span > 0 else float("nan"),
        "median": statistics.median(lat),
        "p90": lat[int(0.9 * (len(lat) - 1))],
        "p99": lat[int(0.99 * (len(lat) - 1))],
    }


def server_compute_us(urdf: str, names: list[str]) -> float:
    """The server's own work per message (decode, plan lookup, kinematics, serialization), in-process."""
    from rclpy.serialization import serialize_message
    from sensor_msgs.msg import JointState

    from idyntree_models.api import load_model
    from idyntree_models.ros.served import ServedModel
    from idyntree_models.ros.tf_codec import JointStateDecoder

    served = ServedModel(load_model(urdf.encode()), urdf, "urdf")
    raw = serialize_message(JointState(name=names, position=[0.1] * len(names)))
    decoder = JointStateDecoder()

    def one() -> bytes:
        sec, nanosec, msg_names, positions = decoder.decode(raw)
        plan = served.plan(msg_names)
        return plan.template.serialize(sec, nanosec, served.transforms(plan, positions))

    for _ in range(50):
        one()
    t = time.perf_counter()
    n = 2000
    for _ in range(n):
        one()
    return (time.perf_counter() - t) / n * 1e6


def measure_convert(domain: int, path: Path, repeat: int) -> dict[str, float]:
    import rclpy
    from idyntree_models_interfaces.srv import ConvertModel

    server = subprocess.Popen([sys.executable, "-m", "idyntree_models.ros.model_server", "--ros-args",
                               "-p", f"model_file:={path}"], env=env(domain), start_new_session=True,
                              stdout=subprocess.DEVNULL)
    rclpy.init(domain_id=domain)
    node = rclpy.create_node("bench_convert")
    out = {}
    try:
        client = node.create_client(ConvertModel, "/model_server/convert_model")
        if not client.wait_for_service(timeout_sec=20):
            raise RuntimeError("convert_model not available")
        text = path.read_text()
        for fmt in ("idyntree-model-json", "urdf"):
            times = []
            for _ in range(repeat + 2):
                t = time.perf_counter()
                future = client.call_async(ConvertModel.Request(model=text, output_format=fmt))
                rclpy.spin_until_future_complete(node, future, timeout_sec=20)
                times.append(time.perf_counter() - t)
                if not future.done() or not future.result().success:
                    raise RuntimeError(f"conversion to {fmt} failed")
            out[fmt] = statistics.median(times[2:]) * 1e3
    finally:
        stop(server)
        node.destroy_node()
        rclpy.try_shutdown()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=1000.0)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--domain", type=int, default=90)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--paths", default="thread,executor",
                        help="how the server takes joint_states (IDYNTREE_MODELS_TF_PATH): its own thread, "
                             "or the executor")
    parser.add_argument("--executors", default="single",
                        help="model_server executors to compare (IDYNTREE_MODELS_EXECUTOR: single, multi, events)")
    parser.add_argument("--busy", action="store_true", help="also measure with a process spinning on one core")
    parser.add_argument("--publisher", action="store_true", help=argparse.SUPPRESS)
    opts = parser.parse_args()
    urdf = humanoid_urdf()
    from idyntree_models.api import load_model

    model = load_model(urdf.encode())
    names = [j.name for j in model.joints.values() if j.dofs == 1]
    if opts.publisher:
        run_publisher(names, opts.rate, opts.seconds, delay=1.0)
        return 0
    print(f"synthetic humanoid: {model.summary()}")
    compute = server_compute_us(urdf, names)
    rows = [["server work per joint_states (in-process)", "", f"{compute:.0f} us", "-"]]
    for path in opts.paths.split(","):
        for executor in opts.executors.split(","):
            for busy in (False, True) if opts.busy else (False,):
                tf = measure_tf(opts.domain, urdf, names, opts.rate, opts.seconds, path, executor, busy)
                cond = f"{path}, {executor}{', other core busy' if busy else ''}"
                rows.append(["/tf messages received / sent", cond, f"{tf['received']} / {tf['expected']}", "all"])
                if "rate" in tf:
                    rows += [
                        [f"/tf rate at {opts.rate:.0f} Hz joint_states", cond, f"{tf['rate']:.0f} Hz", ""],
                        ["latency joint_states -> /tf, median", cond, f"{tf['median']:.3f} ms", "< 1 ms"],
                        ["latency p90 / p99", cond, f"{tf['p90']:.3f} / {tf['p99']:.3f} ms", "p99 < 2 ms"],
                    ]
    icub = MODELS / "urdf" / "idyntree" / "iCubGenova02.urdf"
    conv = measure_convert(opts.domain + 1, icub, opts.repeat)
    for fmt, ms in conv.items():
        rows.append([f"convert_model iCubGenova02 -> {fmt}, median", "", f"{ms:.1f} ms", "< 50 ms"])
    print(table(rows, ["measure", "joint_states path, executor", "value", "target"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
