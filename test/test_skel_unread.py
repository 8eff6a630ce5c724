"""What a SKEL file holds that neither DART nor we read is named in one warning, never dropped without a word.

DART's SkelParser ignores unknown elements and attributes, a second element of a tag it reads once, and every
shape of a <geometry> but one; so did we.  Each is now named, with its line, and changes nothing else: the
checks mutate DART's own samples (which hold nothing unread) and compare with the unmutated model, and dartpy
shows that DART reads none of what is named.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from lxml import etree

from idyntree_models.api import export_model, load_model
from idyntree_models.errors import ModelError

from conftest import ROOTS
from test_skel import SKEL_DIR, SKEL_FILES, dart_reference, needs_dartpy

MUTATED = ["dart/biped.skel", "dart/shapes.skel", "dart/joint_limit.skel", "dart/softBodies.skel",
           "dart/skateboard.skel", "dart/bullet_collision.skel"]


def _load(source, warnings: list[str] | None = None):
    return load_model(source, "skel", warnings=warnings, allow_include_outside=[str(root) for root in ROOTS])


def _unread(warnings: list[str]) -> list[str]:
    return [w for w in warnings if "not read, as DART reads none of them" in w]


def _json(model) -> dict:
    out = json.loads(export_model(model, "idyntree-model-json"))
    return out


def _sample_unread() -> dict[Path, list[str]]:
    out = {}
    for path in SKEL_FILES:
        try:
            model = _load(path)
        except ModelError:
            continue
        out[path] = model.metadata.get("skel_not_read", [])
    return out


def test_dart_s_own_samples_hold_nothing_unread_but_stray_axes() -> None:
    """DART's authors wrote these for DART: what they hold is read, but for axes on joints that take none (an
    euler joint's <axis><xyz>, an <axis_order>, a ball or free joint's whole <axis>, as DART reads no old-style
    axis of those), which DART ignores (shown with dartpy below)."""
    found = _sample_unread()
    assert len(found) >= 40
    stray = re.compile(r"^<(xyz|axis_order|axis\d*)> in (the <axis> of )?joint '[^']+' \(line \d+\)$")
    for path, items in found.items():
        assert all(stray.match(item) for item in items), (path, items)
    assert sum(map(len, found.values())) > 0


def _without(path: Path, items: list[str], out: Path) -> None:
    """`path` without the elements that `items` name (by tag and line)."""
    doc = etree.parse(str(path))
    for item in items:
        m = re.match(r"^<([\w:]+)> .*\(line (\d+)\)$", item)
        el = next(e for e in doc.iter(m.group(1)) if e.sourceline == int(m.group(2)))
        el.getparent().remove(el)
    doc.write(str(out))


@needs_dartpy
def test_dart_reads_none_of_the_stray_axes_of_its_samples(tmp_path: Path) -> None:
    """Without what we name as unread, dartpy loads each sample to the same bodies, masses and poses, and so
    do we."""
    found = {path: items for path, items in _sample_unread().items() if items}
    assert found
    for path, items in found.items():
        stripped = tmp_path / path.name
        _without(path, items, stripped)
        assert dart_reference(stripped) == dart_reference(path), path
        assert _json(_load(stripped)) == _json(_load(path)), path


def _paths(root: etree._Element) -> list[etree._Element]:
    """One element of each tag path in the first skeleton (the one loaded), the world and the root."""
    first = root.find("world/skeleton")
    seen, out = set(), []
    for el in root.iter(etree.Element):
        owners = list(el.iterancestors("skeleton")) + ([el] if el.tag == "skeleton" else [])
        if owners and owners[0] is not first:
            continue
        path = tuple(a.tag for a in reversed(list(el.iterancestors()))) + (el.tag,)
        if path not in seen:
            seen.add(path)
            out.append(el)
    return out


@pytest.mark.parametrize("rel", MUTATED)
def test_unknown_content_anywhere_is_named_with_its_line_and_changes_nothing(rel: str) -> None:
    path = SKEL_DIR / rel
    base = etree.parse(str(path))
    expected = _json(_load(path))
    checked = 0
    for el in _paths(base.getroot()):
        for mode in ("element", "attribute"):
            if mode == "element" and not len(el) and (el.text or "").strip():
                continue  # a value: a child would make it unreadable (refused), not unread
            doc = etree.parse(str(path))
            target = doc.xpath(base.getpath(el))[0]
            if mode == "element":
                target.insert(0, etree.Element("zz_unknown"))
                target[0].tail = (target.text or "")
                target.text = None
            else:
                target.set("zz_unknown", "1")
            text = etree.tostring(doc, encoding="unicode")
            mark = etree.fromstring(text).xpath("//zz_unknown | //*[@zz_unknown]")
            assert len(mark) == 1
            line = mark[0].sourceline
            warnings: list[str] = []
            model = _load(text, warnings)
            unread = _unread(warnings)
            assert len(unread) == 1, (base.getpath(el), mode, warnings)
            what = "<zz_unknown> in" if mode == "element" else "attribute zz_unknown of"
            assert what in unread[0] and f"(line {line})" in unread[0], (base.getpath(el), unread[0])
            assert model.metadata["skel_not_read"] == [unread[0].split(": ", 2)[-1]]
            assert _json(model) == expected, base.getpath(el)
            checked += 1
    assert checked > 10


def test_a_repeat_and_a_second_shape_are_named_and_the_first_is_read(tmp_path: Path) -> None:
    text = (SKEL_DIR / "dart/biped.skel").read_text()
    first_mass = text.index("<mass>")
    end = text.index("</mass>", first_mass) + len("</mass>")
    text = text[:end] + "<mass>99</mass>" + text[end:]
    first_box = text.index("<box>")
    text = text[:first_box] + "<sphere><radius>0.2</radius></sphere>" + text[first_box:]
    warnings: list[str] = []
    model = _load(text, warnings)
    unread = _unread(warnings)
    assert len(unread) == 1
    assert "a second <mass> in the <inertia> of body 'h_pelvis'" in unread[0] and "the first is read" in unread[0]
    assert "<box> in the <geometry> of the <visualization_shape> of body 'h_pelvis'" in unread[0]
    assert "DART reads only its <sphere>" in unread[0]
    assert model.links["h_pelvis"].inertia.mass != 99.0
    assert type(model.links["h_pelvis"].visuals[0]).__name__ == "Sphere"


@needs_dartpy
def test_dart_reads_none_of_what_is_named(tmp_path: Path) -> None:
    """dartpy loads the mutated file to the same bodies, masses and poses as the original: what we name as
    unread, DART does not read either."""
    src = SKEL_DIR / "dart/biped.skel"
    doc = etree.parse(str(src))
    root = doc.getroot()
    root.set("zz_root", "1")
    world = root.find("world")
    etree.SubElement(world, "zz_world").text = "1"
    skel = world.find("skeleton")
    skel.set("zz_skeleton", "1")
    body = skel.find("body")
    etree.SubElement(body, "zz_body").text = "5"
    inertia = body.find("inertia")
    etree.SubElement(inertia, "mass").text = "99"  # a second <mass>
    joint = skel.find("joint")
    etree.SubElement(joint, "zz_joint")
    joint.find("transformation").set("zz_transformation", "1") if joint.find("transformation") is not None else None
    mutated = tmp_path / "biped.skel"
    doc.write(str(mutated))
    before, after = dart_reference(src), dart_reference(mutated)
    assert before["ok"] and after["ok"]
    assert after == before
    warnings: list[str] = []
    _load(mutated, warnings)
    unread = _unread(warnings)
    assert len(unread) == 1
    for what in ("attribute zz_root of the <skel>", "<zz_world> in the <world>", "attribute zz_skeleton of skeleton",
                 "<zz_body> in body 'h_pelvis'", "a second <mass> in the <inertia> of body 'h_pelvis'", "<zz_joint> in joint"):
        assert what in unread[0], (what, unread[0])


def test_what_dart_reads_and_the_model_cannot_hold_is_not_representable_not_unread(tmp_path: Path) -> None:
    """DART reads a collision shape's <collidable> and a <dof>'s initial acceleration and force (its parser,
    shared/docs/skel.md): the model holds none, so they are listed as not representable; a visual shape's
    <collidable>, which DART does not read, is named as unread."""
    src = tmp_path / "c.skel"
    src.write_text(
        '<skel><world name="w"><skeleton name="s"><body name="a"><inertia><mass>1</mass></inertia>'
        "<collision_shape><geometry><box><size>1 1 1</size></box></geometry><collidable>0</collidable></collision_shape>"
        "<visualization_shape><geometry><box><size>1 1 1</size></box></geometry><collidable>0</collidable>"
        '</visualization_shape></body><body name="b"/>'
        '<joint type="revolute" name="j"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis>'
        '<dof local_index="0"><acceleration initial="2"/><force lower="-1" upper="1" initial="3"/></dof></joint>'
        '<joint type="free" name="r"><parent>world</parent><child>a</child></joint></skeleton></world></skel>')
    warnings: list[str] = []
    model = _load(src, warnings)
    lost = model.metadata["skel_not_representable"]
    assert "the box collision shape of body 'a' does not collide (<collidable>)" in lost
    assert "the initial acceleration 2 of DOF 0 of joint 'j'" in lost
    assert "the initial force 3 of DOF 0 of joint 'j'" in lost
    assert model.metadata["skel_not_read"] == ["<collidable> in the <visualization_shape> of body 'a' (line 1)"]
    assert model.metadata["skel_world"] == "w"


def test_names_in_another_namespace_are_shown_as_the_file_writes_them() -> None:
    text = (SKEL_DIR / "dart/biped.skel").read_text().replace(
        "<skeleton name=", '<skeleton xmlns:t="urn:t" t:x="1" name=', 1).replace(
        "<body name=\"h_pelvis\">", '<body name="h_pelvis"><t:note/>', 1)
    model = _load(text)
    assert model.metadata["skel_not_read"][:2] == ["attribute t:x of skeleton 'biped' (line 10)",
                                                   "<t:note> in body 'h_pelvis' (line 12)"]


@pytest.mark.parametrize("shapes", ["<sphere><radius>0.1</radius></sphere><box><size>1 1 1</size></box>",
                                    "<box><size>1 1 1</size></box><sphere><radius>0.1</radius></sphere>"])
def test_a_second_shape_of_a_geometry_is_named_once(shapes):
    """DART reads one shape of a <geometry>, the first in its own order (sphere before box): the other was named
    twice, once as unread and once as 'DART reads only its <sphere>', and the count said one more than the list."""
    import logging

    text = ('<skel><world name="w"><skeleton name="s"><body name="b"><inertia><mass>1</mass></inertia>'
            f'<visualization_shape><geometry>{shapes}</geometry></visualization_shape></body>'
            '<joint type="free" name="j"><parent>world</parent><child>b</child></joint></skeleton></world></skel>')
    warnings: list[str] = []
    logging.disable(logging.WARNING)
    try:
        model = load_model(text, "skel", warnings=warnings)
    finally:
        logging.disable(logging.NOTSET)
    unread = model.metadata["skel_not_read"]
    assert [u for u in unread if "<box>" in u] == [u for u in unread if "DART reads only its <sphere>" in u]
    assert len([u for u in unread if "<box>" in u]) == 1 and not [u for u in unread if "<sphere>" in u.split(":")[0]]
    said = next(w for w in warnings if "not read, as DART reads none of them" in w)
    assert re.search(rf"(^|: ){len(unread)} element\(s\)", said), said
    assert model.links["b"].visuals[0].__class__.__name__ == "Sphere"
