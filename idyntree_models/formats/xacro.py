"""xacro documents, expanded by the xacro package (PyPI `xacro`, the tool ROS uses) before they are read.

Most robot descriptions in ROS packages are `.urdf.xacro` files: macros, properties, conditionals
and `$(arg)`s that only xacro turns into URDF.  Reading one as plain URDF gives a model missing
everything its macros would have made, so the URDF reader refuses xacro elements and the API
expands documents through here first.  `$(find pkg)` resolves through formats.packages (the ament
index, then ROS_PACKAGE_PATH), so no ROS installation is needed; a package it cannot find is an
error naming it.

xacro evaluates `${...}` and `$(eval ...)` expressions as Python and reads included files, as the
`xacro` command does: expand documents you trust (the ROS node only expands files, never text
received over DDS).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
import threading

from .._lazy import LazyPattern
from ..errors import ModelError
from ..model.model import Model
from .base import Diagnostics, LoadOptions
from .packages import find_package, searched_for_packages

# xacro keeps its state (file stack, arguments) in module globals: one expansion at a time
_LOCK = threading.Lock()
_XACRO_ELEMENT = LazyPattern(r"<\s*xacro:[A-Za-z_]")
_COMMENT = LazyPattern(r"<!--.*?-->", re.S)


def uses_xacro(text: str | bytes) -> bool:
    """True for documents with xacro elements (<xacro:...>).

    Many plain URDF files declare the xacro namespace without using it, and some keep a `${...}`
    in a comment or a <gazebo> block (pr2.urdf): those are read as they are.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if "xacro:" not in text or _XACRO_ELEMENT.search(text) is None:  # (the plain find: a tenth of the pattern's scan)
        return False
    return _XACRO_ELEMENT.search(_COMMENT.sub("", text)) is not None  # talos keeps xacro calls in comments


class _PackageNotFound(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _find(name: str) -> str:
    path = find_package(name)
    if path is None:
        raise _PackageNotFound(name)
    return path


def _import_xacro():
    try:
        import xacro
        from xacro import substitution_args
    except ImportError:
        raise ModelError(
            "reading xacro needs the xacro package (pip install xacro, see requirements/ros.txt)"
        ) from None
    substitution_args._eval_find = _find  # $(find pkg): our ament index / ROS_PACKAGE_PATH lookup
    return xacro, substitution_args


def expand(text: str | bytes, path: str | None, args: dict[str, str] | None, diag: Diagnostics) -> str:
    """The document after xacro, as the `xacro` command prints it; raises ModelError saying what failed."""
    from .xmlutil import refuse_entities

    if isinstance(text, bytes):
        text = text.decode("utf-8-sig")
    refuse_entities(text.encode("utf-8"), diag.source)
    xacro, substitution_args = _import_xacro()
    from xml.parsers.expat import ExpatError

    where = path or diag.source
    captured = io.StringIO()
    with _LOCK, _xacro_stderr(xacro, captured):
        xacro.init_stacks(os.path.abspath(path) if path else None)
        try:
            doc = xacro.parse(text)
            xacro.process_doc(doc, mappings=dict(args or {}))
            if path:
                _banner(doc, path)
            out = doc.toprettyxml(indent="  ")
        except ExpatError as e:
            raise ModelError(f"xacro: malformed XML: {e}", source=_current_file(xacro, where)) from None
        except (_PackageNotFound, xacro.XacroException, substitution_args.SubstitutionException) as e:
            cause = e
            while isinstance(getattr(cause, "exc", None), Exception):  # xacro wraps what went wrong
                cause = cause.exc
            source = _current_file(xacro, where)
            if isinstance(cause, _PackageNotFound):
                raise ModelError(f"xacro: $(find {cause.name}): package '{cause.name}' not found "
                                 f"(searched {searched_for_packages()})", source=source) from None
            if isinstance(cause, substitution_args.ArgException):
                raise ModelError(f"xacro: argument '{cause}' is not set and has no default: give it as "
                                 "NAME:=VALUE (--xacro-arg, xacro_args)", source=source) from None
            raise ModelError(f"xacro: {_message(e)}", source=source) from None
        except (NameError, TypeError, ValueError, ZeroDivisionError, SyntaxError, KeyError, IndexError) as e:
            raise ModelError(f"xacro: {type(e).__name__}: {e}", source=_current_file(xacro, where)) from None
        except RecursionError:  # a macro that instantiates itself without end (xacro says only the depth)
            stack = [m.body.getAttribute("name") for m in (xacro.macrostack or [])]
            inner = (f" while instantiating macro '{stack[-1]}' (a macro that, directly or not, instantiates itself)"
                     if stack else "")
            raise ModelError(f"xacro: maximum recursion depth exceeded{inner}", source=_current_file(xacro, where)) from None
        finally:
            xacro.init_stacks(None)
    said: list[str] = []  # a warning, then the lines of where it arose (xacro's print_location), as one
    for raw in captured.getvalue().splitlines():
        line = raw.strip()
        if not line:
            continue
        if said and (line.startswith(_LOCATION_LINES) or raw[:1].isspace()):  # (an indented line goes on the last:
            said[-1] += f"; {line}"  # a namespace warning's ' old:' and ' new:')
        else:
            said.append(line)
    for line in said:
        diag.warn(f"xacro: {line}")
    diag.lines_of = "the xacro output"  # what reads `out` finds its lines, not the file's (xacro keeps none)
    return out


# the lines xacro's print_location writes after a warning, saying where it arose
_LOCATION_LINES = ("when instantiating macro:", "instantiated from:", "in file:", "when processing file:",
                   "included from:")


class _SysWithStderr:
    """The `sys` module as xacro's modules see it during an expansion: its stderr is our buffer."""

    def __init__(self, stderr: io.StringIO) -> None:
        self.stderr = stderr

    def __getattr__(self, name: str):
        return getattr(sys, name)


@contextlib.contextmanager
def _xacro_stderr(xacro, captured: io.StringIO):
    """xacro prints its warnings to sys.stderr: they are taken from its own modules only (swapping the process's
    sys.stderr took what other threads wrote meanwhile, our own log lines too, as warnings of this model)."""
    modules = [m for m in (xacro, getattr(xacro, "color", None)) if m is not None and getattr(m, "sys", None) is sys]
    for m in modules:
        m.sys = _SysWithStderr(captured)
    try:
        yield
    finally:
        for m in modules:
            m.sys = sys


def _banner(doc, path: str) -> None:
    """The comment the `xacro` command puts above the robot, so that the lines of the text read (and of the
    findings about it) are those of the file users get from `xacro`."""
    rule = " " + "=" * 83 + " "
    first = doc.firstChild  # (above a comment the file has before its root, too)
    for text in (rule, f" |    This document was autogenerated by xacro from {re.sub('-+', '-', path):<30} | ",
                 f" |    EDITING THIS FILE BY HAND IS NOT RECOMMENDED  {'':<30} | ", rule):
        doc.insertBefore(doc.createComment(text), first)


def _current_file(xacro, fallback: str | None) -> str | None:
    stack = [f for f in (xacro.filestack or []) if f]
    return stack[-1] if stack else fallback


def _message(e: Exception) -> str:
    text = "; ".join(part.strip() for part in str(e).strip().splitlines() if part.strip())
    macro = getattr(e, "macro", None)
    body = getattr(macro, "body", None)
    if body is not None and hasattr(body, "getAttribute"):
        text += f" (in macro '{body.getAttribute('name')}')"
    return text


def load(text: str | bytes, options: LoadOptions, diag: Diagnostics) -> Model:
    """Expand, then read the result in the format it turned out to be (URDF, or SDF)."""
    from . import detect_format, loader

    path = os.path.join(options.base_dir, os.path.basename(diag.source)) if options.base_dir and diag.source else None
    expanded = expand(text, path, options.xacro_args, diag)
    fmt = detect_format(expanded)
    if fmt.name == "xacro":
        raise ModelError("xacro left xacro elements in the document", source=diag.source)
    return loader(fmt)(expanded, options, diag)


__all__ = ["expand", "load", "uses_xacro"]
