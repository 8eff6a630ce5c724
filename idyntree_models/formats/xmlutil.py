"""Safe XML parsing and strict attribute reading for the XML formats (URDF, SDF, SKEL).

Model files come from anywhere (a ROS parameter, a service call), so the parser never touches
the network, never expands entities and refuses documents that declare them.  Every value read
goes through helpers that name the element and line of a bad value.
"""

from __future__ import annotations

import re

import numpy as np
from lxml import etree

from ..errors import ModelError

_PARSER_OPTIONS = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
}


def parse_xml(text: str | bytes, source: str | None = None) -> etree._Element:
    """Parse a document, or raise ModelError with the line of the first syntax error."""
    if isinstance(text, str):
        # lxml refuses str input that carries an encoding declaration
        data = text.encode("utf-8")
        data = re.sub(rb"^\s*(<\?xml[^>]*?)encoding=[\"'][^\"']*[\"']", rb"\1", data, count=1)
    else:
        data = text
    refuse_entities(data, source)
    parser = etree.XMLParser(**_PARSER_OPTIONS)
    try:
        root = etree.fromstring(data.lstrip(), parser)
    except etree.XMLSyntaxError as e:
        line = e.lineno if e.lineno else None
        msg = e.msg or str(e)
        msg = re.sub(r", line \d+, column \d+$", "", msg)
        raise ModelError(f"malformed XML: {msg}", source=source, line=line) from None
    if root is None:
        raise ModelError("empty document", source=source)
    return root


def refuse_entities(data: bytes, source: str | None) -> None:
    """Entity declarations could expand to gigabytes or read other files: refuse the document."""
    pos = data.find(b"<!ENTITY")
    if pos >= 0:
        raise ModelError(
            "the document declares XML entities (<!ENTITY>); entity declarations are refused "
            "so that no file can expand to gigabytes or read other files",
            source=source,
            line=data[:pos].count(b"\n") + 1,
        )


def root_tag(text: str) -> str | None:
    """The root element's name, without parsing (for format detection)."""
    head = re.sub(r"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", "", text[:20000], flags=re.S)
    m = re.search(r"<\s*([A-Za-z_][\w.:-]*)", head)
    return m.group(1) if m else None


def describe(el: etree._Element) -> str:
    name = el.get("name")
    return f"<{el.tag} name='{name}'>" if name is not None else f"<{el.tag}>"


class XmlReader:
    """Reads typed values from elements, raising ModelError that point at the element."""

    def __init__(self, source: str | None) -> None:
        self.source = source

    def error(self, el: etree._Element | None, message: str) -> ModelError:
        if el is None:
            return ModelError(message, source=self.source)
        return ModelError(message, source=self.source, line=el.sourceline, element=describe(el))

    def text(self, el: etree._Element) -> str:
        return (el.text or "").strip()

    def required(self, el: etree._Element, attr: str) -> str:
        value = el.get(attr)
        if value is None or not value.strip():
            raise self.error(el, f"missing required attribute '{attr}'")
        return value.strip()

    def floats_list(self, el: etree._Element, raw: str, what: str, n: int | None) -> list[float]:
        """Parse numbers into a plain list: the hot path of every loader, so no numpy here."""
        try:
            values = [float(p) for p in raw.split()]
        except ValueError:
            raise self.error(el, f"{what} must be numbers, got '{raw.strip()}'") from None
        if n is not None and len(values) != n:
            raise self.error(el, f"{what} needs {n} numbers, got {len(values)} ('{raw.strip()}')")
        for v in values:
            if v - v != 0.0:  # nan or inf, without a call per value
                raise self.error(el, f"{what} must be finite, got '{raw.strip()}'")
        return values

    def _floats(self, el: etree._Element, raw: str, what: str, n: int | None) -> np.ndarray:
        return np.array(self.floats_list(el, raw, what, n), dtype=float)

    def floats_attr(self, el: etree._Element, attr: str, n: int | None = 3, default=None) -> np.ndarray:
        raw = el.get(attr)
        if raw is None:
            if default is None:
                raise self.error(el, f"missing required attribute '{attr}'")
            return np.array(default, dtype=float)
        return self._floats(el, raw, f"attribute '{attr}'", n)

    def float_attr(self, el: etree._Element, attr: str, default: float | None = None) -> float:
        raw = el.get(attr)
        if raw is None:
            if default is None:
                raise self.error(el, f"missing required attribute '{attr}'")
            return float(default)
        return self.floats_list(el, raw, f"attribute '{attr}'", 1)[0]

    def vec3_attr(self, el: etree._Element, attr: str, default: tuple[float, float, float]) -> list[float]:
        raw = el.get(attr)
        if raw is None:
            return list(default)
        return self.floats_list(el, raw, f"attribute '{attr}'", 3)

    def floats_text(self, el: etree._Element, n: int | None = None) -> np.ndarray:
        return self._floats(el, el.text or "", f"<{el.tag}> value", n)

    def float_text(self, el: etree._Element) -> float:
        return float(self.floats_text(el, 1)[0])

    def bool_text(self, el: etree._Element) -> bool:
        value = self.text(el).lower()
        if value in ("1", "true"):
            return True
        if value in ("0", "false"):
            return False
        raise self.error(el, f"<{el.tag}> must be true/false/1/0, got '{value}'")
