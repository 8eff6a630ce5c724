"""URDF documents over XmlStream.WHOLE (8 MB) are read as a stream of top-level elements, smaller
ones parsed whole: both paths must give the same model, the same warnings and the same errors.

The threshold is lowered to 0 here so that every corpus file and every bad input also takes the
streaming path (the one a 100,000-link URDF takes) and is compared with the whole-document read.
"""

from __future__ import annotations

import pytest

from idyntree_models import ModelError, load_model
from idyntree_models.formats.xmlutil import XmlStream
from test_urdf_bad_input import CASES

from conftest import rel_id, urdf_files
from model_compare import assert_models_equal

FILES = [p for p in urdf_files() if "must_fail" not in p.name]


def _both(monkeypatch, text: str):
    out = []
    for whole in (XmlStream.WHOLE, 0):
        monkeypatch.setattr(XmlStream, "WHOLE", whole)
        warnings: list[str] = []
        try:
            out.append((load_model(text, "urdf", warnings=warnings), warnings, None))
        except ModelError as e:
            out.append((None, warnings, str(e)))
    return out


@pytest.mark.parametrize("path", FILES, ids=[rel_id(p) for p in FILES])
def test_streamed_and_whole_reads_agree_on_the_corpus(monkeypatch, path):
    (whole, w1, e1), (streamed, w2, e2) = _both(monkeypatch, path.read_text())
    assert e1 == e2
    assert w1 == w2
    if whole is not None:
        assert_models_equal(whole, streamed)
        assert whole.extensions == streamed.extensions


@pytest.mark.parametrize("name", list(CASES))
def test_streamed_and_whole_reads_refuse_alike(monkeypatch, name):
    text, _ = CASES[name]
    if name == "not a model":
        pytest.skip("not URDF")
    (_, _, e1), (_, _, e2) = _both(monkeypatch, text)
    assert e1 is not None and e1 == e2


def test_a_syntax_error_after_the_elements_is_found_by_both(monkeypatch):
    text = CASES["malformed"][0]
    good = ('<robot name="r">' + "".join(f'<link name="l{i}"/>' for i in range(200)) + "<oops></robot>")
    for doc in (text, good):
        (_, _, e1), (_, _, e2) = _both(monkeypatch, doc)
        assert e1 is not None and "malformed XML" in e1 and e1 == e2
