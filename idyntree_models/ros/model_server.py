"""model_server: serves a robot model, its sensors and its frames on ROS 2.

It does robot_state_publisher's job (robot_description, /tf_static, joint_states -> /tf) for
every format the library reads, and adds what estimators need: the sensor list, the model in
any format (~/get_model) and a converter (~/convert_model).  Unlike robot_state_publisher, a new
model replaces the latched /tf_static completely, so frames of the old model do not linger.

Spherical joints: URDF has none, so the published robot_description (and our URDF export)
models a spherical joint J as three revolutes `spherical_rev_J_x/_y/_z` through massless links,
and /tf follows that tree (ServedModel.tree): a joint_state_publisher started on the published
description moves J, and RViz finds a transform for every link of the description.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
import threading
from pathlib import Path

import rclpy
from idyntree_models_interfaces.msg import SensorList
from idyntree_models_interfaces.srv import ConvertModel, GetModel
from rcl_interfaces.msg import FloatingPointRange, ParameterDescriptor, ParameterType, SetParametersResult
from rclpy.callback_groups import MutuallyExclusiveCallbackGroup, ReentrantCallbackGroup
from rclpy.executors import ExternalShutdownException
from rclpy.node import Node
from rclpy.parameter import Parameter
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message
from rclpy.signals import SignalHandlerOptions
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from tf2_msgs.msg import TFMessage

from ..api import convert, export_model, load_description
from ..errors import ModelError, XacroNotAllowed
from ..formats import FORMATS, get_format
from ..model.model import JointType
from ..model.reduce import reduce
from .joint_state_tap import JointStateTap
from .served import ServedModel, check_frame_prefix
from .tf_codec import JointStateDecoder, make_tf_message

NODE_NAME = "model_server"

LATCHED = QoSProfile(
    depth=1,
    history=HistoryPolicy.KEEP_LAST,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.TRANSIENT_LOCAL,
)
TF_QOS = QoSProfile(
    depth=100,
    history=HistoryPolicy.KEEP_LAST,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

# SensorDataQoS (best effort, so any publisher matches) but 100 deep: at 1 kHz a 5-deep queue
# overflows as soon as the executor is late by 5 ms, and every overflow is a lost /tf update.
JOINT_STATES_QOS = QoSProfile(
    depth=100,
    history=HistoryPolicy.KEEP_LAST,
    reliability=ReliabilityPolicy.BEST_EFFORT,
    durability=DurabilityPolicy.VOLATILE,
)
# Requests queue here while a conversion runs: services_default keeps only 10, so a burst of
# requests would lose answers.
SERVICE_QOS = QoSProfile(
    depth=1000,
    history=HistoryPolicy.KEEP_LAST,
    reliability=ReliabilityPolicy.RELIABLE,
    durability=DurabilityPolicy.VOLATILE,
)

_LIBRARY_LOG = logging.getLogger("idyntree_models")
_OPTION_PARAMS = ("convert_three_revolute_joints_to_spherical", "add_sensor_frames_as_additional_frames", "strict",
                  "xacro_args")
_CHOICE_PARAMS = ("free_bodies",)  # string-valued parser options
_SOURCE_PARAMS = ("robot_description", "model_file") + _OPTION_PARAMS + _CHOICE_PARAMS + (
    "frame_prefix", "reduced_joints")


class _NodeLogHandler(logging.Handler):
    """Sends the library's `logging` records (loader warnings) to the node's logger, once.

    Without it a warning is printed twice: by Python's last-resort handler and by the node.
    """

    def __init__(self, logger) -> None:
        super().__init__()
        self._logger = logger

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if record.levelno >= logging.ERROR:
            self._logger.error(text)
        elif record.levelno >= logging.WARNING:
            self._logger.warning(text)
        elif record.levelno >= logging.INFO:
            self._logger.info(text)
        else:
            self._logger.debug(text)


def _descriptor(text: str, kind: int, **extra) -> ParameterDescriptor:
    return ParameterDescriptor(description=text, type=kind, **extra)


class ModelServer(Node):
    """The node; see the module docstring and docs/ros.md."""

    def __init__(self, **kwargs) -> None:
        super().__init__(NODE_NAME, **kwargs)
        string, boolean, double = ParameterType.PARAMETER_STRING, ParameterType.PARAMETER_BOOL, \
            ParameterType.PARAMETER_DOUBLE
        self.declare_parameter("robot_description", "", _descriptor(
            "The robot model as text, in any supported format (URDF, SDFormat, iDynTree model JSON, DART skel); "
            "the format is detected from the content.", string))
        self.declare_parameter("model_file", "", _descriptor(
            "Path of a model file in any supported format; takes precedence over robot_description. The model "
            "is published on the robot_description topic as URDF.", string))
        self.declare_parameter("description_from_topic", False, _descriptor(
            "Take the model from the robot_description topic (std_msgs/String, transient local) instead of "
            "the parameters.", boolean, read_only=True))
        self.declare_parameter("use_robot_description_topic", False, _descriptor(
            "robot_state_publisher's name for description_from_topic (either one turns it on).", boolean,
            read_only=True))
        self.declare_parameter("convert_three_revolute_joints_to_spherical", False, _descriptor(
            "Merge chains of three revolute joints with intersecting orthogonal axes through massless links "
            "into spherical joints.", boolean))
        self.declare_parameter("add_sensor_frames_as_additional_frames", True, _descriptor(
            "Add one frame per sensor, named after it, to the model (as iDynTree's parser option).", boolean))
        self.declare_parameter("reduced_joints", "", _descriptor(
            "Serve a reduced model: only these joints (a string array, or one string of names separated by commas "
            "or spaces); the others are locked at zero and rigid groups lumped, as iDynTree's "
            "loadReducedModelFromFile. Empty = the full model.", string, dynamic_typing=True))
        self.declare_parameter("strict", False, _descriptor(
            "Refuse a model that loads only with warnings (impossible inertia, ignored elements, ...).", boolean))
        self.declare_parameter("xacro_args", "", _descriptor(
            "Arguments of a xacro model_file, as on xacro's command line: 'NAME:=VALUE NAME2:=VALUE2' "
            "(quote values with spaces).", string))
        self.declare_parameter("free_bodies", "chain", _descriptor(
            "Free bodies (SDFormat links joined to no joint, MJCF bodies with a free joint beside others): 'chain' "
            "joins each to the base by three prismatic and three revolute joints, 'error' refuses the model.",
            string))
        self.declare_parameter("publish_frequency", 20.0, _descriptor(
            "Maximum rate of /tf updates per joint, in Hz (as robot_state_publisher); 0 = publish every "
            "joint_states message.", double,
            floating_point_range=[FloatingPointRange(from_value=0.0, to_value=1000.0, step=0.0)]))
        self.declare_parameter("frame_prefix", "", _descriptor(
            "Prefix of every published TF frame name.", string))
        self.declare_parameter("ignore_timestamp", False, _descriptor(
            "Publish every joint_states message, whatever its stamp (no publish_frequency throttling), as "
            "robot_state_publisher; /tf keeps the message's stamp.", boolean))
        self.declare_parameter("allow_file_access", False, _descriptor(
            "Let ~/convert_model read the files a model refers to (SDF includes, SKEL meshes); off, a "
            "request reads no file at all and its errors say nothing about the machine's files.", boolean))

        # The library logs each loader warning once; here it goes to the node's logger only.
        self._log_handler = _NodeLogHandler(self.get_logger())
        _LIBRARY_LOG.addHandler(self._log_handler)
        _LIBRARY_LOG.propagate = False

        # What is served now, and where it came from: ("file", path) or ("text", description).
        # Invariant: the model_file parameter names the served file, or is "" and robot_description
        # holds the served text (when a file is served, robot_description mirrors its text: the file's, not a
        # reduction of it, so that clearing model_file and then reduced_joints gives the whole model back).
        self._served: ServedModel | None = None
        self._source: tuple[str, str] | None = None
        # A model validated by _on_set_parameters, swapped in by _after_set_parameters.
        self._pending: tuple[ServedModel, tuple[str, str]] | None = None
        # True while the node itself writes robot_description (the mirror): no reload for that.
        self._mirroring = False
        self._from_topic = bool(self.get_parameter("description_from_topic").value or
                                self.get_parameter("use_robot_description_topic").value)
        self._read_rate_params()

        self._pub_description = None if self._from_topic else self.create_publisher(
            String, "robot_description", LATCHED)
        self._pub_sensors = self.create_publisher(SensorList, "robot_sensors", LATCHED)
        self._pub_static = self.create_publisher(TFMessage, "/tf_static", LATCHED)
        self._pub_tf = self.create_publisher(TFMessage, "/tf", TF_QOS)
        self._service_group = ReentrantCallbackGroup()
        self._model_lock = threading.Lock()  # one rebuild at a time (parameters vs description topic)
        # joint_states -> /tf runs on a thread of its own (see joint_state_tap), unless this rclpy
        # cannot do that or IDYNTREE_MODELS_TF_PATH=executor asks for the executor (bench_ros.py).
        self._js_decoder = JointStateDecoder()
        self._tap = None
        if os.environ.get("IDYNTREE_MODELS_TF_PATH", "thread") != "executor":
            self._tap = JointStateTap.create(self, JointState, "joint_states", JOINT_STATES_QOS,
                                             self._on_joint_state_raw)
            sys.setswitchinterval(0.001)  # a conversion holding the GIL lets /tf in within ~1 ms
        if self._tap is None:
            # on the executor, joint_states -> /tf has a callback group of its own, so that conversions
            # and model rebuilds (services, parameters, the description topic: other groups, other
            # threads of a multi-threaded executor) never hold it up; the model swap is one reference
            # assignment, read once per message
            self.create_subscription(JointState, "joint_states", self._on_joint_state, JOINT_STATES_QOS,
                                     callback_group=MutuallyExclusiveCallbackGroup())
        if self._from_topic:
            self.create_subscription(String, "robot_description", self._on_description_topic, LATCHED,
                                     callback_group=MutuallyExclusiveCallbackGroup())
        self.create_service(ConvertModel, "~/convert_model", self._on_convert, qos_profile=SERVICE_QOS,
                            callback_group=self._service_group)
        self.create_service(GetModel, "~/get_model", self._on_get_model, qos_profile=SERVICE_QOS,
                            callback_group=self._service_group)
        self.add_on_set_parameters_callback(self._on_set_parameters)
        self.add_post_set_parameters_callback(self._after_set_parameters)

        if self._from_topic:
            self.get_logger().info("waiting for the model on the robot_description topic")
            return
        model_file = str(self.get_parameter("model_file").value)
        description = str(self.get_parameter("robot_description").value)
        if model_file:
            if description:
                self.get_logger().warning("both model_file and robot_description are set: using model_file")
            source = ("file", model_file)
        elif description:
            source = ("text", description)
        else:
            raise ModelError("no model: set the model_file or robot_description parameter, "
                             "or description_from_topic:=true")
        self._apply(self._build(source), source)

    def destroy_node(self) -> None:
        if self._tap is not None:
            self._tap.destroy()
            self._tap = None
        _LIBRARY_LOG.removeHandler(self._log_handler)
        if not _LIBRARY_LOG.handlers:
            _LIBRARY_LOG.propagate = True
        super().destroy_node()

    # -- loading ------------------------------------------------------------------------
    def _options(self, overrides: dict | None = None) -> dict:
        values = {name: self.get_parameter(name).value for name in _OPTION_PARAMS}
        values.update({k: v for k, v in (overrides or {}).items() if k in _OPTION_PARAMS})
        out = {name: bool(values[name]) for name in _OPTION_PARAMS if name != "xacro_args"}
        out["xacro_args"] = _xacro_args(str(values["xacro_args"] or ""))
        for name in _CHOICE_PARAMS:
            out[name] = str((overrides or {}).get(name, self.get_parameter(name).value))
        return out

    def _build(self, source: tuple[str, str], overrides: dict | None = None) -> ServedModel:
        """Load and prepare a model; raises ModelError with the reason when it is not usable."""
        kind, value = source
        opts = self._options(overrides)
        prefix = check_frame_prefix(str((overrides or {}).get("frame_prefix",
                                                                self.get_parameter("frame_prefix").value)))
        try:
            if kind == "file":
                path = str(Path(value).expanduser())
                model, text, fmt = load_description(path, **opts)  # xacro: text is the expanded URDF
            else:
                if not value.strip():
                    raise ModelError("the model is empty")
                # text from a parameter or topic is never run through xacro (its $(eval) runs Python)
                try:
                    model, _, fmt = load_description(value.encode("utf-8"), allow_xacro=False, **opts)
                except XacroNotAllowed as e:
                    raise ModelError(f"{e.message}, or give the .xacro file as model_file (with xacro_args)",
                                     source=e.source) from None
                text = value
            source_text = text
            keep = _joint_list((overrides or {}).get("reduced_joints", self.get_parameter("reduced_joints").value))
            if keep:  # the served description is the reduced model, so consumers see only the kept joints
                model = reduce(model, keep, strict=opts["strict"])  # its warnings are logged, like the loader's
                text, fmt = export_model(model, "urdf"), get_format("urdf")
            # (loader warnings were logged already)
            return ServedModel(model, text, fmt.name, prefix, source_text=source_text)
        except ModelError:
            raise
        except Exception as e:  # a library bug must not take the node down: report it as the reason
            self.get_logger().debug(f"internal error while loading: {e!r}")
            raise ModelError(f"internal error while loading the model: {type(e).__name__}: {e}") from e

    def _apply(self, served: ServedModel, source: tuple[str, str]) -> None:
        """Make `served` the current model and republish everything latched about it."""
        self._served = served
        self._source = source
        if source[0] == "file" and str(self.get_parameter("robot_description").value) != served.source_text:
            self._mirror_description(served.source_text)
        log = self.get_logger()
        for w in served.warnings:  # the node's own (sensor frame names); the loader's are logged
            log.warning(w)
        where = source[1] if source[0] == "file" else f"{served.format} description"
        log.info(f"serving {served.model.summary()} from {where}; {len(served.static_frames)} static frames")
        stamp = self.get_clock().now().to_msg()
        self._pub_static.publish(served.static_message(stamp))
        self._pub_sensors.publish(served.sensor_message(stamp))
        # What is alive now (libraries, the model) stays alive: move it out of the collector's sight,
        # so a full collection, which would otherwise walk it all, cannot stall /tf for milliseconds.
        gc.collect()
        gc.freeze()
        if self._pub_description is not None:
            text = self._urdf_description(served)
            if text is not None:
                self._pub_description.publish(String(data=text))

    def _urdf_description(self, served: ServedModel) -> str | None:
        """What robot_description consumers (RViz, joint_state_publisher) can read: URDF.

        A URDF without spherical joints is published as given, keeping what our model does not
        hold (transmissions, ros2_control and gazebo tags); anything else is exported, so spherical
        joints appear as the three revolutes that joint_states may name.
        """
        spherical = any(j.type is JointType.SPHERICAL for j in served.model.joints.values())
        if served.format == "urdf" and not spherical:
            return served.text
        try:
            return export_model(served.model, "urdf")
        except ModelError as e:
            if served.format == "urdf":
                self.get_logger().warning(f"cannot export the model to URDF ({e}); publishing it as given")
                return served.text
            self.get_logger().warning(f"cannot export the model to URDF ({e}); robot_description not published")
            return None

    def _mirror_description(self, text: str) -> None:
        """robot_description shows the served file's text, as `ros2 param get` users expect."""
        self._mirroring = True
        try:
            self.set_parameters([Parameter("robot_description", Parameter.Type.STRING, text)])
        finally:
            self._mirroring = False

    # -- parameters -----------------------------------------------------------------------
    def _read_rate_params(self) -> None:
        freq = float(self.get_parameter("publish_frequency").value)
        self._min_interval = 1.0 / freq if freq > 0 else 0.0
        self._ignore_timestamp = bool(self.get_parameter("ignore_timestamp").value)

    def _on_set_parameters(self, params) -> SetParametersResult:
        """Validate: a new model (or new options) is loaded here and only applied if it loads.

        Precedence, as at start-up: a non-empty model_file is served; robot_description is served
        only while model_file is "". Setting robot_description alone while a file is served is
        refused (it would not be what is served); set model_file to "" in the same call, or first
        (which keeps serving the same model, from its text in robot_description).
        """
        self._pending = None
        if self._mirroring:
            return SetParametersResult(successful=True)
        changed = {p.name: p.value for p in params}
        if not any(name in changed for name in _SOURCE_PARAMS):
            return SetParametersResult(successful=True)
        if self._from_topic:
            return self._on_set_parameters_from_topic(changed)
        model_file = str(changed.get("model_file", self.get_parameter("model_file").value))
        description = changed.get("robot_description", self.get_parameter("robot_description").value)
        if model_file:
            if "robot_description" in changed and "model_file" not in changed:
                return SetParametersResult(successful=False, reason=(
                    f"model_file '{model_file}' is set and takes precedence over robot_description: set "
                    "model_file to '' (in the same call, or first) to serve a description"))
            source = ("file", model_file)
        else:
            if not isinstance(description, str) or not description.strip():
                what = "model_file cleared but robot_description" if "model_file" in changed else \
                    "robot_description"
                return SetParametersResult(successful=False, reason=f"{what} is empty: no model to serve")
            source = ("text", description)
        served = self._served
        options_changed = any(name in changed for name in _OPTION_PARAMS + _CHOICE_PARAMS + ("frame_prefix",
                                                                                              "reduced_joints"))
        if served is not None and not options_changed and source[0] == "text" and description == served.source_text:
            # model_file cleared: the same model goes on, now from its text (no reload, which
            # could fail for a file whose relative includes only resolve next to it)
            self._pending = (served, source)
            return SetParametersResult(successful=True)
        return self._load_pending(source, changed)

    def _load_pending(self, source: tuple[str, str], changed: dict) -> SetParametersResult:
        """Load the model the new parameters ask for; applied by _after_set_parameters only if it loads."""
        try:
            with self._model_lock:
                served = self._build(source, changed)
        except ModelError as e:
            self.get_logger().error(f"model rejected: {e}")
            return SetParametersResult(successful=False, reason=str(e))
        self._pending = (served, source)
        return SetParametersResult(successful=True)

    def _on_set_parameters_from_topic(self, changed: dict) -> SetParametersResult:
        """The model comes from the topic: the source parameters are refused (robot_state_publisher does not
        even declare robot_description in this mode), and new options rebuild the model last received."""
        if "model_file" in changed or "robot_description" in changed:
            return SetParametersResult(successful=False, reason=(
                "the model comes from the robot_description topic (description_from_topic): publish the new "
                "model there; model_file and robot_description are not read in this mode"))
        if self._source is None:  # nothing received yet: the options apply to the first model
            return SetParametersResult(successful=True)
        return self._load_pending(self._source, changed)  # (the text received: served.text may be a reduction)

    def _after_set_parameters(self, params) -> None:
        self._read_rate_params()
        if self._pending is not None:
            served, source = self._pending
            self._pending = None
            if served is self._served:
                self._source = source
            else:
                self._apply(served, source)

    def _on_description_topic(self, msg: String) -> None:
        try:
            with self._model_lock:
                served = self._build(("text", msg.data))
        except ModelError as e:
            self.get_logger().error(f"model from the robot_description topic rejected: {e}")
            return
        self._apply(served, ("text", msg.data))

    # -- joint_states -> /tf ------------------------------------------------------------
    def _on_joint_state_raw(self, raw: bytes) -> None:
        # any participant of the domain may send anything: a message that cannot be read is dropped, and the
        # next one is read as usual (a truncated big-endian message used to stop /tf for good)
        try:
            decoded = self._js_decoder.decode(raw)
            if decoded is None:  # not plain little-endian CDR: the ordinary deserializer
                msg = deserialize_message(raw, JointState)
        except Exception as e:  # noqa: BLE001 - the decoders raise what the bytes make them raise
            self.get_logger().warning(f"joint_states: undecodable message ({e}); ignored", throttle_duration_sec=5.0)
            return
        if decoded is None:
            self._on_joint_state(msg)
            return
        self._joint_state_to_tf(*decoded)

    def _on_joint_state(self, msg: JointState) -> None:
        self._joint_state_to_tf(msg.header.stamp.sec, msg.header.stamp.nanosec, tuple(msg.name), msg.position)

    def _joint_state_to_tf(self, sec: int, nanosec: int, names: tuple[str, ...], positions) -> None:
        served = self._served
        if served is None:
            return
        if len(names) != len(positions):
            self.get_logger().warning(
                f"joint_states: {len(names)} names but {len(positions)} positions; message ignored",
                throttle_duration_sec=5.0)
            return
        plan = served.plan(names)
        if not len(plan.published):
            return
        t = sec + nanosec * 1e-9
        if self._min_interval > 0.0 and not self._ignore_timestamp:
            last = served.last_publish[plan.published]
            if t >= last.max() and t < last.min() + self._min_interval:
                if t == last.max():  # not advancing at all (unstamped messages: `ros2 topic pub`): /tf looks frozen
                    self.get_logger().warning(
                        f"joint_states: stamp {sec}.{nanosec:09d} does not advance past the last published one, so "
                        "these positions are not published (at most publish_frequency per second of stamps, as "
                        "robot_state_publisher): stamp each message with its own time (unstamped ones, or two "
                        "publishers sharing a stamp, stay put), or set ignore_timestamp", throttle_duration_sec=10.0)
                return  # too soon (a stamp older than the last publish means time went back: publish)
        try:
            values = served.transforms(plan, positions)
        except ModelError as e:
            self.get_logger().warning(f"joint_states: {e}; message ignored", throttle_duration_sec=5.0)
            return
        if plan.template is not None:
            self._pub_tf.publish(plan.template.serialize(sec, nanosec, values))
        else:
            self._pub_tf.publish(make_tf_message(plan.pairs, sec, nanosec, values))
        served.last_publish[plan.published] = t

    # -- services -------------------------------------------------------------------------
    def _on_convert(self, request, response):
        warnings: list[str] = []
        try:
            if not request.output_format.strip():
                raise ModelError(f"output_format is empty (known: {', '.join(FORMATS)})")
            response.model = convert(
                request.model.encode("utf-8"),  # bytes: the text itself, never read as a file path
                request.output_format.strip(),
                request.input_format.strip() or None,
                warnings=warnings,
                convert_three_revolute_joints_to_spherical=request.convert_three_revolute_joints_to_spherical,
                add_sensor_frames_as_additional_frames=request.add_sensor_frames_as_additional_frames,
                export_spherical_joints_as_three_revolute_joints=(
                    request.export_spherical_joints_as_three_revolute_joints),
                allow_xacro=False,  # text from any DDS participant: xacro's $(eval) would run it as Python
                strict=bool(self.get_parameter("strict").value),
                allow_file_access=bool(self.get_parameter("allow_file_access").value),
            )
            response.success = True
        except ModelError as e:
            response.success, response.message = False, str(e)
        except Exception as e:  # keep serving whatever a request contains
            response.success, response.message = False, f"internal error: {type(e).__name__}: {e}"
            self.get_logger().error(f"convert_model: {response.message}")
        response.warnings = warnings
        if not response.success:
            self.get_logger().warning(f"convert_model failed: {response.message}")
        return response

    def _on_get_model(self, request, response):
        served = self._served
        try:
            if served is None:
                raise ModelError("no model yet (waiting for the robot_description topic)")
            fmt = request.format.strip()
            if not fmt:
                response.model = served.text
            else:
                warnings: list[str] = []
                response.model = export_model(served.model, get_format(fmt).name, warnings=warnings)
                response.warnings = warnings
            response.success = True
        except ModelError as e:
            response.success, response.message = False, str(e)
        except Exception as e:
            response.success, response.message = False, f"internal error: {type(e).__name__}: {e}"
            self.get_logger().error(f"get_model: {response.message}")
        return response


def _joint_list(value) -> list[str]:
    """reduced_joints as names: a string array, or one string separated by commas or spaces."""
    if value is None:
        return []
    if isinstance(value, str):
        return value.replace(",", " ").split()
    return [str(v).strip() for v in value if str(v).strip()]


def _xacro_args(text: str) -> dict[str, str]:
    """'NAME:=VALUE NAME2:=VALUE2' (shell quoting allowed) as a dict; ModelError when malformed."""
    import shlex

    try:
        items = shlex.split(text)
    except ValueError as e:
        raise ModelError(f"xacro_args: {e}") from None
    out = {}
    for item in items:
        name, sep, value = item.partition(":=")
        if not sep or not name:
            raise ModelError(f"xacro_args: expected NAME:=VALUE, got '{item}'")
        out[name] = value
    return out


EXECUTORS = ("multi", "single", "events")


def _executor(kind: str | None = None):
    """The executor that spins the node (IDYNTREE_MODELS_EXECUTOR chooses, for bench/bench_ros.py).

    single (default): SingleThreadedExecutor; joint_states -> /tf runs on a thread of its own (joint_state_tap),
    so a conversion run by the executor does not hold it up. multi: rclpy's MultiThreadedExecutor; events:
    rclpy.experimental.EventsExecutor (measured in the README).
    """
    kind = kind or os.environ.get("IDYNTREE_MODELS_EXECUTOR", "single")
    if kind == "single":
        from rclpy.executors import SingleThreadedExecutor

        return SingleThreadedExecutor()
    if kind == "events":
        from rclpy.experimental import EventsExecutor

        return EventsExecutor()
    if kind != "multi":
        raise ValueError(f"IDYNTREE_MODELS_EXECUTOR={kind!r}: expected one of {', '.join(EXECUTORS)}")
    from rclpy.executors import MultiThreadedExecutor

    sys.setswitchinterval(0.001)
    return MultiThreadedExecutor(num_threads=3)


_SPIN_PERIOD = 0.1  # seconds: how soon a stop request is noticed while nothing else happens


def _launcher() -> tuple[int, str] | None:
    """The `ros2 launch` or `ros2 run` process that started this node (pid, verb), if one did.

    launch leaves the processes it started running when it is itself sent SIGTERM or SIGKILL on
    its own (launch_service.py: "using SIGTERM can result in orphaned processes"), and so does a
    killed `ros2 run`: an orphaned server goes on publishing its /tf_static and /tf next to the one
    started after it.  The node stops once that process is gone (its parent changes).  Started any
    other way (a shell, nohup, systemd, a test harness), it does not watch its parent.
    """
    ppid = os.getppid()
    try:
        with open(f"/proc/{ppid}/cmdline", "rb") as f:
            argv = f.read().split(b"\0")
    except OSError:  # no /proc: not Linux
        return None
    for i, arg in enumerate(argv[:4]):  # [python [-S]] .../ros2 VERB ...
        if os.path.basename(arg) == b"ros2":
            verb = argv[i + 1] if i + 1 < len(argv) else b""
            return (ppid, verb.decode()) if verb in (b"launch", b"run") else None
    return None


def main(args: list[str] | None = None) -> int:
    """Run the node until SIGINT/SIGTERM or the end of the `ros2 launch`/`ros2 run` that started it
    (exit 0), or a start-up error (exit 1).

    The node stops itself, in order, instead of leaving that to rclpy's signal handlers: those
    shut the context down from a signal-handling thread at any moment, under the joint_states
    thread's feet (rcl calls on a context being torn down ended in "terminate called without an
    active exception" in about one stop in four), and rclpy's handlers then pass the signal on to
    Python's, which raises KeyboardInterrupt wherever the main thread is. Here a signal only sets a
    flag (a second Ctrl-C during teardown does nothing), the executor spins in short turns that
    look at it, and teardown runs in one thread: executor, joint_states thread, node, context.
    """
    launcher = _launcher()  # before the model is built: the launcher may be gone by the end of it
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda signum, frame: stop.set())
    # Signals wait until everything is built; delivered on unblocking, they end the loop at once.
    # (Threads started meanwhile, DDS's and ours, inherit the mask, so signals go to this thread.)
    stop_signals = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    rclpy.init(args=args if args is not None else sys.argv, signal_handler_options=SignalHandlerOptions.NO)
    node = executor = None
    try:
        try:
            node = ModelServer()
        except ModelError as e:
            rclpy.logging.get_logger(NODE_NAME).fatal(f"cannot start: {e}")
            return 1
        executor = _executor()
        executor.add_node(node)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
        while not stop.is_set() and rclpy.ok():
            executor.spin_once(timeout_sec=_SPIN_PERIOD)
            if launcher is not None and os.getppid() != launcher[0]:
                node.get_logger().warning(f"'ros2 {launcher[1]}' (pid {launcher[0]}), which started this node, is "
                                          "gone without stopping it: stopping")
                break
    except ExternalShutdownException:
        pass
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, stop_signals)
        if executor is not None:
            executor.shutdown()
        if node is not None:
            node.destroy_node()  # stops the joint_states thread before the node's entities go
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
