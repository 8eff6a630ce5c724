"""Start model_server on a model file (any format) or a description string.

    ros2 launch idyntree_models model_server.launch.py model_file:=/path/robot.sdf
    ros2 launch idyntree_models model_server.launch.py \
        robot_description:="$(xacro robot.urdf.xacro)" frame_prefix:=r1/
    ros2 launch idyntree_models model_server.launch.py config:=my_params.yaml

Parameters come from the config file (default: the package's config/model_server.yaml); a launch
argument overrides the file only when it is given on the command line (or by an including launch
file). An argument that is not given passes nothing, so the file's value stays.
"""

import os

from launch.actions import DeclareLaunchArgument, OpaqueFunction
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription

# (name, type of the node parameter, description); the defaults live in the config file.
PARAMETERS = [
    ('model_file', str, 'Model file in any supported format (URDF, xacro, SDFormat, iDynTree JSON, skel); '
                        'wins over robot_description.'),
    ('robot_description', str, 'Model text (served when model_file is empty).'),
    ('description_from_topic', bool, 'Take the model from the robot_description topic instead.'),
    ('use_robot_description_topic', bool, "robot_state_publisher's name for description_from_topic."),
    ('convert_three_revolute_joints_to_spherical', bool,
     'Merge three revolute joints with intersecting axes into spherical joints.'),
    ('add_sensor_frames_as_additional_frames', bool, 'Add one frame per sensor.'),
    ('strict', bool, 'Refuse a model that loads only with warnings.'),
    ('xacro_args', str, 'Arguments of a xacro model_file: "NAME:=VALUE NAME2:=VALUE2".'),
    ('reduced_joints', str, 'Serve a reduced model keeping only these joints (names separated by commas).'),
    ('free_bodies', str, 'SDFormat links joined to no joint: "chain" (six 1-DOF joints) or "error".'),
    ('allow_file_access', bool, 'Let ~/convert_model read files a requested model refers to.'),
    ('publish_frequency', float, 'Maximum /tf rate per joint in Hz; 0 = every joint_states message.'),
    ('frame_prefix', str, 'Prefix of every published TF frame.'),
    ('ignore_timestamp', bool, 'Publish every joint_states message, unthrottled (stamps kept).'),
]
_GIVEN = '_idyntree_models_given_arguments'  # launch-context local: names given by the user


def _remember_given(context):
    # Runs before the DeclareLaunchArgument actions fill in their defaults: what is in the launch
    # configurations now was given on the command line or by an including launch file.
    context.extend_locals({_GIVEN: frozenset(context.launch_configurations)})
    return []


def _node(context):
    config = LaunchConfiguration('config').perform(context)
    if not os.path.isfile(config):  # launch_ros would only warn and start the node on built-in defaults
        raise RuntimeError(f"config:={config}: no such parameter file")
    given = context.get_locals_as_dict().get(_GIVEN, frozenset())
    overrides = {
        # typed explicitly: a description or a prefix must stay a string, never be read as YAML
        name: ParameterValue(LaunchConfiguration(name), value_type=kind)
        for name, kind, _ in PARAMETERS if name in given
    }
    parameters = [LaunchConfiguration('config')] + ([overrides] if overrides else [])
    return [Node(
        package='idyntree_models',
        executable='model_server',
        name=LaunchConfiguration('node_name'),
        namespace=LaunchConfiguration('namespace'),
        output='screen',
        parameters=parameters,
    )]


def generate_launch_description():
    declared = [DeclareLaunchArgument(name, default_value='', description=f'{text} Default: the config file.')
                for name, _, text in PARAMETERS]
    declared += [
        DeclareLaunchArgument('node_name', default_value='model_server',
                              description='Name of the node (its services are ~/convert_model, ~/get_model).'),
        DeclareLaunchArgument('namespace', default_value='',
                              description='Namespace of the node and of its relative topics.'),
        DeclareLaunchArgument(
            'config', default_value=PathJoinSubstitution([FindPackageShare('idyntree_models'), 'config',
                                                          'model_server.yaml']),
            description='Parameter file (ROS 2 params YAML) with the node parameters.'),
    ]
    return LaunchDescription([OpaqueFunction(function=_remember_given)] + declared
                             + [OpaqueFunction(function=_node)])
