"""The one strict number reader of each format family.

Python's `float()` and `int()` read far more than any model format allows: `1_0` is ten, Arabic-Indic
(`١٢`) and full-width (`１２`) digits are numbers, `infinity` and `nan` are numbers, and `int()` of a
4,301-digit string raises a ValueError that is not a ModelError.  A model file that one tool reads
as 10 and another refuses is a bug report waiting to happen, so every number of every format goes
through the reader of its family here:

- XML formats (URDF, SDFormat, SKEL): the XML Schema lexical forms of `xs:double` and `xs:int`
  (ASCII digits, optional sign, decimal point and exponent; lists separated by XML white space),
  finite values only (`INF` and `NaN` are refused: no model quantity is infinite).
- JSON (iDynTree model JSON): the JSON grammar (RFC 8259), through `json_loads`; `NaN` and
  `Infinity`, which Python's json module accepts, are refused.

Every value must be finite, and a number may have at most `MAX_NUMBER_CHARS` characters (a double
needs 17 significant digits; the limit leaves room for hand-written constants and refuses digit bombs
before any conversion).  Functions here raise `NumberError` (the reason, without a location); each
reader adds the element, attribute or JSON path and the line.
"""

from __future__ import annotations

import re
import sys

from .._lazy import LazyPattern

MAX_NUMBER_CHARS = 1000
"""Longest number (in characters) any reader accepts."""

INT_MIN, INT_MAX = -(2**31), 2**31 - 1  # xs:int
DOUBLE_MAX = sys.float_info.max

_XSD_DOUBLE = LazyPattern(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_XSD_INT = LazyPattern(r"[+-]?[0-9]+")
_XML_SPACE = LazyPattern(r"[ \t\r\n]+")  # XML white space; str.split() would also split at U+00A0 etc.
_JSON_NUMBER_TEXT = r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"


class NumberError(ValueError):
    """A value that is not a number of its format, or not a finite one in range.

    `token` is the offending piece of text, `reason` says what is wrong with it.
    """

    def __init__(self, token: str, reason: str, kind: str) -> None:
        self.token = token
        self.reason = reason
        self.kind = kind  # "syntax", "range" or "length"
        super().__init__(f"{show(token)}: {reason}")


def show(text: str, limit: int = 60) -> str:
    """`text` cut to `limit` characters for a message, with control characters escaped (one line)."""
    if len(text) > limit:
        text = f"{text[:limit]}... ({len(text)} characters)"
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _syntax(token: str, grammar: str) -> NumberError:
    if not token.isascii():
        why = "digits must be the ASCII 0-9"
    elif "_" in token:
        why = "digit separators like _ are not allowed"
    elif token.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
        return NumberError(token, "is not a finite number", "range")
    else:
        why = "not the form of a number"
    return NumberError(token, f"is not an {grammar}: {why}", "syntax")


def _xml_double(token: str) -> float:
    if len(token) > MAX_NUMBER_CHARS:
        raise NumberError(token, f"has more than {MAX_NUMBER_CHARS} characters", "length")
    if _XSD_DOUBLE.fullmatch(token) is None:
        raise _syntax(token, "XML Schema double")
    value = float(token)
    if value - value != 0.0:
        raise NumberError(token, f"is beyond the range of a double (magnitude at most {DOUBLE_MAX:.4g})", "range")
    return value


def xml_doubles(raw: str) -> list[float]:
    """Every number of an XML list value (`"0 0.5 -1e-3"`): finite xs:double values.

    The hot path of every XML loader: plain ASCII text without `_` (what real files hold) is
    converted with one `float()` per token, which on such text accepts exactly the XML Schema forms
    plus `inf`/`nan` spellings that the finiteness check refuses.  Anything else takes the
    token-by-token path that says what is wrong.
    """
    if len(raw) <= MAX_NUMBER_CHARS and raw.isascii() and "_" not in raw:
        try:
            values = list(map(float, raw.split()))
        except ValueError:
            pass
        else:
            if (sum(values) if len(values) > 1 else (values[0] if values else 0.0)) * 0.0 == 0.0:
                return values  # all finite (an inf or nan makes the product nan)
            for t, v in zip(raw.split(), values):
                if v - v != 0.0:
                    if t.strip().lower().lstrip("+-") in ("inf", "infinity", "nan"):
                        raise NumberError(t, "is not a finite number", "range")
                    raise NumberError(t, f"is beyond the range of a double (magnitude at most {DOUBLE_MAX:.4g})",
                                      "range")
            return values  # overflow of the sum only: every value is finite
    text = raw.strip(" \t\r\n")
    return [_xml_double(t) for t in _XML_SPACE.split(text)] if text else []


def xml_double(raw: str) -> float:
    """One finite xs:double (surrounding XML white space allowed)."""
    values = xml_doubles(raw)
    if len(values) != 1:
        raise NumberError(raw, f"needs one number, got {len(values)}", "syntax")
    return values[0]


def xml_int(raw: str, lo: int = INT_MIN, hi: int = INT_MAX) -> int:
    """One xs:int (ASCII digits, optional sign) within [lo, hi]."""
    token = raw.strip(" \t\r\n")
    if len(token) > MAX_NUMBER_CHARS:
        raise NumberError(token, f"has more than {MAX_NUMBER_CHARS} characters", "length")
    if _XSD_INT.fullmatch(token) is None:
        if _XSD_DOUBLE.fullmatch(token) is not None:
            raise NumberError(token, "is not an integer", "syntax")
        raise _syntax(token, "XML Schema integer")
    value = int(token)
    if not lo <= value <= hi:
        raise NumberError(token, f"is out of range [{lo}, {hi}]", "range")
    return value


# -- JSON ----------------------------------------------------------------------------------------
class BadJsonNumber:
    """Stands in the parsed document for a number the JSON reader refuses.

    Python's json module converts numbers while parsing, before the reader knows the path of the
    value, so the reason is kept here and `json_number` raises it with the path; `ordinal` (the
    number's position among all numbers of the document) gives the line.
    """

    __slots__ = ("error", "ordinal")

    def __init__(self, error: NumberError, ordinal: int) -> None:
        self.error = error
        self.ordinal = ordinal

    def __repr__(self) -> str:
        return show(self.error.token)


class _JsonHooks:
    """parse_int / parse_float / parse_constant for json.loads, counting numbers in document order."""

    def __init__(self) -> None:
        self.count = 0

    def _length(self, token: str) -> BadJsonNumber | None:
        self.count += 1
        if len(token) > MAX_NUMBER_CHARS:
            return BadJsonNumber(NumberError(token, f"has more than {MAX_NUMBER_CHARS} characters",
                                             "length"), self.count - 1)
        return None

    def parse_float(self, token: str):
        bad = self._length(token)
        if bad is not None:
            return bad
        value = float(token)
        if value - value != 0.0:
            return BadJsonNumber(NumberError(token, "is beyond the range of a double "
                                             f"(magnitude at most {DOUBLE_MAX:.4g})", "range"), self.count - 1)
        return value

    def parse_int(self, token: str):
        bad = self._length(token)
        if bad is not None:
            return bad
        value = int(token)
        if abs(value) > DOUBLE_MAX:
            return BadJsonNumber(NumberError(token, "is beyond the range of a double "
                                             f"(magnitude at most {DOUBLE_MAX:.4g})", "range"), self.count - 1)
        return value

    def parse_constant(self, token: str):
        self.count += 1
        return BadJsonNumber(NumberError(token, "is not a JSON number: JSON has no NaN or Infinity", "syntax"),
                             self.count - 1)


# strings (skipped), numbers and the constants Python's json accepts, in document order
_JSON_TOKENS = LazyPattern(r'"(?:[^"\\]|\\.)*"|-?Infinity|NaN|' + _JSON_NUMBER_TEXT, re.S)
_JSON_STRING = LazyPattern(r'"(?:[^"\\]|\\.)*"', re.S)
_SURROGATE_IN_STRING = LazyPattern(
    r"(?<!\\)((?:\\\\)*)\\u(?:[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<![dD][89abAB][0-9a-fA-F]{2}\\u)[dD][c-fC-F][0-9a-fA-F]{2})"
)


def json_number_line(text: str, ordinal: int) -> int | None:
    """Line of the `ordinal`-th number (or NaN/Infinity constant) of a JSON text."""
    n = 0
    for m in _JSON_TOKENS.finditer(text):
        if m.group(0).startswith('"'):
            continue
        if n == ordinal:
            return text.count("\n", 0, m.start()) + 1
        n += 1
    return None


def lone_surrogate_line(text: str) -> int | None:
    """Line of the first `\\uD800`-`\\uDFFF` escape of a JSON string that is not part of a pair.

    Such an escape decodes to a Python string that cannot be encoded to UTF-8: it is no character,
    and every later write of the name (an export, a log line) would fail.
    """
    if "\\u" not in text:
        return None
    for m in _JSON_STRING.finditer(text):
        s = m.group(0)
        if "\\u" in s:
            hit = _SURROGATE_IN_STRING.search(s)
            if hit is not None:
                return text.count("\n", 0, m.start() + hit.start()) + 1
    return None


def json_loads(text: str, object_pairs_hook=None):
    """`json.loads` with the JSON grammar's numbers only: finite doubles, integers within a double's range.

    Refused numbers are left in the document as `BadJsonNumber` for `json_number` to report with
    their path; `ValueError`s of the json module (syntax) propagate as `json.JSONDecodeError`.
    """
    import json  # here: the URDF converter's start-up never needs it (3 ms)

    hooks = _JsonHooks()
    return json.loads(
        text,
        object_pairs_hook=object_pairs_hook,
        parse_float=hooks.parse_float,
        parse_int=hooks.parse_int,
        parse_constant=hooks.parse_constant,
    )


def json_number(value) -> float:
    """The float of a parsed JSON number (int or float), or raise the NumberError of a refused one.

    Raises TypeError for a value that is not a number at all (the caller names the expected type).
    """
    if isinstance(value, BadJsonNumber):
        raise value.error
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(value)
    x = float(value)
    if x - x != 0.0:  # only a float built by the caller can get here
        raise NumberError(repr(value), "is not a finite number", "range")
    return x


__all__ = [
    "DOUBLE_MAX",
    "INT_MAX",
    "INT_MIN",
    "MAX_NUMBER_CHARS",
    "BadJsonNumber",
    "NumberError",
    "json_loads",
    "json_number",
    "json_number_line",
    "lone_surrogate_line",
    "show",
    "xml_double",
    "xml_doubles",
    "xml_int",
]
