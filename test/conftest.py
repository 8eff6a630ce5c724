"""Shared fixtures: where the real robot models live, and small helpers to compare models."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("IDYNTREE_MODELS_SHARED", REPO.parent / "shared")).resolve()
MODELS = SHARED / "models"
DEMO = REPO / "idyntree_models" / "data"

if not MODELS.is_dir():
    raise RuntimeError(f"real test models not found at {MODELS}; set IDYNTREE_MODELS_SHARED to the shared/ folder")


def urdf_files() -> list[Path]:
    return sorted(p for p in (MODELS / "urdf").rglob("*.urdf"))


@pytest.fixture
def models_dir() -> Path:
    return MODELS
