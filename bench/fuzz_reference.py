"""Differential fuzzing of the SDF and URDF readers against their references, libsdformat 12 and iDynTree.

    .venv/bin/python bench/fuzz_reference.py [CASES] [--format sdf|urdf|mjcf|skel] [--seed N] [--save DIR]

The mutations of test/fuzzing.py, applied to the corpus files the reference accepts, each read by both.
SDF: the 1.4-1.9 files (libsdformat 12 reads no newer) without <include>, whose relative URIs the two
resolve differently (docs/sdf.md), read by libsdformat through test/reference/sdformat_dump.cpp (compiled
as test_sdf.py compiles it) and compared by test_sdf.compare_with_libsdformat. URDF: the iDynTree wheel,
in a worker process that is started again when iDynTree crashes (it does, on an empty <box size>), compared
by links, base, joints and their types, additional frames and the world pose of every frame at zero.
MJCF: MuJoCo's compiler (PyPI mujoco), compared by every body's and site's pose at zero (mimic joints where
their equality puts them) relative to the base and every body's mass, as test_mjcf.py compares. SKEL: dartpy
in a worker process (started again when it crashes), compared by test_skel.compare_with_dart.
The invariant of bench/fuzz_report.py says our reader is safe; this one says it is right, as far as the
reference is: a file it refuses we refuse (or it is a documented difference), a file it reads we read to
the same model. Prints one table of the verdicts; the disagreements by kind go to stderr, and --save keeps
one input of each kind with what each reader said.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test"))

from idyntree_models.api import load_model  # noqa: E402
from idyntree_models.errors import ModelError  # noqa: E402
from idyntree_models.formats import sdf  # noqa: E402
from idyntree_models.formats.base import Diagnostics, LoadOptions  # noqa: E402

from common import message_kind, save_kinds, table  # noqa: E402
from fuzzing import Picker, mutate, seeds  # noqa: E402


def _compile() -> Path:
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "sdformat12"], capture_output=True, text=True)
    if flags.returncode != 0:
        sys.exit("libsdformat12 (libsdformat-dev) is not installed: nothing to compare with")
    import test_sdf

    test_sdf.BUILD.mkdir(parents=True, exist_ok=True)
    exe = test_sdf.BUILD / "sdformat_dump"
    if not exe.exists() or exe.stat().st_mtime < test_sdf.REF_SRC.stat().st_mtime:
        done = subprocess.run(["g++", "-std=c++17", "-O1", str(test_sdf.REF_SRC), *flags.stdout.split(), "-o", str(exe)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(done.stderr)
    return exe


def _version(text: str) -> tuple[int, int] | None:
    m = re.search(r"<sdf\s+version\s*=\s*[\"'](\d+)\.(\d+)", text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _mutated(corpus: list[tuple[str, str]], fmt: str, args, rng, pick, path: Path | None = None):
    """(seed name, mutated text) for each case, the text also written to `path` for a reader that wants a file."""
    for _ in range(args.cases):
        name, text = corpus[rng.randrange(len(corpus))]
        for _m in range(rng.randint(1, 3)):
            text = mutate(text, fmt, pick)
        if path is not None:
            path.write_text(text, encoding="utf-8", errors="surrogatepass")
        yield name, text


def _verdict(ref_reads: bool | None, error: str | None, compare) -> tuple[str, str]:
    """The verdict of one case and why: `ref_reads` None when the reference crashed, `error` our refusal,
    `compare()` how the two models differ ('' when they do not), asked only when both read."""
    if ref_reads is None:
        return "the reference crashes, " + ("ours refuses" if error else "ours reads"), error or ""
    if not ref_reads:
        return ("both refuse" if error else "the reference refuses, ours reads"), ""
    if error:
        return "the reference reads, ours refuses", error
    why = compare()
    return ("both read, differently" if why else "both read, the same"), why


def _sdf_cases(args, rng, pick, counts, kinds) -> int:
    import test_sdf

    exe = _compile()
    corpus = []
    for path in test_sdf._sdf_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        version = _version(text)
        if version is None or version > (1, 9) or "<include" in text or path.name in test_sdf.DIFFERENT:
            continue
        if test_sdf._ref(exe, path)["ok"]:
            corpus.append((path.name, text))
    def compare() -> str:
        try:
            test_sdf.compare_with_libsdformat(exe, path)
            return ""
        except AssertionError as e:
            return _first_line(e)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.sdf"
        for name, text in _mutated(corpus, "sdf", args, rng, pick, path):
            try:
                ref = test_sdf._ref(exe, path)
            except (ValueError, subprocess.TimeoutExpired):  # (a dump that is no JSON: libsdformat crashed)
                ref = None
            opts = LoadOptions(base_dir=tmp, search_paths=(str(test_sdf.MODEL_PATH),))
            try:
                graph = sdf.read_sdf(path.read_bytes(), opts, Diagnostics(str(path)))
                sdf.graph_to_model(graph, Diagnostics(str(path)))
                ours = None
            except ModelError as e:
                ours = str(e)
            reads = None if ref is None else bool(ref["ok"] and "model" in ref)
            verdict, why = _verdict(reads, ours, compare)
            if verdict == "the reference refuses, ours reads":
                why = " | ".join(ref.get("errors", []))[:300] or "no model"
            _count(counts, kinds, verdict, why, name, text, f"libsdformat: {ref and ref.get('errors')}\nours: {ours}\n{why}")
    return len(corpus)


_WORKER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import idyntree_oracle as oracle
for line in sys.stdin:
    text = open(line.strip(), encoding="utf-8", errors="surrogatepass").read()
    try:
        ref = oracle.load(text)
        world = oracle.world_transforms(ref, {})
        out = {"ok": True, "links": sorted(ref.links), "base": ref.base, "frames": ref.frames,
               "joints": {n: j["type"] for n, j in ref.joints.items()},
               "world": {n: t.ravel().tolist() for n, t in world.items()}}
    except RuntimeError as e:
        out = {"ok": False, "error": str(e)}
    print("@@JSON@@" + json.dumps(out), flush=True)
"""


HANG_S = 60.0  # a reference's answer to one case takes well under a second


class _IDynTree:
    """iDynTree in a worker process: it crashes on some inputs (a segmentation fault), which must not end the run."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None

    def ask(self, path: Path) -> dict | None:
        if self.proc is None or self.proc.poll() is not None:
            test_dir = str(Path(__file__).resolve().parents[1] / "test")
            self.proc = subprocess.Popen([sys.executable, "-c", _WORKER, test_dir], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                         errors="replace")  # (the library prints what it reads, any bytes)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        # a case the library never finishes (DART loops on a soft sphere of <num_slices>0) is counted as a crash:
        # the worker is killed after HANG_S, which ends the read below
        watchdog = threading.Timer(HANG_S, self.proc.kill)
        watchdog.start()
        try:
            self.proc.stdin.write(f"{path}\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
            while line and not line.startswith("@@JSON@@"):  # (what the library prints itself)
                line = self.proc.stdout.readline()
        except BrokenPipeError:  # (it crashed before reading the case)
            line = ""
        finally:
            watchdog.cancel()
        if not line:
            self.proc.wait(timeout=30)
            return None  # (it crashed on this case)
        return json.loads(line[len("@@JSON@@"):])

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            self.proc.wait(timeout=30)


def _urdf_difference(ours, ref: dict) -> str:
    """How our model differs from iDynTree's, or '' (the sensors' own frames aside: ours keeps more)."""
    import numpy as np

    from idyntree_models.model.kinematics import Kinematics

    if sorted(ours.links) != ref["links"]:
        return f"links differ: ours only {sorted(set(ours.links) - set(ref['links']))[:3]}, " \
               f"theirs only {sorted(set(ref['links']) - set(ours.links))[:3]}"
    if ours.default_base_link != ref["base"]:
        return f"base link: ours {ours.default_base_link}, theirs {ref['base']}"
    joints = {n: j.type.value for n, j in ours.joints.items()}
    if joints != ref["joints"]:
        diff = sorted(set(joints.items()) ^ set(ref["joints"].items()))[:3]
        return f"joints differ: {diff}"
    for name, parent in ref["frames"].items():
        frame = ours.frames.get(name)
        if frame is None or frame.parent_link != parent:
            return f"frame {name} on {parent}: ours {None if frame is None else frame.parent_link}"
    mine = Kinematics(ours).world_transforms({})
    for name, flat in ref["world"].items():
        t = np.array(flat).reshape(4, 4)
        tol = 1e-9 * max(1.0, float(np.abs(t).max()))
        if name in mine and not np.allclose(mine[name], t, rtol=0.0, atol=tol):
            return f"world pose of {name} at zero differs"
    return ""


def _urdf_cases(args, rng, pick, counts, kinds) -> int:
    worker = _IDynTree()
    corpus = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "case.urdf"
        for name, text in seeds("urdf"):
            path.write_text(text, encoding="utf-8")
            ref = worker.ask(path)
            if ref is not None and ref["ok"]:
                corpus.append((name, text))
        for name, text in _mutated(corpus, "urdf", args, rng, pick, path):
            ref = worker.ask(path)
            try:
                ours, error = load_model(text), None
            except ModelError as e:
                ours, error = None, str(e)
            verdict, why = _verdict(None if ref is None else ref["ok"], error, lambda: _urdf_difference(ours, ref))
            _count(counts, kinds, verdict, why, name, text, f"iDynTree: {ref and ref.get('error')}\nours: {error}\n{why}")
    worker.close()
    return len(corpus)


def _mjcf_difference(model, m) -> str:
    import mujoco
    import numpy as np

    from idyntree_models.model.kinematics import Kinematics
    from test_mjcf import _close, mj_poses

    from model_compare import random_configuration

    config = random_configuration(model, None)  # (zero, and mimic joints where their equality puts them)
    ours = Kinematics(model).world_transforms(config)
    bodies, sites = mj_poses(m, config, free_at_origin=model.default_base_link != "world")  # (a scene: as placed)
    base = bodies.get(model.default_base_link)
    if base is None:
        return f"base {model.default_base_link} is no MuJoCo body"
    for name, t in (bodies | sites).items():
        if name == "world" or not name:
            continue
        if name not in ours:
            return f"{name} is no link or frame of ours"
        want = np.linalg.inv(base) @ t
        if not _close(ours[name], want, 1e-9):
            return f"pose of {name} at zero differs"
    for b in range(1, m.nbody):
        name = mujoco.mj_id2name(m, mujoco.mjtObj.mjOBJ_BODY, b)
        link = model.links.get(name)
        if link is not None and abs(m.body_mass[b] - link.inertia.mass) > 1e-9 * max(1.0, link.inertia.mass):
            return f"mass of {name}: ours {link.inertia.mass}, MuJoCo {m.body_mass[b]}"
    return ""


def _mjcf_cases(args, rng, pick, counts, kinds) -> int:
    import mujoco

    corpus = seeds("mjcf")
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:  # (MuJoCo writes MUJOCO_LOG.TXT in the working folder)
        os.chdir(tmp)
        try:
            _mjcf_loop(args, rng, pick, counts, kinds, corpus, mujoco)
        finally:
            os.chdir(here)
    return len(corpus)


def _mjcf_loop(args, rng, pick, counts, kinds, corpus, mujoco) -> None:
    for name, text in _mutated(corpus, "mjcf", args, rng, pick):
        try:
            m, ref = mujoco.MjModel.from_xml_string(text), ""
        except Exception as e:  # noqa: BLE001 - MuJoCo's compiler raises ValueError, its XML reader others
            m, ref = None, _first_line(e) or type(e).__name__
        try:
            ours, error = load_model(text, format="mjcf"), None
        except ModelError as e:
            ours, error = None, str(e)
        verdict, why = _verdict(m is not None, error, lambda: _mjcf_difference(ours, m))
        if verdict == "the reference refuses, ours reads":
            why = ref
        _count(counts, kinds, verdict, why, name, text, f"MuJoCo: {ref}\nours: {error}\n{why}")


class _Dart(_IDynTree):
    """dartpy's reading of a SKEL file (test_skel's dump) in a worker process."""

    def ask(self, path: Path) -> dict | None:
        if self.proc is None or self.proc.poll() is not None:
            import test_skel

            dump = test_skel._DART_DUMP.split("try:\n    result")[0]
            loop = ("for line in sys.stdin:\n    try:\n        out = dump(line.strip())\n    except Exception as e:\n"
                    "        out = {'ok': False, 'error': str(e)}\n    print('@@JSON@@' + json.dumps(out), flush=True)\n")
            self.proc = subprocess.Popen([sys.executable, "-c", dump + loop], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                         errors="replace")  # (the library prints what it reads, any bytes)
        return super().ask(path)


def _skel_cases(args, rng, pick, counts, kinds) -> int:
    import test_skel

    worker = _Dart()
    corpus = seeds("skel")
    with tempfile.TemporaryDirectory() as tmp:
        # the case stands two folders down, beside links to the corpus's mesh folder where a seed's ../obj or
        # ../../obj finds it: DART crashes on a mesh it cannot find, so every case of a mesh seed was a crash
        obj = Path(__file__).resolve().parents[1] / "test" / "models" / "skel" / "obj"
        (Path(tmp) / "a" / "b").mkdir(parents=True)
        for at in (Path(tmp) / "obj", Path(tmp) / "a" / "obj"):
            at.symlink_to(obj, target_is_directory=True)
        path = Path(tmp) / "a" / "b" / "case.skel"
        for name, text in _mutated(corpus, "skel", args, rng, pick, path):
            ref = worker.ask(path)
            try:
                load_model(path, allow_include_outside=[str(r) for r in (*test_skel.ROOTS, Path(tmp))])
                error = None
            except ModelError as e:
                error = str(e)

            def compare() -> str:
                try:
                    test_skel.compare_with_dart(path, ref, (Path(tmp),))  # noqa: B023 - called at once, in this iteration
                    return ""
                except (AssertionError, ModelError) as e:  # (ModelError: a skeleton other than the first)
                    return _first_line(e)

            verdict, why = _verdict(None if ref is None else bool(ref["ok"] and ref["skeletons"]), error, compare)
            if verdict == "the reference refuses, ours reads":
                why = ref.get("error", "no skeleton")[:200]
            _count(counts, kinds, verdict, why, name, text, f"dartpy: {ref and ref.get('error')}\nours: {error}\n{why}")
    worker.close()
    return len(corpus)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0][:300] if text else "?"


def _count(counts: Counter, kinds: dict, verdict: str, why: str, seed: str, text: str, detail: str) -> None:
    counts[verdict] += 1
    if verdict not in ("both refuse", "both read, the same"):
        kinds.setdefault(f"{verdict}: {message_kind(why)}", [0, text, f"seed {seed}\n{detail}"])[0] += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cases", nargs="?", type=int, default=500)
    parser.add_argument("--format", choices=("sdf", "urdf", "mjcf", "skel"), default="sdf")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="directory for one input of each kind of disagreement")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    rng = random.Random(f"{args.seed}:{args.format}-reference")
    pick = Picker(rng.choice, rng.randint)
    counts: Counter = Counter()
    kinds: dict[str, list] = {}
    start = time.perf_counter()
    cases = {"sdf": _sdf_cases, "urdf": _urdf_cases, "mjcf": _mjcf_cases, "skel": _skel_cases}[args.format]
    n_seeds = cases(args, rng, pick, counts, kinds)
    seconds = time.perf_counter() - start
    print(table([[v, n] for v, n in counts.most_common()], ["verdict", "cases"]))
    print(f"\n{args.cases} {args.format} cases from {n_seeds} seed files in {seconds:.0f} s")
    ext = {"mjcf": "xml"}.get(args.format, args.format)
    save_kinds(args.save, kinds, lambda _: ext)
    return 0


if __name__ == "__main__":
    sys.exit(main())
