"""The same model is written the same way by every process.

Python salts the hash of strings per process, so an exporter that walks a set writes its elements in
an order that changes from run to run: converting one file twice gave two different SDF files (the
nested models of a scoped SDF model came out in either order).  Every corpus file is exported to
every format in two processes with different hash seeds, and each output (and its warnings) must be
byte for byte the same; the seeds are ones under which the set order did differ.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from conftest import REPO, corpus_files

_EXPORT_ALL = r"""
import hashlib, json, logging, sys
logging.disable(logging.WARNING)
from idyntree_models import export_model, load_model
from idyntree_models.errors import ModelError
from idyntree_models.formats import FORMATS
digests = {}
for path in sys.argv[1:]:
    warnings = []
    try:
        model = load_model(path, warnings=warnings)
    except ModelError as e:
        digests[path] = "refused: " + str(e)
        continue
    digests[path] = "\n".join(warnings)
    for fmt, spec in FORMATS.items():
        if not spec.can_dump:
            continue
        out = []
        try:
            text = export_model(model, fmt, warnings=out)
        except ModelError as e:
            text = "refused: " + str(e)
        digests[f"{path} -> {fmt}"] = hashlib.sha256((text + "\n" + "\n".join(out)).encode()).hexdigest()
print(json.dumps(digests))
"""


def _digests(files: list[str], seed: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONHASHSEED=seed, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", _EXPORT_ALL, *files], capture_output=True, text=True, env=env,
                          timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def test_every_export_is_the_same_in_processes_with_different_hash_seeds():
    files = [str(p) for sub, pattern in (("urdf", "*.urdf"), ("sdf", "*.sdf"), ("sdf", "*.world"), ("skel", "*.skel"),
                                         ("mjcf", "*.xml"))
             for p in corpus_files(sub, pattern)]
    assert any("include_custom_nested_model_expected_output" in f for f in files)  # the file that showed it
    first, second = _digests(files, "1"), _digests(files, "2")
    assert first.keys() == second.keys()
    differ = [k for k in first if first[k] != second[k]]
    assert not differ, f"{len(differ)} outputs depend on the process's hash seed: {differ[:5]}"
    assert sum(1 for k in first if " -> " in k) > 100  # the check covered the corpus, not a handful of files
