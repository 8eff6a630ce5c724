"""SDF load time for a large model: iCubGenova04 URDF converted to SDF by our exporter.

Prints our load time (median of several runs) and, when `ign` is installed, libsdformat's
`ign sdf -k` time on the same file for reference (that includes process start-up).
Then a synthetic scaling case: a model with N nested models not joined to the base (N free
bodies, each joined by a six-joint chain) and a chain of N frames, loaded and written back.
Usage: python bench/bench_sdf.py [URDF] [--repeat N] [--free N]
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
    ap.add_argument("--free", type=int, default=2000, help="free nested models in the synthetic case")
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
    synthetic(args.free)


def synthetic(n: int) -> None:
    parts = ['<sdf version="1.9"><model name="big"><link name="base"/>']
    for i in range(n):
        parts.append(f'<model name="m{i}"><pose>{i} 0 0 0 0 0</pose><link name="a"/><link name="b"><pose>0 0 1 0 0 0'
                     '</pose></link><joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1'
                     '</xyz></axis></joint></model>')
    parts.append('<frame name="f0" attached_to="base"/>')
    parts += [f'<frame name="f{i}" attached_to="f{i - 1}"><pose>0 0 0.001 0 0 0</pose></frame>' for i in range(1, n)]
    text = "".join(parts) + "</model></sdf>"
    t0 = time.perf_counter()
    m = load_model(text, format="sdf")
    t1 = time.perf_counter()
    out = export_model(m, "sdf")
    t2 = time.perf_counter()
    print(f"synthetic: {n} free nested models + {n} chained frames ({len(text) / 1024:.0f} KiB): "
          f"{m.summary()}")
    print(f"  load {1000 * (t1 - t0):.0f} ms, export {1000 * (t2 - t1):.0f} ms ({len(out) / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
