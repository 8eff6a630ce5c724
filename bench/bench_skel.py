"""SKEL load time, ours vs dartpy's SkelParser.readWorld, on the largest SKEL files we have.

Both sides load every skeleton of the world (DART always does); each side is timed in its own
process (dartpy can crash on odd inputs), median over repetitions after one warm-up.

    python bench/bench_skel.py [--repeat N] [--files K]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
SKEL_DIR = REPO.parent / "shared" / "models" / "skel"

_DART_TIMER = r"""
import json, statistics, sys, time
import dartpy as d
path, repeat = sys.argv[1], int(sys.argv[2])
d.utils.SkelParser.readWorld(path)
times = []
for _ in range(repeat):
    t0 = time.perf_counter()
    w = d.utils.SkelParser.readWorld(path)
    times.append(time.perf_counter() - t0)
print(json.dumps({"median": statistics.median(times), "skeletons": w.getNumSkeletons()}))
"""


def ours(path: Path, repeat: int) -> tuple[float, int]:
    import logging

    from idyntree_models.api import load_model

    logging.getLogger("idyntree_models").setLevel(logging.ERROR)
    names = load_model(path).metadata["skel_skeletons"]

    def once() -> None:
        for name in names:
            load_model(path, skeleton=name)

    once()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        once()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), len(names)


def dart(path: Path, repeat: int) -> float | None:
    proc = subprocess.run(
        [sys.executable, "-c", _DART_TIMER, str(path), str(repeat)], check=False, capture_output=True, text=True
    )
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])["median"]
    except (IndexError, ValueError, KeyError):
        return None


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=30)
    p.add_argument("--files", type=int, default=6, help="how many of the largest files")
    args = p.parse_args()
    files = sorted(SKEL_DIR.rglob("*.skel"), key=lambda f: f.stat().st_size, reverse=True)[: args.files]
    print(f"SKEL load time, median of {args.repeat} (all skeletons of the world)")
    print(f"{'file':<40} {'KiB':>5} {'skel':>4} {'ours ms':>9} {'dartpy ms':>10} {'ratio':>6}")
    for f in files:
        t_ours, n = ours(f, args.repeat)
        t_dart = dart(f, args.repeat)
        d_txt = f"{t_dart * 1e3:10.2f}" if t_dart else f"{'n/a':>10}"
        ratio = f"{t_ours / t_dart:6.2f}" if t_dart else f"{'':>6}"
        name = str(f.relative_to(SKEL_DIR))
        print(f"{name:<40} {f.stat().st_size / 1024:5.1f} {n:>4} {t_ours * 1e3:9.2f} {d_txt} {ratio}")


if __name__ == "__main__":
    main()
