"""ROS 2 layer: the model_server node, a client for estimators, and their helpers.

Nothing outside this subpackage imports it, so the library and the converter work without
rclpy; importing this package itself does not import rclpy either (the modules that need it do).
"""
