"""Where the real robot models live, for every test.

The suite must pass on a clone of the repository alone, so the permissively licensed models it needs
are vendored under ``test/models`` (same layout as ``../shared/models``; see its README for licences).
When the project's shared corpus is present (``../shared/models``, or ``$IDYNTREE_MODELS_SHARED/models``),
its other files (icub-models, talos, tiago, ...) are added: corpus-wide tests run over the union, keyed by
the path relative to the corpus root, and a test about one shared-only file skips without it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "idyntree_models" / "data"
OVERFLOW = REPO / "test" / "data" / "overflow.urdf"  # finite numbers that overflow when combined (see the file)
VENDORED = REPO / "test" / "models"
MODELS = VENDORED  # the vendored corpus, always present
_shared_root = Path(os.environ.get("IDYNTREE_MODELS_SHARED", REPO.parent / "shared")).resolve()
SHARED_MODELS: Path | None = (_shared_root / "models") if (_shared_root / "models").is_dir() else None
ROOTS: tuple[Path, ...] = (VENDORED,) + ((SHARED_MODELS,) if SHARED_MODELS is not None else ())


def find_model(rel: str) -> Path | None:
    """The file at ``rel`` (relative to a corpus root), vendored first; None when no corpus has it."""
    for root in ROOTS:
        path = root / rel
        if path.exists():
            return path
    return None


def model_file(rel: str) -> Path:
    """The file at ``rel``, or skip the calling test with the reason when only ../shared has it."""
    path = find_model(rel)
    if path is None:
        pytest.skip(f"{rel} is not vendored (licence) and ../shared/models is not present")
    return path


def corpus_files(subdir: str, pattern: str) -> list[Path]:
    """Files matching ``pattern`` under ``subdir`` of every corpus root, one per relative path."""
    seen: dict[str, Path] = {}
    for root in ROOTS:
        base = root / subdir
        if not base.is_dir():
            continue
        for path in sorted(base.rglob(pattern)):
            seen.setdefault(str(path.relative_to(root)), path)
    return [seen[k] for k in sorted(seen)]


def rel_id(path: Path) -> str:
    """A test id for a corpus file: its path relative to the corpus root it came from."""
    for root in ROOTS:
        try:
            return str(path.relative_to(root))
        except ValueError:
            continue
    return str(path)


def urdf_files() -> list[Path]:
    return corpus_files("urdf", "*.urdf")


@pytest.fixture
def models_dir() -> Path:
    return MODELS
