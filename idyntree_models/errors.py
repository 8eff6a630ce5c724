"""Errors that tell the user where their model file is wrong.

Every loader reports through ModelError so the CLI, the API and the ROS services can show one
consistent "file:line: element: what is wrong" message instead of a traceback.
"""

from __future__ import annotations


class ModelError(ValueError):
    """A model that cannot be loaded, exported or validated."""

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        element: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.element = element
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = ""
        if self.source:
            where = self.source
            if self.line:
                where += f":{self.line}"
        elif self.line:
            where = f"line {self.line}"
        parts = [p for p in (where, self.element) if p]
        return ": ".join(parts + [self.message])

    def with_source(self, source: str | None) -> ModelError:
        if source and not self.source:
            self.source = source
            self.args = (str(self),)
        return self


STRICT_NOTE = "(strict: warnings are errors)"


def one_line(text: str) -> str:
    """`text` on one line: line breaks and other control characters escaped as in Python literals.

    Names come from the model file and libxml2's messages end in a newline; a message printed as
    "one line per error" must stay one line whatever they hold.
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def listed(items: list[str], limit: int, sep: str = ", ") -> str:
    """The first `limit` of `items` for a message, and how many more there are (the rest are in the data)."""
    return sep.join(items[:limit]) + (f" and {len(items) - limit} more" if len(items) > limit else "")


class XacroNotAllowed(ModelError):
    """A xacro document where expansion is off (text from a parameter, a topic or a request)."""


class UnsupportedFormatError(ModelError):
    """A format that is known but cannot be read or written (yet) in that direction."""
