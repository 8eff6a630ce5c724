"""SDF load time for a large model: iCubGenova04 URDF converted to SDF by our exporter.

Prints our load time (median of several runs) and, when `ign` is installed, libsdformat's
`ign sdf -k` time on the same file for reference (that includes process start-up).
Usage: python bench/bench_sdf.py [URDF] [--repeat N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from idyntree_models.api import export_model, load_model  # noqa: E402

DEFAULT = REPO.parent / "shared" / "models" / "urdf" / "icub-models" / "iCubGenova04" / "model.urdf"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("urdf", nargs="?", default=str(DEFAULT))
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    model = load_model(args.urdf)
    text = export_model(model, "sdf")
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "model.sdf"
        path.write_text(text)
        times = []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            m = load_model(path)
            times.append(time.perf_counter() - t0)
        print(f"model: {m.summary()}")
        print(f"SDF size: {len(text) / 1024:.0f} KiB")
        print(f"idyntree_models SDF load: median {statistics.median(times) * 1000:.1f} ms, "
              f"min {min(times) * 1000:.1f} ms over {args.repeat} runs")
        if shutil.which("ign"):
            ref = []
            for _ in range(3):
                t0 = time.perf_counter()
                subprocess.run(["ign", "sdf", "-k", str(path)], capture_output=True, check=False)
                ref.append(time.perf_counter() - t0)
            print(f"libsdformat `ign sdf -k` (incl. process start): median {statistics.median(ref) * 1000:.1f} ms")
        else:
            print("ign not installed: no libsdformat reference time")


if __name__ == "__main__":
    main()
