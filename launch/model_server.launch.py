"""Start model_server on a model file (any format) or a description string.

    ros2 launch idyntree_models model_server.launch.py model_file:=/path/robot.sdf
    ros2 launch idyntree_models model_server.launch.py \
        robot_description:="$(xacro robot.urdf.xacro)" frame_prefix:=r1/

Defaults come from config/model_server.yaml; the launch arguments override them.
"""

from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.parameter_descriptions import ParameterValue
from launch_ros.substitutions import FindPackageShare

from launch import LaunchDescription

ARGUMENTS = [
    ('model_file', '', 'Model file in any supported format (URDF, SDFormat, iDynTree JSON, skel).'),
    ('robot_description', '', 'Model text (used when model_file is empty).'),
    ('description_from_topic', 'false', 'Take the model from the robot_description topic instead.'),
    ('convert_three_revolute_joints_to_spherical', 'false',
     'Merge three revolute joints with intersecting axes into spherical joints.'),
    ('add_sensor_frames_as_additional_frames', 'true', 'Add one frame per sensor.'),
    ('publish_frequency', '20.0', 'Maximum /tf rate per joint in Hz; 0 = every joint_states message.'),
    ('frame_prefix', '', 'Prefix of every published TF frame.'),
    ('ignore_timestamp', 'false', 'Stamp /tf with the current time.'),
    ('node_name', 'model_server', 'Name of the node (its services are ~/convert_model, ~/get_model).'),
    ('namespace', '', 'Namespace of the node and of its relative topics.'),
    ('config', PathJoinSubstitution([FindPackageShare('idyntree_models'), 'config', 'model_server.yaml']),
     'Parameter file with the defaults.'),
]


def generate_launch_description():
    declared = [DeclareLaunchArgument(name, default_value=default, description=text)
                for name, default, text in ARGUMENTS]

    def value(name, value_type):
        # typed explicitly: a description or a prefix must stay a string, never be read as YAML
        return ParameterValue(LaunchConfiguration(name), value_type=value_type)

    overrides = {
        'model_file': value('model_file', str),
        'robot_description': value('robot_description', str),
        'description_from_topic': value('description_from_topic', bool),
        'convert_three_revolute_joints_to_spherical': value('convert_three_revolute_joints_to_spherical', bool),
        'add_sensor_frames_as_additional_frames': value('add_sensor_frames_as_additional_frames', bool),
        'publish_frequency': value('publish_frequency', float),
        'frame_prefix': value('frame_prefix', str),
        'ignore_timestamp': value('ignore_timestamp', bool),
    }
    node = Node(
        package='idyntree_models',
        executable='model_server',
        name=LaunchConfiguration('node_name'),
        namespace=LaunchConfiguration('namespace'),
        output='screen',
        parameters=[LaunchConfiguration('config'), overrides],
    )
    return LaunchDescription(declared + [node])
