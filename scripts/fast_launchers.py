"""Write the venv's launchers of the commands that need no ROS library, so they start fast.

Why: a console script written by pip starts the venv's interpreter normally, and `site` then runs
every .pth file of site-packages. One of them, the ROS wheels' bootstrapper, re-executes Python once
to set LD_LIBRARY_PATH for the ROS shared libraries; with the editable-install finder and the others
that doubles the interpreter's start-up. idyntree-model-convert and idyntree-model-info load no ROS
library, so their launchers start Python with -S (no site) and put site-packages and this source
tree on sys.path themselves, in the order site and the editable finder would (sources last).
Bytecode of the package is compiled here too, so the first run does not compile 30 modules.

    python scripts/fast_launchers.py --prefix .venv --source .
"""

from __future__ import annotations

import argparse
import compileall
import sys
import sysconfig
from pathlib import Path

from register_ament import ament_prefix_line  # (the script beside this one)

COMMANDS = {  # console script -> module:function, as in setup.py
    "idyntree-model-convert": "idyntree_models.cli:main",
    "idyntree-model-info": "idyntree_models.info_cli:main",
}
LAUNCHER = """#!{python} -S
# Written by scripts/fast_launchers.py (scripts/setup.sh): '{name}' without the interpreter's site
# set-up, whose ROS bootstrapper .pth would re-execute Python for libraries this command never loads.
# The cyclic collector is off while numpy, lxml and the package are imported (it would scan their
# objects several times over, ~12 ms), and what they made is frozen out of its later scans.
import gc
import sys

gc.disable()
sys.path += {paths!r}
# what the venv's .pth does at a normal start (scripts/register_ament.py): $(find pkg) and package:// see the venv
{ament}
from {module} import {attr}  # noqa: E402

gc.freeze()
gc.enable()
sys.exit({attr}())
"""


def write_launchers(prefix: Path, source: Path) -> list[str]:
    site = sysconfig.get_paths(vars={"base": str(prefix), "platbase": str(prefix)})["purelib"]
    python = prefix / "bin" / "python"  # the venv's interpreter (resolving it would leave the venv)
    written = []
    for name, target in COMMANDS.items():
        module, _, attr = target.partition(":")
        text = LAUNCHER.format(python=python, name=name, paths=[site, str(source)], ament=ament_prefix_line(repr(str(prefix))),
                               module=module, attr=attr)
        path = prefix / "bin" / name
        if not (path.is_file() and path.read_text() == text):
            path.write_text(text)
        path.chmod(0o755)
        written.append(name)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prefix", type=Path, required=True, help="the venv")
    parser.add_argument("--source", type=Path, required=True, help="the repository root (editable install)")
    args = parser.parse_args()
    prefix, source = args.prefix.resolve(), args.source.resolve()
    names = write_launchers(prefix, source)
    ok = compileall.compile_dir(source / "idyntree_models", quiet=1)
    print(f"fast launchers: {', '.join(names)}; bytecode compiled: {'yes' if ok else 'with errors'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
