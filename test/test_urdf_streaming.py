"""URDF documents over XmlStream.WHOLE are read in pieces parsed by a worker thread (falling back to
libxml2's pull parser where a cut is no element boundary), smaller ones parsed whole: every path must
give the same model, the same warnings and the same errors.

The threshold is lowered to 0 here, with pieces of a few hundred characters, so that every corpus file
and every bad input also takes the piece path (the one a 100,000-link URDF takes) and the pull path,
and each is compared with the whole-document read.
"""

from __future__ import annotations

import pytest

from idyntree_models import ModelError, load_model
from idyntree_models.formats.xmlutil import XmlStream
from test_urdf_bad_input import CASES

from conftest import rel_id, urdf_files
from model_compare import assert_models_equal

FILES = [p for p in urdf_files() if "must_fail" not in p.name]


MODES = {"whole": (XmlStream.WHOLE, True), "pieces": (0, True), "pull": (0, False)}


def _read(monkeypatch, text: str, mode: str, piece: int = 300):
    whole, pieces = MODES[mode]
    monkeypatch.setattr(XmlStream, "WHOLE", whole)
    monkeypatch.setattr(XmlStream, "PIECES", pieces)
    monkeypatch.setattr(XmlStream, "PIECE", piece)
    warnings: list[str] = []
    try:
        return load_model(text, "urdf", warnings=warnings), warnings, None
    except ModelError as e:
        return None, warnings, str(e)


def _all(monkeypatch, text: str, piece: int = 300):
    return [_read(monkeypatch, text, mode, piece) for mode in MODES]


def _assert_alike(results) -> None:
    (whole, w1, e1) = results[0]
    for model, w, e in results[1:]:
        assert e == e1
        assert w == w1
        if whole is not None:
            assert_models_equal(whole, model)
            assert whole.extensions == model.extensions
            assert whole.metadata["lines"] == model.metadata["lines"]  # where later errors point


@pytest.mark.parametrize("path", FILES, ids=[rel_id(p) for p in FILES])
def test_piece_pull_and_whole_reads_agree_on_the_corpus(monkeypatch, path):
    _assert_alike(_all(monkeypatch, path.read_text()))


def test_piece_pull_and_whole_reads_keep_the_same_unread_attributes(monkeypatch):
    from test_urdf_roundtrip_document import ODD_DOC

    results = _all(monkeypatch, ODD_DOC, piece=120)
    # one per element: 4 in each of the 4 inertials, 29 elsewhere (k=5..27, robot, link a, the joint, its limit,
    # dynamics and mimic)
    assert sum(e.attributes for e in results[0][0].extensions) == 4 * 4 + 29
    _assert_alike(results)


@pytest.mark.parametrize("name", list(CASES))
def test_piece_pull_and_whole_reads_refuse_alike(monkeypatch, name):
    text, _ = CASES[name]
    if name == "not a model":
        pytest.skip("not URDF")
    results = _all(monkeypatch, text)
    assert results[0][2] is not None
    _assert_alike(results)


def test_a_syntax_error_after_the_elements_is_found_by_all(monkeypatch):
    text = CASES["malformed"][0]
    good = ('<robot name="r">' + "".join(f'<link name="l{i}"/>' for i in range(200)) + "<oops></robot>")
    for doc in (text, good):
        results = _all(monkeypatch, doc)
        assert results[0][2] is not None and "malformed XML" in results[0][2]
        _assert_alike(results)


def _chain(n: int, between: str = "\n") -> list[str]:
    parts = [f'<link name="l{i}"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" '
             f'iyz="0"/></inertial></link>' for i in range(n)]
    parts += [f'<joint name="j{i}" type="revolute"><parent link="l{i - 1}"/><child link="l{i}"/>'
              '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>' for i in range(1, n)]
    return [p + between for p in parts]


# where a text search for "<link" or "<joint" finds no element boundary: the piece before the cut
# does not parse and the rest is read in order
TRAPS = {
    "comment": '<!-- <link name="ghost"/> and <joint name="ghost">\n -->\n',
    "cdata": '<gazebo><![CDATA[ <link name="ghost"/> <joint name="g"> ]]></gazebo>\n',
    "nested": '<gazebo reference="l1"><link name="inner"><pose>0 0 0 0 0 0</pose></link>\n'
              '<joint name="inner_j" type="fixed"/></gazebo>\n',
    "namespaced": '<gz:plugin xmlns:gz="http://gazebosim.org"><link name="x"/></gz:plugin>\n',
    "pi and text": '<?target <link name="pi"?>\nsome text\n',
}


@pytest.mark.parametrize("trap", list(TRAPS))
@pytest.mark.parametrize("where", [0, 7, 30, 58])
def test_cuts_that_are_no_boundary_fall_back_in_order(monkeypatch, trap, where):
    parts = _chain(30)
    parts.insert(where, TRAPS[trap])
    text = '<?xml version="1.0"?>\n<!-- a robot -->\n<robot name="r"\n  xmlns:xacro="http://ros.org/wiki/xacro">\n' \
        + "".join(parts) + "</robot>\n<!-- the end -->\n"
    for piece in (1, 150, 700, 5000):
        results = _all(monkeypatch, text, piece)
        assert results[0][2] is None, results[0][2]
        _assert_alike(results)


@pytest.mark.parametrize("bad", ['<link name="a">', "<link name='x'/><oops>", "</robot><robot>", "&bogus;",
                                 '<link name="q" a="1" a="2"/>', '<x:y/>'])
@pytest.mark.parametrize("where", [0, 20, 58])
def test_errors_in_any_piece_are_the_whole_reads(monkeypatch, bad, where):
    parts = _chain(30)
    parts.insert(where, bad + "\n")
    text = '<robot name="r">\n' + "".join(parts) + "</robot>\n"
    for piece in (1, 400):
        whole, pieces, pull = _all(monkeypatch, text, piece)
        assert whole[2] is not None
        _assert_alike([whole, pieces])
        # the pull parser (bytes documents, cuts that are no boundary) refuses too, but reports an
        # undefined entity only at the end, as "no element found"
        assert pull[2] is not None and (pull[2] == whole[2] or bad == "&bogus;")


@pytest.mark.parametrize("outline", ['<!DOCTYPE robot' + " " * 5000 + 'SYSTEM "a[b">\n<robot name="r">\n</robot>',
                                     '<robot name="r"/>', '<robot name="r">', "<robot name='r'>\n</robot>\n</robot>",
                                     '<robot name="r">\n</robot><!-- </robot> -->', "<robot name=r>\n</robot>",
                                     '<!DOCTYPE robot>\n<robot name="r">\n</robot>', "<robot>\n</robotx>"])
def test_unusual_outlines(monkeypatch, outline):
    head, _, tail = outline.partition(">\n")
    text = head + ">\n" + "".join(_chain(5)) + tail if tail or outline.endswith(">\n") else outline
    _assert_alike(_all(monkeypatch, text))


def test_pieces_are_parsed_in_a_worker_thread(monkeypatch):
    """The point of the pieces: libxml2 parses them off the main thread (it releases the GIL)."""
    import threading

    from idyntree_models.formats import xmlutil

    threads = set()
    parse = xmlutil._Pieces.parse

    def spy(self, k):
        threads.add(threading.current_thread().name)
        return parse(self, k)

    monkeypatch.setattr(xmlutil._Pieces, "parse", spy)
    model, _, error = _read(monkeypatch, '<robot name="r">\n' + "".join(_chain(40)) + "</robot>", "pieces")
    assert error is None and len(model.links) == 40
    assert threads and all(name.startswith("xml-piece") for name in threads)


@pytest.mark.parametrize("case", ["attribute default", "xml:id", "many lines"])
def test_documents_the_pieces_cannot_hold_are_read_in_order(monkeypatch, case):
    """A DOCTYPE's attribute defaults apply to every element, xml:id values must be unique across the
    document, and a document of very many lines would need as many blank lines before each piece:
    such documents go to the pull parser, and read as they do whole."""
    from idyntree_models.formats import xmlutil

    parts = _chain(30)
    head = '<robot name="r">\n'
    if case == "attribute default":  # a joint without type="...": the DTD gives it
        head = '<!DOCTYPE robot [<!ATTLIST joint type CDATA "fixed">]>\n' + head
        parts.append('<joint name="extra"><parent link="l0"/><child link="x"/></joint><link name="x"/>\n')
    elif case == "xml:id":
        parts[3] = parts[3].replace("<link ", '<link xml:id="dup" ', 1)
        parts[25] = parts[25].replace("<link ", '<link xml:id="dup" ', 1)
    else:
        monkeypatch.setattr(xmlutil._Pieces, "BLANK_PER_CHAR", 0)
    text = head + "".join(parts) + "</robot>\n"
    cut = []
    monkeypatch.setattr(xmlutil._Pieces, "parse", lambda *a: cut.append(1))  # no piece is ever parsed
    whole, pieces, pull = _all(monkeypatch, text, 200)
    assert not cut
    _assert_alike([whole, pieces, pull])
    assert (whole[2] is not None) == (case == "xml:id")


def test_a_pretty_printed_document_is_still_cut(monkeypatch):
    """Pieces are at least half as long as the document has lines, so a file of one tag per line keeps
    its blank-line prefixes under its length and is read in pieces."""
    from idyntree_models.formats import xmlutil

    text = '<robot name="r">\n' + "".join(_chain(40)).replace("><", ">\n\n\n<") + "</robot>\n"
    parsed = []
    parse = xmlutil._Pieces.parse
    monkeypatch.setattr(xmlutil._Pieces, "parse", lambda self, k: parsed.append(k) or parse(self, k))
    results = _all(monkeypatch, text, 1)  # pieces of one character would need 4x the document in blank lines
    assert len(parsed) > 3
    _assert_alike(results)


def test_a_streamed_document_is_read_once(monkeypatch):
    monkeypatch.setattr(XmlStream, "WHOLE", 0)
    text = '<robot name="r">\n' + "".join(_chain(5)) + "</robot>\n"
    for pieces in (True, False):
        monkeypatch.setattr(XmlStream, "PIECES", pieces)
        stream = XmlStream(text, "r.urdf", tags=("link", "joint"))
        assert len(list(stream)) == 9
        with pytest.raises(RuntimeError, match="read once"):
            list(stream)


def test_mutated_corpus_reads_the_same_in_pieces(monkeypatch):
    """Differential fuzzing of the readers of large documents: mutated corpus URDFs (the fuzzer's mutations)
    read whole, in pieces of a drawn size and by the pull parser.  Where the whole read gives a model or
    an error of the model, the others give the same; where it finds malformed XML, they refuse too (a
    stream may meet a model error in an element before the syntax error, and the pull parser words some
    syntax errors differently)."""
    import logging
    import os

    from hypothesis import HealthCheck, given, note, settings
    from hypothesis import strategies as st

    from fuzzing import Picker, mutate, seeds

    corpus = seeds("urdf")
    examples = int(os.environ.get("IDYNTREE_FUZZ_EXAMPLES", "300"))

    @settings(max_examples=examples, deadline=None, database=None, derandomize=not os.environ.get("IDYNTREE_FUZZ_RANDOM"),
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture])
    @given(st.data())
    def run(data):
        _, text = data.draw(st.sampled_from(corpus), label="seed")
        pick = Picker(lambda seq: data.draw(st.sampled_from(list(seq))), lambda lo, hi: data.draw(st.integers(lo, hi)))
        for _ in range(data.draw(st.integers(0, 3), label="mutations")):
            text = mutate(text, "urdf", pick)
        piece = data.draw(st.sampled_from([1, 40, 300, 2000]), label="piece")
        note(f"mutated input:\n{text}")
        whole, *others = _all(monkeypatch, text, piece)
        if whole[2] is not None and "malformed XML" in whole[2]:
            assert all(error is not None for _, _, error in others), others
        else:
            _assert_alike([whole, *others])

    logging.disable(logging.WARNING)
    try:
        run()
    finally:
        logging.disable(logging.NOTSET)
