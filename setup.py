"""Setup of the idyntree_models ament_python package."""

import os
from glob import glob

from setuptools import find_packages, setup

package_name = 'idyntree_models'


def data_package_files():
    """Return the demo model files under idyntree_models/data, relative to the package."""
    root = os.path.join(package_name, 'data')
    files = []
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            if name.endswith(('.urdf', '.sdf', '.skel', '.json', '.yaml', '.xml')):
                files.append(os.path.relpath(os.path.join(dirpath, name), package_name))
    return sorted(files)


setup(
    name=package_name,
    version='0.1.0',
    packages=find_packages(exclude=['test', 'test.*', 'bench', 'bench.*']),
    package_data={package_name: data_package_files()},
    include_package_data=False,
    data_files=[
        ('share/ament_index/resource_index/packages', ['resource/' + package_name]),
        ('share/' + package_name, ['package.xml']),
        ('share/' + package_name + '/launch', sorted(glob('launch/*.launch.py'))),
        ('share/' + package_name + '/config', sorted(glob('config/*.yaml'))),
    ],
    python_requires='>=3.10',
    install_requires=['numpy', 'lxml', 'xacro'],
    extras_require={'test': ['pytest', 'pyyaml']},
    zip_safe=False,
    maintainer='idyntree_models maintainers',
    maintainer_email='maintainers@idyntree-models.dev',
    description='Robot model conversion (URDF, SDFormat, DART skel) with iDynTree, and ROS 2 '
                'nodes serving a model, its sensors and its frames.',
    license='BSD-3-Clause',
    entry_points={
        'console_scripts': [
            'idyntree-model-convert = idyntree_models.cli:main',
            'idyntree-model-info = idyntree_models.info_cli:main',
            'model_server = idyntree_models.ros.model_server:main',
            'example_estimator = idyntree_models.ros.example_estimator:main',
        ],
    },
)
